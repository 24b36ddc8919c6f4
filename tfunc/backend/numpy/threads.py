"""CPU threads: NumPy's BLAS and tfunc's fused-kernel helper share the cores.

Why: OpenBLAS (like MKL and BLIS) starts a thread per core and keeps those threads spinning
for a while after every matrix product, waiting for the next one.  tfunc's fused elementwise
kernels split large chains between the calling thread and one helper thread
(:mod:`tfunc.backend.numpy.fusion`).  When the spinning BLAS threads and the helper want the
same cores, the operating system time-slices them: on two cores, training steps of 13 ms
turned into streaks of 150-190 ms.

The policy, applied when the NumPy backend starts and again when the budget changes:

* **budget** -- the cores this process may run on (its CPU affinity), or
  ``tf.config.threading.set_intra_op_parallelism_threads(n)`` (0: every core), or the
  ``TFUNC_NUM_THREADS`` environment variable;
* **helper** -- the fused kernels use their helper thread only when the budget leaves a core
  for it beside BLAS's threads;
* **BLAS** -- gets ``budget - 1`` threads when the helper is in use, else ``budget`` (at least
  one): BLAS's threads plus the helper never exceed the budget;
* **the user's settings win** -- when ``OMP_NUM_THREADS``, ``OPENBLAS_NUM_THREADS``,
  ``MKL_NUM_THREADS``, ``BLIS_NUM_THREADS`` or ``VECLIB_MAXIMUM_THREADS`` is set, or the
  program already limited BLAS (``threadpoolctl.threadpool_limits``) below what tfunc would
  choose, tfunc leaves BLAS's thread count alone and fits the helper around it; tfunc only
  ever lowers BLAS's thread count (through ``threadpoolctl``), never raises it above what it
  found.
"""

from __future__ import annotations

import contextvars
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import threadpoolctl

__all__ = ["apply", "helper_pool", "in_halves", "on_helper", "set_budget", "budget_setting", "state"]

USER_VARIABLES = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "BLIS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
)

_lock = threading.Lock()
_state: dict = {"setting": None, "applied": False, "helper": False, "blas": None, "found": None, "user": False}
_pool: list = []


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _budget() -> int:
    setting = _state["setting"]
    if setting is None:
        env = os.environ.get("TFUNC_NUM_THREADS", "").strip()
        setting = int(env) if env.isdigit() else 0
    return cores() if setting <= 0 else setting


def _blas_threads():
    """The smallest thread count among the loaded BLAS libraries (None: no BLAS found)."""
    counts = [info["num_threads"] for info in threadpoolctl.threadpool_info() if info.get("user_api") == "blas"]
    return min(counts) if counts else None


def apply() -> dict:
    """Divides the budget between BLAS and the fused-kernel helper (see the module docstring);
    returns the decision."""
    with _lock:
        budget = _budget()
        found = _blas_threads() if _state["found"] is None else _state["found"]
        _state["found"] = found
        user = any(os.environ.get(v) for v in USER_VARIABLES)
        if user or found is None:
            blas = found
        else:
            # the helper needs a core of its own beside at least one BLAS thread
            wanted = max(1, budget - 1) if budget >= 2 else 1
            blas = min(found, wanted)
            if blas != _blas_threads():
                threadpoolctl.threadpool_limits(limits=blas, user_api="blas")
        _state.update(applied=True, user=user, blas=blas, helper=budget >= (blas or 0) + 1 and budget >= 2)
        return dict(_state)


def helper_pool():
    """The fused kernels' helper thread, or None when the budget has no core for it."""
    if not _state["applied"]:
        apply()
    if not _state["helper"]:
        return None
    if not _pool:
        with _lock:
            if not _pool:
                _pool.append(ThreadPoolExecutor(max_workers=1, thread_name_prefix="tfunc-fused"))
    return _pool[0]


def on_helper(pool, fn, *args, **kwargs):
    """``pool.submit(fn, ...)`` in the caller's context: the helper's half of the work sees the
    caller's ``np.errstate`` (a context variable), so a floating-point error raises or warns as
    it would on the calling thread."""
    return pool.submit(contextvars.copy_context().run, fn, *args, **kwargs)


def in_halves(total: int, work, parallel: bool = True) -> None:
    """Runs ``work(lo, hi)`` over ``range(total)``: in two halves, the second on the helper
    thread, when ``parallel`` (the work is worth a second thread), there are two items or more
    and the budget has a core for the helper; else whole on the calling thread."""
    pool = helper_pool() if parallel and total >= 2 else None
    if pool is None:
        work(0, total)
        return
    mid = total // 2
    future = on_helper(pool, work, mid, total)
    try:
        work(0, mid)
    finally:
        future.result()


def set_budget(num_threads: int) -> None:
    """``tf.config.threading.set_intra_op_parallelism_threads``: 0 means every core."""
    if num_threads < 0:
        raise ValueError(f"num_threads must be non-negative, got {num_threads}.")
    _state["setting"] = int(num_threads)
    apply()


def budget_setting() -> int:
    """The budget as set (0: every core)."""
    return 0 if _state["setting"] is None else _state["setting"]


def state() -> dict:
    """The current decision: BLAS threads, whether the helper runs, and what was found."""
    if not _state["applied"]:
        apply()
    return dict(_state, budget=_budget(), cores=cores())
