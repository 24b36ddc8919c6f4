"""``tfunc.nn``: activations, convolution, softmax and losses."""

from .api.linalg_ops import l2_normalize
from .api.math_ops import elu, relu, relu6, sigmoid, softplus, tanh
from .api.nn_ops import (
    batch_normalization,
    bias_add,
    compute_average_loss,
    conv2d,
    conv2d_transpose,
    depthwise_conv2d,
    l2_loss,
    log_softmax,
    moments,
    scale_regularization_loss,
    sigmoid_cross_entropy_with_logits,
    softmax,
    softmax_cross_entropy_with_logits,
    sparse_softmax_cross_entropy_with_logits,
)
from .api.pooling_ops import avg_pool, avg_pool2d, max_pool, max_pool2d
from .api.random_ops import dropout
from .api.sort_ops import top_k

__all__ = [
    "avg_pool",
    "avg_pool2d",
    "batch_normalization",
    "bias_add",
    "compute_average_loss",
    "conv2d",
    "conv2d_transpose",
    "depthwise_conv2d",
    "dropout",
    "elu",
    "l2_loss",
    "l2_normalize",
    "log_softmax",
    "max_pool",
    "max_pool2d",
    "moments",
    "relu",
    "relu6",
    "scale_regularization_loss",
    "sigmoid",
    "sigmoid_cross_entropy_with_logits",
    "softmax",
    "softmax_cross_entropy_with_logits",
    "softplus",
    "sparse_softmax_cross_entropy_with_logits",
    "tanh",
    "top_k",
]
