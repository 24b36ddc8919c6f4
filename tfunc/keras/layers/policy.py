"""The dtype policy of the built-in layers (mixed precision).

:class:`PolicyLayer` is the base of every layer in this package: it takes Keras's ``dtype``
argument as a policy (``'mixed_float16'``, ``'float32'``, a
:class:`~tfunc.keras.mixed_precision.Policy`, or None for the global policy), creates weights
in the policy's variable dtype, casts floating inputs to its compute dtype, and gives
``call`` the weights in the compute dtype (:meth:`PolicyLayer._compute`)."""

from __future__ import annotations

import numpy as np

from ...api import math_ops
from ...core import dtypes as D
from ...core import nest
from ...eager.convert import convert_to_tensor
from ...eager.tensor import Tensor
from .. import mixed_precision
from .base import Layer, cast_keeping_mask


class PolicyLayer(Layer):
    def __init__(self, *args, dtype=None, **kwargs):
        policy = mixed_precision.policy_for(dtype)
        super().__init__(*args, dtype=policy.variable_dtype, **kwargs)
        self._tfunc_policy = policy
        self._tfunc_compute = D.as_dtype(policy.compute_dtype)

    @property
    def dtype_policy(self):
        return self._tfunc_policy

    @property
    def compute_dtype(self) -> str:
        """The dtype of the layer's computations (``'float16'`` under ``'mixed_float16'``)."""
        return self._tfunc_compute.name

    @property
    def variable_dtype(self) -> str:
        """The dtype of the layer's weights."""
        return self.dtype.name

    def _compute(self, x):
        """``x`` (a weight or tensor) in the compute dtype when it is floating."""
        if x is None:
            return None
        t = convert_to_tensor(x)
        if t.dtype.is_floating and t.dtype is not self._tfunc_compute:
            return math_ops.cast(t, self._tfunc_compute)
        return t

    def _convert_inputs(self, inputs):
        def conv(x):
            if isinstance(x, (np.ndarray, np.generic, float, int)) and not isinstance(x, bool):
                x = convert_to_tensor(x)
            if isinstance(x, Tensor) and x.dtype.is_floating and x.dtype is not self._tfunc_compute:
                x = cast_keeping_mask(x, self._tfunc_compute)
            return x

        if isinstance(inputs, (list, tuple, dict)):
            return nest.map_structure(conv, inputs)
        return conv(inputs)
