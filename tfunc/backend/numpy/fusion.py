"""CPU kernels for fused elementwise groups: generated NumPy ufunc chains.

For ``y = tanh(x * 2) + b`` the generated kernel reads::

    def fused_3(i0, i1, i2, k0=<empty>, k1=<multiply>, k2=<tanh>, k3=<add>, ...):
        shape = (1000000,)
        if 1000000 >= 131072 and blockable(i0, i1, i2):
            return blocked(i0, i1, i2, shape)
        b0 = k0(shape, float32)
        k1(i0, i1, out=b0)
        k2(b0, out=b0)            # in place: x * 2 is dead once tanh has read it
        k3(b0, i2, out=b0)
        return b0

Each intermediate goes into a buffer that is reused once its value is dead, so
a chain of any length touches one or two arrays.  Large inputs run the same
chain over cache-sized blocks (a block's intermediates stay in L2) on two
threads: NumPy releases the GIL inside ufunc loops (the second thread is the helper of
:mod:`tfunc.backend.numpy.threads`, which keeps it and BLAS's threads within the cores).
"""

from __future__ import annotations

import collections
import functools
import itertools
import math
import threading
import types

import numpy as np

from ...ops.host_constants import BLOCK, FULL_MIN
from ...ops.registry import REGISTRY
from ...optimize.facts import Unkeyable, value_key
from ...plan.scalars import operator_for, scalar_expr
from ...plan.source import compile_source, hold
from . import threads
from .kernels import EXTREMA, specialized

BLOCK_MIN = 1 << 17  # below this, one pass over whole arrays
PARALLEL_MIN = 1 << 18  # below this, a second thread costs more than it saves


class _Partial:
    """``impl(np, *args, out=..., **attrs)`` with the attrs bound."""

    __slots__ = ("impl", "attrs")

    def __init__(self, impl, attrs):
        self.impl, self.attrs = impl, attrs

    def __call__(self, *args, out=None):
        if out is None:
            return self.impl(np, *args, **self.attrs)
        return self.impl(np, *args, out=out, **self.attrs)


def kernel_for(op_name, attrs, arg_specs=None):
    """The callable of one step; ``arg_specs`` (its inputs' specs, where known) lets a
    specialized NumPy callable stand in (``kernels.specialized``)."""
    if arg_specs is not None:
        direct = specialized(op_name, attrs, arg_specs)
        if direct is not None:
            return direct
    op = REGISTRY[op_name]
    if op.ufunc is not None and not attrs:
        return getattr(np, op.ufunc)
    if not attrs:
        return functools.partial(op.kernel(np), np)  # C-level partial: no extra Python frame
    return _Partial(op.kernel(np), attrs)


class _Source:
    """Lines of one generated function plus the objects it binds as default arguments."""

    def __init__(self):
        self.bound: dict = {}
        self._ids: dict = {}
        self.lines: list = []
        self.line_steps: dict = {}  # index in lines -> step

    def step_line(self, text, step):
        self.line_steps[len(self.lines)] = step
        self.lines.append(text)

    def bind(self, obj) -> str:
        key = id(obj)
        name = self._ids.get(key)
        if name is None:
            name = self._ids[key] = f"k{len(self.bound)}"
            self.bound[name] = obj
        return name

    def compile(self, fn_name, params, label):
        sig = ", ".join(list(params) + [f"{k}={k}" for k in self.bound])
        source = f"def {fn_name}({sig}):\n" + "\n".join("    " + line for line in self.lines) + "\n"
        line_steps = {i + 2: step for i, step in self.line_steps.items()}  # +2: def line, 1-based
        code, filename = compile_source(source, label, "fused", line_steps)
        ns = dict(self.bound, __name__=__name__)  # warnings name this module (see backend.numpy)
        exec(code, ns)
        fn = ns[fn_name]
        fn.source = source
        hold(source, fn)
        return fn


