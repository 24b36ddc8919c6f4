"""Convolution variants (NHWC, as TensorFlow): ``depthwise_conv2d`` with its two gradient
ops, and ``conv2d_transpose``.

``depthwise_conv2d``: filter ``(kh, kw, in_channels, multiplier)``; every input channel is
convolved with its own ``multiplier`` filters, output channel ``c * multiplier + m``.
``conv2d_transpose``: filter ``(kh, kw, out_channels, in_channels)``; the adjoint of
``conv2d`` for an output of ``output_shape`` (the gradient of a conv2d with respect to its
input), as TensorFlow defines it.

NOTE: like the pooling kernels, depthwise kernels loop over the ``kh * kw`` taps with strided
views of the padded input; each tap is a broadcast multiply over (channel, multiplier).
"""

from __future__ import annotations

import numpy as np

from ..core import dtypes as D
from ..core.errors import InvalidArgumentError
from ..core.shapes import format_shape
from ..core.specs import Spec
from . import conv
from . import sampling as S
from .conv import geometry
from .infer import FLOATS, check_dtype, same_dtype
from .nn import _bpi_ref, _conv_ref
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
    out = xp.zeros((g.n, g.oh, g.ow, g.c, m), x.dtype)
    if out.size:
        xpad = conv._pad(xp, x, g)
        for i, j, sl in _taps(g):
            out += xpad[sl][..., None] * f[i, j]
    return out.reshape(g.n, g.oh, g.ow, g.c * m)


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
