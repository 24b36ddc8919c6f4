"""Convolution variants (channels last, as TensorFlow): ``depthwise_conv2d`` with its two
gradient ops, ``conv2d_transpose``, and ``conv3d`` with its two gradient ops and
``conv3d_transpose``.

``depthwise_conv2d``: filter ``(kh, kw, in_channels, multiplier)``; every input channel is
convolved with its own ``multiplier`` filters, output channel ``c * multiplier + m``.
``conv2d_transpose``: filter ``(kh, kw, out_channels, in_channels)``; the adjoint of
``conv2d`` for an output of ``output_shape`` (the gradient of a conv2d with respect to its
input), as TensorFlow defines it.

NOTE: like the pooling kernels, depthwise kernels loop over the ``kh * kw`` taps with strided
views of the padded input; each tap is a broadcast multiply over (channel, multiplier).
"""

from __future__ import annotations

import itertools
from typing import NamedTuple, Optional

import numpy as np

from ..core import dtypes as D
from ..core.errors import InvalidArgumentError
from ..core.shapes import format_shape
from ..core.specs import Spec
from . import conv
from . import sampling as S
from .conv import geometry
from .infer import FLOATS, check_dtype, same_dtype
from .nn import _bpi_ref, _conv_ref, conv2d_backprop_filter_op, conv2d_backprop_input_op, conv2d_op
from .registry import OpDef, register


def _taps(g):
    rows = (g.oh - 1) * g.sh + 1
    cols = (g.ow - 1) * g.sw + 1
    for i in range(g.kh):
        for j in range(g.kw):
            r0, c0 = i * g.dh, j * g.dw
            yield i, j, (slice(None), slice(r0, r0 + rows, g.sh), slice(c0, c0 + cols, g.sw))


def _padded_shape(g):
    return (g.n, g.h + g.pad_top + g.pad_bottom, g.w + g.pad_left + g.pad_right, g.c)


# --- depthwise_conv2d ----------------------------------------------------------------------------


def _dw_infer(specs, attrs):
    x, f = specs
    dt = same_dtype("depthwise_conv2d", specs, ("input", "filter"))
    check_dtype("depthwise_conv2d", x, FLOATS, "input")
    if x.shape is None or f.shape is None:
        return (Spec((None,) * 4, dt),)
    g = geometry(x.shape, f.shape, attrs["strides"], attrs["padding"], attrs["dilations"])
    oc = None if g.c is None or f.shape[3] is None else g.c * f.shape[3]
    return (Spec((g.n, g.oh, g.ow, oc), dt),)


def _dw_impl(xp, x, f, strides, padding, dilations):
    g = geometry(x.shape, f.shape, strides, padding, dilations)
    m = f.shape[3]
    # float16/bfloat16 taps multiply and add up in float32, rounded once, as TF's kernels do
    wide = D.ACCUMULATE.get(x.dtype, x.dtype)
    out = xp.zeros((g.n, g.oh, g.ow, g.c, m), wide)
    if out.size:
        xpad = conv._pad(xp, x, g).astype(wide, copy=False)
        f = f.astype(wide, copy=False)
        for i, j, sl in _taps(g):
            out += xpad[sl][..., None] * f[i, j]
    return out.reshape(g.n, g.oh, g.ow, g.c * m).astype(x.dtype, copy=False)


def _dw_bpi_impl(xp, dy, f, x, strides, padding, dilations):
    g = geometry(x.shape, f.shape, strides, padding, dilations)
    m = f.shape[3]
    dxpad = xp.zeros(_padded_shape(g), dy.dtype)
    if dy.size:
        d = dy.reshape(g.n, g.oh, g.ow, g.c, m)
        for i, j, sl in _taps(g):
            dxpad[sl] += (d * f[i, j]).sum(axis=-1)
    return xp.ascontiguousarray(dxpad[:, g.pad_top : g.pad_top + g.h, g.pad_left : g.pad_left + g.w])


