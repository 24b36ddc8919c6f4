"""``keras.applications.efficientnet_v2``: EfficientNetV2 B0 to B3, S, M and L (Tan and Le,
2021), as Keras builds them. Their inputs are pixels in [0, 255]: with ``include_preprocessing``
the model rescales (and for B0-B3 normalizes) them itself, so ``preprocess_input`` is the
identity."""

from __future__ import annotations

import copy
import math

from .. import initializers, layers
from . import imagenet_utils
from .efficientnet import CONV_KERNEL_INITIALIZER, DENSE_KERNEL_INITIALIZER, se_block
from .imagenet_utils import decode_predictions

__all__ = [
    "EfficientNetV2B0",
    "EfficientNetV2B1",
    "EfficientNetV2B2",
    "EfficientNetV2B3",
    "EfficientNetV2S",
    "EfficientNetV2M",
    "EfficientNetV2L",
    "preprocess_input",
    "decode_predictions",
]


def _stages(*rows):
    """Block arguments from ``(conv_type, kernel, repeats, in, out, expansion, se_ratio,
    strides)`` rows; conv_type 1 is the fused block."""
    keys = ("conv_type", "kernel_size", "num_repeat", "input_filters", "output_filters", "expand_ratio")
    return [dict(zip(keys, row[:6]), se_ratio=row[6], strides=row[7]) for row in rows]


_B_STAGES = _stages(  # B0 to B3 share theirs (scaled by the coefficients)
    (1, 3, 1, 32, 16, 1, 0, 1),
    (1, 3, 2, 16, 32, 4, 0, 2),
    (1, 3, 2, 32, 48, 4, 0, 2),
    (0, 3, 3, 48, 96, 4, 0.25, 2),
    (0, 3, 5, 96, 112, 6, 0.25, 1),
    (0, 3, 8, 112, 192, 6, 0.25, 2),
)
DEFAULT_BLOCKS_ARGS = {
    "efficientnetv2-s": _stages(
        (1, 3, 2, 24, 24, 1, 0, 1),
        (1, 3, 4, 24, 48, 4, 0, 2),
        (1, 3, 4, 48, 64, 4, 0, 2),
        (0, 3, 6, 64, 128, 4, 0.25, 2),
        (0, 3, 9, 128, 160, 6, 0.25, 1),
        (0, 3, 15, 160, 256, 6, 0.25, 2),
    ),
    "efficientnetv2-m": _stages(
        (1, 3, 3, 24, 24, 1, 0, 1),
        (1, 3, 5, 24, 48, 4, 0, 2),
        (1, 3, 5, 48, 80, 4, 0, 2),
        (0, 3, 7, 80, 160, 4, 0.25, 2),
        (0, 3, 14, 160, 176, 6, 0.25, 1),
        (0, 3, 18, 176, 304, 6, 0.25, 2),
        (0, 3, 5, 304, 512, 6, 0.25, 1),
    ),
    "efficientnetv2-l": _stages(
        (1, 3, 4, 32, 32, 1, 0, 1),
        (1, 3, 7, 32, 64, 4, 0, 2),
        (1, 3, 7, 64, 96, 4, 0, 2),
        (0, 3, 10, 96, 192, 4, 0.25, 2),
        (0, 3, 19, 192, 224, 6, 0.25, 1),
        (0, 3, 25, 224, 384, 6, 0.25, 2),
        (0, 3, 7, 384, 640, 6, 0.25, 1),
    ),
    **{f"efficientnetv2-b{i}": _B_STAGES for i in range(4)},
}


