"""``keras.applications.vgg19``: VGG19 (Simonyan & Zisserman, 2015), as Keras builds it."""

from __future__ import annotations

from .imagenet_utils import decode_predictions
from .vgg16 import preprocess_input, vgg

__all__ = ["VGG19", "preprocess_input", "decode_predictions"]


def VGG19(
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name="vgg19",
):
    """The VGG19 model (default input 224x224x3, at least 32x32). ``weights``: ``None`` (random
    initialization) or the path of a weights file; ``pooling`` (``None``, ``"avg"``, ``"max"``)
    applies when ``include_top`` is False."""
    return vgg(
        (2, 2, 4, 4, 4), include_top, weights, input_tensor, input_shape, pooling, classes, classifier_activation, name
    )
