"""tf.function and control-flow behaviour checked against TensorFlow 2.21: enumerate/zip
over datasets in converted loops, int()/float() of tensors, eager while_loop results, and
NumPy scalars from .numpy()."""

import numpy as np
import pytest

import tfunc as tf


def test_enumerate_and_zip_over_datasets_are_staged():
    @tf.function
    def enumerated():
        s = tf.constant(0, tf.int64)
        for i, x in enumerate(tf.data.Dataset.range(3, 6)):
            s += i * x
        return s

    @tf.function
    def zipped():
        s = tf.constant(0, tf.int64)
        for a, b in zip(tf.data.Dataset.range(3), tf.data.Dataset.range(5, 10)):
            s += a * b
        return s

    assert enumerated().numpy() == 0 * 3 + 1 * 4 + 2 * 5  # TensorFlow: 14
    assert zipped().numpy() == 0 * 5 + 1 * 6 + 2 * 7  # TensorFlow: 20

    @tf.function
    def plain():  # enumerate/zip of Python values stay Python's
        return list(zip([1, 2], [3, 4])), list(enumerate("ab", 1))

    pairs, numbered = plain()
    assert [(int(a), int(b)) for a, b in pairs] == [(1, 3), (2, 4)]
    assert [(int(i), c.numpy()) for i, c in numbered] == [(1, b"a"), (2, b"b")]


def test_a_python_loop_over_a_traced_dataset_is_an_error_not_a_hang():
    def count(ds):
        n = 0
        for _ in ds:
            n += 1
        return n

    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError, match="never ends"):
        tf.function(count, autograph=False)(tf.data.Dataset.range(3))
    assert tf.function(count)(tf.data.Dataset.range(3)).numpy() == 3


def test_int_and_float_of_tensors_in_converted_code_cast():
    @tf.function
    def f(x):
        return int(x) + 1, float(x > 0), int(3.7), float("2.5")

    a, b, c, d = f(tf.constant(-3.5))
    assert a.dtype == tf.int32 and a.numpy() == -2  # cast truncates toward zero
    assert b.dtype == tf.float32 and b.numpy() == 0.0
    assert c == 3 and d == 2.5  # Python values stay Python's


def test_eager_while_loop_returns_tensors_and_checks_the_structure():
    i, s = tf.while_loop(lambda i, s: i < 4, lambda i, s: (i + 1, s + 2), (0, 1.5))
    assert i.dtype == tf.int32 and i.numpy() == 4 and s.dtype == tf.float32 and s.numpy() == 9.5
    i, s = tf.while_loop(lambda i, s: i < 0, lambda i, s: (i + 1, s + 2), (0, np.float32(1.5)))
    assert isinstance(i, tf.Tensor) and s.dtype == tf.float32  # no iteration: still tensors
    with pytest.raises(ValueError, match="structure of loop_vars"):
        tf.while_loop(lambda i, j: i < 4, lambda i, j: i + 1, (0, 1))


def test_numpy_of_a_scalar_is_a_numpy_scalar():
    for t in (tf.constant(3), tf.Variable(3), tf.constant(2.5, tf.float64)):
        v = t.numpy()
        assert isinstance(v, np.generic) and not isinstance(v, np.ndarray)
        assert {v: 1}[v] == 1  # hashable, as TensorFlow's
    assert tf.constant(3).numpy().dtype == np.int32
    assert tf.constant("ab").numpy() == b"ab"
    assert isinstance(tf.constant([3]).numpy(), np.ndarray)


def test_chained_comparisons_on_tensors_become_lazy_ands():
    @tf.function
    def inside(x):
        if 0 < x < 5:
            return tf.constant(1)
        return tf.constant(0)

    @tf.function
    def chained(x):
        return 0 < x <= 5 < x + 10, 1 < 2 < 3

    assert inside(tf.constant(3)).numpy() == 1 and inside(tf.constant(7)).numpy() == 0  # TensorFlow: 1, 0
    a, b = chained(tf.constant(3))
    assert a.dtype == tf.bool and bool(a.numpy()) and bool(b.numpy())
    assert not bool(chained(tf.constant(7))[0].numpy())
    # as TensorFlow's AutoGraph: left-nested and_ over lambdas, the middle operand repeated
    code = tf.autograph.to_code(chained.python_function)
    assert "ag__.and_(lambda: ag__.and_(lambda: 0 < ag__.ld(x), lambda: ag__.ld(x) <= 5), " in code
    assert "lambda: 5 < ag__.ld(x) + 10)" in code


def test_nested_input_signatures_with_dicts_and_namedtuples():
    import collections

    NT = collections.namedtuple("NT", "a b")

    @tf.function(input_signature=[(tf.TensorSpec([], tf.int32), {"a": tf.TensorSpec([None], tf.float32)})])
    def f(t):
        return t[0], t[1]["a"] * 2

    i, a = f((tf.constant(1), {"a": tf.constant([1.0, 2.0])}))
    assert i.numpy() == 1 and a.numpy().tolist() == [2.0, 4.0]  # TensorFlow: 1, [2., 4.]

    @tf.function(input_signature=[NT(tf.TensorSpec([], tf.int32), tf.TensorSpec([], tf.int32))])
    def g(p):
        assert type(p) is NT
        return p.a - p.b

    assert g(NT(tf.constant(5), tf.constant(2))).numpy() == 3 and g(NT(5, 2)).numpy() == 3
    structured = g.get_concrete_function().structured_input_signature[0][0]
    assert type(structured) is NT and structured.a.dtype == tf.int32
    # TensorFlow refuses a plain tuple for a namedtuple entry, and a list for a tuple entry
    with pytest.raises(TypeError, match="Cannot cast"):
        g((tf.constant(5), tf.constant(2)))
    with pytest.raises(TypeError, match="Can not cast"):
        f([1, {"a": [1.0]}])


