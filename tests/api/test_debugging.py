"""``tf.debugging.check_numerics``."""

import numpy as np
import pytest

import tfunc as tf


def test_check_numerics_passes_finite_values_and_names_bad_ones():
    x = tf.constant([1.0, 2.0])
    assert tf.debugging.check_numerics(x, "fine").numpy().tolist() == [1.0, 2.0]
    with pytest.raises(tf.errors.InvalidArgumentError, match="my check : Tensor had NaN values"):
        tf.debugging.check_numerics(tf.constant([1.0, np.nan]), "my check")
    with pytest.raises(tf.errors.InvalidArgumentError, match="Tensor had Inf values"):
        tf.debugging.check_numerics(tf.constant([np.inf], tf.float64), "inf")
    with pytest.raises(TypeError, match="not in list of allowed values"):
        tf.debugging.check_numerics(tf.constant([1]), "ints")


def test_check_numerics_in_a_function_checks_every_run():
    @tf.function
    def safe_log(x):
        return tf.debugging.check_numerics(tf.math.log(x), "log of x")

    assert safe_log(tf.constant([1.0])).numpy().tolist() == [0.0]
    with np.errstate(all="ignore"), pytest.raises(tf.errors.InvalidArgumentError, match="log of x"):
        safe_log(tf.constant([-1.0]))


def test_check_numerics_gradient_is_checked_too():
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.debugging.check_numerics(x * x, "square")
    assert float(tape.gradient(y, x)) == 4.0


def test_assertions_fail_eagerly_while_tracing_and_at_run_time():
    x = tf.constant([1.0, 2.0])
    with pytest.raises(
        tf.errors.InvalidArgumentError, match=r"mismatch\. Condition x == y .* x = \[1.0, 2.0\], y = \[1.0, 3.0\]"
    ):
        tf.debugging.assert_equal(x, tf.constant([1.0, 3.0]), message="mismatch")
    assert tf.debugging.assert_less(x, 3.0) is None

    @tf.function(input_signature=[tf.TensorSpec([None])])
    def doubled(v):
        tf.debugging.assert_positive(v, message="v must be positive")  # nothing reads it: still runs
        return v * 2

    assert doubled(x).numpy().tolist() == [2.0, 4.0]
    with pytest.raises(tf.errors.InvalidArgumentError, match="v must be positive"):
        doubled(tf.constant([1.0, -1.0]))

    @tf.function
    def known_while_tracing():
        tf.debugging.assert_equal(tf.constant(1), tf.constant(2))
        return 1

    with pytest.raises(tf.errors.InvalidArgumentError, match=r"x = \[1\], y = \[2\]"):
        known_while_tracing()

    @tf.function
    def asserted(v):
        tf.Assert(tf.reduce_all(v > 0), [v], summarize=1)
        return v

    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[2.0\]\.\.\."):
        asserted(tf.constant([2.0, -3.0]))


def test_other_assertions():
    tf.debugging.assert_near(tf.constant([1.0]), tf.constant([1.0 + 1e-7]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="tolerance"):
        tf.debugging.assert_near(tf.constant([1.0]), tf.constant([1.1]))
    for check, bad in [
        (tf.debugging.assert_negative, [1]),
        (tf.debugging.assert_non_negative, [-1]),
        (tf.debugging.assert_non_positive, [1]),
        (tf.debugging.assert_none_equal, None),
        (tf.debugging.assert_greater_equal, None),
    ]:
        with pytest.raises(tf.errors.InvalidArgumentError):
            if bad is None:
                check(tf.constant([1, 2]), tf.constant([1, 3]) if check is tf.debugging.assert_none_equal else 5)
            else:
                check(tf.constant(bad))
    with pytest.raises(ValueError, match="rank 2"):
        tf.debugging.assert_rank(tf.ones([3]), 2)
    f = tf.function(lambda v: tf.debugging.assert_rank(v, 1) or v, input_signature=[tf.TensorSpec(None)])
    with pytest.raises(tf.errors.InvalidArgumentError, match="rank 1"):
        f(tf.ones([2, 2]))
    with pytest.raises(TypeError, match="must be of type"):
        tf.debugging.assert_type(tf.constant(1), tf.float32)


def test_control_dependencies_run_a_check_before_the_effects_in_the_block():
    v = tf.Variable(0.0)

    @tf.function
    def step(x):
        checked = tf.debugging.check_numerics(x, "x is bad")  # pure: nothing else reads it
        with tf.control_dependencies([checked]):
            v.assign_add(1.0)
        return x * 2

    assert step(tf.constant(1.0)).numpy() == 2.0 and v.numpy() == 1.0
    with pytest.raises(tf.errors.InvalidArgumentError, match="x is bad"):
        step(tf.constant(float("nan")))
    assert v.numpy() == 1.0  # the check failed before the assignment

    @tf.function
    def grouped(x):
        tf.group(tf.debugging.check_numerics(x, "grouped"))
        return x

    with pytest.raises(tf.errors.InvalidArgumentError, match="grouped"):
        grouped(tf.constant(float("inf")))
    assert tf.no_op() is None and tf.group(tf.constant(1)) is None
    with tf.control_dependencies(None):
        assert (tf.constant(3) + 1).numpy() == 4


def test_assert_in_a_branch_that_never_runs_does_not_fail_the_trace():
    @tf.function
    def safe_sqrt(x):
        def negative():
            tf.debugging.Assert(False, ["negative input"])
            return x

        return tf.cond(x >= 0, lambda: tf.sqrt(x), negative)

    assert safe_sqrt(tf.constant(4.0)).numpy() == 2.0  # TensorFlow: 2.0 (no static check in Assert)
    with pytest.raises(tf.errors.InvalidArgumentError, match="negative input"):
        safe_sqrt(tf.constant(-4.0))
    assert tf.debugging.Assert(tf.constant([True]), ["one element is enough"]) is None


def test_check_numerics_as_a_statement_still_checks_in_a_function():
    @tf.function
    def f(x):
        tf.debugging.check_numerics(tf.math.log(x), "log of x")  # result unread, as TensorFlow code does
        return x + 1.0

    assert float(f(tf.constant(1.0))) == 2.0
    with pytest.raises(tf.errors.InvalidArgumentError, match="log of x"):
        f(tf.constant(-1.0))


def test_ensure_shape_refines_the_static_shape_and_checks_the_run_time_one():
    x = tf.zeros([3, 4])
    assert tf.ensure_shape(x, [None, 4]).shape == (3, 4)
    with pytest.raises(tf.errors.InvalidArgumentError, match="not compatible with expected shape"):
        tf.ensure_shape(x, [3, 5])
    seen = {}

    @tf.function(input_signature=[tf.TensorSpec([None, None])])
    def f(t):
        y = tf.ensure_shape(t, [None, 4])
        seen["shape"] = y.shape
        return y * 2

    np.testing.assert_array_equal(f(tf.ones([2, 4])).numpy(), 2 * np.ones((2, 4)))
    assert seen["shape"].as_list() == [None, 4]
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected shape"):
        f(tf.zeros([2, 5]))

    @tf.function(input_signature=[tf.TensorSpec(None)])
    def any_rank(t):
        return tf.ensure_shape(t, [2])

    np.testing.assert_array_equal(any_rank(tf.zeros([2])).numpy(), [0, 0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected shape"):
        any_rank(tf.zeros([2, 2]))
    with pytest.raises(ValueError, match="not compatible"):  # known while tracing: at once
        tf.function(lambda t: tf.ensure_shape(t, [5]))(tf.zeros([3]))
