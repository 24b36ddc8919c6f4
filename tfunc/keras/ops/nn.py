"""``keras.ops.nn``: activations, normalizations, cross-entropies, one-hot encodings, pooling
and convolutions with Keras 3's arguments (``data_format`` 'channels_last'/'channels_first',
lower-case padding, one kernel layout for every rank) on tfunc's ops."""

from __future__ import annotations

from ...api import array_ops, creation_ops, math_ops, nn_composites, nn_ops, reduction_ops
from ...core import dtypes as D
from .. import activations as A
from .numpy import _float, convert_to_tensor

_EPSILON = 1e-7  # keras.config.epsilon()


__all__ = [
    "average_pool",
    "batch_normalization",
    "binary_crossentropy",
    "categorical_crossentropy",
    "celu",
    "conv",
    "depthwise_conv",
    "elu",
    "gelu",
    "glu",
    "hard_sigmoid",
    "hard_silu",
    "hard_swish",
    "hard_tanh",
    "layer_normalization",
    "leaky_relu",
    "log_sigmoid",
    "log_softmax",
    "max_pool",
    "moments",
    "multi_hot",
    "normalize",
    "one_hot",
    "psnr",
    "relu",
    "relu6",
    "rms_normalization",
    "selu",
    "separable_conv",
    "sigmoid",
    "silu",
    "softmax",
    "softplus",
    "softsign",
    "sparse_categorical_crossentropy",
    "swish",
]


def relu(x):
    t = convert_to_tensor(x)  # integers stay integers, as Keras
    return math_ops.maximum(t, math_ops.cast(0, t.dtype)) if t.dtype.is_integer else A.relu(t)


def relu6(x):
    t = convert_to_tensor(x)
    if t.dtype.is_integer:
        return math_ops.clip_by_value(t, math_ops.cast(0, t.dtype), math_ops.cast(6, t.dtype))
    return A.relu6(t)


def sigmoid(x):
    return A.sigmoid(_float(x))


def softplus(x):
    return A.softplus(_float(x))


def softsign(x):
    return A.softsign(_float(x))


def silu(x):
    return A.silu(_float(x))


swish = silu


def log_sigmoid(x):
    return A.log_sigmoid(_float(x))


def leaky_relu(x, negative_slope=0.2):
    return A.leaky_relu(_float(x), negative_slope=negative_slope)


def hard_sigmoid(x):
    return A.hard_sigmoid(_float(x))


def hard_silu(x):
    return A.hard_silu(_float(x))


hard_swish = hard_silu


def elu(x, alpha=1.0):
    return A.elu(_float(x), alpha=alpha)


def selu(x):
    return A.selu(_float(x))


def celu(x, alpha=1.0):
    return A.celu(_float(x), alpha=alpha)


def glu(x, axis=-1):
    return A.glu(_float(x), axis=axis)


def hard_tanh(x):
    return A.hard_tanh(_float(x))


def gelu(x, approximate=True):
    """GELU; note that ``keras.ops.gelu`` defaults to the tanh approximation."""
    return A.gelu(_float(x), approximate=approximate)


def softmax(x, axis=-1):
    return _over_axes(nn_ops.softmax, _float(x), axis)


def log_softmax(x, axis=-1):
    return _over_axes(nn_ops.log_softmax, _float(x), axis)


def _over_axes(fn, x, axis):
    """``fn`` over one axis, or over several axes (or all, with None) taken together."""
    if isinstance(axis, int):
        return fn(x, axis=axis)
    rank = x.shape.rank
    axes = list(range(rank)) if axis is None else sorted(a % rank for a in axis)
    rest = [i for i in range(rank) if i not in axes]
    moved = array_ops.transpose(x, rest + axes)
    flat = array_ops.reshape(moved, array_ops.concat([array_ops.shape(moved)[: len(rest)], [-1]], 0))
    out = array_ops.reshape(fn(flat, axis=-1), array_ops.shape(moved))
    inverse = [0] * rank
    for i, p in enumerate(rest + axes):
        inverse[p] = i
    return array_ops.transpose(out, inverse)


def one_hot(x, num_classes, axis=-1, dtype=None, sparse=False):
    if sparse:
        raise ValueError("tfunc.keras.ops has no sparse tensors: one_hot(sparse=True) is not supported.")
    dtype = D.float32 if dtype is None else D.as_dtype(dtype)
    return array_ops.one_hot(convert_to_tensor(x), num_classes, axis=axis, dtype=dtype)


