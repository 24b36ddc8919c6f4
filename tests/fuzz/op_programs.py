"""Random programs over the op table, run every way tfunc can run them.

A program is a list of steps; a step calls one op of the registry with inputs taken from
one of the op's ``samples`` (so they are valid), except that an input may instead read
an earlier step's output (mapped into the range the op's samples use by elementwise ops
that are steps themselves: ``lo + (hi - lo) * sigmoid(v)``), and, in a few programs, one
input is made invalid on purpose (another shape or dtype).  Sample inputs become arguments
of the program or constants captured by it.

:func:`check_program` runs a program

* eagerly, step by step; each step's result is checked against the op's NumPy reference
  on the same inputs (in float64; a result that matches NumPy's own computation in the
  input's precision is accepted as well: LAPACK in float32 is not float64's answer);
* traced with the optimizer on, off (``disable_meta_optimizer``), and with unknown input
  dimensions (``input_signature`` of ``None`` dims); each traced function is called twice
  (the second call is the cached plan), and every result must match the eager one in
  dtype, shape and value;
* where it raises, every mode must raise the same ``tfunc.errors`` class (an
  ``InvalidArgumentError`` a shape-generic trace raises only when it runs counts as the
  same as its static-shape subclass), never a bare NumPy error;
* in float64, its gradient (eager tape, tape inside the traced function, tape around it)
  against central finite differences, element by element, leaving out points where the
  one-sided differences disagree (a kink: the derivative does not exist there).

Every disagreement is reported as an ``AssertionError`` naming the program.
"""

from __future__ import annotations

import dataclasses
import traceback
from collections import Counter
from typing import Optional

import numpy as np

import tfunc as tf
from tfunc.autodiff.registry import gradient_rule
from tfunc.core import dtypes as D
from tfunc.eager.dispatch import call
from tfunc.eager.tensor import EagerTensor
from tfunc.errors import InvalidArgumentError, OpError
from tfunc.ops.registry import REGISTRY, all_ops
from tfunc.testing import optimizer_options, tolerance

from ..ops.covered_elsewhere import COVERED_ELSEWHERE

# Every op with samples and a reference (control flow, variables, print, py_function,
# TensorArray and dataset ops have none: the AutoGraph fuzzer and their own tests cover them).
POOL = [
    op
    for op in all_ops()
    if op.samples is not None
    and op.ref is not None
    and op.kind not in ("control", "state", "io", "graph", "fused")
    and op.name not in COVERED_ELSEWHERE
]
# Piecewise-constant ops (derivative zero or undefined, finite differences meaningless at
# their jumps) and stop_gradient (zero gradient by definition) are not differentiated.
# softmax_cross_entropy_with_logits: TF's labels gradient is its own rule, not the loss's derivative;
NOT_DIFFERENTIATED = {
    "floormod", "floordiv", "round", "floor", "ceil", "sign", "stop_gradient", "range",
    "softmax_cross_entropy_with_logits", "zeta", "polygamma",  # TF: no gradient for zeta's x, polygamma's a
    "betainc",  # nor for betainc's a and b
}  # fmt: skip
# Ops that read one triangle of a symmetric input: their gradient (as TensorFlow's) is the
# symmetric matrix with the same directional derivatives, which finite differences through an
# earlier step cannot give (tests/autodiff/test_gradient_table.py checks it on the op's input).
READS_ONE_TRIANGLE = {"cholesky"}

STATS: Counter = Counter()  # what the runs covered (printed by the tests in long mode)

_SAMPLES: dict = {}


def samples_of(op) -> list:
    s = _SAMPLES.get(op.name)
    if s is None:
        s = _SAMPLES[op.name] = list(op.samples(np.random.default_rng(sum(map(ord, op.name)))))
    return s


# --- programs -------------------------------------------------------------------------------------


@dataclasses.dataclass
class Step:
    op: object
    attrs: dict
    sources: list  # per input: ("arg", k) | ("const", array) | ("step", j, output)
    note: str = ""
    mutated: bool = False  # an input made invalid on purpose: no reference check
    helper: bool = False  # an adapter step mapping an earlier value into a domain


