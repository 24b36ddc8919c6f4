"""``tfunc.GradientTape``: reverse-mode automatic differentiation.

While a tape is active, every op whose inputs depend on something the tape
watches is recorded as ``(op, inputs, outputs, attrs)``, eagerly or while
tracing alike.  ``gradient`` walks the records backwards and applies each
op's ``grad`` rule from the registry; the rules are written with tfunc ops, so
gradients of eager code run eagerly and gradients inside a traced function
become part of its graph (and go through the optimizer).  Active outer tapes
record what an inner tape's ``gradient`` computes, which gives higher-order
gradients.

Variables are watched when read (``watch_accessed_variables``): each read
yields a tensor, and a variable's gradient is the sum over its reads.
"""

from __future__ import annotations

import contextlib
import enum

import numpy as np

from ..api.array_ops import concat, reshape, shape, size, stack
from ..api.control_flow_ops import while_loop
from ..api.creation_ops import ones_like, zeros, zeros_like
from ..api.creation_ops import range as tf_range
from ..api.indexed_slices import IndexedSlices, concat_slices, densify
from ..api.math_ops import cast, equal
from ..api.tensor_array import TensorArray
from ..core import nest
from ..core.context import ctx
from ..eager.convert import convert_to_tensor
from ..eager.tensor import EagerTensor, Tensor
from .registry import gradient_rule

__all__ = ["GradientTape", "OpContext", "backprop", "UnconnectedGradients"]


class UnconnectedGradients(str, enum.Enum):
    """What ``gradient`` gives for a source the target does not depend on."""

    NONE = "none"
    ZERO = "zero"


class OpContext:
    """What a gradient rule sees: the op's ``inputs``, ``outputs`` and ``attrs``."""

    __slots__ = ("inputs", "outputs", "attrs", "_needed")

    def __init__(self, inputs, outputs, attrs, needed=None):
        self.inputs, self.outputs, self.attrs, self._needed = inputs, outputs, attrs, needed

    def needs(self, i: int) -> bool:
        """Whether input ``i`` needs a gradient (rules may skip costly unneeded ones)."""
        return self._needed is None or i in self._needed


class _Entry:
    __slots__ = ("op", "inputs", "outputs", "attrs")

    def __init__(self, op, inputs, outputs, attrs):
        self.op, self.inputs, self.outputs, self.attrs = op, inputs, outputs, attrs


def _differentiable(t) -> bool:
    """Floats carry gradients; variant values (TensorArray buffers) and complex values are
    tracked too, so a path through an op without a gradient rule, or through complex values
    (which tfunc does not differentiate), is reported instead of giving None."""
    dt = t.dtype
    return dt.is_floating or dt.is_variant or dt.is_complex


