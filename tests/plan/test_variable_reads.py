"""A plan reads a variable through the variable's own method (no wrapper frames), and every
call sees the value the variable holds then."""

import numpy as np

import tfunc as tf
from tfunc.testing import on_backend


def test_reads_bind_the_variables_read_and_see_later_assignments():
    with on_backend("numpy"):
        v = tf.Variable([1.0, 2.0])

        @tf.function
        def f(x):
            return v * x

        np.testing.assert_allclose(f(tf.constant(2.0)).numpy(), [2.0, 4.0])
        plan = f.get_concrete_function(tf.constant(2.0)).plan
        assert v._read_array in plan.fn.__defaults__  # the bound method itself
        v.assign([3.0, -1.0])
        np.testing.assert_allclose(f(tf.constant(2.0)).numpy(), [6.0, -2.0])
        v.assign_add([1.0, 1.0])  # in place where nobody else holds the buffer
        np.testing.assert_allclose(f(tf.constant(1.0)).numpy(), [4.0, 0.0])
