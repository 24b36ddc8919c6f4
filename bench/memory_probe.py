"""Memory a tfunc.function keeps per trace: ``python -m bench.memory_probe``.

Two figures, for a chain of 20 elementwise ops traced once per distinct input shape:

* KB of Python objects per cached concrete function (``tracemalloc``: what tracing N new
  shapes leaves allocated, divided by N, with the cache limit above N);
* the process's resident memory (RSS) while one Function is called on 10,000 distinct
  shapes under the default cache limit, and after the Function is gone.
"""

from __future__ import annotations

import argparse
import gc
import logging
import os
import sys
import tracemalloc

import tfunc as tf


def chain(x):
    """20 ops: five rounds of multiply, add, tanh, subtract."""
    for _ in range(5):
        x = tf.tanh(x * 1.01 + 0.1) - 0.05
    return x


def rss_mb() -> float:
    """Resident memory of this process in MB (Linux /proc; ru_maxrss elsewhere: a peak)."""
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak / (2**20 if sys.platform == "darwin" else 2**10)


def kb_per_trace(n: int) -> float:
    limit = tf.config.experimental.get_function_cache_size()
    tf.config.experimental.set_function_cache_size(max(limit, n + 10))
    try:
        f = tf.function(chain)
        f(tf.ones([1]))  # warm: imports, compile caches, one trace
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.take_snapshot()
        for k in range(2, n + 2):
            f(tf.ones([k]))
        gc.collect()
        after = tracemalloc.take_snapshot()
        tracemalloc.stop()
        grown = sum(s.size_diff for s in after.compare_to(before, "filename"))
        assert f.experimental_get_tracing_count() == n + 1
        return grown / n / 1024
    finally:
        tf.config.experimental.set_function_cache_size(limit)


def rss_over_shapes(n: int, report_every: int):
    f = tf.function(chain)
    f(tf.ones([1]))
    gc.collect()
    start = rss_mb()
    rows = [(0, start)]
    for k in range(2, n + 2):
        f(tf.ones([k]))
        if (k - 1) % report_every == 0:
            gc.collect()
            rows.append((k - 1, rss_mb()))
    kept = len(f._concrete)
    del f
    gc.collect()
    return rows, kept, rss_mb()


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--traces", type=int, default=300, help="traces measured with tracemalloc")
    p.add_argument("--shapes", type=int, default=10_000, help="distinct shapes for the RSS run")
    a = p.parse_args(argv)
    logging.getLogger("tfunc").setLevel(logging.ERROR)  # retracing on every new shape is the point here
    limit = tf.config.experimental.get_function_cache_size()
    print(f"function cache limit (default): {limit} concrete functions per Function")
    kb = kb_per_trace(a.traces)
    print(f"Python objects per cached concrete function (20-op chain, {a.traces} traces): {kb:.1f} KB")
    print(f"  at the limit: {kb * limit / 1024:.1f} MB per Function")
    rows, kept, after = rss_over_shapes(a.shapes, max(1, a.shapes // 5))
    print(f"RSS over {a.shapes} distinct shapes (MB):")
    for n, mb in rows:
        print(f"  {n:>6} shapes  {mb:8.1f}  ({mb - rows[0][1]:+.1f})")
    print(f"concrete functions kept: {kept}; RSS after the Function is gone: {after:.1f} MB")


if __name__ == "__main__":
    main()