def multi_hot(inputs, num_classes=None, axis=-1, dtype=None, sparse=False, **kwargs):
    """One-hot encodings of the last axis's indices combined (1 where any index names the class)."""
    if sparse:
        raise ValueError("tfunc.keras.ops has no sparse tensors: multi_hot(sparse=True) is not supported.")
    num_classes = kwargs.pop("num_tokens", num_classes)
    if kwargs:
        raise TypeError(f"multi_hot got unexpected keyword arguments {sorted(kwargs)}.")
    x = convert_to_tensor(inputs)
    rank = x.shape.rank
    hot = one_hot(x, num_classes, axis=axis, dtype=dtype)
    reduce_axis = -1 if axis != -1 else -2
    out = reduction_ops.reduce_max(hot, axis=reduce_axis)
    return out if rank > 1 else out  # a rank-1 input is one sample


def binary_crossentropy(target, output, from_logits=False):
    """Elementwise binary cross-entropy (no mean over an axis: ``keras.losses`` averages)."""
    output = _float(output)
    target = math_ops.cast(convert_to_tensor(target), output.dtype)
    if from_logits:
        return nn_ops.sigmoid_cross_entropy_with_logits(labels=target, logits=output)
    output = math_ops.clip_by_value(output, _EPSILON, 1.0 - _EPSILON)
    return -(target * math_ops.log(output) + (1.0 - target) * math_ops.log(1.0 - output))


