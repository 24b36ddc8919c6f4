"""The layers behind Python operators on KerasTensors (``x + y``, ``1 - x``, ``x @ w``...): one
class per ``keras.ops`` operation Keras 3 records for them, named as Keras names them, so a
functional model's config says ``keras.src.ops.numpy.Add`` as Keras's does and Keras's loads here.

Also the operations Keras 3.15 records when it computes the masks of a functional model
(``Embedding(mask_zero=True)``, ``Masking``, merging layers, ``Attention``): its ``.keras``
archives name them, and they load here as these layers."""

from __future__ import annotations

import operator

from ...api import array_ops, creation_ops, math_ops, reduction_ops
from ...eager.convert import convert_to_tensor
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
    "NotEqual",
    "LogicalOr",
    "Any",
    "ExpandDims",
    "Concatenate",
    "ZerosLike",
    "OnesLike",
    "ConvertToTensor",
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
NotEqual = _operator("NotEqual", "not_equal", math_ops.not_equal)
LogicalOr = _operator("LogicalOr", "logical_or", math_ops.logical_or)


class _ConfiguredOperator(OperatorLayer):
    """An operation with arguments besides its operands, which Keras writes after ``name``
    (kept apart from the layer's attributes: ``dtype`` is the fill's, not the layer's)."""

    def __init__(self, name=None, **arguments):
        super().__init__(name=name)
        self._tfunc_arguments = arguments  # in Keras's config order

    def get_config(self) -> dict:
        return {"name": self.name, **self._tfunc_arguments}


class Any(_ConfiguredOperator):
    """``keras.ops.any``: whether any element along ``axis`` is true."""

    _tfunc_op_name = "any"

    def __init__(self, axis=None, keepdims=False, name=None):
        super().__init__(name=name, axis=axis, keepdims=keepdims)

    def call(self, x):
        return reduction_ops.reduce_any(math_ops.cast(x, "bool"), **self._tfunc_arguments)


class ExpandDims(_ConfiguredOperator):
    """``keras.ops.expand_dims``: a new axis of size 1 at ``axis``."""

    _tfunc_op_name = "expand_dims"

    def __init__(self, axis, name=None):
        super().__init__(name=name, axis=axis)

    def call(self, x):
        return array_ops.expand_dims(x, self._tfunc_arguments["axis"])


class Concatenate(_ConfiguredOperator):
    """``keras.ops.concatenate``: a list of tensors joined along ``axis``."""

    _tfunc_op_name = "concatenate"
    # keras.ops.concatenate (operands promoted) once tfunc.keras.ops is imported; tf.concat until then
    _tfunc_concatenate = staticmethod(lambda xs, axis: array_ops.concat(xs, axis=axis))

    def __init__(self, axis=0, name=None):
        super().__init__(name=name, axis=axis)

    def call(self, xs):
        return type(self)._tfunc_concatenate(list(xs), axis=self._tfunc_arguments["axis"])


class ZerosLike(_ConfiguredOperator):
    """``keras.ops.zeros_like``: zeros of ``x``'s shape, in ``dtype`` (``x``'s if None)."""

    _tfunc_op_name = "zeros_like"
    _tfunc_fill = staticmethod(creation_ops.zeros_like)

    def __init__(self, dtype=None, name=None):
        super().__init__(name=name, dtype=dtype)

    def call(self, x):
        return type(self)._tfunc_fill(x, dtype=self._tfunc_arguments["dtype"])


class OnesLike(ZerosLike):
    """``keras.ops.ones_like``: ones of ``x``'s shape, in ``dtype`` (``x``'s if None)."""

    _tfunc_op_name = "ones_like"
    _tfunc_fill = staticmethod(creation_ops.ones_like)


class ConvertToTensor(_ConfiguredOperator):
    """``keras.ops.convert_to_tensor`` (which Keras writes under ``keras.src.ops.core``): its
    input as a tensor, cast to ``dtype`` when one is given."""

    _tfunc_op_name = "convert_to_tensor"
    _tfunc_keras_module = "keras.src.ops.core"  # (the other operations: keras.src.ops.numpy)

    def __init__(self, dtype=None, sparse=None, ragged=None, name=None):
        if sparse or ragged:
            raise ValueError("tfunc.keras ConvertToTensor does not support `sparse` or `ragged` tensors.")
        super().__init__(name=name, dtype=dtype, sparse=sparse, ragged=ragged)

    def call(self, x):
        dtype = self._tfunc_arguments["dtype"]
        x = convert_to_tensor(x)
        return x if dtype is None else math_ops.cast(x, dtype)


_keras_tensor._OPERATOR_LAYER.append({name: globals()[name] for name in __all__})
