"""The layers behind Python operators on KerasTensors (``x + y``, ``1 - x``, ``x @ w``...): one
class per ``keras.ops`` operation Keras 3 records for them, named as Keras names them, so a
functional model's config says ``keras.src.ops.numpy.Add`` as Keras's does and Keras's loads here."""

from __future__ import annotations

import operator

from .. import keras_tensor as _keras_tensor
from .base import OperatorLayer

__all__ = [
    "Add",
    "Subtract",
    "Multiply",
    "TrueDivide",
    "Matmul",
    "Power",
    "Negative",
    "FloorDivide",
    "Mod",
    "Absolute",
    "Greater",
    "GreaterEqual",
    "Less",
    "LessEqual",
    "GetItem",
]


def _operator(class_name: str, op_name: str, fn):
    return type(
        class_name,
        (OperatorLayer,),
        {
            "__module__": __name__,
            "__doc__": f"``{op_name}`` of KerasTensors (Keras's ``keras.ops.{op_name}``).",
            "_tfunc_op_name": op_name,
            "_tfunc_fn": staticmethod(fn),
        },
    )


Add = _operator("Add", "add", operator.add)
Subtract = _operator("Subtract", "subtract", operator.sub)
Multiply = _operator("Multiply", "multiply", operator.mul)
TrueDivide = _operator("TrueDivide", "true_divide", operator.truediv)
Matmul = _operator("Matmul", "matmul", operator.matmul)
Power = _operator("Power", "power", operator.pow)
Negative = _operator("Negative", "negative", operator.neg)
FloorDivide = _operator("FloorDivide", "floor_divide", operator.floordiv)
Mod = _operator("Mod", "mod", operator.mod)
Absolute = _operator("Absolute", "absolute", operator.abs)
Greater = _operator("Greater", "greater", operator.gt)
GreaterEqual = _operator("GreaterEqual", "greater_equal", operator.ge)
Less = _operator("Less", "less", operator.lt)
LessEqual = _operator("LessEqual", "less_equal", operator.le)
# a key read back from a config is a list (JSON has no tuples): one index per axis, as written
GetItem = _operator("GetItem", "get_item", lambda x, key: x[tuple(key) if isinstance(key, list) else key])

_keras_tensor._OPERATOR_LAYER.append({name: globals()[name] for name in __all__})
