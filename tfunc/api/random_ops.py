"""Random numbers with TensorFlow's seeding rules.

* ``set_seed(s)`` fixes the global seed and restarts every sequence;
* an op with no seed under a global seed gets an op seed from a counter, so a
  program's random values repeat from run to run;
* an op seed without a global seed uses a fixed default global seed;
* the same (global, op) seed pair continues one sequence across calls, so two
  calls return different values, as TensorFlow's stateful kernels do.

In a traced function each random node owns its generator (made at trace time)
and advances it on every call.  The op definitions (and :class:`GeneratorHolder`)
are in ``tfunc.ops.random``.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from ..core import dtypes as D
from ..eager.convert import convert_to_tensor
from ..eager.dispatch import call
from ..eager.tensor import Tensor
from ..ops.random import (
    GeneratorHolder,
    categorical_op,
    normal_op,
    shuffle_op,
    stateless_normal_op,
    stateless_uniform_op,
    truncated_normal_op,
    uniform_op,
)
from .creation_ops import _shape_attr
from .math_ops import cast, greater_equal

_DEFAULT_GLOBAL_SEED = 87654321
_lock = threading.Lock()
_state: dict[str, Any] = {"global": None, "counter": 0}
_generators: dict = {}


def set_seed(seed):
    """Sets the global random seed and restarts all seeded sequences."""
    with _lock:
        _state["global"] = None if seed is None else int(seed)
        _state["counter"] = 0
        _generators.clear()


def get_global_seed():
    return _state["global"]


def stream(op_seed=None) -> GeneratorHolder:
    """The generator for a new random op, following TensorFlow's seed rules."""
    with _lock:
        g = _state["global"]
        if g is None and op_seed is None:
            return GeneratorHolder(None)  # fresh entropy
        if g is None:
            g = _DEFAULT_GLOBAL_SEED
        if op_seed is None:
            counter = _state["counter"]
            _state["counter"] = counter + 1
            return GeneratorHolder((g, counter))
        key = (g, int(op_seed))
        h = _generators.get(key)
        if h is None:
            h = _generators[key] = GeneratorHolder(key)
        return h


def _num(v, what):
    if hasattr(v, "numpy"):
        v = v.numpy()
    try:
        return float(v) if not isinstance(v, (int, np.integer)) else int(v)
    except TypeError:
        raise TypeError(f"random ops need a static {what}, got {v!r}") from None


def _tensor_params(dt, *params):
    """The parameters as tensors of ``dt`` when any is a tensor of a floating dtype ``dt``
    (the values are then made from a standard draw with differentiable ops, as TensorFlow
    does, so gradients reach them and they may be symbolic), else None."""
    if not dt.is_floating or not any(isinstance(p, Tensor) or hasattr(p, "_as_tensor") for p in params):
        return None
    return [convert_to_tensor(p, dtype=dt) for p in params]


def uniform(shape, minval=0, maxval=None, dtype=D.float32, seed=None, name=None):
    """Uniform values in [minval, maxval) (maxval defaults to 1 for floats)."""
    dt = D.as_dtype(dtype)
    if maxval is None:
        if dt.is_integer:
            raise ValueError("random.uniform needs maxval for integer dtypes.")
        maxval = 1
    tensors = _tensor_params(dt, minval, maxval)
    if tensors is not None:
        lo, hi = tensors
        r = call(
            uniform_op,
            (),
            {"shape": _shape_attr(shape), "dtype": dt, "minval": 0.0, "maxval": 1.0, "gen": stream(seed)},
        )
        return r * (hi - lo) + lo
    lo, hi = _num(minval, "minval"), _num(maxval, "maxval")
    if dt.is_integer and lo >= hi:
        raise ValueError(f"random.uniform needs minval < maxval, got {lo} and {hi}.")
    return call(
        uniform_op, (), {"shape": _shape_attr(shape), "dtype": dt, "minval": lo, "maxval": hi, "gen": stream(seed)}
    )


