"""The memory probe runs end to end on a few shapes and reports the cache limit's effect."""

import re

from . import memory_probe


def test_memory_probe_small_run(capsys):
    memory_probe.main(["--traces", "20", "--shapes", "150"])
    out = capsys.readouterr().out
    kb = float(re.search(r"per cached concrete function .*: ([0-9.]+) KB", out).group(1))
    assert 0 < kb < 1000
    kept = int(re.search(r"concrete functions kept: (\d+)", out).group(1))
    assert kept == min(150 + 1, memory_probe.tf.config.experimental.get_function_cache_size())
