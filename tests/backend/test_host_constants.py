"""One-element operands of ``maximum``/``minimum`` widened to full read-only blocks
(``tfunc.ops.host_constants``): the same values and dtypes as the 0-d operand, in the impls
(relu, relu6, elu, softplus, clip_by_value) and in fused kernels, small and blocked."""

import ml_dtypes
import numpy as np
import pytest

import tfunc as tf
from tfunc.backend.numpy import fusion
from tfunc.ops import host_constants as hc


@pytest.fixture
def fresh_blocks(monkeypatch):
    blocks: dict = {}
    monkeypatch.setattr(hc, "_blocks", blocks)
    return blocks


@pytest.mark.parametrize("dt", [np.float16, ml_dtypes.bfloat16, np.float32, np.float64, np.int8, np.uint8, np.int64])
def test_a_widened_operand_is_a_read_only_full_array_of_the_operands_dtype(dt, fresh_blocks):
    c = np.array(3, dt)
    like = np.zeros((64, 100), np.float32)
    w = hc.full_operand(c, like)
    assert w.shape == like.shape and w.dtype == c.dtype and not w.flags.writeable
    assert (w == c).all()
    with pytest.raises(ValueError):
        w[0, 0] = 1
    assert hc.full_operand(np.array(3, dt), like).base is w.base  # one cached block per (dtype, value)
    assert len(fresh_blocks) == 1


def test_widening_applies_only_where_it_keeps_shapes_and_pays(fresh_blocks):
    c = np.array(0.5, np.float32)
    assert hc.full_operand(c, np.zeros(hc.FULL_MIN - 1)) is c  # too small: the 0-d operand is cheaper
    assert hc.full_operand(c, np.zeros(hc.FULL_MAX + 1)) is c  # larger than a cached block
    row = np.array([[0.5]], np.float32)
    assert hc.full_operand(row, np.zeros(hc.FULL_MIN)) is row  # more dims would make the result 2-d
    assert hc.full_operand(row, np.zeros((2, hc.FULL_MIN))).shape == (2, hc.FULL_MIN)
    assert hc.widen(None, c, np.zeros(hc.FULL_MIN)) is c  # another array module: untouched
    assert hc.full_operand(np.float32(0.5), np.zeros(hc.FULL_MIN)).dtype == np.float32  # a NumPy scalar too
    x = np.zeros(hc.FULL_MIN, np.float16)  # the impls' constant takes x's dtype
    assert hc.Typed(6).extremum_operand(np, x).shape == x.shape
    assert hc.Typed(6).extremum_operand(np, x).dtype == np.float16


def test_the_block_cache_is_bounded(fresh_blocks):
    like = np.zeros(hc.FULL_MIN)
    for v in range(hc._CACHE_LIMIT + 5):
        assert hc.full_operand(np.array(v, np.float64), like)[0] == v
    assert len(fresh_blocks) <= hc._CACHE_LIMIT


def test_values_and_dtypes_match_the_zero_d_operand_including_nan_and_promotion():
    rng = np.random.default_rng(0)
    x = rng.standard_normal(hc.FULL_MIN * 3).astype(np.float32)
    x[:4] = (np.nan, np.inf, -np.inf, -0.0)
    for c in (np.array(0.1, np.float32), np.array(np.nan, np.float32), np.array(-0.0, np.float32)):
        for uf in (np.maximum, np.minimum):
            np.testing.assert_array_equal(uf(x, hc.full_operand(c, x)), uf(x, c))
            np.testing.assert_array_equal(uf(hc.full_operand(c, x), x), uf(c, x))
    wide = np.array(0.25, np.float64)  # a float64 operand promotes a float32 array as the 0-d one does
    assert np.maximum(x, hc.full_operand(wide, x)).dtype == np.maximum(x, wide).dtype == np.float64


