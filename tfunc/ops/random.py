"""Random op definitions: ``random_uniform``, ``random_normal``, ``truncated_normal``,
``random_categorical``, ``random_shuffle``, and the stateless ``stateless_random_uniform`` /
``stateless_random_normal`` / ``stateless_truncated_normal`` (pure functions of a seed tensor).

Each draw reads its stream from attr ``gen`` (a :class:`GeneratorHolder`); the seeding rules
that hand out streams are in ``tfunc.api.random_ops``.  The shape is attr ``shape``, or, when
it is known only at run time, an int input (its static part in ``shape``).  Random ops are
stateful: never folded, merged, dropped or reordered.  On CuPy the numbers come from CuPy's
generator (the same seeds give different numbers than on NumPy).
"""

from __future__ import annotations

import numpy as np

from ..core import dtypes as D
from ..core.errors import InvalidArgumentError
from ..core.specs import Spec
from . import sampling as S
from .infer import FLOATS, INTS, check_dtype
from .registry import OpDef, register


class GeneratorHolder:
    """One random stream; identity-compared so CSE never merges two draws.  ``seed`` is None
    (fresh entropy) or a tuple of ints."""

    __slots__ = ("seed", "_np", "_cupy", "__weakref__")

    def __init__(self, seed):
        self.seed = seed
        self._np = None
        self._cupy = None

    def restart(self, seed):
        """Starts the sequence of ``seed`` again (generators are made on the next draw)."""
        self.seed = seed
        self._np = self._cupy = None

    def get(self, xp):
        if xp is np:
            if self._np is None:
                # SeedSequence takes non-negative ints only: a negative seed as its 64-bit pattern
                seq = None if self.seed is None else [k % (1 << 64) if k < 0 else k for k in self.seed]
                self._np = np.random.Generator(np.random.PCG64(seq))
            return self._np
        if self._cupy is None:
            self._cupy = xp.random.default_rng(abs(hash(self.seed)) % (2**63))
        return self._cupy

    def __repr__(self):
        return f"<random stream seed={self.seed}>"


def _run_shape(dims, shape):
    """The shape of a draw: attr ``shape``, or the values of the run-time shape input."""
    if not dims:
        return shape
    d = dims[0]
    shape = tuple(int(v) for v in (d.get() if hasattr(d, "get") else d).reshape(-1).tolist())
    if any(v < 0 for v in shape):
        raise InvalidArgumentError(f"random ops: every dimension must be >= 0, got shape {list(shape)}.")
    return shape


# Mantissa bits of the half types: their uniforms are k * 2**-bits, drawn as TensorFlow does
# (random mantissa bits), so a [0, 1) draw never rounds up to 1 when cast to the half type.
_MANTISSA_BITS = {D.float16: 10, D.bfloat16: 7}


def _uniform_impl(xp, *dims, shape, dtype, minval, maxval, gen):
    rng = gen.get(xp)
    shape = _run_shape(dims, shape)
    if dtype.is_integer:
        return rng.integers(minval, maxval, size=shape, dtype=dtype._np)
    bits = _MANTISSA_BITS.get(dtype)
    if bits is None:
        r = rng.random(size=shape, dtype=np.float64 if dtype is D.float64 else np.float32)
    else:
        r = rng.integers(0, 1 << bits, size=shape, dtype=np.int32).astype(np.float32) * np.float32(2.0**-bits)
    r = r * (maxval - minval) + minval
    return r.astype(dtype._np, copy=False)


def _normal_impl(xp, *dims, shape, dtype, mean, stddev, gen):
    rng = gen.get(xp)
    shape = _run_shape(dims, shape)
    r = rng.standard_normal(size=shape, dtype=np.float64 if dtype is D.float64 else np.float32)
    return (r * stddev + mean).astype(dtype._np, copy=False)


