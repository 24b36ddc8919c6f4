"""``tfunc.keras.applications``: Keras 3's ImageNet architectures, built layer for layer as Keras
builds them (same layer names, weights and configs, so a ``.weights.h5`` file saved by Keras for
the same model loads here and back). tfunc downloads nothing: ``weights`` is ``None`` or the path
of a weights file, and ``decode_predictions`` needs ``imagenet_utils.CLASS_INDEX`` set by the user.
"""

from . import (
    densenet,
    efficientnet,
    efficientnet_v2,
    imagenet_utils,
    mobilenet,
    mobilenet_v2,
    mobilenet_v3,
    resnet,
    resnet50,
    resnet_v2,
    vgg16,
    vgg19,
)
from .densenet import DenseNet121, DenseNet169, DenseNet201
from .efficientnet import (
    EfficientNetB0,
    EfficientNetB1,
    EfficientNetB2,
    EfficientNetB3,
    EfficientNetB4,
    EfficientNetB5,
    EfficientNetB6,
    EfficientNetB7,
)
from .efficientnet_v2 import (
    EfficientNetV2B0,
    EfficientNetV2B1,
    EfficientNetV2B2,
    EfficientNetV2B3,
    EfficientNetV2L,
    EfficientNetV2M,
    EfficientNetV2S,
)
from .mobilenet import MobileNet
from .mobilenet_v2 import MobileNetV2
from .mobilenet_v3 import MobileNetV3Large, MobileNetV3Small
from .resnet import ResNet50, ResNet101, ResNet152
from .resnet_v2 import ResNet50V2, ResNet101V2, ResNet152V2
from .vgg16 import VGG16
from .vgg19 import VGG19

__all__ = [
    "densenet",
    "efficientnet",
    "efficientnet_v2",
    "imagenet_utils",
    "mobilenet",
    "mobilenet_v2",
    "mobilenet_v3",
    "resnet",
    "resnet50",
    "resnet_v2",
    "vgg16",
    "vgg19",
    "DenseNet121",
    "DenseNet169",
    "DenseNet201",
    "EfficientNetB0",
    "EfficientNetB1",
    "EfficientNetB2",
    "EfficientNetB3",
    "EfficientNetB4",
    "EfficientNetB5",
    "EfficientNetB6",
    "EfficientNetB7",
    "EfficientNetV2B0",
    "EfficientNetV2B1",
    "EfficientNetV2B2",
    "EfficientNetV2B3",
    "EfficientNetV2S",
    "EfficientNetV2M",
    "EfficientNetV2L",
    "MobileNet",
    "MobileNetV2",
    "MobileNetV3Small",
    "MobileNetV3Large",
    "ResNet50",
    "ResNet101",
    "ResNet152",
    "ResNet50V2",
    "ResNet101V2",
    "ResNet152V2",
    "VGG16",
    "VGG19",
]
