"""tfunc/portable.py: the NumPy-only loader.  It imports nothing but NumPy and the standard
library; each op it implements agrees with tfunc's kernel on the op table's samples; it
runs exported models as tfunc does."""

import ast
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

import tfunc as tf
from tfunc import portable
from tfunc.ops.registry import REGISTRY
from tfunc.saved_model.save import _Encoder

from .saved_model import models

PORTABLE = Path(portable.__file__)


def test_imports_only_numpy_and_the_standard_library():
    tree = ast.parse(PORTABLE.read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "no relative imports: the file must work copied on its own"
            imported.add(node.module.split(".")[0])
    assert imported - set(sys.stdlib_module_names) == {"numpy"}
    for node in ast.walk(tree):  # nothing evaluated, imported or looked up by a name from a file
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            assert node.func.id not in ("eval", "exec", "compile", "__import__"), node.func.id
            if node.func.id in ("getattr", "setattr"):
                assert isinstance(node.args[1], ast.Constant), ast.unparse(node)


def test_every_op_of_the_table_is_a_tfunc_op():
    assert set(portable.OPS) <= set(REGISTRY)
    assert portable.SUPPORTED_OPS <= set(REGISTRY)


class _Hooks:
    depth = 0

    def dtype(self, name):
        return name

    def spec(self, shape, dtype):
        return (shape, dtype)

    def tensor(self, key, scalar):
        a = self.constants[key]
        return a[()] if scalar else a

    def strings(self, a):
        return a


def _portable_attrs(attrs):
    enc = _Encoder({})
    encoded = {k: enc.attr(v) for k, v in attrs.items()}
    hooks = _Hooks()
    hooks.constants = enc.constants
    return {k: portable.decode_attr(v, "test", k, hooks) for k, v in encoded.items()}


def _cases():
    rng = np.random.default_rng(7)
    for name in sorted(portable.OPS):
        op = REGISTRY[name]
        if op.samples is None:
            continue
        for i, sample in enumerate(op.samples(rng)):
            yield pytest.param(name, sample, id=f"{name}-{i}")


@pytest.mark.parametrize("name, sample", list(_cases()))
def test_op_agrees_with_tfunc_kernel(name, sample):
    op = REGISTRY[name]
    inputs = [np.asarray(x) if not isinstance(x, np.generic) else x for x in sample.inputs]
    try:
        want = op.impl(np, *inputs, **sample.attrs)
    except Exception as e:  # noqa: BLE001 - the loader must fail too, whatever tfunc raised
        with pytest.raises(Exception):  # noqa: B017
            portable.OPS[name](*inputs, **_portable_attrs(sample.attrs))
        pytest.skip(f"tfunc refuses this sample ({type(e).__name__})")
    got = portable.OPS[name](*inputs, **_portable_attrs(sample.attrs))
    want = want if isinstance(want, tuple) else (want,)
    got = got if isinstance(got, tuple) else (got,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, w.dtype, g.shape, w.shape)
        if w.dtype.kind == "f":
            np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-6, equal_nan=True)
        else:
            np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize(
    "name, inputs, attrs",
    [
        ("sigmoid", [np.array([-10.0, -12.0, 3.0], np.float16)], {}),
        ("reduce_sum", [np.ones(1000, np.float16)], {"axis": None, "keepdims": False}),
        ("reduce_mean", [np.full(5000, 30.0, np.float16)], {"axis": None, "keepdims": False}),
        ("reduce_mean", [np.array([2**60 + 1, 2**60 + 3], np.int64)], {"axis": None, "keepdims": False}),
        ("reduce_mean", [np.array([-(2**63), 0], np.int64)], {"axis": None, "keepdims": False}),
        ("reduce_logsumexp", [np.zeros(3000, np.float16)], {"axis": None, "keepdims": False}),
        ("softmax", [np.zeros(3000, np.float16)], {"axis": 0}),
        ("log_softmax", [np.zeros(3000, np.float16)], {"axis": 0}),
    ],
)
def test_edge_values_agree_with_tfunc_kernel(name, inputs, attrs):
    """Half-precision accumulation and 64-bit integer means, where a naive NumPy kernel differs."""
    want = np.asarray(REGISTRY[name].impl(np, *inputs, **attrs))
    with np.errstate(over="raise", divide="raise", invalid="raise"):  # quietly, as the kernel
        got = np.asarray(portable.OPS[name](*inputs, **_portable_attrs(attrs)))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    d = tmp_path_factory.mktemp("exports")
    mlp, cnn = models.MLP(), models.CNN()
    tf.saved_model.save(mlp, str(d / "mlp"))
    tf.saved_model.save(cnn, str(d / "cnn"))
    return mlp, cnn, d