def _emit_chain(src, steps, outputs, inputs, new_buffer, out_target=None, in_specs=None, large=True):
    """Lines computing each step into reusable buffers.

    ``new_buffer(dtype) -> (name, allocation expr)``; ``out_target(step)`` names where an
    output step must be written (blocked mode), or None; ``large``: the arrays may have
    ``FULL_MIN`` elements or more (``maximum``/``minimum`` then widen one-element operands).
    Returns step -> expression."""
    last = {}
    for j, (_, args, _, _) in enumerate(steps):
        for a in args:
            if a[0] == "s":
                last[a[1]] = j
    for j in outputs:
        last[j] = len(steps)
    where, free, owned = {}, {}, set()
    for j, (op_name, args, attrs, spec) in enumerate(steps):
        names = [inputs[a[1]] if a[0] == "in" else where[a[1]] for a in args]
        # a value read for the last time frees its buffer (once, even if read twice here):
        # this step may write into it
        for a in dict.fromkeys(args):
            if a[0] == "s" and last.get(a[1]) == j and where[a[1]] in owned:
                free.setdefault(steps[a[1]][3].dtype, []).append(where[a[1]])
        specs = None
        if in_specs is not None:
            specs = [in_specs[a[1]] if a[0] == "in" else steps[a[1]][3] for a in args]
        calls = _host_steps(op_name, attrs, spec, specs)
        if calls is not None:
            target = _step_target(j, spec, out_target, free, owned, new_buffer, src)
            scratch = None
            for ufunc, operands, into in calls:
                if into == "t" and scratch is None:
                    scratch = _step_target(None, spec, None, free, owned, new_buffer, src)
                roles = {"x": names[0], "o": target, "t": scratch}
                args = [roles[a] if isinstance(a, str) else src.bind(a) for a in operands]  # (a constant: an array)
                f = EXTREMA[ufunc] if large and ufunc in EXTREMA else getattr(np, ufunc)
                src.step_line(f"{src.bind(f)}({', '.join(args)}, out={target if into == 'o' else scratch})", j)
            if scratch is not None:
                free.setdefault(spec.dtype, []).append(scratch)
            where[j] = target
            continue
        extremum = EXTREMA.get(op_name) if large and not attrs else None
        k = src.bind(extremum if extremum is not None else kernel_for(op_name, attrs, specs))
        if REGISTRY[op_name].epilogue_producer:  # a leading product: its fresh result is the buffer
            target = f"c{j}"
            src.step_line(f"{target} = {k}({', '.join(names)})", j)
            src.lines.append(f"shape = {target}.shape")
            owned.add(target)
            where[j] = target
            continue
        target = _step_target(j, spec, out_target, free, owned, new_buffer, src)
        src.step_line(f"{k}({', '.join(names)}, out={target})", j)
        where[j] = target
    return where


def _step_target(j, spec, out_target, free, owned, new_buffer, src) -> str:
    """Where step ``j`` writes: the output it must fill (blocked mode), else a dead buffer of
    its dtype, else a new one."""
    target = out_target(j) if out_target is not None else None
    if target is None:
        pool = free.get(spec.dtype)
        if pool:
            target = pool.pop()
        else:
            target, alloc = new_buffer(spec.dtype)
            src.lines.append(f"{target} = {alloc}")
            owned.add(target)
    return target


def _host_steps(op_name, attrs, spec, in_specs):
    """The op's ``host_steps`` for this step (a unary op whose input has its output's dtype),
    or None."""
    steps_of = REGISTRY[op_name].host_steps
    if steps_of is None or attrs or in_specs is None or len(in_specs) != 1 or in_specs[0].dtype != spec.dtype:
        return None
    return steps_of(spec.dtype._np)


_KERNELS: collections.OrderedDict = collections.OrderedDict()  # reuse key -> (kernel, {default: role})
_KERNELS_MAX = 256
_kernels_lock = threading.Lock()


def _reuse_key(attrs, name):
    """What a kernel's source and bound objects depend on besides its static shape and size,
    or None (a group led by a product: its matmul kernel is chosen by shapes; an attr
    compared by identity).  Steps enter by op, operands, attrs and dtype; the shape only by
    class (0-d, unknown, or static with the size thresholds the source tests)."""
    steps = attrs["steps"]
    if REGISTRY[steps[0][0]].epilogue_producer:
        return None
    shape = steps[-1][3].shape
    if shape == ():
        shape_class: tuple = ("0-d",)
    elif shape is None or None in shape:
        shape_class = ("unknown",)
    else:
        n = math.prod(shape)
        shape_class = ("static", n >= BLOCK_MIN, n >= FULL_MIN)
    reduce_ = attrs["reduce"]
    try:
        return (
            name,
            shape_class,
            tuple((op, args, value_key(a) if a else (), spec.dtype, _kernel_of(op)) for op, args, a, spec in steps),
            attrs["outputs"],
            tuple(s.dtype for s in attrs["in_specs"]),
            None if reduce_ is None else (reduce_[0], value_key(reduce_[1]), _kernel_of(reduce_[0])),
        )
    except Unkeyable:
        return None


