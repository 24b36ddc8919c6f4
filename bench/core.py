"""What the benchmark measures, defined once for every framework.

This module imports NumPy only.  It holds:

* the workload table (``WORKLOADS``): ids, titles, modes, tolerances;
* the inputs of every workload, generated with NumPy from fixed seeds
  (:func:`make_inputs`), so every framework computes on the same numbers;
* the 20-op elementwise chain (:data:`CHAIN`, :func:`make_chain`) and the
  100-addition chain of W10 (:func:`fresh_add_chain`), written once and
  instantiated with each framework's op namespace;
* float64 NumPy references (:func:`reference`) and the correctness metric
  (:func:`check`).
"""

from __future__ import annotations

import itertools
import linecache
from dataclasses import dataclass

import numpy as np

SEED = 20240611

# --- the workload table ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Workload:
    id: str
    title: str
    description: str
    modes: tuple = ("eager", "function")
    tol: float = 1e-4  # max relative error (see check()) accepted against the float64 reference
    check_last: bool = True  # the last timed call's output is checked too (stateless workloads)
    fresh: bool = False  # function mode times first calls of fresh functions (W10)
    gpu_only: bool = False  # run by default only with the CuPy backend (too big for a CPU run)
    unchecked: tuple = ()  # modes whose outputs are not the workload's result (W12's device copy)
    bytes_per_call: int = 0  # bytes a fused pass must move (read inputs, write outputs): bandwidth


WORKLOADS = {
    w.id: w
    for w in [
        Workload("W1", "a + b, [2,2]", "a + b on two ones([2,2])"),
        Workload("W2", "matmul+bias, [3,2]", "matmul(ones([3,2]), ones([2,2])) + ones([2])"),
        Workload("W3", "LSTMCell(10) step", "one LSTM cell step: 10 units, batch 10, Keras gate order i,f,c,o"),
        Workload("W4", "Conv2D 200x200x100", "input [1,200,200,100], 100 filters 3x3, VALID, plus bias", tol=1e-4),
        Workload("W5", "20-op chain, 1e6", "the 20-op elementwise chain on 1,000,000 float32"),
        Workload("W6", "20-op chain, 100", "the 20-op elementwise chain on 100 float32"),
        Workload("W7", "while tanh (21 it.)", "while reduce_sum(x) > 1: x = tanh(x), 5 elements, 21 iterations"),
        Workload(
            "W8",
            "MLP train step",
            "one SGD step of a 784-256-256-10 ReLU MLP, batch 128, "
            "sparse softmax cross-entropy (mean), lr 0.1, GradientTape",
            tol=1e-3,
            check_last=False,
        ),
        Workload("W9", "x + 1, scalar", "call overhead of x + 1 on a float32 scalar"),
        Workload(
            "W10",
            "first call, 100 adds",
            "first call (trace + optimize + compile + run) of a fresh "
            "function chaining 100 additions; eager = the chain run eagerly",
            fresh=True,
        ),
        Workload(
            "W11",
            "new shape every call",
            "per-call cost when every call brings a new shape "
            "(the 20-op chain on lengths 1, 2, 3, ...: a retrace per call), with and without "
            "reduce_retracing=True",
            modes=("eager", "function", "function_rr"),
            check_last=False,
        ),
        Workload(
            "W12",
            "20-op chain, 2^26",
            "the 20-op elementwise chain on 2**26 float32 (a GPU workload: "
            "bandwidth against the device's own copy of the same array)",
            modes=("eager", "function", "copy"),
            gpu_only=True,
            unchecked=("copy",),
            bytes_per_call=2 * 4 * 2**26,
        ),
        Workload(
            "W13",
            "50-op graph, [64]",
            "a 50-op graph of elementwise ops and reductions on [64] "
            "float32 tensors: per-call overhead of a small graph",
        ),
        Workload(
            "W14",
            "digits CNN epoch",
            "one training epoch of Conv2D(8, 3x3) + ReLU -> MaxPool 2x2 -> Dense(10) on scikit-learn's digits "
            "(1,344 training images of 8x8, batch 32, Adam lr 0.03, a custom loop with a function step), then the "
            "test accuracy on the other 453 images",
            tol=1e-2,
            check_last=False,
        ),
    ]
}

