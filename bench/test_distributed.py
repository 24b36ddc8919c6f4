"""``python -m bench.distributed`` once with the fewest steps (a smoke test, no timing checked):
W8 and W14 on 1 and 2 MPI processes; the workers must end with the same weights, and the
2-process run with the 1-process run's."""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys

import pytest

from . import distributed


def _have_mpi() -> bool:
    here = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    return importlib.util.find_spec("mpi4py") is not None and (os.path.exists(here) or shutil.which("mpiexec"))


@pytest.mark.skipif(not _have_mpi(), reason="needs mpi4py and mpiexec (pip install 'tfunc[dist]')")
def test_the_distributed_benchmark_runs_and_the_workers_agree(capsys):
    distributed.main(["--steps", "2", "--repeats", "1", "--warmup", "1"])  # exits if the workers disagree
    out = capsys.readouterr().out
    rows = [row for row in map(str.split, out.splitlines()) if row[1:2] in (["process,"], ["processes,"])]
    rows = [row for row in rows if row[2] == "strategy"]
    assert len(rows) == 4, out  # W8 and W14, 1 and 2 processes
    two = [row for row in rows if row[0] == "2"]
    assert len(two) == 2, out
    for row in two:
        assert float(row[-1]) < 1e-5, out  # the largest weight difference to the 1-process run
    assert "not a speed-up" in out or (os.cpu_count() or 1) > 2
