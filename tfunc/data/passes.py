"""The seeds of random datasets' passes, and the record an iterator keeps of them.

A random dataset (``shuffle``, ``sample_from_datasets``, ``random``) seeds each pass from its key
and the pass number.  An iterator records the seeds its elements' passes draw, so its checkpoint
can make the same elements again: a restored iterator replays them in order
(:mod:`tfunc.data.iterator`)."""

from __future__ import annotations

import threading

import numpy as np

__all__ = ["pass_rng", "pass_seeds"]


class _PassSeeds(threading.local):
    """The seeds the random datasets' passes draw, per thread: an iterator records those its
    own elements use (``recording``), and a restored iterator hands them back in order
    (``replaying``), so its pipeline makes the same elements again (its checkpoint)."""

    recording: list | None = None
    replaying: list | None = None


pass_seeds = _PassSeeds()


def pass_rng(key: list, epochs, varies: bool):
    """The generator of a new pass of a random dataset: ``key`` and the pass number (0 when
    every pass draws the same), as recorded or replayed for the iterator pulling the element."""
    seed = key + [next(epochs) if varies else 0]
    if pass_seeds.replaying:
        seed = pass_seeds.replaying.pop(0)
    if pass_seeds.recording is not None:
        pass_seeds.recording.append(seed)
    return np.random.default_rng(seed)
