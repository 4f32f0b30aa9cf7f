"""`tf.data`: input pipelines. dataset.py has the `Dataset` class, its sources and transformations;
structure.py the element structures and specs; traced.py the traced user functions; iterators.py the
iterators. The public namespace is minitf/api/data/."""
