"""pad, gather_nd, scatter_nd, tensor_scatter_nd_*, meshgrid, segment reductions, sort,
argsort and top_k against the examples of TensorFlow's documentation."""

import numpy as np
import pytest

import tfunc as tf


def test_pad_modes_as_documented():
    t = tf.constant([[1, 2, 3], [4, 5, 6]])
    paddings = tf.constant([[1, 1], [2, 2]])
    assert tf.pad(t, paddings, "CONSTANT").numpy().tolist() == [
        [0, 0, 0, 0, 0, 0, 0],
        [0, 0, 1, 2, 3, 0, 0],
        [0, 0, 4, 5, 6, 0, 0],
        [0, 0, 0, 0, 0, 0, 0],
    ]
    assert tf.pad(t, paddings, "REFLECT").numpy().tolist() == [
        [6, 5, 4, 5, 6, 5, 4],
        [3, 2, 1, 2, 3, 2, 1],
        [6, 5, 4, 5, 6, 5, 4],
        [3, 2, 1, 2, 3, 2, 1],
    ]
    assert tf.pad(t, paddings, "SYMMETRIC").numpy().tolist() == [
        [2, 1, 1, 2, 3, 3, 2],
        [2, 1, 1, 2, 3, 3, 2],
        [5, 4, 4, 5, 6, 6, 5],
        [5, 4, 4, 5, 6, 6, 5],
    ]
    assert tf.pad(t, [[0, 0], [1, 0]], constant_values=9).numpy().tolist() == [[9, 1, 2, 3], [9, 4, 5, 6]]


def test_pad_limits_and_gradients():
    t = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="REFLECT paddings must be at most 1"):
        tf.pad(t, [[2, 0], [0, 0]], "REFLECT")
    with pytest.raises(tf.errors.InvalidArgumentError, match="one \\[before, after\\] pair per dimension"):
        tf.pad(t, [[1, 1]])
    with pytest.raises(ValueError, match="mode"):
        tf.pad(t, [[1, 1], [1, 1]], "WRAP")
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(t)
        reflect = tf.reduce_sum(tf.pad(t, [[1, 1], [2, 2]], "REFLECT"))
        symmetric = tf.reduce_sum(tf.pad(t, [[1, 0], [1, 0]], "SYMMETRIC"))
    # Each element's gradient counts its copies in the padded tensor (the documented REFLECT
    # example above holds 1 four times, 2 six times...).
    np.testing.assert_array_equal(tape.gradient(reflect, t).numpy(), [[4, 6, 4], [4, 6, 4]])
    np.testing.assert_array_equal(tape.gradient(symmetric, t).numpy(), [[4, 2, 2], [2, 1, 1]])


def test_gather_nd_as_documented():
    out = tf.gather_nd(indices=[[0, 0], [1, 1]], params=[["a", "b"], ["c", "d"]])
    assert out.numpy().tolist() == [b"a", b"d"]
    out = tf.gather_nd(indices=[[1], [0]], params=[["a", "b"], ["c", "d"]])
    assert out.numpy().tolist() == [[b"c", b"d"], [b"a", b"b"]]
    params = [[["a0", "b0"], ["c0", "d0"]], [["a1", "b1"], ["c1", "d1"]]]
    out = tf.gather_nd(indices=[[1], [0]], params=params, batch_dims=1)
    assert out.numpy().tolist() == [[b"c0", b"d0"], [b"a1", b"b1"]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="does not index"):
        tf.gather_nd(tf.ones([2, 2]), [[0, 2]])


def test_scatter_ops_as_documented():
    indices = tf.constant([[4], [3], [1], [7]])
    updates = tf.constant([9, 10, 11, 12])
    assert tf.scatter_nd(indices, updates, tf.constant([8])).numpy().tolist() == [0, 11, 0, 10, 9, 0, 0, 12]
    tensor = tf.zeros([8], tf.int32)
    got = tf.tensor_scatter_nd_update(tensor, [[1], [3], [4], [7]], updates)
    assert got.numpy().tolist() == [0, 9, 0, 10, 11, 0, 0, 12]
    tensor = tf.constant([1, 2, 3, 4, 5, 6, 7, 8])
    assert tf.tensor_scatter_nd_add(tensor, indices, updates).numpy().tolist() == [1, 13, 3, 14, 14, 6, 7, 20]
    assert tf.tensor_scatter_nd_sub(tensor, indices, updates).numpy().tolist() == [1, -9, 3, -6, -4, 6, 7, -4]
    # repeated indices add up in scatter_nd
    assert tf.scatter_nd([[0], [0]], [1.0, 2.0], [2]).numpy().tolist() == [3.0, 0.0]
    with pytest.raises(tf.errors.InvalidArgumentError, match="updates must have shape"):
        tf.scatter_nd([[0], [1]], [1.0, 2.0, 3.0], [4])