def _dw_bpf_impl(xp, x, dy, f, strides, padding, dilations):
    g = geometry(x.shape, f.shape, strides, padding, dilations)
    m = f.shape[3]
    df = xp.zeros(f.shape, dy.dtype)
    if dy.size:
        d = dy.reshape(g.n, g.oh, g.ow, g.c, m)
        xpad = conv._pad(xp, x, g)
        for i, j, sl in _taps(g):
            df[i, j] = (xpad[sl][..., None] * d).sum(axis=(0, 1, 2))
    return df


def _dw_ref(x, f, strides, padding, dilations):
    """One conv2d per (channel, multiplier) pair, through the conv2d reference."""
    c, m = f.shape[2], f.shape[3]
    parts = []
    for ch in range(c):
        parts.append(_conv_ref(x[..., ch : ch + 1], f[:, :, ch : ch + 1, :], strides, padding, dilations))
    out = np.stack(parts, axis=3)  # (n, oh, ow, c, m)
    return out.reshape(out.shape[:3] + (c * m,)).astype(x.dtype)


def _dw_cases():
    return [
        ((1, 5, 5, 2), (3, 3, 2, 1), (1, 1), "VALID", (1, 1)),
        ((2, 6, 7, 3), (3, 2, 3, 2), (2, 2), "SAME", (1, 1)),
        ((1, 7, 7, 2), (3, 3, 2, 2), (1, 1), "SAME", (2, 2)),
        ((1, 4, 4, 1), (2, 2, 1, 3), (1, 1), ((1, 0), (0, 1)), (1, 1)),
    ]


def _dw_samples(which):
    def samples(rng):
        out = []
        for dt in (D.float32, D.float64):
            for xs, fs, st, pad, dl in _dw_cases():
                a = {"strides": st, "padding": pad, "dilations": dl}
                x, f = S.draw(rng, xs, dt), S.draw(rng, fs, dt)
                if which == "forward":
                    out.append(S.Sample((x, f), a))
                    continue
                dy = S.draw(rng, _dw_ref(x, f, **a).shape, dt)
                out.append(S.Sample((dy, f, x) if which == "input" else (x, dy, f), a))
        return out

    return samples


def _dw_bpi_ref(dy, f, x, **a):
    """The adjoint by brute force: the forward map's matrix applied transposed, in float64."""
    cols = []
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = 1
        cols.append(_dw_impl(np, e.reshape(x.shape), f.astype(np.float64), **a).reshape(-1))
    return (np.stack(cols, axis=1).T @ dy.reshape(-1).astype(np.float64)).reshape(x.shape).astype(dy.dtype)


def _dw_bpf_ref(x, dy, f, **a):
    cols = []
    for k in range(f.size):
        e = np.zeros(f.size)
        e[k] = 1
        cols.append(_dw_impl(np, x.astype(np.float64), e.reshape(f.shape), **a).reshape(-1))
    return (np.stack(cols, axis=1).T @ dy.reshape(-1).astype(np.float64)).reshape(f.shape).astype(dy.dtype)


depthwise_conv2d_op = register(
    OpDef(
        name="depthwise_conv2d",
        kind="conv",
        infer=_dw_infer,
        impl=_dw_impl,
        ref=_dw_ref,
        samples=_dw_samples("forward"),
    )
)
depthwise_conv2d_backprop_input_op = register(
    OpDef(
        name="depthwise_conv2d_backprop_input",
        kind="conv",
        infer=lambda specs, attrs: (Spec(specs[2].shape, specs[0].dtype),),
        impl=_dw_bpi_impl,
        ref=_dw_bpi_ref,
        samples=_dw_samples("input"),
        shape_only_inputs=(2,),
    )
)
depthwise_conv2d_backprop_filter_op = register(
    OpDef(
        name="depthwise_conv2d_backprop_filter",
        kind="conv",
        infer=lambda specs, attrs: (Spec(specs[2].shape, specs[1].dtype),),
        impl=_dw_bpf_impl,
        ref=_dw_bpf_ref,
        samples=_dw_samples("filter"),
        shape_only_inputs=(2,),
    )
)


