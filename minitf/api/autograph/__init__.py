"""`tf.autograph`: the code AutoGraph makes of a function (minitf/function/autograph/)."""

from minitf.api.autograph import experimental
from minitf.function.autograph.converter import set_verbosity, to_code
