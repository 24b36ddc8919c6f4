"""``keras.applications.mobilenet_v3``: MobileNetV3Small/Large (Howard et al., 2019), as Keras
builds them. Their inputs are pixels in [0, 255]: the model rescales them itself (the
``Rescaling`` layer of ``include_preprocessing``), so ``preprocess_input`` is the identity."""

from __future__ import annotations

from .. import layers
from ..keras_tensor import is_keras_tensor
from . import imagenet_utils
from .imagenet_utils import decode_predictions
from .mobilenet_v2 import _make_divisible

# As in Keras, the builders are exported by ``keras.applications`` only.
__all__ = ["preprocess_input", "decode_predictions"]


def MobileNetV3(
    stack_fn,
    last_point_ch,
    input_shape=None,
    alpha=1.0,
    model_type="large",
    minimalistic=False,
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    classes=1000,
    pooling=None,
    dropout_rate=0.2,
    classifier_activation="softmax",
    include_preprocessing=True,
    name=None,
):
    """The MobileNetV3 whose inverted residual blocks ``stack_fn(x, kernel, activation,
    se_ratio)`` adds (``model_type`` only names Keras's pretrained weights)."""
    imagenet_utils.check_weights(weights)
    # Keras checks the input itself (not with `obtain_input_shape`): with no shape, the spatial
    # size stays free even with include_top, as the top is convolutional.
    if input_shape is not None and input_tensor is not None:
        if not is_keras_tensor(input_tensor):
            raise ValueError(f"input_tensor specified: {input_tensor} is not a keras tensor")
        if input_tensor.shape[2] != input_shape[1]:
            raise ValueError(
                "input_shape[1] must equal input_tensor.shape[2].  Received "
                f"input_shape={input_shape}, input_tensor.shape={input_tensor.shape}"
            )
    if input_shape is None and input_tensor is not None and is_keras_tensor(input_tensor):
        input_shape = (input_tensor.shape[2], input_tensor.shape[1], 3)  # (cols, rows), as Keras
    if input_shape is None and input_tensor is None:
        input_shape = (None, None, 3)
    if input_shape is not None:
        rows, cols = input_shape[0], input_shape[1]
        if rows and cols and (rows < 32 or cols < 32):
            raise ValueError(f"Input size must be at least 32x32; Received `input_shape={input_shape}`")
    img_input = imagenet_utils.image_input(input_tensor, input_shape)

    if minimalistic:
        kernel, activation, se_ratio = 3, _relu, None
    else:
        kernel, activation, se_ratio = 5, _hard_swish, 0.25
    x = img_input
    if include_preprocessing:
        x = layers.Rescaling(scale=1.0 / 127.5, offset=-1.0)(x)
    x = layers.Conv2D(16, kernel_size=3, strides=(2, 2), padding="same", use_bias=False, name="conv")(x)
    x = layers.BatchNormalization(axis=-1, epsilon=1e-3, momentum=0.999, name="conv_bn")(x)
    x = activation(x)
    x = stack_fn(x, kernel, activation, se_ratio)
    last_conv_ch = _depth(x.shape[-1] * 6)
    if alpha > 1.0:  # (below 1 the last layer keeps its width, as in the paper)
        last_point_ch = _depth(last_point_ch * alpha)
    x = layers.Conv2D(last_conv_ch, kernel_size=1, padding="same", use_bias=False, name="conv_1")(x)
    x = layers.BatchNormalization(axis=-1, epsilon=1e-3, momentum=0.999, name="conv_1_bn")(x)
    x = activation(x)
    if include_top:
        x = layers.GlobalAveragePooling2D(keepdims=True)(x)
        x = layers.Conv2D(last_point_ch, kernel_size=1, padding="same", use_bias=True, name="conv_2")(x)
        x = activation(x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate)(x)
        x = layers.Conv2D(classes, kernel_size=1, padding="same", name="logits")(x)
        x = layers.Flatten()(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = layers.Activation(activation=classifier_activation, name="predictions")(x)
    else:
        x = imagenet_utils.pool(x, pooling, "avg_pool", "max_pool")
    return imagenet_utils.make_model(input_tensor, img_input, x, name, weights)


def MobileNetV3Small(
    input_shape=None,
    alpha=1.0,
    minimalistic=False,
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    classes=1000,
    pooling=None,
    dropout_rate=0.2,
    classifier_activation="softmax",
    include_preprocessing=True,
    name="MobileNetV3Small",
):
    """The MobileNetV3Small model (any input of at least 32x32 pixels in [0, 255] when
    ``include_preprocessing``). ``alpha`` scales the blocks' filters; ``minimalistic`` drops the
    squeeze-and-excite blocks, hard-swish and 5x5 kernels."""

    def stack_fn(x, kernel, activation, se_ratio):
        def depth(d):
            return _depth(d * alpha)

        # (expansion, filters, kernel, stride, se_ratio, activation) of the 11 blocks
        specs = [
            (1, depth(16), 3, 2, se_ratio, _relu),
            (72.0 / 16, depth(24), 3, 2, None, _relu),
            (88.0 / 24, depth(24), 3, 1, None, _relu),
            (4, depth(40), kernel, 2, se_ratio, activation),
            (6, depth(40), kernel, 1, se_ratio, activation),
            (6, depth(40), kernel, 1, se_ratio, activation),
            (3, depth(48), kernel, 1, se_ratio, activation),
            (3, depth(48), kernel, 1, se_ratio, activation),
            (6, depth(96), kernel, 2, se_ratio, activation),
            (6, depth(96), kernel, 1, se_ratio, activation),
            (6, depth(96), kernel, 1, se_ratio, activation),
        ]
        for block_id, spec in enumerate(specs):
            x = _inverted_res_block(x, *spec, block_id)
        return x

    return MobileNetV3(
        stack_fn,
        1024,
        input_shape,
        alpha,
        "small",
        minimalistic,
        include_top,
        weights,
        input_tensor,
        classes,
        pooling,
        dropout_rate,
        classifier_activation,
        include_preprocessing,
        name=name,
    )


def MobileNetV3Large(
    input_shape=None,
    alpha=1.0,
    minimalistic=False,
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    classes=1000,
    pooling=None,
    dropout_rate=0.2,
    classifier_activation="softmax",
    include_preprocessing=True,
    name="MobileNetV3Large",
):
    """The MobileNetV3Large model (arguments as for ``MobileNetV3Small``)."""

    def stack_fn(x, kernel, activation, se_ratio):
        def depth(d):
            return _depth(d * alpha)

        specs = [
            (1, depth(16), 3, 1, None, _relu),
            (4, depth(24), 3, 2, None, _relu),
            (3, depth(24), 3, 1, None, _relu),
            (3, depth(40), kernel, 2, se_ratio, _relu),
            (3, depth(40), kernel, 1, se_ratio, _relu),
            (3, depth(40), kernel, 1, se_ratio, _relu),
            (6, depth(80), 3, 2, None, activation),
            (2.5, depth(80), 3, 1, None, activation),
            (2.3, depth(80), 3, 1, None, activation),
            (2.3, depth(80), 3, 1, None, activation),
            (6, depth(112), 3, 1, se_ratio, activation),
            (6, depth(112), 3, 1, se_ratio, activation),
            (6, depth(160), kernel, 2, se_ratio, activation),
            (6, depth(160), kernel, 1, se_ratio, activation),
            (6, depth(160), kernel, 1, se_ratio, activation),
        ]
        for block_id, spec in enumerate(specs):
            x = _inverted_res_block(x, *spec, block_id)
        return x

    return MobileNetV3(
        stack_fn,
        1280,
        input_shape,
        alpha,
        "large",
        minimalistic,
        include_top,
        weights,
        input_tensor,
        classes,
        pooling,
        dropout_rate,
        classifier_activation,
        include_preprocessing,
        name=name,
    )


def _depth(v):
    """``v`` rounded to a multiple of 8, as MobileNetV2 rounds its widths."""
    return _make_divisible(v, 8)


def _relu(x):
    return layers.ReLU()(x)


def _hard_sigmoid(x):
    # Keras writes it with tensor arithmetic: two operations of the functional graph.
    return layers.ReLU(6.0)(x + 3.0) * (1.0 / 6.0)


def _hard_swish(x):
    return layers.Activation("hard_swish")(x)


def _se_block(inputs, filters, se_ratio, prefix):
    """Squeeze and excite: ``inputs`` scaled per channel by a gate computed from their mean."""
    x = layers.GlobalAveragePooling2D(keepdims=True, name=f"{prefix}squeeze_excite_avg_pool")(inputs)
    x = layers.Conv2D(_depth(filters * se_ratio), kernel_size=1, padding="same", name=f"{prefix}squeeze_excite_conv")(x)
    x = layers.ReLU(name=f"{prefix}squeeze_excite_relu")(x)
    x = layers.Conv2D(filters, kernel_size=1, padding="same", name=f"{prefix}squeeze_excite_conv_1")(x)
    x = _hard_sigmoid(x)
    return layers.Multiply(name=f"{prefix}squeeze_excite_mul")([inputs, x])


def _inverted_res_block(x, expansion, filters, kernel_size, stride, se_ratio, activation, block_id):
    shortcut = x
    prefix = "expanded_conv_"
    infilters = x.shape[-1]
    if block_id:  # expand with a pointwise convolution (not in the first block)
        prefix = f"expanded_conv_{block_id}_"
        x = layers.Conv2D(
            _depth(infilters * expansion), kernel_size=1, padding="same", use_bias=False, name=f"{prefix}expand"
        )(x)
        x = layers.BatchNormalization(axis=-1, epsilon=1e-3, momentum=0.999, name=f"{prefix}expand_bn")(x)
        x = activation(x)
    if stride == 2:
        x = layers.ZeroPadding2D(padding=imagenet_utils.correct_pad(x, kernel_size), name=f"{prefix}depthwise_pad")(x)
    x = layers.DepthwiseConv2D(
        kernel_size,
        strides=stride,
        padding="same" if stride == 1 else "valid",
        use_bias=False,
        name=f"{prefix}depthwise",
    )(x)
    x = layers.BatchNormalization(axis=-1, epsilon=1e-3, momentum=0.999, name=f"{prefix}depthwise_bn")(x)
    x = activation(x)
    if se_ratio:
        x = _se_block(x, _depth(infilters * expansion), se_ratio, prefix)
    x = layers.Conv2D(filters, kernel_size=1, padding="same", use_bias=False, name=f"{prefix}project")(x)
    x = layers.BatchNormalization(axis=-1, epsilon=1e-3, momentum=0.999, name=f"{prefix}project_bn")(x)
    if stride == 1 and infilters == filters:
        x = layers.Add(name=f"{prefix}add")([shortcut, x])
    return x


def preprocess_input(x, data_format=None):
    """The identity: MobileNetV3 models rescale their inputs themselves (Keras keeps this
    function for API consistency)."""
    return x
