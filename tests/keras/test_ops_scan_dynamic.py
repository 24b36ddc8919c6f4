"""``keras.ops.scan``, ``associative_scan`` and ``array_split`` over an axis whose length is
known only at run time (a ``tf.function`` whose input signature leaves it None): they run as
a graph loop or as slices instead of refusing the unknown length.  Expected values: TF 2.21 /
Keras 3.15 on the same calls."""

import numpy as np
import pytest

import tfunc as tf

ops = tf.keras.ops


def _rows(n, cols=2, start=0.0):
    return tf.constant(np.arange(start, start + n * cols).reshape(n, cols), "float32")


def _carry_and_ys(**scan_args):
    def fn(a):
        return ops.scan(lambda c, x: (c + x, c), ops.zeros_like(a[0]), a, **scan_args)

    return tf.function(fn, input_signature=[tf.TensorSpec([None, 2])])


def test_scan_over_an_unknown_length():
    # TF 2.21 gives carry [6, 9] and ys [[0, 0], [0, 1], [2, 4]] (tfunc: TypeError int(None))
    carry, ys = _carry_and_ys()(_rows(3))
    np.testing.assert_array_equal(carry.numpy(), [6.0, 9.0])
    np.testing.assert_array_equal(ys.numpy(), [[0, 0], [0, 1], [2, 4]])


def test_scan_over_an_unknown_length_in_reverse():
    # TF 2.21 gives carry [6, 9] and ys [[6, 8], [4, 5], [0, 0]]
    carry, ys = _carry_and_ys(reverse=True)(_rows(3))
    np.testing.assert_array_equal(carry.numpy(), [6.0, 9.0])
    np.testing.assert_array_equal(ys.numpy(), [[6, 8], [4, 5], [0, 0]])


def test_scan_over_an_unknown_length_with_a_tuple_carry_and_no_ys():
    def fn(a):
        init = (ops.zeros((2,)), ops.convert_to_tensor(1))
        return ops.scan(lambda c, x: ((c[0] + x, c[1] * 2 + 1), (c[0] * 2.0, c[1] + 1)), init, a)

    # TF 2.21 gives carry ([6, 9], 15) and ys ([[0, 0], [0, 2], [4, 8]], [2, 4, 8])
    (total, count), (doubled, counts) = tf.function(fn, input_signature=[tf.TensorSpec([None, 2])])(_rows(3))
    np.testing.assert_array_equal(total.numpy(), [6.0, 9.0])
    assert int(count) == 15
    np.testing.assert_array_equal(doubled.numpy(), [[0, 0], [0, 2], [4, 8]])
    np.testing.assert_array_equal(counts.numpy(), [2, 4, 8])
    # TF 2.21 gives zeros shaped as the carry, one row per step, when f's y is None
    none_ys = tf.function(
        lambda a: ops.scan(lambda c, x: (c + x, None), ops.zeros_like(a[0]), a)[1],
        input_signature=[tf.TensorSpec([None, 2])],
    )
    np.testing.assert_array_equal(none_ys(_rows(3)).numpy(), np.zeros((3, 2)))


def test_scan_over_an_empty_run_time_length():
    # TF 2.21 gives the initial carry and ys of shape (0, 2)
    carry, ys = _carry_and_ys()(tf.zeros((0, 2)))
    np.testing.assert_array_equal(carry.numpy(), [0.0, 0.0])
    assert ys.shape == (0, 2)


def test_scan_over_an_unknown_length_differentiates():
    scan = tf.function(
        lambda a: ops.scan(lambda c, x: (c * x, c), ops.ones_like(a[0]), a)[0],
        input_signature=[tf.TensorSpec([None, 2])],
    )
    x = tf.Variable(np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], "float32"))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(scan(x))
    # TF 2.21 gives [[15, 24], [5, 12], [3, 8]]
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [[15, 24], [5, 12], [3, 8]])


@pytest.mark.parametrize(
    ("reverse", "expected"),
    [(False, [[0, 1, 3, 6, 10], [5, 11, 18, 26, 35]]), (True, [[10, 10, 9, 7, 4], [35, 30, 24, 17, 9]])],
)
def test_associative_scan_over_an_unknown_axis(reverse, expected):
    scan = tf.function(
        lambda a: ops.associative_scan(lambda p, q: p + q, a, reverse=reverse, axis=1),
        input_signature=[tf.TensorSpec([2, None])],
    )
    # TF 2.21 gives these (tfunc raised "needs every element's `axis` of one length known")
    np.testing.assert_array_equal(scan(_rows(2, 5)).numpy(), expected)


def test_associative_scan_over_an_unknown_negative_axis_of_a_structure():
    def fn(a):
        return ops.associative_scan(lambda p, q: (p[0] + q[0], p[1] * q[1]), (a, a + 1.0), axis=-2)

    # Keras 3.15 gives these eagerly (its tf.function path fails on a structure of two elements)
    total, product = tf.function(fn, input_signature=[tf.TensorSpec([None, None])])(_rows(3))
    np.testing.assert_array_equal(total.numpy(), [[0, 1], [2, 4], [6, 9]])
    np.testing.assert_array_equal(product.numpy(), [[1, 2], [3, 8], [15, 48]])


def test_associative_scan_over_an_empty_run_time_axis():
    scan = tf.function(
        lambda a: ops.associative_scan(lambda p, q: p + q, a), input_signature=[tf.TensorSpec([None, 2])]
    )
    # TF 2.21 gives shape (0, 2)
    assert scan(tf.zeros((0, 2))).shape == (0, 2)


@pytest.mark.parametrize(("sections", "axis"), [(2, 1), (3, -1)])
def test_array_split_of_an_unknown_axis(sections, axis):
    split = tf.function(lambda a: ops.array_split(a, sections, axis=axis), input_signature=[tf.TensorSpec([2, None])])
    x = _rows(2, 5)
    # NumPy's sections, as Keras 3.15 splits a known axis: [0:3] [3:5] and [0:2] [2:4] [4:5].
    # (Keras's TensorFlow backend returns one piece for an unknown axis: its size list is
    # `[q + 1] * r + [q] * (s - r)` with tensors q and r, which adds up to [n].)
    pieces = split(x)
    expected = np.array_split(x.numpy(), sections, axis=axis)
    assert len(pieces) == sections
    for piece, want in zip(pieces, expected):
        np.testing.assert_array_equal(piece.numpy(), want)


def test_array_split_of_an_unknown_axis_into_more_sections_than_elements():
    split = tf.function(lambda a: ops.array_split(a, 4), input_signature=[tf.TensorSpec([None], "int32")])
    # NumPy gives [1] [2] [3] []
    assert [p.numpy().tolist() for p in split(tf.constant([1, 2, 3]))] == [[1], [2], [3], []]
