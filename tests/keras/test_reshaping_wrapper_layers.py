"""Keras 3.15 layers built from existing ops: ``Cropping1D/2D/3D``, ``ZeroPadding1D/2D/3D``,
``UpSampling1D/2D/3D``, ``RepeatVector``, ``TimeDistributed``, ``SeparableConv1D/2D`` and
``DepthwiseConv1D``, channels-last and channels-first, eagerly and in ``tf.function``.

Expected values are NumPy formulas (checked against Keras 3.15 with copied weights when these
tests were written); ``KERAS_CONFIGS`` and ``KERAS_H5_DATASETS`` are what Keras 3.15 writes.
"""

import math

import numpy as np
import pytest

import tfunc as tf
from tfunc import keras
from tfunc.keras import layers
from tfunc.keras.serialization import KERAS_ONLY_DEFAULTS

RNG = np.random.default_rng(0)


def _rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def _both(layer, x):
    """The layer's output eagerly and inside a tf.function (NumPy arrays)."""
    eager = layer(x).numpy()
    traced = tf.function(lambda t: layer(t))(tf.constant(x)).numpy()
    return eager, traced


def _plain(config):
    """A config as JSON has it, without Keras-only arguments at their unused values."""
    if isinstance(config, dict):
        return {
            k: _plain(v)
            for k, v in config.items()
            if not (k in KERAS_ONLY_DEFAULTS and v == KERAS_ONLY_DEFAULTS[k]) and k != "shared_object_id"
        }
    if isinstance(config, (list, tuple)):
        return [_plain(v) for v in config]
    return config


def _to_last(x):
    """channels_first -> channels_last."""
    return np.moveaxis(x, 1, -1)


def _to_first(x):
    return np.moveaxis(x, -1, 1)


# --- configs ------------------------------------------------------------------------------------

