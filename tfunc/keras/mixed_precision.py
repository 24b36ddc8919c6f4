"""``tfunc.keras.mixed_precision``: dtype policies and loss scaling.

A :class:`Policy` names a layer's two dtypes: the *variable* dtype its weights are stored in
and the *compute* dtype its arithmetic runs in.  ``'mixed_float16'`` and
``'mixed_bfloat16'`` keep float32 variables (so small updates are not lost) and compute in
float16 / bfloat16; a plain dtype name (``'float32'``) uses it for both.  Layers built after
:func:`set_global_policy` take the global policy unless given ``dtype=``; the built-in layers
cast their floating inputs and weights to the compute dtype (gradients flow back to the
float32 variables through the casts).

With float16 the loss is multiplied by a scale before differentiating so that small
gradients do not underflow; :class:`LossScaleOptimizer` (in :mod:`tfunc.keras.optimizers`)
divides the gradients back and adapts the scale.
"""

from __future__ import annotations

from ..core import dtypes as D
from . import dtypes as _dtypes
from .optimizers import LossScaleOptimizer

__all__ = ["Policy", "DTypePolicy", "set_global_policy", "global_policy", "LossScaleOptimizer"]

_MIXED = {"mixed_float16": D.float16, "mixed_bfloat16": D.bfloat16}


class Policy:
    """A dtype policy: ``Policy('mixed_float16')``, ``Policy('float32')``..."""

    def __init__(self, name):
        if isinstance(name, Policy):
            name = name.name
        if isinstance(name, D.DType):
            name = name.name
        if not isinstance(name, str):
            raise TypeError(f"A dtype policy is made from a string such as 'mixed_float16', got {name!r}.")
        if name in _MIXED:
            self._compute, self._variable = _MIXED[name], D.float32
        else:
            try:
                dt = D.as_dtype(name)
            except TypeError:
                raise ValueError(
                    f"Cannot convert value {name!r} to a mixed precision Policy: use a dtype name "
                    "('float32', 'float16', 'bfloat16', 'float64') or 'mixed_float16' / 'mixed_bfloat16'."
                ) from None
            if not dt.is_floating:
                raise ValueError(f"A dtype policy needs a floating dtype, got {name!r}.")
            self._compute = self._variable = dt
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    @property
    def compute_dtype(self) -> str:
        """The dtype of the layer's computations (a name, as Keras gives it)."""
        return self._compute.name

    @property
    def variable_dtype(self) -> str:
        """The dtype of the layer's weights (a name, as Keras gives it)."""
        return self._variable.name

    def __eq__(self, other):
        return isinstance(other, Policy) and other.name == self.name

    def __hash__(self):
        return hash(self._name)

    def __repr__(self) -> str:
        return f'<Policy "{self._name}">'


DTypePolicy = Policy

_default = _dtypes.GLOBAL_POLICY  # shared with the layers (keras/dtypes.py)
_default["policy"] = Policy("float32")


def global_policy() -> Policy:
    """The policy layers made now will take (``'float32'`` unless set)."""
    return _default["policy"]


def set_global_policy(policy) -> None:
    """Sets the policy of layers made from now on: a name (``'mixed_float16'``,
    ``'mixed_bfloat16'``, ``'float32'``...), a :class:`Policy`, or None for ``'float32'``."""
    _default["policy"] = Policy("float32") if policy is None else Policy(policy)


def policy_for(dtype) -> Policy:
    """The policy of a layer made with ``dtype=`` (None: the global policy)."""
    if dtype is None:
        return global_policy()
    return Policy(dtype)
