"""``tfunc.signal``: Fourier transforms (the ops of :mod:`tfunc.ops.spectral`), and, composed of
other ops as TensorFlow composes them, frames, windows, the short-time Fourier transform and
its inverse, discrete cosine transforms, mel filter banks and MFCCs.

What TensorFlow lets be a tensor here (``fft_length``, ``frame_length``, ``frame_step``, ``n``)
must be known while tracing in tfunc: a Python int or a constant.  Only the signal's own
length may be known at run time only (``frame``, ``overlap_and_add``, ``stft``).  The
composites differentiate like their parts; the transforms themselves are complex valued, which
tfunc's autodiff refuses (see :mod:`tfunc.autodiff.tape`).
"""

from __future__ import annotations

import math

import numpy as np

from ..core import dtypes as D
from ..core.errors import InvalidArgumentError
from ..eager.convert import constant, convert_to_tensor
from ..eager.dispatch import call
from ..ops import spectral as S
from ..ops.infer import normalize_axis
from . import math_ops as m
from .array_composites import roll, tensordot
from .array_ops import _required_static_ints, concat, expand_dims, gather, reshape, shape, shape_list, tile, transpose
from .creation_ops import fill, ones
from .creation_ops import range as tf_range
from .indexing_ops import pad
from .reduction_ops import reduce_sum

__all__ = [
    "fft",
    "ifft",
    "fft2d",
    "ifft2d",
    "fft3d",
    "ifft3d",
    "rfft",
    "irfft",
    "rfft2d",
    "irfft2d",
    "rfft3d",
    "irfft3d",
    "fftshift",
    "ifftshift",
    "frame",
    "overlap_and_add",
    "hann_window",
    "hamming_window",
    "vorbis_window",
    "stft",
    "inverse_stft",
    "inverse_stft_window_fn",
    "dct",
    "idct",
    "linear_to_mel_weight_matrix",
    "mfccs_from_log_mel_spectrograms",
]


def _static_int(value, what, fn):
    """``value`` as a Python int: a number, or a tensor whose value is known while tracing."""
    values = _required_static_ints(value, what, fn)
    if len(values) != 1:
        raise ValueError(f"{fn}: {what} must be one integer, got {value!r}.")
    return values[0]


def _static_ints(value, count, what, fn):
    """``count`` non-negative ints known while tracing (``fft_length``)."""
    values = _required_static_ints(value, what, fn)
    if len(values) != count:
        raise ValueError(f"{fn}: {what} must have {count} element(s), got {value!r}.")
    if any(x < 0 for x in values):
        raise ValueError(f"{fn}: {what} must not be negative, got {value!r}.")
    return tuple(values)


# --- complex transforms ---------------------------------------------------------------------------


def _complex_transform(rank, inverse):
    def transform(input, name=None):
        return call(S.fft_op, (convert_to_tensor(input),), {"rank": rank, "inverse": inverse})

    transform.__name__ = f"{'i' if inverse else ''}fft{'' if rank == 1 else f'{rank}d'}"
    transform.__doc__ = (
        f"The {'inverse ' if inverse else ''}discrete Fourier transform over the innermost {rank} "
        "axis(es) of a complex tensor (unnormalized forward, divided by the size inverse, as TensorFlow)."
    )
    return transform


fft, ifft = _complex_transform(1, False), _complex_transform(1, True)
fft2d, ifft2d = _complex_transform(2, False), _complex_transform(2, True)
fft3d, ifft3d = _complex_transform(3, False), _complex_transform(3, True)


# --- real transforms --------------------------------------------------------------------------------


def _real_input(value, fn):
    x = convert_to_tensor(value, dtype_hint=D.float32)
    if x.dtype not in (D.float32, D.float64):
        raise ValueError(f"{fn.upper()} requires tf.float32 or tf.float64 inputs, got: {x!r}")
    return x


def _inner_dims(x, rank, fn):
    if x.shape.rank is None or x.shape.rank < rank:
        raise ValueError(f"{fn}: input must be at least rank {rank}, got shape {x.shape}.")
    dims = x.shape.as_list()[-rank:]
    if None in dims:
        raise ValueError(f"{fn}: tfunc needs fft_length when the innermost dimensions are known only at run time.")
    return dims


