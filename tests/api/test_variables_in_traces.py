"""Variables inside traced functions: the value an assignment returns inside a branch or
loop, runtime shape checks of traced assignments, and variables created while tracing.
Expected values are TensorFlow 2.21's."""

import numpy as np
import pytest

import tfunc as tf

EAGER_AND_TRACED = pytest.mark.parametrize("wrap", [lambda f: f, tf.function], ids=["eager", "function"])


# --- what assign returns is read after the write, also in a branch or loop body ----------------


@EAGER_AND_TRACED
def test_assign_result_in_an_autograph_for_loop(wrap):
    v = tf.Variable(0.0)

    def f(n):
        s = 0.0
        for _ in tf.range(n):
            s += v.assign_add(1.0)  # 1 + 2 + 3
        return s

    assert float(wrap(f)(tf.constant(3))) == 6.0
    assert float(v.numpy()) == 3.0


@EAGER_AND_TRACED
def test_assign_result_in_a_while_loop(wrap):
    w = tf.Variable(1.0)

    def g():
        return tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s + w.assign(w * 2)), [0, 0.0])[1]

    assert float(wrap(g)()) == 14.0  # 2 + 4 + 8


@EAGER_AND_TRACED
def test_assign_result_in_cond_branches(wrap):
    v = tf.Variable(0)
    f = wrap(lambda x: tf.cond(x > 0, lambda: v.assign_add(1), lambda: v.assign_sub(1)))
    g = wrap(lambda x: tf.cond(x > 0, lambda: v.assign_add(1).read_value(), lambda: v.assign_sub(1).read_value()))
    h = wrap(lambda: tf.cond(tf.constant(True), lambda: v.assign(5), lambda: v.assign(6)))
    k = wrap(lambda: tf.cond(tf.constant(True), lambda: v.assign(7) + 0, lambda: v.assign(8) + 0))
    assert int(f(tf.constant(1))) == 1
    assert int(g(tf.constant(1))) == 2
    assert int(f(tf.constant(-1))) == 1
    assert int(h()) == 5
    assert int(k()) == 7 and int(v.numpy()) == 7


@EAGER_AND_TRACED
def test_assign_result_in_nested_conds_and_chained_assignments(wrap):
    v = tf.Variable(0.0)

    def nested(p, q):
        inner = lambda: tf.cond(q, lambda: v.assign_add(1.0) * 10.0, lambda: v.assign_sub(1.0) * 10.0)  # noqa: E731
        return tf.cond(p, inner, lambda: v.assign(7.0) + 0.0)

    nested = wrap(nested)
    t, f = tf.constant(True), tf.constant(False)
    assert [float(nested(t, t)), float(nested(t, f)), float(nested(f, f))] == [10.0, 0.0, 7.0]
    u = tf.Variable(1.0)
    chain = wrap(lambda p: tf.cond(p, lambda: u.assign_add(1.0).assign_add(1.0) * 1.0, lambda: u.read_value()))
    assert float(chain(t)) == 3.0 and float(u.numpy()) == 3.0


@EAGER_AND_TRACED
def test_assign_result_of_a_variable_argument(wrap):
    step = wrap(lambda w, p: tf.cond(p, lambda: w.assign_add(2.0), lambda: w.assign_sub(2.0)))
    a = tf.Variable(1.0)
    assert float(step(a, tf.constant(True))) == 3.0
    assert float(step(a, tf.constant(False))) == 1.0
    assert float(step(tf.Variable(10.0), tf.constant(True))) == 12.0

    def loop(w, n):
        s = 0.0
        for _ in tf.range(n):
            s += w.assign_add(1.0)
        return s

    assert float(wrap(loop)(tf.Variable(0.0), tf.constant(3))) == 6.0


# --- a traced assignment of a value whose shape was not known is checked when it runs ---------


