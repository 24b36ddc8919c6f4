"""The host's pooling kernels (``tfunc.backend.numpy.pooling``): blocked over output rows and
split over two threads, they give the portable kernels' bits on every geometry, with
blocks made small and the second thread forced on so that every path runs on any machine."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import tfunc as tf
from tfunc.backend.numpy import pooling as host
from tfunc.backend.numpy import threads
from tfunc.ops import pooling as portable
from tfunc.ops.registry import REGISTRY


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
    if threads_ == "two threads":
        pool = ThreadPoolExecutor(1)
        monkeypatch.setattr(threads, "helper_pool", lambda: pool)
        yield
        pool.shutdown()
    else:
        monkeypatch.setattr(threads, "helper_pool", lambda: None)
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
