"""``tf.image.resize`` with every method ('bicubic', 'area', 'lanczos3', 'lanczos5', 'gaussian',
'mitchellcubic', and antialiased 'bilinear'), its gradient, ``preserve_aspect_ratio`` and
``resize_with_pad`` against the values TensorFlow 2.21 gives (recorded in
``fixtures/resize_methods_tf_values.npz`` by ``fixtures/make_resize_methods_values.py``), eagerly
and inside ``tf.function``."""

import ast
import json
import os

import numpy as np
import pytest

import tfunc as tf

RECORD_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "resize_methods_tf_values.npz")


def _load():
    with np.load(RECORD_PATH) as f:
        values, index = f["values"], json.loads(str(f["index"]))
    return {
        key: values[offset : offset + int(np.prod(shape))].reshape(shape).astype(dtype)
        for key, (offset, shape, dtype) in index.items()
    }


RECORD = _load()
CASES = sorted({key.rsplit("/", 1)[0] for key in RECORD})
TOL = dict(rtol=1e-5, atol=1e-5)


def _cases(kind):
    return [c for c in CASES if c.startswith(kind + "|")]


def _run(fn, traced, *args):
    return (tf.function(fn) if traced else fn)(*args)


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("case", _cases("resize"))
def test_resize_and_gradient_match_tensorflow(case, traced):
    _, method, antialias, _, size = case.split("|")
    antialias, size = antialias == "True", ast.literal_eval(size)
    x = tf.constant(RECORD[case + "/x"])

    def resize(x):
        return tf.image.resize(x, size, method=method, antialias=antialias)

    y = _run(resize, traced, x)
    assert y.dtype == tf.float32
    np.testing.assert_allclose(y.numpy(), RECORD[case + "/y"], **TOL)
    if case + "/dx" not in RECORD:
        return
    dy = tf.constant(RECORD[case + "/dy"])

    def grad(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = resize(x)
        return tape.gradient(y, x, output_gradients=dy)

    np.testing.assert_allclose(_run(grad, traced, x).numpy(), RECORD[case + "/dx"], **TOL)


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("case", _cases("dtype"))
def test_integer_and_other_float_images(case, traced):
    """uint8, float16 and float64 images: float32 out, every method but nearest (TensorFlow's)."""
    _, method, antialias, _ = case.split("|")
    x = tf.constant(RECORD[case + "/x"])
    y = _run(lambda x: tf.image.resize(x, (4, 3), method=method, antialias=antialias == "True"), traced, x)
    assert y.dtype == (x.dtype if method == "nearest" else tf.float32)
    np.testing.assert_allclose(y.numpy(), RECORD[case + "/y"], **TOL)


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("case", _cases("aspect") + _cases("pad") + _cases("nan"))
def test_aspect_ratio_padding_and_nan_locality(case, traced):
    """preserve_aspect_ratio, resize_with_pad, and an image holding a NaN: TensorFlow's kernels
    read only their taps, so the NaN reaches the same outputs."""
    kind, method, antialias = case.split("|")
    antialias = antialias == "True"
    fns = {
        "aspect": lambda x: tf.image.resize(x, (5, 9), method, preserve_aspect_ratio=True, antialias=antialias),
        "pad": lambda x: tf.image.resize_with_pad(x, 9, 8, method=method, antialias=antialias),
        "nan": lambda x: tf.image.resize(x, (4, 23), method=method, antialias=antialias),
    }
    y = _run(fns[kind], traced, tf.constant(RECORD[case + "/x"]))
    np.testing.assert_allclose(y.numpy(), RECORD[case + "/y"], equal_nan=True, **TOL)


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
def test_same_size_nan_reach(traced):
    """At the same size, TensorFlow 2.21 copies for bilinear and area, but bicubic still reads its
    four taps and lanczos3 its seven (NaN outputs recorded from TensorFlow)."""
    x = np.ones((1, 1, 6, 1), np.float32)
    x[0, 0, 3, 0] = np.nan
    want = {
        "bicubic": [0, 1, 1, 1, 1, 0],
        "bilinear": [0, 0, 0, 1, 0, 0],
        "lanczos3": [1] * 6,
        "area": [0, 0, 0, 1, 0, 0],
    }
    for method, nans in want.items():
        y = _run(lambda x, method=method: tf.image.resize(x, (1, 6), method=method), traced, tf.constant(x))
        np.testing.assert_array_equal(np.isnan(y.numpy()[0, 0, :, 0]), np.array(nans, bool), err_msg=method)


def test_unknown_image_size_while_tracing():
    """The tap tables are built from the run-time sizes when the trace does not know them."""
    case = "resize|lanczos3|True|(2, 5, 7, 1)|(3, 11)"
    f = tf.function(
        lambda x: tf.image.resize(x, (3, 11), method="lanczos3", antialias=True),
        input_signature=[tf.TensorSpec([None, None, None, 1], tf.float32)],
    )
    np.testing.assert_allclose(f(tf.constant(RECORD[case + "/x"])).numpy(), RECORD[case + "/y"], **TOL)


def test_area_has_no_gradient():
    x = tf.ones([1, 4, 4, 1])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.image.resize(x, (2, 2), method="area")
    with pytest.raises(LookupError):
        tape.gradient(y, x)


def test_float64_gradient_flows_in_float64():
    """TensorFlow's ResizeBicubic returns a float64 gradient for float64 images; every
    differentiable method does in tfunc (TensorFlow's ScaleAndTranslateGrad refuses float64)."""
    x = tf.constant(np.random.default_rng(0).uniform(size=(1, 5, 4, 1)))
    for method in ("bicubic", "lanczos3", "mitchellcubic"):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.image.resize(x, (7, 3), method=method))
        g = tape.gradient(y, x)
        assert g.dtype == tf.float64
        # every output distributes weights summing to one over the inputs
        np.testing.assert_allclose(g.numpy().sum(), 7 * 3, rtol=1e-5)


def test_resize_errors():
    with pytest.raises(ValueError, match="Resize method is not implemented: cubic"):
        tf.image.resize(tf.ones([1, 2, 2, 1]), [4, 4], method="cubic")
    with pytest.raises(ValueError, match="3 or 4 dimensions"):
        tf.image.resize(tf.ones([2, 2]), [4, 4], method="lanczos3")
