"""The public namespaces (`tf.math`, `tf.nn`, `tf.config`, `tf.sparse`, ...): which names TensorFlow has where.

The modules here define nothing of their own: each one lists names defined elsewhere in minitf.
`minitf/__init__.py` assembles the top level `tf` from them."""