def test_scatter_update_gradient_skips_overwritten_elements():
    t = tf.constant([1.0, 2.0, 3.0])
    u = tf.constant([10.0])
    with tf.GradientTape() as tape:
        tape.watch([t, u])
        y = tf.reduce_sum(tf.tensor_scatter_nd_update(t, [[1]], u) * tf.constant([1.0, 2.0, 3.0]))
    dt, du = tape.gradient(y, [t, u])
    assert dt.numpy().tolist() == [1.0, 0.0, 3.0] and du.numpy().tolist() == [2.0]


def test_meshgrid_as_documented():
    x, y = [1, 2, 3], [4, 5, 6]
    X, Y = tf.meshgrid(x, y)
    assert X.numpy().tolist() == [[1, 2, 3]] * 3
    assert Y.numpy().tolist() == [[4, 4, 4], [5, 5, 5], [6, 6, 6]]
    a, b, c = tf.meshgrid([1.0, 2.0], [3.0, 4.0, 5.0], [6.0], indexing="ij")
    ea, eb, ec = np.meshgrid([1.0, 2.0], [3.0, 4.0, 5.0], [6.0], indexing="ij")
    for got, want in ((a, ea), (b, eb), (c, ec)):
        np.testing.assert_array_equal(got.numpy(), want)
    X, Y = tf.function(lambda u, v: tf.meshgrid(u, v), input_signature=[tf.TensorSpec([None])] * 2)(
        tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0, 5.0])
    )
    np.testing.assert_array_equal(X.numpy(), np.meshgrid([1.0, 2.0], [3.0, 4.0, 5.0])[0])


def test_segment_reductions_as_documented():
    c = tf.constant([[1, 2, 3, 4], [4, 3, 2, 1], [5, 6, 7, 8]])
    assert tf.math.segment_sum(c, tf.constant([0, 0, 1])).numpy().tolist() == [[5, 5, 5, 5], [5, 6, 7, 8]]
    assert tf.math.segment_mean(c, [0, 0, 1]).numpy().tolist() == [[2, 2, 2, 2], [5, 6, 7, 8]]
    assert tf.math.segment_max(c, [0, 0, 1]).numpy().tolist() == [[4, 3, 3, 4], [5, 6, 7, 8]]
    assert tf.math.segment_min(c, [0, 0, 1]).numpy().tolist() == [[1, 2, 2, 1], [5, 6, 7, 8]]
    got = tf.math.unsorted_segment_sum(c, tf.constant([0, 1, 0]), num_segments=2)
    assert got.numpy().tolist() == [[6, 8, 10, 12], [4, 3, 2, 1]]
    got = tf.math.unsorted_segment_max(c, tf.constant([0, 1, 0]), num_segments=2)
    assert got.numpy().tolist() == [[5, 6, 7, 8], [4, 3, 2, 1]]


