"""Activation layers: ``ReLU``, ``LeakyReLU``, ``ELU``, ``Softmax``."""

from __future__ import annotations

from ...api import math_ops, nn_ops, reduction_ops
from ...core.shapes import TensorShape
from ...eager.convert import convert_to_tensor
from .. import activations as _activations
from .policy import PolicyLayer


class _Elementwise(PolicyLayer):
    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)


class ReLU(_Elementwise):
    """``max_value`` above ``max_value``, ``x`` for ``threshold <= x < max_value`` and
    ``negative_slope * (x - threshold)`` below ``threshold`` (Keras's ReLU layer)."""

    def __init__(self, max_value=None, negative_slope=0.0, threshold=0.0, **kwargs):
        super().__init__(**kwargs)
        if max_value is not None and max_value < 0.0:
            raise ValueError(f"max_value of a ReLU layer cannot be negative. Received: max_value={max_value}")
        if negative_slope is None or negative_slope < 0.0:
            raise ValueError(f"negative_slope of a ReLU layer cannot be negative. Received: {negative_slope}")
        if threshold is None or threshold < 0.0:
            raise ValueError(f"threshold of a ReLU layer cannot be negative. Received: threshold={threshold}")
        self.max_value = None if max_value is None else float(max_value)
        self.negative_slope = float(negative_slope)
        self.threshold = float(threshold)

    def call(self, inputs):
        return _activations.relu(inputs, alpha=self.negative_slope, max_value=self.max_value, threshold=self.threshold)


class LeakyReLU(_Elementwise):
    """``x`` for ``x >= 0``, ``negative_slope * x`` below (Keras 3's default slope 0.3)."""

    def __init__(self, negative_slope=0.3, **kwargs):
        if "alpha" in kwargs:  # the TensorFlow 2 spelling
            negative_slope = kwargs.pop("alpha")
        super().__init__(**kwargs)
        if negative_slope is None or negative_slope < 0.0:
            raise ValueError(f"negative_slope of LeakyReLU cannot be negative. Received: {negative_slope}")
        self.negative_slope = float(negative_slope)

    def call(self, inputs):
        x = convert_to_tensor(inputs)
        if not x.dtype.is_floating:  # a slope makes fractions: float32, as Keras
            x = math_ops.cast(x, "float32")
        return math_ops.where(math_ops.greater_equal(x, 0.0), x, x * self.negative_slope)


class ELU(_Elementwise):
    """``x`` for ``x > 0``, ``alpha * (exp(x) - 1)`` below."""

    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        self.alpha = float(alpha)

    def call(self, inputs):
        out = math_ops.elu(inputs)
        if self.alpha == 1.0:
            return out
        return math_ops.where(math_ops.greater(inputs, 0.0), out, out * self.alpha)


class Softmax(_Elementwise):
    """softmax along ``axis`` (an int or a list of axes)."""

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs, mask=None):
        if mask is not None:
            raise ValueError("tfunc.keras layers do not propagate masks: Softmax(mask=...) is not supported.")
        if isinstance(self.axis, (list, tuple)) and len(self.axis) > 1:  # over several axes: exp(x - logsumexp(x))
            return math_ops.exp(inputs - reduction_ops.reduce_logsumexp(inputs, axis=list(self.axis), keepdims=True))
        axis = self.axis[0] if isinstance(self.axis, (list, tuple)) else self.axis
        # the losses compute from the logits, as with Keras's activations.softmax
        return _activations._attach_logits(nn_ops.softmax(inputs, axis=axis), inputs, "softmax")
