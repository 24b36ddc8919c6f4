"""``tfunc.keras.constraints``: projections applied to weights after each optimizer step
(``kernel_constraint=``, ``add_weight(constraint=)``), as in Keras 3.

A constraint is any callable ``f(w) -> tensor`` of ``w``'s shape; a layer keeps it as
``variable.constraint`` and the optimizer assigns ``variable.constraint(variable)`` to the
variable after every update. The classes here are Keras's ``MaxNorm``, ``MinMaxNorm``,
``NonNeg`` and ``UnitNorm``, with Keras's formulas (norms taken along ``axis``, divided with
Keras's epsilon 1e-7 added).
"""

from __future__ import annotations

import inspect

from ..api import math_ops, reduction_ops
from ..eager.convert import convert_to_tensor
from . import serialization

__all__ = [
    "Constraint",
    "MaxNorm",
    "MinMaxNorm",
    "NonNeg",
    "UnitNorm",
    "max_norm",
    "min_max_norm",
    "non_neg",
    "unit_norm",
    "get",
    "serialize",
    "deserialize",
]


# Keras's backend.epsilon(), added to the norms before dividing (a constant in tfunc.keras.backend,
# which imports the layers and so cannot be imported here)
_EPSILON = 1e-7


def _norms(w, axis):
    """The L2 norms of ``w`` along ``axis`` (an int or a list of ints), kept as size-1 axes."""
    return math_ops.sqrt(reduction_ops.reduce_sum(math_ops.square(w), axis=axis, keepdims=True))


class Constraint:
    """The base class: ``__call__(w)`` returns ``w`` unchanged; subclasses return its projection."""

    def __call__(self, w):
        return w

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class MaxNorm(Constraint):
    """Rescales the weights whose norm along ``axis`` exceeds ``max_value`` down to it (for a Dense
    kernel ``(in, out)``, ``axis=0`` bounds each unit's incoming weights; for a Conv2D kernel use
    ``axis=[0, 1, 2]``)."""

    def __init__(self, max_value=2, axis=0):
        self.max_value = max_value
        self.axis = axis

    def __call__(self, w):
        w = convert_to_tensor(w)
        norms = _norms(w, self.axis)
        desired = math_ops.clip_by_value(norms, 0, self.max_value)
        return w * (desired / (_EPSILON + norms))

    def get_config(self):
        return {"max_value": self.max_value, "axis": self.axis}


class NonNeg(Constraint):
    """``max(w, 0)``: the weights stay non-negative."""

    def __call__(self, w):
        return math_ops.maximum(convert_to_tensor(w), 0)


class UnitNorm(Constraint):
    """Divides the weights by their norm along ``axis``: each slice gets unit norm."""

    def __init__(self, axis=0):
        self.axis = axis

    def __call__(self, w):
        w = convert_to_tensor(w)
        return w / (_EPSILON + _norms(w, self.axis))

    def get_config(self):
        return {"axis": self.axis}


class MinMaxNorm(Constraint):
    """Rescales each slice along ``axis`` to the norm ``rate * clip(norm, min_value, max_value) +
    (1 - rate) * norm``: ``rate=1`` enforces the bounds at once, a smaller rate moves toward them."""

    def __init__(self, min_value=0.0, max_value=1.0, rate=1.0, axis=0):
        self.min_value = min_value
        self.max_value = max_value
        self.rate = rate
        self.axis = axis

    def __call__(self, w):
        w = convert_to_tensor(w)
        norms = _norms(w, self.axis)
        desired = self.rate * math_ops.clip_by_value(norms, self.min_value, self.max_value) + (1 - self.rate) * norms
        return w * (desired / (_EPSILON + norms))

    def get_config(self):
        return {"min_value": self.min_value, "max_value": self.max_value, "rate": self.rate, "axis": self.axis}


# Keras's lower-case aliases are the classes themselves.
max_norm = MaxNorm
min_max_norm = MinMaxNorm
non_neg = NonNeg
unit_norm = UnitNorm

_CLASSES = (Constraint, MaxNorm, MinMaxNorm, NonNeg, UnitNorm)
# Keras's names: the class names and their snake_case forms ('max_norm', 'non_neg', ...)
_BY_NAME = {cls.__name__: cls for cls in _CLASSES}
_BY_NAME.update(
    {
        "constraint": Constraint,
        "max_norm": MaxNorm,
        "min_max_norm": MinMaxNorm,
        "non_neg": NonNeg,
        "unit_norm": UnitNorm,
    }
)


def serialize(constraint):
    """A constraint's config as Keras 3 writes it: ``{'module', 'class_name', 'config',
    'registered_name'}`` (None stays None)."""
    return serialization.serialize_keras_object(constraint)


def deserialize(config, custom_objects=None):
    """The constraint that :func:`serialize` (or Keras) described, or that a name gives;
    ``custom_objects`` maps the names of user classes to the classes."""
    if isinstance(config, str):
        config = {"class_name": config, "config": {}}
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"Could not interpret constraint config: {config}")
    if config["class_name"] == "function":  # a plain function, saved by its (registered) name
        return serialization.deserialize_keras_object(config, custom_objects)
    name = config["class_name"]
    cls = (
        (custom_objects or {}).get(name)
        or serialization.get_registered_object(config.get("registered_name") or name)
        or _BY_NAME.get(name)
    )
    if cls is None:
        raise ValueError(f"Could not interpret constraint identifier: {name}")
    return cls.from_config(config.get("config") or {})


def get(identifier):
    """A constraint from None, a name (``'max_norm'``, ``'NonNeg'``...), a config dict, a class
    (instantiated with its defaults), or any callable (returned as it is)."""
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        obj = deserialize(identifier)
    elif isinstance(identifier, str):
        obj = _BY_NAME.get(identifier)
    else:
        obj = identifier
    if not callable(obj):
        raise ValueError(f"Could not interpret constraint identifier: {identifier}")
    return obj() if inspect.isclass(obj) else obj
