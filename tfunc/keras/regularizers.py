"""``tfunc.keras.regularizers``: penalties on weights (``kernel_regularizer=``, ``add_weight(regularizer=)``)
or on a layer's outputs (``activity_regularizer=``), as in Keras 3.

A regularizer is any callable ``f(x) -> scalar tensor``; the classes here are Keras's ``L1``,
``L2``, ``L1L2`` and ``OrthogonalRegularizer``. A layer's ``losses`` holds the penalties, and
``Model.fit`` adds their sum to the loss it minimizes and reports.
"""

from __future__ import annotations

import inspect
import math

import numpy as np

from ..api import array_ops, creation_ops, math_ops, nn_ops, reduction_ops
from ..eager.convert import convert_to_tensor
from . import serialization

__all__ = [
    "Regularizer",
    "L1",
    "L2",
    "L1L2",
    "OrthogonalRegularizer",
    "l1",
    "l2",
    "l1_l2",
    "orthogonal_regularizer",
    "get",
    "serialize",
    "deserialize",
]


def validate_float_arg(value, name) -> float:
    """``value`` as a float; a negative, infinite or NaN penalty factor raises (Keras's check)."""
    if not isinstance(value, (float, int)) or math.isinf(value) or math.isnan(value) or value < 0:
        raise ValueError(f"Invalid value for argument {name}: expected a non-negative float.Received: {name}={value}")
    return float(value)


def _float32(value: float) -> float:
    """``value`` rounded to float32: Keras keeps these factors as float32 tensors."""
    return float(np.float32(value))


class Regularizer:
    """The base class: ``__call__(x)`` returns the penalty (0 here), ``get_config`` the arguments."""

    def __call__(self, x):
        return 0.0

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def get_config(self):
        raise NotImplementedError(f"{self} does not implement get_config()")


class L1L2(Regularizer):
    """``l1 * sum(|x|) + l2 * sum(x**2)``; both factors default to 0 (the name ``'l1l2'`` too)."""

    def __init__(self, l1=0.0, l2=0.0):
        self.l1 = validate_float_arg(0.0 if l1 is None else l1, name="l1")
        self.l2 = validate_float_arg(0.0 if l2 is None else l2, name="l2")

    def __call__(self, x):
        x = convert_to_tensor(x)
        penalty = convert_to_tensor(0.0, dtype=x.dtype)
        if self.l1 != 0.0:
            penalty = penalty + math_ops.cast(self.l1, x.dtype) * reduction_ops.reduce_sum(math_ops.abs(x))
        if self.l2 != 0.0:
            penalty = penalty + math_ops.cast(self.l2, x.dtype) * reduction_ops.reduce_sum(math_ops.square(x))
        return penalty

    def get_config(self):
        return {"l1": self.l1, "l2": self.l2}


class L1(Regularizer):
    """``l1 * sum(|x|)`` (``l1`` 0.01 by default, kept in float32 as Keras keeps it)."""

    def __init__(self, l1=0.01):
        self.l1 = _float32(validate_float_arg(0.01 if l1 is None else l1, name="l1"))

    def __call__(self, x):
        x = convert_to_tensor(x)
        return math_ops.cast(self.l1, x.dtype) * reduction_ops.reduce_sum(math_ops.abs(x))

    def get_config(self):
        return {"l1": self.l1}


class L2(Regularizer):
    """``l2 * sum(x**2)`` (``l2`` 0.01 by default)."""

    def __init__(self, l2=0.01):
        self.l2 = validate_float_arg(0.01 if l2 is None else l2, name="l2")

    def __call__(self, x):
        x = convert_to_tensor(x)
        return math_ops.cast(self.l2, x.dtype) * reduction_ops.reduce_sum(math_ops.square(x))

    def get_config(self):
        return {"l2": self.l2}


class OrthogonalRegularizer(Regularizer):
    """``factor * 0.5 * sum(|off-diagonal of N N^T|) / (n (n-1) / 2)`` for ``N`` the rows
    (``mode='rows'``) or columns (``'columns'``) of a rank-2 input, each L2-normalized."""

    def __init__(self, factor=0.01, mode="rows"):
        self.factor = _float32(validate_float_arg(factor, name="factor"))
        if mode not in {"rows", "columns"}:
            raise ValueError(
                f'Invalid value for argument `mode`. Expected one of {{"rows", "columns"}}. Received: mode={mode}'
            )
        self.mode = mode

    def __call__(self, inputs):
        x = convert_to_tensor(inputs)
        if x.shape.rank != 2:
            raise ValueError(f"Inputs to OrthogonalRegularizer must have rank 2. Received: inputs.shape={x.shape}")
        if self.mode == "columns":
            x = array_ops.transpose(x)
        # Keras's ops.normalize: x * min(rsqrt(sum(x**2)), 1 / epsilon), epsilon = 1e-7
        inv_norm = math_ops.rsqrt(reduction_ops.reduce_sum(math_ops.square(x), axis=1, keepdims=True))
        x = x * math_ops.minimum(inv_norm, math_ops.cast(1e7, x.dtype))
        size = x.shape[0]
        product = nn_ops.matmul(x, array_ops.transpose(x)) * (1.0 - creation_ops.eye(size, dtype=x.dtype))
        num_pairs = size * (size - 1.0) / 2.0
        return self.factor * 0.5 * reduction_ops.reduce_sum(math_ops.abs(product)) / num_pairs

    def get_config(self):
        return {"factor": self.factor, "mode": self.mode}


# Keras's lower-case aliases are the classes themselves.
l1 = L1
l2 = L2
l1_l2 = L1L2
orthogonal_regularizer = OrthogonalRegularizer

_CLASSES = (Regularizer, L1, L2, L1L2, OrthogonalRegularizer)
# Keras's names: the class names and their snake_case forms ('l1', 'l1l2', 'orthogonal_regularizer')
_BY_NAME = {cls.__name__: cls for cls in _CLASSES}
_BY_NAME.update(
    {"regularizer": Regularizer, "l1": L1, "l2": L2, "l1l2": L1L2, "orthogonal_regularizer": OrthogonalRegularizer}
)


def serialize(regularizer) -> dict:
    """A regularizer's config as Keras 3 writes it: ``{'module', 'class_name', 'config',
    'registered_name'}``."""
    if not hasattr(regularizer, "get_config"):
        raise ValueError(f"Cannot serialize {regularizer!r}: it has no get_config().")
    return serialization.serialize_keras_object(regularizer)


def deserialize(config, custom_objects=None):
    """The regularizer that :func:`serialize` (or Keras) described; ``custom_objects`` maps the
    names of user classes to the classes."""
    if isinstance(config, str):
        config = {"class_name": config, "config": {}}
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"Could not interpret regularizer config: {config}")
    name = config["class_name"]
    cls = (
        (custom_objects or {}).get(name)
        or serialization.get_registered_object(config.get("registered_name") or name)
        or _BY_NAME.get(name)
    )
    if cls is None:
        raise ValueError(f"Could not interpret regularizer identifier: {name}")
    return cls.from_config(config.get("config") or {})


def get(identifier):
    """A regularizer from None, a name (``'l1'``, ``'L2'``, ``'l1l2'``, ``'orthogonal_regularizer'``),
    a config dict, a class (instantiated with its defaults), or any callable (returned as it is)."""
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        obj = deserialize(identifier)
    elif isinstance(identifier, str):
        obj = _BY_NAME.get(identifier)
    else:
        obj = identifier
    if not callable(obj):
        raise ValueError(f"Could not interpret regularizer identifier: {identifier}")
    return obj() if inspect.isclass(obj) else obj
