"""Differential fuzzing of AutoGraph: random programs (``autograph_programs.py`` says which)
run as plain Python and through ``tf.function``, three calls each, must return the same
values."""

import itertools
import linecache
import random

from hypothesis import given
from hypothesis import strategies as st

import tfunc as tf

from . import autograph_programs as A
from .conftest import fuzz_settings, long_run, time_limit

_NAMES = itertools.count()
CALLS = ((0, 2), (3, 1), (2, 4))  # (n, m) of the three calls: a zero-trip loop, then longer ones


@long_run
@fuzz_settings(ci_examples=150)
@given(st.integers(0, 2**32 - 1))
def test_random_autograph_programs(seed):
    rng = random.Random(seed)
    tensor_params = (rng.random() < 0.5, rng.random() < 0.5)
    g = A.Generator(rng.randrange, tensor_params)
    source = g.program()
    filename = f"<fuzz-autograph-{next(_NAMES)}>"
    try:
        fn = A.traced(source, filename)
        for n, m in CALLS:
            want = A.run_python(source, n, m)
            args = [tf.constant(v) if is_tensor else v for v, is_tensor in zip((n, m), tensor_params)]
            try:
                with time_limit(30, f"n={n}, m={m} (tensors: {tensor_params}) of\n{source}"):
                    got = tuple(int(v) for v in fn(*args))
            except Exception as e:  # noqa: BLE001 - any error is a disagreement: Python ran it
                if isinstance(e, AssertionError):
                    raise
                raise AssertionError(
                    f"tf.function raised {type(e).__name__}: {e}\non n={n}, m={m} "
                    f"(tensors: {tensor_params}) of\n{source}"
                ) from e
            assert got == want, f"tf.function returned {got}, Python {want} on n={n}, m={m} of\n{source}"
            A.STATS["calls compared"] += 1
        A.STATS["programs"] += 1
    finally:
        linecache.cache.pop(filename, None)


def test_figures(report):
    """What the programs above covered (run after them in file order; ``-s`` prints it)."""
    report.update({"autograph " + k: v for k, v in A.STATS.items()})
