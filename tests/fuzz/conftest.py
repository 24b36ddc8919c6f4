"""Settings shared by the fuzzers: a fixed-seed run of a few hundred programs by default; the
long mode runs ``TFUNC_FUZZ_EXAMPLES`` programs per fuzzer (see the README)."""

import contextlib
import os
import signal
import threading
import time

import pytest
from hypothesis import HealthCheck, Phase, settings

LONG = int(os.environ.get("TFUNC_FUZZ_EXAMPLES", "0") or 0)


def fuzz_settings(ci_examples: int):
    """Hypothesis settings: derandomized (the same programs on every run) with
    ``ci_examples`` examples, or the long mode's count.  No shrinking: a failure names the
    whole program, and shrinking random programs costs minutes."""
    return settings(
        max_examples=LONG or ci_examples,
        derandomize=True,
        deadline=None,
        database=None,
        print_blob=True,
        phases=(Phase.explicit, Phase.reuse, Phase.generate),
        suppress_health_check=list(HealthCheck),
    )


class Hang(AssertionError):
    pass


@contextlib.contextmanager
def time_limit(seconds: float, what: str):
    """Raises ``Hang`` naming ``what`` when the block runs longer than ``seconds`` (a wrong
    loop counter can make a converted loop run for ever); a no-op off the main thread."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return
    outer, _ = signal.getitimer(signal.ITIMER_REAL)  # pytest-timeout's alarm, if it set one
    if outer and outer <= seconds:
        yield  # the outer alarm comes first: leave it in charge
        return

    def expired(signum, frame):
        raise Hang(f"still running after {seconds} s: {what}")

    start = time.monotonic()
    old = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        if outer:  # give the outer alarm back what is left of it
            signal.setitimer(signal.ITIMER_REAL, max(outer - (time.monotonic() - start), 1e-3))


# the long mode runs for as long as it takes (the suite's per-test timeout is for the CI set)
def long_run(test):
    return pytest.mark.timeout(0)(test) if LONG else test


@pytest.fixture(scope="module")
def report():
    """Counters a fuzzer fills; printed after the module (``-s`` shows them)."""
    from collections import Counter

    stats = Counter()
    yield stats
    if stats:
        width = max(map(len, stats))
        lines = [f"  {k:<{width}}  {v}" for k, v in sorted(stats.items()) if not k.startswith("op ")]
        print("\nfuzzing figures:\n" + "\n".join(lines))
