"""The CPU thread budget: BLAS's threads and the fused kernels' helper stay within the cores,
and a user's own BLAS settings win.  Each policy check runs in a fresh interpreter, since BLAS
thread counts are process-wide."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import tfunc as tf
from tfunc.backend.numpy import threads

from .conftest import helper_thread

PROBE = (
    "import json, threadpoolctl, tfunc; from tfunc.backend.numpy import threads; "
    "s = threads.state(); "
    "s['blas_now'] = min(i['num_threads'] for i in threadpoolctl.threadpool_info() if i['user_api'] == 'blas'); "
    "print(json.dumps(s))"
)


def _probe(code=PROBE, **env):
    e = {k: v for k, v in os.environ.items() if k not in threads.USER_VARIABLES and k != "TFUNC_NUM_THREADS"}
    e.update(env, TFUNC_BACKEND="numpy")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=e, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_default_policy_never_oversubscribes():
    s = _probe()
    assert s["blas_now"] == s["blas"] and not s["user"]
    assert s["blas"] + (1 if s["helper"] else 0) <= max(s["budget"], 1)
    assert s["blas"] <= s["found"]  # tfunc only lowers BLAS's thread count
    if s["cores"] >= 2:
        assert s["helper"] and s["blas"] == min(s["found"], s["cores"] - 1)


def test_an_environment_setting_is_left_alone():
    s = _probe(OPENBLAS_NUM_THREADS="2")
    assert s["user"] and s["blas_now"] == 2
    assert s["helper"] == (s["budget"] >= 3)  # the helper only where a core is left for it


def test_an_earlier_threadpool_limit_is_kept():
    code = "import numpy, threadpoolctl; threadpoolctl.threadpool_limits(1, user_api='blas'); " + PROBE
    s = _probe(code)
    assert s["found"] == 1 and s["blas_now"] == 1


def test_the_budget_from_the_environment_and_from_tf_config():
    s = _probe(TFUNC_NUM_THREADS="1")
    assert s["budget"] == 1 and s["blas_now"] == 1 and not s["helper"]
    code = "import tfunc; tfunc.config.threading.set_intra_op_parallelism_threads(1); " + PROBE
    s = _probe(code)
    assert s["setting"] == 1 and s["blas_now"] == 1 and not s["helper"]


def test_set_intra_op_parallelism_threads_round_trip():
    before = tf.config.threading.get_intra_op_parallelism_threads()
    try:
        tf.config.threading.set_intra_op_parallelism_threads(1)
        assert tf.config.threading.get_intra_op_parallelism_threads() == 1
        assert threads.helper_pool() is None
        with pytest.raises(ValueError, match="non-negative"):
            tf.config.threading.set_intra_op_parallelism_threads(-1)
    finally:
        tf.config.threading.set_intra_op_parallelism_threads(before)


@pytest.mark.parametrize("budget", [1, 0])
def test_fused_chains_are_right_with_and_without_the_helper(budget):
    before = tf.config.threading.get_intra_op_parallelism_threads()
    try:
        tf.config.threading.set_intra_op_parallelism_threads(budget)
        x = np.random.default_rng(0).normal(size=(600, 1000)).astype(np.float32)  # above the blocking size
        f = tf.function(lambda x: tf.tanh(x * 2.0 + 1.0) - tf.sigmoid(x))
        np.testing.assert_allclose(f(x).numpy(), np.tanh(x * 2 + 1) - 1 / (1 + np.exp(-x)), rtol=1e-5, atol=1e-6)
    finally:
        tf.config.threading.set_intra_op_parallelism_threads(before)


@pytest.fixture
def forced_helper(monkeypatch):
    """The helper thread on, whatever the machine's cores."""
    with helper_thread(monkeypatch, True) as pool:
        yield pool


def test_the_helpers_half_of_the_work_sees_the_callers_errstate(forced_helper):
    # np.errstate is a context variable: work on the helper thread must run in the caller's
    # context, or an error in its half would only warn (or pass silently) where it should raise
    from tfunc.backend.numpy import fusion, pooling

    n = fusion.PARALLEL_MIN * 2
    x = np.ones(n, np.float32)
    x[-1] = 0.0  # in the helper's half
    divide = tf.function(lambda x: 1.0 / (x * 1.0))
    with np.errstate(divide="raise"):
        with pytest.raises(Exception, match="divide by zero"):  # (the plan names the node)
            divide(tf.constant(x))
    with np.errstate(divide="ignore"):
        assert np.isinf(divide(tf.constant(x)).numpy()[-1])

    images = np.ones((2, 300, 300, 8), np.float32)  # 5.8 MB: both threads
    images[1, 0, 0, 0], images[1, 0, 1, 0] = np.inf, -np.inf  # inf + -inf in the second image
    assert images.nbytes >= pooling._PARALLEL_BYTES
    with np.errstate(invalid="raise"):
        with pytest.raises(FloatingPointError):
            pooling.avg_pool2d(np, images, (2, 2), (2, 2), "VALID")

    from tfunc.backend.numpy import matmul

    a = np.ones((4, 2000), np.float64)
    a[3, 0] = np.inf
    b = np.zeros((2000, 3000))  # large enough to split; inf * 0 in the second half's rows
    with np.errstate(invalid="raise"):
        with pytest.raises(FloatingPointError):
            matmul.matmul(np, a, b)
