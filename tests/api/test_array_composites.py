"""reverse, roll, repeat, boolean_mask, sequence_mask, tensordot, matvec, unique,
searchsorted and the shape helpers: against NumPy references (and TensorFlow 2.21's results
where NumPy's conventions differ), eagerly and traced, with gradients where they flow."""

import numpy as np
import pytest

import tfunc as tf

RNG = np.random.default_rng(3)
X = RNG.normal(size=(4, 3)).astype(np.float32)
V = np.array([3, 1, 4, 1, 5, 9, 2, 6], np.int32)


def both(fn, *args):
    def as_np(r):
        return [np.asarray(t) for t in r] if isinstance(r, (tuple, list)) else np.asarray(r)

    return [as_np(fn(*args)), as_np(tf.function(fn)(*args))]


@pytest.mark.parametrize(
    "fn, ref",
    [
        (lambda x: tf.reverse(x, [0, 1]), lambda x: x[::-1, ::-1]),
        (lambda x: tf.reverse(x, [-1]), lambda x: x[:, ::-1]),
        (lambda x: tf.roll(x, [1, -2], [0, 1]), lambda x: np.roll(x, (1, -2), (0, 1))),
        (lambda x: tf.roll(x, 10, 0), lambda x: np.roll(x, 10, 0)),
        (lambda x: tf.repeat(x, 2, axis=1), lambda x: np.repeat(x, 2, axis=1)),
        (lambda x: tf.repeat(x, [0, 1, 2, 3], axis=0), lambda x: np.repeat(x, [0, 1, 2, 3], axis=0)),
        (lambda x: tf.repeat(x, 2), lambda x: np.repeat(x, 2)),
        (lambda x: tf.boolean_mask(x, x[:, 0] > 0), lambda x: x[x[:, 0] > 0]),
        (lambda x: tf.boolean_mask(x, x > 0), lambda x: x[x > 0]),
        (lambda x: tf.boolean_mask(x, [True, False, True], axis=1), lambda x: x[:, [0, 2]]),
        (lambda x: tf.tensordot(x, tf.transpose(x), 1), lambda x: x @ x.T),
        (lambda x: tf.tensordot(x, x, [[0], [0]]), lambda x: np.tensordot(x, x, [[0], [0]])),
        (lambda x: tf.tensordot(x[0], x[1], 0), lambda x: np.multiply.outer(x[0], x[1])),
        (lambda x: tf.linalg.matvec(x, tf.ones([3])), lambda x: x @ np.ones(3)),
        (lambda x: tf.linalg.matvec(x, tf.ones([4]), transpose_a=True), lambda x: x.T @ np.ones(4)),
    ],
)
def test_values_match_numpy(fn, ref):
    want = ref(X)
    for got in both(fn, tf.constant(X)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_roll_and_boolean_mask_with_shapes_known_at_run_time():
    f = tf.function(
        lambda x, k: (tf.roll(x, k, 0), tf.boolean_mask(x, x > 0)),
        input_signature=[tf.TensorSpec([None]), tf.TensorSpec([], tf.int32)],
    )
    rolled, masked = f(tf.constant([1.0, -2.0, 3.0]), tf.constant(-1))
    assert rolled.numpy().tolist() == [-2.0, 3.0, 1.0] and masked.numpy().tolist() == [1.0, 3.0]


def test_roll_of_an_empty_axis_is_the_empty_tensor():
    for got in both(lambda x: tf.roll(x, 1, 0), tf.zeros([0, 2])):
        assert got.shape == (0, 2)


def test_sequence_mask():
    for got in both(lambda: tf.sequence_mask([1, 3, 0])):
        assert got.tolist() == [[True, False, False], [True, True, True], [False, False, False]]
    m = tf.sequence_mask([[1, 2], [3, 0]], 4, dtype=tf.float32)
    assert m.dtype == tf.float32 and m.numpy().tolist() == [[[1, 0, 0, 0], [1, 1, 0, 0]], [[1, 1, 1, 0], [0, 0, 0, 0]]]


def test_unique_keeps_first_appearance_order():
    for y, idx in both(tf.unique, tf.constant(V)):
        assert y.tolist() == [3, 1, 4, 5, 9, 2, 6] and idx.tolist() == [0, 1, 2, 1, 3, 4, 5, 6]
    y, idx = tf.unique(tf.constant(["b", "a", "b"]), out_idx=tf.int64)
    assert y.numpy().tolist() == [b"b", b"a"] and idx.dtype == tf.int64 and idx.numpy().tolist() == [0, 1, 0]
    assert tf.function(lambda t: tf.unique(t).y)(tf.constant([5.0, 3.0, 5.0])).shape == (2,)
    with pytest.raises(tf.errors.InvalidArgumentError, match="vector"):
        tf.unique(tf.ones([2, 2]))


def test_searchsorted_per_row_and_side():
    seq, values = tf.constant([[0, 3, 9, 10, 10], [1, 2, 3, 4, 5]]), tf.constant([[2, 4, 9], [0, 2, 6]])
    for got in both(tf.searchsorted, seq, values):
        assert got.tolist() == [[1, 2, 2], [0, 1, 5]]
    right = tf.searchsorted(tf.constant([1.0, 2.0, 2.0, 3.0]), tf.constant([2.0, 0.0, 5.0]), side="right")
    assert right.numpy().tolist() == [3, 0, 4]
    with pytest.raises(ValueError, match="side"):
        tf.searchsorted(seq, values, side="middle")


def test_shape_helpers():
    assert tf.broadcast_dynamic_shape(tf.constant([2, 1, 3]), tf.constant([4, 1])).numpy().tolist() == [2, 4, 3]
    assert tf.broadcast_static_shape(tf.TensorShape([2, None, 3]), tf.TensorShape([4, 1])).as_list() == [2, 4, 3]
    sizes = tf.shape_n([tf.ones([2, 3]), tf.ones([4])])
    assert [s.numpy().tolist() for s in sizes] == [[2, 3], [4]]
    a, b = tf.identity_n([tf.constant(1), tf.constant(2.0)])
    assert a.numpy() == 1 and b.numpy() == 2.0


def test_gradients_flow_through_the_composites():
    w = tf.constant([0.5, -0.3, 1.5])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(w)
        rolled = tf.reduce_sum(tf.roll(w, 1, 0) * w)
        repeated = tf.reduce_sum(tf.repeat(w, [1, 2, 0], axis=0) ** 2)
        masked = tf.reduce_sum(tf.boolean_mask(w, w > 0.2) ** 2)
    np.testing.assert_allclose(tape.gradient(rolled, w).numpy(), [1.5 - 0.3, 0.5 + 1.5, -0.3 + 0.5], rtol=1e-6)
    np.testing.assert_allclose(tape.gradient(repeated, w).numpy(), [1.0, -1.2, 0.0], rtol=1e-6)
    np.testing.assert_allclose(tape.gradient(masked, w).numpy(), [1.0, 0.0, 3.0], rtol=1e-6)


def test_tensordot_axes_forms():
    a, b = tf.ones([2, 3, 4]), tf.ones([2, 3])
    assert tf.tensordot(a, b, axes=[0, 0]).shape == (3, 4, 3)  # one axis each, not N = 0
    assert tf.tensordot(a, b, tf.constant([[0, 1], [0, 1]])).numpy().tolist() == [6.0] * 4
    assert tf.tensordot(a, b, np.array([[0, 1], [0, 1]])).shape == (4,)
    assert tf.tensordot(a, b, 0).shape == (2, 3, 4, 2, 3)


def test_searchsorted_places_nan_as_tensorflow_for_any_number_of_rows():
    nan = float("nan")
    two_rows = tf.constant([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]])
    assert tf.searchsorted(two_rows, tf.constant([[nan], [2.0]]), side="right").numpy().tolist() == [[3], [2]]
    assert tf.searchsorted(two_rows, tf.constant([[nan], [2.0]])).numpy().tolist() == [[0], [1]]
    one_row = tf.constant([1.0, 2.0, 3.0])
    assert tf.searchsorted(one_row, tf.constant([nan]), side="right").numpy().tolist() == [3]
    assert tf.searchsorted(one_row, tf.constant([nan])).numpy().tolist() == [0]


def test_roll_by_a_shift_past_int32():
    assert tf.roll(tf.range(5), 2**31 + 3, 0).numpy().tolist() == np.roll(np.arange(5), 2**31 + 3).tolist()
    assert tf.roll(tf.range(5), -7, 0).numpy().tolist() == [2, 3, 4, 0, 1]