def _truncated_normal_impl(xp, *dims, shape, dtype, mean, stddev, gen):
    rng = gen.get(xp)
    shape = _run_shape(dims, shape)
    ft = np.float64 if dtype is D.float64 else np.float32
    r = rng.standard_normal(size=shape, dtype=ft)
    bad = xp.abs(r) > 2
    while bool(bad.any()):  # redraw the values beyond two standard deviations, as TensorFlow
        r[bad] = rng.standard_normal(size=int(bad.sum()), dtype=ft)
        bad = xp.abs(r) > 2
    return (r * stddev + mean).astype(dtype._np, copy=False)


def _samples(kind):
    def samples(rng):
        def g(i):  # one fresh stream per sample, so the reference can replay it
            return GeneratorHolder((1, i))

        dims = (np.array([2, 3], np.int64),)  # a shape known only at run time
        if kind == "uniform":
            return [
                S.Sample((), dict(gen=g(0), shape=(3, 4), dtype=D.float32, minval=0.0, maxval=1.0)),
                S.Sample((), dict(gen=g(1), shape=(5,), dtype=D.int32, minval=0, maxval=10)),
                S.Sample((), dict(gen=g(2), shape=(), dtype=D.float64, minval=-1.0, maxval=1.0)),
                S.Sample((), dict(gen=g(3), shape=(6,), dtype=D.bfloat16, minval=0.0, maxval=1.0)),
                S.Sample(dims, dict(gen=g(4), shape=(None, 3), dtype=D.float32, minval=0.0, maxval=1.0)),
            ]
        return [
            S.Sample((), dict(gen=g(0), shape=(3, 4), dtype=D.float32, mean=0.0, stddev=1.0)),
            S.Sample((), dict(gen=g(1), shape=(0,), dtype=D.float64, mean=1.0, stddev=2.0)),
            S.Sample(dims, dict(gen=g(2), shape=None, dtype=D.float32, mean=0.0, stddev=1.0)),
        ]

    return samples


def _ref(impl):
    """The reference of a stateful draw: ``impl`` on a fresh stream of the same seed."""
    return lambda *dims, gen, **attrs: impl(np, *dims, gen=GeneratorHolder(gen.seed), **attrs)


def _check_dims(name, dims):
    """The run-time shape input (if any) is an int vector."""
    if dims:
        check_dtype(name, dims[0], {D.int32, D.int64}, "shape")
        if dims[0].shape is not None and len(dims[0].shape) != 1:
            raise InvalidArgumentError(f"{name}: shape must be a vector, got a tensor of shape {dims[0].shape}.")


def _infer_for(name, allowed):
    def infer(specs, attrs):
        dt = attrs["dtype"]
        check_dtype(name, Spec((), dt), allowed, "dtype")
        _check_dims(name, specs)
        return (Spec(attrs["shape"], dt),)

    return infer


uniform_op = register(
    OpDef(
        name="random_uniform",
        kind="source",
        infer=_infer_for("random.uniform", FLOATS | INTS),
        impl=_uniform_impl,
        random=True,
        stateful=True,
        ref=_ref(_uniform_impl),
        samples=_samples("uniform"),
    )
)
normal_op = register(
    OpDef(
        name="random_normal",
        kind="source",
        infer=_infer_for("random.normal", FLOATS),
        impl=_normal_impl,
        random=True,
        stateful=True,
        ref=_ref(_normal_impl),
        samples=_samples("normal"),
    )
)
truncated_normal_op = register(
    OpDef(
        name="truncated_normal",
        kind="source",
        infer=_infer_for("random.truncated_normal", FLOATS),
        impl=_truncated_normal_impl,
        random=True,
        stateful=True,
        ref=_ref(_truncated_normal_impl),
        samples=_samples("normal"),
    )
)


# --- categorical and shuffle ---------------------------------------------------------------


def _categorical_infer(specs, attrs):
    """Inputs: logits, then num_samples when it is known only at run time (attr None)."""
    logits = specs[0]
    check_dtype("random.categorical", logits, FLOATS, "logits")
    check_dtype("random.categorical", Spec((), attrs["dtype"]), {D.int32, D.int64}, "dtype")
    if logits.shape is not None and len(logits.shape) != 2:
        raise InvalidArgumentError(f"random.categorical: logits must be 2-D [batch, classes], got {logits.shape}.")
    if len(specs) > 1:
        check_dtype("random.categorical", specs[1], {D.int32, D.int64}, "num_samples")
        if specs[1].shape is not None and len(specs[1].shape) != 0:
            raise InvalidArgumentError(f"random.categorical: num_samples must be a scalar, got {specs[1].shape}.")
    batch = None if logits.shape is None else logits.shape[0]
    return (Spec((batch, attrs["num_samples"]), attrs["dtype"]),)


