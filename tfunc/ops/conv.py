"""Convolution: geometry shared by every kernel (NHWC input, HWIO filter), and the
kernels written once against the NumPy API (``xp`` is NumPy or CuPy).

NOTE: a convolution is KH GEMMs over whole image rows rather than one im2col GEMM:
each GEMM reads a contiguous (rows, C) block of the input, so no KH*KW-times-larger
patch matrix is materialised, and BLAS sees large, well-shaped products.  The KW taps
are then shifted, strided adds.  The CuPy backend registers im2col kernels of its own
(``tfunc.backend.cupy.conv``).
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

from ..core.errors import InvalidArgumentError


class ConvGeometry(NamedTuple):
    n: int
    h: int
    w: int
    c: int
    kh: int
    kw: int
    oc: int
    sh: int
    sw: int
    dh: int
    dw: int
    oh: int
    ow: int
    pad_top: int
    pad_bottom: int
    pad_left: int
    pad_right: int


def normalize_hw(value, name: str, rank4_layout: str = "NHWC") -> tuple[int, int]:
    """Accepts an int, a pair, or TensorFlow's 4-element NHWC list."""
    if isinstance(value, int):
        return value, value
    v = list(value)
    if len(v) == 1:
        return int(v[0]), int(v[0])
    if len(v) == 2:
        return int(v[0]), int(v[1])
    if len(v) == 4:
        if v[0] != 1 or v[3] != 1:
            raise InvalidArgumentError(f"conv2d {name} in the batch and depth dimensions must be 1, got {v}.")
        return int(v[1]), int(v[2])
    raise InvalidArgumentError(f"conv2d {name} must be an int, 2 or 4 values, got {value!r}.")


