"""Tensor specs.

``Spec`` is the internal (shape tuple, dtype) pair that op inference works on;
``TensorSpec`` is the public ``tf.TensorSpec`` with a name, and doubles as the
trace type of a tensor argument (subtyping by shape, as the guide describes).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import dtypes as _dtypes
from .context import ctx
from .shapes import (
    Shape,
    TensorShape,
    check_no_negative_dims,
    format_shape,
    shape_common_supertype,
    shape_is_subtype,
    shapes_compatible,
    to_tuple,
)

__all__ = ["Spec", "TensorSpec"]


class Spec(NamedTuple):
    """Static description of one tensor: shape tuple (or None) and DType."""

    shape: Shape
    dtype: _dtypes.DType

    def __repr__(self) -> str:
        return f"Spec({format_shape(self.shape)}, {self.dtype.name})"

    @property
    def rank(self):
        return None if self.shape is None else len(self.shape)


def _is_plain_tensor(value) -> bool:
    """Whether ``value`` is a tensor (eager or symbolic) rather than a variable, an array or
    another tensor-like value: one with a shape and dtype but neither NumPy's array type nor
    the ``_tfunc_tensor_like`` marker of variables and IndexedSlices."""
    return (
        hasattr(value, "dtype")
        and hasattr(value, "shape")
        and not isinstance(value, (np.ndarray, np.generic))
        and not getattr(type(value), "_tfunc_tensor_like", False)
    )


class TensorSpec:
    """Describes a tensor: ``TensorSpec(shape=None, dtype=tf.float32, name=None)``."""

    __slots__ = ("_shape", "_dtype", "_name")

    def __init__(self, shape=None, dtype=_dtypes.float32, name=None):
        self._shape = to_tuple(shape)
        if self._shape is not None and None in self._shape:
            check_no_negative_dims(shape)
        self._dtype = _dtypes.as_dtype(dtype)
        self._name = name

    @classmethod
    def from_spec(cls, spec, name=None) -> "TensorSpec":
        if isinstance(spec, TensorSpec):
            return cls(spec._shape, spec._dtype, spec._name if name is None else name)
        return cls(spec.shape, spec.dtype, name)

    @classmethod
    def from_tensor(cls, tensor, name=None) -> "TensorSpec":
        """The spec of a tensor (a variable or NumPy array is refused, as in TensorFlow)."""
        if not _is_plain_tensor(tensor):
            raise ValueError(f"`tensor` should be a tf.Tensor, but got type {type(tensor)}.")
        n = name
        if n is None:
            n = getattr(tensor, "_spec_name", None)
        return cls(tensor.shape, tensor.dtype, n)

    @property
    def shape(self) -> TensorShape:
        return TensorShape._from_tuple(self._shape)

    @property
    def dtype(self) -> _dtypes.DType:
        return self._dtype

    @property
    def name(self):
        return self._name

    @property
    def spec(self) -> Spec:
        return Spec(self._shape, self._dtype)

    def is_compatible_with(self, other) -> bool:
        """True if ``other`` (a spec or tensor) has this dtype and a compatible shape; False for
        anything else (a variable, a NumPy array), as in TensorFlow."""
        if isinstance(other, TensorSpec):
            return other._dtype is self._dtype and shapes_compatible(self._shape, other._shape)
        if not _is_plain_tensor(other):
            return False
        dt = getattr(other, "dtype", None)
        sh = getattr(other, "shape", None)
        if dt is None or sh is None:
            return False
        return _dtypes.as_dtype(dt) is self._dtype and shapes_compatible(self._shape, to_tuple(sh))

    # --- TraceType protocol ------------------------------------------------
    def is_subtype_of(self, other) -> bool:
        return type(other) is TensorSpec and other._dtype is self._dtype and shape_is_subtype(self._shape, other._shape)

    def most_specific_common_supertype(self, others):
        """The spec every one of ``self`` and ``others`` fits (dims that differ unknown), or None
        when a dtype or a name differs, as TensorFlow's."""
        shape = self._shape
        for o in others:
            if type(o) is not TensorSpec or o._dtype is not self._dtype or o._name != self._name:
                return None
            shape = shape_common_supertype(shape, o._shape)
        return TensorSpec(shape, self._dtype, self._name)

    def most_specific_compatible_type(self, other) -> "TensorSpec":
        """TensorFlow's older spelling of :meth:`most_specific_common_supertype` for one other
        spec; ValueError when there is none."""
        common = self.most_specific_common_supertype([other])
        if common is None:
            raise ValueError(f"No TypeSpec is compatible with both {self} and {other}")
        return common

    def placeholder_value(self, placeholder_context=None):
        """A placeholder of this spec in the graph being traced."""
        g = ctx.graph
        if g is None:
            raise RuntimeError("TensorSpec.placeholder_value needs a graph being traced.")
        return g.placeholder(Spec(self._shape, self._dtype), name=self._name)

    def __eq__(self, other) -> bool:
        return (
            type(other) is TensorSpec
            and other._dtype is self._dtype
            and other._shape == self._shape
            and other._name == self._name
        )

    def __hash__(self) -> int:
        return hash((self._shape, self._dtype, self._name))

    def __repr__(self) -> str:
        return f"TensorSpec(shape={format_shape(self._shape)}, dtype={self._dtype!r}, name={self._name!r})"
