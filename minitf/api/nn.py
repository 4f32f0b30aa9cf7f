"""`tf.nn`: activations and losses."""

from minitf.ops.array.sort_ops import (
    in_top_k,  # noqa: F401
    top_k,  # noqa: F401
)
from minitf.ops.linalg.norms import l2_normalize, moments  # noqa: F401
from minitf.ops.nn.composed import (  # noqa: F401
    avg_pool,
    avg_pool1d,
    batch_normalization,
    compute_average_loss,
    conv1d,
    crelu,
    depth_to_space,
    embedding_lookup,
    gelu,
    log_poisson_loss,
    max_pool,
    max_pool1d,
    normalize_moments,
    scale_regularization_loss,
    space_to_depth,
    sufficient_statistics,
    weighted_cross_entropy_with_logits,
    weighted_moments,
    zero_fraction,
)
from minitf.ops.nn.conv_ops import avg_pool2d, conv2d, max_pool2d  # noqa: F401
from minitf.ops.nn.nn_ops import (  # noqa: F401
    bias_add,
    elu,
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
from minitf.ops.nn.nn_training_ops import dropout, sigmoid_cross_entropy_with_logits  # noqa: F401
