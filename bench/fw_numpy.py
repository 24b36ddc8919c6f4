"""Bare NumPy: the reference rows of W5/W6 (the 20-op chain as plain NumPy expressions), W7 (the
loop written in NumPy), W13 (the 50-op small graph) and W4 (the convolution's own GEMM, its
patches laid out beforehand: the rate the machine's BLAS reaches on this product, a yardstick
no convolution that has to gather its patches can beat)."""

from __future__ import annotations

import functools

import numpy as np

from . import core
from .timing import Case, NotApplicable


class Framework:
    name = "numpy"
    WORKLOADS = core.BARE_NUMPY_WORKLOADS

    def __init__(self, backend=None):
        pass

    def info(self) -> dict:
        return {"version": np.__version__, "device": "CPU"}

    def setup(self, wid: str, inp: dict) -> dict:
        if wid not in self.WORKLOADS:
            return {"eager": NotApplicable(f"bare NumPy is timed for {', '.join(self.WORKLOADS)} only")}
        if wid == "W7":

            def loop(x):
                while x.sum() > 1:
                    x = np.tanh(x)
                return x

            return {
                "eager": Case(
                    call=functools.partial(loop, inp["x"].copy()),
                    to_numpy=lambda out: [np.array(out)],
                    note="the same while loop over NumPy arrays",
                )
            }
        if wid == "W4":
            x, kernel, bias = inp["x"], inp["kernel"], inp["bias"]
            kh, kw, c, oc = kernel.shape
            patches = core.im2col_np(x, kh, kw)
            weights = np.ascontiguousarray(kernel.reshape(kh * kw * c, oc))
            out_shape = (x.shape[0], x.shape[1] - kh + 1, x.shape[2] - kw + 1, oc)
            return {
                "eager": Case(
                    call=functools.partial(np.matmul, patches, weights),
                    to_numpy=lambda out: [out.reshape(out_shape) + bias],  # untimed: the check's conv + bias
                    note=f"np.matmul of the im2col patches {list(patches.shape)} (laid out beforehand) and the "
                    f"kernel {list(weights.shape)}: the machine's BLAS rate on the convolution's own product",
                )
            }
        if wid == "W13":
            graph = core.make_small_graph(core.NumpyOps)
            return {
                "eager": Case(
                    call=functools.partial(graph, inp["x"].copy(), inp["y"].copy()),
                    to_numpy=lambda out: [np.array(a) for a in out],
                    note="plain NumPy expressions",
                )
            }
        chain = core.make_chain(core.NumpyOps)
        return {
            "eager": Case(
                call=functools.partial(chain, inp["x"].copy()),
                to_numpy=lambda out: [np.array(out)],
                note="plain NumPy expressions, one new array per op",
            )
        }
