"""The host backend: NumPy arrays, OpenBLAS GEMMs, fused groups as generated ufunc chains
writing into reused buffers (``fusion``), and one CPU thread budget for both (``threads``)."""

from __future__ import annotations

import warnings

from . import conv, matmul, pooling, threads
from .fusion import build_cpu_kernel
from .kernels import specialized

# IEEE results such as log(0) = -inf, 1/0 = inf or sqrt(-1) = NaN are values in TensorFlow, not
# events: NumPy's floating-point warnings raised inside tfunc's own kernels are not shown. The
# filter names only tfunc's modules, so the user's own NumPy code warns as before.
warnings.filterwarnings(
    "ignore",
    message=r"(divide by zero|invalid value|overflow|underflow) encountered",
    category=RuntimeWarning,
    module=r"tfunc(\.|$)",
)


class NumpyBackend:
    name = "numpy"
    is_gpu = False

    def __init__(self, device):
        self.device = device
        self.xp = device.xp
        conv.register_kernels()
        matmul.register_kernels()
        pooling.register_kernels()
        threads.apply()  # BLAS's threads and the fused kernels' helper share the cores

    def __repr__(self) -> str:
        return "<tfunc backend numpy>"

    def fused_kernel(self, attrs, name="fused"):
        return build_cpu_kernel(attrs, name)

    def segment_runner(self, run, name):
        return None  # no graph capture on the host

    def specialized_kernel(self, op_name, attrs, in_specs):
        """The NumPy callable a plan may bind for this node directly (``kernels.py``), or None."""
        return specialized(op_name, attrs, in_specs)
