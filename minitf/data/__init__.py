"""`tf.data`: input pipelines (see dataset.py; the public namespace is built in minitf/api_extensions.py)."""