# --- conv2d_transpose -----------------------------------------------------------------------------


def _tr_infer(specs, attrs):
    v, f = specs
    dt = same_dtype("conv2d_transpose", specs, ("input", "filters"))
    check_dtype("conv2d_transpose", v, FLOATS, "input")
    out = attrs["output_shape"]
    if f.shape is not None and v.shape is not None and None not in out and None not in f.shape:
        g = geometry(out, f.shape, attrs["strides"], attrs["padding"], attrs["dilations"])
        expected = (g.n, g.oh, g.ow, g.oc)
        if any(a is not None and b is not None and a != b for a, b in zip(expected, v.shape)):
            raise InvalidArgumentError(
                f"conv2d_transpose: an output of shape {format_shape(out)} convolved with filters "
                f"{format_shape(f.shape)} gives {format_shape(expected)}, but the input has shape "
                f"{format_shape(v.shape)}."
            )
    return (Spec(tuple(out), dt),)


def _tr_impl(xp, value, f, output_shape, strides, padding, dilations):
    if output_shape[0] is None:  # the batch size of a run-time output_shape: the input's
        output_shape = (value.shape[0],) + tuple(output_shape[1:])
    return conv.conv2d_backprop_input(xp, value, f, output_shape, strides, padding, dilations)


def _tr_ref(value, f, output_shape, strides, padding, dilations):
    return _bpi_ref(value, f, np.zeros(output_shape), strides, padding, dilations)


def _tr_samples(rng):
    out = []
    cases = [
        ((1, 3, 3, 2), (3, 3, 1, 2), (1, 5, 5, 1), (1, 1), "VALID", (1, 1)),
        ((2, 3, 4, 3), (3, 3, 2, 3), (2, 6, 8, 2), (2, 2), "SAME", (1, 1)),
        ((1, 3, 3, 1), (2, 2, 2, 1), (1, 6, 6, 2), (2, 2), "VALID", (1, 1)),
        ((1, 4, 4, 2), (3, 3, 2, 2), (1, 4, 4, 2), (1, 1), "SAME", (2, 2)),
    ]
    for dt in (D.float32, D.float64):
        for vs, fs, os_, st, pad, dl in cases:
            out.append(
                S.Sample(
                    (S.draw(rng, vs, dt), S.draw(rng, fs, dt)),
                    {"output_shape": os_, "strides": st, "padding": pad, "dilations": dl},
                )
            )
    return out


conv2d_transpose_op = register(
    OpDef(
        name="conv2d_transpose",
        kind="conv",
        infer=_tr_infer,
        impl=_tr_impl,
        ref=_tr_ref,
        samples=_tr_samples,
    )
)


# --- conv3d, its two gradient ops and conv3d_transpose --------------------------------------------
#
# Input NDHWC, filter (kd, kh, kw, in_channels, out_channels), as TensorFlow.  A 3-D convolution is
# computed as ONE 2-D convolution (whichever conv2d kernel the backend registers): for each output
# depth, the kd input slices its window reads are laid side by side along the channels, giving an
# (N * OD, H, W, KD * C) input, and the filter becomes (KH, KW, KD * C, OC).  The gradients are the
# 2-D gradients on the same layout (the input's scattered back slice by slice).


class _Depth(NamedTuple):
    """The depth axis of a 3-D convolution: output size, padding in front and behind, window,
    stride and dilation."""

    od: Optional[int]
    front: int
    back: int
    kd: int
    sd: int
    dd: int