def test_runs_an_exported_mlp_and_cnn(exported):
    mlp, cnn, d = exported
    x, images = models.mlp_input(7, seed=3), models.cnn_input(3, seed=4)
    m = portable.load(d / "mlp")
    out = m.signatures["serving_default"](x=x)
    np.testing.assert_allclose(out["probs"], mlp(x)["probs"].numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(out["classes"], mlp(x)["classes"].numpy())
    np.testing.assert_allclose(m(x)["probs"], out["probs"])
    assert sorted(m.variables) == ["hidden.bias", "hidden.kernel", "out.bias", "out.kernel"]
    c = portable.load(d / "cnn")
    np.testing.assert_allclose(
        c.signatures["serving_default"](images=images)["output_0"], cnn(images).numpy(), rtol=1e-4, atol=1e-5
    )
    with pytest.raises(TypeError, match="float32"):
        m(x.astype(np.float64))
    with pytest.raises(TypeError, match="shape"):
        m(x[:, :3])
    with pytest.raises(TypeError, match="keyword"):
        m.signatures["serving_default"](x)


def test_control_flow_defaults_and_variable_writes(tmp_path):
    class Counter(tf.Module):
        def __init__(self):
            super().__init__()
            self.total = tf.Variable(0.0)
            self.scale = tf.Variable([1.0, 2.0])

        @tf.function(input_signature=[tf.TensorSpec([2], tf.float32), tf.TensorSpec([], tf.int32)])
        def add(self, x, n):
            y = x
            i = tf.constant(0)
            while i < n:
                y = y * self.scale
                i += 1
            if tf.reduce_sum(y) > 10.0:
                y = -y
            self.total.assign_add(tf.reduce_sum(y))
            return y

        @tf.function
        def mode(self, x, training=False):
            return x * 2.0 if training else x

    c = Counter()
    c.mode(tf.constant([1.0]))
    c.mode(tf.constant([1.0]), training=True)
    tf.saved_model.save(c, str(tmp_path / "c"))
    m = portable.load(tmp_path / "c")
    np.testing.assert_allclose(m.add(np.array([1.0, 1.0], np.float32), np.int32(2)), [1.0, 4.0])
    np.testing.assert_allclose(m.add(np.array([3.0, 3.0], np.float32), 2), [-3.0, -12.0])
    assert m.variables["total"] == pytest.approx(-10.0)
    np.testing.assert_allclose(m.mode(np.array([3.0], np.float32)), [3.0])
    np.testing.assert_allclose(m.mode(np.array([3.0], np.float32), training=True), [6.0])


def test_unsupported_ops_fail_when_called(tmp_path):
    class Grad(tf.Module):
        def __init__(self):
            super().__init__()
            self.f = tf.Variable(tf.ones([2, 2, 1, 1]))

        @tf.function(input_signature=[tf.TensorSpec([1, 4, 4, 1], tf.float32)])
        def grad(self, x):
            with tf.GradientTape() as tape:
                y = tf.reduce_sum(tf.nn.conv2d(x, self.f, 1, "VALID"))
            return tape.gradient(y, self.f)

        @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
        def plain(self, x):
            return x + 1.0

    tf.saved_model.save(Grad(), str(tmp_path / "g"), signatures={})
    m = portable.load(tmp_path / "g")
    np.testing.assert_allclose(m.plain(np.zeros(2, np.float32)), [1.0, 1.0])
    with pytest.raises(portable.UnsupportedOpError, match="conv2d_backprop_filter"):
        m.grad(np.ones((1, 4, 4, 1), np.float32))


def test_damaged_files_raise_format_errors(exported, tmp_path):
    _, _, d = exported
    target = tmp_path / "mlp"
    shutil.copytree(d / "mlp", target)
    path = target / "saved_model.json"
    raw = path.read_bytes()
    path.write_bytes(raw[:-10])
    with pytest.raises(portable.FormatError, match=str(path)):
        portable.load(target)
    with pytest.raises(FileNotFoundError):
        portable.load(tmp_path / "nothing")


def test_tensor_files_are_safetensors_both_ways(tmp_path):
    """The reference safetensors implementation reads what tfunc writes, and the other way round."""
    import safetensors.numpy as st  # the test extra installs it

    arrays = {
        "a": np.arange(12, dtype=np.float32).reshape(3, 4),
        "b": np.array(7, np.int64),
        "c": np.zeros((0, 2), np.float64),
        "d": np.array([True, False]),
        "e": np.arange(6, dtype=np.uint8),
    }
    path, _, _ = portable.write_tensors(tmp_path / "ours.safetensors", arrays)
    theirs = st.load_file(path)
    assert set(theirs) == set(arrays)
    for k, v in arrays.items():
        assert theirs[k].dtype == v.dtype and theirs[k].shape == v.shape
        np.testing.assert_array_equal(theirs[k], v)
    st.save_file(arrays, str(tmp_path / "theirs.safetensors"))
    ours = portable.read_tensors(tmp_path / "theirs.safetensors")
    for k, v in arrays.items():
        assert ours[k].dtype == v.dtype and ours[k].shape == v.shape
        np.testing.assert_array_equal(ours[k], v)


def test_an_exported_assertion_runs_in_the_numpy_loader(tmp_path):
    class Checked(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None])])
        def __call__(self, v):
            tf.debugging.assert_positive(v, message="positive")
            return v * 2

    tf.saved_model.save(Checked(), str(tmp_path))
    m = portable.load(tmp_path)
    np.testing.assert_array_equal(m(np.array([1.0], np.float32)), [2.0])
    with pytest.raises(ValueError, match=r"positive\. .* x = \[-1.0\]"):
        m(np.array([-1.0], np.float32))


def test_splits_of_a_run_time_dimension(tmp_path):
    class Parts(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
        def __call__(self, x):
            head, rest = tf.split(x, [2, -1], axis=0)
            left, right = tf.split(x, 2, axis=1)
            return rest * 2.0, head + 0.0, left - right

    model = Parts()
    tf.saved_model.save(model, str(tmp_path / "parts"))
    loaded = portable.load(str(tmp_path / "parts"))
    x = np.arange(10, dtype=np.float32).reshape(5, 2)
    for got, want in zip(loaded(x), model(x)):
        np.testing.assert_array_equal(np.asarray(got), want.numpy())
