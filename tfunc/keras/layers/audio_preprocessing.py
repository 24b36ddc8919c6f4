"""Keras 3.15's audio preprocessing layers: ``MelSpectrogram`` (a mel-scaled STFT power
spectrogram, in decibels by default) and ``STFTSpectrogram`` (the STFT as a strided 1-D
convolution with trainable DFT kernels)."""

from __future__ import annotations

import math

import numpy as np

from ...api import array_ops, math_ops, nn_ops, reduction_ops, signal_ops
from ...api.array_composites import tensordot
from ...api.indexing_ops import pad
from ...eager.convert import convert_to_tensor
from .policy import PolicyLayer

_MEL_BREAK_FREQUENCY_HERTZ = 700.0
_MEL_HIGH_FREQUENCY_Q = 1127.0
_EPSILON = 1e-7  # keras.backend.epsilon()


def _log10(x):
    return math_ops.log(x) / math.log(10.0)


def _hertz_to_mel(f):
    return np.float32(_MEL_HIGH_FREQUENCY_Q) * np.log(np.float32(1.0) + f / np.float32(_MEL_BREAK_FREQUENCY_HERTZ))


def _mel_matrix(num_mel_bins, num_spectrogram_bins, sampling_rate, lower_edge_hertz, upper_edge_hertz):
    """Keras's ``linear_to_mel_weight_matrix`` (float32): ``[num_spectrogram_bins,
    num_mel_bins]`` triangular filters, the DC bin zero."""
    f32 = np.float32
    linear = np.linspace(f32(0), f32(sampling_rate) / f32(2), num_spectrogram_bins, dtype=np.float32)[1:]
    bins_mel = _hertz_to_mel(linear)[:, None]
    edges = np.linspace(
        _hertz_to_mel(f32(lower_edge_hertz)), _hertz_to_mel(f32(upper_edge_hertz)), num_mel_bins + 2, dtype=np.float32
    )
    lower, center, upper = edges[None, :-2], edges[None, 1:-1], edges[None, 2:]
    weights = np.maximum(
        f32(0), np.minimum((bins_mel - lower) / (center - lower), (upper - bins_mel) / (upper - center))
    )
    return np.pad(weights, [[1, 0], [0, 0]]).astype(np.float32)


