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


_IMAGE = np.arange(5 * 8 * 2, dtype="float32").reshape(5, 8, 2)
_smart_resize = tf.keras.preprocessing.image.smart_resize


def test_smart_resize_crops_to_the_aspect_ratio_then_resizes():
    # TF 2.21 keras.preprocessing.image.smart_resize(x, (3, 3)): a float32 NumPy array.
    y = _smart_resize(_IMAGE, (3, 3))
    assert isinstance(y, np.ndarray) and y.dtype == np.float32 and y.shape == (3, 3, 2)
    np.testing.assert_allclose(y[0, :, 0], [8.0, 11.3333, 14.6667], rtol=1e-5)
    np.testing.assert_allclose(y.sum(), 692.99998, rtol=1e-6)


def test_smart_resize_batches_channels_first_and_interpolations():
    # TF 2.21: (2, 4, 2, 2) batch summing to 1280; channels_first sums as channels_last (693);
    # 'nearest' (4, 4) sums to 1232; an upscale to (10, 4) sums to 3160; uint8 gives float32.
    batch = _smart_resize(np.stack([_IMAGE, _IMAGE + 1]), (4, 2))
    assert batch.shape == (2, 4, 2, 2) and batch.sum() == 1280.0
    first = _smart_resize(_IMAGE.transpose(2, 0, 1), (3, 3), data_format="channels_first")
    np.testing.assert_allclose(first[1, 0], [9.0, 12.3333, 15.6667], rtol=1e-5)
    assert _smart_resize(_IMAGE, (4, 4), interpolation="nearest").sum() == 1232.0
    assert _smart_resize(_IMAGE, (10, 4)).sum() == 3160.0
    assert _smart_resize((_IMAGE * 3).astype("uint8"), (4, 3)).dtype == np.float32


def test_smart_resize_keeps_tensors_and_checks_arguments():
    # TF 2.21: a tensor in, a tensor out; size, rank and stray keywords are refused.
    assert isinstance(_smart_resize(tf.constant(_IMAGE), (3, 3)), tf.Tensor)
    with pytest.raises(ValueError, match="tuple of 2 integers"):
        _smart_resize(_IMAGE, (3,))
    with pytest.raises(ValueError, match="incorrect rank"):
        _smart_resize(_IMAGE[0], (3, 3))
    with pytest.raises(TypeError, match="foo"):
        _smart_resize(_IMAGE, (3, 3), foo=1)


def _slot_paths(optimizer):
    """The slot paths of ``optimizer.variables`` once built for a Dense(2) -> Dense(2) model."""
    tf.keras.backend.clear_session()
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2), tf.keras.layers.Dense(2)])
    optimizer.build(model.trainable_variables)
    return [v.path.split("/", 1)[1].replace("sequential_", "") for v in optimizer.variables[2:]]


_VARS = ["dense_kernel", "dense_bias", "dense_1_kernel", "dense_1_bias"]


def test_adam_amsgrad_lists_velocity_hats_last():
    # TF 2.21: each variable's momentum and velocity in turn, then every velocity_hat.
    expected = [f"{v}_{s}" for v in _VARS for s in ("momentum", "velocity")]
    expected += [f"{v}_velocity_hat" for v in _VARS]
    assert _slot_paths(tf.keras.optimizers.Adam(amsgrad=True)) == expected


def test_rmsprop_lists_its_slots_by_kind():
    # TF 2.21: every velocity, then every momentum, then every average_gradient.
    expected = [f"{v}_{s}" for s in ("velocity", "momentum", "average_gradient") for v in _VARS]
    assert _slot_paths(tf.keras.optimizers.RMSprop(centered=True, momentum=0.9)) == expected
