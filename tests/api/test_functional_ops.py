"""map_fn, scan, foldl/foldr, case, switch_case, executing_eagerly and name_scope: eagerly
(Python loops) and traced (one while_loop over TensorArrays), against TensorFlow 2.21's
results, with gradients through the traced loops."""

import numpy as np
import pytest

import tfunc as tf

V = tf.constant([3, 1, 4, 1, 5, 9, 2, 6])


def both(fn, *args):
    def as_np(r):
        return [np.asarray(t) for t in r] if isinstance(r, (tuple, list)) else np.asarray(r)

    return [as_np(fn(*args)), as_np(tf.function(fn)(*args))]


def test_map_fn():
    for got in both(lambda v: tf.map_fn(lambda e: e * 2 + 1, v), V):
        assert got.tolist() == [7, 3, 9, 3, 11, 19, 5, 13]
    pairs = tf.map_fn(lambda e: (e[0] + 1, e[1] * 2.0), (V, tf.cast(V, tf.float32)))
    assert pairs[0].dtype == tf.int32 and pairs[1].numpy().tolist()[:2] == [6.0, 2.0]
    with pytest.raises(TypeError, match="fn_output_signature"):
        tf.map_fn(lambda e: tf.cast(e, tf.float32), V)  # outputs must have the elements' dtypes, as in TF
    summed = lambda m: tf.map_fn(tf.reduce_sum, m, fn_output_signature=tf.float32)  # noqa: E731
    for got in both(summed, tf.reshape(tf.range(6.0), [3, 2])):
        assert got.tolist() == [1.0, 5.0, 9.0]
    unknown = tf.function(lambda v: tf.map_fn(lambda e: e * e, v), input_signature=[tf.TensorSpec([None], tf.int32)])
    assert unknown(tf.constant([1, 2, 3])).numpy().tolist() == [1, 4, 9]


def test_scan_and_folds():
    for got in both(lambda v: tf.scan(lambda a, e: a + e, v), V):
        assert got.tolist() == [3, 4, 8, 9, 14, 23, 25, 31]
    for got in both(lambda v: tf.scan(lambda a, e: a + e, v, reverse=True), V):
        assert got.tolist() == [31, 28, 27, 23, 22, 17, 8, 6]  # TensorFlow's order
    for got in both(lambda v: tf.scan(lambda a, e: a * e, v[:4], initializer=tf.constant(1)), V):
        assert got.tolist() == [3, 3, 12, 12]

    def tuple_scan(v):
        return tf.scan(lambda a, e: (a[0] + e, a[1] * 2), v[:3], initializer=(tf.constant(0), tf.constant(1)))

    for sums, powers in both(tuple_scan, V):
        assert sums.tolist() == [3, 4, 8] and powers.tolist() == [2, 4, 8]
    for got in both(lambda v: tf.foldl(lambda a, e: a * 2 + e, v), V):
        assert got == 3 * 2**7 + 1 * 2**6 + 4 * 2**5 + 1 * 2**4 + 5 * 2**3 + 9 * 2**2 + 2 * 2 + 6
    for got in both(lambda v: tf.foldr(lambda a, e: a * 2 + e, v), V):
        assert got == 6 * 2**7 + 2 * 2**6 + 9 * 2**5 + 5 * 2**4 + 1 * 2**3 + 4 * 2**2 + 1 * 2 + 3
    with pytest.raises(ValueError, match="no initializer"):
        tf.foldl(lambda a, e: a + e, tf.zeros([0]))


def test_gradients_through_traced_loops():
    w = tf.constant([0.5, -0.3, 1.5])

    def grads(w):
        with tf.GradientTape() as tape:
            tape.watch(w)
            y = tf.reduce_sum(tf.map_fn(lambda e: tf.sin(e) * e, w)) + tf.foldl(lambda a, e: a * e, w)
        return tape.gradient(y, w)

    want = np.cos([0.5, -0.3, 1.5]) * [0.5, -0.3, 1.5] + np.sin([0.5, -0.3, 1.5]) + [-0.45, 0.75, -0.15]
    for got in both(grads, w):
        np.testing.assert_allclose(got, want, rtol=1e-5)