def _stft(x, sequence_length, sequence_stride, fft_length, window):
    """Keras's ``ops.stft(..., center=True)`` (its TensorFlow backend): the real and imaginary
    parts of the STFT of the reflect-padded last axis, the window (TensorFlow's periodic 'hann'
    or 'hamming', or given values) centred in ``fft_length``."""
    if isinstance(window, str):
        if window not in ("hann", "hamming"):
            raise ValueError(
                f'If a string is passed to `window`, it must be one of `"hann"`, `"hamming"`. Received: window={window}'
            )
        make = signal_ops.hann_window if window == "hann" else signal_ops.hamming_window
        window = make(sequence_length, periodic=True, dtype=x.dtype)
    if window is not None:
        window = convert_to_tensor(window, x.dtype)
        if window.shape.rank != 1 or window.shape[-1] != sequence_length:
            raise ValueError(
                f"The shape of `window` must be equal to [sequence_length].Received: window shape={window.shape}"
            )
        left = (fft_length - sequence_length) // 2
        window = pad(window, [[left, fft_length - sequence_length - left]])
    x = pad(x, [[0, 0]] * (x.shape.rank - 1) + [[fft_length // 2, fft_length // 2]], mode="REFLECT")
    window_fn = None if window is None else (lambda n, dtype: window)
    out = signal_ops.stft(x, fft_length, sequence_stride, fft_length=fft_length, window_fn=window_fn)
    return math_ops.real(out), math_ops.imag(out)


class MelSpectrogram(PolicyLayer):
    """``[batch, num_mel_bins, frames]`` (or unbatched ``[num_mel_bins, frames]``): the centred
    STFT magnitude to ``mag_exp``, mel-filtered, and with ``power_to_db`` in dB relative to
    ``ref_power``, floored at ``top_db`` below the maximum of the whole batch (as Keras)."""

    def __init__(
        self,
        fft_length=2048,
        sequence_stride=512,
        sequence_length=None,
        window="hann",
        sampling_rate=16000,
        num_mel_bins=128,
        min_freq=20.0,
        max_freq=None,
        power_to_db=True,
        top_db=80.0,
        mag_exp=2.0,
        min_power=1e-10,
        ref_power=1.0,
        **kwargs,
    ):
        self.fft_length = fft_length
        self.sequence_stride = sequence_stride
        self.sequence_length = sequence_length or fft_length
        if self.fft_length < self.sequence_length:
            raise ValueError(
                "`fft_length` must be greater than or equal to   `sequence_length`. Received: "
                f"`sequence_length`={self.sequence_length}, `fft_length`={self.fft_length}."
            )
        self.window = window
        self.sampling_rate = sampling_rate
        self.num_mel_bins = num_mel_bins
        self.min_freq = min_freq
        self.max_freq = max_freq or int(sampling_rate / 2)
        self.power_to_db = power_to_db
        self.top_db = top_db
        self.mag_exp = mag_exp
        self.min_power = min_power
        self.ref_power = ref_power
        super().__init__(**kwargs)

    def call(self, inputs):
        # the STFT runs in float32 or float64 only
        dtype = self.compute_dtype if self.compute_dtype in ("float32", "float64") else "float32"
        x = math_ops.cast(convert_to_tensor(inputs), dtype)
        real, imag = _stft(x, self.sequence_length, self.sequence_stride, self.fft_length, self.window)
        spec = math_ops.pow(math_ops.sqrt(math_ops.square(real) + math_ops.square(imag)), self.mag_exp)
        matrix = _mel_matrix(self.num_mel_bins, spec.shape[-1], self.sampling_rate, self.min_freq, self.max_freq)
        out = tensordot(spec, convert_to_tensor(matrix, spec.dtype), axes=1)
        if self.power_to_db:
            out = 10.0 * _log10(math_ops.maximum(out, self.min_power))
            out = out - 10.0 * math.log10(max(abs(self.ref_power), self.min_power))
            out = math_ops.maximum(out, reduction_ops.reduce_max(out) - self.top_db)
        out = array_ops.transpose(out, [*range(out.shape.rank - 2), out.shape.rank - 1, out.shape.rank - 2])
        return math_ops.cast(out, self.compute_dtype)

    def compute_output_shape(self, input_shape):
        frames = (
            None if input_shape[-1] is None else (input_shape[-1] + self.sequence_stride + 1) // self.sequence_stride
        )
        return (*input_shape[:-1], self.num_mel_bins, frames)

    def get_config(self):
        return {
            **super().get_config(),
            **{
                key: getattr(self, key)
                for key in (
                    "fft_length",
                    "sequence_stride",
                    "sequence_length",
                    "window",
                    "sampling_rate",
                    "num_mel_bins",
                    "min_freq",
                    "max_freq",
                    "power_to_db",
                    "top_db",
                    "mag_exp",
                    "min_power",
                    "ref_power",
                )
            },
        }


_STFT_MODES = ["log", "magnitude", "psd", "real", "imag", "angle", "stft"]


def _window(window, length, periodic):
    """scipy's ``get_window(window, length, fftbins=periodic)`` for 'hann' and 'hamming', or the
    given values."""
    if isinstance(window, str):
        if window not in ("hann", "hamming"):
            raise ValueError(
                f"tfunc's STFTSpectrogram supports the windows 'hann' and 'hamming', got window={window!r}."
            )
        a = 0.5 if window == "hann" else 0.54
        period = length if periodic else length - 1
        return a - (1 - a) * np.cos(2 * np.pi * np.arange(length) / max(period, 1))
    return np.asarray(window)


def _stft_kernel(side, window, scaling, periodic):
    """Keras's ``initializers.STFT``: the windowed DFT's real or imaginary part as a
    ``[frame_length, 1, bins]`` convolution kernel, in float32 as Keras computes it."""

    def init(shape, dtype=None):
        frame_length, _, bins = shape
        f32 = np.float32
        freq = np.arange(bins, dtype=f32).reshape(1, 1, bins) / f32((bins - 1) * 2)
        time = np.arange(frame_length, dtype=f32).reshape(frame_length, 1, 1)
        args = (f32(-2) * time) * freq * f32(np.pi)
        kernel = np.cos(args) if side == "real" else np.sin(args)
        if window is not None:
            win = _window(window, frame_length, periodic).astype(f32)
            if win.ndim != 1 or win.shape[-1] != frame_length:
                raise ValueError(
                    f"The shape of `window` must be equal to [frame_length].Received: window shape={win.shape}"
                )
            win = win.reshape(frame_length, 1, 1)
            scale = f32(1)
            if scaling == "density":
                scale = np.sqrt(np.sum(np.square(win)))
            elif scaling == "spectrum":
                scale = np.sum(np.abs(win))
            kernel = kernel * win / scale
        return convert_to_tensor(kernel.astype(f32), dtype)

    return init


class STFTSpectrogram(PolicyLayer):
    """The STFT of each channel of ``[batch, time, channels]`` (or channels-first) signals as
    a strided convolution with DFT kernels (``real_kernel``, ``imag_kernel``: weights, so they
    can be trained): ``mode`` 'log', 'magnitude', 'psd', 'real', 'imag', 'angle' or 'stft'
    (real and imaginary parts), the channels' frequency bins concatenated (or, with
    ``expand_dims``, on an axis of their own)."""

    def __init__(
        self,
        mode="log",
        frame_length=256,
        frame_step=None,
        fft_length=None,
        window="hann",
        periodic=False,
        scaling="density",
        padding="valid",
        expand_dims=False,
        data_format=None,
        **kwargs,
    ):
        if frame_step is not None and (frame_step > frame_length or frame_step < 1):
            raise ValueError(
                "`frame_step` should be a positive integer not greater than `frame_length`. "
                f"Received frame_step={frame_step}, frame_length={frame_length}"
            )
        if fft_length is not None and fft_length < frame_length:
            raise ValueError(
                "`fft_length` should be not less than `frame_length`. "
                f"Received fft_length={fft_length}, frame_length={frame_length}"
            )
        if mode not in _STFT_MODES:
            raise ValueError(
                f"Output mode is invalid, it must be one of {', '.join(_STFT_MODES)}. Received: mode={mode}"
            )
        if scaling is not None and scaling not in ["density", "spectrum"]:
            raise ValueError(
                f"Scaling is invalid, it must be `None`, 'density' or 'spectrum'. Received scaling={scaling}"
            )
        if padding not in ["valid", "same"]:
            raise ValueError(f"Padding is invalid, it should be 'valid', 'same'. Received: padding={padding}")
        if isinstance(window, str):
            _window(window, 1, periodic)  # an unknown window name fails here, as in Keras
        if data_format not in (None, "channels_last", "channels_first"):
            raise ValueError(
                "The `data_format` argument must be one of {'channels_first', 'channels_last'}. "
                f"Received: {data_format}"
            )
        super().__init__(**kwargs)
        self.mode = mode
        self.frame_length = frame_length
        self.frame_step = frame_step
        self._frame_step = frame_step or frame_length // 2
        self.fft_length = fft_length
        self._fft_length = fft_length or 2 ** int(math.ceil(math.log2(frame_length)))
        self.window = window
        self.periodic = periodic
        self.scaling = scaling
        self.padding = padding
        self.expand_dims = expand_dims
        self.data_format = data_format or "channels_last"

    def build(self, input_shape):
        shape = (self.frame_length, 1, self._fft_length // 2 + 1)
        if self.mode != "imag":
            init = _stft_kernel("real", self.window, self.scaling, self.periodic)
            self.real_kernel = self.add_weight(name="real_kernel", shape=shape, initializer=init)
        if self.mode != "real":
            init = _stft_kernel("imag", self.window, self.scaling, self.periodic)
            self.imag_kernel = self.add_weight(name="imag_kernel", shape=shape, initializer=init)

    def _conv(self, x, kernel):
        """``[batch, channels, bins, frames]``: each channel convolved on its own (as a 1 x time
        image, the kernel 1 x frame_length)."""
        last = self.data_format == "channels_last"
        channels = x.shape[-1] if last else x.shape[1]
        time = x.shape[1] if last else x.shape[-1]
        signal = array_ops.transpose(x, [0, 2, 1]) if last else x
        signal = array_ops.reshape(signal, [-1, 1, time, 1])
        kernel = array_ops.expand_dims(math_ops.cast(kernel, x.dtype), 0)
        out = nn_ops.conv2d(signal, kernel, strides=[1, 1, self._frame_step, 1], padding=self.padding.upper())
        out = array_ops.transpose(array_ops.squeeze(out, [1]), [0, 2, 1])  # [batch * channels, bins, frames]
        return array_ops.reshape(out, [-1, channels, out.shape[1], out.shape[2]])

    def _arrange(self, x):
        _, channels, bins, frames = x.shape
        if self.expand_dims:
            return array_ops.transpose(x, [0, 3, 2, 1] if self.data_format == "channels_last" else [0, 1, 3, 2])
        x = array_ops.reshape(x, [-1, channels * bins, frames])
        return array_ops.transpose(x, [0, 2, 1]) if self.data_format == "channels_last" else x

    def call(self, inputs):
        x = convert_to_tensor(inputs)
        if x.shape.rank != 3:
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: expected ndim=3, '
                f"found ndim={x.shape.rank}. Full shape received: {tuple(x.shape.as_list())}"
            )
        if x.dtype.name not in ("float16", "float32", "float64"):
            raise TypeError(
                f"Invalid input type. Expected `float16`, `float32` or `float64`. Received: input type={x.dtype.name}"
            )
        real = None if self.mode == "imag" else self._conv(x, self.real_kernel)
        imag = None if self.mode == "real" else self._conv(x, self.imag_kernel)
        if self.mode == "real":
            return self._arrange(real)
        if self.mode == "imag":
            return self._arrange(imag)
        if self.mode == "angle":
            return self._arrange(math_ops.atan2(imag, real))
        if self.mode == "stft":
            return self._arrange(array_ops.concat([real, imag], axis=2))
        power = math_ops.square(real) + math_ops.square(imag)
        if self.mode == "psd":  # the bins but the first and last counted twice (one-sided)
            inner = pad(power[:, :, 1:-1, :], [[0, 0], [0, 0], [1, 1], [0, 0]])
            return self._arrange(power + inner)
        linear = self._arrange(math_ops.sqrt(math_ops.maximum(power, _EPSILON)))
        if self.mode == "magnitude":
            return linear
        return math_ops.log(math_ops.maximum(linear, _EPSILON))

    def get_config(self):
        return {
            **super().get_config(),
            **{
                key: getattr(self, key)
                for key in (
                    "mode",
                    "frame_length",
                    "frame_step",
                    "fft_length",
                    "window",
                    "periodic",
                    "scaling",
                    "padding",
                    "data_format",
                    "expand_dims",
                )
            },
        }
