"""Elementwise ops on 0-d host values, lowered as Python operators.

A ufunc call on two 0-d values costs about 1.7 µs; the same comparison as a Python
operator on NumPy scalars about 0.15 µs.  Loop conditions are exactly that
(``while tf.reduce_sum(x) > 1``: a reduction gives a NumPy scalar, compared with a
constant), so on the host plan such a node is emitted as ``v = a > b``, with 0-d
constants bound as NumPy scalars and a 0-d array operand (a function's input, a
kernel's result) taken as its scalar ``a[()]``: an operator on a 0-d array is a ufunc
call again.  The results are the ufunc's: NumPy's scalar operators are those ufuncs
(with one freedom IEEE 754 leaves: of two NaN operands of ``+`` or ``*``, the scalar
operator returns the second's sign and payload, the ufunc the first's).  Arithmetic is
lowered this way only for floating dtypes (integer scalar arithmetic warns on overflow
where the ufunc on arrays wraps silently), and only for NumPy's own types: ml_dtypes'
scalar operators (bfloat16) do not report floating-point errors.

The table is the plan layer's own: op name -> Python operator.
"""

from __future__ import annotations

import numpy as np

COMPARISONS = {"greater": ">", "greater_equal": ">=", "less": "<", "less_equal": "<=", "equal": "==", "not_equal": "!="}
FLOAT_ARITHMETIC = {"add": "+", "subtract": "-", "multiply": "*", "divide": "/"}
UNARY = {"negative": "-"}


def operator_of(node, graph) -> str | None:
    """The Python operator computing ``node`` on 0-d host values, or None."""
    return operator_for(node.op, node.attrs, [graph.spec(r) for r in node.inputs], node.outputs)


def operator_for(op: str, attrs, in_specs, out_specs) -> str | None:
    """The Python operator computing ``op`` on 0-d host values of these specs, or None (also
    for a step of a 0-d fused kernel, ``backend/numpy/fusion.py``)."""
    if attrs or any(s.shape != () for s in out_specs):
        return None
    if any(s.shape != () or s.dtype.is_string or s.dtype.is_variant for s in in_specs):
        return None
    kinds = [_kind(s.dtype) for s in in_specs]
    if any(k not in "biuf" for k in kinds):
        # NumPy's own types only: ml_dtypes' scalar operators (bfloat16) never check the
        # floating-point status, so errors np.errstate asks to report would pass silently
        return None
    if op in COMPARISONS:
        return COMPARISONS[op]
    floating = all(k == "f" for k in kinds) and _kind(out_specs[0].dtype) == "f"
    if op in FLOAT_ARITHMETIC and floating and in_specs[0].dtype is in_specs[1].dtype:
        return FLOAT_ARITHMETIC[op]
    if op in UNARY and floating:
        return UNARY[op]
    return None


def _kind(dtype) -> str:
    return np.dtype(dtype._np).kind


def scalar_expr(var: str, ndarray_name: str) -> str:
    """Generated code for ``var``'s NumPy scalar when it holds a 0-d array (``ndarray_name``:
    the plan's or kernel's name bound to ``np.ndarray``), else ``var`` itself."""
    return f"({var}[()] if {var}.__class__ is {ndarray_name} else {var})"


def scalar_constant(value):
    """A 0-d constant as the NumPy scalar the operators work on fastest."""
    return value[()] if isinstance(value, np.ndarray) and value.ndim == 0 else value