WORKLOAD_IDS = list(WORKLOADS)

PEERS = ("tensorflow", "jax", "torch")
FRAMEWORK_ORDER = ("tfunc", "numpy") + PEERS  # "numpy": the bare-NumPy reference rows
BARE_NUMPY_WORKLOADS = ("W4", "W5", "W6", "W7", "W13")
FRAMEWORK_LABELS = {"tfunc": "tfunc", "numpy": "bare NumPy", "tensorflow": "tensorflow", "jax": "jax", "torch": "torch"}

MODE_LABELS = {
    "eager": "eager",
    "function": "function",
    "function_rr": "function reduce_retracing=True",
    "copy": "device copy",
}

# Rows of the final table: (label, workload, eager mode, function mode).
TABLE_ROWS = [(w.id, w.id, "eager", "function") for w in WORKLOADS.values()]
TABLE_ROWS.insert(WORKLOAD_IDS.index("W11") + 1, ("W11 rr", "W11", "eager", "function_rr"))


def parse_workloads(text: str | None, backend: str | None = None) -> list:
    """``"W1,w5"`` -> ``["W1", "W5"]`` in table order; ``None``/``"all"`` -> every workload
    (GPU-only ones with the CuPy backend only)."""
    if text is None or text.strip().lower() in ("", "all"):
        return [w for w in WORKLOAD_IDS if backend == "cupy" or not WORKLOADS[w].gpu_only]
    wanted = []
    for item in text.split(","):
        item = item.strip().upper()
        if not item:
            continue
        if item not in WORKLOADS:
            raise ValueError(f"unknown workload {item!r}; known: {', '.join(WORKLOAD_IDS)}")
        wanted.append(item)
    return [w for w in WORKLOAD_IDS if w in wanted]


# --- sizes -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sizes:
    conv: tuple = (1, 200, 200, 100)  # NHWC input of W4
    conv_filters: int = 100
    chain_large: int = 1_000_000
    chain_small: int = 100
    chain_huge: int = 2**26
    small_graph: int = 64
    w11_len: int = 2001  # W11: check call on all of it, then lengths 1, 2, ... (max calls)


FULL = Sizes()
# Used by the pytest-benchmark tests: smaller where the full size makes a test slow.
SMALL = Sizes(conv=(1, 32, 32, 16), conv_filters=16, w11_len=301, chain_huge=2**16)


# --- inputs ------------------------------------------------------------------------------------------

W7_X0 = np.array([0.125, 0.25, 0.375, 0.5, 0.625], np.float32)  # 21 iterations of tanh until sum <= 1
W7_ITERATIONS = 21
MLP_SIZES = (784, 256, 256, 10)
MLP_BATCH = 128
LSTM_UNITS = 10
LSTM_BATCH = 10


def _rng(wid: str) -> np.random.Generator:
    return np.random.default_rng([SEED, int(wid[1:])])


def _glorot(rng, fan_in, fan_out, shape):
    limit = np.sqrt(6.0 / (fan_in + fan_out))
    return rng.uniform(-limit, limit, size=shape).astype(np.float32)


