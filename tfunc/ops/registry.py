"""The op registry: one :class:`OpDef` per op.

An OpDef says what an op *is*; the layers above say what to *do* with it, each
in a rule table of its own that ops register into from their own modules:

* dispatch (eager and tracing) calls ``infer`` (shapes and dtypes from input
  specs and attrs, never from data) and, eagerly, ``kernel(xp)``;
* optimizer passes read the flags (``pure``, ``stateful``, ``random``,
  ``kind``, ``shape_only_inputs``, ``static_value``, ``fusable_reduction``,
  ``epilogue_producer``) and fold constants with ``impl``;
* lowering binds ``kernel(xp)`` (or ``ufunc``); ops that need more than one
  call register a rule in ``tfunc.plan.rules``;
* backends read ``cuda_expr``/``cuda_reduce`` (GPU fusion), ``capturable``,
  ``view`` and ``host_sync`` (CUDA-graph capture), and add device-specific
  kernels to ``kernels``;
* autodiff keeps the gradient rules (``tfunc.autodiff.registry``);
* the test generator checks ``impl`` against ``ref`` on inputs from ``samples``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional, Union

__all__ = ["OpDef", "register", "get", "all_ops", "REGISTRY", "KINDS"]

REGISTRY: dict[str, "OpDef"] = {}

KINDS = frozenset(
    {
        "elementwise",  # output[i] depends on input[i] only (after broadcasting)
        "reduction",  # reduces over attr 'axis'
        "shape",  # moves or reshapes data, no arithmetic
        "matmul",
        "conv",
        "nn",
        "source",  # no data inputs (fill, range, random, const)
        "state",  # variables
        "control",  # cond, while_loop (hold sub-graphs)
        "io",  # print, py_function, dataset iteration
        "graph",  # placeholders and constants of the graph IR
        "fused",  # a group made by the optimizer
        "other",
    }
)

# Kinds whose GPU kernels are plain elementwise/reduction launches (CUDA-graph capturable).
_CAPTURABLE_KINDS = frozenset({"elementwise", "reduction", "nn"})


@dataclass(eq=False)
class OpDef:
    name: str
    infer: Callable  # (in_specs, attrs) -> tuple[Spec, ...]
    impl: Optional[Callable] = None  # (xp, *arrays, **attrs) -> array | tuple: one body, NumPy and CuPy
    kernels: dict = field(default_factory=dict)  # array-module name -> kernel replacing impl there
    kind: str = "other"
    num_outputs: int = 1  # -1: decided by infer (split, unstack); the kernel returns a tuple
    # --- what passes ask ------------------------------------------------------------------
    pure: bool = True  # no side effects, same output for same input
    stateful: bool = False  # ordered by automatic control dependencies
    random: bool = False  # draws random numbers (never folded or merged)
    shape_only_inputs: tuple = ()  # inputs read for their shape only (zeros_like's x)
    static_value: Optional[Callable] = None  # (input spec, attrs) -> value known from static shapes, or None
    epilogue_producer: bool = False  # a product (matmul, conv2d) elementwise epilogues fuse after
    fusable_reduction: bool = False  # a reduction that may close a fused elementwise group
    # --- what lowering and backends ask -----------------------------------------------------
    ufunc: Optional[str] = None  # name of the xp ufunc computing it (takes out=)
    accepts_out: bool = False  # impl takes out= (fused CPU chains write into buffers)
    # (NumPy dtype) -> the impl's NumPy computation as ufunc calls, or None: a tuple of
    # (ufunc name, operands, into) with operands "x" (the input), "o" (the output buffer), "t"
    # (a scratch buffer) or 0-d constant arrays, into "o" or "t".  Fused CPU kernels write
    # these calls out inline (no impl frame, no constant lookups per call).
    host_steps: Optional[Callable] = None
    cuda_expr: Optional[str] = None  # CUDA C for elementwise fusion: "out0 = tanh(in0)"
    cuda_reduce: Optional[tuple] = None  # (reduce expr, post-map expr, identity name) for GPU fusion
    host_only: bool = False  # always runs on the host (strings, Python callbacks)
    host_sync: Union[bool, str] = False  # the kernel reads values back to the host (True, or "integer":
    # only for integer inputs): never inside a CUDA-graph capture
    view: bool = False  # the output is a view of an input: no kernel launch
    capturable: Optional[bool] = None  # GPU kernels recordable in a CUDA graph (default: by kind)
    # --- tests ----------------------------------------------------------------------------------
    writes: Optional[str] = None  # "var": assigns its ``var`` attr; "any": runs user Python (may write any)
    tf_name: Optional[str] = None  # TensorFlow's op name where a message quotes it (AdjustContrastv2)
    ref: Optional[Callable] = None  # NumPy reference
    samples: Optional[Callable] = None  # (rng) -> list of Sample

    def __post_init__(self):
        if self.cuda_reduce is not None:
            self.fusable_reduction = True
        if self.writes not in (None, "var", "any"):
            raise ValueError(f"op {self.name!r}: writes must be None, 'var' or 'any', got {self.writes!r}")
        if self.kind not in KINDS:
            raise ValueError(f"op {self.name!r}: unknown kind {self.kind!r}")
        if self.stateful or self.random:
            self.pure = False
        if hasattr(self.infer, "op_name"):  # shared rule factories name their errors
            self.infer.op_name = self.name
        if self.ufunc is not None:
            self.accepts_out = True
            if self.impl is None:
                self.impl = _ufunc_impl(self.ufunc)
        if self.capturable is None:
            self.capturable = (self.kind in _CAPTURABLE_KINDS and self.pure and not self.host_only) or self.view
        if self.impl is None and self.kind not in ("control", "graph", "fused"):
            raise ValueError(f"op {self.name!r} has no impl")

    @property
    def is_elementwise(self) -> bool:
        return self.kind == "elementwise"

    def kernel(self, xp) -> Callable:
        """The kernel for array module ``xp``: a device-specific one, else ``impl``."""
        kernel = self.kernels.get(xp.__name__, self.impl) if self.kernels else self.impl
        if kernel is None:
            raise TypeError(f"op {self.name!r} has no kernel: it is lowered or interpreted, never called")
        return kernel

    def __repr__(self) -> str:
        return f"<OpDef {self.name} kind={self.kind}{' stateful' if self.stateful else ''}>"


def _ufunc_impl(name: str):
    def impl(xp, *args, out=None):
        return getattr(xp, name)(*args, out=out)

    impl.__name__ = f"impl_{name}"
    return impl


def register(op: OpDef) -> OpDef:
    if op.name in REGISTRY:
        raise ValueError(f"op {op.name!r} is registered twice")
    REGISTRY[op.name] = op
    return op


def get(name: str) -> OpDef:
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"no op named {name!r} in the registry") from None


def all_ops() -> list[OpDef]:
    return list(REGISTRY.values())