@dataclasses.dataclass
class Program:
    args: list  # NumPy arrays: the program's arguments
    steps: list
    returns: list  # (step, output) pairs the program returns
    dys_seed: int = 0

    def describe(self) -> str:
        lines = ["program(" + ", ".join(f"a{k}: {_desc(a)}" for k, a in enumerate(self.args)) + "):"]
        for j, s in enumerate(self.steps):
            ins = []
            for src in s.sources:
                if src[0] == "arg":
                    ins.append(f"a{src[1]}")
                elif src[0] == "const":
                    ins.append(f"const({_desc(src[1])})")
                else:
                    ins.append(f"s{src[1]}[{src[2]}]")
            attrs = {k: v for k, v in s.attrs.items() if k != "gen"}
            flags = " (invalid input)" if s.mutated else ""
            lines.append(f"  s{j} = {s.op.name}({', '.join(ins)}, {attrs}){flags}  # {s.note}")
        lines.append("  return " + ", ".join(f"s{j}[{k}]" for j, k in self.returns))
        return "\n".join(lines)


def _desc(a) -> str:
    a = np.asarray(a)
    text = f"{a.dtype.name}{list(a.shape)}"
    if a.size <= 6 and a.dtype.kind != "V":
        text += " " + np.array2string(a.reshape(-1), precision=4, separator=",")
    return text


def _tensor(a) -> EagerTensor:
    a = np.asarray(a)
    return EagerTensor._make(a, D.as_dtype(a.dtype))


def _outs(result) -> tuple:
    return result if isinstance(result, tuple) else (result,)


def run_steps(program: Program, args, stop=None):
    """Runs the steps on ``args`` (tensors, eager or symbolic); returns the outputs of each step."""
    values: list = []
    for _j, step in enumerate(program.steps[:stop]):
        ins = []
        for src in step.sources:
            if src[0] == "arg":
                ins.append(args[src[1]])
            elif src[0] == "const":
                ins.append(_tensor(src[1]))
            else:
                ins.append(values[src[1]][src[2]])
        values.append(_outs(call(step.op, ins, step.attrs)))
    return values


def as_function_body(program: Program):
    def body(*args):
        values = run_steps(program, args)
        return [values[j][k] for j, k in program.returns]

    return body


# --- drawing programs (hypothesis) ------------------------------------------------------------------


def _range_of(op, pos, dtype, sample):
    """(lo, hi) an input of ``op`` at ``pos`` takes in its samples: over every sample of the
    op for elementwise ops (their domain), over this sample otherwise (indices, sizes)."""
    pool = samples_of(op) if op.kind == "elementwise" else [sample]
    lo, hi = None, None
    for s in pool:
        if pos >= len(s.inputs):
            continue
        a = np.asarray(s.inputs[pos])
        if a.dtype != dtype or a.size == 0:
            continue
        a = a.astype(np.float64)
        lo = a.min() if lo is None else min(lo, a.min())
        hi = a.max() if hi is None else max(hi, a.max())
    return lo, hi


_INDEX: dict = {}


def _inputs_index():
    """(shape, dtype) -> [(op, sample index, input position)] for inputs an earlier value can feed."""
    if not _INDEX:
        for op in POOL:
            if op.random:
                continue
            for i, s in enumerate(samples_of(op)):
                for pos, a in enumerate(s.inputs):
                    a = np.asarray(a)
                    if _substitutable(op, a.dtype):
                        _INDEX.setdefault((a.shape, a.dtype), []).append((op, i, pos))
    return _INDEX


# Gradient helpers whose inputs must agree with each other (max pooling's input and output):
# any other value breaks their contract rather than testing them.
CONSISTENT_INPUTS = {"max_pool2d_grad", "max_pool2d_grad_grad", "max_pool3d_grad", "max_pool3d_grad_grad"}