def make_inputs(wid: str, sizes: Sizes = FULL) -> dict:
    """The inputs of workload ``wid``: a dict of float32 (or int32) NumPy arrays, same every time."""
    rng = _rng(wid)
    f32 = np.float32
    if wid == "W1":
        return {"a": np.ones((2, 2), f32), "b": np.ones((2, 2), f32)}
    if wid == "W2":
        return {"a": np.ones((3, 2), f32), "b": np.ones((2, 2), f32), "c": np.ones((2,), f32)}
    if wid == "W3":
        u, n = LSTM_UNITS, LSTM_BATCH
        return {
            "x": rng.standard_normal((n, u)).astype(f32),
            "h": rng.standard_normal((n, u)).astype(f32) * f32(0.5),
            "c": rng.standard_normal((n, u)).astype(f32) * f32(0.5),
            "kernel": _glorot(rng, u, 4 * u, (u, 4 * u)),
            "recurrent_kernel": _glorot(rng, u, 4 * u, (u, 4 * u)),
            "bias": rng.uniform(-0.1, 0.1, size=(4 * u,)).astype(f32),
        }
    if wid == "W4":
        n, h, w, c = sizes.conv
        k = sizes.conv_filters
        return {
            "x": rng.standard_normal((n, h, w, c)).astype(f32),
            "kernel": _glorot(rng, 9 * c, 9 * k, (3, 3, c, k)),
            "bias": rng.uniform(-0.1, 0.1, size=(k,)).astype(f32),
        }
    if wid in ("W5", "W6", "W12"):
        size = {"W5": sizes.chain_large, "W6": sizes.chain_small, "W12": sizes.chain_huge}[wid]
        return {"x": rng.uniform(-1.0, 1.0, size=(size,)).astype(f32)}
    if wid == "W13":
        return {
            "x": rng.uniform(-1.0, 1.0, size=(sizes.small_graph,)).astype(f32),
            "y": rng.uniform(0.5, 1.5, size=(sizes.small_graph,)).astype(f32),
        }
    if wid == "W7":
        return {"x": W7_X0.copy()}
    if wid == "W8":
        out = {
            "x": rng.uniform(0.0, 1.0, size=(MLP_BATCH, MLP_SIZES[0])).astype(f32),
            "y": rng.integers(0, MLP_SIZES[-1], size=(MLP_BATCH,)).astype(np.int32),
        }
        for i, (fi, fo) in enumerate(zip(MLP_SIZES[:-1], MLP_SIZES[1:]), start=1):
            out[f"w{i}"] = _glorot(rng, fi, fo, (fi, fo))
            out[f"b{i}"] = np.zeros((fo,), f32)
        return out
    if wid == "W9":
        return {"x": np.array(1.5, f32)}
    if wid == "W10":
        return {"x": rng.uniform(-1.0, 1.0, size=(4,)).astype(f32)}
    if wid == "W11":
        return {"x": rng.uniform(-2.0, 2.0, size=(sizes.w11_len,)).astype(f32)}
    if wid == "W14":
        return digits_inputs()
    raise ValueError(f"unknown workload {wid!r}")


MLP_PARAM_NAMES = ("w1", "b1", "w2", "b2", "w3", "b3")

# --- W14: a small CNN on scikit-learn's digits ------------------------------------------------------

CNN_PARAM_NAMES = ("kernel", "conv_bias", "dense", "dense_bias")
CNN_FILTERS = 8
CNN_BATCH = 32
CNN_TRAIN = 1344  # 42 full batches; the other 453 images are the test set
CNN_LR = 0.03  # Adam, Keras' formula: beta_1 0.9, beta_2 0.999, epsilon 1e-7
ADAM = (0.9, 0.999, 1e-7)


def digits_inputs() -> dict:
    """scikit-learn's digits (shipped inside the package: no download), shuffled with the
    benchmark's seed, scaled to [0, 1], as NHWC float32 images; plus the CNN's initial weights."""
    from sklearn.datasets import load_digits  # NOTE: the bench extra's dependency, needed by W14 only

    digits = load_digits()
    rng = _rng("W14")
    order = rng.permutation(len(digits.target))
    x = (digits.data[order] / 16.0).astype(np.float32).reshape(-1, 8, 8, 1)
    y = digits.target[order].astype(np.int32)
    flat = 3 * 3 * CNN_FILTERS
    return {
        "x_train": x[:CNN_TRAIN],
        "y_train": y[:CNN_TRAIN],
        "x_test": x[CNN_TRAIN:],
        "y_test": y[CNN_TRAIN:],
        "kernel": _glorot(rng, 9, 9 * CNN_FILTERS, (3, 3, 1, CNN_FILTERS)),
        "conv_bias": np.zeros((CNN_FILTERS,), np.float32),
        "dense": _glorot(rng, flat, 10, (flat, 10)),
        "dense_bias": np.zeros((10,), np.float32),
    }


