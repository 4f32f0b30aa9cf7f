"""`tf.nn`: activations and losses."""

from minitf.ops.conv_ops import avg_pool2d, conv2d, max_pool2d  # noqa: F401
from minitf.ops.guide_ops import bias_add, l2_normalize, moments, relu6, selu, silu, softsign, swish  # noqa: F401
from minitf.ops.nn_ops import (  # noqa: F401
    elu,
    l2_loss,
    leaky_relu,
    log_softmax,
    relu,
    sigmoid,
    softmax,
    softmax_cross_entropy_with_logits,
    softplus,
    sparse_softmax_cross_entropy_with_logits,
    tanh,
)
from minitf.ops.nn_training_ops import dropout, sigmoid_cross_entropy_with_logits  # noqa: F401
from minitf.ops.sort_ops import top_k  # noqa: F401
