"""Output sizes of windowed layers (convolution, pooling), as Keras computes them."""

from __future__ import annotations


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