def _substitutable(op, dtype) -> bool:
    """Whether an earlier value may stand for an input of this dtype: floating inputs of any
    op (mapped into range), integer and boolean inputs of elementwise ops only (elsewhere they
    are indices, sizes and segment ids whose validity a range does not capture)."""
    if op.name in CONSISTENT_INPUTS:
        return False
    dtype = np.dtype(dtype)
    if dtype.kind == "f" or dtype.name == "bfloat16":
        return True
    return op.kind == "elementwise" and dtype.kind in "iub"


class Builder:
    """Draws a program step by step, running each step eagerly as it goes (later steps read
    earlier values, so their shapes, dtypes and whether they raised must be known)."""

    def __init__(self, choose, max_steps: int):
        self.choose = choose  # choose(n) -> an int in [0, n): hypothesis draws it
        self.max_steps = max_steps
        self.program = Program([], [], [])
        self.values: list = []  # eager outputs per step
        self.error: Optional[BaseException] = None

    # --- hypothesis draws ---
    def choice(self, n: int) -> int:
        return self.choose(n) if n > 1 else 0

    def chance(self, one_in: int) -> bool:
        return self.choice(one_in) == 0

    def build(self) -> Program:
        n = 1 + self.choice(self.max_steps)
        for _ in range(n):
            self._step()
            if self.error is not None:
                break
        p = self.program
        if p.steps:
            last = len(p.steps) - 1
            outs = self._num_outputs(last)
            p.returns = [(j, k) for j in range(last) for k in range(len(self.values[j])) if self.chance(3)]
            p.returns += [(last, k) for k in range(outs)]
        p.dys_seed = self.choice(1 << 16)
        return p

    def _num_outputs(self, j):
        if j < len(self.values):
            return len(self.values[j])
        step = self.program.steps[j]
        if step.op.num_outputs != -1:
            return step.op.num_outputs
        return 1

    def _step(self):
        candidates = [
            (j, k)
            for j, outs in enumerate(self.values)
            if not self.program.steps[j].op.random
            for k in range(len(outs))
        ]
        chained = None
        if candidates and not self.chance(3):
            j, k = candidates[self.choice(len(candidates))]
            v = self.values[j][k]
            matches = _inputs_index().get((tuple(v._value.shape), v._value.dtype))
            if matches:
                op, i, pos = matches[self.choice(len(matches))]
                chained = (pos, j, k)
        if chained is None:
            op = POOL[self.choice(len(POOL))]
            i = self.choice(len(samples_of(op)))
        sample = samples_of(op)[i]
        sources = []
        for pos, a in enumerate(sample.inputs):
            a = np.asarray(a)
            if chained is not None and chained[0] == pos:
                sources.append(self._feed(op, pos, a, sample, chained[1], chained[2]))
            elif self.chance(4):
                sources.append(("const", a))
            else:
                self.program.args.append(a)
                sources.append(("arg", len(self.program.args) - 1))
        if self.error is not None:  # an adapter step raised
            return
        step = Step(op, dict(sample.attrs), sources, note=sample.note)
        if sample.inputs and self.chance(12):
            self._mutate(step, sample)
        self._append(step)

    def _feed(self, op, pos, a, sample, j, k):
        """A source reading output ``k`` of step ``j`` for input ``pos`` (through an adapter
        mapping it into the input's range when it may leave it)."""
        v = self.values[j][k]._value
        dtype = a.dtype
        if dtype.kind == "b" or a.size == 0:
            return ("step", j, k)
        lo, hi = _range_of(op, pos, dtype, sample)
        if lo is None:
            return ("step", j, k)
        inside = np.all(np.isfinite(v.astype(np.float64))) and v.min() >= lo and v.max() <= hi
        if inside:
            return ("step", j, k)
        dt = D.as_dtype(dtype)
        if dt.is_floating:
            # lo + (hi - lo) * sigmoid(v): in (lo, hi) for every finite or infinite v
            s = self._append(Step(REGISTRY["sigmoid"], {}, [("step", j, k)], "adapter", helper=True))
            m = self._append(
                Step(
                    REGISTRY["multiply"],
                    {},
                    [("step", s, 0), ("const", np.asarray(hi - lo, dtype))],
                    "adapter",
                    helper=True,
                )
            )
            out = self._append(
                Step(REGISTRY["add"], {}, [("step", m, 0), ("const", np.asarray(lo, dtype))], "adapter", helper=True)
            )
            return ("step", out, 0)
        if dt.is_integer:
            # lo + floormod(v - lo, hi - lo + 1)
            lo_i, span = int(lo), int(hi) - int(lo) + 1
            d = self._append(
                Step(REGISTRY["subtract"], {}, [("step", j, k), ("const", np.asarray(lo_i, dtype))], "adapter", True)
            )
            m = self._append(
                Step(REGISTRY["floormod"], {}, [("step", d, 0), ("const", np.asarray(span, dtype))], "adapter", True)
            )
            out = self._append(
                Step(REGISTRY["add"], {}, [("step", m, 0), ("const", np.asarray(lo_i, dtype))], "adapter", True)
            )
            return ("step", out, 0)
        return ("step", j, k)

    def _mutate(self, step, sample):
        """Makes one input invalid: another shape, or another dtype."""
        pos = self.choice(len(step.sources))
        src = step.sources[pos]
        if src[0] == "arg":
            a = self.program.args[src[1]]
        elif src[0] == "const":
            a = src[1]
        else:
            a = np.asarray(self.values[src[1]][src[2]]._value)
        how = self.choice(4)
        if how == 0:
            b = np.concatenate([a, a[..., :1]], axis=-1) if a.ndim else np.stack([a, a])
        elif how == 1:
            b = a[..., 0] if a.ndim and a.shape[-1] else a.reshape(a.shape + (1,))
        elif how == 2:
            b = np.stack([a, a])
        else:
            target = {"f": np.int32, "i": np.float32, "u": np.float32, "b": np.int32, "c": np.float32}
            b = a.astype(target.get(a.dtype.kind, np.float32)) if a.dtype.kind in target else a
        self.program.args.append(np.asarray(b))
        step.sources[pos] = ("arg", len(self.program.args) - 1)
        step.mutated = True

    def _append(self, step) -> int:
        """Adds the step and runs it eagerly; returns its index."""
        p = self.program
        p.steps.append(step)
        j = len(p.steps) - 1
        args = [_tensor(a) for a in p.args]
        try:
            ins = []
            for src in step.sources:
                if src[0] == "arg":
                    ins.append(args[src[1]])
                elif src[0] == "const":
                    ins.append(_tensor(src[1]))
                else:
                    ins.append(self.values[src[1]][src[2]])
            self.values.append(_outs(call(step.op, ins, step.attrs)))
        except Exception as e:  # noqa: BLE001 - the program ends here; every mode must raise alike
            self.error = e
        return j