def normal(shape, mean=0.0, stddev=1.0, dtype=D.float32, seed=None, name=None):
    dt = D.as_dtype(dtype)
    tensors = _tensor_params(dt, mean, stddev)
    if tensors is not None:
        r = call(
            normal_op, (), {"shape": _shape_attr(shape), "dtype": dt, "mean": 0.0, "stddev": 1.0, "gen": stream(seed)}
        )
        return r * tensors[1] + tensors[0]
    return call(
        normal_op,
        (),
        {
            "shape": _shape_attr(shape),
            "dtype": dt,
            "mean": _num(mean, "mean"),
            "stddev": _num(stddev, "stddev"),
            "gen": stream(seed),
        },
    )


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=D.float32, seed=None, name=None):
    dt = D.as_dtype(dtype)
    tensors = _tensor_params(dt, mean, stddev)
    if tensors is not None:
        attrs = {"shape": _shape_attr(shape), "dtype": dt, "mean": 0.0, "stddev": 1.0, "gen": stream(seed)}
        return call(truncated_normal_op, (), attrs) * tensors[1] + tensors[0]
    return call(
        truncated_normal_op,
        (),
        {
            "shape": _shape_attr(shape),
            "dtype": dt,
            "mean": _num(mean, "mean"),
            "stddev": _num(stddev, "stddev"),
            "gen": stream(seed),
        },
    )


def dropout(x, rate, noise_shape=None, seed=None, name=None):
    """Zeroes elements with probability ``rate`` and scales the rest by 1/(1-rate)."""
    x = convert_to_tensor(x)
    if not 0 <= float(rate) < 1:
        raise ValueError(f"dropout rate must be in [0, 1), got {rate}.")
    if float(rate) == 0:
        return x
    shape = x.shape.as_list() if noise_shape is None else list(noise_shape)
    keep = greater_equal(uniform(shape, dtype=x.dtype, seed=seed), float(rate))
    return x * cast(keep, x.dtype) * (1.0 / (1.0 - float(rate)))


# --- categorical, shuffle ------------------------------------------------------------------


def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """``num_samples`` class indices per row of ``logits`` [batch, classes], drawn from
    softmax(logits)."""
    x = convert_to_tensor(logits)
    n = int(num_samples.numpy() if hasattr(num_samples, "numpy") else num_samples)
    dt = D.int64 if dtype is None else D.as_dtype(dtype)
    return call(categorical_op, (x,), {"num_samples": n, "dtype": dt, "gen": stream(seed)})


def shuffle(value, seed=None, name=None):
    """``value`` with its first axis randomly permuted."""
    return call(shuffle_op, (convert_to_tensor(value),), {"gen": stream(seed)})


# --- stateless ---------------------------------------------------------------------------------


def _seed_tensor(seed):
    t = convert_to_tensor(seed)
    if not t.dtype.is_integer:
        raise TypeError(f"stateless random ops need an integer seed of shape [2], got dtype {t.dtype.name}.")
    if t.shape.rank is not None and t.shape.as_list() not in ([2], [None]):
        raise ValueError(f"stateless random ops need a seed of shape [2], got shape {t.shape}.")
    return t if t.dtype in (D.int32, D.int64) else cast(t, D.int64)


def stateless_uniform(shape, seed, minval=0, maxval=None, dtype=D.float32, name=None, alg="auto_select"):
    """Uniform values in [minval, maxval) that depend on ``seed`` (shape [2]) alone: the same
    seed gives the same values on every call, eagerly and in functions."""
    dt = D.as_dtype(dtype)
    if maxval is None:
        if dt.is_integer:
            raise ValueError("stateless_uniform needs maxval for integer dtypes.")
        maxval = 1
    tensors = _tensor_params(dt, minval, maxval)
    if tensors is not None:
        lo, hi = tensors
        attrs = {"shape": _shape_attr(shape), "dtype": dt, "minval": 0.0, "maxval": 1.0}
        return call(stateless_uniform_op, (_seed_tensor(seed),), attrs) * (hi - lo) + lo
    lo, hi = _num(minval, "minval"), _num(maxval, "maxval")
    if dt.is_integer and lo >= hi:
        raise ValueError(f"stateless_uniform needs minval < maxval, got {lo} and {hi}.")
    attrs = {"shape": _shape_attr(shape), "dtype": dt, "minval": lo, "maxval": hi}
    return call(stateless_uniform_op, (_seed_tensor(seed),), attrs)


def stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype=D.float32, name=None, alg="auto_select"):
    """Normal values that depend on ``seed`` (shape [2]) alone."""
    tensors = _tensor_params(D.as_dtype(dtype), mean, stddev)
    if tensors is not None:
        attrs = {"shape": _shape_attr(shape), "dtype": D.as_dtype(dtype), "mean": 0.0, "stddev": 1.0}
        return call(stateless_normal_op, (_seed_tensor(seed),), attrs) * tensors[1] + tensors[0]
    attrs = {
        "shape": _shape_attr(shape),
        "dtype": D.as_dtype(dtype),
        "mean": _num(mean, "mean"),
        "stddev": _num(stddev, "stddev"),
    }
    return call(stateless_normal_op, (_seed_tensor(seed),), attrs)