def _split3d(x_shape, f_shape, strides, padding, dilations):
    """``(depth, attrs of the 2-D convolution over height and width)``."""
    if len(x_shape) != 5 or len(f_shape) != 5:
        raise InvalidArgumentError(
            f"conv3d input must be rank 5 (NDHWC) and filter rank 5 (DHWIO), got shapes "
            f"{format_shape(x_shape)} and {format_shape(f_shape)}."
        )
    if min(*strides, *dilations) < 1:
        raise InvalidArgumentError(f"conv3d strides and dilations must be >= 1, got {strides} and {dilations}.")
    pad_d, pad_hw = (padding, padding) if isinstance(padding, str) else (padding[0], tuple(padding[1:]))
    od, front, back = conv._out_size_or_unknown(x_shape[1], f_shape[0], strides[0], dilations[0], pad_d)
    hw = {"strides": tuple(strides[1:]), "padding": pad_hw, "dilations": tuple(dilations[1:])}
    return _Depth(od, front, back, f_shape[0], strides[0], dilations[0]), hw


def _2d_shapes(x_shape, f_shape, dg):
    """The shapes of the stacked 2-D input and filter."""
    n, _, h, w, c = x_shape
    kd, kh, kw, _, oc = f_shape
    return (n * dg.od, h, w, kd * c), (kh, kw, kd * c, oc)


def _depth_slices(dg):
    """Per depth tap, the slice of the (depth-padded) input it reads for every output depth."""
    span = (dg.od - 1) * dg.sd + 1
    return [(i, slice(i * dg.dd, i * dg.dd + span, dg.sd)) for i in range(dg.kd)]


def _stack_depth(xp, x, dg):
    n, d, h, w, c = x.shape
    xpad = xp.pad(x, ((0, 0), (dg.front, dg.back), (0, 0), (0, 0), (0, 0))) if dg.front or dg.back else x
    cols = xp.empty((n, dg.od, h, w, dg.kd, c), x.dtype)
    for i, sl in _depth_slices(dg):
        cols[:, :, :, :, i] = xpad[:, sl]
    return cols.reshape(n * dg.od, h, w, dg.kd * c)


def _flat_filter(xp, f):
    kd, kh, kw, c, oc = f.shape
    return xp.ascontiguousarray(f.transpose(1, 2, 0, 3, 4)).reshape(kh, kw, kd * c, oc)


def _shape_only(xp, shape, dtype):
    """A zero-stride array of ``shape``: the 2-D gradient kernels read that argument's shape only."""
    return xp.broadcast_to(xp.zeros((), dtype), shape)


def _c3_impl(xp, x, f, strides, padding, dilations):
    dg, hw = _split3d(x.shape, f.shape, strides, padding, dilations)
    y = conv2d_op.kernel(xp)(xp, _stack_depth(xp, x, dg), _flat_filter(xp, f), **hw)
    return y.reshape((x.shape[0], dg.od) + y.shape[1:])


def _c3_input_grad(xp, dy, f, x_shape, strides, padding, dilations):
    dg, hw = _split3d(x_shape, f.shape, strides, padding, dilations)
    n, d, h, w, c = x_shape
    x2, _ = _2d_shapes(x_shape, f.shape, dg)
    dy2 = dy.reshape((x2[0],) + dy.shape[2:])
    dcols = conv2d_backprop_input_op.kernel(xp)(xp, dy2, _flat_filter(xp, f), _shape_only(xp, x2, dy.dtype), **hw)
    dcols = dcols.reshape(n, dg.od, h, w, dg.kd, c)
    dxpad = xp.zeros((n, d + dg.front + dg.back, h, w, c), dy.dtype)
    for i, sl in _depth_slices(dg):
        dxpad[:, sl] += dcols[:, :, :, :, i]
    return xp.ascontiguousarray(dxpad[:, dg.front : dg.front + d])


def _c3_bpi_impl(xp, dy, f, x, strides, padding, dilations):
    return _c3_input_grad(xp, dy, f, x.shape, strides, padding, dilations)


