"""``keras.ops`` functions called on KerasTensors (the functional API): each call becomes an
operation layer named as Keras names the operation (``sum`` -> ``Sum``, ``log_softmax`` ->
``LogSoftmax``), whose config holds the call's other arguments (``axis``, ``keepdims``...), as
Keras records ``keras.ops`` calls in a functional model.  The model then runs the function
itself on its tensors."""

from __future__ import annotations

import functools
import inspect

import numpy as np

from ...core import nest
from ...eager.tensor import Tensor
from ..keras_tensor import KerasTensor, any_keras_tensor, symbolic_call
from ..layers import operators as _operators
from ..layers.base import OperatorLayer

__all__ = ["symbolic", "operation_class"]

# the Keras module each family's operations are written under
_KERAS_MODULES = {family: f"keras.src.ops.{family}" for family in ("numpy", "nn", "core", "math", "linalg")}
_FUNCTIONS: dict = {}  # class name -> (function, Keras module), filled by ``symbolic``
_CLASSES: dict = {}


def _class_name(fn_name: str) -> str:
    return "".join(part.capitalize() for part in fn_name.split("_"))


def _holds_keras_tensor(args, kwargs) -> bool:
    """Whether a KerasTensor is among the arguments (tensors and numbers answer without a walk)."""
    for value in (*args, *kwargs.values()):
        if isinstance(value, KerasTensor):
            return True
        if isinstance(value, (list, tuple, dict)) and any_keras_tensor(value, {}):
            return True
    return False


def _is_operand(value) -> bool:
    return any(isinstance(v, (KerasTensor, Tensor, np.ndarray)) for v in nest.flatten(value))


class _Operation(OperatorLayer):
    """A ``keras.ops`` function on a functional model's tensors; the arguments that are not
    tensors (``axis``...) are its config, the tensors its call's operands, in the order of the
    function's parameters."""

    _tfunc_function = None

    def __init__(self, name=None, **arguments):
        super().__init__(name=name)
        self._tfunc_arguments = arguments

    def call(self, *operands):
        fn = type(self)._tfunc_function
        free = [p for p in inspect.signature(fn).parameters if p not in self._tfunc_arguments]
        return fn(**dict(zip(free, operands)), **self._tfunc_arguments)

    def get_config(self) -> dict:
        return {"name": self.name, **self._tfunc_arguments}


def operation_class(class_name: str):
    """The operation layer class named ``class_name`` (``Sum``), or None for no such function."""
    if class_name in _operators.__all__:  # the operators' own classes (Add, Any...), as written before
        return getattr(_operators, class_name)
    cls = _CLASSES.get(class_name)
    if cls is None and class_name in _FUNCTIONS:
        fn, module = _FUNCTIONS[class_name]
        cls = type(
            class_name,
            (_Operation,),
            {
                "__module__": __name__,
                "__doc__": f"``keras.ops.{fn.__name__}`` in a functional model.",
                "_tfunc_op_name": fn.__name__,
                "_tfunc_function": staticmethod(fn),
                "_tfunc_keras_module": module,
            },
        )
        _CLASSES[class_name] = cls
    return cls


def symbolic(fn, family: str):
    """``fn`` that, given KerasTensors, records an operation layer instead of computing."""
    signature = inspect.signature(fn)
    _FUNCTIONS.setdefault(_class_name(fn.__name__), (fn, _KERAS_MODULES[family]))

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if not _holds_keras_tensor(args, kwargs):
            return fn(*args, **kwargs)
        bound = signature.bind(*args, **kwargs)
        if any(signature.parameters[n].kind is inspect.Parameter.VAR_POSITIONAL for n in bound.arguments):
            raise TypeError(f"keras.ops.{fn.__name__} on KerasTensors is not supported in tfunc (it takes *operands).")
        cls = operation_class(_class_name(fn.__name__))
        if not issubclass(cls, (_Operation, _operators._ConfiguredOperator)):  # x + y's: all operands
            return symbolic_call(cls(), tuple(bound.arguments.values()), {})
        operands = [v for v in bound.arguments.values() if _is_operand(v)]
        arguments = {n: v for n, v in bound.arguments.items() if not _is_operand(v)}
        return symbolic_call(cls(**arguments), tuple(operands), {})

    return wrapper


def __getattr__(name):
    """The operation layer class a functional model's config names (``Sum``): how
    :mod:`tfunc.keras.serialization` finds it."""
    cls = operation_class(name)
    if cls is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return cls
