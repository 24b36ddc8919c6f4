"""``keras.applications.vgg16``: VGG16 (Simonyan & Zisserman, 2015), as Keras builds it."""

from __future__ import annotations

from .. import layers
from . import imagenet_utils
from .imagenet_utils import decode_predictions

__all__ = ["VGG16", "preprocess_input", "decode_predictions"]


def vgg(
    convs_per_block, include_top, weights, input_tensor, input_shape, pooling, classes, classifier_activation, name
):
    """VGG with ``convs_per_block[i]`` 3x3 convolutions in block ``i + 1`` (VGG16 and VGG19)."""
    imagenet_utils.check_weights(weights)
    input_shape = imagenet_utils.obtain_input_shape(input_shape, 224, 32, require_flatten=include_top)
    img_input = imagenet_utils.image_input(input_tensor, input_shape)
    x = img_input
    for block, (filters, convs) in enumerate(zip((64, 128, 256, 512, 512), convs_per_block), start=1):
        for i in range(1, convs + 1):
            x = layers.Conv2D(filters, (3, 3), activation="relu", padding="same", name=f"block{block}_conv{i}")(x)
        x = layers.MaxPooling2D((2, 2), strides=(2, 2), name=f"block{block}_pool")(x)
    if include_top:
        x = layers.Flatten(name="flatten")(x)
        x = layers.Dense(4096, activation="relu", name="fc1")(x)
        x = layers.Dense(4096, activation="relu", name="fc2")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = imagenet_utils.pool(x, pooling)
    return imagenet_utils.make_model(input_tensor, img_input, x, name, weights)


def VGG16(
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name="vgg16",
):
    """The VGG16 model (default input 224x224x3, at least 32x32). ``weights``: ``None`` (random
    initialization) or the path of a weights file; ``pooling`` (``None``, ``"avg"``, ``"max"``)
    applies when ``include_top`` is False."""
    return vgg(
        (2, 2, 3, 3, 3), include_top, weights, input_tensor, input_shape, pooling, classes, classifier_activation, name
    )


def preprocess_input(x, data_format=None):
    """Caffe-style preprocessing: RGB to BGR, then minus ImageNet's mean pixel."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="caffe")
