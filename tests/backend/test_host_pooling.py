"""The host's pooling kernels (``tfunc.backend.numpy.pooling``): blocked over output rows and
split over two threads, they give the portable kernels' bits on every geometry, with
blocks made small and the second thread forced on so that every path runs on any machine."""

import numpy as np
import pytest

import tfunc as tf
from tfunc.backend.numpy import pooling as host
from tfunc.ops import pooling as portable
from tfunc.ops.registry import REGISTRY

from .conftest import helper_thread


@pytest.fixture(
    params=[(64, "one thread"), (64, "two threads"), (6000, "two threads"), (1 << 20, "one thread")],
    ids=lambda p: f"{p[0]} bytes, {p[1]}",
)
def forced_blocks(request, monkeypatch):
    """Blocks of one output row (64 bytes), of a few rows or whole images (6000), or the real
    size; the second thread forced on or off."""
    block_bytes, threads_ = request.param
    monkeypatch.setattr(host, "_BLOCK_BYTES", block_bytes)
    monkeypatch.setattr(host, "_PARALLEL_BYTES", 0)
    with helper_thread(monkeypatch, threads_ == "two threads"):
        yield


CASES = [
    # x shape, ksize, strides, padding
    ((2, 8, 8, 3), (2, 2), (2, 2), "VALID"),
    ((3, 9, 7, 2), (3, 3), (2, 2), "SAME"),
    ((1, 10, 11, 4), (3, 2), (1, 2), "VALID"),
    ((2, 7, 9, 5), (2, 3), (3, 1), "SAME"),
    ((1, 5, 5, 1), (5, 5), (1, 1), "VALID"),  # one window
    ((4, 6, 6, 2), (1, 1), (1, 1), "VALID"),  # a copy
    ((1, 8, 9, 3), (3, 3), (2, 2), ((1, 2), (0, 1))),  # explicit padding
    ((2, 1, 1, 3), (2, 2), (2, 2), "SAME"),
]


def _bits(a):
    return a.view(f"u{a.dtype.itemsize}") if a.dtype.kind == "f" else a


@pytest.mark.parametrize("xs, ksize, strides, padding", CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_host_pooling_gives_the_portable_bits(forced_blocks, xs, ksize, strides, padding, dtype):
    rng = np.random.default_rng(sum(xs))
    x = (rng.standard_normal(xs) * 10).astype(dtype)
    if dtype != np.int32:
        flat = x.reshape(-1)
        flat[: min(flat.size, 5)] = np.array([np.nan, -np.inf, np.inf, -0.0, 0.0])[: min(flat.size, 5)]
    kernels = [(host.max_pool2d, portable._max_pool_impl)]
    if dtype != np.int32:
        kernels.append((host.avg_pool2d, portable._avg_pool_impl))
    for mine, theirs in kernels:
        got, want = mine(np, x, ksize, strides, padding), theirs(np, x, ksize, strides, padding)
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_array_equal(_bits(got), _bits(want))


def test_an_average_of_negative_zeros_is_positive_zero_as_in_the_portable_sum(forced_blocks):
    x = np.full((1, 4, 4, 2), -0.0, np.float32)
    got = host.avg_pool2d(np, x, (2, 2), (2, 2), "VALID")
    assert not np.signbit(got).any()


def test_empty_inputs(forced_blocks):
    assert host.max_pool2d(np, np.zeros((0, 4, 4, 2)), (2, 2), (2, 2), "VALID").shape == (0, 2, 2, 2)
    assert host.avg_pool2d(np, np.zeros((1, 4, 4, 0)), (2, 2), (2, 2), "SAME").shape == (1, 2, 2, 0)


def test_eager_and_traced_pooling_run_the_host_kernels():
    assert REGISTRY["max_pool2d"].kernel(np) is host.max_pool2d
    assert REGISTRY["avg_pool2d"].kernel(np) is host.avg_pool2d
    x = np.random.default_rng(0).standard_normal((2, 300, 300, 8)).astype(np.float32)  # blocks of rows
    for op, ref in ((tf.nn.max_pool2d, portable._max_pool_impl), (tf.nn.avg_pool2d, portable._avg_pool_impl)):
        want = ref(np, x, (3, 3), (2, 2), "SAME")
        np.testing.assert_array_equal(op(tf.constant(x), 3, 2, "SAME").numpy(), want)
        fn = tf.function(lambda t, op=op: op(t, 3, 2, "SAME"))
        np.testing.assert_array_equal(fn(tf.constant(x)).numpy(), want)


@pytest.mark.parametrize("xs, ksize, strides, padding", CASES + [((2, 11, 10, 3), (3, 3), (1, 1), "SAME")])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_host_pooling_gradients_give_the_portable_bits(forced_blocks, xs, ksize, strides, padding, dtype):
    # overlapping windows (3x3 stride 2 or 1) send several taps to one input element: the sums
    # must come out in the portable order; ties (rounded values) pick the first maximum
    rng = np.random.default_rng(sum(xs) + len(ksize))
    x = np.round(rng.standard_normal(xs) * 2).astype(dtype)
    flat = x.reshape(-1)
    flat[: min(flat.size, 3)] = np.array([np.nan, -np.inf, np.inf])[: min(flat.size, 3)]
    y = portable._max_pool_impl(np, x, ksize, strides, padding)
    dy = rng.standard_normal(y.shape).astype(dtype)
    dy.reshape(-1)[: min(dy.size, 2)] = -0.0
    got = host.max_pool2d_grad(np, x, y, dy, ksize, strides, padding)
    want = portable._max_pool_grad_impl(np, x, y, dy, ksize, strides, padding)
    assert got.shape == want.shape == x.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(_bits(got), _bits(want))
    got = host.avg_pool2d_grad(np, dy, x, ksize, strides, padding)
    want = portable._avg_pool_grad_impl(np, dy, x, ksize, strides, padding)
    assert got.shape == want.shape == x.shape
    np.testing.assert_array_equal(_bits(got), _bits(want))


def test_overlapping_window_gradients_sum_in_the_portable_order(monkeypatch):
    # nine windows send their gradient to one input element; with these values float32 sums
    # differ by order: the portable order (by tap: the last window row first) gives 7
    monkeypatch.setattr(host, "_BLOCK_BYTES", 64)  # one output row per block
    x = np.zeros((1, 9, 9, 1), np.float32)
    x[0, 4, 4, 0] = 1.0  # the maximum of every window that holds it
    y = portable._max_pool_impl(np, x, (3, 3), (1, 1), "VALID")
    dy = np.zeros(y.shape, np.float32)
    dy[0, 2:5, 2:5, 0] = np.array([[1, 1, 1], [1, 1, 1], [1, 1e8, -1e8]], np.float32)
    want = portable._max_pool_grad_impl(np, x, y, dy, (3, 3), (1, 1), "VALID")
    assert want[0, 4, 4, 0] == 7  # (first rows first would give 9, row-major 8)
    np.testing.assert_array_equal(host.max_pool2d_grad(np, x, y, dy, (3, 3), (1, 1), "VALID"), want)


def test_pooling_gradients_run_the_host_kernels():
    assert REGISTRY["max_pool2d_grad"].kernel(np) is host.max_pool2d_grad
    assert REGISTRY["avg_pool2d_grad"].kernel(np) is host.avg_pool2d_grad
