"""`tf.types`: the abstract types TensorFlow's own signatures use (all under `tf.types.experimental`)."""

from minitf.api.types import experimental
