"""Shared by the host-kernel tests: tfunc's helper thread forced on or off, whatever the
machine's cores, so that both the split and the whole paths run everywhere (CI included)."""

import contextlib
from concurrent.futures import ThreadPoolExecutor

from tfunc.backend.numpy import threads


@contextlib.contextmanager
def helper_thread(monkeypatch, on: bool):
    """``threads.helper_pool`` answers a one-thread pool (``on``) or None while inside."""
    if not on:
        monkeypatch.setattr(threads, "helper_pool", lambda: None)
        yield None
        return
    pool = ThreadPoolExecutor(1)
    monkeypatch.setattr(threads, "helper_pool", lambda: pool)
    try:
        yield pool
    finally:
        pool.shutdown()