# (class name, arguments, Keras 3.15's config without name/trainable/dtype)
KERAS_CONFIGS = [
    ("Cropping1D", {}, {"cropping": [1, 1]}),
    ("Cropping1D", {"cropping": 2}, {"cropping": [2, 2]}),
    ("Cropping2D", {}, {"cropping": [[0, 0], [0, 0]], "data_format": "channels_last"}),
    (
        "Cropping2D",
        {"cropping": (1, 2), "data_format": "channels_first"},
        {"cropping": [[1, 1], [2, 2]], "data_format": "channels_first"},
    ),
    ("Cropping3D", {}, {"cropping": [[1, 1], [1, 1], [1, 1]], "data_format": "channels_last"}),
    (
        "Cropping3D",
        {"cropping": ((0, 1), 2, (1, 0))},
        {"cropping": [[0, 1], [2, 2], [1, 0]], "data_format": "channels_last"},
    ),
    ("ZeroPadding1D", {}, {"padding": [1, 1], "data_format": "channels_last"}),
    (
        "ZeroPadding1D",
        {"padding": (1, 2), "data_format": "channels_first"},
        {"padding": [1, 2], "data_format": "channels_first"},
    ),
    (
        "ZeroPadding2D",
        {"padding": 2, "data_format": "channels_first"},
        {"padding": [[2, 2], [2, 2]], "data_format": "channels_first"},
    ),
    ("ZeroPadding3D", {}, {"padding": [[1, 1], [1, 1], [1, 1]], "data_format": "channels_last"}),
    ("ZeroPadding3D", {"padding": (1, 0, 2)}, {"padding": [[1, 1], [0, 0], [2, 2]], "data_format": "channels_last"}),
    ("UpSampling1D", {}, {"size": 2}),
    ("UpSampling1D", {"size": 3}, {"size": 3}),
    (
        "UpSampling2D",
        {"size": 3, "data_format": "channels_first", "interpolation": "bilinear"},
        {"size": [3, 3], "data_format": "channels_first", "interpolation": "bilinear"},
    ),
    ("UpSampling3D", {}, {"size": [2, 2, 2], "data_format": "channels_last"}),
    (
        "UpSampling3D",
        {"size": (1, 2, 3), "data_format": "channels_first"},
        {"size": [1, 2, 3], "data_format": "channels_first"},
    ),
    ("RepeatVector", {"n": 3}, {"n": 3}),
    (
        "SeparableConv1D",
        {"filters": 2, "kernel_size": 3},
        {
            "depth_multiplier": 1,
            "filters": 2,
            "kernel_size": [3],
            "strides": [1],
            "padding": "valid",
            "data_format": "channels_last",
            "dilation_rate": [1],
            "activation": "linear",
            "use_bias": True,
            "depthwise_initializer": {
                "module": "keras.initializers",
                "class_name": "GlorotUniform",
                "config": {"seed": None},
                "registered_name": None,
            },
            "pointwise_initializer": {
                "module": "keras.initializers",
                "class_name": "GlorotUniform",
                "config": {"seed": None},
                "registered_name": None,
            },
            "bias_initializer": {
                "module": "keras.initializers",
                "class_name": "Zeros",
                "config": {},
                "registered_name": None,
            },
            "depthwise_regularizer": None,
            "pointwise_regularizer": None,
            "bias_regularizer": None,
            "activity_regularizer": None,
            "depthwise_constraint": None,
            "pointwise_constraint": None,
            "bias_constraint": None,
        },
    ),
    (
        "SeparableConv2D",
        {
            "filters": 4,
            "kernel_size": (3, 2),
            "strides": 2,
            "padding": "same",
            "depth_multiplier": 2,
            "data_format": "channels_first",
            "activation": "relu",
            "use_bias": False,
            "pointwise_regularizer": "l2",
        },
        {
            "depth_multiplier": 2,
            "filters": 4,
            "kernel_size": [3, 2],
            "strides": [2, 2],
            "padding": "same",
            "data_format": "channels_first",
            "dilation_rate": [1, 1],
            "activation": "relu",
            "use_bias": False,
            "depthwise_initializer": {
                "module": "keras.initializers",
                "class_name": "GlorotUniform",
                "config": {"seed": None},
                "registered_name": None,
            },
            "pointwise_initializer": {
                "module": "keras.initializers",
                "class_name": "GlorotUniform",
                "config": {"seed": None},
                "registered_name": None,
            },
            "bias_initializer": {
                "module": "keras.initializers",
                "class_name": "Zeros",
                "config": {},
                "registered_name": None,
            },
            "depthwise_regularizer": None,
            "pointwise_regularizer": {
                "module": "keras.regularizers",
                "class_name": "L2",
                "config": {"l2": 0.01},
                "registered_name": None,
            },
            "bias_regularizer": None,
            "activity_regularizer": None,
            "depthwise_constraint": None,
            "pointwise_constraint": None,
            "bias_constraint": None,
        },
    ),
    (
        "SeparableConvolution2D",
        {"filters": 1, "kernel_size": 1},
        {
            "depth_multiplier": 1,
            "filters": 1,
            "kernel_size": [1, 1],
            "strides": [1, 1],
            "padding": "valid",
            "data_format": "channels_last",
            "dilation_rate": [1, 1],
            "activation": "linear",
            "use_bias": True,
            "depthwise_initializer": {
                "module": "keras.initializers",
                "class_name": "GlorotUniform",
                "config": {"seed": None},
                "registered_name": None,
            },
            "pointwise_initializer": {
                "module": "keras.initializers",
                "class_name": "GlorotUniform",
                "config": {"seed": None},
                "registered_name": None,
            },
            "bias_initializer": {
                "module": "keras.initializers",
                "class_name": "Zeros",
                "config": {},
                "registered_name": None,
            },
            "depthwise_regularizer": None,
            "pointwise_regularizer": None,
            "bias_regularizer": None,
            "activity_regularizer": None,
            "depthwise_constraint": None,
            "pointwise_constraint": None,
            "bias_constraint": None,
        },
    ),
    (
        "DepthwiseConv1D",
        {"kernel_size": 3},
        {
            "depth_multiplier": 1,
            "kernel_size": [3],
            "strides": [1],
            "padding": "valid",
            "data_format": "channels_last",
            "dilation_rate": [1],
            "activation": "linear",
            "use_bias": True,
            "depthwise_initializer": {
                "module": "keras.initializers",
                "class_name": "GlorotUniform",
                "config": {"seed": None},
                "registered_name": None,
            },
            "bias_initializer": {
                "module": "keras.initializers",
                "class_name": "Zeros",
                "config": {},
                "registered_name": None,
            },
            "depthwise_regularizer": None,
            "bias_regularizer": None,
            "activity_regularizer": None,
            "depthwise_constraint": None,
            "bias_constraint": None,
        },
    ),
    (
        "DepthwiseConv1D",
        {"kernel_size": 2, "dilation_rate": 2, "depth_multiplier": 3, "padding": "same", "bias_initializer": "ones"},
        {
            "depth_multiplier": 3,
            "kernel_size": [2],
            "strides": [1],
            "padding": "same",
            "data_format": "channels_last",
            "dilation_rate": [2],
            "activation": "linear",
            "use_bias": True,
            "depthwise_initializer": {
                "module": "keras.initializers",
                "class_name": "GlorotUniform",
                "config": {"seed": None},
                "registered_name": None,
            },
            "bias_initializer": {
                "module": "keras.initializers",
                "class_name": "Ones",
                "config": {},
                "registered_name": None,
            },
            "depthwise_regularizer": None,
            "bias_regularizer": None,
            "activity_regularizer": None,
            "depthwise_constraint": None,
            "bias_constraint": None,
        },
    ),
]

