"""`tf.nn`: activations and losses."""

from minitf.ops.array.shape_ops import depth_to_space, space_to_depth
from minitf.ops.array.sort_ops import in_top_k, top_k
from minitf.ops.linalg.norms import l2_normalize
from minitf.ops.nn.conv_by_rank import avg_pool, avg_pool1d, conv1d, max_pool, max_pool1d
from minitf.ops.nn.conv_ops import conv2d
from minitf.ops.nn.dropout import dropout
from minitf.ops.nn.embedding import embedding_lookup
from minitf.ops.nn.losses import (
    compute_average_loss,
    log_poisson_loss,
    scale_regularization_loss,
    sigmoid_cross_entropy_with_logits,
    weighted_cross_entropy_with_logits,
)
from minitf.ops.nn.nn_ops import (
    bias_add,
    crelu,
    elu,
    gelu,
    l2_loss,
    leaky_relu,
    log_softmax,
    relu,
    relu6,
    selu,
    sigmoid,
    silu,
    softmax,
    softmax_cross_entropy_with_logits,
    softplus,
    softsign,
    sparse_softmax_cross_entropy_with_logits,
    swish,
    tanh,
)
from minitf.ops.nn.normalization import (
    batch_normalization,
    moments,
    normalize_moments,
    sufficient_statistics,
    weighted_moments,
    zero_fraction,
)
from minitf.ops.nn.pooling import avg_pool2d, max_pool2d
