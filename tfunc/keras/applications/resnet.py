"""``keras.applications.resnet``: ResNet50/101/152 (He et al., 2015), and the ResNet skeleton
and residual blocks that ``resnet_v2`` shares, as Keras builds them."""

from __future__ import annotations

from .. import layers
from . import imagenet_utils
from .imagenet_utils import decode_predictions

__all__ = ["ResNet50", "ResNet101", "ResNet152", "preprocess_input", "decode_predictions"]

_EPS = 1.001e-5  # the BatchNormalization epsilon of the original (Caffe) weights


def _bn(x, name):
    return layers.BatchNormalization(axis=3, epsilon=_EPS, name=name)(x)


def ResNet(
    stack_fn,
    preact,
    use_bias,
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name="resnet",
):
    """The ResNet skeleton around ``stack_fn`` (the residual stages); ``preact`` selects ResNetV2's
    pre-activation layout."""
    imagenet_utils.check_weights(weights)
    input_shape = imagenet_utils.obtain_input_shape(input_shape, 224, 32, require_flatten=include_top)
    img_input = imagenet_utils.image_input(input_tensor, input_shape)
    x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)), name="conv1_pad")(img_input)
    x = layers.Conv2D(64, 7, strides=2, use_bias=use_bias, name="conv1_conv")(x)
    if not preact:
        x = _bn(x, "conv1_bn")
        x = layers.Activation("relu", name="conv1_relu")(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name="pool1_pad")(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1_pool")(x)
    x = stack_fn(x)
    if preact:
        x = _bn(x, "post_bn")
        x = layers.Activation("relu", name="post_relu")(x)
    if include_top:
        x = imagenet_utils.pooled_classifier(x, classes, classifier_activation, weights, "avg_pool")
    else:
        x = imagenet_utils.pool(x, pooling, "avg_pool", "max_pool")
    return imagenet_utils.make_model(input_tensor, img_input, x, name, weights)


def residual_block_v1(x, filters, kernel_size=3, stride=1, conv_shortcut=True, name=None):
    """A bottleneck block of ResNet v1 (the activation after the addition)."""
    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride, name=f"{name}_0_conv")(x)
        shortcut = _bn(shortcut, f"{name}_0_bn")
    else:
        shortcut = x
    x = layers.Conv2D(filters, 1, strides=stride, name=f"{name}_1_conv")(x)
    x = _bn(x, f"{name}_1_bn")
    x = layers.Activation("relu", name=f"{name}_1_relu")(x)
    x = layers.Conv2D(filters, kernel_size, padding="SAME", name=f"{name}_2_conv")(x)
    x = _bn(x, f"{name}_2_bn")
    x = layers.Activation("relu", name=f"{name}_2_relu")(x)
    x = layers.Conv2D(4 * filters, 1, name=f"{name}_3_conv")(x)
    x = _bn(x, f"{name}_3_bn")
    x = layers.Add(name=f"{name}_add")([shortcut, x])
    return layers.Activation("relu", name=f"{name}_out")(x)


def stack_residual_blocks_v1(x, filters, blocks, stride1=2, name=None):
    """``blocks`` v1 blocks; the first one (with a projection shortcut) strides by ``stride1``."""
    x = residual_block_v1(x, filters, stride=stride1, name=f"{name}_block1")
    for i in range(2, blocks + 1):
        x = residual_block_v1(x, filters, conv_shortcut=False, name=f"{name}_block{i}")
    return x


def residual_block_v2(x, filters, kernel_size=3, stride=1, conv_shortcut=False, name=None):
    """A bottleneck block of ResNet v2 (batch normalization and activation before the convs)."""
    preact = _bn(x, f"{name}_preact_bn")
    preact = layers.Activation("relu", name=f"{name}_preact_relu")(preact)
    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride, name=f"{name}_0_conv")(preact)
    else:
        shortcut = layers.MaxPooling2D(1, strides=stride)(x) if stride > 1 else x
    x = layers.Conv2D(filters, 1, strides=1, use_bias=False, name=f"{name}_1_conv")(preact)
    x = _bn(x, f"{name}_1_bn")
    x = layers.Activation("relu", name=f"{name}_1_relu")(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name=f"{name}_2_pad")(x)
    x = layers.Conv2D(filters, kernel_size, strides=stride, use_bias=False, name=f"{name}_2_conv")(x)
    x = _bn(x, f"{name}_2_bn")
    x = layers.Activation("relu", name=f"{name}_2_relu")(x)
    x = layers.Conv2D(4 * filters, 1, name=f"{name}_3_conv")(x)
    return layers.Add(name=f"{name}_out")([shortcut, x])


def stack_residual_blocks_v2(x, filters, blocks, stride1=2, name=None):
    """``blocks`` v2 blocks; the first has a projection shortcut, the last strides by ``stride1``."""
    x = residual_block_v2(x, filters, conv_shortcut=True, name=f"{name}_block1")
    for i in range(2, blocks):
        x = residual_block_v2(x, filters, name=f"{name}_block{i}")
    return residual_block_v2(x, filters, stride=stride1, name=f"{name}_block{blocks}")


def _stages_v1(blocks):
    def stack_fn(x):
        x = stack_residual_blocks_v1(x, 64, blocks[0], stride1=1, name="conv2")
        x = stack_residual_blocks_v1(x, 128, blocks[1], name="conv3")
        x = stack_residual_blocks_v1(x, 256, blocks[2], name="conv4")
        return stack_residual_blocks_v1(x, 512, blocks[3], name="conv5")

    return stack_fn


def ResNet50(
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name="resnet50",
):
    """The ResNet50 model (default input 224x224x3, at least 32x32; ``weights``: ``None`` or the
    path of a weights file)."""
    return ResNet(
        _stages_v1((3, 4, 6, 3)), False, True, include_top, weights, input_tensor, input_shape, pooling, classes,
        classifier_activation, name,
    )  # fmt: skip


def ResNet101(
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name="resnet101",
):
    """The ResNet101 model (default input 224x224x3, at least 32x32; ``weights``: ``None`` or the
    path of a weights file)."""
    return ResNet(
        _stages_v1((3, 4, 23, 3)), False, True, include_top, weights, input_tensor, input_shape, pooling, classes,
        classifier_activation, name,
    )  # fmt: skip


def ResNet152(
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name="resnet152",
):
    """The ResNet152 model (default input 224x224x3, at least 32x32; ``weights``: ``None`` or the
    path of a weights file)."""
    return ResNet(
        _stages_v1((3, 8, 36, 3)), False, True, include_top, weights, input_tensor, input_shape, pooling, classes,
        classifier_activation, name,
    )  # fmt: skip


def preprocess_input(x, data_format=None):
    """Caffe-style preprocessing: RGB to BGR, then minus ImageNet's mean pixel."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="caffe")