def test_assign_checks_the_runtime_shape_when_the_signature_is_partly_unknown():
    v = tf.Variable([1.0, 2.0])
    f = tf.function(lambda x: (v.assign(x), v.read_value())[1], input_signature=[tf.TensorSpec([None], tf.float32)])
    with pytest.raises(tf.errors.InvalidArgumentError):
        f(tf.constant([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(f(tf.constant([5.0, 6.0])).numpy(), [5.0, 6.0])
    u = tf.Variable([[1.0, 2.0]])
    h = tf.function(lambda x: u.assign(x) + 0.0, input_signature=[tf.TensorSpec(None, tf.float32)])
    with pytest.raises(tf.errors.InvalidArgumentError):
        h(tf.constant([5.0, 6.0]))  # the rank differs
    assert u.shape == (1, 2) and u.numpy().shape == (1, 2)


@pytest.mark.parametrize("delta", [3.0, [[3.0], [4.0]]], ids=["scalar", "broadcasting"])
def test_assign_add_never_broadcasts_a_delta_of_unknown_shape(delta):
    w = tf.Variable([1.0, 2.0])
    g = tf.function(lambda x: w.assign_add(x) + 0.0, input_signature=[tf.TensorSpec(None, tf.float32)])
    with pytest.raises(tf.errors.InvalidArgumentError):
        g(tf.constant(delta))
    with pytest.raises(tf.errors.InvalidArgumentError):
        w.assign_sub(tf.constant(delta))  # eagerly as well
    np.testing.assert_array_equal(w.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(g(tf.constant([1.0, 1.0])).numpy(), [2.0, 3.0])


@EAGER_AND_TRACED
def test_a_variable_with_unknown_dims_takes_values_that_fit(wrap):
    w = tf.Variable([1.0, 2.0], shape=[None])
    assert w.shape.as_list() == [None]
    assign = wrap(lambda x: w.assign(x) + 0.0)
    np.testing.assert_array_equal(assign(tf.constant([1.0, 2.0, 3.0])).numpy(), [1.0, 2.0, 3.0])
    with pytest.raises(ValueError):
        assign(tf.constant([[1.0]]))  # the rank is fixed
    add = wrap(lambda x: w.assign_add(x) + 0.0)
    np.testing.assert_array_equal(add(tf.constant([1.0, 1.0, 1.0])).numpy(), [2.0, 3.0, 4.0])
    with pytest.raises(tf.errors.InvalidArgumentError):
        add(tf.constant([1.0]))  # the delta must have the current shape
    z = tf.Variable(1.0, shape=tf.TensorShape(None))
    wrap(lambda: z.assign([[1.0, 2.0]]))()
    assert z.shape.rank is None and z.numpy().tolist() == [[1.0, 2.0]]


# --- a variable created while tracing: its initializer is lifted out of the function ----------


class _Lazy(tf.Module):
    def __init__(self):
        super().__init__()
        self.v = None

    @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
    def f(self, x):
        if self.v is None:
            self.v = tf.Variable(tf.ones([2]) * 3.0)
        return x * self.v


def test_a_variable_created_while_tracing_is_initialized_by_the_trace(tmp_path):
    mod = _Lazy()
    mod.f.get_concrete_function()
    np.testing.assert_array_equal(mod.v.numpy(), [3.0, 3.0])
    assert tf.train.Checkpoint(mod=mod).write(str(tmp_path / "ckpt"))
    np.testing.assert_array_equal(mod.f(tf.constant([1.0, 2.0])).numpy(), [3.0, 6.0])


def test_saving_a_module_whose_first_trace_creates_a_variable(tmp_path):
    tf.saved_model.save(_Lazy(), str(tmp_path))  # the first trace happens inside save
    loaded = tf.saved_model.load(str(tmp_path))
    np.testing.assert_array_equal(loaded.f(tf.constant([1.0, 2.0])).numpy(), [3.0, 6.0])


def test_a_variable_created_on_the_first_call_under_a_tape():
    box = []

    @tf.function
    def f(x):
        if not box:
            box.append(tf.Variable(tf.ones([2]) * 2.0))
        return x * box[0]

    x = tf.constant(3.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = f(x)
    np.testing.assert_array_equal(y.numpy(), [6.0, 6.0])
    gx, gv = t.gradient(y, [x, box[0]])
    assert float(gx) == 4.0
    np.testing.assert_array_equal(gv.numpy(), [3.0, 3.0])


def test_an_initializer_depending_on_an_argument_runs_with_the_first_call():
    box = []

    @tf.function
    def f(x):
        if not box:
            box.append(tf.Variable(x * 2.0))
        return box[0].read_value() + 1.0

    np.testing.assert_array_equal(f(tf.constant([1.0, 2.0])).numpy(), [3.0, 5.0])
    np.testing.assert_array_equal(box[0].numpy(), [2.0, 4.0])
