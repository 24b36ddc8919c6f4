"""bfloat16 (ml_dtypes) through every op that accepts it: the array really is bfloat16, and
the values agree with the same op in float32 on the same (rounded) inputs."""

import ml_dtypes
import numpy as np
import pytest

import tfunc as tf
from tfunc.core.errors import InvalidArgumentError
from tfunc.core.specs import Spec
from tfunc.eager.dispatch import call
from tfunc.eager.tensor import EagerTensor
from tfunc.ops.registry import all_ops
from tfunc.testing import on_backend

from .covered_elsewhere import COVERED_ELSEWHERE

BF16 = ml_dtypes.bfloat16
OPS = [
    op
    for op in all_ops()
    if op.samples is not None
    and op.kind not in ("control", "state", "io", "graph", "fused")
    and not op.random
    and op.name not in COVERED_ELSEWHERE
]


def _as(a, dtype):
    a = np.asarray(a)
    return a.astype(dtype) if a.dtype == np.float32 else a


def _run(op, arrays, attrs):
    out = call(op, [EagerTensor._make(a, tf.as_dtype(a.dtype)) for a in arrays], attrs)
    return out if isinstance(out, tuple) else (out,)


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.name)
def test_op_on_bfloat16_matches_float32(op):
    checked = 0
    with on_backend("numpy"):
        for s in op.samples(np.random.default_rng(7)):
            if not any(np.asarray(a).dtype == np.float32 for a in s.inputs):
                continue
            low = [_as(a, BF16) for a in s.inputs]
            try:
                specs = op.infer([Spec(a.shape, tf.as_dtype(a.dtype)) for a in low], s.attrs)
            except InvalidArgumentError:
                continue  # the op does not take bfloat16: a clear error, checked below for one op
            wide = [_as(a, np.float32) for a in low]  # the same rounded values, in float32
            got, ref = _run(op, low, s.attrs), _run(op, wide, s.attrs)
            for g, r, spec in zip(got, ref, specs):
                same = (
                    tf.as_dtype(g._value.dtype) is spec.dtype
                    if spec.dtype.is_string
                    else g._value.dtype == spec.dtype._np
                )
                assert same, f"{op.name} {s.note}: array {g._value.dtype}, spec {spec}"  # strings: any width
                gv, rv = np.asarray(g._value), np.asarray(r._value)
                if spec.dtype is tf.bfloat16:
                    gv, rv = gv.astype(np.float64), rv.astype(np.float64)
                    finite = np.abs(rv[np.isfinite(rv)])
                    scale = max(finite.max(initial=0.0), 1.0)
                    np.testing.assert_allclose(gv, rv, rtol=2e-2, atol=2e-2 * scale, err_msg=f"{op.name} {s.note}")
                else:
                    np.testing.assert_array_equal(gv, rv, err_msg=f"{op.name} {s.note}")
            checked += 1
    if not checked:
        pytest.skip(f"{op.name} takes no bfloat16 inputs")


def test_bfloat16_exists_and_casts():
    assert tf.bfloat16.name == "bfloat16" and tf.bfloat16.is_floating and tf.bfloat16.size == 2
    x = tf.cast(tf.constant([1.0, 2.5, 1e-3]), tf.bfloat16)
    assert x.dtype is tf.bfloat16 and x.numpy().dtype == BF16
    assert tf.cast(x, tf.float32).numpy().tolist() == [1.0, 2.5, float(np.float32(BF16(1e-3)))]
    f = tf.function(lambda a, b: tf.matmul(a, b) + 1.0)
    y = f(tf.ones([2, 3], tf.bfloat16), tf.ones([3, 2], tf.bfloat16))
    assert y.dtype is tf.bfloat16 and y.numpy().dtype == BF16
    np.testing.assert_array_equal(y.numpy().astype(np.float32), np.full((2, 2), 4.0))


def test_ops_that_cannot_take_bfloat16_say_so():
    with pytest.raises(tf.errors.InvalidArgumentError, match="bfloat16"):
        tf.math.bitwise_and(tf.ones([2], tf.bfloat16), tf.ones([2], tf.bfloat16))
