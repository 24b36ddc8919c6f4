"""Shape rules an op checks while tracing are checked again by its kernel: with unknown
dimensions in the signature, a mismatch is found when the plan runs, as TensorFlow's kernels
find it (InvalidArgumentError, never a NumPy error or a wrong result)."""

import numpy as np
import pytest

import tfunc as tf
from tfunc.eager.dispatch import call
from tfunc.ops.image import resize_grad_op
from tfunc.ops.indexing import mirror_pad_grad_op


def _spec(rank, dtype=tf.float32):
    return tf.TensorSpec([None] * rank, dtype)


def test_clip_by_value_bounds_may_not_enlarge_t():
    with pytest.raises(tf.errors.IncompatibleShapesError, match="must not broadcast"):
        tf.clip_by_value(tf.ones([3]), tf.zeros([2, 3]), 1.0)
    f = tf.function(lambda t, lo: tf.clip_by_value(t, lo, 1.0), input_signature=[_spec(1), _spec(2)])
    with pytest.raises(tf.errors.InvalidArgumentError, match="must not broadcast"):
        f(tf.ones([3]), tf.zeros([2, 3]))
    # t of unknown size clipped by a bound of known size: the output takes the known size
    g = tf.function(lambda t: tf.clip_by_value(t, tf.zeros([3]), 1.0), input_signature=[_spec(1)])
    assert g.get_concrete_function().structured_outputs.shape == (3,)
    assert np.array_equal(g(tf.constant([-1.0, 0.5, 2.0])).numpy(), [0.0, 0.5, 1.0])


def test_scatter_checks_updates_against_indices():
    f = tf.function(lambda i, u: tf.scatter_nd(i, u, [4]), input_signature=[_spec(2, tf.int32), _spec(1)])
    assert np.array_equal(f(tf.constant([[1], [3]]), tf.constant([1.0, 2.0])).numpy(), [0, 1, 0, 2])
    with pytest.raises(tf.errors.InvalidArgumentError):
        f(tf.constant([[1], [3]]), tf.constant([1.0, 2.0, 3.0]))
    g = tf.function(
        lambda t, i, u: tf.tensor_scatter_nd_add(t, i, u), input_signature=[_spec(1), _spec(2, tf.int32), _spec(1)]
    )
    with pytest.raises(tf.errors.InvalidArgumentError):
        g(tf.zeros([4]), tf.constant([[1], [3]]), tf.constant([1.0]))


def test_segment_ids_must_prefix_data():
    f = tf.function(lambda d, s: tf.math.unsorted_segment_sum(d, s, 3), input_signature=[_spec(2), _spec(1, tf.int32)])
    assert f(tf.ones([2, 5]), tf.constant([0, 2])).shape == (3, 5)
    with pytest.raises(tf.errors.InvalidArgumentError, match="prefix"):
        f(tf.ones([2, 5]), tf.constant([0, 2, 1]))


def test_gradient_helpers_check_their_shapes():
    x = tf.ones([1, 4, 4, 1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="resize_grad"):
        call(resize_grad_op, (tf.ones([1, 3, 3, 1]), x), {"size": (2, 2), "method": "bilinear"})
    y = tf.ones([3, 3])
    with pytest.raises(tf.errors.InvalidArgumentError, match="mirror_pad_grad"):
        call(mirror_pad_grad_op, (tf.ones([4, 4]), y), {"paddings": ((1, 1), (1, 1)), "mode": "REFLECT"})
    assert call(mirror_pad_grad_op, (tf.ones([5, 5]), y), {"paddings": ((1, 1), (1, 1)), "mode": "REFLECT"}).shape == (
        3,
        3,
    )


def test_conv_same_padding_output_size_without_a_static_kernel():
    f = tf.function(
        lambda x, k: tf.nn.conv2d(x, k, strides=2, padding="SAME"),
        input_signature=[tf.TensorSpec([1, 7, 7, 2]), tf.TensorSpec([None, None, 2, 3])],
    )
    assert f.get_concrete_function().structured_outputs.shape == (1, 4, 4, 3)
    assert f(tf.ones([1, 7, 7, 2]), tf.ones([3, 3, 2, 3])).shape == (1, 4, 4, 3)


def test_argmax_axis_out_of_range_for_a_rank_known_only_at_run_time():
    from tfunc.ops.reduction import argmax_op

    with pytest.raises(tf.errors.InvalidArgumentError, match="out of range"):
        call(argmax_op, (tf.ones([3]),), {"axis": 1, "output_type": tf.int32})
    f = tf.function(lambda x: tf.argmax(x, axis=1), input_signature=[tf.TensorSpec(None)])
    assert f(tf.ones([2, 3])).shape == (2,)
    with pytest.raises(tf.errors.InvalidArgumentError):
        f(tf.ones([3]))


def test_solves_check_their_matrices_at_run_time():
    f = tf.function(
        lambda a, b: tf.linalg.solve(a, b, adjoint=True), input_signature=[_spec(2, tf.float64), _spec(2, tf.float64)]
    )
    with pytest.raises(tf.errors.InvalidArgumentError, match="square"):
        f(tf.ones([2, 3], tf.float64), tf.ones([2, 0], tf.float64))  # an empty rhs skipped the check
    with pytest.raises(tf.errors.InvalidArgumentError, match="same number of rows"):
        f(tf.eye(2, dtype=tf.float64), tf.ones([3, 1], tf.float64))
    assert f(tf.eye(2, dtype=tf.float64), tf.ones([2, 0], tf.float64)).shape == (2, 0)


def test_fill_value_dims_must_agree_with_the_static_shape():
    from tfunc.ops.creation import fill_value_op

    dims = tf.constant([0, 4, 0], tf.int64)
    with pytest.raises(tf.errors.InvalidArgumentError, match="do not match"):
        call(fill_value_op, (dims, tf.constant(1)), {"shape": (0, 4)})
    f = tf.function(lambda d, v: tf.fill(d, v), input_signature=[_spec(1, tf.int32), tf.TensorSpec([], tf.float32)])
    assert f(tf.constant([2, 3]), tf.constant(1.5)).shape == (2, 3)


def test_cholesky_checks_square_matrices_at_run_time():
    # x + x^T broadcast a [1, 2] input to [2, 2]: a result where TensorFlow refuses
    f = tf.function(tf.linalg.cholesky, input_signature=[_spec(2)])
    with pytest.raises(tf.errors.InvalidArgumentError, match="square"):
        f(tf.ones([1, 2]))
    assert np.allclose(f(tf.constant([[4.0, 2.0], [2.0, 5.0]])).numpy(), [[2.0, 0.0], [1.0, 2.0]])


def test_top_k_checks_k_against_a_last_dimension_known_only_at_run_time():
    # found by the 20,000-program op fuzz run (seed 3339)
    f = tf.function(lambda x: tf.math.top_k(x, k=4), input_signature=[tf.TensorSpec([None, None], tf.float32)])
    with pytest.raises(tf.errors.InvalidArgumentError, match="at least k=4"):
        f(tf.ones([2, 3]))
    values, indices = f(tf.constant([[1.0, 5.0, 3.0, 2.0]]))
    assert values.numpy().tolist() == [[5.0, 3.0, 2.0, 1.0]] and indices.numpy().tolist() == [[1, 2, 3, 0]]
