"""Questions about a value that need nothing to run: `tf.is_tensor` and `tf.get_static_value`."""

from __future__ import annotations

from typing import Any

import numpy as np

from minitf.composite.ragged.tensor import RaggedTensor
from minitf.composite.sparse import SparseTensor
from minitf.core.conversion import static_value
from minitf.core.tensor import Tensor
from minitf.ops.variables import Variable


def is_tensor(x: Any) -> bool:
    """Whether `x` is a tensor (eager or traced), a Variable or a composite tensor (Ragged/Sparse) rather than a
    Python or NumPy value."""
    return isinstance(x, Tensor | Variable | RaggedTensor | SparseTensor)


def get_static_value(tensor: Any, partial: bool = False) -> Any:
    """The value known without running anything: a NumPy array for an eager tensor or a traced constant, None
    for a traced tensor computed inside the function; NumPy and Python values come back as they are."""
    if not is_tensor(tensor):
        return tensor
    known = static_value(tensor) if isinstance(tensor, Tensor) else None
    return None if known is None else np.array(known)
