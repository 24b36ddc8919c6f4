"""``tfunc.keras.ops`` (Keras 3's ``keras.ops``): dtypes against what Keras 3.15 computes
(``fixtures/keras_ops_dtypes.json``, written by ``make_keras_ops_dtypes.py``), values against
NumPy, eagerly and inside ``tf.function``."""

import json
import os

import numpy as np
import pytest

import tfunc as tf
from tfunc.keras import ops

with open(os.path.join(os.path.dirname(__file__), "fixtures", "keras_ops_dtypes.json")) as f:
    KERAS = json.load(f)

WEAK = {"int": 1, "float": 1.5}
PY = {"int": int, "float": float}
rng = np.random.RandomState(3)
F32 = rng.randn(3, 4).astype(np.float32)
I32 = rng.randint(-5, 6, (3, 4)).astype(np.int32)


def _operand(kind):
    if kind in WEAK:
        return WEAK[kind]
    if kind == "bool":
        return np.arange(9).reshape(3, 3) % 2 == 0
    return (np.arange(9).reshape(3, 3) + 1).astype(kind)


@pytest.mark.parametrize("pair", sorted(KERAS["result_type"]))
def test_result_type_is_keras_lattice(pair):
    a, b = pair.split(",")
    assert ops.result_type(PY.get(a, a), PY.get(b, b)).name == KERAS["result_type"][pair]


@pytest.mark.parametrize("call", KERAS["calls"], ids=lambda c: f"{c['fn']}({','.join(c['args'])})")
def test_result_dtypes_are_keras(call):
    args = [_operand(k) for k in call["args"]]
    fn = getattr(ops, call["fn"])
    assert fn(*args, **call["kwargs"]).dtype.name == call["dtype"]
    tensors = [tf.constant(a) if isinstance(a, np.ndarray) else a for a in args]
    assert tf.function(lambda *t: fn(*t, **call["kwargs"]))(*tensors).dtype.name == call["dtype"]


def both(fn, *args):
    """``fn`` eagerly and traced (array arguments as tensors); the two must agree."""
    eager = fn(*args)
    traced = tf.function(lambda *t: fn(*t))(*[tf.constant(a) if isinstance(a, np.ndarray) else a for a in args])
    for e, t in zip(tf.nest.flatten(eager), tf.nest.flatten(traced)):
        assert e.dtype == t.dtype and e.shape == t.shape
        np.testing.assert_allclose(np.asarray(e), np.asarray(t), rtol=1e-6, atol=1e-6)
    return eager


