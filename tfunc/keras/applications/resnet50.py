"""``keras.applications.resnet50``: ResNet50 alone (the same function as ``resnet.ResNet50``)."""

from .resnet import ResNet50, decode_predictions, preprocess_input

__all__ = ["ResNet50", "preprocess_input", "decode_predictions"]
