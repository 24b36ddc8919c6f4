"""The engines' pieces that need no second process: packing tensors into buffers by wire dtype,
bounded waits that poll for failure notices, and how the failure hook finds its flags."""

import time

import numpy as np
import pytest

from tfunc.core.errors import DeadlineExceededError, UnavailableError
from tfunc.distribute import communicators


def test_packs_group_by_wire_dtype_and_cap_their_size():
    arrays = [np.zeros(10, np.float32), np.zeros(3, np.int32), np.zeros(30, np.float32), np.zeros(2, np.float16)]
    wires = [communicators._wire_dtype(a.dtype, halves_ok=False) for a in arrays]
    assert wires[3] == np.float32  # MPI has no half floats
    assert communicators._packs(arrays, wires, 0) == [(np.dtype(np.float32), [0, 2, 3]), (np.dtype(np.int32), [1])]
    # 64 bytes per pack: 40 + 120 bytes do not fit together; a tensor larger than the cap travels alone
    packs = communicators._packs(arrays, wires, 64)
    assert [idx for _, idx in packs] == [[0], [2], [3], [1]]
    assert communicators._wire_dtype(np.bool_, halves_ok=True) == np.uint8
    assert communicators._wire_dtype(np.int16, halves_ok=True) == np.int32  # NCCL: no 16-bit ints
    assert communicators._wire_dtype(np.float16, halves_ok=True) == np.float16


def test_flatten_and_unflatten_round_trip_across_dtypes():
    parts = [np.arange(6, dtype=np.float16).reshape(2, 3), np.array(True), np.zeros((0, 4), np.float16)]
    buf = communicators._flat_copy(np, parts, np.dtype(np.float32))
    assert buf.dtype == np.float32 and buf.shape == (7,)
    back = communicators._unflatten(buf, parts)
    for a, b in zip(parts, back):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)


class _Stuck:
    rank, num_replicas = 1, 4

    def __init__(self):
        self.checks = 0
        self._broken = None

    def _check_notices(self, what):
        self.checks += 1


def test_a_wait_is_bounded_and_polls_for_failure_notices():
    group = _Stuck()
    waiter = communicators._Waiter(group, timeout=0.3)
    aborted = []
    start = time.monotonic()
    with pytest.raises(
        DeadlineExceededError, match=r"Collective all-reduce on worker 1 of 4 did not complete within 0.3 s"
    ):
        waiter.wait(lambda: False, "all-reduce", on_timeout=lambda: aborted.append(True))
    assert 0.3 <= time.monotonic() - start < 5
    assert group.checks >= 3 and aborted == [True]
    assert isinstance(group._broken, DeadlineExceededError)  # later collectives are refused


def test_a_failure_notice_stops_the_wait():
    class Told(_Stuck):
        def _check_notices(self, what):
            raise UnavailableError(f"Worker 3 of 4 failed: boom. Collective {what} cannot complete.")

    with pytest.raises(UnavailableError, match="Worker 3 of 4 failed: boom"):
        communicators._Waiter(Told(), timeout=60).wait(lambda: False, "all-gather")


def test_the_failure_hook_finds_flags_through_re_raised_errors():
    inner = UnavailableError("peer")
    inner._tfunc_peer_failure = True
    try:
        try:
            raise inner
        except UnavailableError as e:
            raise UnavailableError("peer, while executing node x") from e
    except UnavailableError as outer:
        assert communicators._caused_by(outer, "_tfunc_peer_failure")
        assert not communicators._caused_by(outer, "_tfunc_collective_timeout")