def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Cross-entropy over ``axis`` between one-hot targets and probabilities (or logits)."""
    output = _float(output)
    target = math_ops.cast(convert_to_tensor(target), output.dtype)
    if from_logits:
        return -reduction_ops.reduce_sum(target * nn_ops.log_softmax(output, axis=axis), axis=axis)
    output = output / reduction_ops.reduce_sum(output, axis=axis, keepdims=True)
    output = math_ops.clip_by_value(output, _EPSILON, 1.0 - _EPSILON)
    return -reduction_ops.reduce_sum(target * math_ops.log(output), axis=axis)


def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1):
    output = _float(output)
    target = convert_to_tensor(target)
    if target.shape.rank == output.shape.rank and target.shape[-1] == 1:
        target = array_ops.squeeze(target, axis=-1)
    classes = output.shape[axis]
    if classes is None:
        raise ValueError("sparse_categorical_crossentropy needs the number of classes known while tracing.")
    hot = array_ops.one_hot(math_ops.cast(target, D.int32), int(classes), dtype=output.dtype)
    return categorical_crossentropy(hot, output, from_logits=from_logits, axis=axis)


def moments(x, axes, keepdims=False, synchronized=False):
    """(mean, variance) over ``axes``; half precision computed in float32 and cast back."""
    if synchronized:
        raise NotImplementedError("tfunc.keras.ops.moments(synchronized=True) is not supported (one device).")
    x = _float(x)
    compute = D.float32 if x.dtype in (D.float16, D.bfloat16) else x.dtype
    mean, variance = nn_ops.moments(math_ops.cast(x, compute), list(axes), keepdims=keepdims)
    return math_ops.cast(mean, x.dtype), math_ops.cast(variance, x.dtype)


def _along(v, x, axis):
    """A per-channel vector shaped to broadcast along ``axis`` of ``x``."""
    if v is None:
        return None
    v = math_ops.cast(convert_to_tensor(v), x.dtype)
    if v.shape.rank != 1:
        return v
    shape = [1] * x.shape.rank
    shape[axis] = -1
    return array_ops.reshape(v, shape)


def batch_normalization(x, mean, variance, axis, offset=None, scale=None, epsilon=1e-3):
    x = _float(x)
    inv = math_ops.rsqrt(_along(variance, x, axis) + epsilon)
    if scale is not None:
        inv = inv * _along(scale, x, axis)
    out = (x - _along(mean, x, axis)) * inv
    return out if offset is None else out + _along(offset, x, axis)


def normalize(x, axis=-1, order=2, epsilon=None):
    """``x`` divided by its ``order``-norm over ``axis`` (at least ``epsilon``)."""
    x = _float(x)
    eps = _EPSILON if epsilon is None else epsilon
    if order == 2:
        sq = reduction_ops.reduce_sum(math_ops.square(x), axis=axis, keepdims=True)
        return x * math_ops.rsqrt(math_ops.maximum(sq, eps * eps))
    norm = reduction_ops.reduce_sum(math_ops.abs(x) ** order, axis=axis, keepdims=True) ** (1.0 / order)
    return x / math_ops.maximum(norm, eps)


def layer_normalization(x, gamma=None, beta=None, axis=-1, epsilon=None, **kwargs):
    x = _float(x)
    eps = _EPSILON if epsilon is None else epsilon
    axes = [axis] if isinstance(axis, int) else list(axis)
    mean, variance = nn_ops.moments(x, axes, keepdims=True)
    out = (x - mean) * math_ops.rsqrt(variance + eps)
    if gamma is not None:
        out = out * math_ops.cast(gamma, x.dtype)
    return out if beta is None else out + math_ops.cast(beta, x.dtype)


def rms_normalization(x, scale=None, axis=-1, epsilon=None):
    x = _float(x)
    eps = _EPSILON if epsilon is None else epsilon
    out = x * math_ops.rsqrt(reduction_ops.reduce_mean(math_ops.square(x), axis=axis, keepdims=True) + eps)
    return out if scale is None else out * math_ops.cast(scale, x.dtype)


# --- pooling and convolution ----------------------------------------------------------------------


def _channels_first(data_format):
    if data_format not in (None, "channels_last", "channels_first"):
        raise ValueError(f"data_format must be 'channels_last' or 'channels_first', got {data_format!r}.")
    return data_format == "channels_first"


def _spatial(fn, x, data_format):
    """``fn`` on channels-last data (tfunc's kernels' layout): channels-first inputs are moved
    there and back."""
    if not _channels_first(data_format):
        return fn(x)
    rank = x.shape.rank
    out = fn(array_ops.transpose(x, [0, *range(2, rank), 1]))
    return array_ops.transpose(out, [0, rank - 1, *range(1, rank - 1)])


def _tuple(v, n):
    return [int(v)] * n if isinstance(v, int) else [int(a) for a in v]


def _pool(kind, inputs, pool_size, strides, padding, data_format):
    x = _float(inputs)
    n = x.shape.rank - 2
    window = _tuple(pool_size, n)
    strides = window if strides is None else _tuple(strides, n)
    return _spatial(
        lambda v: nn_composites.pool(v, window, kind, strides=strides, padding=padding.upper()), x, data_format
    )


def max_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    return _pool("MAX", inputs, pool_size, strides, padding, data_format)


def average_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    return _pool("AVG", inputs, pool_size, strides, padding, data_format)


def conv(inputs, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    """N-d convolution; ``kernel`` is (*spatial, in_channels, out_channels) for every format."""
    x = _float(inputs)
    n = x.shape.rank - 2
    k = math_ops.cast(convert_to_tensor(kernel), x.dtype)
    return _spatial(
        lambda v: nn_composites.convolution(
            v, k, strides=_tuple(strides, n), padding=padding.upper(), dilations=_tuple(dilation_rate, n)
        ),
        x,
        data_format,
    )


def depthwise_conv(inputs, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    """Each input channel convolved with its own ``kernel[..., c, :]`` (2-D inputs)."""
    x = _float(inputs)
    if x.shape.rank != 4:
        raise ValueError("tfunc.keras.ops.depthwise_conv supports 2-D inputs (rank 4) only.")
    k = math_ops.cast(convert_to_tensor(kernel), x.dtype)
    return _spatial(
        lambda v: nn_ops.depthwise_conv2d(
            v, k, strides=[1, *_tuple(strides, 2), 1], padding=padding.upper(), dilations=_tuple(dilation_rate, 2)
        ),
        x,
        data_format,
    )


def separable_conv(
    inputs, depthwise_kernel, pointwise_kernel, strides=1, padding="valid", data_format=None, dilation_rate=1
):
    depthwise = depthwise_conv(inputs, depthwise_kernel, strides, padding, data_format, dilation_rate)
    return conv(depthwise, pointwise_kernel, 1, "valid", data_format, 1)


def psnr(x1, x2, max_val):
    x1, x2 = _float(x1), _float(x2)
    mse = reduction_ops.reduce_mean(math_ops.square(x1 - x2))
    return 20.0 * math_ops.log(math_ops.cast(max_val, x1.dtype)) / math_ops.log(
        creation_ops.fill([], math_ops.cast(10.0, x1.dtype))
    ) - 10.0 * math_ops.log(mse) / math_ops.log(math_ops.cast(10.0, x1.dtype))
