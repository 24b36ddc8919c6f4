"""Output sizes of windowed layers (convolution, pooling), as Keras computes them, and their
window and ``data_format`` arguments."""

from __future__ import annotations

import numbers

from ...api import array_ops


def output_length(size, kernel, stride, dilation, padding):
    """Output length along one axis for ``padding`` 'valid' or 'same' (None stays None); a
    'valid' window longer than the input is refused, as Keras refuses it."""
    if size is None:
        return None
    if padding == "same":
        return -(-size // stride)
    span = (kernel - 1) * dilation + 1
    if span > size:
        raise ValueError(
            f"Computed output size would be zero or negative: an input of length {size} is shorter than "
            f"the window of {kernel} (dilation {dilation}) with padding 'valid'."
        )
    return -(-(size - span + 1) // stride)


def transpose_output_length(size, kernel, stride, dilation, padding, output_padding=None):
    """Output length of a transposed convolution (Keras's ``deconv_output_length``)."""
    if size is None:
        return None
    kernel = kernel + (kernel - 1) * (dilation - 1)
    if output_padding is None:
        if padding == "valid":
            return size * stride + max(kernel - stride, 0)
        return size * stride
    pad = 0 if padding == "valid" else kernel // 2
    return (size - 1) * stride + kernel - 2 * pad + output_padding


def triple(value, name: str) -> tuple:
    """A 3-D window argument (an int or 3 ints) as a 3-tuple of positive ints, as Keras."""
    out = (int(value),) * 3 if isinstance(value, numbers.Integral) else tuple(int(v) for v in value)
    if len(out) != 3 or any(v <= 0 for v in out):
        raise ValueError(f"The `{name}` argument must be a tuple of 3 positive integers. Received: {name}={value!r}")
    return out


def data_format_arg(data_format) -> str:
    """Keras's ``data_format`` argument: 'channels_last' (the default) or 'channels_first'."""
    value = "channels_last" if data_format is None else str(data_format).lower()
    if value not in ("channels_first", "channels_last"):
        raise ValueError(
            "The `data_format` argument must be one of {'channels_first', 'channels_last'}. "
            f"Received: data_format={data_format}"
        )
    return value


def to_channels_last(x, data_format, rank):
    """``x`` with its channels last: a channels-first input transposed (tfunc's kernels are
    channels-last, as TensorFlow's on the CPU)."""
    return x if data_format == "channels_last" else array_ops.transpose(x, [0, *range(2, rank + 2), 1])


def from_channels_last(x, data_format, rank):
    """The inverse of :func:`to_channels_last`."""
    return x if data_format == "channels_last" else array_ops.transpose(x, [0, rank + 1, *range(1, rank + 1)])


def split_shape(shape, data_format):
    """``(batch, spatial sizes, channels)`` of an input shape (a list) in ``data_format``."""
    if data_format == "channels_last":
        return shape[0], shape[1:-1], shape[-1]
    return shape[0], shape[2:], shape[1]


def join_shape(batch, spatial, channels, data_format):
    """The inverse of :func:`split_shape`."""
    if data_format == "channels_last":
        return [batch, *spatial, channels]
    return [batch, channels, *spatial]
