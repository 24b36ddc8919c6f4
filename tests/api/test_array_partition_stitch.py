"""unravel_index, dynamic_partition, dynamic_stitch and reverse_sequence: TensorFlow 2.21's
results (literals) and NumPy formulas on random inputs, eagerly and inside tf.function, with
TensorFlow's gradients and errors."""

import numpy as np
import pytest

import tfunc as tf

RNG = np.random.default_rng(14)


def both(fn, *args):
    def as_np(r):
        return [np.asarray(t) for t in r] if isinstance(r, (tuple, list)) else np.asarray(r)

    return [as_np(fn(*args)), as_np(tf.function(fn)(*args))]


def test_unravel_index_tf_values():
    for got in both(lambda i, d: tf.unravel_index(i, d), np.array([1, 5, 7, 0], np.int32), np.array([2, 4], np.int32)):
        np.testing.assert_array_equal(got, [[0, 1, 1, 0], [1, 1, 3, 0]])  # TensorFlow 2.21
        assert got.dtype == np.int32
    for got in both(lambda i: tf.unravel_index(i, np.array([2, 4], np.int64)), np.int64(5)):
        np.testing.assert_array_equal(got, [1, 1])
        assert got.dtype == np.int64


def test_unravel_index_random_and_empty():
    dims = np.array([3, 5, 2], np.int32)
    idx = RNG.integers(0, 30, 17).astype(np.int32)
    for got in both(lambda i: tf.unravel_index(i, dims), idx):
        np.testing.assert_array_equal(got, np.stack(np.unravel_index(idx, (3, 5, 2))))
    for got in both(lambda i: tf.unravel_index(i, dims), np.zeros((0,), np.int32)):
        assert got.shape == (3, 0)


def test_unravel_index_errors():
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.unravel_index(8, [2, 4])  # TensorFlow: "index is out of bound as with dims"
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.unravel_index(np.zeros((2, 2), np.int32), [2, 4])  # scalar or vector only


def test_dynamic_partition_tf_values():
    data = np.arange(6.0).reshape(3, 2)
    for got in both(lambda d, p: tf.dynamic_partition(d, p, 3), data, np.array([1, 0, 1], np.int32)):
        np.testing.assert_array_equal(got[0], [[2.0, 3.0]])
        np.testing.assert_array_equal(got[1], [[0.0, 1.0], [4.0, 5.0]])
        assert got[2].shape == (0, 2)


def test_dynamic_partition_random_2d_partitions():
    data = RNG.normal(size=(4, 5, 3)).astype(np.float32)
    parts = RNG.integers(0, 3, (4, 5)).astype(np.int32)
    for got in both(lambda d, p: tf.dynamic_partition(d, p, 3), data, parts):
        for i in range(3):
            np.testing.assert_array_equal(got[i], data[parts == i])
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.dynamic_partition(data, np.full((4, 5), 3, np.int32), 3)


def test_dynamic_partition_gradient():
    # TensorFlow's rule: the output gradients stitched back, zeros for slices in unused parts
    data = RNG.normal(size=(5, 2))
    parts = np.array([2, 0, 2, 1, 0], np.int32)

    def grad(d, p):
        with tf.GradientTape() as t:
            t.watch(d)
            out = tf.dynamic_partition(d, p, 3)
            loss = tf.reduce_sum(out[2] * out[2]) + tf.reduce_sum(out[1])
        return t.gradient(loss, d)

    want = np.where((parts == 2)[:, None], 2 * data, 0.0) + (parts == 1)[:, None]
    for got in both(grad, tf.constant(data), parts):
        np.testing.assert_allclose(got, want)


def test_dynamic_stitch_tf_values():
    got = tf.dynamic_stitch([[0, 2], [1]], [[[1.0, 2], [3, 4]], [[5, 6]]])
    np.testing.assert_array_equal(got, [[1.0, 2], [5, 6], [3, 4]])  # TensorFlow 2.21
    assert got.dtype == tf.float32
    empty = tf.dynamic_stitch([np.zeros((0,), np.int32)], [np.zeros((0, 3), np.float32)])
    assert empty.shape == (0, 3)


def test_dynamic_stitch_random_roundtrip_and_holes():
    data = RNG.normal(size=(6, 2)).astype(np.float32)
    parts = np.array([1, 0, 1, 1, 0, 2], np.int32)

    def roundtrip(d, p):
        pieces = tf.dynamic_partition(d, p, 3)
        where = tf.dynamic_partition(tf.range(6), p, 3)
        return tf.dynamic_stitch(where, pieces)

    for got in both(roundtrip, data, parts):
        np.testing.assert_array_equal(got, data)
    # rows named by no index are zero; a repeated index: the last piece wins (TensorFlow 2.21)
    for got in both(
        lambda a, b: tf.dynamic_stitch([[3, 0], [0]], [a, b]), np.float32([[1, 1], [2, 2]]), np.float32([[7, 7]])
    ):
        np.testing.assert_array_equal(got, [[7, 7], [0, 0], [0, 0], [1, 1]])


