"""Variable.scatter_update/add/sub/mul/div/max/min and batch_scatter_update (sparse updates
from an object with ``.indices`` and ``.values``, TensorFlow's ``IndexedSlices``), eagerly and
inside tf.function.  Expected values were computed with TensorFlow 2.21."""

import numpy as np
import pytest

import tfunc as tf
from tfunc.api.variables import UnreadVariable


class Slices:
    """What TensorFlow's scatter methods read of a ``tf.IndexedSlices``."""

    def __init__(self, values, indices):
        self.values, self.indices = values, indices


def _run(fn, traced):
    return tf.function(fn)() if traced else fn()


@pytest.mark.parametrize("traced", [False, True])
def test_repeated_indices_apply_in_order(traced):
    v = tf.Variable([1.0, 2.0, 3.0, 4.0])

    def steps():
        v.scatter_update(Slices(tf.constant([10.0, 20.0, 30.0]), tf.constant([1, 3, 1])))  # last wins
        a = v.read_value()
        v.scatter_add(Slices(tf.constant([1.0, 1.0, 1.0]), tf.constant([0, 0, 2])))
        b = v.read_value()
        v.scatter_sub(Slices(tf.constant([1.0, 1.0]), tf.constant([0, 0])))
        c = v.read_value()
        v.scatter_mul(Slices(tf.constant([2.0, 3.0]), tf.constant([0, 0])))
        d = v.read_value()
        v.scatter_div(Slices(tf.constant([2.0, 3.0]), tf.constant([0, 0])))
        e = v.read_value()
        v.scatter_max(Slices(tf.constant([50.0, 7.0]), tf.constant([3, 3])))
        f = v.read_value()
        v.scatter_min(Slices(tf.constant([-5.0, 7.0]), tf.constant([3, 3])))
        return a, b, c, d, e, f, v.read_value()

    got = [t.numpy() for t in _run(steps, traced)]
    want = [
        [1, 30, 3, 20],
        [3, 30, 4, 20],
        [1, 30, 4, 20],
        [6, 30, 4, 20],
        [1, 30, 4, 20],
        [1, 30, 4, 50],
        [1, 30, 4, -5],
    ]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, np.array(w, np.float32))


@pytest.mark.parametrize("traced", [False, True])
def test_integer_division_truncates_per_update_and_scalar_updates_broadcast(traced):
    w = tf.Variable([7, -7, 9])
    m = tf.Variable([[1, 2], [3, 4]])

    def steps():
        w.scatter_div(Slices(tf.constant([2, 2]), tf.constant([1, 1])))  # -7/2 = -3, -3/2 = -1
        w.scatter_div(Slices(tf.constant([2, 2]), tf.constant([0, 2])))
        m.scatter_div(Slices(tf.constant(-2), tf.constant([[1, 1]])))  # a scalar for both rows
        return w.read_value(), m.read_value()

    a, b = _run(steps, traced)
    np.testing.assert_array_equal(a.numpy(), [3, -1, 4])
    np.testing.assert_array_equal(b.numpy(), [[1, 2], [0, 1]])


@pytest.mark.parametrize("traced", [False, True])
def test_rows_of_a_matrix_with_nd_indices(traced):
    e = tf.Variable(np.zeros((5, 2), np.float32))

    def step():
        return e.scatter_add(Slices(tf.ones([2, 3, 2]), tf.constant([[0, 1, 1], [4, 4, 4]]))).read_value()

    np.testing.assert_array_equal(_run(step, traced).numpy(), [[1, 1], [2, 2], [0, 0], [0, 0], [3, 3]])


def test_returns_the_variable_unread():
    v = tf.Variable([1.0, 2.0])
    r = v.scatter_add(Slices(tf.constant([1.0]), tf.constant([0])))
    assert isinstance(r, UnreadVariable)
    v.assign([5.0, 5.0])
    np.testing.assert_array_equal(r.numpy(), [5.0, 5.0])  # read when used
    np.testing.assert_array_equal(r.scatter_sub(Slices([1.0], [1])).numpy(), [5.0, 4.0])