def _real_transform(rank):
    fn = f"rfft{'' if rank == 1 else f'{rank}d'}"

    def transform(input_tensor, fft_length=None, name=None):
        x = _real_input(input_tensor, fn)
        if fft_length is None:
            n = tuple(_inner_dims(x, rank, fn))
        else:
            n = _static_ints(fft_length, rank, "fft_length", fn)
        return call(S.rfft_op, (x,), {"rank": rank, "fft_length": n})

    transform.__name__ = fn
    transform.__doc__ = (
        f"The discrete Fourier transform over the innermost {rank} axis(es) of a real tensor: the last axis "
        "keeps its fft_length // 2 + 1 non-negative frequencies; ``fft_length`` pads or crops first."
    )
    return transform


def _inverse_real_transform(rank):
    fn = f"irfft{'' if rank == 1 else f'{rank}d'}"

    def transform(input_tensor, fft_length=None, name=None):
        x = convert_to_tensor(input_tensor, dtype_hint=D.complex64)
        if not x.dtype.is_complex:
            raise ValueError(f"{fn.upper()} requires tf.complex64 or tf.complex128 inputs, got: {x!r}")
        if fft_length is None:
            dims = _inner_dims(x, rank, fn)
            n = tuple(dims[:-1]) + (2 * (dims[-1] - 1),)
        else:
            n = _static_ints(fft_length, rank, "fft_length", fn)
        return call(S.irfft_op, (x,), {"rank": rank, "fft_length": n})

    transform.__name__ = fn
    transform.__doc__ = (
        f"The inverse of :func:`rfft` over the innermost {rank} axis(es): a real tensor whose innermost "
        "axes have fft_length (by default the input's, the last one 2 * (n - 1))."
    )
    return transform


rfft, irfft = _real_transform(1), _inverse_real_transform(1)
rfft2d, irfft2d = _real_transform(2), _inverse_real_transform(2)
rfft3d, irfft3d = _real_transform(3), _inverse_real_transform(3)


