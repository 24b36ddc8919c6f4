"""Activation layers: ``ReLU``, ``LeakyReLU``, ``ELU``, ``Softmax``."""

from __future__ import annotations

from ...api import math_ops, nn_ops, reduction_ops
from ...core.shapes import TensorShape
from ...eager.convert import convert_to_tensor
from .. import activations as _activations
from .. import constraints as _constraints
from .. import initializers as _initializers
from .. import regularizers as _regularizers
from .policy import PolicyLayer


class _Elementwise(PolicyLayer):
    supports_masking = True  # an input's Keras mask passes through, as in Keras

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
    """softmax along ``axis`` (an int or a list of axes). A ``mask`` broadcastable to the inputs
    (True, or > 0.5, to keep) leaves out the masked positions, whose outputs are 0 (as Keras)."""

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs, mask=None):
        if mask is not None:
            return self._masked_softmax(inputs, mask)
        if isinstance(self.axis, (list, tuple)) and len(self.axis) > 1:  # over several axes: exp(x - logsumexp(x))
            return math_ops.exp(inputs - reduction_ops.reduce_logsumexp(inputs, axis=list(self.axis), keepdims=True))
        axis = self.axis[0] if isinstance(self.axis, (list, tuple)) else self.axis
        # the losses compute from the logits, as with Keras's activations.softmax
        return _activations._attach_logits(nn_ops.softmax(inputs, axis=axis), inputs, "softmax")

    def _masked_softmax(self, inputs, mask):
        """Keras's masked softmax: masked logits become a large negative number, and masked
        outputs 0 (for a fully masked row too)."""
        mask = convert_to_tensor(mask)
        m_dims, i_dims = mask.shape.as_list(), inputs.shape.as_list()
        if len(m_dims) > len(i_dims) or any(
            m not in (1, None) and i is not None and m != i for m, i in zip(m_dims[::-1], i_dims[::-1])
        ):
            raise ValueError(
                "The `mask` must be broadcastable to `inputs`: each mask dimension must be 1 or match the "
                f"corresponding input dimension (trailing dimensions aligned). Received: inputs.shape={inputs.shape}, "
                f"mask.shape={mask.shape}"
            )
        if mask.dtype.name != "bool":
            mask = math_ops.greater(mask, math_ops.cast(0.5, mask.dtype))
        large_negative = -3e4 if inputs.dtype.name == "float16" else -1e9
        outputs = Softmax.call(self, math_ops.where(mask, inputs, math_ops.cast(large_negative, inputs.dtype)))
        return math_ops.where(mask, outputs, math_ops.cast(0.0, outputs.dtype))


class PReLU(_Elementwise):
    """Parametric ReLU: ``x`` for ``x >= 0``, ``alpha * x`` below, with a trainable ``alpha`` of
    the input's shape without the batch axis (size 1 along ``shared_axes``)."""

    def __init__(
        self, alpha_initializer="Zeros", alpha_regularizer=None, alpha_constraint=None, shared_axes=None, **kwargs
    ):
        super().__init__(**kwargs)
        self.alpha_initializer = _initializers.get(alpha_initializer)
        self.alpha_regularizer = _regularizers.get(alpha_regularizer)
        self.alpha_constraint = _constraints.get(alpha_constraint)
        if shared_axes is None:
            self.shared_axes = None
        else:
            self.shared_axes = list(shared_axes) if isinstance(shared_axes, (list, tuple)) else [shared_axes]

    def build(self, input_shape):
        shape = TensorShape(input_shape).as_list()[1:]
        for axis in self.shared_axes or ():
            shape[axis - 1] = 1
        self.alpha = self.add_weight(
            shape=tuple(shape),
            name="alpha",
            initializer=self.alpha_initializer,
            regularizer=self.alpha_regularizer,
            constraint=self.alpha_constraint,
        )
        self.built = True

    def call(self, inputs):
        x = convert_to_tensor(inputs)
        return math_ops.relu(x) - self._compute(self.alpha) * math_ops.relu(-x)
