"""``tf.autodiff.ForwardAccumulator``: forward-mode differentiation (Jacobian-vector products).

A persistent tape records what runs inside the accumulator.  ``jvp(target)`` then uses the
double-VJP identity: the reverse-mode product ``g(u) = J^T u`` is linear in ``u``, so the
gradient of ``<g(u), tangents>`` with respect to ``u`` is ``J @ tangents``.  Every gradient
rule of the registry is thereby also a forward-mode rule, and the result is itself recorded
by enclosing tapes and accumulators (Hessian-vector products, forward-over-backward).

A ``tf.custom_gradient`` node is the exception: as TensorFlow's, forward mode differentiates
the ops the function ran, not its ``grad_fn`` (the node is the identity on its results here).
"""

from __future__ import annotations

from ..api.creation_ops import zeros_like
from ..api.math_ops import add_n, multiply
from ..api.reduction_ops import reduce_sum
from ..core import nest
from ..core.context import ctx
from ..eager.convert import convert_to_tensor
from .registry import GradientRule
from .tape import GradientTape, UnconnectedGradients

__all__ = ["ForwardAccumulator"]


def _through_primal_ops(op, *dys):
    """A custom_gradient node's inputs are its function's results, then its arguments and
    variable reads: the results take the upstream gradients, the rest none."""
    return list(dys) + [None] * (len(op.inputs) - len(dys))


# Only the accumulator's own records: a custom_gradient inside a tf.function (or a loop) keeps
# its grad_fn there, as TensorFlow's forward mode through a function call does.
_FORWARD_RULES = {"custom_gradient": GradientRule(_through_primal_ops, slices=True)}


class ForwardAccumulator:
    """Computes ``J @ tangents`` for the computations run inside its context, ``J`` being the
    Jacobian of a result with respect to ``primals`` (tensors or variables)."""

    def __init__(self, primals, tangents):
        try:
            nest.assert_same_structure(primals, tangents)
        except (TypeError, ValueError) as e:
            raise ValueError(f"ForwardAccumulator: primals and tangents must have the same structure: {e}") from None
        self._primals: list = []
        self._tangents: list = []
        seen: set = set()
        for p, t in zip(nest.flatten(primals), nest.flatten(tangents)):
            key = p._unique_id if getattr(p, "_is_tfunc_variable", False) else id(p)
            if key in seen:
                raise ValueError(
                    f"Tensor {p!r} was specified as a primal multiple times. This may indicate an error. "
                    "If it was intended, please sum the corresponding tangents."
                )
            seen.add(key)
            t = convert_to_tensor(t, dtype=p.dtype)
            if t.shape.is_fully_defined() and p.shape.is_fully_defined() and t.shape != p.shape:
                raise ValueError(f"ForwardAccumulator: a tangent of shape {t.shape} for a primal of shape {p.shape}.")
            self._primals.append(p)
            self._tangents.append(t)
        self._tape = GradientTape(persistent=True, watch_accessed_variables=False)
        self._tape._rules = _FORWARD_RULES
        self._tape.watch(self._primals)

    def __enter__(self):
        self._tape.__enter__()
        return self

    def __exit__(self, *exc):
        return self._tape.__exit__(*exc)

    def jvp(self, primals, unconnected_gradients=UnconnectedGradients.NONE):
        """The Jacobian-vector product of each tensor in ``primals`` (computed inside the
        accumulator); None for one the accumulated primals do not reach, unless
        ``unconnected_gradients`` is ``ZERO``."""
        how = getattr(unconnected_gradients, "value", unconnected_gradients)
        if how not in ("none", "zero"):
            raise ValueError(f"unconnected_gradients must be 'none' or 'zero', got {unconnected_gradients!r}")
        out = [self._jvp(t, how) for t in nest.flatten(primals)]
        return nest.pack_sequence_as(primals, out)

    def _jvp(self, target, how):
        for p, t in zip(self._primals, self._tangents):
            if p is target:
                return t
        target = convert_to_tensor(target)
        result = None
        if target.dtype.is_floating:
            u = zeros_like(target)  # any value: g(u) is linear in u
            with GradientTape(watch_accessed_variables=False) as outer:
                outer.watch(u)
                grads = self._tape.gradient(target, self._primals, output_gradients=u)
                terms = [reduce_sum(multiply(g, t)) for g, t in zip(grads, self._tangents) if g is not None]
                total = (add_n(terms) if len(terms) > 1 else terms[0]) if terms else None  # recorded too
            if total is not None:
                try:
                    result = outer.gradient(total, u)
                except NotImplementedError as e:
                    if ctx.graph is None:
                        raise
                    # the JVP differentiates the loop's gradient, which tfunc refuses in a function
                    raise NotImplementedError(
                        "tfunc's ForwardAccumulator does not compute JVPs through a while_loop (map_fn, scan, "
                        "foldl, foldr, a Python loop over a tensor) traced inside a tf.function; TensorFlow "
                        "does. Compute the JVP eagerly, or with a GradientTape (reverse mode)."
                    ) from e
        if result is None and how == "zero":
            result = zeros_like(target)
        return result