def _kernel_of(op_name) -> tuple:
    """What a step's bound callable comes from: a kernel registered (or patched) later makes
    another key, not a kernel that still calls the old one."""
    op = REGISTRY[op_name]
    return (op.ufunc, op.kernels.get("numpy"), op.impl, op.host_steps)


def build_cpu_kernel(attrs, name="fused"):
    """The kernel of one fused group, compiled once when the plan is lowered.  A group that
    differs from an earlier one only in its static shape (a retrace on a new input shape)
    gets the earlier kernel's code with the new shape and size as its bound defaults."""
    key = _reuse_key(attrs, name)
    if key is not None:
        with _kernels_lock:
            hit = _KERNELS.get(key)
            if hit is not None:
                _KERNELS.move_to_end(key)
        if hit is not None:
            return _rebound(*hit, attrs["steps"][-1][3].shape)
    kernel, roles = _build_cpu_kernel(attrs, name)
    if key is not None:
        with _kernels_lock:
            _KERNELS[key] = (kernel, roles)
            if len(_KERNELS) > _KERNELS_MAX:
                _KERNELS.popitem(last=False)
    return kernel


def _rebound(kernel, roles: dict, shape):
    """``kernel`` with its bound shape and size replaced by those of ``shape``."""
    if not roles:
        return kernel
    values = {"shape": tuple(shape), "size": math.prod(shape)}
    code, old = kernel.__code__, kernel.__defaults__
    names = code.co_varnames[code.co_argcount - len(old) : code.co_argcount]
    defaults = tuple(values[roles[k]] if k in roles else v for k, v in zip(names, old))
    fn = types.FunctionType(code, kernel.__globals__, kernel.__name__, defaults)
    fn.source = kernel.source
    hold(kernel.source, fn)
    return fn


def _build_cpu_kernel(attrs, name):
    """(kernel, {default name: "shape" or "size"}): the generated kernel and which of its
    bound defaults are the static shape and size."""
    roles: dict = {}
    steps, outputs, reduce_ = attrs["steps"], attrs["outputs"], attrs["reduce"]
    inputs = [f"i{k}" for k in range(len(attrs["in_specs"]))]
    shape = steps[-1][3].shape
    src = _Source()
    if shape == ():
        # 0-d: NumPy scalars, not buffers.  The steps plan/scalars.py writes as Python operators
        # are operators here too (a ufunc call costs about 0.5 us even on scalars, an operator
        # 0.05), on their inputs' scalars (a 0-d array's ``a[()]``, taken once); other steps
        # stay ufunc calls on the inputs as given, so they return what they did before.
        nd = src.bind(np.ndarray)
        scalar_in: dict = {}  # input name -> its scalar's name
        where = {}
        for j, (op_name, args, a, spec) in enumerate(steps):
            names = [inputs[x[1]] if x[0] == "in" else where[x[1]] for x in args]
            arg_specs = [attrs["in_specs"][x[1]] if x[0] == "in" else steps[x[1]][3] for x in args]
            operator = operator_for(op_name, a, arg_specs, (spec,))
            if operator is None:
                expr = f"{src.bind(kernel_for(op_name, a))}({', '.join(names)})"
            else:
                for k, x in enumerate(args):
                    if x[0] == "in":
                        i = names[k]
                        if i not in scalar_in:
                            scalar_in[i] = f"j{i[1:]}"
                            src.lines.append(f"{scalar_in[i]} = {scalar_expr(i, nd)}")
                        names[k] = scalar_in[i]
                expr = f"{operator}{names[0]}" if len(names) == 1 else f"{names[0]} {operator} {names[1]}"
            src.step_line(f"s{j} = {expr}", j)
            where[j] = f"s{j}"
    else:
        static = shape is not None and None not in shape
        led_by_product = REGISTRY[steps[0][0]].epilogue_producer
        if led_by_product:
            pass  # the product's result sets the shape
        elif static:  # bound, not written into the source: other shapes reuse the compiled code
            bound_shape = src.bind(tuple(shape))
            roles[bound_shape] = "shape"
            src.lines.append(f"shape = {bound_shape}")
        else:
            src.lines.append(f"shape = {src.bind(np.broadcast_shapes)}({', '.join(f'{i}.shape' for i in inputs)})")
        if not led_by_product and reduce_ is None and inputs:
            n = math.prod(shape) if static else None
            if n is None or n >= BLOCK_MIN:
                if static:
                    size = src.bind(n)
                    roles[size] = "size"
                else:
                    size = f"{src.bind(math.prod)}(shape)"
                blocked = src.bind(_blocked_kernel(steps, outputs, inputs, name))
                src.lines.append(f"if {size} >= {BLOCK_MIN} and {src.bind(blockable)}(({', '.join(inputs)},), shape):")
                src.lines.append(f"    return {blocked}({', '.join(inputs)}, shape)")
        empty = src.bind(np.empty)
        counter = itertools.count()
        where = _emit_chain(
            src,
            steps,
            outputs,
            inputs,
            lambda dt: (f"b{next(counter)}", f"{empty}(shape, {src.bind(dt._np)})"),
            in_specs=attrs["in_specs"],
            large=not static or math.prod(shape) >= FULL_MIN,
        )
    results = [where[j] for j in outputs]
    if reduce_ is not None:
        op_name, rattrs = reduce_
        src.step_line(f"r = {src.bind(_Partial(REGISTRY[op_name].kernel(np), rattrs))}({results[0]})", len(steps))
        results = ["r"]
    src.lines.append(f"return {results[0]}" if len(results) == 1 else f"return ({', '.join(results)},)")
    return src.compile("fused", inputs, name), roles


