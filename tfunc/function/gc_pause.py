"""The cyclic garbage collector's young-generation passes wait while a function is traced.

A trace allocates thousands of short-lived objects (graph records, specs, the converted
source's syntax tree) that reference counting frees when the trace ends.  With the
collector running, the young-generation passes that these allocations trigger traverse
them while they are still alive and promote them, and the promoted count schedules full
passes over the whole heap: W10 (first call of a new function of 100 adds) spent
1.2-1.3 ms of its ~10 ms in the collector, 0.17 ms with the passes held back.

How: while any thread traces, the first generation's threshold is set to a value no
program uses (:data:`PAUSED_THRESHOLD`), so no automatic pass starts; ``gc.collect()``
still works.  The first trace to start sets it, the last one to end puts the previous
value back, unless the program changed the threshold meanwhile (then its value stays).
``gc.disable()`` and ``gc.enable()`` are never called, so a program's own switching of
the collector, during a trace or not, is left as it is; a collector that is off is not
touched at all.  The pause holds for the whole process while a trace runs.  A child
process forked during another thread's trace starts with the threshold put back.
"""

from __future__ import annotations

import gc
import os
import threading

PAUSED_THRESHOLD = 1_000_000_007  # allocations before a young-generation pass: never, in practice

_lock = threading.Lock()
_depth: dict = {}  # thread id -> traces in progress on that thread
_saved: tuple | None = None  # the thresholds before the pause (None: not paused by this module)


class _Paused:
    """The context manager (a class: a generator-based one costs a few microseconds more)."""

    __slots__ = ("_me",)

    def __enter__(self):
        global _saved
        self._me = me = threading.get_ident()
        with _lock:
            if not _depth and _saved is None and gc.isenabled():
                _saved = gc.get_threshold()
                gc.set_threshold(PAUSED_THRESHOLD, *_saved[1:])
            _depth[me] = _depth.get(me, 0) + 1

    def __exit__(self, *exc):
        me = self._me
        with _lock:
            n = _depth.get(me, 0) - 1
            if n > 0:
                _depth[me] = n
            else:
                _depth.pop(me, None)
            if not _depth:
                _resume()
        return False


def collector_paused() -> _Paused:
    """``with collector_paused(): ...`` (see the module)."""
    return _Paused()


def _resume() -> None:
    global _saved
    saved, _saved = _saved, None
    if saved is None:
        return
    now = gc.get_threshold()
    if now[0] == PAUSED_THRESHOLD:  # not changed by the program meanwhile
        gc.set_threshold(saved[0], *now[1:])


def _after_fork_in_child() -> None:
    """Only the forking thread lives on in the child: the other threads' traces are gone."""
    global _lock
    _lock = threading.Lock()
    mine = _depth.get(threading.get_ident(), 0)
    _depth.clear()
    if mine:
        _depth[threading.get_ident()] = mine
    else:
        _resume()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