def round_filters(filters, width_coefficient, min_depth, depth_divisor):
    """``filters`` scaled by ``width_coefficient``, rounded to a multiple of ``depth_divisor``."""
    filters *= width_coefficient
    minimum_depth = min_depth or depth_divisor
    return int(max(minimum_depth, int(filters + depth_divisor / 2) // depth_divisor * depth_divisor))


def round_repeats(repeats, depth_coefficient):
    return int(math.ceil(depth_coefficient * repeats))


def _residual(x, inputs, input_filters, output_filters, strides, survival_probability, name):
    # Keras passes `survival_probability` as the Dropout *rate* (kept as is, for its weights).
    if strides == 1 and input_filters == output_filters:
        if survival_probability:
            x = layers.Dropout(survival_probability, noise_shape=(None, 1, 1, 1), name=f"{name}drop")(x)
        x = layers.add([x, inputs], name=f"{name}add")
    return x


def MBConvBlock(
    input_filters,
    output_filters,
    expand_ratio=1,
    kernel_size=3,
    strides=1,
    se_ratio=0.0,
    bn_momentum=0.9,
    activation="swish",
    survival_probability=0.8,
    name=None,
):
    """The inverted residual block (pointwise expansion, depthwise convolution, squeeze and
    excite, projection), as a function of its input."""

    def apply(inputs):
        filters = input_filters * expand_ratio
        x = inputs
        if expand_ratio != 1:
            x = layers.Conv2D(
                filters=filters,
                kernel_size=1,
                strides=1,
                kernel_initializer=CONV_KERNEL_INITIALIZER,
                padding="same",
                data_format="channels_last",
                use_bias=False,
                name=f"{name}expand_conv",
            )(x)
            x = layers.BatchNormalization(axis=3, momentum=bn_momentum, name=f"{name}expand_bn")(x)
            x = layers.Activation(activation, name=f"{name}expand_activation")(x)
        x = layers.DepthwiseConv2D(
            kernel_size=kernel_size,
            strides=strides,
            depthwise_initializer=CONV_KERNEL_INITIALIZER,
            padding="same",
            data_format="channels_last",
            use_bias=False,
            name=f"{name}dwconv2",
        )(x)
        x = layers.BatchNormalization(axis=3, momentum=bn_momentum, name=f"{name}bn")(x)
        x = layers.Activation(activation, name=f"{name}activation")(x)
        if 0 < se_ratio <= 1:
            x = se_block(x, filters, max(1, int(input_filters * se_ratio)), activation, name)
        x = layers.Conv2D(
            filters=output_filters,
            kernel_size=1,
            strides=1,
            kernel_initializer=CONV_KERNEL_INITIALIZER,
            padding="same",
            data_format="channels_last",
            use_bias=False,
            name=f"{name}project_conv",
        )(x)
        x = layers.BatchNormalization(axis=3, momentum=bn_momentum, name=f"{name}project_bn")(x)
        return _residual(x, inputs, input_filters, output_filters, strides, survival_probability, name)

    return apply


def FusedMBConvBlock(
    input_filters,
    output_filters,
    expand_ratio=1,
    kernel_size=3,
    strides=1,
    se_ratio=0.0,
    bn_momentum=0.9,
    activation="swish",
    survival_probability=0.8,
    name=None,
):
    """The fused block: one full convolution in place of the expansion and depthwise
    convolutions (no expansion: the projection is that convolution, then an activation)."""

    def apply(inputs):
        filters = input_filters * expand_ratio
        x = inputs
        if expand_ratio != 1:
            x = layers.Conv2D(
                filters,
                kernel_size=kernel_size,
                strides=strides,
                kernel_initializer=CONV_KERNEL_INITIALIZER,
                data_format="channels_last",
                padding="same",
                use_bias=False,
                name=f"{name}expand_conv",
            )(x)
            x = layers.BatchNormalization(axis=3, momentum=bn_momentum, name=f"{name}expand_bn")(x)
            x = layers.Activation(activation=activation, name=f"{name}expand_activation")(x)
        if 0 < se_ratio <= 1:
            x = se_block(x, filters, max(1, int(input_filters * se_ratio)), activation, name)
        x = layers.Conv2D(
            output_filters,
            kernel_size=1 if expand_ratio != 1 else kernel_size,
            strides=1 if expand_ratio != 1 else strides,
            kernel_initializer=CONV_KERNEL_INITIALIZER,
            padding="same",
            use_bias=False,
            name=f"{name}project_conv",
        )(x)
        x = layers.BatchNormalization(axis=3, momentum=bn_momentum, name=f"{name}project_bn")(x)
        if expand_ratio == 1:
            x = layers.Activation(activation=activation, name=f"{name}project_activation")(x)
        return _residual(x, inputs, input_filters, output_filters, strides, survival_probability, name)

    return apply


def EfficientNetV2(
    width_coefficient,
    depth_coefficient,
    default_size,
    dropout_rate=0.2,
    drop_connect_rate=0.2,
    depth_divisor=8,
    min_depth=8,
    bn_momentum=0.9,
    activation="swish",
    blocks_args="default",
    name="efficientnetv2",
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    include_preprocessing=True,
    weights_name=None,
):
    """An EfficientNetV2: ``blocks_args`` (by default those of the model ``name``) with the
    filters scaled by ``width_coefficient`` and the repeats by ``depth_coefficient``."""
    if blocks_args == "default":
        if name not in DEFAULT_BLOCKS_ARGS:  # (Keras 3.15 fails with a KeyError)
            raise ValueError(
                f"EfficientNetV2's default `blocks_args` are those of the model `name`, one of "
                f"{sorted(DEFAULT_BLOCKS_ARGS)}; Received: name={name!r}"
            )
        blocks_args = DEFAULT_BLOCKS_ARGS[name]
    imagenet_utils.check_weights(weights)
    input_shape = imagenet_utils.obtain_input_shape(input_shape, default_size, 32, require_flatten=include_top)
    img_input = imagenet_utils.image_input(input_tensor, input_shape)

    x = img_input
    if include_preprocessing:
        # B0-B3 (named "...-b*") normalize 3-channel inputs with ImageNet's mean and std.
        if name.split("-")[-1].startswith("b") and input_shape[2] == 3:
            x = layers.Rescaling(scale=1.0 / 255)(x)
            mean = [0.485, 0.456, 0.406]
            variance = [0.229**2, 0.224**2, 0.225**2]
            x = layers.Normalization(mean=mean, variance=variance, axis=3)(x)
        else:
            x = layers.Rescaling(scale=1.0 / 128.0, offset=-1)(x)

    def filters_of(filters):
        return round_filters(filters, width_coefficient, min_depth, depth_divisor)

    x = layers.Conv2D(
        filters=filters_of(blocks_args[0]["input_filters"]),
        kernel_size=3,
        strides=2,
        kernel_initializer=CONV_KERNEL_INITIALIZER,
        padding="same",
        use_bias=False,
        name="stem_conv",
    )(x)
    x = layers.BatchNormalization(axis=3, momentum=bn_momentum, name="stem_bn")(x)
    x = layers.Activation(activation, name="stem_activation")(x)

    blocks_args = copy.deepcopy(blocks_args)
    b = 0
    blocks = float(sum(args["num_repeat"] for args in blocks_args))
    for i, args in enumerate(blocks_args):
        if args["num_repeat"] <= 0:
            raise ValueError(
                f"The number of repeats in `EfficientNetV2` must be > 0. Received: num_repeat={args['num_repeat']}"
            )
        args["input_filters"] = filters_of(args["input_filters"])
        args["output_filters"] = filters_of(args["output_filters"])
        block = {0: MBConvBlock, 1: FusedMBConvBlock}[args.pop("conv_type")]
        for j in range(round_repeats(args.pop("num_repeat"), depth_coefficient)):
            if j > 0:  # the stage's later blocks keep the size and width
                args["strides"] = 1
                args["input_filters"] = args["output_filters"]
            x = block(
                activation=activation,
                bn_momentum=bn_momentum,
                survival_probability=drop_connect_rate * b / blocks,
                name=f"block{i + 1}{chr(j + 97)}_",
                **args,
            )(x)
            b += 1

    x = layers.Conv2D(
        filters=filters_of(1280),
        kernel_size=1,
        strides=1,
        kernel_initializer=CONV_KERNEL_INITIALIZER,
        padding="same",
        data_format="channels_last",
        use_bias=False,
        name="top_conv",
    )(x)
    x = layers.BatchNormalization(axis=3, momentum=bn_momentum, name="top_bn")(x)
    x = layers.Activation(activation=activation, name="top_activation")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate, name="top_dropout")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = layers.Dense(
            classes,
            activation=classifier_activation,
            kernel_initializer=DENSE_KERNEL_INITIALIZER,
            bias_initializer=initializers.Constant(0.0),
            name="predictions",
        )(x)
    else:
        x = imagenet_utils.pool(x, pooling, "avg_pool", "max_pool")
    return imagenet_utils.make_model(input_tensor, img_input, x, name, weights)


def _builder(model, width, depth, size):
    """The public builder of one EfficientNetV2 ``model`` ("b0" to "b3", "s", "m" or "l")."""

    def builder(
        include_top=True,
        weights="imagenet",
        input_tensor=None,
        input_shape=None,
        pooling=None,
        classes=1000,
        classifier_activation="softmax",
        include_preprocessing=True,
        name=f"efficientnetv2-{model}",
    ):
        return EfficientNetV2(
            width_coefficient=width,
            depth_coefficient=depth,
            default_size=size,
            name=name,
            include_top=include_top,
            weights=weights,
            input_tensor=input_tensor,
            input_shape=input_shape,
            pooling=pooling,
            classes=classes,
            classifier_activation=classifier_activation,
            include_preprocessing=include_preprocessing,
            weights_name=model if model.startswith("b") else f"-{model}",
        )

    builder.__name__ = builder.__qualname__ = f"EfficientNetV2{model.upper()}"
    builder.__doc__ = (
        f"The EfficientNetV2{model.upper()} model (default input {size}x{size}x3 of pixels in [0, 255], "
        "at least 32x32; ``weights``: ``None`` or the path of a weights file)."
    )
    return builder


# (width coefficient, depth coefficient, default input size)
EfficientNetV2B0 = _builder("b0", 1.0, 1.0, 224)
EfficientNetV2B1 = _builder("b1", 1.0, 1.1, 240)
EfficientNetV2B2 = _builder("b2", 1.1, 1.2, 260)
EfficientNetV2B3 = _builder("b3", 1.2, 1.4, 300)
EfficientNetV2S = _builder("s", 1.0, 1.0, 384)
EfficientNetV2M = _builder("m", 1.0, 1.0, 480)
EfficientNetV2L = _builder("l", 1.0, 1.0, 480)


def preprocess_input(x, data_format=None):
    """The identity: EfficientNetV2 models preprocess their inputs themselves (with
    ``include_preprocessing``; Keras keeps this function for API consistency)."""
    return x