def cnn_batches(n: int = CNN_TRAIN, batch: int = CNN_BATCH) -> list:
    """``[(start, stop)]`` of the training batches, in order."""
    return [(i, i + batch) for i in range(0, n - batch + 1, batch)]


def cnn_epoch_np(inp: dict, lr: float = CNN_LR) -> list:
    """Float64 reference of one W14 epoch (Adam as Keras writes it): [mean training loss,
    test accuracy, new weights...]."""
    p = {k: inp[k].astype(np.float64) for k in CNN_PARAM_NAMES}
    x_all, y_all = inp["x_train"].astype(np.float64), inp["y_train"]

    def forward(x, p):
        k = p["kernel"]  # (3, 3, 1, F)
        z = np.zeros((x.shape[0], 6, 6, CNN_FILTERS))
        for i in range(3):
            for j in range(3):
                z += x[:, i : i + 6, j : j + 6, :] * k[i, j, 0]
        z += p["conv_bias"]
        a = np.maximum(z, 0.0)
        blocks = a.reshape(x.shape[0], 3, 2, 3, 2, CNN_FILTERS)
        pooled = blocks.max(axis=(2, 4))
        flat = pooled.reshape(x.shape[0], -1)
        return z, a, blocks, pooled, flat, flat @ p["dense"] + p["dense_bias"]

    b1, b2, eps = ADAM
    mom = {k: np.zeros_like(w) for k, w in p.items()}
    vel = {k: np.zeros_like(w) for k, w in p.items()}
    losses = []
    for t, (lo, hi) in enumerate(cnn_batches(len(y_all)), start=1):
        x, y = x_all[lo:hi], y_all[lo:hi]
        n = len(y)
        z, a, blocks, pooled, flat, logits = forward(x, p)
        m = logits.max(axis=1, keepdims=True)
        logp = logits - m - np.log(np.exp(logits - m).sum(axis=1, keepdims=True))
        losses.append(-logp[np.arange(n), y].mean())
        d = np.exp(logp)
        d[np.arange(n), y] -= 1.0
        d /= n
        g = {"dense": flat.T @ d, "dense_bias": d.sum(0)}
        dpool = (d @ p["dense"].T).reshape(pooled.shape)
        mask = blocks == pooled[:, :, None, :, None, :]  # the window's maximum (ties measure zero)
        da = (mask * dpool[:, :, None, :, None, :]).reshape(a.shape)
        dz = da * (z > 0)
        g["conv_bias"] = dz.sum(axis=(0, 1, 2))
        gk = np.zeros_like(p["kernel"])
        for i in range(3):
            for j in range(3):
                gk[i, j, 0] = np.einsum("nhw,nhwf->f", x[:, i : i + 6, j : j + 6, 0], dz)
        g["kernel"] = gk
        alpha = lr * np.sqrt(1 - b2**t) / (1 - b1**t)
        for k in CNN_PARAM_NAMES:
            mom[k] += (g[k] - mom[k]) * (1 - b1)
            vel[k] += (g[k] ** 2 - vel[k]) * (1 - b2)
            p[k] = p[k] - alpha * mom[k] / (np.sqrt(vel[k]) + eps)
    logits = forward(inp["x_test"].astype(np.float64), p)[-1]
    accuracy = float(np.mean(np.argmax(logits, axis=1) == inp["y_test"]))
    return [np.array(np.mean(losses)), np.array(accuracy)] + [p[k] for k in CNN_PARAM_NAMES]


def headline(wid: str, outputs: list) -> str | None:
    """A result worth printing beside the times (W14: the test accuracy after the epoch)."""
    if wid == "W14" and len(outputs) > 1:
        return f"test accuracy {100 * float(np.asarray(outputs[1])):.1f}%"
    return None


def w11_lengths(total: int):
    """Input lengths of W11's calls: the whole input first (checked), then 1, 2, 3, ... (all new)."""
    return [total] + list(range(1, total))


# --- the 20-op chain ---------------------------------------------------------------------------------

