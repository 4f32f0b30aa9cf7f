"""Composite tensors: values made of several component tensors (SparseTensor, RaggedTensor, IndexedSlices),
and how a `tf.function` traces them (specs.py)."""