NUMPY_CASES = [
    ("sum axis", lambda o, x: o.sum(x, axis=1), lambda x: x.sum(1), F32),
    ("mean keepdims", lambda o, x: o.mean(x, axis=0, keepdims=True), lambda x: x.mean(0, keepdims=True), F32),
    ("max all", lambda o, x: o.max(x), np.max, F32),
    ("argmax flat", lambda o, x: o.argmax(x), np.argmax, F32),
    ("argmin axis", lambda o, x: o.argmin(x, axis=1), lambda x: x.argmin(1), F32),
    ("std", lambda o, x: o.std(x, axis=0), lambda x: x.std(0), F32),
    ("var", lambda o, x: o.var(x), np.var, F32),
    ("cumsum flat", lambda o, x: o.cumsum(x), np.cumsum, I32),
    ("cumprod axis", lambda o, x: o.cumprod(x, axis=1), lambda x: x.cumprod(1), F32),
    ("clip", lambda o, x: o.clip(x, -0.5, 0.5), lambda x: np.clip(x, -0.5, 0.5), F32),
    ("round decimals", lambda o, x: o.round(x * 10, 1), lambda x: np.round(x * 10, 1), F32),
    ("split sections", lambda o, x: o.split(x, [1, 3], axis=1), lambda x: np.split(x, [1, 3], axis=1), F32),
    ("array_split", lambda o, x: o.array_split(x, 3, axis=1), lambda x: np.array_split(x, 3, axis=1), F32),
    ("tile", lambda o, x: o.tile(x, (2, 1, 1)), lambda x: np.tile(x, (2, 1, 1)), F32),
    ("repeat", lambda o, x: o.repeat(x, 2, axis=1), lambda x: np.repeat(x, 2, axis=1), F32),
    ("flip", lambda o, x: o.flip(x), np.flip, F32),
    ("roll flat", lambda o, x: o.roll(x, 5), lambda x: np.roll(x, 5), F32),
    ("moveaxis", lambda o, x: o.moveaxis(x, 0, -1), lambda x: np.moveaxis(x, 0, -1), F32),
    ("pad reflect", lambda o, x: o.pad(x, 1, mode="reflect"), lambda x: np.pad(x, 1, mode="reflect"), F32),
    ("take negative", lambda o, x: o.take(x, np.array([0, -1]), axis=1), lambda x: np.take(x, [0, -1], axis=1), F32),
    (
        "take_along_axis",
        lambda o, x: o.take_along_axis(x, np.argsort(F32, 1)[:, :2], axis=1),
        lambda x: np.take_along_axis(x, np.argsort(F32, 1)[:, :2], axis=1),
        F32,
    ),
    ("argsort", lambda o, x: o.argsort(x, axis=0), lambda x: np.argsort(x, axis=0, kind="stable"), I32),
    ("diagonal offset", lambda o, x: o.diagonal(x, 1), lambda x: np.diagonal(x, 1), F32),
    ("diagonal negative", lambda o, x: o.diagonal(x, -1), lambda x: np.diagonal(x, -1), F32),
    ("diag vector", lambda o, x: o.diag(x[0], -1), lambda x: np.diag(x[0], -1), F32),
    ("trace", lambda o, x: o.trace(x, 1), lambda x: np.trace(x, 1), I32),
    ("tril", lambda o, x: o.tril(x, -1), lambda x: np.tril(x, -1), F32),
    ("triu", lambda o, x: o.triu(x, 1), lambda x: np.triu(x, 1), F32),
    ("outer", lambda o, x: o.outer(x[0], x[1]), lambda x: np.outer(x[0], x[1]), F32),
    ("dot", lambda o, x: o.dot(x, x.T if isinstance(x, np.ndarray) else o.transpose(x)), lambda x: x @ x.T, F32),
    (
        "tensordot",
        lambda o, x: o.tensordot(x, x, ((0, 1), (0, 1))),
        lambda x: np.tensordot(x, x, ((0, 1), (0, 1))),
        F32,
    ),
    ("hypot", lambda o, x: o.hypot(x, 2.0), lambda x: np.hypot(x, np.float32(2.0)), F32),
    ("logaddexp", lambda o, x: o.logaddexp(x, 0.5), lambda x: np.logaddexp(x, np.float32(0.5)), F32),
    ("mod", lambda o, x: o.mod(x, 3), lambda x: np.mod(x, 3), I32),
    ("fmod", lambda o, x: o.fmod(x, 3), lambda x: np.fmod(x, 3), I32),
    ("nonzero", lambda o, x: o.nonzero(x), np.nonzero, I32),
]


@pytest.mark.parametrize("name,fn,ref,x", NUMPY_CASES, ids=[c[0] for c in NUMPY_CASES])
def test_numpy_functions_match_numpy(name, fn, ref, x):
    out = both(lambda t: fn(ops, t), x)
    expected = ref(x)
    for got, want in zip(tf.nest.flatten(out), tf.nest.flatten(expected)):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-6)


def test_creation_functions():
    np.testing.assert_array_equal(ops.arange(1, 7, 2), [1, 3, 5])
    assert ops.arange(0, 3, 0.5).dtype == tf.float32 and ops.arange(5).dtype == tf.int32
    np.testing.assert_allclose(ops.linspace(0, 1, 5), np.linspace(0, 1, 5), atol=1e-7)
    np.testing.assert_allclose(ops.linspace(0, 1, 4, endpoint=False), np.linspace(0, 1, 4, endpoint=False))
    np.testing.assert_array_equal(ops.eye(3, 4, 1), np.eye(3, 4, 1))
    np.testing.assert_array_equal(ops.tri(3, 4, -1), np.tri(3, 4, -1))
    assert ops.full((2,), 1).dtype == tf.float32  # floatx, whatever the value
    np.testing.assert_array_equal(ops.full_like(I32, 7), np.full_like(I32, 7))


