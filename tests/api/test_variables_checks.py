"""Checks made when a Variable is created or updated, as in TensorFlow 2.21: the ``shape``
argument must fit the initial value, ``v += x`` is refused, and a value of another dtype
is a ValueError."""

import operator

import pytest

import tfunc as tf

EAGER_AND_TRACED = pytest.mark.parametrize("wrap", [lambda f: f, tf.function], ids=["eager", "function"])


@EAGER_AND_TRACED
@pytest.mark.parametrize("init, shape", [([1.0, 2.0], [3]), ([[1.0, 2.0]], [2, None]), (1.0, [2]), (1.0, [None])])
def test_the_shape_argument_must_fit_the_initial_value(wrap, init, shape):
    def make():
        tf.Variable(tf.constant(init) * 1.0, shape=shape)

    with pytest.raises(ValueError, match="shape"):
        wrap(make)()


def test_a_shape_with_unknown_dims_is_kept():
    assert tf.Variable([[1.0, 2.0]], shape=[None, 2]).shape.as_list() == [None, 2]
    assert tf.Variable([1.0, 2.0], shape=tf.TensorShape(None)).shape.rank is None


@EAGER_AND_TRACED
@pytest.mark.parametrize("op", [operator.iadd, operator.isub, operator.imul, operator.itruediv, operator.ipow])
def test_in_place_operators_are_refused(wrap, op):
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(RuntimeError, match="is not supported"):
        wrap(lambda: op(v, 2.0))()
    assert v.numpy().tolist() == [1.0, 2.0]


@EAGER_AND_TRACED
def test_a_plus_equals_statement_is_refused(wrap):
    v = tf.Variable([1.0, 2.0])

    def f():
        w = v
        w += 1.0  # would rebind w to a tensor and leave v unchanged
        return w

    with pytest.raises(RuntimeError, match=r"`variable \+= value` with `tf.Variable`s is not supported"):
        wrap(f)()


@EAGER_AND_TRACED
@pytest.mark.parametrize("method", ["assign", "assign_add", "assign_sub"])
def test_a_value_of_another_dtype_is_a_value_error(wrap, method):
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(ValueError, match="requested dtype float32 for Tensor with dtype int32"):
        wrap(lambda x: getattr(v, method)(x))(tf.constant([1, 2]))
    getattr(v, method)([1, 2])  # Python values convert to the variable's dtype


@EAGER_AND_TRACED
def test_variable_names_follow_name_scopes(wrap):
    made = []

    def make():
        if made:  # the trace after the first creates none
            return
        with tf.name_scope("outer"):
            made.append(tf.Variable(1.0, name="v"))
            with tf.name_scope("inner"):
                made.append(tf.Variable(1.0))
            with tf.name_scope(""):  # the empty scope is the top level
                made.append(tf.Variable(1.0, name="x"))
        made.append(tf.Variable(1.0, name="x"))

    wrap(make)()
    assert [v.name for v in made] == ["outer/v:0", "outer/inner/Variable:0", "x:0", "x:0"]