def out_size(size: int, k: int, stride: int, dilation: int, padding) -> tuple[int, int, int]:
    """Returns (output size, pad before, pad after) along one spatial axis."""
    eff = (k - 1) * dilation + 1
    if isinstance(padding, str):
        p = padding.upper()
        if p == "VALID":
            if size < eff:
                return 0, 0, 0
            return (size - eff) // stride + 1, 0, 0
        if p == "SAME":
            o = -(-size // stride)
            total = max((o - 1) * stride + eff - size, 0)
            return o, total // 2, total - total // 2
        raise InvalidArgumentError(f"conv2d padding must be 'SAME' or 'VALID', got {padding!r}.")
    before, after = padding
    padded = size + before + after
    if padded < eff:
        return 0, before, after
    return (padded - eff) // stride + 1, before, after


def _out_size_or_unknown(size, k, stride, dilation, padding):
    """``out_size`` where a size or the kernel size may be unknown (None) while tracing: with
    'SAME' padding the output size needs only the input size; otherwise it is unknown."""
    if size is not None and k is not None:
        return out_size(size, k, stride, dilation, padding)
    if size is not None and isinstance(padding, str) and padding.upper() == "SAME":
        return -(-size // stride), 0, 0
    return None, 0, 0


def geometry(x_shape: Sequence[int], f_shape: Sequence[int], strides, padding, dilations) -> ConvGeometry:
    if len(x_shape) != 4:
        raise InvalidArgumentError(f"conv2d input must be rank 4 (NHWC), got shape {tuple(x_shape)}.")
    if len(f_shape) != 4:
        raise InvalidArgumentError(f"conv2d filter must be rank 4 (HWIO), got shape {tuple(f_shape)}.")
    n, h, w, c = x_shape
    kh, kw, fc, oc = f_shape
    if c is not None and fc is not None and c != fc:
        raise InvalidArgumentError(
            f"conv2d input depth {c} does not match filter input depth {fc} "
            f"(input {tuple(x_shape)}, filter {tuple(f_shape)})."
        )
    sh, sw = normalize_hw(strides, "strides")
    dh, dw = normalize_hw(dilations, "dilations")
    if min(sh, sw, dh, dw) < 1:
        raise InvalidArgumentError("conv2d strides and dilations must be >= 1.")
    if not isinstance(padding, str):
        pads = list(padding)
        if len(pads) == 4:  # TensorFlow's explicit NHWC form [[0,0],[t,b],[l,r],[0,0]]
            pads = pads[1:3]
        (pt, pb), (pl, pr) = pads
        ph: tuple | str = (pt, pb)
        pw: tuple | str = (pl, pr)
    else:
        ph = pw = padding
    oh, pt, pb = _out_size_or_unknown(h, kh, sh, dh, ph)
    ow, pl, pr = _out_size_or_unknown(w, kw, sw, dw, pw)
    return ConvGeometry(n, h, w, c, kh, kw, oc, sh, sw, dh, dw, oh, ow, pt, pb, pl, pr)


def _pad(xp, x, g):
    if g.pad_top or g.pad_bottom or g.pad_left or g.pad_right:
        return xp.pad(x, ((0, 0), (g.pad_top, g.pad_bottom), (g.pad_left, g.pad_right), (0, 0)))
    return x


def conv2d(xp, x, f, strides, padding, dilations):
    g = geometry(x.shape, f.shape, strides, padding, dilations)
    out_dtype = xp.result_type(x.dtype, f.dtype)
    out = xp.empty((g.n, g.oh, g.ow, g.oc), dtype=out_dtype)
    if out.size == 0:
        return out
    if g.c == 0:
        out[...] = 0
        return out
    xp_ = _pad(xp, x, g)
    wp = xp_.shape[2]
    row_span = (g.oh - 1) * g.sh + 1
    col_span = (g.ow - 1) * g.sw + 1
    for kh in range(g.kh):
        r0 = kh * g.dh
        rows = xp_[:, r0 : r0 + row_span : g.sh]  # (N, OH, Wp, C)
        rows2d = xp.ascontiguousarray(rows).reshape(-1, g.c)
        fk = xp.ascontiguousarray(f[kh].transpose(1, 0, 2)).reshape(g.c, g.kw * g.oc)
        y = (rows2d @ fk).reshape(g.n, g.oh, wp, g.kw, g.oc)
        for kw in range(g.kw):
            c0 = kw * g.dw
            tap = y[:, :, c0 : c0 + col_span : g.sw, kw, :]
            if kh == 0 and kw == 0:
                out[...] = tap
            else:
                out += tap
    return out


def conv2d_backprop_input(xp, dy, f, input_shape, strides, padding, dilations):
    g = geometry(input_shape, f.shape, strides, padding, dilations)
    hp = g.h + g.pad_top + g.pad_bottom
    wp = g.w + g.pad_left + g.pad_right
    dxp = xp.zeros((g.n, hp, wp, g.c), dtype=xp.result_type(dy.dtype, f.dtype))
    if dy.size and g.c:
        dy2d = xp.ascontiguousarray(dy).reshape(-1, g.oc)
        row_span = (g.oh - 1) * g.sh + 1
        col_span = (g.ow - 1) * g.sw + 1
        for kh in range(g.kh):
            # f[kh]: (KW, C, OC) -> (OC, KW*C)
            fk = xp.ascontiguousarray(f[kh].transpose(2, 0, 1)).reshape(g.oc, g.kw * g.c)
            z = (dy2d @ fk).reshape(g.n, g.oh, g.ow, g.kw, g.c)
            r0 = kh * g.dh
            for kw in range(g.kw):
                c0 = kw * g.dw
                dxp[:, r0 : r0 + row_span : g.sh, c0 : c0 + col_span : g.sw, :] += z[:, :, :, kw, :]
    return dxp[:, g.pad_top : g.pad_top + g.h, g.pad_left : g.pad_left + g.w, :]


def conv2d_backprop_filter(xp, x, dy, filter_shape, strides, padding, dilations):
    g = geometry(x.shape, filter_shape, strides, padding, dilations)
    df = xp.zeros(tuple(filter_shape), dtype=xp.result_type(x.dtype, dy.dtype))
    if dy.size == 0 or g.c == 0:
        return df
    xp_ = _pad(xp, x, g)
    dy2d = xp.ascontiguousarray(dy).reshape(-1, g.oc)
    row_span = (g.oh - 1) * g.sh + 1
    col_span = (g.ow - 1) * g.sw + 1
    for kh in range(g.kh):
        r0 = kh * g.dh
        for kw in range(g.kw):
            c0 = kw * g.dw
            patch = xp_[:, r0 : r0 + row_span : g.sh, c0 : c0 + col_span : g.sw, :]
            df[kh, kw] = xp.ascontiguousarray(patch).reshape(-1, g.c).T @ dy2d
    return df
