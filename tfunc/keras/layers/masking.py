"""``Masking``: marks the time steps whose features all equal ``mask_value`` as padding."""

from __future__ import annotations

from ...api import array_ops, creation_ops, math_ops, reduction_ops
from ...eager.convert import convert_to_tensor
from .base import set_keras_mask
from .policy import PolicyLayer

__all__ = ["Masking"]


class Masking(PolicyLayer):
    """Masks the steps of a ``(batch, steps, features)`` sequence whose features all equal
    ``mask_value``: their outputs are zeros, and the output carries the mask ``(batch, steps)``
    (True where a step is kept) that later layers supporting masks (RNNs, pooling, losses) use."""

    def __init__(self, mask_value=0.0, **kwargs):
        super().__init__(**kwargs)
        self.mask_value = mask_value
        self.supports_masking = True
        self.built = True

    def _keep(self, inputs, keepdims):
        """Whether any feature of a step differs from ``mask_value`` (cast to the inputs' dtype,
        as Keras: an integer input is compared with the integer mask value)."""
        x = convert_to_tensor(inputs)
        different = math_ops.not_equal(x, math_ops.cast(self.mask_value, x.dtype))
        return reduction_ops.reduce_any(different, axis=-1, keepdims=keepdims)

    def compute_mask(self, inputs, mask=None):
        return self._keep(inputs, keepdims=False)

    def call(self, inputs):
        keep = self._keep(inputs, keepdims=True)
        outputs = math_ops.where(keep, inputs, creation_ops.zeros_like(inputs))
        # the mask is made with the outputs (Keras sets it in call too): compute_mask is then skipped
        set_keras_mask(outputs, array_ops.squeeze(keep, axis=[-1]))
        return outputs

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self) -> dict:
        return {**super().get_config(), "mask_value": self.mask_value}