def test_cond_with_none_returning_branches_in_a_function():
    v = tf.Variable(0)

    @tf.function
    def f(x):
        def bump():
            v.assign_add(1)

        r = tf.cond(x > 0, bump, lambda: None)
        return v.read_value(), r is None

    assert f(tf.constant(1))[0].numpy() == 1 and bool(f(tf.constant(1))[1].numpy())
    assert f(tf.constant(-1))[0].numpy() == 2  # TensorFlow: side effects only where taken

    @tf.function
    def g(x):
        return tf.cond(x > 0, lambda: (x, None), lambda: (x + 1, None))

    a, b = g(tf.constant(1))
    assert a.numpy() == 1 and b is None

    @tf.function
    def h(x):
        return tf.cond(x > 0, lambda: None, lambda: x)

    with pytest.raises(ValueError, match="Lengths of branch outputs of cond must match"):
        h(tf.constant(1))


def test_len_of_a_dataset_in_a_function_is_an_int64_tensor():
    ds = tf.data.Dataset.range(5)

    @tf.function
    def f():
        return len(tf.data.Dataset.range(7)), len(ds) + 1

    a, b = f()
    assert a.dtype == tf.int64 and a.numpy() == 7  # TensorFlow: int64 7
    assert b.dtype == tf.int64 and b.numpy() == 6


def test_concrete_function_casts_numpy_arguments_to_its_dtypes():
    @tf.function
    def g(x):
        return x * 2

    cf = g.get_concrete_function(tf.TensorSpec([2], tf.float32))
    for a in (np.array([1.0, 2.0]), np.array([1, 2]), np.array([1, 2], np.int8), [1, 2]):
        out = cf(a)  # TensorFlow: [2., 4.] float32 for each
        assert out.dtype == tf.float32 and out.numpy().tolist() == [2.0, 4.0]
    ci = g.get_concrete_function(tf.TensorSpec([], tf.int32))
    assert ci(np.float64(2.7)).numpy() == 4  # NumPy values cast as astype does: 2.7 -> 2
    cb = tf.function(lambda x: x).get_concrete_function(tf.TensorSpec([2], tf.bool))
    assert cb(np.array([3, 0])).numpy().tolist() == [True, False]
    with pytest.raises(TypeError, match="Cannot convert 1.5"):
        ci(1.5)  # a Python value is converted, not cast
    with pytest.raises(tf.errors.InvalidArgumentError, match="int32"):
        cf(tf.constant([1, 2]))  # tensors are never cast


def test_python_scalar_and_tensor_of_another_dtype_across_branches_is_an_error():
    @tf.function
    def f(p, x):
        y = 0
        if p:
            y = x
        return y

    @tf.function
    def g(p):
        if p:
            y = 1.5
        else:
            y = 2
        return y

    with pytest.raises(TypeError, match="'y' has dtype float32 in the main branch, but dtype int32 in the else branch"):
        f(tf.constant(False), tf.constant(5.5))
    with pytest.raises(TypeError, match="'y' has dtype float32 in the main branch, but dtype int32 in the else branch"):
        g(tf.constant(False))
    with pytest.raises(TypeError, match="'y' has dtype float64 in the main branch, but dtype int32"):
        f(tf.constant(False), np.array(1.0))  # NumPy array: traced as float64; 0 is int32
    with pytest.raises(TypeError, match="'y' has dtype int64 in the main branch, but dtype int32"):
        f(tf.constant(False), tf.constant(5, tf.int64))
    assert f(tf.constant(False), tf.constant(5)).numpy() == 0  # int vs int32: fine

    @tf.function
    def h(p, x):
        return x if p else 0.5

    with pytest.raises(TypeError, match="'p' has dtype float64 in the main branch, but dtype float32"):
        h(tf.constant(False), tf.constant(1.0, tf.float64))
    assert h(tf.constant(False), tf.constant(1.0)).numpy() == 0.5

    @tf.function
    def c(p, x):
        return tf.cond(p, lambda: 0, lambda: x)

    with pytest.raises(TypeError, match="true_fn and false_fn arguments to tf.cond must have the same number, type"):
        c(tf.constant(False), tf.constant(1.0))

    @tf.function
    def loop(n):
        y = 0.0
        for _ in tf.range(n):
            y = 2
        return y

    with pytest.raises(TypeError, match="'y' has dtype float32 before the loop, but dtype int32 after one iteration"):
        loop(tf.constant(3))
    with pytest.raises(TypeError, match="enters the loop with"):
        tf.function(lambda n: tf.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, 2), [0, tf.constant(0.0)]))(
            tf.constant(3)
        )