def _categorical_impl(xp, logits, *n, num_samples, dtype, gen):
    """Gumbel-max sampling: argmax(logits + G) with G = -log(-log(U)) is distributed as
    softmax(logits), one draw per (row, sample)."""
    rng = gen.get(xp)
    if n:  # known only at run time
        num_samples = int(n[0].get() if hasattr(n[0], "get") else n[0])
        if num_samples < 0:
            raise InvalidArgumentError(f"random.categorical: num_samples should be non-negative, got {num_samples}.")
    ft = np.float64 if logits.dtype == np.float64 else np.float32
    batch, classes = logits.shape
    if batch == 0 or num_samples == 0:
        return xp.zeros((batch, num_samples), dtype._np)
    if classes == 0:
        raise InvalidArgumentError("random.categorical: logits must have at least one class.")
    u = rng.random(size=(batch, num_samples, classes), dtype=ft)
    with np.errstate(divide="ignore"):
        gumbel = -xp.log(-xp.log(u))
    z = logits.astype(ft, copy=False)[:, None, :] + gumbel
    return xp.argmax(z, axis=-1).astype(dtype._np)


categorical_op = register(
    OpDef(
        name="random_categorical",
        kind="other",
        infer=_categorical_infer,
        impl=_categorical_impl,
        random=True,
        stateful=True,
        ref=_ref(_categorical_impl),
        samples=lambda rng: [
            S.Sample(
                (np.log(np.array([[0.5, 0.5, 0.0], [0.1, 0.2, 0.7]], np.float32) + 1e-30),),
                {"num_samples": 6, "dtype": D.int64, "gen": GeneratorHolder((3, 0))},
            ),
            S.Sample(
                (S.draw(rng, (4, 5), D.float64),), {"num_samples": 2, "dtype": D.int32, "gen": GeneratorHolder((3, 1))}
            ),
            S.Sample(
                (np.zeros((0, 3), np.float32),), {"num_samples": 3, "dtype": D.int64, "gen": GeneratorHolder((3, 2))}
            ),
            S.Sample(
                (S.draw(rng, (2, 3), D.float32), np.array(4, np.int32)),
                {"num_samples": None, "dtype": D.int64, "gen": GeneratorHolder((3, 3))},
            ),
        ],
    )
)


def _shuffle_infer(specs, attrs):
    s = specs[0]
    return (Spec(s.shape, s.dtype),)


def _shuffle_impl(xp, value, gen):
    """A random permutation of the first axis (uniform: argsort of independent uniforms); a
    scalar comes back as it is, as in TensorFlow."""
    if value.ndim == 0 or value.shape[0] <= 1:
        return value.copy()
    order = xp.argsort(gen.get(xp).random(size=(value.shape[0],)))
    return value[order]


shuffle_op = register(
    OpDef(
        name="random_shuffle",
        kind="other",
        infer=_shuffle_infer,
        impl=_shuffle_impl,
        random=True,
        stateful=True,
        ref=lambda value, gen: _shuffle_impl(np, value, GeneratorHolder(gen.seed)),
        samples=lambda rng: [
            S.Sample((np.arange(10, dtype=np.int32),), {"gen": GeneratorHolder((4, 0))}),
            S.Sample((S.draw(rng, (5, 3), D.float32),), {"gen": GeneratorHolder((4, 1))}),
            S.Sample((S.draw(rng, (1, 2), D.float32),), {"gen": GeneratorHolder((4, 2))}),
            S.Sample((np.array(3, np.int32),), {"gen": GeneratorHolder((4, 3))}),
        ],
    )
)


# --- gamma and poisson: one draw per parameter, the shape's dims first ---------------------