# The chain in plain terms; make_chain() below is the same list written as Python.
CHAIN = [
    "y = x*0.5",
    "y = y+0.25",
    "y = tanh(y)",
    "y = y*x",
    "y = exp(y)",
    "y = y-1.0",
    "y = y*y",
    "y = y+1.0",
    "y = sqrt(y)",
    "y = sin(y)",
    "y = abs(y)",
    "y = y+x",
    "y = sigmoid(y)",
    "y = y*2.0",
    "y = maximum(y, 0.1)",
    "y = log(y)",
    "y = y/3.0",
    "y = cos(y)",
    "y = y-x",
    "y = relu(y)",
]

CHAIN_FUNCTIONS = ("tanh", "exp", "sqrt", "sin", "abs", "sigmoid", "maximum", "log", "cos", "relu")


def make_chain(T):
    """The 20-op chain over framework namespace ``T``: it must provide :data:`CHAIN_FUNCTIONS`
    (``maximum(y, 0.1)`` takes a Python float as its second argument)."""
    missing = [name for name in CHAIN_FUNCTIONS if not hasattr(T, name)]
    if missing:
        raise TypeError(f"chain namespace lacks {missing}")
    tanh, exp, sqrt, sin, abs_, sigmoid = T.tanh, T.exp, T.sqrt, T.sin, T.abs, T.sigmoid
    maximum, log, cos, relu = T.maximum, T.log, T.cos, T.relu

    def chain(x):
        y = x * 0.5
        y = y + 0.25
        y = tanh(y)
        y = y * x
        y = exp(y)
        y = y - 1.0
        y = y * y
        y = y + 1.0
        y = sqrt(y)
        y = sin(y)
        y = abs_(y)
        y = y + x
        y = sigmoid(y)
        y = y * 2.0
        y = maximum(y, 0.1)
        y = log(y)
        y = y / 3.0
        y = cos(y)
        y = y - x
        y = relu(y)
        return y

    return chain


def _np_sigmoid(y):
    t = np.negative(y)  # the one allocation; the rest works in place
    np.exp(t, out=t)
    t += 1.0
    np.reciprocal(t, out=t)
    return t


class NumpyOps:
    """Bare NumPy for the chain: one new array per op (sigmoid allocates once and works in place)."""

    tanh = staticmethod(np.tanh)
    exp = staticmethod(np.exp)
    sqrt = staticmethod(np.sqrt)
    sin = staticmethod(np.sin)
    abs = staticmethod(np.abs)
    sigmoid = staticmethod(_np_sigmoid)
    maximum = staticmethod(np.maximum)
    log = staticmethod(np.log)
    cos = staticmethod(np.cos)

    @staticmethod
    def relu(y):
        return np.maximum(y, 0.0)

    total = staticmethod(np.sum)


# --- W13: a 50-op graph on small tensors ---------------------------------------------------------------

SMALL_GRAPH_ROUNDS = 5  # 10 ops per round


def make_small_graph(T):
    """Five rounds of ten ops (mul, add, tanh, mul, total, mul, sub, mul, mul, add) over namespace
    ``T``, which provides ``tanh`` and ``total`` (the sum of all elements, as a scalar)."""
    tanh, total = T.tanh, T.total

    def small_graph(x, y):
        for _ in range(SMALL_GRAPH_ROUNDS):
            a = tanh(x * y + 0.5)
            s = total(a * x)
            x = a - s * 0.01
            y = y * 0.9 + a * 0.1
        return x, y

    return small_graph


# --- W10: fresh functions ------------------------------------------------------------------------------

ADD_CHAIN_LENGTH = 100
_ADD_CHAIN_SRC = """def add_chain_{i}(x):
    for _ in range({n}):
        x = x + 1.0
    return x
"""
_fresh_counter = itertools.count()


def fresh_add_chain():
    """A brand-new Python function (new code object, so no framework can reuse a cache keyed on
    the code) that adds 1.0 a hundred times. Its source is registered with ``linecache`` so that
    AutoGraph-style converters can read it."""
    i = next(_fresh_counter)
    src = _ADD_CHAIN_SRC.format(i=i, n=ADD_CHAIN_LENGTH)
    filename = f"<bench-add-chain-{i}>"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    namespace: dict = {}
    exec(compile(src, filename, "exec"), namespace)
    return namespace[f"add_chain_{i}"]