def test_shape_is_a_tuple_with_run_time_dimensions():
    assert ops.shape(F32) == (3, 4) and ops.ndim(F32) == 2 and int(ops.size(F32)) == 12

    @tf.function(input_signature=[tf.TensorSpec([None, 4])])
    def f(x):
        rows, cols = ops.shape(x)
        assert cols == 4 and tf.is_tensor(rows)
        return rows

    assert int(f(tf.zeros([5, 4]))) == 5


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def test_nn_functions():
    x = F32
    np.testing.assert_allclose(both(ops.softmax, x), np.exp(x) / np.exp(x).sum(-1, keepdims=True), rtol=1e-5)
    whole = both(lambda t: ops.softmax(t, axis=None), x)
    np.testing.assert_allclose(whole, np.exp(x) / np.exp(x).sum(), rtol=1e-5)
    np.testing.assert_allclose(
        both(ops.gelu, x), 0.5 * x * (1 + np.tanh(0.7978845608 * (x + 0.044715 * x**3))), atol=1e-6
    )
    assert ops.relu(I32).dtype == tf.int32  # integers stay integers
    np.testing.assert_array_equal(ops.relu6(I32 * 3), np.clip(I32 * 3, 0, 6))
    target = (x > 0).astype(np.float32)
    np.testing.assert_allclose(
        both(lambda t: ops.binary_crossentropy(target, t, from_logits=True), x),
        -(target * np.log(_sigmoid(x)) + (1 - target) * np.log(1 - _sigmoid(x))),
        rtol=1e-5,
    )
    labels = np.array([0, 2, 1])
    log_p = x - np.log(np.exp(x).sum(-1, keepdims=True))
    np.testing.assert_allclose(
        both(lambda t: ops.sparse_categorical_crossentropy(labels, t, from_logits=True), x),
        -log_p[np.arange(3), labels],
        rtol=1e-5,
    )
    np.testing.assert_array_equal(ops.multi_hot(np.array([[0, 2], [1, 1]]), 3), [[1, 0, 1], [0, 1, 0]])
    mean, variance = ops.moments(x, [0])
    np.testing.assert_allclose(mean, x.mean(0), rtol=1e-5)
    np.testing.assert_allclose(variance, x.var(0), rtol=1e-5)
    np.testing.assert_allclose(ops.normalize(x), x / np.linalg.norm(x, axis=-1, keepdims=True), rtol=1e-5)


def test_convolution_and_pooling_take_keras_layouts():
    img = rng.randn(2, 7, 6, 3).astype(np.float32)
    kernel = rng.randn(3, 3, 3, 4).astype(np.float32)
    expected = tf.nn.conv2d(img, kernel, 1, "SAME").numpy()
    np.testing.assert_allclose(both(lambda t: ops.conv(t, kernel, padding="same"), img), expected, rtol=1e-4, atol=1e-5)
    first = np.transpose(img, (0, 3, 1, 2))
    out = ops.conv(first, kernel, padding="same", data_format="channels_first")
    np.testing.assert_allclose(np.transpose(out, (0, 2, 3, 1)), expected, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ops.max_pool(img, 2), tf.nn.max_pool2d(img, 2, 2, "VALID"))


def test_control_flow():
    assert int(ops.fori_loop(0, 5, lambda i, v: v + i, 0)) == 10
    i, total = ops.while_loop(lambda i, s: i < 5, lambda i, s: (i + 1, s + i), (0, 0))
    assert (int(i), int(total)) == (5, 10)
    carry, ys = ops.scan(lambda c, x: (c + x, c * x), 0.0, np.arange(5.0, dtype=np.float32))
    assert float(carry) == 10.0
    np.testing.assert_array_equal(ys, [0, 0, 2, 9, 24])  # x times the sum before it
    np.testing.assert_array_equal(ops.switch(5, [lambda v: v + 1, lambda v: v * 10], np.ones(2)), [10, 10])  # clamped
    np.testing.assert_array_equal(
        ops.slice_update(np.zeros((3, 3)), (1, 1), np.ones((2, 2))), np.pad(np.ones((2, 2)), ((1, 0), (1, 0)))
    )


def test_linalg_uses_numpys_conventions():
    a = rng.randn(4, 4).astype(np.float32) + 4 * np.eye(4, dtype=np.float32)
    u, s, vh = ops.svd(a)
    np.testing.assert_allclose((np.asarray(u) * np.asarray(s)) @ np.asarray(vh), a, atol=1e-4)
    np.testing.assert_allclose(ops.norm(a), np.linalg.norm(a), rtol=1e-5)
    np.testing.assert_allclose(ops.norm(a, ord=1, axis=0), np.linalg.norm(a, 1, axis=0), rtol=1e-5)
    spd = a @ a.T
    upper = ops.cholesky(spd, upper=True).numpy()
    np.testing.assert_allclose(upper.T @ upper, spd, rtol=1e-4)


