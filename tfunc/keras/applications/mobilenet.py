"""``keras.applications.mobilenet``: MobileNet (Howard et al., 2017), as Keras builds it."""

from __future__ import annotations

from .. import layers
from . import imagenet_utils
from .imagenet_utils import decode_predictions

__all__ = ["MobileNet", "preprocess_input", "decode_predictions"]


def MobileNet(
    input_shape=None,
    alpha=1.0,
    depth_multiplier=1,
    dropout=1e-3,
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name=None,
):
    """The MobileNet model (default input 224x224x3, at least 32x32). ``alpha`` scales the
    filters of every layer, ``depth_multiplier`` those of the depthwise convolutions; the default
    ``name`` is ``mobilenet_{alpha:.2f}_{rows}``."""
    imagenet_utils.check_weights(weights)
    input_shape = imagenet_utils.obtain_input_shape(input_shape, 224, 32, require_flatten=include_top)
    rows = input_shape[0]
    img_input = imagenet_utils.image_input(input_tensor, input_shape)
    x = _conv_block(img_input, 32, alpha, strides=(2, 2))
    # (pointwise filters, strides) of the 13 depthwise-separable blocks
    plan = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)] + [(512, 1)] * 5 + [(1024, 2), (1024, 1)]
    for block_id, (filters, stride) in enumerate(plan, start=1):
        x = _depthwise_conv_block(x, filters, alpha, depth_multiplier, strides=(stride, stride), block_id=block_id)
    if include_top:
        x = layers.GlobalAveragePooling2D(keepdims=True)(x)
        x = layers.Dropout(dropout, name="dropout")(x)
        x = layers.Conv2D(classes, (1, 1), padding="same", name="conv_preds")(x)
        x = layers.Reshape((classes,), name="reshape_2")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = layers.Activation(activation=classifier_activation, name="predictions")(x)
    else:
        x = imagenet_utils.pool(x, pooling)
    if name is None:
        name = f"mobilenet_{alpha:0.2f}_{rows}"
    return imagenet_utils.make_model(input_tensor, img_input, x, name, weights)


def _conv_block(inputs, filters, alpha, kernel=(3, 3), strides=(1, 1)):
    x = layers.Conv2D(int(filters * alpha), kernel, padding="same", use_bias=False, strides=strides, name="conv1")(
        inputs
    )
    x = layers.BatchNormalization(axis=-1, name="conv1_bn")(x)
    return layers.ReLU(6.0, name="conv1_relu")(x)


def _depthwise_conv_block(inputs, pointwise_conv_filters, alpha, depth_multiplier=1, strides=(1, 1), block_id=1):
    x = inputs
    if strides != (1, 1):  # TF's "same" pads the other side for even sizes: pad explicitly
        x = layers.ZeroPadding2D(((0, 1), (0, 1)), name=f"conv_pad_{block_id}")(x)
    x = layers.DepthwiseConv2D(
        (3, 3),
        padding="same" if strides == (1, 1) else "valid",
        depth_multiplier=depth_multiplier,
        strides=strides,
        use_bias=False,
        name=f"conv_dw_{block_id}",
    )(x)
    x = layers.BatchNormalization(axis=-1, name=f"conv_dw_{block_id}_bn")(x)
    x = layers.ReLU(6.0, name=f"conv_dw_{block_id}_relu")(x)
    x = layers.Conv2D(
        int(pointwise_conv_filters * alpha),
        (1, 1),
        padding="same",
        use_bias=False,
        strides=(1, 1),
        name=f"conv_pw_{block_id}",
    )(x)
    x = layers.BatchNormalization(axis=-1, name=f"conv_pw_{block_id}_bn")(x)
    return layers.ReLU(6.0, name=f"conv_pw_{block_id}_relu")(x)


def preprocess_input(x, data_format=None):
    """Scales the pixels to [-1, 1] ("tf" mode)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")