@pytest.mark.parametrize("traced", [False, True])
@pytest.mark.parametrize(
    "values, indices, error, message",
    [
        ([1.0], [4], tf.errors.InvalidArgumentError, r"indices\[0\] = 4 is not in \[0, 4\)"),
        ([1.0], [-1], tf.errors.InvalidArgumentError, r"indices\[0\] = -1 is not in \[0, 4\)"),
        ([1.0, 2.0], [0], tf.errors.InvalidArgumentError, "updates.shape = indices.shape"),
    ],
)
def test_bad_indices_and_shapes(traced, values, indices, error, message):
    v = tf.Variable([1.0, 2.0, 3.0, 4.0])
    with pytest.raises(error, match=message):
        _run(lambda: v.scatter_update(Slices(tf.constant(values), tf.constant(indices))), traced)
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0, 3.0, 4.0])


def test_refuses_other_dtypes_and_objects():
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(ValueError, match="requested dtype float32 for Tensor with dtype int32"):
        v.scatter_update(Slices(tf.constant([1]), tf.constant([0])))
    with pytest.raises(TypeError, match="must be a `tf.IndexedSlices`"):
        v.scatter_update((tf.constant([1.0]), tf.constant([0])))


def test_strings_are_updated_not_added():
    s = tf.Variable([b"a", b"b"])
    s.scatter_update(Slices(tf.constant([b"z"]), tf.constant([1])))
    np.testing.assert_array_equal(s.numpy(), [b"a", b"z"])
    with pytest.raises(tf.errors.InvalidArgumentError):  # as in TensorFlow: no string kernel
        s.scatter_add(Slices(tf.constant([b"z"]), tf.constant([1])))


def test_in_cond_and_loop_bodies():
    u = tf.Variable([1.0, 2.0, 3.0, 4.0])

    @tf.function
    def f(i, x):
        u.scatter_add(Slices(x, i))
        a = u * 1.0
        b = u.scatter_mul(Slices(x, i)).read_value() + 0.0
        tf.cond(x[0] > 0, lambda: u.scatter_max(Slices(x * 10.0, i)), lambda: u.scatter_min(Slices(x, i)))
        return a, b, u.read_value()

    a, b, c = f(tf.constant([1, 1, 3]), tf.constant([2.0, 3.0, 4.0]))
    np.testing.assert_array_equal(a.numpy(), [1, 7, 3, 8])
    np.testing.assert_array_equal(b.numpy(), [1, 42, 3, 32])
    np.testing.assert_array_equal(c.numpy(), [1, 42, 3, 40])

    @tf.function
    def g(n):
        for k in tf.range(n):
            u.scatter_sub(Slices(tf.ones([2]), tf.stack([k % 4, 0])))
        return u.read_value()

    np.testing.assert_array_equal(g(tf.constant(5)).numpy(), [-6, 41, 2, 39])


