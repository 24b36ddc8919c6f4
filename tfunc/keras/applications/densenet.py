"""``keras.applications.densenet``: DenseNet121/169/201 (Huang et al., 2017), as Keras builds
them."""

from __future__ import annotations

from .. import layers
from . import imagenet_utils
from .imagenet_utils import decode_predictions

__all__ = ["DenseNet121", "DenseNet169", "DenseNet201", "preprocess_input", "decode_predictions"]

_EPS = 1.001e-5


def dense_block(x, blocks, name):
    """``blocks`` conv blocks, each concatenating 32 new channels to its input."""
    for i in range(blocks):
        x = conv_block(x, 32, name=f"{name}_block{i + 1}")
    return x


def transition_block(x, reduction, name):
    """Batch norm, ReLU, a 1x1 conv keeping ``reduction`` of the channels, 2x2 average pooling."""
    x = layers.BatchNormalization(axis=3, epsilon=_EPS, name=f"{name}_bn")(x)
    x = layers.Activation("relu", name=f"{name}_relu")(x)
    x = layers.Conv2D(int(x.shape[3] * reduction), 1, use_bias=False, name=f"{name}_conv")(x)
    return layers.AveragePooling2D(2, strides=2, name=f"{name}_pool")(x)


def conv_block(x, growth_rate, name):
    """The bottleneck (1x1 then 3x3 conv) whose ``growth_rate`` channels join ``x``."""
    x1 = layers.BatchNormalization(axis=3, epsilon=_EPS, name=f"{name}_0_bn")(x)
    x1 = layers.Activation("relu", name=f"{name}_0_relu")(x1)
    x1 = layers.Conv2D(4 * growth_rate, 1, use_bias=False, name=f"{name}_1_conv")(x1)
    x1 = layers.BatchNormalization(axis=3, epsilon=_EPS, name=f"{name}_1_bn")(x1)
    x1 = layers.Activation("relu", name=f"{name}_1_relu")(x1)
    x1 = layers.Conv2D(growth_rate, 3, padding="same", use_bias=False, name=f"{name}_2_conv")(x1)
    return layers.Concatenate(axis=3, name=f"{name}_concat")([x, x1])


def DenseNet(
    blocks,
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name="densenet",
):
    """A DenseNet with ``blocks[i]`` conv blocks in dense block ``i + 1``."""
    imagenet_utils.check_weights(weights)
    input_shape = imagenet_utils.obtain_input_shape(input_shape, 224, 32, require_flatten=include_top)
    img_input = imagenet_utils.image_input(input_tensor, input_shape)
    x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)))(img_input)
    x = layers.Conv2D(64, 7, strides=2, use_bias=False, name="conv1_conv")(x)
    x = layers.BatchNormalization(axis=3, epsilon=_EPS, name="conv1_bn")(x)
    x = layers.Activation("relu", name="conv1_relu")(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)))(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1")(x)
    for stage, n in enumerate(blocks[:3], start=2):
        x = dense_block(x, n, name=f"conv{stage}")
        x = transition_block(x, 0.5, name=f"pool{stage}")
    x = dense_block(x, blocks[3], name="conv5")
    x = layers.BatchNormalization(axis=3, epsilon=_EPS, name="bn")(x)
    x = layers.Activation("relu", name="relu")(x)
    if include_top:
        x = imagenet_utils.pooled_classifier(x, classes, classifier_activation, weights, "avg_pool")
    else:
        x = imagenet_utils.pool(x, pooling, "avg_pool", "max_pool")
    return imagenet_utils.make_model(input_tensor, img_input, x, name, weights)


def DenseNet121(
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name="densenet121",
):
    """The DenseNet121 model (default input 224x224x3, at least 32x32; ``weights``: ``None`` or
    the path of a weights file)."""
    return DenseNet(
        [6, 12, 24, 16], include_top, weights, input_tensor, input_shape, pooling, classes, classifier_activation, name
    )


def DenseNet169(
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name="densenet169",
):
    """The DenseNet169 model (default input 224x224x3, at least 32x32; ``weights``: ``None`` or
    the path of a weights file)."""
    return DenseNet(
        [6, 12, 32, 32], include_top, weights, input_tensor, input_shape, pooling, classes, classifier_activation, name
    )


def DenseNet201(
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name="densenet201",
):
    """The DenseNet201 model (default input 224x224x3, at least 32x32; ``weights``: ``None`` or
    the path of a weights file)."""
    return DenseNet(
        [6, 12, 48, 32], include_top, weights, input_tensor, input_shape, pooling, classes, classifier_activation, name
    )


def preprocess_input(x, data_format=None):
    """Torch-style preprocessing: scaled to [0, 1], then normalized with ImageNet's per-channel
    mean and standard deviation."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="torch")
