"""Launching workers under ``mpiexec`` for the tests (the MPI of the mpi4py in use: the
``mpiexec`` installed next to this Python by the ``mpich`` wheel, else the one on PATH)."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
WORKERS = pathlib.Path(__file__).resolve().parent / "workers"


def mpiexec() -> str | None:
    here = pathlib.Path(sys.executable).parent / "mpiexec"
    if here.exists():
        return str(here)
    return shutil.which("mpiexec")


def _have_mpi4py() -> bool:
    try:
        import mpi4py  # noqa: F401  NOTE: optional dependency (the dist extra): the tests skip without it
    except ImportError:
        return False
    return True


requires_mpi = pytest.mark.skipif(
    not _have_mpi4py() or mpiexec() is None,
    reason="needs mpi4py and mpiexec (pip install 'tfunc[dist]')",
)


def worker_env(**extra) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env["TFUNC_BACKEND"] = "numpy"
    env["OMP_NUM_THREADS"] = env["OPENBLAS_NUM_THREADS"] = "1"  # two workers on a small machine
    env.update(extra)
    return env


def run(script: str, *args, n: int = 2, timeout: float = 120, env: dict | None = None):
    """``mpiexec -n n python workers/script args``; the CompletedProcess (stdout and stderr merged)."""
    cmd = [mpiexec(), "-n", str(n), sys.executable, str(WORKERS / script), *map(str, args)]
    return subprocess.run(
        cmd,
        cwd=ROOT,
        env=env or worker_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=timeout,
    )


def run_single(script: str, *args, timeout: float = 120, env: dict | None = None):
    """``python workers/script args`` in one process, without mpiexec."""
    cmd = [sys.executable, str(WORKERS / script), *map(str, args)]
    return subprocess.run(
        cmd,
        cwd=ROOT,
        env=env or worker_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=timeout,
    )
