"""Regularization layers: ``Dropout``."""

from __future__ import annotations

from ...api import array_ops, creation_ops, math_ops, random_ops
from ...api.variables import Variable
from ...core.shapes import TensorShape
from ...eager.convert import convert_to_tensor
from ...eager.tensor import Tensor
from .base import _is_symbolic
from .policy import PolicyLayer


class Dropout(PolicyLayer):
    """With ``training=True``: zeroes each element with probability ``rate`` and scales the rest by
    ``1 / (1 - rate)``; otherwise returns the inputs unchanged. ``training`` may be a Python bool or
    a boolean tensor."""

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        if isinstance(rate, (int, float)) and not 0 <= rate <= 1:
            raise ValueError(f"Invalid value {rate} received for `rate`, expected a value between 0 and 1.")
        self.rate = float(rate)
        self.noise_shape = noise_shape
        self.seed = seed

    def _noise_shape(self, x):
        if self.noise_shape is None:
            return None
        dims = x.shape.as_list()
        out = [dims[i] if d is None else int(d) for i, d in enumerate(self.noise_shape)]
        if None not in out:
            return out
        # None where the input's dimension is known only at run time (a batch of None): read in the graph
        run_time = array_ops.shape(x)
        return array_ops.stack([run_time[i] if d is None else d for i, d in enumerate(out)])

    def call(self, inputs, training=None):
        x = convert_to_tensor(inputs)
        if training is None or self.rate == 0.0:
            return x
        if isinstance(training, Variable):
            training = training.read_value()
        if isinstance(training, Tensor):
            if not _is_symbolic(training):
                training = bool(training)
            else:
                return math_ops.where(training, self._drop(x), x)
        if not training:
            return x
        return self._drop(x)

    def _drop(self, x):
        if self.rate >= 1.0:  # Keras 3 accepts rate=1.0: everything is dropped
            return creation_ops.zeros_like(x)
        return random_ops.dropout(x, self.rate, noise_shape=self._noise_shape(x), seed=self.seed)

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)