# --- checking -------------------------------------------------------------------------------------


class Disagreement(AssertionError):
    pass


def _fail(program, what):
    raise Disagreement(f"{what}\n{program.describe()}")


def _numpy_frames(e) -> bool:
    """Whether ``e`` is NumPy's own error reaching the user: an exception of a class tfunc
    does not define, raised (itself or the exception it was re-raised from) inside NumPy."""
    if type(e).__module__.startswith("tfunc"):
        return False
    seen = set()
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        tb = e.__traceback__
        last = None
        while tb is not None:
            last = tb.tb_frame.f_code.co_filename
            tb = tb.tb_next
        if last is not None and ("/numpy/" in last or "\\numpy\\" in last):
            return True
        e = e.__cause__ or e.__context__
    return False


def check_error_class(program, e, mode):
    """The class of an error any mode raised must be TensorFlow's: a ``tfunc.errors`` class
    (or TypeError/ValueError raised by tfunc itself), never one NumPy raised."""
    if isinstance(e, Disagreement):
        raise e
    if not isinstance(e, (OpError, TypeError, ValueError)) or _numpy_frames(e):
        trace = "".join(traceback.format_exception(type(e), e, e.__traceback__)[-6:])
        _fail(program, f"{mode}: raised {type(e).__module__}.{type(e).__name__}: {e}\n{trace}")


