"""`tf.saved_model`: saving a `tf.Module`'s variables and traced functions, and loading them (minitf/saved/)."""

from minitf.saved.saved_model import save
from minitf.saved.saved_model_load import load