# --- Generator ---------------------------------------------------------------------------------

_GENERATOR_TAG = 0x6E  # keeps Generator streams apart from the op-seed streams of the same seed


class Generator:
    """A random number generator object (``tf.random.Generator``): its draws advance its own
    state, eagerly and in every function that uses it (a traced draw keeps a reference to the
    generator's stream, so each call of the function continues the sequence).

    Make one with :meth:`from_seed` or :meth:`from_non_deterministic_state`.
    """

    def __init__(self, copy_from=None, state=None, alg=None):
        if copy_from is not None:
            raise ValueError("Generator(copy_from=...) is not supported; use Generator.from_seed(seed).")
        if state is not None:
            raise ValueError("Generator(state=...) is not supported; use Generator.from_seed(seed).")
        self._seed = None
        self._holder = GeneratorHolder(None)

    @classmethod
    def from_seed(cls, seed, alg=None):
        """A generator whose sequence is fixed by the integer ``seed``."""
        g = cls()
        g.reset_from_seed(seed)
        return g

    @classmethod
    def from_non_deterministic_state(cls, alg=None):
        """A generator seeded from the operating system's entropy."""
        return cls()

    def reset_from_seed(self, seed):
        """Restarts the sequence from ``seed`` (functions traced before see the restart too)."""
        self._seed = int(seed.numpy() if hasattr(seed, "numpy") else seed)
        self._holder.seed = (self._seed, _GENERATOR_TAG)
        self._holder._np = None
        self._holder._cupy = None

    @property
    def seed(self):
        return self._seed

    def normal(self, shape, mean=0.0, stddev=1.0, dtype=D.float32, name=None):
        attrs = {"shape": _shape_attr(shape), "dtype": D.as_dtype(dtype), "mean": _num(mean, "mean")}
        attrs.update(stddev=_num(stddev, "stddev"), gen=self._holder)
        return call(normal_op, (), attrs)

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=D.float32, name=None):
        attrs = {"shape": _shape_attr(shape), "dtype": D.as_dtype(dtype), "mean": _num(mean, "mean")}
        attrs.update(stddev=_num(stddev, "stddev"), gen=self._holder)
        return call(truncated_normal_op, (), attrs)

    def uniform(self, shape, minval=0, maxval=None, dtype=D.float32, name=None):
        dt = D.as_dtype(dtype)
        if maxval is None:
            if dt.is_integer:
                raise ValueError("Generator.uniform needs maxval for integer dtypes.")
            maxval = 1
        lo, hi = _num(minval, "minval"), _num(maxval, "maxval")
        if dt.is_integer and lo >= hi:
            raise ValueError(f"Generator.uniform needs minval < maxval, got {lo} and {hi}.")
        attrs = {"shape": _shape_attr(shape), "dtype": dt, "minval": lo, "maxval": hi, "gen": self._holder}
        return call(uniform_op, (), attrs)

    def make_seeds(self, count=1):
        """``count`` seeds for the stateless ops: an int64 tensor of shape [2, count]."""
        return self.uniform([2, int(count)], minval=-(2**62), maxval=2**62, dtype=D.int64)

    def split(self, count=1):
        """``count`` new generators seeded from this one's sequence."""
        seeds = self.uniform([int(count)], minval=0, maxval=2**62, dtype=D.int64).numpy().tolist()
        return [Generator.from_seed(s) for s in seeds]

    def __repr__(self):
        return f"<tfunc.random.Generator seed={self._seed}>"


_global_generator: list = []


def get_global_generator():
    """The process-wide generator (made on first use from ``set_seed``'s seed, or entropy)."""
    if not _global_generator:
        seed = get_global_seed()
        _global_generator.append(Generator.from_seed(seed) if seed is not None else Generator())
    return _global_generator[0]


def set_global_generator(generator):
    """Replaces the process-wide generator."""
    if not isinstance(generator, Generator):
        raise TypeError(f"set_global_generator expects a tfunc.random.Generator, got {generator!r}.")
    _global_generator[:] = [generator]
