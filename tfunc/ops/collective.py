"""Collective communication across the replicas of a ``tf.distribute`` strategy.

Each node holds its *group* in ``attrs["group"]``: an object of ``tfunc.distribute`` that
knows this replica's rank, how many replicas take part and how to reach them (MPI between
processes, NCCL between GPUs, nothing for a single replica).  The kernels hand the arrays to
the group, which returns the results; this module never talks to a transport itself.

Every replica must run the same collectives in the same order, so the ops are stateful
(ordered by automatic control dependencies, never folded, merged by CSE or dropped) and
never captured in CUDA graphs (they wait for the other replicas).

* ``collective_all_reduce(*xs)``: each output is the elementwise ``reduction`` ("sum",
  "mean", "max", "min") of that input over the replicas.  One node takes any number of
  tensors: the group packs them into few buffers (by dtype, ``bytes_per_pack`` at most)
  and reduces each buffer with one call, so a step's gradients cost a few messages.
* ``collective_all_gather(x)``: the replicas' ``x`` concatenated along ``axis`` in replica
  order (the sizes along ``axis`` may differ between replicas; other dims must agree).
* ``collective_broadcast(x)``: replica ``root``'s ``x`` on every replica (how variables
  created under a strategy start equal).
"""

from __future__ import annotations

from ..core.errors import InvalidArgumentError
from ..core.specs import Spec
from .infer import NUMERIC, NUMERIC_BOOL, check_dtype, normalize_axis
from .registry import OpDef, register

REDUCTIONS = ("sum", "mean", "max", "min")


def _check_group(op: str, attrs) -> None:
    group = attrs.get("group")
    if group is None or not hasattr(group, "num_replicas"):
        raise InvalidArgumentError(f"'{op}' needs a communication group in attrs['group'], got {group!r}.")


def _check_not_string(op: str, spec: Spec) -> None:
    if spec.dtype.is_string or spec.dtype.is_variant:
        raise InvalidArgumentError(f"'{op}' moves numbers between replicas; got a {spec.dtype.name} tensor.")


def _all_reduce_infer(specs, attrs):
    _check_group("collective_all_reduce", attrs)
    reduction = attrs.get("reduction")
    if reduction not in REDUCTIONS:
        raise InvalidArgumentError(
            f"collective_all_reduce: unknown reduction {reduction!r}; expected one of {', '.join(REDUCTIONS)}."
        )
    if not specs:
        raise InvalidArgumentError("collective_all_reduce needs at least one tensor.")
    allowed = NUMERIC if reduction in ("sum", "mean") else NUMERIC_BOOL
    for i, s in enumerate(specs):
        check_dtype("collective_all_reduce", s, allowed, arg=f"input {i}")
        if reduction == "mean" and not s.dtype.is_floating:
            raise InvalidArgumentError(
                f"collective_all_reduce: a mean over replicas needs floating-point tensors; input {i} is "
                f"{s.dtype.name} (reduce with 'sum' and divide, or cast first)."
            )
    return tuple(specs)


def _all_reduce_impl(xp, *arrays, group, reduction, bytes_per_pack=0):
    return tuple(group.all_reduce(xp, list(arrays), reduction, bytes_per_pack))


def _all_gather_infer(specs, attrs):
    _check_group("collective_all_gather", attrs)
    (s,) = specs
    _check_not_string("collective_all_gather", s)
    if s.shape is None:
        return (Spec(None, s.dtype),)
    if not s.shape:
        raise InvalidArgumentError("collective_all_gather needs a tensor of rank 1 or more (it concatenates).")
    axis = normalize_axis(attrs["axis"], len(s.shape), "collective_all_gather")
    dims = list(s.shape)
    n = attrs["group"].num_replicas
    # NOTE: replicas may hold different sizes along the axis (the last, partial batch), so the
    # gathered size is known while tracing only when there is one replica.
    dims[axis] = dims[axis] if n == 1 else None
    return (Spec(tuple(dims), s.dtype),)


def _all_gather_impl(xp, x, group, axis):
    return group.all_gather(xp, x, axis % x.ndim)


def _broadcast_infer(specs, attrs):
    _check_group("collective_broadcast", attrs)
    (s,) = specs
    _check_not_string("collective_broadcast", s)
    root = attrs.get("root", 0)
    if not 0 <= root < attrs["group"].num_replicas:
        raise InvalidArgumentError(
            f"collective_broadcast: root {root} is not a replica (the group has {attrs['group'].num_replicas})."
        )
    return (s,)


def _broadcast_impl(xp, x, group, root=0):
    return group.broadcast(xp, x, root)


collective_all_reduce_op = register(
    OpDef(
        name="collective_all_reduce",
        infer=_all_reduce_infer,
        impl=_all_reduce_impl,
        num_outputs=-1,
        kind="io",
        stateful=True,
        host_sync=True,
        capturable=False,
    )
)
collective_all_gather_op = register(
    OpDef(
        name="collective_all_gather",
        infer=_all_gather_infer,
        impl=_all_gather_impl,
        kind="io",
        stateful=True,
        host_sync=True,
        capturable=False,
    )
)
collective_broadcast_op = register(
    OpDef(
        name="collective_broadcast",
        infer=_broadcast_infer,
        impl=_broadcast_impl,
        kind="io",
        stateful=True,
        host_sync=True,
        capturable=False,
    )
)