def add_chain(x):
    """The W10 chain for eager runs."""
    for _ in range(ADD_CHAIN_LENGTH):
        x = x + 1.0
    return x


# --- references (float64 NumPy) ----------------------------------------------------------------------


class _Ops64:
    tanh, exp, sqrt, sin, abs, maximum, log, cos = (
        np.tanh,
        np.exp,
        np.sqrt,
        np.sin,
        np.abs,
        np.maximum,
        np.log,
        np.cos,
    )

    @staticmethod
    def sigmoid(y):
        return 1.0 / (1.0 + np.exp(-y))

    @staticmethod
    def relu(y):
        return np.maximum(y, 0.0)

    total = staticmethod(np.sum)


def _sigmoid64(z):
    return 1.0 / (1.0 + np.exp(-z))


def lstm_step_np(x, h, c, kernel, recurrent_kernel, bias):
    z = x @ kernel + h @ recurrent_kernel + bias
    zi, zf, zc, zo = np.split(z, 4, axis=-1)
    c2 = _sigmoid64(zf) * c + _sigmoid64(zi) * np.tanh(zc)
    h2 = _sigmoid64(zo) * np.tanh(c2)
    return h2, c2


def conv_flops(x_shape, kernel_shape) -> int:
    """Multiply-adds x 2 of a stride-1 VALID convolution (NHWC input, HWIO kernel)."""
    n, h, w, c = x_shape
    kh, kw, _, oc = kernel_shape
    return 2 * n * (h - kh + 1) * (w - kw + 1) * kh * kw * c * oc


def im2col_np(x, kh, kw):
    """[N*OH*OW, KH*KW*C] patches of a stride-1 VALID convolution, in the kernel's HWI order."""
    n, h, w, c = x.shape
    oh, ow = h - kh + 1, w - kw + 1
    cols = np.empty((n, oh, ow, kh, kw, c), dtype=x.dtype)
    for i in range(kh):
        for j in range(kw):
            cols[:, :, :, i, j, :] = x[:, i : i + oh, j : j + ow, :]
    return cols.reshape(n * oh * ow, kh * kw * c)


def conv2d_valid_np(x, kernel):
    """NHWC x HWIO, stride 1, VALID."""
    kh, kw = kernel.shape[:2]
    n, h, w, _ = x.shape
    oh, ow = h - kh + 1, w - kw + 1
    out = np.zeros((n, oh, ow, kernel.shape[3]), dtype=np.result_type(x, kernel))
    for i in range(kh):
        for j in range(kw):
            out += x[:, i : i + oh, j : j + ow, :] @ kernel[i, j]
    return out


def mlp_step_np(inp, lr=0.1):
    """Float64 loss and updated parameters after one SGD step (manual backprop)."""
    p = {k: inp[k].astype(np.float64) for k in MLP_PARAM_NAMES}
    x = inp["x"].astype(np.float64)
    y = inp["y"]
    z1 = x @ p["w1"] + p["b1"]
    a1 = np.maximum(z1, 0.0)
    z2 = a1 @ p["w2"] + p["b2"]
    a2 = np.maximum(z2, 0.0)
    logits = a2 @ p["w3"] + p["b3"]
    m = logits.max(axis=1, keepdims=True)
    logp = logits - m - np.log(np.exp(logits - m).sum(axis=1, keepdims=True))
    n = x.shape[0]
    loss = -logp[np.arange(n), y].mean()
    d = np.exp(logp)
    d[np.arange(n), y] -= 1.0
    d /= n
    g = {"w3": a2.T @ d, "b3": d.sum(0)}
    d2 = (d @ p["w3"].T) * (z2 > 0)
    g.update(w2=a1.T @ d2, b2=d2.sum(0))
    d1 = (d2 @ p["w2"].T) * (z1 > 0)
    g.update(w1=x.T @ d1, b1=d1.sum(0))
    return [np.array(loss)] + [p[k] - lr * g[k] for k in MLP_PARAM_NAMES]