def _c3_bpf_impl(xp, x, dy, f, strides, padding, dilations):
    dg, hw = _split3d(x.shape, f.shape, strides, padding, dilations)
    x2, f2 = _2d_shapes(x.shape, f.shape, dg)
    dy2 = dy.reshape((x2[0],) + dy.shape[2:])
    df = conv2d_backprop_filter_op.kernel(xp)(xp, _stack_depth(xp, x, dg), dy2, _shape_only(xp, f2, dy.dtype), **hw)
    kd, kh, kw, c, oc = f.shape
    return xp.ascontiguousarray(df.reshape(kh, kw, kd, c, oc).transpose(2, 0, 1, 3, 4))


def _c3_infer(specs, attrs):
    x, f = specs
    dt = same_dtype("conv3d", specs, ("input", "filters"))
    check_dtype("conv3d", x, FLOATS, "input")
    if x.shape is None or f.shape is None:
        return (Spec((None,) * 5, dt),)
    dg, hw = _split3d(x.shape, f.shape, attrs["strides"], attrs["padding"], attrs["dilations"])
    n, _, h, w, c = x.shape
    kd, kh, kw, fc, oc = f.shape
    g = geometry((n, h, w, c), (kh, kw, fc, oc), **hw)
    return (Spec((n, dg.od, g.oh, g.ow, oc), dt),)


def _nd_taps(x_shape, f_shape, strides, padding, dilations):
    """``(per-axis (out, before, after), [(tap, slices of the padded input), ...])`` of an N-d
    convolution, for the references."""
    rank = len(x_shape) - 2
    pads = (padding,) * rank if isinstance(padding, str) else padding
    axes = [conv.out_size(*a) for a in zip(x_shape[1:-1], f_shape[:-2], strides, dilations, pads)]
    taps = [
        (
            tap,
            (slice(None),)
            + tuple(
                slice(t * d, t * d + (o - 1) * s + 1, s) for t, (o, _, _), s, d in zip(tap, axes, strides, dilations)
            ),
        )
        for tap in itertools.product(*(range(k) for k in f_shape[:-2]))
    ]
    return axes, taps


def _nd_pad(a, axes):
    return np.pad(a.astype(np.float64), [(0, 0)] + [(b, e) for _, b, e in axes] + [(0, 0)])


def _c3_ref(x, f, strides, padding, dilations):
    """Direct summation over the window's taps in float64."""
    axes, taps = _nd_taps(x.shape, f.shape, strides, padding, dilations)
    xpad = _nd_pad(x, axes)
    out = np.zeros((x.shape[0], *(o for o, _, _ in axes), f.shape[-1]))
    for tap, sl in taps:
        out += xpad[sl] @ f[tap].astype(np.float64)
    return out.astype(x.dtype)


def _c3_input_grad_ref(dy, f, x_shape, strides, padding, dilations):
    """The adjoint of the reference by direct scatter, in float64."""
    axes, taps = _nd_taps(x_shape, f.shape, strides, padding, dilations)
    dxpad = _nd_pad(np.zeros(x_shape), axes)
    for tap, sl in taps:
        dxpad[sl] += dy.astype(np.float64) @ f[tap].T
    inner = (slice(None),) + tuple(slice(b, b + n) for (_, b, _), n in zip(axes, x_shape[1:-1]))
    return dxpad[inner].astype(dy.dtype)


def _c3_bpf_ref(x, dy, f, strides, padding, dilations):
    axes, taps = _nd_taps(x.shape, f.shape, strides, padding, dilations)
    xpad = _nd_pad(x, axes)
    df = np.zeros(f.shape)
    batch_and_space = list(range(x.ndim - 1))
    for tap, sl in taps:
        df[tap] = np.tensordot(xpad[sl], dy.astype(np.float64), (batch_and_space, batch_and_space))
    return df.astype(x.dtype)


