"""Names the Keras guides use: Conv1D, MaxPooling1D/AveragePooling1D, UpSampling2D, the merge
functions, and Layer.input/.output in a functional model. Expected values: Keras 3.15's numbers,
or NumPy formulas for the same computation."""

import numpy as np
import pytest

import tfunc as tf
from tfunc import keras
from tfunc.keras import layers as L

X = ((np.arange(2 * 7 * 3, dtype=np.float32).reshape(2, 7, 3) % 5 - 2.0) / 3.0).astype(np.float32)


def _kinit(shape, dtype=None):
    return tf.constant((np.arange(np.prod(shape), dtype=np.float32).reshape(shape) % 7 - 3.0) / 5.0)


def _np_conv1d(x, k, b, stride, dilation, padding):
    n, steps, _ = x.shape
    span = dilation * (k.shape[0] - 1) + 1
    if padding == "causal":
        x = np.pad(x, [(0, 0), (span - 1, 0), (0, 0)])
    elif padding == "same":
        out_len = -(-steps // stride)
        total = max((out_len - 1) * stride + span - steps, 0)
        x = np.pad(x, [(0, 0), (total // 2, total - total // 2), (0, 0)])
    starts = range(0, x.shape[1] - span + 1, stride)
    return np.stack([np.einsum("ntc,tcf->nf", x[:, s : s + span : dilation], k) for s in starts], axis=1) + b


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"padding": "same"},
        {"padding": "causal"},
        {"strides": 2},
        {"padding": "same", "strides": 2},
        {"dilation_rate": 2, "padding": "causal"},
        {"dilation_rate": 2},
        {"padding": "causal", "strides": 3},
    ],
)
def test_conv1d(kw):
    conv = L.Conv1D(2, 3, kernel_initializer=_kinit, bias_initializer="ones", **kw)
    y = np.asarray(conv(X))
    assert conv.kernel.shape == (3, 3, 2)
    expected = _np_conv1d(
        X, np.asarray(conv.kernel), 1.0, kw.get("strides", 1), kw.get("dilation_rate", 1), kw.get("padding", "valid")
    )
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-6)
    assert tuple(conv.compute_output_shape((2, 7, 3))) == expected.shape
    np.testing.assert_allclose(tf.function(conv)(X), expected, rtol=1e-5, atol=1e-6)


def test_conv1d_keras_numbers_and_gradient():
    causal = L.Conv1D(2, 3, padding="causal", kernel_initializer=_kinit, bias_initializer="ones")
    np.testing.assert_allclose(np.asarray(causal(X))[0, :3].ravel(), [0.93333, 0.73333, 0.6, 1.4, 1.2, 0.6], rtol=1e-4)
    inp = keras.Input((7, 3))
    conv = L.Conv1D(4, 3, padding="causal", kernel_initializer=_kinit)
    out = L.GlobalAveragePooling1D()(L.MaxPooling1D()(conv(inp)))
    model = keras.Model(inp, out)
    assert [tuple(layer.output.shape) for layer in model.layers] == [
        (None, 7, 3),
        (None, 7, 4),
        (None, 3, 4),
        (None, 4),
    ]

    def grads():
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(model(X)))
        return tape.gradient(loss, model.trainable_weights)

    for g in (grads(), tf.function(grads)()):  # Keras 3.15's gradients
        np.testing.assert_allclose(
            np.asarray(g[0]).ravel()[:6], [-0.13333, -0.72593, -0.1037, 0.36543, 0.1037, -0.24198], atol=2e-5
        )
        np.testing.assert_allclose(np.asarray(g[1]), [1.06667, 2.17778, 0.66667, 1.37778], atol=2e-5)


