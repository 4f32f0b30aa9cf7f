"""The public namespaces (`tf.math`, `tf.nn`, `tf.config`, `tf.sparse`, ...): which names TensorFlow has where.

Each namespace is a module (a package where it has namespaces inside it, as `tf.config.experimental`) that lists
names defined elsewhere in minitf and defines nothing of its own (`tf.version`'s numbers excepted);
tests/engine/test_engine_layout.py keeps it so. `minitf/__init__.py` assembles the top level `tf` from them."""
