"""``keras.applications.efficientnet``: EfficientNetB0 to B7 (Tan and Le, 2019), as Keras builds
them. Their inputs are pixels in [0, 255]: the model rescales and normalizes them itself, so
``preprocess_input`` is the identity."""

from __future__ import annotations

import copy
import math

from .. import layers
from . import imagenet_utils
from .imagenet_utils import decode_predictions

__all__ = [
    "EfficientNetB0",
    "EfficientNetB1",
    "EfficientNetB2",
    "EfficientNetB3",
    "EfficientNetB4",
    "EfficientNetB5",
    "EfficientNetB6",
    "EfficientNetB7",
    "preprocess_input",
    "decode_predictions",
]

# The seven stages of B0 (the other models scale their filters and repeats).
DEFAULT_BLOCKS_ARGS = [
    dict(kernel_size=k, repeats=r, filters_in=i, filters_out=o, expand_ratio=e, id_skip=True, strides=s, se_ratio=0.25)
    for k, r, i, o, e, s in [
        (3, 1, 32, 16, 1, 1),
        (3, 2, 16, 24, 6, 2),
        (5, 2, 24, 40, 6, 2),
        (3, 3, 40, 80, 6, 2),
        (5, 3, 80, 112, 6, 1),
        (5, 4, 112, 192, 6, 2),
        (3, 1, 192, 320, 6, 1),
    ]
]
CONV_KERNEL_INITIALIZER = {
    "class_name": "VarianceScaling",
    "config": {"scale": 2.0, "mode": "fan_out", "distribution": "truncated_normal"},
}
DENSE_KERNEL_INITIALIZER = {
    "class_name": "VarianceScaling",
    "config": {"scale": 1.0 / 3.0, "mode": "fan_out", "distribution": "uniform"},
}


def EfficientNet(
    width_coefficient,
    depth_coefficient,
    default_size,
    dropout_rate=0.2,
    drop_connect_rate=0.2,
    depth_divisor=8,
    activation="swish",
    blocks_args="default",
    name="efficientnet",
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    weights_name=None,
):
    """An EfficientNet: ``blocks_args`` (B0's by default) with the filters scaled by
    ``width_coefficient`` and the repeats by ``depth_coefficient``. ``weights_name`` only names
    Keras's pretrained weights."""
    if blocks_args == "default":
        blocks_args = DEFAULT_BLOCKS_ARGS
    imagenet_utils.check_weights(weights)
    input_shape = imagenet_utils.obtain_input_shape(input_shape, default_size, 32, require_flatten=include_top)
    img_input = imagenet_utils.image_input(input_tensor, input_shape)

    def round_filters(filters, divisor=depth_divisor):
        filters *= width_coefficient
        new_filters = max(divisor, int(filters + divisor / 2) // divisor * divisor)
        if new_filters < 0.9 * filters:  # never round down by more than 10%
            new_filters += divisor
        return int(new_filters)

    def round_repeats(repeats):
        return int(math.ceil(depth_coefficient * repeats))

    x = layers.Rescaling(1.0 / 255.0)(img_input)
    # An unadapted Normalization (mean 0, variance 1): its weights come with the pretrained file.
    # (Keras adds a Rescaling by 1/sqrt(ImageNet's std) for weights="imagenet" only.)
    x = layers.Normalization(axis=3)(x)
    x = layers.ZeroPadding2D(padding=imagenet_utils.correct_pad(x, 3), name="stem_conv_pad")(x)
    x = layers.Conv2D(
        round_filters(32),
        3,
        strides=2,
        padding="valid",
        use_bias=False,
        kernel_initializer=CONV_KERNEL_INITIALIZER,
        name="stem_conv",
    )(x)
    x = layers.BatchNormalization(axis=3, name="stem_bn")(x)
    x = layers.Activation(activation, name="stem_activation")(x)

    blocks_args = copy.deepcopy(blocks_args)
    b = 0
    blocks = float(sum(round_repeats(args["repeats"]) for args in blocks_args))
    for i, args in enumerate(blocks_args):
        if args["repeats"] <= 0:
            raise ValueError(
                f"The number of repeats in `EfficientNet` must be > 0. Received: repeats={args['repeats']}"
            )
        args["filters_in"] = round_filters(args["filters_in"])
        args["filters_out"] = round_filters(args["filters_out"])
        for j in range(round_repeats(args.pop("repeats"))):
            if j > 0:  # the stage's later blocks keep the size and width
                args["strides"] = 1
                args["filters_in"] = args["filters_out"]
            x = block(x, activation, drop_connect_rate * b / blocks, name=f"block{i + 1}{chr(j + 97)}_", **args)
            b += 1

    x = layers.Conv2D(
        round_filters(1280),
        1,
        padding="same",
        use_bias=False,
        kernel_initializer=CONV_KERNEL_INITIALIZER,
        name="top_conv",
    )(x)
    x = layers.BatchNormalization(axis=3, name="top_bn")(x)
    x = layers.Activation(activation, name="top_activation")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate, name="top_dropout")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = layers.Dense(
            classes,
            activation=classifier_activation,
            kernel_initializer=DENSE_KERNEL_INITIALIZER,
            name="predictions",
        )(x)
    else:
        x = imagenet_utils.pool(x, pooling, "avg_pool", "max_pool")
    return imagenet_utils.make_model(input_tensor, img_input, x, name, weights)