def _draw_params(xp, rng, params, shape, gamma):
    """Standard gamma (``gamma``) or Poisson draws of ``shape`` (its trailing dims those of
    ``params``), as TensorFlow's kernels: alpha = 0 and a rate <= 0 give 0, a negative alpha
    and NaN give NaN."""
    p = xp.broadcast_to(params.astype(np.float64), shape)
    ok = p > 0  # (False for NaN)
    safe = xp.where(ok, p, 1.0)
    r = rng.standard_gamma(safe) if gamma else rng.poisson(safe).astype(np.float64)
    bad = xp.isnan(p) | (p < 0) if gamma else xp.isnan(p)
    return xp.where(ok, r, xp.where(bad, np.nan, 0.0))


def _gamma_impl(xp, alpha, *dims, shape, dtype, gen):
    r = _draw_params(xp, gen.get(xp), alpha, _run_shape(dims, shape) + alpha.shape, True)
    return r.astype(dtype._np)


def _poisson_impl(xp, lam, *dims, shape, dtype, gen):
    r = _draw_params(xp, gen.get(xp), lam, _run_shape(dims, shape) + lam.shape, False)
    if dtype.is_integer:  # (an invalid rate: TensorFlow's cast of NaN, the type's minimum)
        return xp.where(xp.isnan(r), np.iinfo(dtype._np).min, r).astype(dtype._np)
    return r.astype(dtype._np)


def _params_infer(name, allowed_params, allowed_out):
    """Inputs: the parameters (alpha or lam), then the run-time shape if any; the output has
    the shape's dims, then the parameters'."""

    def infer(specs, attrs):
        params, dt = specs[0], attrs["dtype"]
        check_dtype(name, params, allowed_params, "parameter")
        check_dtype(name, Spec((), dt), allowed_out, "dtype")
        _check_dims(name, specs[1:])
        shape = attrs["shape"]
        out = None if shape is None or params.shape is None else tuple(shape) + tuple(params.shape)
        return (Spec(out, dt),)

    return infer


def _params_samples(kind):
    def samples(rng):
        def g(i):
            return GeneratorHolder((5 if kind == "gamma" else 6, i))

        p = np.array([0.5, 2.0, 7.0], np.float32)
        dims = (np.array([2, 3], np.int64),)  # a shape known only at run time
        out = [
            S.Sample((p,), dict(gen=g(0), shape=(4,), dtype=D.float32)),
            S.Sample((p.astype(np.float64).reshape(3, 1),), dict(gen=g(1), shape=(), dtype=D.float64)),
            S.Sample((p,), dict(gen=g(2), shape=(0, 2), dtype=D.float16)),
            S.Sample((np.array(3.0, np.float32), *dims), dict(gen=g(3), shape=(None, None), dtype=D.float32)),
            S.Sample((np.array([-1.0, 0.0, np.nan], np.float32),), dict(gen=g(4), shape=(2,), dtype=D.float32)),
        ]
        if kind == "poisson":  # integer rates and samples
            out.append(S.Sample((np.array([1, 4], np.int64),), dict(gen=g(5), shape=(3,), dtype=D.int32)))
        return out

    return samples


_HALF_FLOATS = {D.float16, D.float32, D.float64}

gamma_op = register(
    OpDef(
        name="random_gamma",
        kind="other",
        infer=_params_infer("random.gamma", _HALF_FLOATS, _HALF_FLOATS),
        impl=_gamma_impl,
        random=True,
        stateful=True,
        ref=_ref(_gamma_impl),
        samples=_params_samples("gamma"),
    )
)
poisson_op = register(
    OpDef(
        name="random_poisson",
        kind="other",
        infer=_params_infer("random.poisson", _HALF_FLOATS | {D.int32, D.int64}, _HALF_FLOATS | {D.int32, D.int64}),
        impl=_poisson_impl,
        random=True,
        stateful=True,
        ref=_ref(_poisson_impl),
        samples=_params_samples("poisson"),
    )
)


# --- stateless: a pure function of the seed ---------------------------------------------------