def test_dynamic_stitch_gradient_repeated_index():
    # TensorFlow 2.21: d/dx of dynamic_stitch([[0, 0]], [x[0]]) is [[1, 1]] (each piece
    # naming a row gets its gradient, though only the last one is kept)
    def grad(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.dynamic_stitch([[0, 0]], [x[0]])
        return t.gradient(y, x)

    for got in both(grad, tf.constant([[1.0, 2.0]])):
        np.testing.assert_array_equal(got, [[1.0, 1.0]])


def _reverse_sequence_ref(x, lengths, seq_axis, batch_axis):
    out = np.array(x)
    for b, n in enumerate(lengths):
        sel = [slice(None)] * x.ndim
        sel[batch_axis], sel[seq_axis] = b, slice(0, n)
        out[tuple(sel)] = np.flip(x[tuple(sel)], axis=seq_axis - (batch_axis < seq_axis))
    return out


def test_reverse_sequence_tf_values():
    for got in both(
        lambda x: tf.reverse_sequence(x, [2, 0], seq_axis=1, batch_axis=0), np.int32([[1, 2, 3], [4, 5, 6]])
    ):
        np.testing.assert_array_equal(got, [[2, 1, 3], [4, 5, 6]])  # TensorFlow 2.21
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.reverse_sequence([[1, 2, 3], [4, 5, 6]], [4, 0], seq_axis=1, batch_axis=0)


@pytest.mark.parametrize("seq_axis, batch_axis", [(1, 0), (0, 2), (2, 1), (2, 0)])
def test_reverse_sequence_random(seq_axis, batch_axis):
    x = RNG.normal(size=(3, 4, 5)).astype(np.float32)
    b = x.shape[batch_axis]
    lengths = RNG.integers(0, x.shape[seq_axis] + 1, b).astype(np.int64)
    want = _reverse_sequence_ref(x, lengths, seq_axis % 3, batch_axis)
    for got in both(lambda v: tf.reverse_sequence(v, lengths, seq_axis, batch_axis), x):
        np.testing.assert_array_equal(got, want)


def test_reverse_sequence_gradient_and_empty():
    x = RNG.normal(size=(3, 2))
    w = RNG.normal(size=(3, 2))

    def grad(v):
        with tf.GradientTape() as t:
            t.watch(v)
            loss = tf.reduce_sum(tf.reverse_sequence(v, [1, 2], seq_axis=0, batch_axis=1) * w)
        return t.gradient(loss, v)

    for got in both(grad, tf.constant(x)):
        np.testing.assert_allclose(got, _reverse_sequence_ref(w, [1, 2], 0, 1))
    for got in both(lambda v: tf.reverse_sequence(v, np.zeros((0,), np.int32), 1, 0), np.zeros((0, 3), np.float32)):
        assert got.shape == (0, 3)


def _space_to_batch_ref(x, block, pads):
    """TensorFlow's definition, element by element: out[(i * b1 + j) * n + k, h, w] =
    padded[k, h * b0 + i, w * b1 + j]."""
    p = np.pad(x, [(0, 0)] + pads + [(0, 0)] * (x.ndim - 3))
    (b0, b1), n = block, x.shape[0]
    out = np.zeros((n * b0 * b1, p.shape[1] // b0, p.shape[2] // b1) + x.shape[3:], x.dtype)
    for i in range(b0):
        for j in range(b1):
            for k in range(n):
                out[(i * b1 + j) * n + k] = p[k, i::b0, j::b1]
    return out


def test_space_to_batch_and_back_with_gradients():
    x = RNG.normal(size=(2, 3, 5, 2))
    w = RNG.normal(size=(12, 2, 3, 2))
    pads = [[1, 0], [2, 2]]

    def run(v):
        with tf.GradientTape() as t:
            t.watch(v)
            y = tf.space_to_batch(v, [2, 3], pads)
            loss = tf.reduce_sum(y * w)
        return y, t.gradient(loss, v), tf.batch_to_space(y, [2, 3], pads)

    # the gradient of sum(y * w): w moved back to the unpadded positions it came from
    want_grad = np.zeros_like(x)
    for v in np.ndindex(*x.shape):
        e = np.zeros_like(x)
        e[v] = 1
        want_grad[v] = np.sum(_space_to_batch_ref(e, (2, 3), pads) * w)
    for y, g, back in both(run, tf.constant(x)):
        np.testing.assert_array_equal(y, _space_to_batch_ref(x, (2, 3), pads))
        np.testing.assert_allclose(g, want_grad)
        np.testing.assert_array_equal(back, x)
    np.testing.assert_array_equal(tf.space_to_batch_nd(x, [2, 3], pads), _space_to_batch_ref(x, (2, 3), pads))


def test_batch_to_space_int_block_and_errors():
    # TensorFlow 2.21: an int block_shape is that block along two spatial dimensions
    x = RNG.normal(size=(4, 2, 2, 1)).astype(np.float32)
    full = np.asarray(tf.batch_to_space(x, 2, [[0, 0], [0, 0]]))
    np.testing.assert_array_equal(_space_to_batch_ref(full, (2, 2), [[0, 0], [0, 0]]), x)
    for got in both(lambda v: tf.batch_to_space(v, 2, [[0, 0], [0, 1]]), x):
        np.testing.assert_array_equal(got, full[:, :, :3])  # the crop: the last column off
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.space_to_batch(np.zeros((1, 3, 4, 1)), [2, 2], [[0, 0], [0, 0]])  # 3 is not divisible by 2


def test_bincount_has_no_gradient_as_tf():
    weights = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        total = tf.reduce_sum(tf.math.bincount(tf.constant([0, 1, 1]), weights=weights))
    with pytest.raises(LookupError, match="DenseBincount"):
        tape.gradient(total, weights)


def test_roll_takes_a_vector_of_shifts_as_an_array_or_tensor():
    x = np.arange(24.0).reshape(2, 3, 4)
    expected = np.roll(x, (1, -1), (0, 2))
    np.testing.assert_array_equal(tf.roll(x, np.array([1, -1]), [0, 2]), expected)
    np.testing.assert_array_equal(tf.roll(x, tf.constant([1, -1]), [0, 2]), expected)