def blockable(inputs, shape) -> bool:
    """Flat blocks work when every input has the full shape and is contiguous, or is size 1."""
    for a in inputs:
        if a.size == 1:
            continue
        if a.shape != shape or not a.flags.c_contiguous:
            return False
    return True


def block_bounds(lo, hi):
    """(start, end) of each block of ``[lo, hi)``: ``BLOCK`` elements, the last one taking a
    tail shorter than ``FULL_MIN``.  So every block has at least ``FULL_MIN`` elements (when
    ``hi - lo`` does) and at most ``FULL_MAX``: ``maximum``/``minimum`` widen their one-element
    operands in every block, the tail included (``ops.host_constants``)."""
    s = lo
    while s < hi:
        e = s + BLOCK
        if hi - e < FULL_MIN:
            e = hi
        yield s, e
        s = e


def _blocked_kernel(steps, outputs, inputs, name):
    """``run(*inputs, shape)``: the chain over flat blocks, split across two threads."""
    block = _Source()
    views = [f"v{k}" for k in range(len(inputs))]
    outs = [f"o{k}" for k in range(len(outputs))]
    out_of = {j: o for j, o in zip(outputs, outs)}
    block.lines += [f"{v} = {i} if {i}.ndim == 0 else {i}[lo:hi]" for i, v in zip(inputs, views)]
    empty = block.bind(np.empty)
    counter = itertools.count()
    _emit_chain(
        block,
        steps,
        outputs,
        views,
        lambda dt: (f"t{next(counter)}", f"{empty}(hi - lo, {block.bind(dt._np)})"),
        out_target=lambda j: f"{out_of[j]}[lo:hi]" if j in out_of else None,
    )
    run_block = block.compile("block", ["lo", "hi"] + inputs + outs, name + ":block")

    def run(*args):
        *arrays, shape = args
        # a one-element input stays the same object from call to call where it can (a 0-d constant):
        # maximum/minimum widen it once (ops.host_constants)
        flat = [(a if a.ndim == 0 else a.reshape(())) if a.size == 1 else a.reshape(-1) for a in arrays]
        n = math.prod(shape)
        results = [np.empty(n, steps[j][3].dtype._np) for j in outputs]
        operands = flat + results

        def chunks(lo, hi):
            for s, e in block_bounds(lo, hi):
                run_block(s, e, *operands)

        mid = n
        pool = threads.helper_pool() if n >= PARALLEL_MIN else None
        if pool is not None:
            mid = (n // 2 // BLOCK + 1) * BLOCK
        future = threads.on_helper(pool, chunks, mid, n) if mid < n else None
        chunks(0, mid)
        if future is not None:
            future.result()
        shaped = [r.reshape(shape) for r in results]
        return shaped[0] if len(shaped) == 1 else tuple(shaped)

    return run
