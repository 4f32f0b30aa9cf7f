"""`tf.autodiff`: reverse mode (`GradientTape`) and forward mode (`ForwardAccumulator`)."""

from minitf.autodiff.forward_mode import ForwardAccumulator
from minitf.autodiff.tape import GradientTape

__all__ = ["ForwardAccumulator", "GradientTape"]