def _stateless_infer(name, allowed):
    """Inputs: the seed, then the shape when it is known only at run time."""

    def infer(specs, attrs):
        seed = specs[0]
        check_dtype(name, seed, {D.int32, D.int64}, "seed")
        if seed.shape is not None and (len(seed.shape) != 1 or seed.shape[0] not in (2, None)):
            raise InvalidArgumentError(f"{name}: seed must have shape [2], got {seed.shape}.")
        check_dtype(name, Spec((), attrs["dtype"]), allowed, "dtype")
        _check_dims(name, specs[1:])
        return (Spec(attrs["shape"], attrs["dtype"]),)

    return infer


def _seeded(seed):
    """A fresh NumPy generator from a [2] seed (read back to the host)."""
    s = [int(v) for v in (seed.get() if hasattr(seed, "get") else seed).tolist()]
    if len(s) != 2:
        raise InvalidArgumentError(f"stateless random ops need a seed of shape [2], got {len(s)} values.")
    return np.random.Generator(np.random.PCG64([s[0] & 0xFFFFFFFFFFFFFFFF, s[1] & 0xFFFFFFFFFFFFFFFF]))


def _stateless_uniform_impl(xp, seed, *dims, shape, dtype, minval, maxval):
    """Drawn on the host from the seed alone, then moved to ``xp``: the same seed gives the same
    numbers on NumPy and CuPy, in eager code and in every trace."""
    holder = GeneratorHolder(None)
    holder._np = _seeded(seed)
    return xp.asarray(_uniform_impl(np, *dims, shape=shape, dtype=dtype, minval=minval, maxval=maxval, gen=holder))


def _stateless_normal_impl(xp, seed, *dims, shape, dtype, mean, stddev):
    holder = GeneratorHolder(None)
    holder._np = _seeded(seed)
    return xp.asarray(_normal_impl(np, *dims, shape=shape, dtype=dtype, mean=mean, stddev=stddev, gen=holder))


def _stateless_truncated_normal_impl(xp, seed, *dims, shape, dtype, mean, stddev):
    holder = GeneratorHolder(None)
    holder._np = _seeded(seed)
    return xp.asarray(_truncated_normal_impl(np, *dims, shape=shape, dtype=dtype, mean=mean, stddev=stddev, gen=holder))


def _stateless_samples(kind):
    def samples(rng):
        seeds = [np.array([1, 2], np.int32), np.array([7, -3], np.int64)]
        if kind == "uniform":
            return [
                S.Sample((seeds[0],), dict(shape=(3, 4), dtype=D.float32, minval=0.0, maxval=1.0)),
                S.Sample((seeds[1],), dict(shape=(5,), dtype=D.int32, minval=-3, maxval=9)),
                S.Sample((seeds[0],), dict(shape=(), dtype=D.float64, minval=2.0, maxval=3.0)),
                S.Sample((seeds[0],), dict(shape=(4,), dtype=D.float16, minval=0.0, maxval=1.0)),
                # the full range of an unsigned type (minval=maxval=None)
                S.Sample((seeds[1],), dict(shape=(3,), dtype=D.uint64, minval=0, maxval=1 << 64)),
            ]
        return [
            S.Sample((seeds[0],), dict(shape=(3, 4), dtype=D.float32, mean=0.0, stddev=1.0)),
            S.Sample((seeds[1],), dict(shape=(0, 2), dtype=D.float64, mean=1.0, stddev=2.0)),
            S.Sample(
                (seeds[0], np.array([3, 1], np.int32)), dict(shape=(None, None), dtype=D.float32, mean=0.0, stddev=1.0)
            ),
        ]

    return samples


