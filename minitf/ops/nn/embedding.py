"""tf.nn.embedding_lookup: rows of an embedding matrix (or of its row shards) at integer ids, a gather, with
TensorFlow's optional max_norm clipping."""

from __future__ import annotations

from typing import Any

from minitf.core.conversion import convert_to_tensor
from minitf.core.dispatch import api_handler
from minitf.core.tensor import Tensor
from minitf.ops.array.gather_scatter import gather
from minitf.ops.array.join_split import concat
from minitf.ops.array.shape_ops import identity
from minitf.ops.linalg.norms import clip_by_norm


def embedding_lookup(params: Any, ids: Any, max_norm: Any = None, name: str | None = None) -> Tensor:
    """Rows of the embedding matrix `params` (or of a list of shards of it, split by rows) at `ids`."""
    if not isinstance(ids, Tensor) and (handler := api_handler(embedding_lookup, ids)) is not None:
        return handler(params, ids, max_norm)
    shards = list(params) if isinstance(params, list | tuple) else [params]
    if not shards:
        raise ValueError("Length of params is currently 0. Need at least one param.")
    table = convert_to_tensor(shards[0]) if len(shards) == 1 else concat([convert_to_tensor(s) for s in shards], 0)
    rows = gather(table, ids)
    if max_norm is None:
        return identity(rows)
    ids_rank = convert_to_tensor(ids).shape.rank or 0
    axes = list(range(ids_rank, rows.shape.rank or ids_rank + 1))
    return clip_by_norm(rows, max_norm, axes=axes)