def test_linalg_and_math_additions():
    a = rng.randn(4, 3).astype(np.float32)
    b = rng.randn(4, 2).astype(np.float32)
    np.testing.assert_allclose(ops.lstsq(a, b), np.linalg.lstsq(a, b, rcond=None)[0], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ops.lstsq(a, b[:, 0]), np.linalg.lstsq(a, b[:, 0], rcond=None)[0], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ops.pinv(a), np.linalg.pinv(a), rtol=1e-4, atol=1e-5)
    assert int(ops.matrix_rank(a @ a.T)) == 3
    sign, logdet = ops.slogdet(a.T @ a)
    np.testing.assert_allclose([float(sign), float(logdet)], np.linalg.slogdet(a.T @ a), rtol=1e-5)
    values, vectors = ops.eigh(a.T @ a)
    np.testing.assert_allclose(values, np.linalg.eigvalsh(a.T @ a), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(vectors) * np.asarray(values) @ np.asarray(vectors).T, a.T @ a, atol=1e-4)
    np.testing.assert_allclose(ops.erfinv(np.array([0.0, 0.5], np.float32)), [0.0, 0.4769363], rtol=1e-6)
    assert ops.arccosh(np.array([1, 2])).dtype == tf.float32


def test_integer_products_follow_keras_and_do_not_overflow_python_numbers():
    # Python numbers are tensors first in Keras's products (int32, not uint8/int8), and
    # integers are multiplied in float32 then cast back (uint8 wraps: 200*200+... = 50009 -> 89)
    np.testing.assert_array_equal(ops.dot(np.array([200, 100, 3], np.uint8), 3), [600, 300, 9])
    np.testing.assert_array_equal(ops.inner(np.array([1, 1, 1], np.int8), 1000), [1000, 1000, 1000])
    row = np.array([[200, 100, 3]], np.uint8)
    assert int(ops.matmul(row, row.T)[0, 0]) == 50009 % 256
    out = ops.einsum("i,i->", np.array([100, 100], np.int8), np.array([2, 2], np.int8))
    assert out.dtype == tf.int32 and int(out) == 400
    np.testing.assert_allclose(ops.matmul(F32, F32[0]), F32 @ F32[0], rtol=1e-5)  # 1-D operand: a vector
    np.testing.assert_allclose(ops.matmul(F32[:, 0], F32), F32[:, 0] @ F32, rtol=1e-5)


def test_ops_on_keras_tensors_record_operations_keras_can_read(tmp_path):
    import json
    import zipfile

    keras = tf.keras
    keras.backend.clear_session()  # automatic names from zero (softmax, not softmax_3)
    inp = keras.Input((4,))
    x = keras.layers.Dense(3)(inp)
    y = ops.sum(ops.softmax(x, axis=-1), axis=-1, keepdims=True) + ops.mean(x, axis=1, keepdims=True)
    model = keras.Model(inp, ops.add(y, 1.0))
    data = rng.rand(5, 4).astype(np.float32)
    dense = model.layers[1](data).numpy()
    np.testing.assert_allclose(model(data), 1.0 + dense.mean(1, keepdims=True) + 1.0, rtol=1e-5)
    model.save(tmp_path / "m.keras")
    again = keras.models.load_model(tmp_path / "m.keras")
    np.testing.assert_allclose(again(data), model(data), rtol=1e-6)
    layers = json.loads(zipfile.ZipFile(tmp_path / "m.keras").read("config.json"))["config"]["layers"]
    written = {(entry["module"], entry["class_name"]): entry["config"] for entry in layers}
    # as Keras 3.15 writes them (Keras loads this archive)
    assert written[("keras.src.ops.nn", "Softmax")] == {"name": "softmax", "axis": -1}
    assert written[("keras.src.ops.numpy", "Sum")] == {"name": "sum", "axis": -1, "keepdims": True}
    assert written[("keras.src.ops.numpy", "Mean")] == {"name": "mean", "axis": 1, "keepdims": True}


