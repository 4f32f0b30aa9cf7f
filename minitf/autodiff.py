"""`tf.autodiff`: reverse mode (`GradientTape`) and forward mode (`ForwardAccumulator`)."""

from minitf.forward_mode import ForwardAccumulator
from minitf.tape import GradientTape

__all__ = ["ForwardAccumulator", "GradientTape"]
