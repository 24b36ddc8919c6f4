"""Matrix products on the host, split over both cores when they are large.

NOTE: BLAS runs on one thread here (``threads.py`` gives the second core to tfunc's
helper thread: OpenBLAS's own threads spin after each product and then compete with
the helper), so a large product is cut in two by rows of ``a`` (or by batch) and the
halves multiplied at the same time, one on the calling thread and one on the helper;
each writes its own rows of the result.  Small products run whole: handing work to
another thread costs more than it saves below ``_PARALLEL_FLOPS``.
"""

from __future__ import annotations

import math

import numpy as np

from ...ops.registry import REGISTRY
from . import threads

# measured on 2 cores (float32, one BLAS thread each): 16.8 MFLOP (128x256 @ 256x256) gains
# nothing from the split, 33.6 MFLOP (256x256 @ 256x256) 324 -> 226-259 us, 51 MFLOP
# (an MLP's 128x784 @ 784x256) 516 -> 350 us
_PARALLEL_FLOPS = 3e7
_SPLIT_KINDS = "fc"  # floats and complex: integer products are not BLAS calls
# NOTE: for two real float matrices ``np.dot`` makes the same BLAS call as ``np.matmul`` (the
# same bits on contiguous and transposed operands, so a 2-D product equals a batch-of-one
# one) at about 0.5 us less per call (no gufunc machinery): a tenth of a small layer's
# step.  A strided operand is copied and multiplied by BLAS, where ``np.matmul`` would run
# its own loop.  Complex outer products (inner dimension 1) differ between the two, so
# complex matrices keep ``np.matmul``.
BLAS_DTYPES = frozenset(map(np.dtype, ("float32", "float64")))


def matmul(xp, a, b, transpose_a=False, transpose_b=False, out=None):
    if transpose_a:
        a = np.swapaxes(a, -1, -2)
    if transpose_b:
        b = np.swapaxes(b, -1, -2)
    if a.ndim >= 2 and b.ndim >= 2 and a.dtype == b.dtype and a.dtype.kind in _SPLIT_KINDS:
        flops = 2.0 * a.size * b.shape[-1]  # a's batch times m*k, times n
        if b.ndim > 2 and a.ndim == 2:
            flops *= math.prod(b.shape[:-2])  # b's batch (b may be empty: no division by its size)
        if flops >= _PARALLEL_FLOPS:
            pool = threads.helper_pool()
            if pool is not None:
                return _split(pool, a, b, out)
        if out is None and a.ndim == 2 and b.ndim == 2 and a.dtype in BLAS_DTYPES:
            return np.dot(a, b)
    r = np.matmul(a, b, out=out)
    if r.dtype != a.dtype:  # ml_dtypes' bfloat16 matmul returns float32
        return r.astype(a.dtype)
    return r


def _split(pool, a, b, out):
    """``a @ b`` in two halves: by rows of ``a`` (by columns of ``b`` when ``a`` has one row)."""
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (a.shape[-2], b.shape[-1])
    if out is None:
        out = np.empty(shape, dtype=a.dtype)
    if a.shape[-2] >= 2:
        mid = a.shape[-2] // 2
        first, second = (a[..., :mid, :], b, out[..., :mid, :]), (a[..., mid:, :], b, out[..., mid:, :])
    else:
        mid = b.shape[-1] // 2
        first, second = (a, b[..., :, :mid], out[..., :, :mid]), (a, b[..., :, mid:], out[..., :, mid:])
    future = threads.on_helper(pool, np.matmul, second[0], second[1], out=second[2])
    try:
        np.matmul(first[0], first[1], out=first[2])
    finally:
        future.result()
    return out


def register_kernels() -> None:
    REGISTRY["matmul"].kernels["numpy"] = matmul
