"""``tfunc.keras.layers``: the base :class:`Layer` and Keras layers, one module per family
(as Keras 3 arranges them).

A layer creates its weights lazily: the first ``__call__`` calls
``build(input_shape)`` once, lifted out of any function being traced (as Keras
does with ``tf.init_scope``), so a layer first called inside a
``tfunc.function`` creates its variables on that function's first trace, and
later traces reuse them.  The built-in layers follow the dtype policy
(:mod:`tfunc.keras.mixed_precision`): float32 weights and float16 arithmetic under
``'mixed_float16'``.
"""

from . import operators  # noqa: F401  (registers the layers behind operators on KerasTensors)
from .activation_layers import ELU, LeakyReLU, ReLU, Softmax
from .base import Layer, reset_layer_names
from .bidirectional import Bidirectional
from .convolutional import (
    Conv1D,
    Conv2D,
    Conv2DTranspose,
    Convolution1D,
    Convolution2D,
    Convolution2DTranspose,
    DepthwiseConv2D,
)
from .core import Activation, Dense, Embedding, Lambda
from .input_layer import Input, InputLayer
from .masking import Masking
from .merging import (
    Add,
    Average,
    Concatenate,
    Maximum,
    Minimum,
    Multiply,
    Subtract,
    add,
    average,
    concatenate,
    maximum,
    minimum,
    multiply,
    subtract,
)
from .normalization import BatchNormalization, LayerNormalization
from .pooling import (
    AveragePooling1D,
    AveragePooling2D,
    AvgPool1D,
    AvgPool2D,
    GlobalAveragePooling1D,
    GlobalAveragePooling2D,
    GlobalAvgPool1D,
    GlobalAvgPool2D,
    GlobalMaxPool1D,
    GlobalMaxPool2D,
    GlobalMaxPooling1D,
    GlobalMaxPooling2D,
    MaxPool1D,
    MaxPool2D,
    MaxPooling1D,
    MaxPooling2D,
)
from .preprocessing import Normalization, Rescaling
from .regularization import Dropout
from .reshaping import (
    Cropping1D,
    Cropping2D,
    Cropping3D,
    Flatten,
    Permute,
    RepeatVector,
    Reshape,
    UpSampling1D,
    UpSampling2D,
    UpSampling3D,
    ZeroPadding1D,
    ZeroPadding2D,
    ZeroPadding3D,
)
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, SimpleRNN, SimpleRNNCell
from .separable_conv import (
    DepthwiseConv1D,
    SeparableConv1D,
    SeparableConv2D,
    SeparableConvolution1D,
    SeparableConvolution2D,
)
from .wrappers import TimeDistributed

__all__ = [
    "Layer",
    "Input",
    "InputLayer",
    "Dense",
    "Activation",
    "Embedding",
    "Lambda",
    "Masking",
    "Conv1D",
    "Convolution1D",
    "Conv2D",
    "Convolution2D",
    "Conv2DTranspose",
    "Convolution2DTranspose",
    "DepthwiseConv2D",
    "SimpleRNNCell",
    "LSTMCell",
    "GRUCell",
    "RNN",
    "SimpleRNN",
    "LSTM",
    "GRU",
    "Bidirectional",
    "Flatten",
    "Reshape",
    "Permute",
    "ZeroPadding2D",
    "UpSampling2D",
    "ZeroPadding1D",
    "ZeroPadding3D",
    "Cropping1D",
    "Cropping2D",
    "Cropping3D",
    "UpSampling1D",
    "UpSampling3D",
    "RepeatVector",
    "TimeDistributed",
    "SeparableConv1D",
    "SeparableConv2D",
    "SeparableConvolution1D",
    "SeparableConvolution2D",
    "DepthwiseConv1D",
    "Dropout",
    "BatchNormalization",
    "LayerNormalization",
    "Normalization",
    "Rescaling",
    "ReLU",
    "LeakyReLU",
    "ELU",
    "Softmax",
    "Add",
    "Subtract",
    "Multiply",
    "Average",
    "Maximum",
    "Minimum",
    "Concatenate",
    "add",
    "subtract",
    "multiply",
    "average",
    "maximum",
    "minimum",
    "concatenate",
    "MaxPooling1D",
    "MaxPool1D",
    "AveragePooling1D",
    "AvgPool1D",
    "MaxPooling2D",
    "MaxPool2D",
    "AveragePooling2D",
    "AvgPool2D",
    "GlobalAveragePooling1D",
    "GlobalAvgPool1D",
    "GlobalMaxPooling1D",
    "GlobalMaxPool1D",
    "GlobalAveragePooling2D",
    "GlobalAvgPool2D",
    "GlobalMaxPooling2D",
    "GlobalMaxPool2D",
    "reset_layer_names",
]
