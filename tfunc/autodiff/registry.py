"""The gradient table: one rule per differentiable op, owned by autodiff.

Rules are registered from the ``*_grad`` modules of this package, as TensorFlow's
``math_grad.py`` registers with ``@ops.RegisterGradient("Tanh")``::

    @register_gradient("tanh")
    def _tanh_grad(op, dy):
        \"\"\"Returns dy * (1 - tanh(x) ** 2).\"\"\"
        return [dy * (1 - op.outputs[0] * op.outputs[0])]

A rule takes the op's context (``op.inputs``, ``op.outputs``, ``op.attrs``,
``op.needs(i)``) and one upstream gradient per output (None where no gradient
flows) and returns one gradient per input (None for inputs without one).  It is
written with tfunc ops, so it runs eagerly and while tracing alike.
``no_gradient(name)`` marks ops whose inputs get no gradient (integer outputs,
piecewise-constant functions); an op with neither is not differentiable and the
tape says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

__all__ = ["GradientRule", "GRADIENTS", "register_gradient", "no_gradient", "gradient_rule"]


@dataclass(frozen=True)
class GradientRule:
    fn: Callable  # (op context, *output grads) -> input grads
    inputs: Optional[tuple] = None  # indices of inputs that can have a gradient (None: all)
    slices: bool = False  # takes IndexedSlices gradients as they are (others get them dense)


GRADIENTS: dict[str, GradientRule] = {}


def register_gradient(op_name: str, inputs: Optional[tuple] = None, slices: bool = False):
    """Decorator: ``fn`` is the gradient rule of ``op_name``; ``inputs`` restricts which
    inputs are differentiable (the tests check only those against finite differences);
    ``slices``: the rule takes an IndexedSlices upstream gradient as it is (TensorFlow's Cast
    and Identity pass a sparse gradient on); other rules get it as a dense tensor."""

    def deco(fn):
        if op_name in GRADIENTS:
            raise ValueError(f"op {op_name!r} has a gradient rule already")
        GRADIENTS[op_name] = GradientRule(fn, inputs, slices)
        return fn

    return deco


def _none_for_each_input(op, *dys):
    return [None] * len(op.inputs)


def no_gradient(*op_names: str) -> None:
    """These ops pass no gradient to any input (TensorFlow's ``ops.NotDifferentiable``)."""
    for name in op_names:
        register_gradient(name, inputs=())(_none_for_each_input)


def gradient_rule(op) -> Optional[GradientRule]:
    """The rule of ``op`` (an OpDef), or None when it has none."""
    return GRADIENTS.get(op.name)
