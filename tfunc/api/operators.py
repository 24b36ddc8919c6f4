"""Python operators on tensors (``+ - * / // % ** @``, comparisons, ``[]``, iteration...).

Installed once on :class:`Tensor` when ``tfunc.api`` is imported (as TensorFlow's
``math_ops`` overrides the operators of its Tensor class), so eager and symbolic tensors
behave alike while the tensor classes themselves know nothing of the ops.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import IncompatibleShapesError
from ..eager.convert import constant
from ..eager.dispatch import call
from ..eager.tensor import EagerTensor, Tensor
from ..ops import math as M
from . import array_composites, array_ops, math_ops, nn_ops, slicing, variables


def _reflect(fn):
    def op(self, other):
        return fn(other, self)

    return op


def _logical_or_bitwise(logical, bitwise):
    def op(x, y):
        x, y = math_ops._operands(x, y)
        return logical(x, y) if x.dtype.is_bool else bitwise(x, y)

    return op


def _mul(x, y):
    """``x * y``: logical_and on bools, as TensorFlow's operator (its Mul op takes no bool)."""
    x, y = math_ops._operands(x, y)
    return call(M.logical_and_op if x.dtype.is_bool else M.multiply_op, (x, y))


# ``==`` and ``!=`` (not tf.equal) are TensorFlow's Equal with incompatible_shape_error=False:
# operands whose shapes do not broadcast compare as a whole, to a scalar False (True).  Static
# shapes that do not broadcast are caught from inference, so the common path pays nothing;
# shapes that may not broadcast at run time (unknown dims while tracing) take the loose op,
# which decides when the function runs.
def _eq(self, other):
    if other is None:
        return False
    return _compare(M.equal_op, M.loose_equal_op, self, other, False)


def _ne(self, other):
    if other is None:
        return True
    return _compare(M.not_equal_op, M.loose_not_equal_op, self, other, True)


def _compare(strict, loose, x, y, mismatch):
    x, y = math_ops._operands(x, y)
    if (x._is_symbolic or y._is_symbolic) and _may_not_broadcast(x.shape._dims, y.shape._dims):
        return call(loose, (x, y))
    try:
        return call(strict, (x, y))
    except IncompatibleShapesError:
        return constant(mismatch)


def _may_not_broadcast(a, b) -> bool:
    """Whether static shapes ``a`` and ``b`` (None: unknown rank) leave broadcasting to the
    run-time shapes: an unknown dim against anything but 1 (known pairs are checked now)."""
    if a is None or b is None:
        return True
    return any((da is None or db is None) and da != 1 and db != 1 for da, db in zip(reversed(a), reversed(b)))


def _invert(self):
    return math_ops.logical_not(self) if self.dtype.is_bool else math_ops.invert(self)


_and = _logical_or_bitwise(math_ops.logical_and, math_ops.bitwise_and)
_or = _logical_or_bitwise(math_ops.logical_or, math_ops.bitwise_or)
_xor = _logical_or_bitwise(math_ops.logical_xor, math_ops.bitwise_xor)


def _matmul(x, y):
    """``x @ y``: a NumPy operand takes the tensor's dtype, as for the other operators."""
    return nn_ops.matmul(*math_ops._operands(x, y))


_BINARY = {
    "add": math_ops.add,
    "sub": math_ops.subtract,
    "mul": _mul,
    "truediv": math_ops.divide,
    "floordiv": math_ops.floordiv,
    "mod": math_ops.floormod,
    "pow": math_ops.pow,
    "matmul": _matmul,
    "and": _and,
    "or": _or,
    "xor": _xor,
}


def install() -> None:
    """Puts the operators on the tensor classes (set by name: the classes declare none)."""
    ops = {
        "__lt__": lambda self, other: math_ops.less(self, other),
        "__le__": lambda self, other: math_ops.less_equal(self, other),
        "__gt__": lambda self, other: math_ops.greater(self, other),
        "__ge__": lambda self, other: math_ops.greater_equal(self, other),
        "__eq__": _eq,
        "__ne__": _ne,
        "__neg__": lambda self: math_ops.negative(self),
        "__pos__": lambda self: self,
        "__abs__": lambda self: math_ops.abs(self),
        "__invert__": _invert,
        "__getitem__": _getitem,
        "__getattr__": _no_attr,
    }
    for name, fn in _BINARY.items():
        ops[f"__{name}__"] = (lambda f: lambda self, other: f(self, other))(fn)
        ops[f"__r{name}__"] = _reflect(fn)
    installs = [(Tensor, name, fn) for name, fn in ops.items()] + [(EagerTensor, "__iter__", _iter)]
    for cls, name, fn in installs:
        setattr(cls, name, fn)
    # Tensor.__hash__ stays the one raising TypeError: __eq__ is elementwise (use .ref()).


def _getitem(self, key):
    """``tensor[key]``; a boolean tensor or NumPy array as the whole key is a mask
    (``tf.boolean_mask``), as in TensorFlow."""
    if (isinstance(key, Tensor) and key.dtype.is_bool) or (isinstance(key, np.ndarray) and key.dtype == np.bool_):
        return array_composites.boolean_mask(self, key)
    return slicing.getitem(self, key)


def _iter(self):
    if self._value.ndim == 0:
        raise TypeError("Cannot iterate over a scalar tensor.")
    return iter(array_ops.unstack(self))


def _no_attr(self, name):
    if name == "assign":  # a slice of a variable writes back into it: v[0].assign(x)
        assign = variables.sliced_assign(self)
        if assign is not None:
            return assign
    if name == "numpy":
        raise AttributeError(
            f"'{type(self).__name__}' object has no attribute 'numpy': {self!r} is a symbolic tensor "
            "inside a traced function; its value exists only when the function runs. Return it from the "
            "function (or use tfunc.print) to see its value."
        )
    raise AttributeError(f"'{type(self).__name__}' object has no attribute {name!r}")
