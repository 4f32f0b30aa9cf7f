"""`tf.autograph.experimental`: loop options and keeping a function out of AutoGraph's rewrite."""

from minitf.function.autograph.converter import do_not_convert
from minitf.function.autograph.operators import set_loop_options