TIME_DISTRIBUTED_DENSE_CONFIG = {
    "layer": {
        "module": "keras.layers",
        "class_name": "Dense",
        "config": {
            "name": "inner",
            "trainable": True,
            "dtype": {
                "module": "keras",
                "class_name": "DTypePolicy",
                "config": {"name": "float32"},
                "registered_name": None,
            },
            "units": 2,
            "activation": "linear",
            "use_bias": True,
            "kernel_initializer": {
                "module": "keras.initializers",
                "class_name": "GlorotUniform",
                "config": {"seed": None},
                "registered_name": None,
            },
            "bias_initializer": {
                "module": "keras.initializers",
                "class_name": "Zeros",
                "config": {},
                "registered_name": None,
            },
            "kernel_regularizer": None,
            "bias_regularizer": None,
            "kernel_constraint": None,
            "bias_constraint": None,
            "quantization_config": None,
        },
        "registered_name": None,
    }
}


@pytest.mark.parametrize("name,kwargs,expected", KERAS_CONFIGS, ids=lambda v: v if isinstance(v, str) else "")
def test_configs_are_the_ones_keras_writes_and_rebuild(name, kwargs, expected):
    layer = getattr(layers, name)(**kwargs)
    config = _plain(layer.get_config())
    for key in ("name", "trainable", "dtype"):
        config.pop(key)
    assert config == _plain(expected)
    again = type(layer).from_config(layer.get_config())
    assert _plain(again.get_config()) == _plain(layer.get_config())


def test_time_distributed_config_is_the_one_keras_writes_and_rebuilds():
    td = layers.TimeDistributed(layers.Dense(2, name="inner"))
    config = _plain(td.get_config())
    assert set(config) == {"name", "trainable", "dtype", "layer"}
    assert config["layer"] == _plain(TIME_DISTRIBUTED_DENSE_CONFIG["layer"])
    again = layers.TimeDistributed.from_config(td.get_config())
    assert isinstance(again.layer, layers.Dense) and again.layer.units == 2 and again.layer.name == "inner"


def test_aliases():
    assert layers.SeparableConvolution1D is layers.SeparableConv1D
    assert layers.SeparableConvolution2D is layers.SeparableConv2D


# --- cropping, padding, upsampling, RepeatVector -------------------------------------------------


def _crop(x, pairs, axes):
    key = [slice(None)] * x.ndim
    for axis, (a, b) in zip(axes, pairs):
        key[axis] = slice(a, x.shape[axis] - b)
    return x[tuple(key)]


def _pad(x, pairs, axes):
    widths = [(0, 0)] * x.ndim
    for axis, pair in zip(axes, pairs):
        widths[axis] = pair
    return np.pad(x, widths)


def _repeat(x, sizes, axes):
    for axis, n in zip(axes, sizes):
        x = np.repeat(x, n, axis=axis)
    return x


def _axes(rank, data_format):
    first = 2 if data_format == "channels_first" else 1
    return list(range(first, first + rank - 2))