class GradientTape:
    """Records operations for automatic differentiation (``tf.GradientTape``)."""

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = bool(persistent)
        self._watch_accessed = bool(watch_accessed_variables)
        self._entries: list = []
        self._tracked: dict = {}  # id(tensor) -> tensor depending on a watched source
        self._variables: dict = {}  # variable uid -> (variable, [read tensors])
        self._recording = False
        self._used = False
        self._complex = False  # a complex value was tracked (backprop then checks for them)
        self._rules = None  # op name -> GradientRule used instead of the registry's (forward mode)

    # --- context --------------------------------------------------------------------
    def __enter__(self):
        ctx.tapes = ctx.tapes + [self]
        self._recording = True
        return self

    def __exit__(self, *exc):
        ctx.tapes = [t for t in ctx.tapes if t is not self]
        self._recording = False
        return False

    @contextlib.contextmanager
    def stop_recording(self):
        """Operations inside are not recorded by this tape."""
        was = self._recording
        self._recording = False
        try:
            yield
        finally:
            self._recording = was

    def reset(self) -> None:
        """Forgets everything recorded so far (watched tensors too)."""
        self._entries.clear()
        self._tracked.clear()
        self._variables.clear()

    # --- watching ---------------------------------------------------------------------
    def watch(self, tensor) -> None:
        """Tracks ``tensor`` (or a Variable, or a nested structure of them) as a source."""
        for t in nest.flatten(tensor):
            if getattr(t, "_is_tfunc_variable", False):
                self._variables.setdefault(t._unique_id, (t, []))
            elif isinstance(t, Tensor):
                if _differentiable(t):
                    self._tracked[id(t)] = t
                    self._complex = self._complex or t.dtype.is_complex
            else:
                raise ValueError(f"GradientTape.watch takes tensors or variables, got {type(t).__name__}: {t!r}")

    def watched_variables(self):
        """The variables read under this tape, in the order they were created (as TensorFlow)."""

        def created(uid):  # a variable argument of a function stands for the variable passed
            var = self._variables[uid][0]
            return getattr(var, "_target", var)._unique_id

        return tuple(self._variables[uid][0] for uid in sorted(self._variables, key=created))

    def _record(self, op, inputs, outputs, attrs) -> None:
        tracked = self._tracked
        if not any(id(t) in tracked for t in inputs):
            return
        self._entries.append(_Entry(op, inputs, outputs, attrs))
        for o in outputs:
            if _differentiable(o):
                tracked[id(o)] = o
                if o.dtype.is_complex:
                    self._complex = True

    def _variable_read(self, var, tensor) -> None:
        entry = self._variables.get(var._unique_id)
        if entry is None:
            if not (self._watch_accessed and var.trainable):
                return
            entry = self._variables[var._unique_id] = (var, [])
        if getattr(tensor, "_is_symbolic", False) and any(r is tensor for r in entry[1]):
            return  # a captured read reused (a branch or loop body): counted once
        entry[1].append(tensor)
        if _differentiable(tensor):
            self._tracked[id(tensor)] = tensor
            self._complex = self._complex or tensor.dtype.is_complex

    # --- gradients ----------------------------------------------------------------------
    def gradient(self, target, sources, output_gradients=None, unconnected_gradients="none"):
        """d(sum of ``target``)/d``sources``, in the structure of ``sources``."""
        if self._used and not self._persistent:
            raise RuntimeError(
                "A non-persistent GradientTape can only be used to compute one set of "
                "gradients (or jacobians); use GradientTape(persistent=True) for more."
            )
        unconnected_gradients = getattr(unconnected_gradients, "value", unconnected_gradients)
        if unconnected_gradients not in ("none", "zero"):
            raise ValueError(f"unconnected_gradients must be 'none' or 'zero', got {unconnected_gradients!r}")
        self._used = True
        flat_targets = [self._target_tensor(t) for t in nest.flatten(target)]
        flat_sources = nest.flatten(sources)
        if output_gradients is not None:
            out_grads = nest.flatten(output_gradients)
            if any(g is None for g in out_grads):  # TensorFlow converts each entry to a tensor
                raise ValueError(
                    "Attempt to convert a value (None) with an unsupported type (<class 'NoneType'>) to a "
                    "Tensor: output_gradients may not hold None (pass zeros for a target without one)."
                )
            if len(out_grads) != len(flat_targets):
                raise ValueError(f"output_gradients has {len(out_grads)} entries for {len(flat_targets)} targets.")
            out_grads = [_as_target_shape(_to_tensor(g), t) for g, t in zip(out_grads, flat_targets)]
        else:
            out_grads = [None] * len(flat_targets)
        was = self._recording
        # Outer tapes record this computation; this one too when persistent (as TensorFlow's:
        # a gradient taken inside a persistent tape's context can be differentiated by it).
        self._recording = was and self._persistent
        try:
            grads = backprop(list(self._entries), flat_targets, out_grads, self._tracked, self._complex, self._rules)
        finally:
            self._recording = was
        results = []
        for s in flat_sources:
            if getattr(s, "_is_tfunc_variable", False):
                reads = self._variables.get(s._unique_id, (None, []))[1]
                parts = [grads[id(r)] for r in reads if id(r) in grads]
                g = _sum(parts)
                if g is None and unconnected_gradients == "zero":
                    g = zeros(s.shape, s.dtype)
            elif isinstance(s, Tensor):
                g = grads.get(id(s))
                if g is None and unconnected_gradients == "zero":
                    g = zeros_like(s)
            else:
                raise ValueError(f"gradient sources must be tensors or variables, got {type(s).__name__}")
            results.append(g)
        if not self._persistent:
            self._entries = []
        return nest.pack_sequence_as(sources, results)

    def jacobian(
        self, target, sources, unconnected_gradients="none", parallel_iterations=None, experimental_use_pfor=True
    ):
        """The Jacobian of ``target`` with respect to each source (rows: target elements);
        ``parallel_iterations`` and ``experimental_use_pfor`` are accepted for compatibility
        (as TensorFlow's, ``experimental_use_pfor=False`` eagerly needs a persistent tape)."""
        unconnected_gradients = getattr(unconnected_gradients, "value", unconnected_gradients)
        if unconnected_gradients not in ("none", "zero"):
            raise ValueError(f"unconnected_gradients must be 'none' or 'zero', got {unconnected_gradients!r}")
        self._check_jacobian_allowed("jacobian", experimental_use_pfor)
        target = self._jacobian_target(target)
        n = target.shape.num_elements()
        if n is None:  # (only while tracing: an eager shape is always known)
            return self._jacobian_loop(target, sources, unconnected_gradients)
        rows = []
        with self._repeatable():
            for i in range(n):
                onehot = np.zeros(n, target.dtype._np)
                onehot[i] = 1
                og = reshape(onehot, target.shape.as_list())
                rows.append(self.gradient(target, sources, output_gradients=og, unconnected_gradients="none"))
            # an empty target has no rows to tell which sources it reaches: its gradient does
            probe = nest.flatten(self.gradient(target, sources)) if n == 0 else None
        flat_sources = nest.flatten(sources)
        out = []
        for k, s in enumerate(flat_sources):
            parts = [nest.flatten(r)[k] for r in rows]
            shape = target.shape.as_list() + list(s.shape.as_list())
            if probe is not None and probe[k] is not None:
                out.append(zeros(shape, s.dtype))
                continue
            if all(p is None for p in parts):
                # not connected (as TensorFlow: None unless unconnected_gradients="zero")
                out.append(None if unconnected_gradients == "none" else zeros(shape, s.dtype))
                continue
            parts = [zeros(s.shape, s.dtype) if p is None else p for p in parts]
            out.append(reshape(stack(parts), shape))
        return nest.pack_sequence_as(sources, out)

    def _check_jacobian_allowed(self, what, use_pfor) -> None:
        """TensorFlow's rules for a jacobian of a non-persistent tape: one set of gradients or
        jacobians in all, and eagerly only with ``experimental_use_pfor`` (the default)."""
        if self._persistent:
            return
        if self._used:
            raise RuntimeError(
                "A non-persistent GradientTape can only be used to compute one set of "
                "gradients (or jacobians); use GradientTape(persistent=True) for more."
            )
        if not use_pfor and ctx.graph is None:
            raise RuntimeError(
                f"GradientTape must be created with persistent=True to compute the {what} with eager "
                "execution enabled and with experimental_use_pfor set to False."
            )

    def _jacobian_target(self, target):
        """The target of a jacobian as a tensor; TensorFlow reads its ``shape``, so a list, a
        tuple or a Python number is refused with its AttributeError (it would otherwise
        become a new constant, unconnected to every source)."""
        if not getattr(target, "_is_tfunc_variable", False) and not hasattr(target, "shape"):
            raise AttributeError(
                f"'{type(target).__name__}' object has no attribute 'shape': a jacobian target must be "
                "one tensor (take one jacobian per target of a list)."
            )
        return self._as_tensor(target)

    @contextlib.contextmanager
    def _repeatable(self):
        """Several gradients from one tape, as a persistent tape gives them (see gradient); a
        non-persistent tape is used up afterwards, as by one ``gradient``."""
        was_persistent, self._persistent = self._persistent, True
        was_recording = self._recording
        self._recording = was_recording and was_persistent
        try:
            yield
        finally:
            self._persistent = was_persistent
            self._recording = was_recording
            self._used = True
            if not was_persistent:
                self._entries = []

    def _jacobian_loop(self, target, sources, unconnected_gradients):
        """The Jacobian of a target whose size is known only at run time: one gradient per
        target element in a graph loop, its rows gathered in TensorArrays (TensorFlow's
        ``experimental_use_pfor=False`` path)."""

        flat_sources = nest.flatten(sources)
        n, t_shape = size(target), shape(target)
        with self._repeatable():
            # which sources the target reaches at all (the probe itself is dead code in the graph)
            probe = nest.flatten(self.gradient(target, sources, unconnected_gradients="none"))
            connected = [k for k, g in enumerate(probe) if g is not None]

            def body(i, *rows):
                onehot = reshape(cast(equal(tf_range(n), i), target.dtype), t_shape)
                grads = nest.flatten(self.gradient(target, sources, output_gradients=onehot))
                return (i + 1,) + tuple(r.write(i, grads[k]) for r, k in zip(rows, connected))

            rows = [TensorArray(flat_sources[k].dtype, size=n, element_shape=flat_sources[k].shape) for k in connected]
            _, *rows = while_loop(lambda i, *_: i < n, body, [0] + rows)
        out = []
        for k, s in enumerate(flat_sources):
            full_shape = concat([t_shape, shape(s)], 0)
            if k in connected:
                out.append(reshape(rows[connected.index(k)].stack(), full_shape))
            else:  # not connected (as TensorFlow: None unless unconnected_gradients="zero")
                out.append(None if unconnected_gradients == "none" else zeros(full_shape, s.dtype))
        return nest.pack_sequence_as(sources, out)

    def batch_jacobian(
        self, target, source, unconnected_gradients="none", parallel_iterations=None, experimental_use_pfor=True
    ):
        """Per-example Jacobians: ``result[i]`` is the Jacobian of ``target[i]`` with respect to
        ``source[i]`` (both have the batch as their first dimension). As TensorFlow's, it takes
        one gradient per element of an example, summed over the batch, so it assumes examples
        do not depend on each other; the batch size may be known only at run time."""
        self._check_jacobian_allowed("batch_jacobian", experimental_use_pfor)
        target = self._jacobian_target(target)
        if target.shape.rank is not None and target.shape.rank < 2:
            raise ValueError(f"batch_jacobian: target shape {target.shape} must have rank at least 2.")
        t_rest, s_rest = target.shape.as_list()[1:], source.shape.as_list()[1:]
        b_t, b_s = target.shape[0], source.shape[0]
        if b_t is not None and b_s is not None and b_t != b_s:
            raise ValueError(f"batch_jacobian: target and source have different batch sizes, {b_t} and {b_s}.")
        if None in t_rest or None in s_rest:
            raise ValueError(
                f"batch_jacobian needs the per-example shapes to be known, got {target.shape} and {source.shape}."
            )
        t_n = int(np.prod(t_rest or [1]))
        out_shape = concat([shape(target)[:1], np.array(t_rest + s_rest, np.int32)], 0)
        rows = []
        with self._repeatable():
            for j in range(t_n):
                onehot = np.zeros(t_n, target.dtype._np)
                onehot[j] = 1
                og = zeros_like(target) + reshape(onehot, [1] + t_rest)  # the same for every example
                rows.append(self.gradient(target, source, output_gradients=og, unconnected_gradients="none"))
        if all(r is None for r in rows):  # not connected: zeros of the target's dtype, as TensorFlow's
            return zeros(out_shape, target.dtype)
        rows = [zeros_like(source) if r is None else r for r in rows]
        return reshape(stack(rows, axis=1), out_shape)

    def _target_tensor(self, t):
        """A target as a tensor; a Variable target is a read this tape sees (its gradient with
        respect to itself is one, as TensorFlow's), even after the tape stopped recording."""
        if getattr(t, "_is_tfunc_variable", False) and ctx.graph is None:
            value = t.read_value()
            read = EagerTensor._make(value._value, value.dtype)
            self._variable_read(t, read)
            return read
        return self._as_tensor(t)

    @staticmethod
    def _as_tensor(t):
        if getattr(t, "_is_tfunc_variable", False):
            return t.read_value()
        return _to_tensor(t)


