"""Ops whose NumPy impl fused CPU kernels write out as ufunc calls (``OpDef.host_steps``:
sigmoid, relu): the calls give the impl's bits, and fused kernels that inline them give
eager's bits, in one pass and in blocks, with the step's input still read afterwards and
with scratch buffers reused."""

import functools

import ml_dtypes
import numpy as np
import pytest

import tfunc as tf
from tfunc.backend.numpy import fusion
from tfunc.ops.registry import REGISTRY

WITH_STEPS = sorted(name for name, op in REGISTRY.items() if op.host_steps is not None)


def _run_steps(steps, x):
    """The calls as a fused kernel makes them, one buffer per role."""
    o, t = np.empty_like(x), np.empty_like(x)
    bufs = {"x": x, "o": o, "t": t}
    for name, operands, into in steps:
        args = [bufs[a] if isinstance(a, str) else a for a in operands]
        getattr(np, name)(*args, out=bufs[into])
    return o


def _special(dt, n):
    x = (np.random.default_rng(0).standard_normal(n) * 30).astype(dt)
    if np.dtype(dt).kind == "f" or dt == ml_dtypes.bfloat16:
        special = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 40, 41, -88, 1e-30]).astype(dt)
        x[: min(n, 9)] = special[:n]
    return x


def _raised(fn, *args):
    try:
        with np.errstate(all="raise"):
            fn(*args)
    except FloatingPointError as e:
        return str(e)
    return None


def _bits(a):
    return a.view(f"u{a.dtype.itemsize}")


def test_the_ops_with_host_steps():
    assert WITH_STEPS == ["relu", "sigmoid"]


@pytest.mark.parametrize("name", WITH_STEPS)
@pytest.mark.parametrize(
    "dt", [np.float32, np.float64, np.float16, ml_dtypes.bfloat16, np.int32, np.int64, np.int8, np.uint8]
)
def test_host_steps_give_the_impls_bits(name, dt):
    op = REGISTRY[name]
    steps = op.host_steps(np.dtype(dt))
    if steps is None:  # the impl has no single ufunc form for this dtype (sigmoid of float16)
        assert name == "sigmoid" and np.dtype(dt) not in (np.float32, np.float64)
        return
    if np.dtype(dt).kind in "iu" and name == "sigmoid":
        pytest.skip("sigmoid takes floats")
    for n in (1, 7, 8192 + 5):  # a one-element constant is widened by the impl from 8192 elements on
        x = _special(dt, n)
        # the same floating-point errors: neither raises where the other would not
        impl = op.kernel(np)
        assert _raised(impl, np, x.copy()) == _raised(_run_steps, steps, x.copy())
        with np.errstate(all="ignore"):
            want = op.kernel(np)(np, x.copy())
            got = _run_steps(steps, x.copy())
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(_bits(got), _bits(want))


@pytest.mark.parametrize("n", [1, 100, 8192 + 3, fusion.BLOCK_MIN + 1001])  # small, widened, blocked
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_fused_kernels_inlining_the_steps_match_eager(n, dt):
    x = _special(dt, n)

    def fn(x):
        a = tf.sigmoid(x * 0.5)  # steps in the middle of a chain
        b = tf.nn.relu(x - 1.0) + x  # the group's input read again after the step
        c = tf.sigmoid(tf.sigmoid(a + b))  # scratch buffers taken and given back twice
        return a, c, tf.nn.relu(c - 0.5) * tf.sigmoid(x)

    eager = [t.numpy() for t in fn(tf.constant(x))]
    traced_fn = tf.function(fn)
    traced = [t.numpy() for t in traced_fn(tf.constant(x))]
    cf = traced_fn.get_concrete_function(tf.constant(x))
    assert "fused_elementwise" in str(cf.optimized_graph)
    kernels = [k for k in cf.plan.fn.__defaults__ if hasattr(k, "source")]
    assert kernels and all(  # the impls are not called: their ufunc calls are written out
        not isinstance(bound, functools.partial) for k in kernels for bound in k.__defaults__
    )
    for e, t in zip(eager, traced):
        np.testing.assert_array_equal(_bits(t), _bits(e))


def test_relu_of_integers_inlined_matches_eager():
    x = np.arange(-50_000, 150_000, dtype=np.int32)  # blocked
    fn = tf.function(lambda x: tf.nn.relu(x * 3) + 1)
    np.testing.assert_array_equal(fn(tf.constant(x)).numpy(), np.maximum(x * 3, 0) + 1)


def test_relu_of_bfloat16_inlined_matches_eager():
    # relu's constant is a 0-d bfloat16 array among the steps' operands (never compared with
    # the role names)
    x = tf.cast(tf.constant(np.linspace(-3, 3, 101, dtype=np.float32)), tf.bfloat16)
    fn = tf.function(lambda x: tf.nn.relu(x) * 2)
    np.testing.assert_array_equal(fn(x).numpy().astype(np.float32), (tf.nn.relu(x) * 2).numpy().astype(np.float32))