SPATIAL_CASES = [
    # (layer, arguments, input shape, NumPy formula of (x, spatial axes))
    ("Cropping1D", {"cropping": (1, 2)}, (2, 6, 3), lambda x, ax: _crop(x, [(1, 2)], ax)),
    ("Cropping1D", {"cropping": 2}, (2, 6, 3), lambda x, ax: _crop(x, [(2, 2)], ax)),
    ("Cropping2D", {"cropping": ((1, 0), (2, 1))}, (2, 5, 6, 3), lambda x, ax: _crop(x, [(1, 0), (2, 1)], ax)),
    (
        "Cropping2D",
        {"cropping": (1, 2), "data_format": "channels_first"},
        (2, 3, 5, 6),
        lambda x, ax: _crop(x, [(1, 1), (2, 2)], ax),
    ),
    ("Cropping3D", {}, (2, 4, 5, 6, 3), lambda x, ax: _crop(x, [(1, 1)] * 3, ax)),
    (
        "Cropping3D",
        {"cropping": ((0, 1), 2, (1, 0)), "data_format": "channels_first"},
        (2, 3, 4, 5, 6),
        lambda x, ax: _crop(x, [(0, 1), (2, 2), (1, 0)], ax),
    ),
    ("ZeroPadding1D", {"padding": (1, 2)}, (2, 4, 3), lambda x, ax: _pad(x, [(1, 2)], ax)),
    ("ZeroPadding1D", {"padding": 2, "data_format": "channels_first"}, (2, 3, 4), lambda x, ax: _pad(x, [(2, 2)], ax)),
    (
        "ZeroPadding2D",
        {"padding": ((1, 2), (0, 3)), "data_format": "channels_first"},
        (2, 3, 4, 5),
        lambda x, ax: _pad(x, [(1, 2), (0, 3)], ax),
    ),
    ("ZeroPadding3D", {"padding": (1, 0, 2)}, (2, 3, 4, 5, 2), lambda x, ax: _pad(x, [(1, 1), (0, 0), (2, 2)], ax)),
    ("ZeroPadding3D", {"data_format": "channels_first"}, (2, 2, 3, 4, 5), lambda x, ax: _pad(x, [(1, 1)] * 3, ax)),
    ("UpSampling1D", {"size": 3}, (2, 4, 3), lambda x, ax: _repeat(x, [3], ax)),
    (
        "UpSampling2D",
        {"size": (2, 3), "data_format": "channels_first"},
        (2, 3, 4, 5),
        lambda x, ax: _repeat(x, [2, 3], ax),
    ),
    ("UpSampling3D", {"size": (1, 2, 3)}, (2, 2, 3, 4, 2), lambda x, ax: _repeat(x, [1, 2, 3], ax)),
    (
        "UpSampling3D",
        {"size": 2, "data_format": "channels_first"},
        (2, 2, 3, 4, 2),
        lambda x, ax: _repeat(x, [2, 2, 2], ax),
    ),
]


@pytest.mark.parametrize("name,kwargs,shape,formula", SPATIAL_CASES, ids=lambda v: v if isinstance(v, str) else "")
def test_spatial_layers_values_and_shapes(name, kwargs, shape, formula):
    layer = getattr(layers, name)(**kwargs)
    x = _rand(*shape)
    expected = formula(x, _axes(len(shape), kwargs.get("data_format", "channels_last")))
    eager, traced = _both(layer, x)
    np.testing.assert_array_equal(eager, expected)
    np.testing.assert_array_equal(traced, expected)
    assert layer.compute_output_shape(shape).as_list() == list(expected.shape)
    unknown = (None,) + tuple(shape[1:])
    assert layer.compute_output_shape(unknown).as_list() == [None] + list(expected.shape[1:])


def test_spatial_layers_with_unknown_sizes_in_a_function():
    crop = layers.Cropping2D(((1, 2), (0, 1)))
    pad = layers.ZeroPadding3D((0, 1, 2), data_format="channels_first")
    x2, x3 = _rand(2, 6, 5, 3), _rand(1, 2, 3, 4, 5)

    @tf.function(input_signature=[tf.TensorSpec([None, None, None, 3]), tf.TensorSpec([None, 2, None, None, None])])
    def f(a, b):
        return crop(a), pad(b)

    got_crop, got_pad = f(tf.constant(x2), tf.constant(x3))
    np.testing.assert_array_equal(got_crop.numpy(), x2[:, 1:-2, 0:-1])
    np.testing.assert_array_equal(got_pad.numpy(), np.pad(x3, [(0, 0), (0, 0), (0, 0), (1, 1), (2, 2)]))


