"""Regularization layers: ``Dropout``, ``SpatialDropout1D/2D/3D``, ``GaussianNoise``,
``GaussianDropout``, ``AlphaDropout`` and ``ActivityRegularization``.

The noise layers change their inputs only in training (``training=True``, or a boolean tensor
choosing at run time), as Keras's; otherwise they return them unchanged."""

from __future__ import annotations

import math

from ...api import array_ops, creation_ops, math_ops
from ...api.variables import Variable
from ...core.shapes import TensorShape
from ...eager.convert import convert_to_tensor
from ...eager.tensor import Tensor
from .. import regularizers as _regularizers
from . import keras_random as _random
from .base import Layer, _is_symbolic, _ndim_error
from .policy import PolicyLayer


def in_training(x, training, noisy):
    """``noisy(x)`` in training, ``x`` otherwise (``training``: None, a Python bool, or a boolean
    tensor or variable, read at run time when symbolic)."""
    if training is None:
        return x
    if isinstance(training, Variable):
        training = training.read_value()
    if isinstance(training, Tensor):
        if _is_symbolic(training):
            return math_ops.where(training, noisy(x), x)
        training = bool(training)
    return noisy(x) if training else x


def _check_rate(value, name="rate"):
    if not 0 <= value <= 1:
        raise ValueError(
            f"Invalid value received for argument `{name}`. Expected a float value between 0 and 1. "
            f"Received: {name}={value}"
        )


def seed_generator(layer, seed, active=True):
    """Gives ``layer`` Keras 3's ``seed_generator`` (a ``keras.random.SeedGenerator(seed)``) when
    ``active`` (a nonzero rate), as Keras's noise layers make one: its state advances at each
    draw, so two layers with the same seed draw alike, and a layer draws anew at every call of a
    ``tf.function`` or ``tf.data`` map (an op-level seed would repeat its draws there)."""
    if active:
        layer.seed_generator = _random.SeedGenerator(seed)


class Dropout(PolicyLayer):
    """With ``training=True``: zeroes each element with probability ``rate`` and scales the rest by
    ``1 / (1 - rate)``; otherwise returns the inputs unchanged. ``training`` may be a Python bool or
    a boolean tensor. The mask is ``keras.random.dropout``'s from the layer's ``seed_generator``,
    Keras 3's values."""

    supports_masking = True  # an input's Keras mask passes through, as in Keras

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        if isinstance(rate, (int, float)) and not 0 <= rate <= 1:
            raise ValueError(f"Invalid value {rate} received for `rate`, expected a value between 0 and 1.")
        self.rate = float(rate)
        self.noise_shape = noise_shape
        self.seed = seed
        seed_generator(self, seed, self.rate > 0)

    def _noise_shape(self, x):
        """The mask's shape: ``noise_shape`` with None where the input's dimension is taken
        (``keras.random.dropout`` reads one unknown until run time in the graph)."""
        if self.noise_shape is None:
            return None
        dims = x.shape.as_list()
        return [dims[i] if d is None else int(d) for i, d in enumerate(self.noise_shape)]

    def call(self, inputs, training=None):
        x = convert_to_tensor(inputs)
        if self.rate == 0.0:
            return x
        return in_training(x, training, self._drop)

    def _drop(self, x):
        if self.rate >= 1.0:  # Keras 3 accepts rate=1.0: everything is dropped
            return creation_ops.zeros_like(x)
        return _random.dropout(x, self.rate, noise_shape=self._noise_shape(x), seed=self.seed_generator)

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)


class _SpatialDropout(Dropout):
    """Dropout of whole feature maps: the noise spans the batch and channel axes only."""

    _rank = 3

    def __init__(self, rate, data_format=None, seed=None, name=None, dtype=None):
        _check_rate(rate)
        super().__init__(rate, seed=seed, name=name, dtype=dtype)
        self.data_format = "channels_last" if data_format is None else data_format.lower()
        if self.data_format not in ("channels_last", "channels_first"):
            raise ValueError(
                "The `data_format` argument must be one of {'channels_first', 'channels_last'}. "
                f"Received: data_format={data_format}"
            )

    def call(self, inputs, training=False):
        x = convert_to_tensor(inputs)
        if x.shape.rank != self._rank:
            raise _ndim_error(self, f"ndim={self._rank}", x.shape)
        return super().call(x, training=training)

    def _noise_shape(self, x):
        """One draw per sample and channel (None: a dimension known only at run time)."""
        dims = x.shape.as_list()
        channel = 1 if self.data_format == "channels_first" else self._rank - 1
        shape = [dims[0]] + [1] * (self._rank - 1)
        shape[channel] = dims[channel]
        return shape

    def get_config(self):
        # Keras 3.15 writes only these (``dtype`` as the variable dtype's name, no ``trainable``)
        config = {"rate": self.rate, "seed": self.seed, "name": self.name, "dtype": self.dtype.name}
        if self._rank > 3:
            config["data_format"] = self.data_format
        return config