@pytest.mark.parametrize("n", [hc.FULL_MIN + 3, fusion.BLOCK_MIN + 1001])  # one pass; blocks on two threads
def test_fused_extrema_with_one_element_operands_match_eager(n, fresh_blocks):
    rng = np.random.default_rng(n)
    a = (rng.standard_normal(n) * 4).astype(np.float32)
    a[:5] = (np.nan, np.inf, -np.inf, 6.5, -0.0)

    def fn(x, lo):
        return (
            tf.maximum(x * 2.0, 0.1),
            tf.minimum(0.5, x - 1.0),
            tf.nn.relu(x + 1.0),
            tf.nn.relu6(x * 3.0),
            tf.clip_by_value(x * 1.5, lo, 2.0),
            tf.nn.elu(x - 0.5),
            tf.nn.softplus(x * 0.5),
        )

    x, lo = tf.constant(a), tf.constant(-1.0)
    eager = [e.numpy() for e in fn(x, lo)]
    f = tf.function(fn)
    ops = [nd.op for nd in f.get_concrete_function(x, lo).optimized_graph.nodes()]
    assert "fused_elementwise" in ops and "maximum" not in ops and "relu" not in ops
    fresh_blocks.clear()
    for _ in range(2):  # twice: nothing wrote into a shared block
        for got, want in zip(f(x, lo), eager):
            np.testing.assert_array_equal(got.numpy(), want)
    point_one = (np.dtype(np.float32), np.float32(0.1).tobytes())
    assert point_one in fresh_blocks  # the fused maximum widened its traced operand
    for block in fresh_blocks.values():
        assert not block.flags.writeable and (block == block[0]).all()
    ref = a.astype(np.float64)
    np.testing.assert_array_equal(eager[0], np.maximum(a * np.float32(2), np.float32(0.1)))
    np.testing.assert_array_equal(eager[2], np.maximum(a + np.float32(1), 0).astype(np.float32))
    np.testing.assert_allclose(eager[4], np.clip(ref * 1.5, -1, 2), rtol=1e-6)


@pytest.mark.parametrize(
    "lo, hi",
    [(0, fusion.BLOCK_MIN), (0, 3 * hc.BLOCK + 5), (7, 5 * hc.BLOCK + hc.FULL_MIN), (0, hc.BLOCK + hc.FULL_MIN - 1)],
)
def test_fused_kernel_blocks_cover_the_range_and_are_never_small(lo, hi):
    bounds = list(fusion.block_bounds(lo, hi))
    assert bounds[0][0] == lo and bounds[-1][1] == hi
    assert all(a[1] == b[0] for a, b in zip(bounds, bounds[1:]))  # contiguous, no overlap
    assert all(hc.FULL_MIN <= e - s <= hc.FULL_MAX for s, e in bounds)  # a short tail joins the last block


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize(
    "n", [100, hc.FULL_MIN - 1, hc.FULL_MIN, 50_000, 3 * hc.BLOCK + 5, 5 * hc.BLOCK + 7]
)  # whole arrays (tanh form, then exp form); blocks on one and on two threads, short tails
def test_sigmoid_is_accurate_and_the_same_eager_and_traced_at_every_size(dt, n):
    import warnings

    x = (np.random.default_rng(n).standard_normal(n) * 30).astype(dt)
    x[:8] = (-1000, -100, -60, np.inf, -np.inf, np.nan, 41, 0)
    f = tf.function(lambda t: tf.sigmoid(t * 1.0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow warning from exp, eagerly or fused
        eager = tf.sigmoid(x).numpy()
        traced = f(tf.constant(x)).numpy()
    np.testing.assert_array_equal(traced, eager)  # bit for bit, NaN included
    assert eager[3] == 1 and eager[4] == 0 and np.isnan(eager[5]) and eager[6] == 1 and eager[7] == 0.5
    with np.errstate(all="ignore"):
        ref = 1 / (1 + np.exp(-x.astype(np.longdouble)))
    if n >= hc.FULL_MIN:  # e / (1 + e): a few ulps relative wherever the result is a normal number
        assert eager[2] > 0  # sigmoid(-60) is 8.8e-27, not 0
        normal = ref > np.finfo(dt).tiny
        assert np.max(np.abs(eager[normal] - ref[normal]) / ref[normal]) <= 4 * np.finfo(dt).eps
    else:  # 0.5 tanh(x / 2) + 0.5: a few ulps absolute
        ok = np.isfinite(x)
        assert np.max(np.abs(eager[ok] - ref[ok])) <= 4 * np.finfo(dt).eps