def test_upsampling2d_bilinear_channels_first_is_the_channels_last_result_transposed():
    x = _rand(2, 3, 4, 5)
    last = layers.UpSampling2D((2, 3), interpolation="bilinear")(_to_last(x)).numpy()
    # tf.image.resize's half-pixel centres: output pixel i samples input (i + 0.5) / 2 - 0.5 along the rows
    rows = np.clip((np.arange(8) + 0.5) / 2 - 0.5, 0, 3)
    lo = np.floor(rows).astype(int)
    hi = np.minimum(lo + 1, 3)
    frac = (rows - lo)[None, :, None, None]
    cols = np.clip((np.arange(15) + 0.5) / 3 - 0.5, 0, 4)
    clo = np.floor(cols).astype(int)
    chi = np.minimum(clo + 1, 4)
    cfrac = (cols - clo)[None, None, :, None]
    xl = _to_last(x)
    by_rows = xl[:, lo] * (1 - frac) + xl[:, hi] * frac
    expected = by_rows[:, :, clo] * (1 - cfrac) + by_rows[:, :, chi] * cfrac
    np.testing.assert_allclose(last, expected, atol=1e-5)
    eager, traced = _both(layers.UpSampling2D((2, 3), "channels_first", "bilinear"), x)
    np.testing.assert_allclose(eager, _to_first(expected), atol=1e-5)
    np.testing.assert_allclose(traced, _to_first(expected), atol=1e-5)


def test_repeat_vector():
    x = _rand(2, 5)
    layer = layers.RepeatVector(3)
    eager, traced = _both(layer, x)
    expected = np.repeat(x[:, None, :], 3, axis=1)
    np.testing.assert_array_equal(eager, expected)
    np.testing.assert_array_equal(traced, expected)
    assert layer.compute_output_shape((None, 5)).as_list() == [None, 3, 5]


@pytest.mark.parametrize(
    "make,error",
    [
        (lambda: layers.Cropping1D(-1), ValueError),
        (lambda: layers.Cropping2D((1, 2, 3)), ValueError),
        (lambda: layers.ZeroPadding3D(((1, 1), (1, 1))), ValueError),
        (lambda: layers.ZeroPadding2D(1, data_format="channels_middle"), ValueError),
        (lambda: layers.UpSampling1D(2.0), TypeError),
        (lambda: layers.UpSampling3D((1, 0, 1)), ValueError),
        (lambda: layers.UpSampling2D(interpolation="gaussian"), ValueError),  # not a Keras resize method
        (lambda: layers.RepeatVector(0), ValueError),
    ],
)
def test_bad_arguments_are_refused(make, error):
    with pytest.raises(error):
        make()


def test_crop_that_leaves_nothing_and_wrong_rank_are_refused():
    with pytest.raises(ValueError, match="cropping"):
        layers.Cropping1D((2, 2))(_rand(1, 4, 2))
    with pytest.raises(ValueError, match="ndim=5"):
        layers.ZeroPadding3D()(_rand(1, 4, 2, 2))


# --- separable and depthwise convolutions -------------------------------------------------------


