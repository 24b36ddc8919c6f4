"""The host's own conv and matmul kernels (``tfunc.backend.numpy.conv`` / ``.matmul``),
checked against the portable kernels in ``tfunc.ops`` and against a plain NumPy product,
with blocks made small and the second thread forced on, so that every split path runs
on any machine (CI included, where the thresholds would keep small shapes whole)."""

import numpy as np
import pytest

from tfunc.backend.numpy import conv as host_conv
from tfunc.backend.numpy import matmul as host_matmul
from tfunc.ops import conv as portable_conv

from .conftest import helper_thread


@pytest.fixture(
    params=[
        ("rows of one image", "one thread"),
        ("rows of one image", "two threads"),
        ("several whole images", "one thread"),
        ("several whole images", "two threads"),
    ],
    ids=lambda p: ", ".join(p),
)
def forced_split(request, monkeypatch):
    """Blocks of a few rows of one image (64 bytes) or of a few whole small images (6000 bytes:
    two or three of the cases' images, so the last block holds fewer), no size threshold; with
    or without the helper thread."""
    blocks, threads_ = request.param
    monkeypatch.setattr(host_conv, "_BLOCK_BYTES", 64 if blocks == "rows of one image" else 6000)
    monkeypatch.setattr(host_conv, "_PARALLEL_FLOPS", 0)
    monkeypatch.setattr(host_matmul, "_PARALLEL_FLOPS", 0)
    with helper_thread(monkeypatch, threads_ == "two threads"):
        yield


CASES = [
    # x shape, filter shape, strides, padding, dilations
    ((2, 7, 9, 3), (3, 3, 3, 4), 1, "SAME", 1),
    ((1, 8, 8, 2), (3, 2, 2, 5), (2, 1), "VALID", 1),
    ((3, 10, 6, 4), (2, 3, 4, 3), 2, "SAME", 1),
    ((1, 9, 9, 1), (3, 3, 1, 2), 1, "VALID", 2),
    ((2, 5, 5, 6), (1, 1, 6, 7), 1, "VALID", 1),  # 1x1: one GEMM over the pixels
    ((2, 5, 5, 6), (1, 1, 6, 7), 2, "SAME", 1),
    ((1, 6, 7, 3), (3, 3, 3, 2), 1, [[1, 0], [2, 1]], 1),
    ((1, 1, 1, 3), (3, 3, 3, 2), 1, "SAME", 1),
    ((7, 8, 8, 1), (3, 3, 1, 8), 1, "VALID", 1),  # a batch of small one-channel images (digits)
    ((1, 9, 9, 2), (3, 3, 2, 3), 1, "SAME", 2),  # input gradient: dilated flipped-filter conv
    ((1, 6, 7, 3), (3, 3, 3, 2), 1, [[3, 0], [0, 4]], 1),  # padding past the kernel's reach: scattered
]


@pytest.mark.parametrize("xs, fs, strides, padding, dil", CASES)
def test_host_convolution_matches_the_portable_kernels(forced_split, xs, fs, strides, padding, dil):
    rng = np.random.default_rng(0)
    x = rng.normal(size=xs)
    f = rng.normal(size=fs)
    y = host_conv.conv2d(np, x, f, strides, padding, dil)
    np.testing.assert_allclose(y, portable_conv.conv2d(np, x, f, strides, padding, dil), rtol=1e-10, atol=1e-10)
    dy = rng.normal(size=y.shape)
    dx = host_conv.conv2d_backprop_input(np, dy, f, x, strides, padding, dil)
    df = host_conv.conv2d_backprop_filter(np, x, dy, f, strides, padding, dil)
    assert dx.shape == x.shape and df.shape == f.shape
    # The backprops are the adjoints of the convolution: <conv(x, f), dy> = <x, dx> = <f, df>.
    inner = float(np.vdot(y, dy))
    assert float(np.vdot(x, dx)) == pytest.approx(inner, rel=1e-9, abs=1e-9)
    assert float(np.vdot(f, df)) == pytest.approx(inner, rel=1e-9, abs=1e-9)
    np.testing.assert_allclose(
        dx, portable_conv.conv2d_backprop_input(np, dy, f, x.shape, strides, padding, dil), rtol=1e-10, atol=1e-10
    )
    np.testing.assert_allclose(
        df, portable_conv.conv2d_backprop_filter(np, x, dy, f.shape, strides, padding, dil), rtol=1e-10, atol=1e-10
    )


@pytest.mark.parametrize("block_bytes", [64, 6000, 1 << 21])
@pytest.mark.parametrize("xs, fs, strides, padding, dil", CASES)
def test_patches_gathered_by_kernel_row_equal_those_gathered_by_tap(
    monkeypatch, block_bytes, xs, fs, strides, padding, dil
):
    # the forward and filter-gradient kernels gather a kernel row's KW*C values as one run of an
    # overlapping view wherever a row of pixels is contiguous and the kernel is not dilated
    # across; every block must get exactly the patches the tap-by-tap gather makes
    from tfunc.ops.conv import geometry

    monkeypatch.setattr(host_conv, "_BLOCK_BYTES", block_bytes)
    x = np.random.default_rng(1).normal(size=xs)
    g = geometry(x.shape, fs, strides, padding, dil)
    xp_ = host_conv._padded(x, g)
    windows = host_conv._windows(xp_, g)
    assert (windows is None) == (g.dw != 1)
    if windows is None:
        return
    assert not windows.flags.writeable
    blocks, _ = host_conv._blocks(g, x.itemsize)
    for n0, n1, r0, r1 in blocks:
        shape = ((n1 - n0) * (r1 - r0) * g.ow, g.kh * g.kw * g.c)
        by_tap = host_conv._patches(xp_, g, n0, n1, r0, r1, np.full(shape, np.nan))
        by_row = host_conv._patches(xp_, g, n0, n1, r0, r1, np.full(shape, np.nan), windows)
        assert np.array_equal(by_tap, by_row)


