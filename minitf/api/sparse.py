"""`tf.sparse`: SparseTensors and the ops on them (minitf/composite/sparse.py, sparse_ops.py)."""

from minitf.composite.sparse import SparseTensor, add, from_dense, reorder, to_dense
from minitf.composite.sparse_math import map_values, sparse_dense_matmul
from minitf.composite.sparse_math import sparse_reduce_sum as reduce_sum
from minitf.composite.sparse_math import sparse_transpose as transpose
from minitf.composite.sparse_ops import concat, reduce_max, slice