def test_switch_case_and_case():
    branches = [lambda: tf.constant(1), lambda: tf.constant(2), lambda: tf.constant(3)]
    for i, want in [(0, 1), (2, 3), (7, 3), (-1, 3)]:  # out of range: the last branch, as in TF
        for got in both(lambda k: tf.switch_case(k, branches), tf.constant(i)):
            assert got == want
    with_default = lambda k: tf.switch_case(k, {0: branches[0], 1: branches[1]}, default=lambda: tf.constant(9))  # noqa: E731
    assert [int(with_default(tf.constant(k))) for k in (1, 5)] == [2, 9]
    with pytest.raises(ValueError, match="branch indices"):
        tf.switch_case(tf.constant(0), {0: branches[0], 3: branches[1]})

    def pick(x):
        signs = [(x < 0, lambda: tf.constant(-1)), (x > 0, lambda: tf.constant(1))]
        return tf.case(signs, default=lambda: tf.constant(0))

    for x, want in [(-2.0, -1), (0.0, 0), (3.0, 1)]:
        for got in both(pick, tf.constant(x)):
            assert got == want
    with pytest.raises(tf.errors.InvalidArgumentError, match="more than one"):
        tf.case([(tf.constant(True), lambda: 1), (tf.constant(True), lambda: 2)], exclusive=True)
    with pytest.raises(tf.errors.InvalidArgumentError, match="no predicate"):
        tf.case([(tf.constant(False), lambda: 1)])
    only = tf.function(lambda p: tf.case([(p, lambda: tf.constant(1))]))  # no default: checked at run time
    assert only(tf.constant(True)).numpy() == 1
    with pytest.raises(tf.errors.InvalidArgumentError, match="no predicate"):
        only(tf.constant(False))
    both_true = tf.function(lambda p: tf.case([(p, lambda: 1), (p, lambda: 2)], default=lambda: 0, exclusive=True))
    with pytest.raises(tf.errors.InvalidArgumentError, match="more than one"):
        both_true(tf.constant(True))
    assert both_true(tf.constant(False)).numpy() == 0


def test_executing_eagerly_and_name_scope():
    assert tf.executing_eagerly()
    assert not tf.function(lambda: tf.constant(tf.executing_eagerly()))().numpy()
    with tf.name_scope("outer") as outer:
        with tf.name_scope("inner") as inner:
            assert (outer, inner) == ("outer/", "outer/inner/")
    with pytest.raises(ValueError, match="valid scope name"):
        tf.name_scope("bad name!")


def test_empty_inputs_keep_tensorflows_shapes():
    traced = tf.function(lambda x: tf.map_fn(lambda r: r * 2.0, x), input_signature=[tf.TensorSpec([None, 3])])
    assert traced(tf.zeros([0, 3])).shape == (0, 3)  # the element shape tracing saw written
    assert tf.map_fn(lambda r: r * 2.0, tf.zeros([0, 3])).shape == (0,)  # eagerly TF gives (0,) too
    assert tf.scan(lambda a, r: a + r, tf.zeros([0, 3]), initializer=tf.zeros([3])).shape == (0, 3)


def test_switch_case_takes_index_function_pairs():
    pairs = [(1, lambda: tf.constant(20)), (0, lambda: tf.constant(10))]
    assert [int(tf.switch_case(tf.constant(k), pairs)) for k in (0, 1)] == [10, 20]


def test_eager_map_fn_over_no_rows_takes_the_signature_shape():
    assert tf.map_fn(lambda r: r * 2.0, tf.zeros([0, 3]), fn_output_signature=tf.TensorSpec([3])).shape == (0, 3)


def test_map_fn_refuses_other_dict_keys_without_a_signature():
    elems = {"b": tf.constant([1.0, 2.0]), "a": tf.constant([3.0, 4.0])}
    for run in (tf.map_fn, lambda *a: tf.function(lambda: tf.map_fn(*a))()):
        with pytest.raises(ValueError, match="keys"):  # values were paired with the other keys by position
            run(lambda d: {"y": d["a"], "x": d["b"]}, elems)
    out = tf.map_fn(lambda d: {"a": d["a"] * 2, "b": d["b"]}, elems)
    assert out["a"].numpy().tolist() == [6.0, 8.0] and out["b"].numpy().tolist() == [1.0, 2.0]
