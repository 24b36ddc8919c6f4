"""Kernels computed in a wider float type than their input's, the result rounded back: the
half floats (float16, bfloat16) in float32, as TensorFlow's CPU kernels accumulate them
(``dtypes.ACCUMULATE``), and formulas NumPy has no ufunc for in float64."""

from __future__ import annotations

import functools

import numpy as np

from ..core import dtypes as D

__all__ = ["half_in_float32", "in_float64"]


def _rounded_back(r, x, out):
    r = r.astype(x.dtype)
    if out is None:
        return r
    out[...] = r
    return out


def half_in_float32(impl):
    """``impl(xp, x, *attrs, out=None)`` run on float16/bfloat16 ``x`` in float32 (a float16
    accumulator or ``0.5 tanh(x/2) + 0.5`` loses what float32 keeps); other dtypes as they are."""

    @functools.wraps(impl)
    def run(xp, x, *args, out=None, **kwargs):
        wide = D.ACCUMULATE.get(x.dtype)
        if wide is None:
            return impl(xp, x, *args, **kwargs) if out is None else impl(xp, x, *args, out=out, **kwargs)
        return _rounded_back(impl(xp, x.astype(wide), *args, **kwargs), x, out)

    return run


def in_float64(f):
    """A float64 formula ``f(xp, x64)`` as the impl of a unary op of any float dtype."""

    @functools.wraps(f)
    def impl(xp, x, out=None):
        return _rounded_back(f(xp, x.astype(np.float64)), x, out)

    return impl
