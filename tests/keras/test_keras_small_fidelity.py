"""Small Keras 3.15 fidelity points: automatic layer names, smart_resize, optimizer variable order."""

import numpy as np
import pytest

import tfunc as tf
from tfunc.keras.layers import base


@pytest.mark.parametrize(
    ("class_name", "expected"),
    [
        # TF 2.21 / Keras 3.15 keras.src.utils.naming.to_snake_case gives these.
        ("ConvLSTM2D", "conv_lstm2d"),
        ("MyLSTM2DLayer", "my_lstm2d_layer"),
        ("ReLU", "re_lu"),
        ("PReLU", "p_re_lu"),
        ("Conv2DTranspose", "conv2d_transpose"),
        ("RMSprop", "rm_sprop"),
        ("_Private", "__private"),
    ],
)
def test_automatic_name_rule_is_keras_to_snake_case(class_name, expected):
    assert base._to_snake_case(class_name) == expected


def test_conv_lstm_default_names():
    # TF 2.21 gives 'conv_lstm1d', 'conv_lstm2d', 'conv_lstm2d_1', 'conv_lstm3d'.
    tf.keras.backend.clear_session()
    layers = tf.keras.layers
    names = [layers.ConvLSTM1D(2, 3).name, layers.ConvLSTM2D(2, 3).name]
    names += [layers.ConvLSTM2D(2, 3).name, layers.ConvLSTM3D(2, 3).name]
    assert names == ["conv_lstm1d", "conv_lstm2d", "conv_lstm2d_1", "conv_lstm3d"]