class SpatialDropout1D(_SpatialDropout):
    """Drops whole channels of ``(batch, steps, channels)`` inputs in training."""

    _rank = 3

    def __init__(self, rate, seed=None, name=None, dtype=None):
        super().__init__(rate, seed=seed, name=name, dtype=dtype)


class SpatialDropout2D(_SpatialDropout):
    """Drops whole 2-D feature maps of 4-D inputs in training."""

    _rank = 4


class SpatialDropout3D(_SpatialDropout):
    """Drops whole 3-D feature maps of 5-D inputs in training."""

    _rank = 5


class _Noise(PolicyLayer):
    supports_masking = True  # an input's Keras mask passes through, as in Keras

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)


class GaussianNoise(_Noise):
    """Adds zero-mean normal noise of standard deviation ``stddev`` in training."""

    def __init__(self, stddev, seed=None, **kwargs):
        super().__init__(**kwargs)
        _check_rate(stddev, "stddev")
        self.stddev = stddev
        self.seed = seed
        seed_generator(self, seed, stddev > 0)

    def call(self, inputs, training=False):
        x = convert_to_tensor(inputs)
        if self.stddev == 0:
            return x
        return in_training(x, training, self._noisy)

    def _noisy(self, x):
        return x + _random.normal(_shape(x), stddev=self.stddev, dtype=x.dtype, seed=self.seed_generator)


class GaussianDropout(_Noise):
    """Multiplies by normal noise of mean 1 and standard deviation ``sqrt(rate / (1 - rate))`` in
    training."""

    def __init__(self, rate, seed=None, **kwargs):
        super().__init__(**kwargs)
        _check_rate(rate)
        self.rate = rate
        self.seed = seed
        seed_generator(self, seed, rate > 0)

    def call(self, inputs, training=False):
        x = convert_to_tensor(inputs)
        if self.rate == 0:
            return x
        return in_training(x, training, self._noisy)

    def _noisy(self, x):
        stddev = math.sqrt(self.rate / (1.0 - self.rate))
        return x * _random.normal(_shape(x), 1.0, stddev, dtype=x.dtype, seed=self.seed_generator)


class AlphaDropout(_Noise):
    """Dropout that keeps SELU's self-normalization: in training, dropped elements are set to
    SELU's negative saturation value and the result is affinely rescaled to keep the inputs' mean
    and variance."""

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        _check_rate(rate)
        self.rate = rate
        self.seed = seed
        self.noise_shape = noise_shape
        seed_generator(self, seed, rate > 0)

    def _drop(self, x):
        shape = _shape(x)
        if self.noise_shape is not None:
            shape = [shape[i] if d is None else d for i, d in enumerate(self.noise_shape)]
            if any(isinstance(d, Tensor) for d in shape):
                shape = array_ops.stack(shape)
        alpha_p = -1.6732632423543772848170429916717 * 1.0507009873554804934193349852946
        kept = math_ops.cast(
            math_ops.greater_equal(_random.uniform(shape, seed=self.seed_generator), self.rate), x.dtype
        )
        a = ((1 - self.rate) * (1 + self.rate * alpha_p**2)) ** -0.5
        b = -a * alpha_p * self.rate
        return a * (x * kept + alpha_p * (1 - kept)) + b

    def call(self, inputs, training=False):
        x = convert_to_tensor(inputs)
        if self.rate == 0:
            return x
        return in_training(x, training, self._drop)


def _shape(x):
    """``x``'s shape: a list when static, read in the graph otherwise."""
    return x.shape.as_list() if x.shape.is_fully_defined() else array_ops.shape(x)


class ActivityRegularization(_Noise):
    """Returns its inputs, adding ``l1 * sum(|x|) + l2 * sum(x ** 2)`` (divided by the batch size)
    to the layer's losses."""

    def __init__(self, l1=0.0, l2=0.0, **kwargs):
        super().__init__(activity_regularizer=_regularizers.L1L2(l1=l1, l2=l2), **kwargs)
        self.l1 = l1
        self.l2 = l2

    def call(self, inputs):
        return inputs

    def get_config(self):
        config = Layer.get_config(self)
        config.pop("activity_regularizer", None)  # as Keras: written as l1 and l2
        config.update(l1=self.l1, l2=self.l2)
        return config