def _c3_cases():
    return [
        ((1, 4, 4, 4, 2), (2, 2, 2, 2, 3), (1, 1, 1), "VALID", (1, 1, 1)),
        ((2, 3, 5, 4, 2), (2, 3, 2, 2, 2), (2, 2, 1), "SAME", (1, 1, 1)),
        ((1, 5, 4, 4, 1), (2, 2, 2, 1, 2), (1, 1, 1), "SAME", (2, 1, 2)),
        ((1, 3, 4, 3, 2), (2, 2, 2, 2, 2), (1, 2, 1), ((1, 0), (0, 1), (1, 1)), (1, 1, 1)),
        ((1, 2, 3, 3, 1), (3, 2, 2, 1, 1), (1, 1, 1), "VALID", (1, 1, 1)),  # window deeper than the input
    ]


def _c3_samples(which):
    def samples(rng):
        out = []
        for dt in (D.float32, D.float64):
            for xs, fs, st, pad, dl in _c3_cases():
                a = {"strides": st, "padding": pad, "dilations": dl}
                x, f = S.draw(rng, xs, dt), S.draw(rng, fs, dt)
                if which == "forward":
                    out.append(S.Sample((x, f), a))
                    continue
                dy = S.draw(rng, _c3_ref(x, f, **a).shape, dt)
                if which == "transpose":
                    out.append(S.Sample((dy, f), {"output_shape": xs, **a}))
                else:
                    out.append(S.Sample((dy, f, x) if which == "input" else (x, dy, f), a))
        return out

    return samples


def _c3_tr_infer(specs, attrs):
    v, f = specs
    dt = same_dtype("conv3d_transpose", specs, ("input", "filters"))
    check_dtype("conv3d_transpose", v, FLOATS, "input")
    out = attrs["output_shape"]
    if f.shape is not None and v.shape is not None and None not in out and None not in f.shape:
        expected = _c3_infer((Spec(tuple(out), dt), f), attrs)[0].shape
        if any(a is not None and b is not None and a != b for a, b in zip(expected, v.shape)):
            raise InvalidArgumentError(
                f"conv3d_transpose: an output of shape {format_shape(out)} convolved with filters "
                f"{format_shape(f.shape)} gives {format_shape(expected)}, but the input has shape "
                f"{format_shape(v.shape)}."
            )
    return (Spec(tuple(out), dt),)


def _c3_tr_impl(xp, value, f, output_shape, strides, padding, dilations):
    if output_shape[0] is None:  # the batch size of a run-time output_shape: the input's
        output_shape = (value.shape[0],) + tuple(output_shape[1:])
    return _c3_input_grad(xp, value, f, tuple(output_shape), strides, padding, dilations)


conv3d_op = register(
    OpDef(name="conv3d", kind="conv", infer=_c3_infer, impl=_c3_impl, ref=_c3_ref, samples=_c3_samples("forward"))
)
conv3d_backprop_input_op = register(
    OpDef(
        name="conv3d_backprop_input",
        kind="conv",
        infer=lambda specs, attrs: (Spec(specs[2].shape, specs[0].dtype),),
        impl=_c3_bpi_impl,
        ref=lambda dy, f, x, **a: _c3_input_grad_ref(dy, f, x.shape, **a),
        samples=_c3_samples("input"),
        shape_only_inputs=(2,),
    )
)
conv3d_backprop_filter_op = register(
    OpDef(
        name="conv3d_backprop_filter",
        kind="conv",
        infer=lambda specs, attrs: (Spec(specs[2].shape, specs[1].dtype),),
        impl=_c3_bpf_impl,
        ref=_c3_bpf_ref,
        samples=_c3_samples("filter"),
        shape_only_inputs=(2,),
    )
)
conv3d_transpose_op = register(
    OpDef(
        name="conv3d_transpose",
        kind="conv",
        infer=_c3_tr_infer,
        impl=_c3_tr_impl,
        ref=lambda v, f, output_shape, **a: _c3_input_grad_ref(v, f, output_shape, **a),
        samples=_c3_samples("transpose"),
    )
)