stateless_uniform_op = register(
    OpDef(
        name="stateless_random_uniform",
        kind="other",
        infer=_stateless_infer("random.stateless_uniform", FLOATS | INTS),
        impl=_stateless_uniform_impl,
        ref=lambda seed, *dims, **a: _stateless_uniform_impl(np, seed, *dims, **a),
        samples=_stateless_samples("uniform"),
        host_sync=True,
    )
)
stateless_normal_op = register(
    OpDef(
        name="stateless_random_normal",
        kind="other",
        infer=_stateless_infer("random.stateless_normal", FLOATS),
        impl=_stateless_normal_impl,
        ref=lambda seed, *dims, **a: _stateless_normal_impl(np, seed, *dims, **a),
        samples=_stateless_samples("normal"),
        host_sync=True,
    )
)
stateless_truncated_normal_op = register(
    OpDef(
        name="stateless_truncated_normal",
        kind="other",
        infer=_stateless_infer("random.stateless_truncated_normal", FLOATS),
        impl=_stateless_truncated_normal_impl,
        ref=lambda seed, *dims, **a: _stateless_truncated_normal_impl(np, seed, *dims, **a),
        samples=_stateless_samples("normal"),
        host_sync=True,
    )
)


# --- stateless gamma, poisson, binomial: one draw per parameter, a pure function of the seed ------


def _host(x):
    return x.get() if hasattr(x, "get") else x


def _check_ends_with(name, shape, params):
    """TensorFlow's rule: the draw's shape ends with the parameters' broadcast shape (checked
    once every shape is known)."""
    if shape is None or any(p is None or None in p for p in params):
        return
    try:
        tail = np.broadcast_shapes(*params)
    except ValueError:
        raise InvalidArgumentError(f"{name}: the parameters' shapes {list(params)} do not broadcast.") from None
    n = len(tail)
    if n > len(shape) or any(s is not None and s != t for s, t in zip(shape[len(shape) - n :], tail)):
        raise InvalidArgumentError(
            f"{name}: shape passed in must end with broadcasted shape; got shape {list(shape)} and {list(tail)}."
        )


def _stateless_params_infer(name, count, allowed_params, allowed_out):
    """Inputs: the seed, ``count`` parameters (of one dtype), then the run-time shape if any;
    the output has the shape, which ends with the parameters' broadcast shape."""

    def infer(specs, attrs):
        seed, params, dt = specs[0], specs[1 : 1 + count], attrs["dtype"]
        check_dtype(name, seed, {D.int32, D.int64}, "seed")
        if seed.shape is not None and (len(seed.shape) != 1 or seed.shape[0] not in (2, None)):
            raise InvalidArgumentError(f"{name}: seed must have shape [2], got {seed.shape}.")
        for p in params:
            check_dtype(name, p, allowed_params, "parameter")
        if len({p.dtype for p in params}) > 1:
            raise InvalidArgumentError(f"{name}: the parameters must have one dtype, got {[p.dtype for p in params]}.")
        check_dtype(name, Spec((), dt), allowed_out, "dtype")
        _check_dims(name, specs[1 + count :])
        _check_ends_with(name, attrs["shape"], [p.shape for p in params])
        return (Spec(attrs["shape"], dt),)

    return infer


def _stateless_draw(impl, name):
    """The stateless twin of the stateful gamma or poisson ``impl``: drawn on the host from the
    seed alone (as the other stateless ops), then moved to ``xp``."""

    def stateless(xp, seed, params, *dims, shape, dtype):
        shape = _run_shape(dims, shape)
        _check_ends_with(name, shape, [params.shape])
        holder = GeneratorHolder(None)
        holder._np = _seeded(seed)
        lead = shape[: len(shape) - params.ndim]  # (the stateful ops' shape: the dims before the parameters')
        return xp.asarray(impl(np, _host(params), shape=lead, dtype=dtype, gen=holder))

    return stateless


_stateless_gamma_impl = _stateless_draw(_gamma_impl, "random.stateless_gamma")
_stateless_poisson_impl = _stateless_draw(_poisson_impl, "random.stateless_poisson")


