"""tf.distribute on a real GPU: MirroredStrategy's replica on the device, its collectives over
NCCL (one device), training the acceptance test's model to the weights of one process without a
strategy.  Skips cleanly where CuPy, a GPU or CuPy's NCCL bindings are missing."""

import subprocess
import sys

import numpy as np
import pytest

from tfunc.testing import available_backends

from ..distribute.mpi import WORKERS, worker_env

pytestmark = pytest.mark.skipif("cupy" not in available_backends(), reason="CuPy backend needs CuPy and an NVIDIA GPU")


def _have_nccl() -> bool:
    try:
        from cupy.cuda import nccl  # noqa: F401  NOTE: optional dependency (CuPy built with NCCL)
    except Exception:  # noqa: BLE001 - ImportError, or CUDA libraries missing
        return False
    return True


def _train(tmp_path, *args):
    proc = subprocess.run(
        [sys.executable, str(WORKERS / "train.py"), "--mode", "custom", "--out", str(tmp_path), *args],
        env=worker_env(TFUNC_BACKEND="cupy"),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.skipif(not _have_nccl(), reason="CuPy has no NCCL bindings here")
def test_mirrored_strategy_trains_over_nccl_like_one_process(tmp_path):
    _train(tmp_path, "--strategy", "mirrored")
    _train(tmp_path, "--reference")
    got, ref = dict(np.load(tmp_path / "custom-0.npz")), dict(np.load(tmp_path / "custom-reference.npz"))
    assert str(got["engine"]) == "nccl" and int(got["num_replicas"]) == 1
    names = sorted(k for k in ref if k.startswith("w"))
    assert len(names) == 4
    for k in names:
        np.testing.assert_allclose(got[k], ref[k], rtol=1e-4, atol=1e-5, err_msg=k)
    np.testing.assert_allclose(got["losses"], ref["losses"], rtol=1e-4)