def reference(wid: str, inp: dict) -> list:
    """The expected outputs of ``wid`` on ``inp``, computed in float64."""
    f = {k: (v.astype(np.float64) if v.dtype.kind == "f" else v) for k, v in inp.items()}
    if wid == "W1":
        return [f["a"] + f["b"]]
    if wid == "W2":
        return [f["a"] @ f["b"] + f["c"]]
    if wid == "W3":
        return list(lstm_step_np(f["x"], f["h"], f["c"], f["kernel"], f["recurrent_kernel"], f["bias"]))
    if wid == "W4":
        return [conv2d_valid_np(f["x"], f["kernel"]) + f["bias"]]
    if wid in ("W5", "W6", "W12"):
        return [make_chain(_Ops64)(f["x"])]
    if wid == "W13":
        return list(make_small_graph(_Ops64)(f["x"], f["y"]))
    if wid == "W7":
        x, n = f["x"], 0
        while x.sum() > 1:
            x, n = np.tanh(x), n + 1
        if n != W7_ITERATIONS:
            raise AssertionError(f"W7 input runs {n} iterations, expected {W7_ITERATIONS}")
        return [x]
    if wid == "W8":
        return mlp_step_np(inp)
    if wid == "W9":
        return [f["x"] + 1.0]
    if wid == "W10":
        return [f["x"] + float(ADD_CHAIN_LENGTH)]
    if wid == "W11":
        return [make_chain(_Ops64)(f["x"])]
    if wid == "W14":
        return cnn_epoch_np(inp)
    raise ValueError(f"unknown workload {wid!r}")


def w7_iterations_float32(x0=W7_X0) -> int:
    """How many times the W7 loop body runs on ``x0`` in float32 NumPy."""
    x, n = x0.astype(np.float32), 0
    while x.sum(dtype=np.float32) > 1:
        x, n = np.tanh(x), n + 1
    return n


# --- correctness ---------------------------------------------------------------------------------------


def _compared(wid: str, arrays: list, inp: dict) -> list:
    """W8 compares the loss and the weight updates (new - initial), which checks the gradients
    themselves rather than weights dominated by their initial values.  W14 compares the epoch's
    mean loss and the test accuracy: after 42 Adam steps the weights themselves differ between
    float32 and float64 (Adam's normalized steps turn rounding noise in near-zero gradients into
    full-size steps), while the loss and accuracy agree."""
    if wid == "W14":
        return [np.asarray(a, dtype=np.float64) for a in arrays[:2]]
    if wid != "W8":
        return [np.asarray(a, dtype=np.float64) for a in arrays]
    out = [np.asarray(arrays[0], dtype=np.float64)]
    for name, a in zip(MLP_PARAM_NAMES, arrays[1:]):
        out.append(np.asarray(a, dtype=np.float64) - inp[name].astype(np.float64))
    return out


def check(wid: str, outputs: list, ref: list, inp: dict) -> tuple:
    """``(max_rel_err, problem)``: the error is, over the output arrays, the largest
    ``max|out - ref| / max|ref|`` (max norm, relative to the output's scale); ``problem`` is a
    string when outputs cannot be compared (count, shape or non-finite values), else ``None``."""
    if len(outputs) != len(ref):
        return float("inf"), f"{len(outputs)} outputs, expected {len(ref)}"
    got, want = _compared(wid, outputs, inp), _compared(wid, ref, inp)
    worst = 0.0
    for i, (g, r) in enumerate(zip(got, want)):
        if g.shape != r.shape:
            return float("inf"), f"output {i} has shape {g.shape}, expected {r.shape}"
        if not np.all(np.isfinite(g)):
            return float("inf"), f"output {i} has non-finite values"
        scale = float(np.max(np.abs(r))) if r.size else 0.0
        err = float(np.max(np.abs(g - r))) if r.size else 0.0
        worst = max(worst, err / scale if scale > 0 else err)
    return worst, None


def check_ok(wid: str, err: float) -> bool:
    return err <= WORKLOADS[wid].tol