def _stateless_binomial_impl(xp, seed, counts, probs, *dims, shape, dtype):
    """Binomial(counts, probs) draws as TensorFlow's kernel: counts <= 0 or probs <= 0 give 0,
    probs >= 1 give counts, a NaN probability NaN (an int dtype: its minimum, the cast of NaN)."""
    shape = _run_shape(dims, shape)
    _check_ends_with("random.stateless_binomial", shape, [counts.shape, probs.shape])
    n = np.broadcast_to(_host(counts).astype(np.float64), shape)
    p = np.broadcast_to(_host(probs).astype(np.float64), shape)
    safe_n = np.where(n > 0, np.floor(n), 0).astype(np.int64)
    r = _seeded(seed).binomial(safe_n, np.clip(np.nan_to_num(p), 0.0, 1.0)).astype(np.float64)
    r = np.where(np.isnan(p), np.nan, r)
    if dtype.is_integer:
        r = np.where(np.isnan(r), np.iinfo(dtype._np).min, r)
    return xp.asarray(r.astype(dtype._np))


def _stateless_params_samples(kind):
    def samples(rng):
        seeds = [np.array([1, 2], np.int32), np.array([7, -3], np.int64)]
        p = np.array([0.5, 2.0, 7.0], np.float32)
        run_dims = np.array([2, 3], np.int64)  # a shape known only at run time
        if kind == "binomial":
            n = np.array([10.0, 3.0, 0.0], np.float32)
            return [
                S.Sample((seeds[0], n, np.array(0.3, np.float32)), dict(shape=(4, 3), dtype=D.int32)),
                S.Sample((seeds[1], n.astype(np.float64), p.astype(np.float64) / 8), dict(shape=(3,), dtype=D.float64)),
                S.Sample(
                    (seeds[0], np.array(5.0, np.float16), np.array(0.5, np.float16), run_dims),
                    dict(shape=(None, None), dtype=D.float32),
                ),  # fmt: skip
                S.Sample(
                    (seeds[1], np.full(4, 6.0, np.float32), np.array([-0.1, 1.5, np.nan, 0.5], np.float32)),
                    dict(shape=(2, 4), dtype=D.float32),
                ),
            ]
        out = [
            S.Sample((seeds[0], p), dict(shape=(4, 3), dtype=D.float32)),
            S.Sample((seeds[1], p.astype(np.float64).reshape(3, 1)), dict(shape=(3, 1), dtype=D.float64)),
            S.Sample((seeds[0], p), dict(shape=(0, 3), dtype=D.float16)),
            S.Sample((seeds[1], np.array(3.0, np.float32), run_dims), dict(shape=(None, None), dtype=D.float32)),
            S.Sample((seeds[0], np.array([-1.0, 0.0, np.nan], np.float32)), dict(shape=(2, 3), dtype=D.float32)),
        ]
        if kind == "poisson":  # integer rates and samples
            out.append(S.Sample((seeds[0], np.array([1, 4], np.int64)), dict(shape=(3, 2), dtype=D.int32)))
        return out

    return samples


_STATELESS_PARAMS = {D.float16, D.float32, D.float64}
_STATELESS_COUNTS = _STATELESS_PARAMS | {D.int32, D.int64}

stateless_gamma_op = register(
    OpDef(
        name="stateless_random_gamma",
        kind="other",
        infer=_stateless_params_infer("random.stateless_gamma", 1, _STATELESS_PARAMS, _STATELESS_PARAMS),
        impl=_stateless_gamma_impl,
        ref=lambda *inputs, **a: _stateless_gamma_impl(np, *inputs, **a),
        samples=_stateless_params_samples("gamma"),
        host_sync=True,
    )
)
stateless_poisson_op = register(
    OpDef(
        name="stateless_random_poisson",
        kind="other",
        infer=_stateless_params_infer("random.stateless_poisson", 1, _STATELESS_COUNTS, _STATELESS_COUNTS),
        impl=_stateless_poisson_impl,
        ref=lambda *inputs, **a: _stateless_poisson_impl(np, *inputs, **a),
        samples=_stateless_params_samples("poisson"),
        host_sync=True,
    )
)
stateless_binomial_op = register(
    OpDef(
        name="stateless_random_binomial",
        kind="other",
        infer=_stateless_params_infer("random.stateless_binomial", 2, _STATELESS_PARAMS, _STATELESS_COUNTS),
        impl=_stateless_binomial_impl,
        ref=lambda *inputs, **a: _stateless_binomial_impl(np, *inputs, **a),
        samples=_stateless_params_samples("binomial"),
        host_sync=True,
    )
)
