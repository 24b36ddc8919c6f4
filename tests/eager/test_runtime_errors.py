"""Errors a kernel meets at run time reach the user as TensorFlow's classes: bad data as
InvalidArgumentError, a failed allocation as ResourceExhaustedError, eagerly and in functions
(where shapes unknown while tracing are checked when the plan runs)."""

import numpy as np
import pytest

import tfunc as tf
from tfunc.eager.dispatch import runtime_error


def _vector_fn(body, n=2):
    return tf.function(body, input_signature=[tf.TensorSpec([None], tf.float32)] * n)


def test_broadcast_mismatch_known_only_at_run_time():
    f = _vector_fn(lambda a, b: a * b + 1.0)
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        f(tf.ones([2]), tf.ones([3]))
    assert isinstance(info.value.__cause__, ValueError)  # NumPy's message is kept as the cause


def test_failed_allocation_is_resource_exhausted():
    with pytest.raises(tf.errors.ResourceExhaustedError, match="OOM"):
        tf.ones([2**20, 2**20, 2**10])
    f = tf.function(lambda n: tf.fill(tf.stack([n, n, 1024]), 1.0), input_signature=[tf.TensorSpec([], tf.int32)])
    with pytest.raises(tf.errors.ResourceExhaustedError):
        f(tf.constant(2**20))


def test_runtime_error_keeps_tfunc_classes_and_bugs():
    e = tf.errors.NotFoundError("x")
    assert runtime_error(e) is e
    bug = RuntimeError("a bug")
    assert runtime_error(bug) is bug
    assert isinstance(runtime_error(np.linalg.LinAlgError("singular")), tf.errors.InvalidArgumentError)


def test_split_and_unstack_check_sizes_known_only_at_run_time():
    split = _vector_fn(lambda x: tf.split(x, [1, 2])[1], n=1)
    assert split(tf.ones([3])).shape == (2,)
    with pytest.raises(tf.errors.InvalidArgumentError, match="do not add up"):
        split(tf.ones([4]))
    unstack = _vector_fn(lambda x: tf.unstack(x, num=2)[0], n=1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="num=2"):
        unstack(tf.ones([3]))


def test_split_and_unstack_of_a_scalar():
    with pytest.raises(tf.errors.InvalidArgumentError, match="rank >= 1"):
        tf.split(tf.constant(1.0), 1)
    with pytest.raises(ValueError, match="at least rank 1"):  # TensorFlow: ValueError from its axis check
        tf.unstack(tf.constant(1.0), num=1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="rank >= 1"):  # a traced input of unknown rank
        tf.function(lambda x: tf.unstack(x, num=1)[0], input_signature=[tf.TensorSpec(None)])(tf.constant(1.0))


def test_negative_axes():
    x = tf.ones([2, 1, 3])
    assert tf.split(x, [1, 2], axis=-1)[1].shape == (2, 1, 2)
    assert tf.unstack(x, axis=-1)[0].shape == (2, 1)
    assert tf.squeeze(x, axis=[-2]).shape == (2, 3)
    f = tf.function(lambda x: tf.squeeze(x, axis=[-2]), input_signature=[tf.TensorSpec([None, 1, 3])])
    assert f(x).shape == (2, 3)