def _to_tensor(t):
    return convert_to_tensor(t)


def _as_target_shape(g, target):
    """An output gradient with the target's number of elements in another shape ([1, n] for
    [n]) is reshaped to the target's, as TensorFlow's gradients read it; others are used as
    given (a scalar broadcasts)."""
    gs, ts = g.shape, target.shape
    if gs != ts and gs.is_fully_defined() and ts.is_fully_defined() and gs.num_elements() == ts.num_elements():
        return reshape(g, ts.as_list())
    return g


def _add(a, b):
    """The sum of two gradients of one tensor: IndexedSlices side by side (TensorFlow's sparse
    aggregation), dense otherwise."""
    if isinstance(a, IndexedSlices) and isinstance(b, IndexedSlices):
        return concat_slices(a, b)
    return densify(a) + densify(b)


def _sum(parts):
    if not parts:
        return None
    total = parts[0]
    for p in parts[1:]:
        total = _add(total, p)
    return total


def backprop(entries, targets, output_grads, tracked, complex_tracked=True, rules=None):
    """Accumulated gradients by id(tensor), from the recorded ``entries`` back to their inputs
    (``complex_tracked``: whether a complex value was tracked, which tfunc refuses to
    differentiate through; False skips that check; ``rules``: op name -> GradientRule taking
    precedence over the registry's)."""
    grads: dict = {}
    for t, g in zip(targets, output_grads):
        if id(t) not in tracked:  # the target does not depend on any source
            continue
        g = ones_like(t) if g is None else densify(g)
        grads[id(t)] = g if id(t) not in grads else grads[id(t)] + g
    for entry in reversed(entries):
        dys = [grads.get(id(o)) for o in entry.outputs]
        if all(d is None for d in dys):
            continue
        needed = {i for i, t in enumerate(entry.inputs) if id(t) in tracked}
        if not needed:
            continue
        if complex_tracked and (
            any(entry.inputs[i].dtype.is_complex for i in needed)
            or any(d is not None and o.dtype.is_complex for o, d in zip(entry.outputs, dys))
        ):
            raise NotImplementedError(
                f"tfunc does not differentiate through complex tensors (the gradient reaches "
                f"'{entry.op.name}' with a complex input or output); TensorFlow does. Split the "
                "computation into real and imaginary parts (tf.math.real/imag) to differentiate it."
            )
        rule = gradient_rule(entry.op) if rules is None else rules.get(entry.op.name) or gradient_rule(entry.op)
        if rule is None:
            if entry.op.tf_name:  # TensorFlow's words, as its guides print them
                raise LookupError(f"gradient registry has no entry for: {entry.op.tf_name}")
            raise LookupError(
                f"gradient registry has no entry for: {entry.op.name} (tfunc has no gradient rule for "
                f"'{entry.op.name}'; stop the gradient before it with tf.stop_gradient if none is needed)."
            )
        if not rule.slices:  # sources keep IndexedSlices; most rules take dense gradients
            dys = [densify(d) for d in dys]
        # Outputs that received no gradient pass None (a multi-output op's rule fills in
        # zeros where it needs them): no zeros are materialised for unused outputs.
        in_grads = rule.fn(OpContext(entry.inputs, entry.outputs, entry.attrs, needed), *dys)
        for i, (t, g) in enumerate(zip(entry.inputs, in_grads)):
            if g is None or i not in needed:
                continue
            prev = grads.get(id(t))
            grads[id(t)] = g if prev is None else _add(prev, g)
    return grads