def test_what_keras_accepts_beyond_numbers():
    # values as Keras 3.15 gives them
    flags = np.array([True, False, True])
    assert ops.abs(flags).dtype == tf.bool and ops.square(flags).dtype == tf.int32
    assert bool(ops.max(flags)) and not bool(ops.min(flags))
    np.testing.assert_array_equal(ops.sort(flags), [False, True, True])
    np.testing.assert_array_equal(ops.argsort(flags), [1, 0, 2])
    np.testing.assert_array_equal(ops.argsort(np.float32(3)), [0])
    np.testing.assert_array_equal(ops.full_like(np.zeros((2, 3)), np.arange(3.0)), [[0, 1, 2], [0, 1, 2]])
    np.testing.assert_array_equal(ops.segment_sum(np.arange(4.0), np.array([0, 0, 1, 1])), [1, 5])
    rows = ops.linspace(np.zeros(2), np.ones(2), 3, axis=-1)
    assert rows.dtype == tf.float64
    np.testing.assert_allclose(rows, [[0, 0.5, 1], [0, 0.5, 1]])
    pairs = ops.map(lambda xs: xs[0] + xs[1], (np.ones((3, 2)), np.ones((3, 2))))
    np.testing.assert_array_equal(pairs, np.full((3, 2), 2.0))
    assert float(ops.norm(np.eye(3), ord="nuc")) == pytest.approx(3.0)
    assert float(ops.norm(np.array([0.0, 1.0, 2.0]), ord=0)) == 2.0
    assert float(ops.norm(np.array([0.0, 1.0, -2.0]), ord=-np.inf)) == 0.0


def test_ops_from_shared_factories_record_their_own_operations(tmp_path):
    # min/argmin/cumsum come from factories whose inner functions share one name: each must
    # still be its own operation (Keras: Min, Argmin, Cumsum)
    import json
    import zipfile

    keras = tf.keras
    keras.backend.clear_session()
    inp = keras.Input((2, 2))
    outs = [ops.min(inp, axis=1), ops.argmin(inp, axis=-1), ops.cumsum(inp, axis=1)]
    model = keras.Model(inp, outs)
    x = np.array([[[1.0, 5.0], [3.0, 2.0]]], np.float32)
    low, where_low, running = model(x)
    np.testing.assert_array_equal(low, [[1, 2]])
    assert where_low.dtype == tf.int32
    np.testing.assert_array_equal(where_low, [[0, 1]])
    np.testing.assert_array_equal(running, [[[1, 5], [4, 7]]])
    model.save(tmp_path / "m.keras")
    layers = json.loads(zipfile.ZipFile(tmp_path / "m.keras").read("config.json"))["config"]["layers"]
    assert {"Min", "Argmin", "Cumsum"} <= {entry["class_name"] for entry in layers}
    again = keras.models.load_model(tmp_path / "m.keras")
    np.testing.assert_array_equal(again(x)[2], running)


def test_keras_tensor_operators_and_ops_promote_as_keras():
    keras = tf.keras
    i = keras.Input((3,), dtype="int32")
    f = keras.Input((3,), dtype="float32")
    model = keras.Model([i, f], [i / i, i + f, ops.multiply(i, 2.5), ops.concatenate([i, f]), ops.where(i > 1, f, 0.5)])
    ints, floats = np.array([[1, 2, 3]], np.int32), np.array([[0.5, 1.5, 2.5]], np.float32)
    ratio, total, scaled, joined, chosen = model([ints, floats])
    assert ratio.dtype == tf.float32 and total.dtype == tf.float32 and scaled.dtype == tf.float32
    np.testing.assert_allclose(scaled, [[2.5, 5.0, 7.5]])
    assert joined.dtype == tf.float32
    np.testing.assert_allclose(chosen, [[0.5, 1.5, 2.5]])
    squeezed = ops.squeeze(keras.Input((1, 3, 5)))
    assert tuple(squeezed.shape) == (None, 3, 5)  # a run-time dimension is taken as not 1, as Keras


def test_full_like_and_take_along_axis_with_run_time_dimensions():
    @tf.function(input_signature=[tf.TensorSpec([None, 3])])
    def f(x):
        order = ops.argsort(x, axis=1)
        return ops.full_like(x, np.arange(3.0)), ops.take_along_axis(x, order[:, :2], axis=1)

    x = np.array([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]], np.float32)
    filled, smallest = f(x)
    np.testing.assert_array_equal(filled, [[0, 1, 2], [0, 1, 2]])
    np.testing.assert_array_equal(smallest, [[1, 2], [0, 4]])
