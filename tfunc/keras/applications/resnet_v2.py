"""``keras.applications.resnet_v2``: ResNet50V2/101V2/152V2 (He et al., 2016: identity mappings),
as Keras builds them."""

from __future__ import annotations

from . import imagenet_utils
from .imagenet_utils import decode_predictions
from .resnet import ResNet, stack_residual_blocks_v2

__all__ = ["ResNet50V2", "ResNet101V2", "ResNet152V2", "preprocess_input", "decode_predictions"]


def _stages_v2(blocks):
    def stack_fn(x):
        x = stack_residual_blocks_v2(x, 64, blocks[0], name="conv2")
        x = stack_residual_blocks_v2(x, 128, blocks[1], name="conv3")
        x = stack_residual_blocks_v2(x, 256, blocks[2], name="conv4")
        return stack_residual_blocks_v2(x, 512, blocks[3], stride1=1, name="conv5")

    return stack_fn


def ResNet50V2(
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name="resnet50v2",
):
    """The ResNet50V2 model (default input 224x224x3, at least 32x32; ``weights``: ``None`` or the
    path of a weights file)."""
    return ResNet(
        _stages_v2((3, 4, 6, 3)), True, True, include_top, weights, input_tensor, input_shape, pooling, classes,
        classifier_activation, name,
    )  # fmt: skip


def ResNet101V2(
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name="resnet101v2",
):
    """The ResNet101V2 model (default input 224x224x3, at least 32x32; ``weights``: ``None`` or the
    path of a weights file)."""
    return ResNet(
        _stages_v2((3, 4, 23, 3)), True, True, include_top, weights, input_tensor, input_shape, pooling, classes,
        classifier_activation, name,
    )  # fmt: skip


def ResNet152V2(
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name="resnet152v2",
):
    """The ResNet152V2 model (default input 224x224x3, at least 32x32; ``weights``: ``None`` or the
    path of a weights file)."""
    return ResNet(
        _stages_v2((3, 8, 36, 3)), True, True, include_top, weights, input_tensor, input_shape, pooling, classes,
        classifier_activation, name,
    )  # fmt: skip


def preprocess_input(x, data_format=None):
    """Scales the pixels to [-1, 1] ("tf" mode)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")
