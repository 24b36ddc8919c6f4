"""Differential fuzzing of the op table: random programs, eager vs traced (optimizer on and
off, static and unknown shapes, first and cached call) vs the NumPy reference, gradients vs
finite differences (``op_programs.py`` says how)."""

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from . import op_programs as P
from .conftest import LONG, fuzz_settings, long_run

MAX_STEPS = 4


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy's divide-by-zero notes, as TF: none
@long_run
@fuzz_settings(ci_examples=300)
@given(st.integers(0, 2**32 - 1))
def test_random_op_programs(seed):
    b = P.Builder(random.Random(seed).randrange, MAX_STEPS)
    program = b.build()
    P.check_program(program, b.values, b.error)


def test_figures(report):
    """Collects what the programs above covered (run after them in file order)."""
    report.update(P.STATS)
    covered = {k[3:] for k in P.STATS if k.startswith("op ")}
    report["distinct ops used"] = len(covered)
    report["ops in the pool"] = len(P.POOL)
    if not LONG:
        return
    missing = sorted(op.name for op in P.POOL if op.name not in covered)
    print("ops never drawn:", missing)
