"""Fused CPU kernels that differ only in their static shape share generated code, each with
its own shape and size bound (``backend/numpy/fusion.py``: ``build_cpu_kernel``)."""

import numpy as np
import pytest

import tfunc as tf
from tfunc.backend.numpy import fusion
from tfunc.backend.numpy.fusion import BLOCK_MIN, build_cpu_kernel
from tfunc.core.specs import Spec
from tfunc.optimize.facts import SMALL
from tfunc.optimize.fused_reference import interpret


def chain_attrs(shape, dtype=tf.float32, name_attrs=None):
    s = Spec(shape, dtype)
    scalar = Spec((), dtype)
    return {
        "steps": (
            ("multiply", (("in", 0), ("in", 1)), {}, s),
            ("tanh", (("s", 0),), {}, s),
            ("maximum", (("s", 1), ("in", 1)), {}, s),
            ("add", (("s", 2), ("in", 0)), name_attrs or {}, s),
        ),
        "outputs": (3,),
        "out_specs": (s,),
        "reduce": None,
        "in_specs": (s, scalar),
    }


def check(kernel, attrs, shape, seed=0):
    x = np.random.default_rng(seed).uniform(-2, 2, size=shape).astype(np.float32)
    c = np.float32(0.3)
    got = kernel(x, c)
    want = interpret(np, x, c, **attrs)[0]
    assert got.shape == tuple(shape)
    np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.fixture(autouse=True)
def fresh_cache():
    fusion._KERNELS.clear()
    yield
    fusion._KERNELS.clear()


@pytest.fixture
def builds(monkeypatch):
    """How many kernels were generated from scratch (a reused one is not)."""
    count = [0]
    real = fusion._build_cpu_kernel

    def counting(*args):
        count[0] += 1
        return real(*args)

    monkeypatch.setattr(fusion, "_build_cpu_kernel", counting)
    return count


def test_a_new_static_shape_reuses_the_code_with_its_own_shape(builds):
    a3, a5 = chain_attrs((3,)), chain_attrs((5, 7))
    k3 = build_cpu_kernel(a3)
    k5 = build_cpu_kernel(a5)
    assert builds[0] == 1  # generated once, rebound for (5, 7)
    assert k5.__code__ is k3.__code__ and k5 is not k3
    assert (3,) in k3.__defaults__ and (5, 7) in k5.__defaults__
    check(k5, a5, (5, 7))
    check(k3, a3, (3,))  # the first kernel keeps its own shape


def test_crossing_the_blocked_size_is_other_code(builds):
    small, big = chain_attrs((5,)), chain_attrs((BLOCK_MIN + 3,))
    ks, kb = build_cpu_kernel(small), build_cpu_kernel(big)
    assert kb.__code__ is not ks.__code__ and builds[0] == 2
    kb2 = build_cpu_kernel(chain_attrs((BLOCK_MIN + 11,)))  # same class: the size is rebound
    assert builds[0] == 2
    assert kb2.__code__ is kb.__code__ and BLOCK_MIN + 11 in kb2.__defaults__
    check(kb2, chain_attrs((BLOCK_MIN + 11,)), (BLOCK_MIN + 11,))


@pytest.mark.parametrize("shape", [(), (None,), (None, 4)])
def test_kernels_without_a_bound_shape_are_shared_as_they_are(shape):
    assert build_cpu_kernel(chain_attrs(shape)) is build_cpu_kernel(chain_attrs(shape))


def test_other_dtypes_and_names_are_other_kernels():
    key = fusion._reuse_key(chain_attrs((4,)), "fused")
    assert key == fusion._reuse_key(chain_attrs((6,)), "fused")
    assert key != fusion._reuse_key(chain_attrs((4,), tf.float64), "fused")
    assert key != fusion._reuse_key(chain_attrs((4,)), "fused_1")  # the name labels tracebacks


def test_attrs_without_a_value_key_are_never_reused():
    """A large array or an unhashable attr could only be keyed by identity, and a later
    object may take a dead one's id; a hashable object is keyed by itself (held by the key)."""
    assert fusion._reuse_key(chain_attrs((4,), name_attrs={"table": np.zeros(SMALL + 1)}), "fused") is None
    assert fusion._reuse_key(chain_attrs((4,), name_attrs={"ids": {1, 2}}), "fused") is None
    held = object()
    key = fusion._reuse_key(chain_attrs((4,), name_attrs={"callback": held}), "fused")
    assert key is not None and held in key[2][3][2][0][1]


def test_a_group_led_by_a_product_is_not_reused():
    s = Spec((2, 3), tf.float32)
    attrs = {
        "steps": (
            ("matmul", (("in", 0), ("in", 1)), {"transpose_a": False, "transpose_b": False}, s),
            ("tanh", (("s", 0),), {}, s),
        ),
        "outputs": (1,),
        "out_specs": (s,),
        "reduce": None,
        "in_specs": (Spec((2, 4), tf.float32), Spec((4, 3), tf.float32)),
    }
    assert fusion._reuse_key(attrs, "fused") is None


def test_a_kernel_registered_later_is_not_hidden_by_a_reused_one(monkeypatch):
    from tfunc.ops.registry import REGISTRY

    attrs = chain_attrs((3,))
    build_cpu_kernel(attrs)
    monkeypatch.setattr(REGISTRY["tanh"], "ufunc", "negative")  # what the step's callable comes from
    x = np.array([0.5, -1.0, 2.0], np.float32)
    got = build_cpu_kernel(chain_attrs((4,)))(np.append(x, 1.0).astype(np.float32), np.float32(0.3))
    want = np.maximum(-(np.append(x, 1.0) * 0.3), 0.3) + np.append(x, 1.0)
    np.testing.assert_allclose(got, want.astype(np.float32), rtol=1e-6)


def test_a_retraced_function_builds_one_kernel_code(builds):
    f = tf.function(lambda x: tf.tanh(x * 0.5) + x)
    codes = set()
    for n in (3, 4, 9):
        x = np.linspace(-1, 1, n).astype(np.float32)
        np.testing.assert_allclose(f(tf.constant(x)).numpy(), np.tanh(x * 0.5) + x, rtol=1e-6)
        codes.add(f.get_concrete_function(tf.constant(x)).plan.fn.__defaults__[-1].__code__)
    assert len(codes) == 1 and builds[0] == 1
