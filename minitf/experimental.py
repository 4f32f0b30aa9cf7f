"""`tf.experimental`: what minitf adds there. TensorFlow's own experimental names (extension types, dlpack,
...) are not part of minitf; `numerics` is minitf's switch between NumPy's float kernels and TensorFlow's exact
ones (`minitf/numerics.py`)."""

from minitf.numerics import get_numerics, numerics

__all__ = ["get_numerics", "numerics"]