@pytest.mark.parametrize(
    "view",
    [
        lambda a: a[..., 1:4],  # a channel slice: pixels are not contiguous runs of C values
        lambda a: a[:, :, ::2, :3],  # every other column
        lambda a: a[:, ::-1, :, :3],  # rows reversed
        lambda a: np.asfortranarray(a[..., :3]),
    ],
    ids=["channels", "columns", "reversed rows", "fortran"],
)
def test_host_convolution_of_strided_inputs(forced_split, view):
    rng = np.random.default_rng(2)
    x = view(rng.normal(size=(2, 9, 14, 5)))
    f = rng.normal(size=(3, 2, 3, 4))
    for strides, padding in ((1, "SAME"), (2, "VALID"), ((1, 2), "SAME")):
        y = host_conv.conv2d(np, x, f, strides, padding, 1)
        np.testing.assert_allclose(y, portable_conv.conv2d(np, x, f, strides, padding, 1), rtol=1e-10, atol=1e-10)
        dy = rng.normal(size=y.shape)
        np.testing.assert_allclose(
            host_conv.conv2d_backprop_filter(np, x, dy, f, strides, padding, 1),
            portable_conv.conv2d_backprop_filter(np, x, dy, f.shape, strides, padding, 1),
            rtol=1e-10,
            atol=1e-10,
        )


def test_host_convolution_of_empty_and_depthless_inputs(forced_split):
    y = host_conv.conv2d(np, np.zeros((0, 4, 4, 2)), np.ones((3, 3, 2, 5)), 1, "SAME", 1)
    assert y.shape == (0, 4, 4, 5)
    y = host_conv.conv2d(np, np.zeros((1, 4, 4, 0)), np.ones((3, 3, 0, 5)), 1, "SAME", 1)
    assert y.shape == (1, 4, 4, 5) and not y.any()
    df = host_conv.conv2d_backprop_filter(
        np, np.zeros((0, 4, 4, 2)), np.zeros((0, 4, 4, 5)), np.ones((3, 3, 2, 5)), 1, "SAME", 1
    )
    assert df.shape == (3, 3, 2, 5) and not df.any()


def test_host_convolution_keeps_float32(forced_split):
    x = np.ones((1, 5, 5, 2), np.float32)
    f = np.ones((3, 3, 2, 3), np.float32)
    assert host_conv.conv2d(np, x, f, 1, "SAME", 1).dtype == np.float32


MATMUL_CASES = [
    ((5, 3), (3, 4), False, False),
    ((1, 6), (6, 9), False, False),  # one row: split by columns of b
    ((4, 5, 3), (3, 2), False, False),
    ((2, 1, 5, 3), (4, 3, 2), False, False),  # broadcast batch
    ((3, 5), (4, 3), True, True),
    ((0, 3), (3, 4), False, False),
    ((3, 0), (2, 0, 2), False, False),  # empty inner dimension, batch from b (found by the op fuzzer)
    ((3, 0), (0, 2), False, False),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.int32])
@pytest.mark.parametrize("sa, sb, ta, tb", MATMUL_CASES)
def test_host_matmul_matches_numpy(forced_split, sa, sb, ta, tb, dtype):
    rng = np.random.default_rng(1)
    a = rng.normal(size=sa).astype(dtype)
    b = rng.normal(size=sb).astype(dtype)
    want = np.matmul(a.swapaxes(-1, -2) if ta else a, b.swapaxes(-1, -2) if tb else b)
    got = host_matmul.matmul(np, a, b, transpose_a=ta, transpose_b=tb)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_eager_ops_run_the_kernels_the_device_registered(monkeypatch):
    """Eager mode calls the host's convolution and matmul, as a plan does (not the portable
    ``impl``, which is many times slower on big convolutions)."""
    import tfunc as tf
    from tfunc.ops.registry import REGISTRY

    calls = []
    for name in ("conv2d", "matmul"):
        real = REGISTRY[name].kernels["numpy"]

        def spy(*args, _real=real, _name=name, **kw):
            calls.append(_name)
            return _real(*args, **kw)

        monkeypatch.setitem(REGISTRY[name].kernels, "numpy", spy)
    x = tf.ones([1, 5, 5, 2])
    y = tf.nn.conv2d(x, tf.ones([3, 3, 2, 4]), strides=1, padding="VALID")
    z = tf.matmul(tf.ones([2, 3]), tf.ones([3, 2]))
    assert calls == ["conv2d", "matmul"]
    np.testing.assert_allclose(y.numpy(), np.full((1, 3, 3, 4), 18.0))
    np.testing.assert_allclose(z.numpy(), np.full((2, 2), 3.0))
