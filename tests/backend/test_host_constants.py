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


def _widened(c, like):
    """``full_operand`` as a kernel sees it on its second call with the same operand."""
    assert hc.full_operand(c, like) is c  # the first sighting: used as it is
    w = hc.full_operand(c, like)
    assert w is not c
    return w


@pytest.mark.parametrize("dt", [np.float16, ml_dtypes.bfloat16, np.float32, np.float64, np.int8, np.uint8, np.int64])
def test_a_widened_operand_is_a_read_only_full_array_of_the_operands_dtype(dt, fresh_blocks):
    c = np.array(3, dt)
    like = np.zeros((128, 100), np.float32)
    w = _widened(c, like)
    assert w.shape == like.shape and w.dtype == c.dtype and not w.flags.writeable
    assert (w == c).all()
    with pytest.raises(ValueError):
        w[0, 0] = 1
    assert hc.full_operand(c, like).base is w.base  # one cached block per operand
    assert len(fresh_blocks) == 1


def test_widening_applies_only_where_it_keeps_shapes_and_pays(fresh_blocks):
    c = np.array(0.5, np.float32)
    for _ in range(2):
        assert hc.full_operand(c, np.zeros(hc.FULL_MIN - 1)) is c  # too small: the 0-d operand costs no more
        assert hc.full_operand(c, np.zeros(hc.FULL_MAX + 1)) is c  # longer than a cached block
    row = np.array([[0.5]], np.float32)
    for _ in range(2):
        assert hc.full_operand(row, np.zeros(hc.FULL_MIN)) is row  # more dims would make the result 2-d
    assert _widened(row, np.zeros((2, hc.FULL_MIN))).shape == (2, hc.FULL_MIN)
    assert hc.widen(None, c, np.zeros(hc.FULL_MIN)) is c  # another array module: untouched
    assert _widened(np.float32(0.5), np.zeros(hc.FULL_MIN)).dtype == np.float32  # a NumPy scalar too
    x = np.zeros(hc.FULL_MIN, np.float16)  # the impls' constant takes x's dtype
    six = hc.Typed(6)
    six.extremum_operand(np, x)
    assert six.extremum_operand(np, x).shape == x.shape
    assert six.extremum_operand(np, x).dtype == np.float16


def test_an_operand_new_on_every_call_is_never_copied(fresh_blocks):
    like = np.zeros(hc.FULL_MAX)
    for v in range(3 * hc._CACHE_LIMIT):  # (a clip bound computed at run time)
        c = np.array(v, np.float64)
        assert hc.full_operand(c, like) is c
    assert len(fresh_blocks) <= hc._CACHE_LIMIT  # bounded
    assert all(block is None for _, _, block in fresh_blocks.values())  # no block was made


def test_an_operand_changed_in_place_is_not_answered_from_its_old_block(fresh_blocks):
    c = np.array(1.0, np.float32)  # (a one-element variable's buffer, assigned in place)
    like = np.zeros(hc.FULL_MIN, np.float32)
    assert (_widened(c, like) == 1).all()
    c[()] = 2.0
    assert hc.full_operand(c, like) is c  # seen anew
    assert (hc.full_operand(c, like) == 2).all()


def test_values_and_dtypes_match_the_zero_d_operand_including_nan_and_promotion(fresh_blocks):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(hc.FULL_MIN * 3).astype(np.float32)
    x[:4] = (np.nan, np.inf, -np.inf, -0.0)
    for c in (np.array(0.1, np.float32), np.array(np.nan, np.float32), np.array(-0.0, np.float32)):
        w = _widened(c, x)
        for uf in (np.maximum, np.minimum):
            np.testing.assert_array_equal(uf(x, w), uf(x, c))
            np.testing.assert_array_equal(uf(w, x), uf(c, x))
            assert (np.signbit(uf(x, w)) == np.signbit(uf(x, c))).all()
    wide = np.array(0.25, np.float64)  # a float64 operand promotes a float32 array as the 0-d one does
    assert np.maximum(x, _widened(wide, x)).dtype == np.maximum(x, wide).dtype == np.float64


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
    blocks = [(c, block) for c, _, block in fresh_blocks.values() if block is not None]
    assert any(c.dtype == np.float32 and c == np.float32(0.1) for c, _ in blocks)  # the fused maximum's operand
    for c, block in blocks:
        assert not block.flags.writeable and (block == c).all()
    kept = {id(block) for _, block in blocks}
    for _ in range(3):  # later calls reuse the blocks: no new block (a fill) per call
        f(x, lo)
    assert {id(block) for _, _, block in fresh_blocks.values() if block is not None} == kept
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
    "n", [1, 100, hc.FULL_MIN - 1, hc.FULL_MIN, 50_000, 3 * hc.BLOCK + 5, 5 * hc.BLOCK + 7]
)  # whole arrays, blocks on one and on two threads, short tails
def test_sigmoid_is_accurate_and_the_same_eager_traced_and_portable_at_every_size(dt, n):
    import warnings

    from tfunc import portable

    x = (np.random.default_rng(n).standard_normal(n) * 30).astype(dt)
    x[:8] = (-1000, -100, -60, np.inf, -np.inf, np.nan, 41, 0)[:n]
    f = tf.function(lambda t: tf.sigmoid(t * 1.0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow warning from exp, eagerly, fused or portable
        eager = tf.sigmoid(x).numpy()
        traced = f(tf.constant(x)).numpy()
        loaded = portable._sigmoid(x)
    np.testing.assert_array_equal(traced, eager)  # bit for bit, NaN included
    np.testing.assert_array_equal(loaded, eager)  # the NumPy-only loader computes the same
    with np.errstate(all="ignore"):
        ref = 1 / (1 + np.exp(-x.astype(np.longdouble)))
    normal = ref > np.finfo(dt).tiny  # e / (1 + e): a few ulps relative wherever the result is normal
    assert np.max(np.abs(eager[normal] - ref[normal]) / ref[normal], initial=0) <= 4 * np.finfo(dt).eps
    if n >= 8:
        assert eager[2] > 0  # sigmoid(-60) is 8.8e-27, not 0
        assert eager[3] == 1 and eager[4] == 0 and np.isnan(eager[5]) and eager[6] == 1 and eager[7] == 0.5


def test_merging_sigmoids_over_split_parts_does_not_change_results():
    """The optimizer hoists sigmoids of a split's parts into one sigmoid over the whole
    tensor: 4 x 2,048 elements eagerly, 8,192 traced; one formula at every size keeps them equal."""
    z = tf.constant((np.random.default_rng(1).standard_normal((64, 128)) * 8).astype(np.float32))

    def gates(z):
        i, g, c, o = tf.split(z, 4, axis=1)
        return tf.sigmoid(i), tf.sigmoid(g), tf.sigmoid(o)

    for e, t in zip(gates(z), tf.function(gates)(z)):
        np.testing.assert_array_equal(t.numpy(), e.numpy())
