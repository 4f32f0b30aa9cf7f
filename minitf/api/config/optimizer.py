"""`tf.config.optimizer`: the graph optimiser's switches (minitf/function/compiling/optimizer.py)."""

from minitf.function.compiling.optimizer import get_experimental_options, get_jit, set_experimental_options, set_jit