def test_empty_segments_and_checks():
    data = tf.constant([1.0, 2.0, 3.0])
    assert tf.math.segment_sum(data, [0, 0, 2]).numpy().tolist() == [3.0, 0.0, 3.0]
    assert tf.math.segment_max(data, [0, 0, 2]).numpy().tolist() == [2.0, 0.0, 3.0]  # empty: 0
    lowest = float(np.finfo(np.float32).min)
    assert tf.math.unsorted_segment_max(data, [0, 0, 2], 3).numpy().tolist() == [2.0, lowest, 3.0]
    assert tf.math.unsorted_segment_sum(data, [0, -1, 1], 2).numpy().tolist() == [1.0, 3.0]  # -1 dropped
    with pytest.raises(tf.errors.InvalidArgumentError, match="sorted"):
        tf.math.segment_sum(data, [1, 0, 2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="out of range"):
        tf.math.unsorted_segment_sum(data, [0, 3, 1], 2)
    x = tf.constant([1.0, 5.0, 5.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.math.segment_max(x, [0, 0, 0, 1])
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [0.0, 0.5, 0.5, 1.0])  # ties share


def test_num_segments_may_be_a_tensor_inside_a_function():
    # graph code passes tf.shape(nodes)[0]: known while tracing or only at run time, as TF allows
    data, ids = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), tf.constant([0, 2, 0])

    @tf.function
    def by_shape(nodes, data, ids):
        return tf.math.unsorted_segment_sum(data, ids, tf.shape(nodes)[0])

    @tf.function(
        input_signature=[tf.TensorSpec([None, 2]), tf.TensorSpec([None], tf.int32), tf.TensorSpec([], tf.int32)]
    )
    def at_run_time(data, ids, n):
        return tf.math.unsorted_segment_max(data, ids, n), tf.math.unsorted_segment_mean(data, ids, n)

    got = by_shape(tf.zeros([4, 1]), data, ids)
    assert got.shape == (4, 2) and got.numpy().tolist() == [[6, 8], [0, 0], [3, 4], [0, 0]]
    high, mean = at_run_time(data, ids, tf.constant(3))
    lowest = float(np.finfo(np.float32).min)
    assert high.numpy().tolist() == [[5, 6], [lowest, lowest], [3, 4]]
    assert mean.numpy().tolist() == [[3, 4], [0, 0], [3, 4]]
    assert at_run_time.get_concrete_function().structured_outputs[0].shape.as_list() == [None, 2]
    with pytest.raises(tf.errors.InvalidArgumentError, match="out of range"):
        at_run_time(data, ids, tf.constant(2))

    @tf.function
    def grad(data, ids, n):
        with tf.GradientTape() as tape:
            tape.watch(data)
            y = tf.reduce_sum(tf.math.unsorted_segment_max(data, ids, n) * [[1.0, 2.0]])
        return tape.gradient(y, data)

    assert grad(data, ids, tf.constant(3)).numpy().tolist() == [[0, 0], [1, 2], [1, 2]]


def test_segment_sqrt_n_and_integer_mean_take_inputs_of_unknown_rank():
    @tf.function(input_signature=[tf.TensorSpec(None, tf.float32), tf.TensorSpec(None, tf.int32)])
    def f(data, ids):
        return tf.math.unsorted_segment_sqrt_n(data, ids, 2), tf.math.unsorted_segment_mean(
            tf.cast(data, tf.int32), ids, 2
        )

    root_n, mean = f(tf.constant([[1.0, 2.0], [3.0, 4.0], [2.0, 3.0]]), tf.constant([0, 0, 1]))
    np.testing.assert_allclose(root_n.numpy(), [[4 / np.sqrt(2), 6 / np.sqrt(2)], [2, 3]], rtol=1e-6)  # TF 2.21
    assert mean.dtype == tf.float64 and mean.numpy().tolist() == [[2, 3], [2, 3]]


def test_bincount_with_axis_minus_one_counts_a_vector_as_a_whole():
    assert tf.math.bincount(tf.constant([1, 2, 2]), axis=-1).numpy().tolist() == [0, 1, 2]  # TF 2.21
    got = tf.math.bincount(tf.constant([1, 2, 2]), weights=[1.0, 2.0, 3.0], axis=-1, minlength=5)
    assert got.numpy().tolist() == [0, 1, 5, 0, 0]


def test_sort_argsort_top_k_as_documented():
    a = [1, 10, 26.9, 2.8, 166.32, 62.3]
    np.testing.assert_allclose(tf.sort(a).numpy(), [1, 2.8, 10, 26.9, 62.3, 166.32])
    np.testing.assert_allclose(tf.sort(a, direction="DESCENDING").numpy(), [166.32, 62.3, 26.9, 10, 2.8, 1])
    assert tf.argsort(a).numpy().tolist() == [0, 3, 1, 2, 5, 4]
    assert tf.argsort(a).dtype is tf.int32
    values, indices = tf.math.top_k([1, 2, 98, 1, 1, 99, 3, 1, 3, 96, 4, 1], k=3)
    assert values.numpy().tolist() == [99, 98, 96] and indices.numpy().tolist() == [5, 2, 9]
    v, i = tf.math.top_k([[3.0, 1.0, 3.0, 2.0]], k=2)  # ties: the lower index first
    assert v.numpy().tolist() == [[3.0, 3.0]] and i.numpy().tolist() == [[0, 2]]
    assert tf.argsort([2, 1, 2, 1], direction="DESCENDING", stable=True).numpy().tolist() == [0, 2, 1, 3]
    with pytest.raises(tf.errors.InvalidArgumentError, match="at least k=5"):
        tf.math.top_k([1.0, 2.0], k=5)


def test_top_k_gradient_and_in_function():
    x = tf.constant([[0.5, 2.0, -1.0, 3.0]])

    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            v, _ = tf.math.top_k(x, k=2)
            y = tf.reduce_sum(v * tf.constant([[10.0, 1.0]]))
        return v, tape.gradient(y, x)

    v, g = f(x)
    assert v.numpy().tolist() == [[3.0, 2.0]] and g.numpy().tolist() == [[0.0, 1.0, 0.0, 10.0]]
