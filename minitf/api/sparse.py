"""`tf.sparse`: SparseTensors and the ops on them (minitf/composite/sparse.py, sparse_ops.py)."""

from minitf.composite.sparse import SparseTensor, add, from_dense, map_values, reorder, sparse_dense_matmul, to_dense
from minitf.composite.sparse import sparse_reduce_sum as reduce_sum
from minitf.composite.sparse import sparse_transpose as transpose
from minitf.composite.sparse_ops import concat, reduce_max, slice