def _depthwise_nhwc(x, kernel, strides, padding, dilation):
    """Depthwise convolution of NHWC ``x`` with ``kernel`` (kh, kw, C, M), TensorFlow's padding."""
    n, h, w, c = x.shape
    kh, kw, _, m = kernel.shape
    spans = [(k - 1) * d + 1 for k, d in zip((kh, kw), dilation)]
    if padding == "same":
        out = [math.ceil(size / s) for size, s in zip((h, w), strides)]
        total = [max((o - 1) * s + span - size, 0) for o, s, span, size in zip(out, strides, spans, (h, w))]
        x = np.pad(
            x, [(0, 0), (total[0] // 2, total[0] - total[0] // 2), (total[1] // 2, total[1] - total[1] // 2), (0, 0)]
        )
    else:
        out = [(size - span) // s + 1 for size, span, s in zip((h, w), spans, strides)]
    y = np.zeros((n, out[0], out[1], c, m), np.float64)
    for a in range(kh):
        for b in range(kw):
            r0, c0 = a * dilation[0], b * dilation[1]
            patch = x[
                :,
                r0 : r0 + (out[0] - 1) * strides[0] + 1 : strides[0],
                c0 : c0 + (out[1] - 1) * strides[1] + 1 : strides[1],
            ]
            y += patch[..., None] * kernel[a, b]
    return y.reshape(n, out[0], out[1], c * m)


def _separable_reference(x, weights, kwargs, rank):
    """SeparableConv/DepthwiseConv1D outputs by formula, for either data format."""
    first = kwargs.get("data_format") == "channels_first"
    x = _to_last(x) if first else x
    depthwise = weights[0]
    strides = kwargs.get("strides", 1)
    dilation = kwargs.get("dilation_rate", 1)
    strides = (strides,) * rank if isinstance(strides, int) else tuple(strides)
    dilation = (dilation,) * rank if isinstance(dilation, int) else tuple(dilation)
    if rank == 1:
        x, depthwise = x[:, None], depthwise[None]
        strides, dilation = (1,) + strides, (1,) + dilation
    y = _depthwise_nhwc(x, depthwise, strides, kwargs.get("padding", "valid"), dilation)
    rest = weights[1:]
    if "filters" in kwargs:
        y = y @ rest[0].reshape(-1, kwargs["filters"])
        rest = rest[1:]
    if kwargs.get("use_bias", True):
        y = y + rest[0]
    act = {None: lambda v: v, "relu": lambda v: np.maximum(v, 0), "tanh": np.tanh}[kwargs.get("activation")]
    y = act(y)
    if rank == 1:
        y = y[:, 0]
    return _to_first(y) if first else y


CONV_CASES = [
    (
        "SeparableConv2D",
        {"filters": 4, "kernel_size": 3, "depth_multiplier": 2, "activation": "relu"},
        (2, 7, 6, 3),
        [(3, 3, 3, 2), (1, 1, 6, 4), (4,)],
    ),
    (
        "SeparableConv2D",
        {"filters": 4, "kernel_size": (3, 2), "strides": 2, "padding": "same", "data_format": "channels_first"},
        (2, 3, 7, 6),
        [(3, 2, 3, 1), (1, 1, 3, 4), (4,)],
    ),
    (
        "SeparableConv2D",
        {"filters": 2, "kernel_size": 2, "dilation_rate": 2, "use_bias": False},
        (2, 7, 6, 3),
        [(2, 2, 3, 1), (1, 1, 3, 2)],
    ),
    (
        "SeparableConv1D",
        {"filters": 4, "kernel_size": 3, "depth_multiplier": 2},
        (2, 9, 3),
        [(3, 3, 2), (1, 6, 4), (4,)],
    ),
    (
        "SeparableConv1D",
        {"filters": 4, "kernel_size": 3, "strides": 2, "padding": "same", "data_format": "channels_first"},
        (2, 3, 9),
        [(3, 3, 1), (1, 3, 4), (4,)],
    ),
    ("DepthwiseConv1D", {"kernel_size": 3, "depth_multiplier": 2}, (2, 9, 3), [(3, 3, 2), (6,)]),
    (
        "DepthwiseConv1D",
        {
            "kernel_size": 2,
            "dilation_rate": 2,
            "padding": "same",
            "data_format": "channels_first",
            "activation": "tanh",
        },
        (2, 3, 9),
        [(2, 3, 1), (3,)],
    ),
]

WEIGHT_NAMES = {
    "SeparableConv2D": ["depthwise_kernel", "pointwise_kernel", "bias"],
    "SeparableConv1D": ["depthwise_kernel", "pointwise_kernel", "bias"],
    "DepthwiseConv1D": ["kernel", "bias"],  # Keras 3 names the depthwise kernel "kernel" here
}


@pytest.mark.parametrize("name,kwargs,shape,weight_shapes", CONV_CASES, ids=lambda v: v if isinstance(v, str) else "")
def test_separable_and_depthwise_values_weights_and_shapes(name, kwargs, shape, weight_shapes):
    layer = getattr(layers, name)(**kwargs)
    layer.build(shape)
    assert [tuple(w.shape.as_list()) for w in layer.weights] == weight_shapes
    names = WEIGHT_NAMES[name][: len(weight_shapes)]
    assert [w.name.split("/")[-1].split(":")[0] for w in layer.weights] == names
    weights = [_rand(*s) for s in weight_shapes]
    layer.set_weights(weights)
    x = _rand(*shape)
    expected = _separable_reference(x.astype(np.float64), weights, kwargs, len(shape) - 2)
    eager, traced = _both(layer, x)
    np.testing.assert_allclose(eager, expected, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(traced, expected, rtol=1e-4, atol=1e-4)
    assert layer.compute_output_shape(shape).as_list() == list(expected.shape)


@pytest.mark.parametrize(
    "make",
    [
        lambda: layers.SeparableConv2D(2, 3, strides=2, dilation_rate=2),
        lambda: layers.SeparableConv1D(2, 3, padding="causal"),
        lambda: layers.DepthwiseConv1D(3, depth_multiplier=0),
        lambda: layers.SeparableConv2D(0, 3),
    ],
)
def test_unsupported_or_invalid_conv_options_are_refused(make):
    with pytest.raises(ValueError):
        make()


def test_separable_conv_trains_like_its_formula():
    """One SGD step of fit() on a SeparableConv1D: the kernels move by the analytic gradient of the
    mean squared error (a separable conv is linear in each kernel)."""
    layer = layers.SeparableConv1D(2, 2, use_bias=False)
    model = keras.Sequential([keras.Input((4, 3)), layer])
    dw, pw = _rand(2, 3, 1), _rand(1, 3, 2)
    model.set_weights([dw, pw])
    x, t = _rand(5, 4, 3), _rand(5, 3, 2)
    depth = sum(x[:, a : a + 3] * dw[a, :, 0] for a in range(2))  # (5, 3, 3)
    y = depth @ pw[0]
    g = 2 * (y - t) / y.size
    grad_pw = np.einsum("nsc,nsf->cf", depth, g)[None]
    grad_dw = np.stack([np.einsum("nsc,nsf,cf->c", x[:, a : a + 3], g, pw[0]) for a in range(2)])[..., None]
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    model.fit(x, t, batch_size=5, epochs=1, verbose=0)
    new_dw, new_pw = model.get_weights()
    np.testing.assert_allclose(new_dw, dw - 0.1 * grad_dw, atol=1e-5)
    np.testing.assert_allclose(new_pw, pw - 0.1 * grad_pw, atol=1e-5)


# --- TimeDistributed ----------------------------------------------------------------------------


def test_time_distributed_dense_and_conv2d_values():
    x = _rand(2, 3, 5, 5, 2)
    conv = layers.TimeDistributed(layers.Conv2D(3, 2, padding="same", activation="relu"))
    conv.build(x.shape)
    kernel, bias = _rand(2, 2, 2, 3), _rand(3)
    conv.set_weights([kernel, bias])
    # each step through the conv alone: a depthwise formula with one channel at a time, summed
    steps = []
    for t in range(3):
        xt = x[:, t].astype(np.float64)
        y = sum(
            _depthwise_nhwc(xt[..., c : c + 1], kernel[:, :, c : c + 1, :], (1, 1), "same", (1, 1)) for c in range(2)
        )
        steps.append(np.maximum(y + bias, 0))
    expected = np.stack(steps, axis=1)
    eager, traced = _both(conv, x)
    np.testing.assert_allclose(eager, expected, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(traced, expected, rtol=1e-4, atol=1e-5)
    assert conv.compute_output_shape((None, 3, 5, 5, 2)).as_list() == [None, 3, 5, 5, 3]
    assert [w.name.split("/")[-1].split(":")[0] for w in conv.weights] == ["kernel", "bias"]

    dense = layers.TimeDistributed(layers.Dense(4))
    x = _rand(2, 3, 5)
    eager, traced = _both(dense, x)
    k, b = dense.get_weights()
    np.testing.assert_allclose(eager, x @ k + b, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(traced, x @ k + b, rtol=1e-5, atol=1e-5)


def test_time_distributed_with_unknown_batch_and_steps_keeps_the_known_sizes():
    td = layers.TimeDistributed(layers.Conv1D(2, 2))
    shapes = []

    @tf.function(input_signature=[tf.TensorSpec([None, None, 6, 4])])
    def f(t):
        y = td(t)
        shapes.append(y.shape.as_list())
        return y

    x = _rand(2, 3, 6, 4)
    got = f(tf.constant(x)).numpy()
    assert shapes and all(shape == [None, None, 5, 2] for shape in shapes)
    np.testing.assert_allclose(got, td(x).numpy(), atol=1e-6)
    out = layers.TimeDistributed(layers.Dense(3))(keras.Input((None, 8)))
    assert tuple(out.shape) == (None, None, 3)


def test_time_distributed_passes_training_and_masks():
    drop = layers.TimeDistributed(layers.Dropout(0.5, seed=1))
    ones = np.ones((2, 3, 4), np.float32)
    np.testing.assert_array_equal(drop(ones).numpy(), ones)
    assert set(np.unique(drop(ones, training=True).numpy())) <= {0.0, 2.0}
    # a mask (one entry per step) passes through to the next layer, as in Keras
    inp = keras.Input((4,), dtype="int32")
    hidden = layers.TimeDistributed(layers.Dense(2))(layers.Embedding(10, 3, mask_zero=True)(inp))
    model = keras.Model(inp, layers.SimpleRNN(2, return_sequences=True)(hidden))
    ids = np.array([[1, 2, 0, 0]], np.int32)
    out = model(ids).numpy()
    np.testing.assert_allclose(out[0, 2], out[0, 1], atol=1e-6)  # masked steps repeat the last state
    np.testing.assert_allclose(out[0, 3], out[0, 1], atol=1e-6)


def test_time_distributed_refuses_a_non_layer_and_short_inputs():
    with pytest.raises(ValueError, match="keras.layers.Layer"):
        layers.TimeDistributed(lambda x: x)
    with pytest.raises(ValueError, match="at least 3 dimensions"):
        layers.TimeDistributed(layers.Dense(2))(_rand(2, 3))


def test_time_distributed_dense_trains_like_its_formula():
    """Two SGD steps of fit() in a Sequential model: the Dense weights move by the analytic
    gradient of the mean squared error over every step of every example."""
    model = keras.Sequential([keras.Input((3, 4)), layers.TimeDistributed(layers.Dense(2))])
    k, b = _rand(4, 2), _rand(2)
    model.set_weights([k, b])
    x, t = _rand(4, 3, 4), _rand(4, 3, 2)
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    model.fit(x, t, batch_size=2, epochs=1, shuffle=False, verbose=0)
    for xb, tb in ((x[:2], t[:2]), (x[2:], t[2:])):
        g = 2 * (xb @ k + b - tb) / (tb.size)
        k = k - 0.1 * np.einsum("nsi,nso->io", xb, g)
        b = b - 0.1 * g.sum(axis=(0, 1))
    new_k, new_b = model.get_weights()
    np.testing.assert_allclose(new_k, k, atol=1e-5)
    np.testing.assert_allclose(new_b, b, atol=1e-5)


# What Keras 3.15's save_weights writes for ``_file_model`` (dataset path: shape).
KERAS_H5_DATASETS = {
    "layers/time_distributed/layer/vars/0": (3, 3, 2, 2),
    "layers/time_distributed/layer/vars/1": (1, 1, 4, 4),
    "layers/time_distributed/layer/vars/2": (4,),
    "layers/time_distributed_1/layer/vars/0": (2, 2, 4, 3),
    "layers/time_distributed_1/layer/vars/1": (3,),
    "layers/time_distributed_3/layer/vars/0": (48, 5),
    "layers/time_distributed_3/layer/vars/1": (5,),
    "layers/depthwise_conv1d/vars/0": (2, 5, 2),
    "layers/depthwise_conv1d/vars/1": (10,),
    "layers/separable_conv1d/vars/0": (2, 10, 1),
    "layers/separable_conv1d/vars/1": (1, 10, 3),
    "layers/separable_conv1d/vars/2": (3,),
}


def _file_model():
    keras.backend.clear_session()
    inp = keras.Input((4, 7, 7, 2))
    x = layers.TimeDistributed(layers.SeparableConv2D(4, 3, depth_multiplier=2))(inp)
    x = layers.TimeDistributed(layers.Conv2D(3, 2))(x)
    x = layers.TimeDistributed(layers.Flatten())(x)
    x = layers.TimeDistributed(layers.Dense(5))(x)
    x = layers.DepthwiseConv1D(2, depth_multiplier=2)(x)
    x = layers.SeparableConv1D(3, 2, padding="same")(x)
    x = layers.Cropping1D((1, 0))(layers.ZeroPadding1D(1)(x))
    return keras.Model(inp, layers.RepeatVector(2)(layers.Flatten()(layers.UpSampling1D(2)(x))))


def test_weights_files_have_the_layout_keras_writes_and_models_round_trip(tmp_path):
    h5py = pytest.importorskip("h5py")
    model = _file_model()
    path = str(tmp_path / "m.weights.h5")
    model.save_weights(path)
    found = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda name, obj: found.update({name: obj.shape}) if isinstance(obj, h5py.Dataset) else None)
    assert found == KERAS_H5_DATASETS
    x = _rand(2, 4, 7, 7, 2)
    expected = model.predict(x, verbose=0)
    again = _file_model()
    again.load_weights(path)
    np.testing.assert_allclose(again.predict(x, verbose=0), expected, atol=1e-6)
    archive = str(tmp_path / "m.keras")
    model.save(archive)
    loaded = keras.models.load_model(archive)
    np.testing.assert_allclose(loaded.predict(x, verbose=0), expected, atol=1e-6)
    assert isinstance(loaded.layers[1], layers.TimeDistributed)
