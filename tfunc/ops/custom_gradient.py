"""``custom_gradient``: the node a ``tf.custom_gradient`` function's results pass through.

Its inputs are the function's results, then its differentiable arguments, then one read of
each variable it used; its outputs are the results again (an identity on the first
``num_results`` inputs).  The arguments and reads are inputs only so that gradient tapes
connect the results to them: the gradient rule (``tfunc.autodiff.custom_gradient_grad``)
calls the user's gradient function instead of differentiating what the function did.  The
optimizer forwards the outputs to the results, so forward graphs hold no trace of it.

Attrs: ``num_results``; ``fn`` (the user's function, called again with fresh arguments where a
graph holding this node is replayed, since its gradient function closes over the tensors of
the trace that made it); ``grad_fn``, ``made_for`` (the inputs ``grad_fn`` was made for) and
``variables`` (the variables whose reads end the inputs, in order)."""

from __future__ import annotations

from .registry import OpDef, register


def _infer(specs, attrs):
    return tuple(specs[: attrs["num_results"]])


def _impl(xp, *arrays, num_results, **_):
    return tuple(arrays[:num_results])


custom_gradient_op = register(
    OpDef(name="custom_gradient", kind="other", infer=_infer, impl=_impl, num_outputs=-1, view=True)
)