def block(
    inputs,
    activation="swish",
    drop_rate=0.0,
    name="",
    filters_in=32,
    filters_out=16,
    kernel_size=3,
    strides=1,
    expand_ratio=1,
    se_ratio=0.0,
    id_skip=True,
):
    """The inverted residual block: expansion, depthwise convolution, squeeze and excite,
    projection, and (same shape) a residual connection behind a per-sample ``Dropout``."""
    filters = filters_in * expand_ratio
    if expand_ratio != 1:
        x = layers.Conv2D(
            filters,
            1,
            padding="same",
            use_bias=False,
            kernel_initializer=CONV_KERNEL_INITIALIZER,
            name=f"{name}expand_conv",
        )(inputs)
        x = layers.BatchNormalization(axis=3, name=f"{name}expand_bn")(x)
        x = layers.Activation(activation, name=f"{name}expand_activation")(x)
    else:
        x = inputs
    if strides == 2:
        x = layers.ZeroPadding2D(padding=imagenet_utils.correct_pad(x, kernel_size), name=f"{name}dwconv_pad")(x)
        conv_pad = "valid"
    else:
        conv_pad = "same"
    x = layers.DepthwiseConv2D(
        kernel_size,
        strides=strides,
        padding=conv_pad,
        use_bias=False,
        depthwise_initializer=CONV_KERNEL_INITIALIZER,
        name=f"{name}dwconv",
    )(x)
    x = layers.BatchNormalization(axis=3, name=f"{name}bn")(x)
    x = layers.Activation(activation, name=f"{name}activation")(x)
    if 0 < se_ratio <= 1:
        x = se_block(x, filters, max(1, int(filters_in * se_ratio)), activation, name)
    x = layers.Conv2D(
        filters_out,
        1,
        padding="same",
        use_bias=False,
        kernel_initializer=CONV_KERNEL_INITIALIZER,
        name=f"{name}project_conv",
    )(x)
    x = layers.BatchNormalization(axis=3, name=f"{name}project_bn")(x)
    if id_skip and strides == 1 and filters_in == filters_out:
        if drop_rate > 0:
            x = layers.Dropout(drop_rate, noise_shape=(None, 1, 1, 1), name=f"{name}drop")(x)
        x = layers.add([x, inputs], name=f"{name}add")
    return x


def se_block(x, filters, filters_se, activation, name):
    """Squeeze and excite (shared with EfficientNetV2): ``x`` scaled per channel by a sigmoid
    gate computed from its mean."""
    se = layers.GlobalAveragePooling2D(name=f"{name}se_squeeze")(x)
    se = layers.Reshape((1, 1, filters), name=f"{name}se_reshape")(se)
    se = layers.Conv2D(
        filters_se,
        1,
        padding="same",
        activation=activation,
        kernel_initializer=CONV_KERNEL_INITIALIZER,
        name=f"{name}se_reduce",
    )(se)
    se = layers.Conv2D(
        filters,
        1,
        padding="same",
        activation="sigmoid",
        kernel_initializer=CONV_KERNEL_INITIALIZER,
        name=f"{name}se_expand",
    )(se)
    return layers.multiply([x, se], name=f"{name}se_excite")


def _builder(model, width, depth, size, dropout):
    """The public builder of one EfficientNet ``model`` ("b0" to "b7")."""

    def builder(
        include_top=True,
        weights="imagenet",
        input_tensor=None,
        input_shape=None,
        pooling=None,
        classes=1000,
        classifier_activation="softmax",
        name=f"efficientnet{model}",
    ):
        return EfficientNet(
            width,
            depth,
            size,
            dropout,
            name=name,
            include_top=include_top,
            weights=weights,
            input_tensor=input_tensor,
            input_shape=input_shape,
            pooling=pooling,
            classes=classes,
            classifier_activation=classifier_activation,
            weights_name=model,
        )

    builder.__name__ = builder.__qualname__ = f"EfficientNet{model.upper()}"
    builder.__doc__ = (
        f"The EfficientNet{model.upper()} model (default input {size}x{size}x3 of pixels in [0, 255], "
        "at least 32x32; ``weights``: ``None`` or the path of a weights file)."
    )
    return builder


# (width coefficient, depth coefficient, default input size, top dropout rate)
EfficientNetB0 = _builder("b0", 1.0, 1.0, 224, 0.2)
EfficientNetB1 = _builder("b1", 1.0, 1.1, 240, 0.2)
EfficientNetB2 = _builder("b2", 1.1, 1.2, 260, 0.3)
EfficientNetB3 = _builder("b3", 1.2, 1.4, 300, 0.3)
EfficientNetB4 = _builder("b4", 1.4, 1.8, 380, 0.4)
EfficientNetB5 = _builder("b5", 1.6, 2.2, 456, 0.4)
EfficientNetB6 = _builder("b6", 1.8, 2.6, 528, 0.5)
EfficientNetB7 = _builder("b7", 2.0, 3.1, 600, 0.5)


def preprocess_input(x, data_format=None):
    """The identity: EfficientNet models rescale and normalize their inputs themselves (Keras
    keeps this function for API consistency)."""
    return x