def _np_pool1d(x, size, stride, padding, reduce):
    steps = x.shape[1]
    if padding == "same":
        out_len = -(-steps // stride)
        total = max((out_len - 1) * stride + size - steps, 0)
        lo = total // 2
    else:
        out_len, lo = (steps - size) // stride + 1, 0
    out = []
    for i in range(out_len):
        a = max(i * stride - lo, 0)
        out.append(reduce(x[:, a : min(i * stride - lo + size, steps)], axis=1))
    return np.stack(out, axis=1)


@pytest.mark.parametrize("cls,reduce", [(L.MaxPooling1D, np.max), (L.AveragePooling1D, np.mean)])
@pytest.mark.parametrize(
    "kw",
    [
        {"pool_size": 2},
        {"pool_size": 3},
        {"pool_size": 3, "strides": 2, "padding": "same"},
        {"pool_size": 2, "strides": 1},
    ],
)
def test_pooling1d(cls, reduce, kw):
    pool = cls(**kw)
    expected = _np_pool1d(X, kw["pool_size"], kw.get("strides", kw["pool_size"]), kw.get("padding", "valid"), reduce)
    np.testing.assert_allclose(pool(X), expected, rtol=1e-6)
    np.testing.assert_allclose(tf.function(pool)(X), expected, rtol=1e-6)
    assert tuple(pool.compute_output_shape((2, 7, 3))) == expected.shape


def test_pooling1d_defaults_as_keras():
    assert L.MaxPooling1D().pool_size == (2,) and L.MaxPool1D is L.MaxPooling1D
    with pytest.raises(TypeError):
        L.AveragePooling1D()  # Keras 3 has no default pool_size here


IMG = ((np.arange(2 * 3 * 4 * 2, dtype=np.float32).reshape(2, 3, 4, 2) % 7) / 7.0).astype(np.float32)


@pytest.mark.parametrize("size", [2, (3, 2)])
def test_upsampling2d_nearest(size):
    up = L.UpSampling2D(size=size)
    sh, sw = (size, size) if isinstance(size, int) else size
    expected = np.repeat(np.repeat(IMG, sh, axis=1), sw, axis=2)
    np.testing.assert_array_equal(up(IMG), expected)
    np.testing.assert_array_equal(tf.function(up)(IMG), expected)
    assert tuple(up.compute_output_shape((2, 3, 4, 2))) == expected.shape


def test_upsampling2d_bilinear_keras_numbers():
    up = L.UpSampling2D(size=2, interpolation="bilinear")
    # Keras 3.15: the first row of image 1, channel 1
    expected_row = [0.57143, 0.64286, 0.78571, 0.67857, 0.32143, 0.21429, 0.35714, 0.42857]
    for y in (up(IMG), tf.function(up)(IMG)):
        assert y.shape == (2, 6, 8, 2)
        np.testing.assert_allclose(np.asarray(y)[1, 0, :, 1], expected_row, atol=2e-5)


def test_merge_functions():
    x1 = np.array([[1.0, 5.0], [3.0, 2.0]], np.float32)
    x2 = np.array([[2.0, 4.0], [3.0, 7.0]], np.float32)
    expected = {
        "subtract": x1 - x2,
        "average": (x1 + x2) / 2,
        "maximum": np.maximum(x1, x2),
        "minimum": np.minimum(x1, x2),
    }
    a, b = keras.Input((2,)), keras.Input((2,))
    for name, value in expected.items():
        fn = getattr(L, name)
        np.testing.assert_array_equal(fn([tf.constant(x1), tf.constant(x2)]), value)
        model = keras.Model([a, b], fn([a, b]))
        np.testing.assert_array_equal(model([x1, x2]), value)
        np.testing.assert_array_equal(tf.function(model)([x1, x2]), value)


def test_layer_input_and_output_of_first_call():
    a, b = keras.Input((3,), name="a"), keras.Input((3,), name="b")
    dense = L.Dense(2)
    h, h2 = dense(a), dense(b)
    add = L.Add()
    s = add([h, h2])
    model = keras.Model([a, b], s)
    assert dense.input is a and dense.output is h  # the first call
    assert add.input == [h, h2] and add.output is s
    assert model.layers[0].output is a and model.layers[0].input == []
    # feature extraction, as the functional API guide does it
    features = keras.Model(model.inputs, [layer.output for layer in model.layers])
    ones = np.ones((1, 3), np.float32)
    assert [tuple(o.shape) for o in features([ones, ones])] == [(1, 3), (1, 3), (1, 2), (1, 2)]
    for layer in (L.Dense(1), L.Dense(1)):
        layer(ones)  # an eager call records no node
        with pytest.raises(AttributeError, match="has never been called and thus has no defined output"):
            _ = layer.output
        with pytest.raises(AttributeError, match="no defined input"):
            _ = layer.input
