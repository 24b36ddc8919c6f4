"""``keras.applications.mobilenet_v2``: MobileNetV2 (Sandler et al., 2018), as Keras builds it."""

from __future__ import annotations

from .. import layers
from ..keras_tensor import is_keras_tensor
from . import imagenet_utils
from .imagenet_utils import decode_predictions

__all__ = ["MobileNetV2", "preprocess_input", "decode_predictions"]

_SIZES = (96, 128, 160, 192, 224)  # the input sizes of the pretrained weights


def MobileNetV2(
    input_shape=None,
    alpha=1.0,
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name=None,
):
    """The MobileNetV2 model (default input 224x224x3, at least 32x32). ``alpha`` scales the
    filters of every layer; the default ``name`` is ``mobilenetv2_{alpha:.2f}_{rows}``."""
    imagenet_utils.check_weights(weights)
    default_size = 224
    if input_tensor is not None and input_shape is not None:
        if not is_keras_tensor(input_tensor):
            raise ValueError(f"input_tensor is not a Keras tensor; Received `input_tensor={input_tensor}`")
        if input_tensor.shape[2] != input_shape[1]:
            raise ValueError(
                "input_tensor.shape[2] must equal input_shape[1]; Received "
                f"`input_tensor.shape={input_tensor.shape}`, `input_shape={input_shape}`"
            )
    # Keras names the model (and, with include_top and no input_shape, shapes its Input) after
    # the square size of `input_shape` or `input_tensor` when it is one of the pretrained sizes.
    rows_cols = input_shape[:2] if input_shape is not None else None
    if rows_cols is None and input_tensor is not None and is_keras_tensor(input_tensor):
        rows_cols = tuple(input_tensor.shape)[1:3]
    if rows_cols is not None and rows_cols[0] == rows_cols[1] and rows_cols[0] in _SIZES:
        default_size = rows_cols[0]
    input_shape = imagenet_utils.obtain_input_shape(input_shape, default_size, 32, require_flatten=include_top)
    rows = input_shape[0]
    img_input = imagenet_utils.image_input(input_tensor, input_shape)

    x = layers.Conv2D(
        _make_divisible(32 * alpha, 8), kernel_size=3, strides=(2, 2), padding="same", use_bias=False, name="Conv1"
    )(img_input)
    x = layers.BatchNormalization(axis=-1, epsilon=1e-3, momentum=0.999, name="bn_Conv1")(x)
    x = layers.ReLU(6.0, name="Conv1_relu")(x)
    # (filters, first stride, expansion, repeats) of the inverted residual stages
    stages = [(16, 1, 1, 1), (24, 2, 6, 2), (32, 2, 6, 3), (64, 2, 6, 4), (96, 1, 6, 3), (160, 2, 6, 3), (320, 1, 6, 1)]
    block_id = 0
    for filters, stride, expansion, repeats in stages:
        for i in range(repeats):
            x = _inverted_res_block(x, expansion, stride if i == 0 else 1, alpha, filters, block_id)
            block_id += 1
    # No alpha below 1 on the last convolution (as in the paper); above 1 it grows.
    last_block_filters = _make_divisible(1280 * alpha, 8) if alpha > 1.0 else 1280
    x = layers.Conv2D(last_block_filters, kernel_size=1, use_bias=False, name="Conv_1")(x)
    x = layers.BatchNormalization(axis=-1, epsilon=1e-3, momentum=0.999, name="Conv_1_bn")(x)
    x = layers.ReLU(6.0, name="out_relu")(x)
    if include_top:
        x = imagenet_utils.pooled_classifier(x, classes, classifier_activation, weights)
    else:
        x = imagenet_utils.pool(x, pooling)
    if name is None:
        name = f"mobilenetv2_{alpha:0.2f}_{rows}"
    return imagenet_utils.make_model(input_tensor, img_input, x, name, weights)


def _inverted_res_block(inputs, expansion, stride, alpha, filters, block_id):
    in_channels = inputs.shape[-1]
    pointwise_filters = _make_divisible(int(filters * alpha), 8)
    x = inputs
    prefix = f"block_{block_id}_"
    if block_id:  # expand with a pointwise 1x1 convolution
        x = layers.Conv2D(
            expansion * in_channels,
            kernel_size=1,
            padding="same",
            use_bias=False,
            activation=None,
            name=f"{prefix}expand",
        )(x)
        x = layers.BatchNormalization(axis=-1, epsilon=1e-3, momentum=0.999, name=f"{prefix}expand_BN")(x)
        x = layers.ReLU(6.0, name=f"{prefix}expand_relu")(x)
    else:
        prefix = "expanded_conv_"
    if stride == 2:
        x = layers.ZeroPadding2D(padding=imagenet_utils.correct_pad(x, 3), name=f"{prefix}pad")(x)
    x = layers.DepthwiseConv2D(
        kernel_size=3,
        strides=stride,
        activation=None,
        use_bias=False,
        padding="same" if stride == 1 else "valid",
        name=f"{prefix}depthwise",
    )(x)
    x = layers.BatchNormalization(axis=-1, epsilon=1e-3, momentum=0.999, name=f"{prefix}depthwise_BN")(x)
    x = layers.ReLU(6.0, name=f"{prefix}depthwise_relu")(x)
    x = layers.Conv2D(
        pointwise_filters, kernel_size=1, padding="same", use_bias=False, activation=None, name=f"{prefix}project"
    )(x)
    x = layers.BatchNormalization(axis=-1, epsilon=1e-3, momentum=0.999, name=f"{prefix}project_BN")(x)
    if in_channels == pointwise_filters and stride == 1:
        return layers.Add(name=f"{prefix}add")([inputs, x])
    return x


def _make_divisible(v, divisor, min_value=None):
    """``v`` rounded to the nearest multiple of ``divisor``, never more than 10% below ``v``."""
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


def preprocess_input(x, data_format=None):
    """Scales the pixels to [-1, 1] ("tf" mode)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")
