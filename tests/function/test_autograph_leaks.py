"""Values made inside a tensor-dependent branch or loop body, kept in Python state: TensorFlow
2.21 refuses them when they leave it (InaccessibleTensorError), whether made by an op on a
tensor or from a Python value (``tf.constant``, ``tf.convert_to_tensor``); and an attribute or
item set in only one branch is refused at once ("must also be initialized in the else branch").
Eagerly the same Python code runs as plain Python."""

import numpy as np
import pytest

import tfunc as tf

# Each makes a tensor where it is called; the same results in TensorFlow 2.21 for all of them.
MAKERS = {
    "constant": lambda x: tf.constant(7),
    "constant_dtype": lambda x: tf.constant(7, tf.int64),
    "constant_array": lambda x: tf.constant(np.arange(3)),
    "convert_to_tensor": lambda x: tf.convert_to_tensor(7),
    "cast_of_constant": lambda x: tf.cast(tf.constant(7), tf.float32),
    "fill": lambda x: tf.fill([2], 7),
    "range": lambda x: tf.range(3),
    "op_on_input": lambda x: x * 2,
}
ALL = pytest.mark.parametrize("make", list(MAKERS.values()), ids=list(MAKERS))


def _append_in_if(make):
    def f(x):
        acc = []
        for i in range(3):
            if x > i:
                acc.append(make(x))
        return acc

    return f


def _append_in_range_loop(make):
    def f(n):
        acc = []
        for _ in tf.range(n):
            acc.append(make(n))
        return tf.stack(acc)

    return f


def _append_in_while(make):
    def f(n):
        acc = []
        i = 0
        while i < n:
            acc.append(make(n))
            i += 1
        return acc

    return f


@ALL
def test_value_appended_in_a_tensor_if_cannot_be_returned(make):
    f = _append_in_if(make)
    assert len(f(tf.constant(1))) == 1  # eagerly: plain Python (x > 0 only)
    with pytest.raises(tf.errors.LeakedTensorError, match="out of scope"):
        tf.function(f)(tf.constant(1))


@ALL
def test_value_appended_in_a_range_loop_cannot_be_used_after_it(make):
    f = _append_in_range_loop(make)
    assert f(tf.constant(3)).shape[0] == 3
    with pytest.raises(tf.errors.LeakedTensorError, match="out of scope"):
        tf.function(f)(tf.constant(3))


@ALL
def test_value_appended_in_a_while_loop_cannot_be_returned(make):
    f = _append_in_while(make)
    assert len(f(tf.constant(3))) == 3
    with pytest.raises(tf.errors.LeakedTensorError, match="out of scope"):
        tf.function(f)(tf.constant(3))


def test_constant_of_one_branch_cannot_be_used_in_the_other():
    def f(x):
        box = []

        def true_fn():
            box.append(tf.constant(1.0))
            return x + box[0]

        return tf.cond(x > 0, true_fn, lambda: x + box[0])

    assert float(f(tf.constant(1.0))) == 2.0
    with pytest.raises(tf.errors.LeakedTensorError):
        tf.function(f)(tf.constant(1.0))


class _Obj:
    pass


@ALL
def test_attribute_set_in_one_branch_only_is_refused(make):
    o = _Obj()

    def f(x):
        if x > 0:
            o.side = make(x)
        return tf.constant(0)

    assert int(f(tf.constant(-1))) == 0 and not hasattr(o, "side")
    with pytest.raises(ValueError, match="'o.side' must also be initialized in the else branch"):
        tf.function(f)(tf.constant(-1))


def test_item_set_in_the_else_branch_only_is_refused():
    d = {}

    def f(x):
        if x > 0:
            pass
        else:
            d["k"] = x
        return tf.constant(0)

    assert int(f(tf.constant(1))) == 0 and d == {}
    with pytest.raises(ValueError, match=r"'d\['k'\]' must also be initialized in the main branch"):
        tf.function(f)(tf.constant(1))


def test_attribute_none_in_a_branch_is_refused():
    o = _Obj()
    o.side = tf.constant(1.0)

    def f(x):
        if x > 0:
            o.side = tf.constant(99.0)
        else:
            o.side = None
        return tf.constant(0.0)

    f(tf.constant(1))
    assert float(o.side) == 99.0
    with pytest.raises(ValueError, match="'o.side' is None at the end of the else branch"):
        tf.function(f)(tf.constant(1))


@pytest.mark.parametrize("mode", ["eager", "function"])
def test_attribute_set_in_both_branches_and_local_objects_are_fine(mode):
    o = _Obj()

    def f(x):
        if x > 0:
            o.side = tf.constant(99.0)
            p = _Obj()  # an object made in the branch: its attributes are the branch's own
            p.side = tf.constant(1.0)
        else:
            o.side = tf.constant(-1.0)
        return o.side

    fn = f if mode == "eager" else tf.function(f)
    assert float(fn(tf.constant(1))) == 99.0
    assert float(fn(tf.constant(-1))) == -1.0


@pytest.mark.parametrize("mode", ["eager", "function"])
def test_constants_used_where_they_are_in_scope(mode):
    # TensorFlow 2.21: 60.0, 2.5, 9.0 / 18 / 6.0, -3.0
    def nested_branches(x):
        c = tf.constant(10.0)  # the function's: usable in every branch
        if x > 0:
            d = tf.constant(2.0)  # this branch's: usable in the branches it holds
            if x > 1:
                r = x * c * d
            else:
                r = x + d
        else:
            r = x + c
        return r

    def nested_loops(n):
        s = tf.constant(0)
        for i in tf.range(n):
            k = tf.constant(3)
            for _ in tf.range(i):
                s += k
        return s

    def closure_of_a_function_traced_in_a_branch(x):
        if x > 0:
            c = tf.constant(2.0)
            r = tf.function(lambda y: y * c)(x)
        else:
            r = x
        return r

    run = (lambda f: f) if mode == "eager" else tf.function
    f = run(nested_branches)
    assert [float(f(tf.constant(v))) for v in (3.0, 0.5, -1.0)] == [60.0, 2.5, 9.0]
    assert int(run(nested_loops)(tf.constant(4))) == 18
    g = run(closure_of_a_function_traced_in_a_branch)
    assert [float(g(tf.constant(v))) for v in (3.0, -3.0)] == [6.0, -3.0]