def _shift(x, axes, sign):
    x = convert_to_tensor(x)
    if x.shape.rank is None:
        raise ValueError("fftshift: the input's rank must be known while tracing.")
    axes = list(range(x.shape.rank)) if axes is None else ([axes] if isinstance(axes, int) else list(axes))
    dims = shape_list(x)  # Python ints where known: static shifts
    shifts = [sign * (dims[a] // 2) for a in axes]
    return roll(x, shifts, axes) if axes else x


def fftshift(x, axes=None, name=None):
    """The zero frequency moved to the middle of each of ``axes`` (all of them by default)."""
    return _shift(x, axes, 1)


def ifftshift(x, axes=None, name=None):
    """The inverse of :func:`fftshift`."""
    return _shift(x, axes, -1)


# --- frames ------------------------------------------------------------------------------------------


def _at_least_0(v):
    """``max(0, v)`` of a Python int (a size known while tracing) or of a scalar tensor."""
    return max(0, v) if isinstance(v, int) else m.maximum(0, v)


def _frame_indices(num_frames, frame_length, frame_step):
    """[num_frames, frame_length] positions: frame f holds samples f * step ... f * step + length - 1."""
    starts = m.multiply(tf_range(num_frames), frame_step)
    return m.add(expand_dims(starts, 1), expand_dims(tf_range(frame_length), 0))


def frame(signal, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1, name=None):
    """Frames of ``frame_length`` samples every ``frame_step`` samples along ``axis``; that axis
    becomes [frames, frame_length].  ``pad_end`` pads the signal with ``pad_value`` so that
    every sample starts a frame's worth of samples (the last frames then run past the end)."""
    x = convert_to_tensor(signal)
    length_ = _static_int(frame_length, "frame_length", "frame")
    step = _static_int(frame_step, "frame_step", "frame")
    if length_ < 0 or step <= 0:
        raise ValueError(f"frame: frame_length must be >= 0 and frame_step > 0, got {frame_length} and {frame_step}.")
    if x.shape.rank is None or x.shape.rank == 0:
        raise ValueError(f"frame: signal must have rank >= 1 known while tracing, got shape {x.shape}.")
    axis = normalize_axis(int(axis), x.shape.rank, "frame")
    dims = shape_list(x)  # Python ints where known while tracing: the frame count (and shape) stays static
    n = dims[axis]
    if pad_end:
        frames = (n + (step - 1)) // step  # every sample starts a frame
        dims[axis] = _at_least_0((frames - 1) * step + length_ - n)
        x = concat([x, fill(dims, m.cast(pad_value, x.dtype))], axis)
    else:
        frames = _at_least_0(1 + (n - length_) // step)
    return gather(x, _frame_indices(frames, length_, step), axis=axis)


def overlap_and_add(signal, frame_step, name=None):
    """The frames of ``signal`` ([..., frames, frame_length]) added, each ``frame_step`` samples
    after the previous one: [..., (frames - 1) * frame_step + frame_length]."""
    x = convert_to_tensor(signal)
    step = _static_int(frame_step, "frame_step", "overlap_and_add")
    if step <= 0:
        raise ValueError(f"overlap_and_add: frame_step must be positive, got {frame_step}.")
    rank = x.shape.rank
    if rank is None or rank < 2:
        raise ValueError(f"overlap_and_add: signal must have rank >= 2 known while tracing, got shape {x.shape}.")
    length_ = x.shape[-1]
    if length_ is None:
        raise ValueError("overlap_and_add: tfunc needs the frame length (the last dimension) known while tracing.")
    length_ = int(length_)
    # TensorFlow's reshapes, no scatter: each frame cut into `segments` pieces of frame_step
    # samples; piece j of frame f lands at output block f + j, so shifting piece j down j frames
    # and summing over j overlaps them.  Only the number of frames may be known at run time.
    # The sizes are Python ints where known while tracing, so the result's shape stays static.
    segments = -(-length_ // step)
    *outer, frames, _ = shape_list(x)
    x = pad(x, [[0, 0]] * (rank - 2) + [[0, segments], [0, segments * step - length_]])
    x = reshape(x, outer + [frames + segments, segments, step])
    x = transpose(x, list(range(rank - 2)) + [rank - 1, rank - 2, rank])  # [..., segments, frames + segments, step]
    x = reshape(x, outer + [segments * (frames + segments), step])
    x = x[..., : (frames + segments - 1) * segments, :]  # each piece row now starts one frame later
    x = reduce_sum(reshape(x, outer + [segments, frames + segments - 1, step]), rank - 2)
    x = reshape(x, outer + [(frames + segments - 1) * step])
    return x[..., : _at_least_0((frames - 1) * step + length_)]


# --- windows -----------------------------------------------------------------------------------------


def _raised_cosine(window_length, periodic, dtype, a, b, fn):
    dtype = D.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"{fn}: dtype must be a floating point type, got {dtype.name}.")
    n = _static_int(window_length, "window_length", fn)
    if n < 0:
        raise ValueError(f"{fn}: window_length must be non-negative, got {window_length}.")
    if n == 1:
        return ones([1], dtype)
    # as TensorFlow: an odd-length periodic window is the symmetric one
    denom = n + int(bool(periodic)) * (1 - n % 2) - 1
    count = m.cast(tf_range(n), dtype)
    return a - b * m.cos(count * (2.0 * math.pi / max(denom, 1)))


def hann_window(window_length, periodic=True, dtype=D.float32, name=None):
    """``0.5 - 0.5 cos(2 pi n / N)``: N is the length when periodic (even lengths), else length - 1."""
    return _raised_cosine(window_length, periodic, dtype, 0.5, 0.5, "hann_window")


def hamming_window(window_length, periodic=True, dtype=D.float32, name=None):
    """``0.54 - 0.46 cos(2 pi n / N)``, N as in :func:`hann_window`."""
    return _raised_cosine(window_length, periodic, dtype, 0.54, 0.46, "hamming_window")


def vorbis_window(window_length, dtype=D.float32, name=None):
    """``sin(pi / 2 sin^2(pi (n + 1/2) / N))``: power complementary at half overlap."""
    dtype = D.as_dtype(dtype)
    n = _static_int(window_length, "window_length", "vorbis_window")
    arg = (m.cast(tf_range(n), dtype) + 0.5) * (math.pi / max(n, 1))  # n == 0: empty, as TensorFlow
    return m.sin((math.pi / 2) * m.square(m.sin(arg)))


# --- short-time Fourier transform ---------------------------------------------------------------


def _enclosing_power_of_two(n):
    return 1 if n <= 1 else 2 ** math.ceil(math.log2(n))


def stft(signals, frame_length, frame_step, fft_length=None, window_fn=hann_window, pad_end=False, name=None):
    """The short-time Fourier transform of real ``signals`` [..., samples]: frames windowed by
    ``window_fn(frame_length, dtype=...)`` (None: no window), each transformed by :func:`rfft`
    (``fft_length`` by default the smallest power of two holding a frame):
    [..., frames, fft_length // 2 + 1]."""
    x = _real_input(signals, "stft")
    length_ = _static_int(frame_length, "frame_length", "stft")
    n = _enclosing_power_of_two(length_) if fft_length is None else _static_int(fft_length, "fft_length", "stft")
    framed = frame(x, length_, frame_step, pad_end=pad_end)
    if window_fn is not None:
        framed = framed * window_fn(length_, dtype=x.dtype)
    return rfft(framed, [n])


def inverse_stft_window_fn(frame_step, forward_window_fn=hann_window, name=None):
    """A window for :func:`inverse_stft` that undoes ``forward_window_fn``'s overlapping
    windows (each sample divided by the sum of squared windows over it)."""
    step = _static_int(frame_step, "frame_step", "inverse_stft_window_fn")

    def window(frame_length, dtype=D.float32):
        length_ = _static_int(frame_length, "frame_length", "inverse_stft_window_fn")
        forward = forward_window_fn(length_, dtype=dtype)
        overlaps = -(-length_ // step)
        squares = concat([m.square(forward), m.cast(np.zeros(overlaps * step - length_), forward.dtype)], 0)
        denom = reduce_sum(reshape(squares, [overlaps, step]), 0)
        denom = reshape(tile(expand_dims(denom, 0), [overlaps, 1]), [overlaps * step])
        return forward / denom[:length_]

    return window


def inverse_stft(stfts, frame_length, frame_step, fft_length=None, window_fn=hann_window, name=None):
    """Signals from their short-time Fourier transforms ([..., frames, fft_length // 2 + 1]):
    frames by :func:`irfft`, cut or zero-padded to ``frame_length``, windowed and overlap-added.
    With ``window_fn=inverse_stft_window_fn(frame_step)``, it inverts :func:`stft`."""
    x = convert_to_tensor(stfts, dtype_hint=D.complex64)
    length_ = _static_int(frame_length, "frame_length", "inverse_stft")
    n = _static_int(fft_length, "fft_length", "inverse_stft") if fft_length is not None else None
    n = _enclosing_power_of_two(length_) if n is None else n
    frames = irfft(x, [n])
    if length_ <= n:
        frames = frames[..., :length_]
    else:
        frames = concat([frames, fill(shape_list(frames)[:-1] + [length_ - n], m.cast(0, frames.dtype))], -1)
    if window_fn is not None:
        frames = frames * window_fn(length_, dtype=frames.dtype)
    return overlap_and_add(frames, frame_step)


# --- discrete cosine transforms -----------------------------------------------------------------


def _dct_basis(kind, n, norm):
    """B with ``dct(x) = x @ B.T`` (float64), as TensorFlow (and SciPy) define types 1 to 4."""
    k = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    if kind == 1:
        b = 2.0 * np.cos(np.pi * k * j / (n - 1))
        b[:, 0] /= 2.0
        b[:, -1] /= 2.0
        return b
    if kind == 2:
        b = 2.0 * np.cos(np.pi * k * (2 * j + 1) / (2 * n))
        if norm == "ortho":
            b *= np.sqrt(1.0 / (2 * n))
            b[0] *= np.sqrt(0.5)
        return b
    if kind == 3:
        b = np.cos(np.pi * j * (2 * k + 1) / (2 * n))
        if norm == "ortho":  # the inverse of the orthonormal type 2
            b *= np.sqrt(2.0 / n)
            b[:, 0] = np.sqrt(1.0 / n)
        else:
            b[:, 1:] *= 2.0
        return b
    b = 2.0 * np.cos(np.pi * (2 * j + 1) * (2 * k + 1) / (4 * n))
    return b * np.sqrt(1.0 / (2 * n)) if norm == "ortho" else b


def dct(input, type=2, n=None, axis=-1, norm=None, name=None):
    """The discrete cosine transform (types 1 to 4) of the last axis, optionally cut or
    zero-padded to ``n`` samples first; ``norm='ortho'`` makes types 2 to 4 orthonormal."""
    x = convert_to_tensor(input, dtype_hint=D.float32)
    if x.dtype not in (D.float16, D.bfloat16, D.float32, D.float64):
        raise ValueError(f"dct: input must be floating point, got {x.dtype.name}.")
    if type not in (1, 2, 3, 4):
        raise ValueError(f"dct: only types 1, 2, 3 and 4 are supported, got type={type}.")
    if axis != -1:
        raise NotImplementedError("axis must be -1. Got: %s" % axis)
    if norm not in (None, "ortho"):
        raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")
    if type == 1 and norm == "ortho":
        raise ValueError("Normalization not supported when type is 1.")
    if x.shape.rank is None or x.shape.rank == 0 or x.shape[-1] is None:
        raise ValueError(f"dct: the last dimension must be known while tracing, got shape {x.shape}.")
    size = int(x.shape[-1])
    if n is not None:
        n = _static_int(n, "n", "dct")
        if n < 1:
            raise ValueError(f"n should be a positive integer or None, got {n}.")
        if n < size:
            x, size = x[..., :n], n
        elif n > size:
            pad_shape = concat([shape(x, out_type=D.int32)[:-1], constant([n - size], D.int32)], 0)
            x, size = concat([x, fill(pad_shape, m.cast(0, x.dtype))], -1), n
    if type == 1 and size < 2:
        raise ValueError(f"dct: type 1 needs at least 2 samples, got {size}.")
    basis = constant(_dct_basis(type, size, norm).T.astype(x.dtype.as_numpy_dtype))
    return tensordot(x, basis, 1)


def idct(input, type=2, n=None, axis=-1, norm=None, name=None):
    """The inverse of :func:`dct` up to a scale: type 2 and 3 are each other's inverse, 1 and 4
    their own; with ``norm='ortho'``, ``idct(dct(x)) == x`` (otherwise ``2 N x``)."""
    if type not in (1, 2, 3, 4):
        raise ValueError(f"idct: only types 1, 2, 3 and 4 are supported, got type={type}.")
    return dct(input, type={1: 1, 2: 3, 3: 2, 4: 4}[type], n=n, axis=axis, norm=norm)


# --- mel filter banks and MFCCs ------------------------------------------------------------------


def _hertz_to_mel(f):
    return 1127.0 * np.log(1.0 + f / 700.0)


def linear_to_mel_weight_matrix(
    num_mel_bins=20,
    num_spectrogram_bins=129,
    sample_rate=8000,
    lower_edge_hertz=125.0,
    upper_edge_hertz=3800.0,
    dtype=D.float32,
    name=None,
):
    """[num_spectrogram_bins, num_mel_bins] triangular filters, evenly spaced on the mel scale
    (HTK's ``1127 ln(1 + f / 700)``) between the two edges; the DC bin gets no weight."""
    dtype = D.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type. Got: {dtype.name}")
    bins = _static_int(num_mel_bins, "num_mel_bins", "linear_to_mel_weight_matrix")
    spectrogram_bins = _static_int(num_spectrogram_bins, "num_spectrogram_bins", "linear_to_mel_weight_matrix")
    rate, lower, upper = float(sample_rate), float(lower_edge_hertz), float(upper_edge_hertz)
    if bins <= 0:
        raise ValueError(f"num_mel_bins must be positive. Got: {bins}")
    if lower < 0.0:
        raise ValueError(f"lower_edge_hertz must be non-negative. Got: {lower}")
    if lower >= upper:
        raise ValueError(f"lower_edge_hertz {lower} >= upper_edge_hertz {upper}")
    if rate <= 0.0:
        raise ValueError(f"sample_rate must be positive. Got: {rate}")
    if upper > rate / 2:
        raise ValueError(
            f"upper_edge_hertz must not be larger than the Nyquist frequency (sample_rate / 2). Got {upper}"
        )
    npt = dtype.as_numpy_dtype if dtype is not D.bfloat16 else np.float32
    # computed in the requested precision, as TensorFlow's ops would
    linear = np.linspace(0.0, rate / 2.0, spectrogram_bins, dtype=npt)[1:]
    spectrum_mel = _hertz_to_mel(linear)[:, None]
    edges = np.linspace(_hertz_to_mel(npt(lower)), _hertz_to_mel(npt(upper)), bins + 2, dtype=npt)
    lo, center, hi = edges[:-2][None, :], edges[1:-1][None, :], edges[2:][None, :]
    lower_slopes = (spectrum_mel - lo) / (center - lo)
    upper_slopes = (hi - spectrum_mel) / (hi - center)
    weights = np.maximum(npt(0), np.minimum(lower_slopes, upper_slopes))
    weights = np.concatenate([np.zeros((1, bins), npt), weights], 0).astype(npt)
    return m.cast(constant(weights), dtype)


def mfccs_from_log_mel_spectrograms(log_mel_spectrograms, name=None):
    """Mel-frequency cepstral coefficients: the orthonormal-scaled type 2 DCT of log mel
    spectrograms ([..., num_mel_bins]), ``dct(x) / sqrt(2 num_mel_bins)`` as TensorFlow."""
    x = convert_to_tensor(log_mel_spectrograms, dtype_hint=D.float32)
    if x.shape.rank is None or x.shape.rank == 0 or x.shape[-1] is None:
        raise ValueError(f"mfccs_from_log_mel_spectrograms: the mel bins must be known while tracing, got {x.shape}.")
    bins = int(x.shape[-1])
    if bins == 0:
        raise InvalidArgumentError("mfccs_from_log_mel_spectrograms: num_mel_bins must be positive.")
    return dct(x, type=2) * (1.0 / math.sqrt(2.0 * bins))
