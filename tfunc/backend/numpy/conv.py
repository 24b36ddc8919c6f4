"""Convolution on the host: blocked im2col + one GEMM per block, over both cores.

The output rows are cut into blocks of a few rows; for each block the patches of its
rows are gathered into a ``(rows * OW, KH * KW * C)`` matrix (small enough to stay in
cache) and multiplied by the ``(KH * KW * C, OC)`` filter in one GEMM written straight
into the output.  Compared with a GEMM per kernel row followed by KW strided additions
over the whole output, nothing output-sized is written more than once, and the GEMM's
inner dimension is ``KH * KW * C`` instead of ``C``.

NOTE: the blocks are shared between the calling thread and tfunc's helper thread
(``threads.helper_pool``), each block's GEMM running on one BLAS thread: on two cores
this keeps both busy without BLAS's own threads, which spin after every product and
then compete with the helper (``threads.py``).

Special cases: a 1x1 convolution with stride 1 is one GEMM over the pixels.  The input
gradient of a stride-1 convolution is the forward convolution of dy (padded by the
kernel's reach less the forward padding) with the filter flipped in space and its
channels swapped; with other strides it scatters each block's patch gradients back (per
thread into its own buffer, summed at the end, so the threads never write the same
memory).
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ...ops.conv import geometry
from ...ops.registry import REGISTRY
from . import threads

_BLOCK_BYTES = 1 << 21  # a block's patch matrix: about 2 MiB (stays in L2/L3)
_PARALLEL_FLOPS = 20e6  # below this, a second thread costs more than it saves


def _padded(x, g):
    if g.pad_top or g.pad_bottom or g.pad_left or g.pad_right:
        return np.pad(x, ((0, 0), (g.pad_top, g.pad_bottom), (g.pad_left, g.pad_right), (0, 0)))
    return x


def _blocks(g, itemsize) -> tuple[list, int]:
    """``([(n0, n1, r0, r1), ...], most patch rows in a block)``: output rows r0..r1 of images
    n0..n1.  A block holds a few rows of one image, or, when an image's patches are smaller
    than a block, several whole images (a batch of small images is a few GEMMs, not one
    per image)."""
    row_bytes = max(1, g.ow * g.kh * g.kw * g.c * itemsize)
    rows = max(1, min(g.oh, _BLOCK_BYTES // row_bytes))
    if rows < g.oh:
        blocks = [(n, n + 1, r, min(r + rows, g.oh)) for n in range(g.n) for r in range(0, g.oh, rows)]
        return blocks, rows * g.ow
    images = max(1, min(g.n, _BLOCK_BYTES // (row_bytes * g.oh)))
    blocks = [(n, min(n + images, g.n), 0, g.oh) for n in range(0, g.n, images)]
    return blocks, images * g.oh * g.ow


def _split(total: int, flops: float, work) -> None:
    """Runs ``work(lo, hi)`` over ``range(total)``, in two halves on two threads when worth it."""
    threads.in_halves(total, work, flops >= _PARALLEL_FLOPS)


def _tap(g, i, j, r0, r1):
    """The (rows, cols) slices of the padded input that kernel tap (i, j) reads for output rows
    r0..r1."""
    top, left = r0 * g.sh + i * g.dh, j * g.dw
    return slice(top, top + (r1 - r0 - 1) * g.sh + 1, g.sh), slice(left, left + (g.ow - 1) * g.sw + 1, g.sw)


def _windows(xp_, g):
    """``w[image, padded row, col]``: the ``KW * C`` values one kernel row reads for output
    column ``col``, which lie side by side in memory when the kernel is not dilated across and
    a row of pixels is contiguous: an overlapping read-only view of ``xp_``, or None.

    NOTE: gathering a block's patches one kernel row at a time from this view is KH copies
    of ``KW * C``-long runs instead of KH * KW copies of ``C``-long ones: W4's gather
    (3x3 over 100 channels) takes about 40% less time."""
    it = xp_.itemsize
    s0, s1, s2, s3 = xp_.strides
    if g.dw != 1 or s3 != it or s2 != g.c * it:
        return None
    shape = (xp_.shape[0], xp_.shape[1], g.ow, g.kw * g.c)
    return as_strided(xp_, shape=shape, strides=(s0, s1, g.sw * s2, s3), writeable=False)


def _patches(xp_, g, n0, n1, r0, r1, out, windows=None):
    """``out[(image, row, col), (kh, kw, c)]`` for output rows r0..r1 of images n0..n1
    (``windows``: ``_windows(xp_, g)``, where not None)."""
    if windows is not None:
        rows_view = out.reshape(n1 - n0, r1 - r0, g.ow, g.kh, g.kw * g.c)
        for i in range(g.kh):
            rows_view[:, :, :, i, :] = windows[n0:n1, _tap(g, i, 0, r0, r1)[0]]
        return out
    view = out.reshape(n1 - n0, r1 - r0, g.ow, g.kh, g.kw, g.c)
    for i in range(g.kh):
        for j in range(g.kw):
            rows, cols = _tap(g, i, j, r0, r1)
            view[:, :, :, i, j, :] = xp_[n0:n1, rows, cols, :]
    return out


def conv2d(xp, x, f, strides, padding, dilations):
    g = geometry(x.shape, f.shape, strides, padding, dilations)
    dtype = np.result_type(x.dtype, f.dtype)
    out = np.empty((g.n, g.oh, g.ow, g.oc), dtype=dtype)
    if out.size == 0:
        return out
    if g.c == 0:
        out[...] = 0
        return out
    f2 = np.ascontiguousarray(f, dtype=dtype).reshape(g.kh * g.kw * g.c, g.oc)
    flops = 2.0 * out.size * g.kh * g.kw * g.c
    if g.kh == g.kw == 1 and g.sh == g.sw == 1 and not (g.pad_top or g.pad_bottom or g.pad_left or g.pad_right):
        pixels = np.ascontiguousarray(x, dtype=dtype).reshape(-1, g.c)
        flat = out.reshape(-1, g.oc)
        _split(len(pixels), flops, lambda lo, hi: np.matmul(pixels[lo:hi], f2, out=flat[lo:hi]))
        return out
    xp_ = _padded(x, g).astype(dtype, copy=False)
    windows = _windows(xp_, g)
    blocks, most = _blocks(g, dtype.itemsize)

    def work(lo, hi):
        cols = np.empty((most, g.kh * g.kw * g.c), dtype=dtype)
        for n0, n1, r0, r1 in blocks[lo:hi]:
            m = (n1 - n0) * (r1 - r0) * g.ow
            _patches(xp_, g, n0, n1, r0, r1, cols[:m], windows)
            np.matmul(cols[:m], f2, out=out[n0:n1, r0:r1].reshape(m, g.oc))

    _split(len(blocks), flops, work)
    return out


def conv2d_backprop_filter(xp, x, dy, f, strides, padding, dilations):
    g = geometry(x.shape, f.shape, strides, padding, dilations)
    dtype = np.result_type(x.dtype, dy.dtype)
    k = g.kh * g.kw * g.c
    if dy.size == 0 or g.c == 0:
        return np.zeros(tuple(f.shape), dtype=dtype)
    xp_ = _padded(x, g).astype(dtype, copy=False)
    windows = _windows(xp_, g)
    dy = np.ascontiguousarray(dy, dtype=dtype)
    blocks, most = _blocks(g, dtype.itemsize)
    partials = []

    def work(lo, hi):
        df = np.zeros((k, g.oc), dtype=dtype)
        cols = np.empty((most, k), dtype=dtype)
        for n0, n1, r0, r1 in blocks[lo:hi]:
            m = (n1 - n0) * (r1 - r0) * g.ow
            _patches(xp_, g, n0, n1, r0, r1, cols[:m], windows)
            df += cols[:m].T @ dy[n0:n1, r0:r1].reshape(m, g.oc)
        partials.append(df)

    _split(len(blocks), 2.0 * dy.size * k, work)
    total = partials[0] if len(partials) == 1 else partials[0] + partials[1]
    return total.reshape(tuple(f.shape))


def _flipped_padding(g):
    """((top, bottom), (left, right)) padding of dy that makes the stride-1 input gradient a
    forward convolution of dy with the flipped, transposed filter; None where a side would
    be negative (explicit padding wider than the kernel's reach)."""
    top, bottom = (g.kh - 1) * g.dh - g.pad_top, (g.kh - 1) * g.dh - g.pad_bottom
    left, right = (g.kw - 1) * g.dw - g.pad_left, (g.kw - 1) * g.dw - g.pad_right
    if min(top, bottom, left, right) < 0:
        return None
    return (top, bottom), (left, right)


def conv2d_backprop_input(xp, dy, f, x, strides, padding, dilations):
    g = geometry(x.shape, f.shape, strides, padding, dilations)
    dtype = np.result_type(dy.dtype, f.dtype)
    hp, wp = g.h + g.pad_top + g.pad_bottom, g.w + g.pad_left + g.pad_right
    if dy.size == 0 or g.c == 0 or x.size == 0:
        return np.zeros(tuple(x.shape), dtype=dtype)
    flipped = _flipped_padding(g) if g.sh == g.sw == 1 else None
    if flipped is not None:
        # dx[h, w] gathers dy over the kernel's reach: each output block is written once by one
        # thread, where scattering patch gradients needs a zeroed buffer per thread and a sum
        f_t = np.ascontiguousarray(f[::-1, ::-1].transpose(0, 1, 3, 2), dtype=dtype)
        return conv2d(xp, dy.astype(dtype, copy=False), f_t, (1, 1), flipped, (g.dh, g.dw))
    k = g.kh * g.kw * g.c
    f2t = np.ascontiguousarray(f, dtype=dtype).reshape(k, g.oc).T
    dy = np.ascontiguousarray(dy, dtype=dtype)
    blocks, most = _blocks(g, dtype.itemsize)
    partials = []

    def work(lo, hi):
        dxp = np.zeros((g.n, hp, wp, g.c), dtype=dtype)
        dcols = np.empty((most, k), dtype=dtype)
        for n0, n1, r0, r1 in blocks[lo:hi]:
            m = (n1 - n0) * (r1 - r0) * g.ow
            np.matmul(dy[n0:n1, r0:r1].reshape(m, g.oc), f2t, out=dcols[:m])
            view = dcols[:m].reshape(n1 - n0, r1 - r0, g.ow, g.kh, g.kw, g.c)
            for i in range(g.kh):
                for j in range(g.kw):
                    rows, cols = _tap(g, i, j, r0, r1)
                    dxp[n0:n1, rows, cols, :] += view[:, :, :, i, j, :]
        partials.append(dxp)

    _split(len(blocks), 2.0 * dy.size * k, work)
    dxp = partials[0] if len(partials) == 1 else np.add(partials[0], partials[1], out=partials[0])
    return dxp[:, g.pad_top : g.pad_top + g.h, g.pad_left : g.pad_left + g.w, :]


def register_kernels() -> None:
    """Makes these the NumPy kernels of conv2d and its two backprops."""
    REGISTRY["conv2d"].kernels["numpy"] = conv2d
    REGISTRY["conv2d_backprop_input"].kernels["numpy"] = conv2d_backprop_input
    REGISTRY["conv2d_backprop_filter"].kernels["numpy"] = conv2d_backprop_filter