def test_gradients_reach_the_variable_not_the_updates():
    p = tf.Variable([1.0, 2.0, 3.0])

    @tf.function
    def h(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y0 = tf.reduce_sum(p * p)
            tf.cond(
                x > 0,
                lambda: p.scatter_update(Slices(tf.stack([x * 2.0]), tf.constant([0]))),
                lambda: p.scatter_add(Slices(tf.stack([x]), tf.constant([1]))),
            )
            y = tf.reduce_sum(p * p) + y0
        return y, t.gradient(y, [x, p])

    y, (gx, gp) = h(tf.constant(1.5))
    assert float(y) == 36.0 and gx is None
    np.testing.assert_array_equal(gp.numpy(), [8.0, 8.0, 12.0])  # 2p before + 2p after

    p.assign([1.0, 2.0, 3.0])
    with tf.GradientTape() as t:
        x = tf.constant(2.0)
        t.watch(x)
        p.scatter_add(Slices(tf.stack([x, x]), tf.constant([0, 0])))
        y = tf.reduce_sum(p * p)
    gx, gp = t.gradient(y, [x, p])
    assert float(y) == 38.0 and gx is None
    np.testing.assert_array_equal(gp.numpy(), [10.0, 4.0, 6.0])


@pytest.mark.parametrize("traced", [False, True])
def test_batch_scatter_update(traced):
    v = tf.Variable(np.arange(12.0, dtype=np.float32).reshape(2, 3, 2))
    w = tf.Variable([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])

    def steps():
        v.batch_scatter_update(Slices(tf.constant([[[9.0, 9.0]], [[8.0, 8.0]]]), tf.constant([[2], [0]])))
        w.batch_scatter_update(Slices(tf.constant([[7.0, 7.0], [8.0, 9.0]]), tf.constant([[0, 2], [1, 1]])))
        return v.read_value(), w.read_value()

    a, b = _run(steps, traced)
    np.testing.assert_array_equal(a.numpy(), [[[0, 1], [2, 3], [9, 9]], [[8, 8], [8, 9], [10, 11]]])
    np.testing.assert_array_equal(b.numpy(), [[7, 2, 7], [4, 9, 6]])


# --- sliced-variable assignment: v[key].assign(value) ----------------------------------------


@pytest.mark.parametrize("mode", ["eager", "function"])
def test_assigning_a_slice_of_a_variable(mode):
    v = tf.Variable(np.arange(12, dtype=np.float32).reshape(3, 4))

    def writes():
        v[1:3].assign(tf.zeros([2, 4]))
        v[0].assign(5.0)  # a scalar broadcasts over the slice
        v[::2, 1:3].assign([[1.0, 2.0]])
        v[:, -1].assign(7)  # a Python int into the float variable
        return v[..., 0].assign([9.0, 8.0, 7.0])

    result = writes() if mode == "eager" else tf.function(writes)()
    want = [[9.0, 1.0, 2.0, 7.0], [8.0, 0.0, 0.0, 7.0], [7.0, 1.0, 2.0, 7.0]]  # TensorFlow 2.21
    assert v.numpy().tolist() == want and result.numpy().tolist() == want


def test_a_slice_writes_into_the_variable_as_it_is_when_assigned():
    v = tf.Variable(np.arange(12, dtype=np.float32).reshape(3, 4))
    row = v[2]
    v.assign(tf.zeros([3, 4]))
    row.assign(tf.ones([4]))
    assert v.numpy().tolist() == [[0.0] * 4, [0.0] * 4, [1.0] * 4]

    @tf.function
    def in_a_branch(c):
        if c > 0:
            v[0, 1:].assign([5.0, 5.0, 5.0])
        return tf.reduce_sum(v)

    assert float(in_a_branch(tf.constant(-1))) == 4.0 and float(in_a_branch(tf.constant(1))) == 19.0


def test_sliced_assignment_errors_and_gradients():
    v = tf.Variable(np.zeros((3, 4), np.float32))
    with pytest.raises(tf.errors.InvalidArgumentError):
        v[0:2].assign(tf.ones([3, 4]))  # does not broadcast into the slice
    with pytest.raises((TypeError, ValueError)):
        v[0].assign(tf.ones([4], tf.float64))
    with pytest.raises(AttributeError, match="no attribute 'assign'"):
        tf.constant([1.0, 2.0])[0].assign(3.0)  # only a variable's slice can be assigned
    assert not hasattr(tf.constant([1.0]), "assign")
    w, x = tf.Variable([1.0, 2.0, 3.0]), tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        w[0].assign(x * 3.0)
        y = tf.reduce_sum(w * w)
    gx, gw = tape.gradient(y, [x, w])
    assert gx is None and gw.numpy().tolist() == [12.0, 4.0, 6.0]  # as TensorFlow: the assigned value has none


def test_scatter_div_refuses_a_zero_update_as_tensorflow():
    v = tf.Variable([4.0, 6.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="must not contain 0"):
        v.scatter_div(tf.IndexedSlices(tf.constant([0.0]), tf.constant([1])))
    assert v.numpy().tolist() == [4.0, 6.0]