def _same_error(a, b) -> bool:
    if type(a) is type(b):
        return True
    # A trace with unknown dimensions finds a shape mismatch only when it runs: TensorFlow then
    # raises InvalidArgumentError where a static-shape trace raised its subclass.
    return isinstance(a, InvalidArgumentError) and isinstance(b, InvalidArgumentError)


def _host(v):
    a = v._value
    return a.get() if type(a).__module__.startswith("cupy") else np.asarray(a)


def _close(got, want, dtype, scale=10.0) -> Optional[str]:
    """None when ``got`` matches ``want`` (arrays of ``dtype``), else what differs."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return f"shape {got.shape} != {want.shape}"
    if dtype.is_string or dtype.is_bool or dtype.is_integer:
        if got.tolist() != want.tolist():
            return f"values differ:\n{got!r}\n{want!r}"
        return None
    rtol, atol = tolerance(dtype._np)
    g, w = got.astype(np.complex128 if dtype.is_complex else np.float64), want
    w = w.astype(g.dtype)
    gn, wn = np.isnan(g), np.isnan(w)
    if not np.array_equal(gn, wn):
        return f"NaN positions differ:\n{got!r}\n{want!r}"
    gi, wi = np.isinf(g), np.isinf(w)
    if not np.array_equal(g[gi], w[gi]) or not np.array_equal(gi, wi):
        return f"infinities differ:\n{got!r}\n{want!r}"
    ok = ~(gn | gi)
    if not np.allclose(g[ok], w[ok], rtol=rtol * scale, atol=atol * scale):
        err = np.max(np.abs(g[ok] - w[ok])) if ok.any() else 0
        return f"values differ (max abs error {err:.3g}):\n{got!r}\n{want!r}"
    return None


def _upcast(a):
    a = np.asarray(a)
    if a.dtype.kind == "f" or a.dtype.name == "bfloat16":
        return a.astype(np.float64)
    if a.dtype.kind == "c":
        return a.astype(np.complex128)
    return a


def check_reference(program, values, args):
    """Each eager step against its NumPy reference on the same inputs."""
    for j, step in enumerate(program.steps):
        if j >= len(values):
            continue
        arrays = []
        for src in step.sources:
            if src[0] == "arg":
                arrays.append(_host(args[src[1]]))
            elif src[0] == "const":
                arrays.append(np.asarray(src[1]))
            else:
                arrays.append(_host(values[src[1]][src[2]]))
        specs = step.op.infer([tf.TensorSpec(a.shape, D.as_dtype(a.dtype)).spec for a in arrays], step.attrs)
        outs = values[j]
        if len(outs) != len(specs):
            _fail(program, f"s{j}: {len(outs)} outputs, inference says {len(specs)}")
        for k, (o, spec) in enumerate(zip(outs, specs)):
            shape = tuple(o._value.shape)
            if o.dtype is not spec.dtype:
                _fail(program, f"s{j}[{k}]: dtype {o.dtype.name}, inference says {spec.dtype.name}")
            if spec.shape is not None and (
                len(spec.shape) != len(shape) or any(d is not None and d != e for d, e in zip(spec.shape, shape))
            ):
                _fail(program, f"s{j}[{k}]: shape {shape}, inference says {spec.shape}")
        if step.mutated or step.op.random:
            continue
        wide = _reference(step, [_upcast(a) for a in arrays])
        native = None
        for k, o in enumerate(outs):
            got = _host(o)
            dt = o.dtype
            problem = _ref_problem(got, wide, k, dt)
            if problem is not None:
                if native is None:
                    native = _reference(step, arrays)
                if _ref_problem(got, native, k, dt) is not None:
                    _fail(program, f"s{j}[{k}] ({step.op.name}) differs from the float64 reference: {problem}")
        STATS["reference checks"] += 1


def _reference(step, arrays):
    try:
        return _outs(step.op.ref(*arrays, **step.attrs))
    except Exception as e:  # noqa: BLE001 - NumPy refuses what tfunc accepted: a disagreement
        return e


def _ref_problem(got, ref, k, dt) -> Optional[str]:
    if isinstance(ref, BaseException):
        return f"the reference raised {type(ref).__name__}: {ref}"
    want = np.asarray(ref[k])
    if dt.is_string:
        want = want.astype(object)
        got = got.astype(object)
    else:
        with np.errstate(all="ignore"):
            want = want.astype(dt._np)
    return _close(got, want, dt)


MODES = ("traced", "traced_unoptimized", "traced_unknown_shapes")


def _traced(program, mode):
    body = as_function_body(program)
    if mode == "traced_unknown_shapes":
        sig = [tf.TensorSpec([None] * np.ndim(a), D.as_dtype(np.asarray(a).dtype)) for a in program.args]
        return tf.function(body, input_signature=sig, autograph=False)
    return tf.function(body, autograph=False)


def _call_mode(program, mode, fn, args):
    if mode == "traced_unoptimized":
        with optimizer_options(disable_meta_optimizer=True):
            return fn(*args)
    return fn(*args)


def check_modes(program, values, error, args):
    """Traced modes against the eager run: same outputs, or the same error class."""
    expected = None if error is not None else [values[j][k] for j, k in program.returns]
    for mode in MODES:
        fn = _traced(program, mode)
        results = []
        for _attempt in range(2):  # the first call traces; the second runs the cached plan
            try:
                results.append(_outs(tuple(_call_mode(program, mode, fn, args))))
            except Exception as e:  # noqa: BLE001 - compared with the eager error below
                check_error_class(program, e, mode)
                if error is None:
                    _fail(program, f"{mode}: raised {type(e).__name__}: {e}\n(eagerly it ran)")
                if not _same_error(error, e):
                    _fail(
                        program,
                        f"{mode}: raised {type(e).__name__}: {e}\neagerly: {type(error).__name__}: {error}",
                    )
                STATS["errors matched"] += 1
                break
        else:
            if error is not None:
                _fail(program, f"{mode}: ran, but eagerly it raised {type(error).__name__}: {error}")
            first, cached = results
            for n, (a, b) in enumerate(zip(first, cached)):
                if program.steps[program.returns[n][0]].op.random:
                    continue  # a random op draws new numbers on every call
                if a.dtype is not b.dtype or not _identical(_host(a), _host(b)):
                    _fail(program, f"{mode}: output {n} of the cached call differs from the first call")
            for n, (g, e) in enumerate(zip(first, expected)):
                step = program.steps[program.returns[n][0]]
                if g.dtype is not e.dtype:
                    _fail(program, f"{mode}: output {n} has dtype {g.dtype.name}, eagerly {e.dtype.name}")
                if step.op.random:
                    if tuple(_host(g).shape) != tuple(_host(e).shape):
                        _fail(program, f"{mode}: output {n} has shape {_host(g).shape}, eagerly {_host(e).shape}")
                    continue
                problem = _close(_host(g), _host(e), g.dtype)
                if problem is not None:
                    _fail(program, f"{mode}: output {n} differs from the eager result: {problem}")
            STATS[f"{mode} runs"] += 1


def _identical(a, b) -> bool:
    if a.shape != b.shape:
        return False
    if a.dtype.kind in "fc":
        return bool(np.array_equal(a, b, equal_nan=True))
    return a.tolist() == b.tolist()


# --- gradients --------------------------------------------------------------------------------------


def _differentiable(program) -> bool:
    for s in program.steps:
        rule = gradient_rule(s.op)
        if rule is None or s.op.name in NOT_DIFFERENTIATED or s.op.random or s.mutated:
            return False
        if s.op.name in READS_ONE_TRIANGLE:
            STATS["gradients skipped (an op reading one triangle)"] += 1
            return False
    return True


def _to_f64(a):
    a = np.asarray(a)
    if a.dtype.kind == "f" or a.dtype.name == "bfloat16":
        return a.astype(np.float64)
    return a


def _attrs64(attrs):
    out = {}
    for k, v in attrs.items():
        out[k] = D.float64 if v in (D.float32, D.float16, D.bfloat16) else v
    return out


def float64_version(program) -> Program:
    steps = [
        Step(
            s.op,
            _attrs64(s.attrs),
            [("const", _to_f64(src[1])) if src[0] == "const" else src for src in s.sources],
            s.note,
        )
        for s in program.steps
    ]
    return Program([_to_f64(a) for a in program.args], steps, list(program.returns), program.dys_seed)


MAX_FD_ELEMENTS = 48


def _repeated_singular_values(program, values) -> bool:
    """Whether an ``svd`` computing singular vectors gets a matrix with (nearly) repeated
    singular values: its vectors are not unique there, so they have no derivative."""
    for j, step in enumerate(program.steps):
        if step.op.name == "svd" and step.attrs.get("compute_uv") and j < len(values):
            s = np.sort(_host(values[j][0]).astype(np.float64), axis=-1)
            gaps = np.diff(s, axis=-1)
            if gaps.size and np.any(gaps <= 1e-3 * max(1.0, float(np.max(np.abs(s))))):
                return True
    return False


# Gradient rules that invert a matrix (as TensorFlow's do: the determinant's inverts the
# matrix, QR's solves with R): on a singular matrix they raise InvalidArgumentError, as
# TensorFlow's do (though the derivative of a determinant exists there).
INVERTING_GRADIENTS = {
    "matrix_determinant", "log_matrix_determinant", "matrix_inverse", "matrix_solve", "matrix_triangular_solve", "qr",
}  # fmt: skip


def _gradient_or_error(fn):
    try:
        return fn(), None
    except Exception as e:  # noqa: BLE001 - compared across the three ways below
        return None, e


def check_gradients(program, values):
    """Gradients of ``sum(output * dy)`` with respect to the float arguments, three ways,
    against central finite differences (float64)."""
    if not _differentiable(program):
        return
    if _repeated_singular_values(program, values):
        STATS["gradients skipped (svd of repeated singular values: no derivative)"] += 1
        return
    p64 = float64_version(program)
    wrt = [k for k, a in enumerate(p64.args) if a.dtype == np.float64 and a.size]
    if not wrt or sum(p64.args[k].size for k in wrt) > MAX_FD_ELEMENTS:
        return
    args = [_tensor(a) for a in p64.args]
    try:
        outs = as_function_body(p64)(*args)
    except Exception:  # noqa: BLE001 - the float64 version is not a valid program (an op without float64)
        STATS["gradients skipped (no float64 version)"] += 1
        return
    rng = np.random.default_rng(p64.dys_seed)
    dys = [np.asarray(rng.uniform(0.5, 1.5, size=_host(o).shape)) if o.dtype is D.float64 else None for o in outs]
    if all(d is None for d in dys):
        return
    body = as_function_body(p64)

    def loss_of(xs):
        total = None
        for o, dy in zip(body(*xs), dys):
            if dy is None:
                continue
            term = tf.reduce_sum(o * _tensor(dy))
            total = term if total is None else total + term
        return total

    base = float(loss_of(args))
    if not np.isfinite(base) or abs(base) > 1e8:
        STATS["gradients skipped (loss not finite or huge)"] += 1
        return

    def eager_way():
        with tf.GradientTape() as tape:
            for k in wrt:
                tape.watch(args[k])
            loss = loss_of(args)
        return tape.gradient(loss, [args[k] for k in wrt])

    @tf.function(autograph=False)
    def inside(*xs):
        with tf.GradientTape() as t:
            for k in wrt:
                t.watch(xs[k])
            lo = loss_of(list(xs))
        return t.gradient(lo, [xs[k] for k in wrt])

    def around_way():
        f = tf.function(lambda *xs: loss_of(list(xs)), autograph=False)
        with tf.GradientTape() as outer:
            for k in wrt:
                outer.watch(args[k])
            lf = f(*args)
        return outer.gradient(lf, [args[k] for k in wrt])

    results = [_gradient_or_error(w) for w in (eager_way, lambda: inside(*args), around_way)]
    errors = [e for _, e in results if e is not None]
    if errors:
        inverting = any(s.op.name in INVERTING_GRADIENTS for s in program.steps)
        if (
            len(errors) == 3
            and inverting
            and all(isinstance(e, InvalidArgumentError) and "not invertible" in str(e) for e in errors)
        ):
            STATS["gradients raising InvalidArgumentError (singular matrix, as TensorFlow)"] += 1
            return
        if results[0][1] is None and all(isinstance(e, NotImplementedError) for e in errors):
            # a shape known eagerly is unknown while tracing (a segment op's output): the
            # gradients of svd and qr need it, in TensorFlow too
            STATS["gradients not implemented for shapes unknown while tracing (as TensorFlow)"] += 1
            return
        e = errors[0]
        _fail(program, f"computing the gradient raised {type(e).__name__}: {e}")
    (eager, _), (traced, _), (around, _) = results

    scale = max(1.0, abs(base))
    for n, k in enumerate(wrt):
        numeric, smooth = _finite_differences(loss_of, args, k, base)
        for name, got in (("eager", eager[n]), ("traced", traced[n]), ("around function", around[n])):
            if got is None:
                if np.any(smooth & (np.abs(numeric) > 1e-6 * scale)):
                    _fail(program, f"gradient ({name}) of a{k} is None; finite differences:\n{numeric!r}")
                continue
            g = _host(got)
            if g.shape != numeric.shape:
                _fail(program, f"gradient ({name}) of a{k} has shape {g.shape}, the argument {numeric.shape}")
            bad = smooth & ~np.isclose(g, numeric, rtol=1e-4, atol=1e-6 * scale)
            if bad.any():
                _fail(
                    program,
                    f"gradient ({name}) of a{k} differs from finite differences at {np.argwhere(bad)[:4].tolist()}:"
                    f"\n{g!r}\n{numeric!r}",
                )
        STATS["gradient elements compared"] += int(smooth.sum()) * 3
        STATS["gradient elements at kinks (skipped)"] += int((~smooth).sum())
    STATS["programs with gradients checked"] += 1


def _finite_differences(loss_of, args, k, base, eps=1e-6):
    """(central differences, where the function is smooth enough for them to be the
    derivative).  An element is left out where the forward and backward differences disagree
    (a kink) or where central differences at ``eps`` and ``100 * eps`` disagree (a jump, as the
    singular vectors of a matrix with repeated singular values make)."""
    a = _host(args[k])
    central = np.zeros_like(a)
    smooth = np.ones(a.shape, bool)
    scale = max(1.0, abs(base))

    def at(idx, delta):
        b = a.copy()
        b[idx] += delta
        xs = list(args)
        xs[k] = _tensor(b)
        try:
            return float(loss_of(xs))
        except OpError:  # the step changes shapes (it splits a tie ``unique`` merged): a jump
            return np.nan

    for idx in np.ndindex(*a.shape):
        up, down = at(idx, eps), at(idx, -eps)
        c = central[idx] = (up - down) / (2 * eps)
        fwd, bwd = (up - base) / eps, (base - down) / eps
        wide = (at(idx, 100 * eps) - at(idx, -100 * eps)) / (200 * eps)
        tol = 1e-3 * max(1.0, abs(c)) + 1e-9 * scale / eps
        if not (np.isfinite(up) and np.isfinite(down)) or abs(fwd - bwd) > tol or abs(wide - c) > 10 * tol:
            smooth[idx] = False
    return central, smooth


# --- the whole check ----------------------------------------------------------------------------------


def check_program(program: Program, values, error):
    """Every check on a program drawn by :class:`Builder` (``values``/``error``: its eager run)."""
    args = [_tensor(a) for a in program.args]
    if error is not None:
        check_error_class(program, error, "eager")
        STATS["programs that raise"] += 1
        failing = program.steps[-1]
        STATS[f"raise {type(error).__name__} {failing.op.name}{' (invalid input)' if failing.mutated else ''}"] += 1
    check_reference(program, values, args)
    check_modes(program, values, error, args)
    if error is None:
        check_gradients(program, values)
    STATS["programs"] += 1
    STATS["steps"] += len(program.steps)
    for s in program.steps:
        STATS["op " + s.op.name] += 1
