"""Names a loop body sets before reading them, and no code after the loop reads, are local
to the body: not loop variables (TensorFlow's AutoGraph leaves them out as well)."""

import tfunc as tf


def _body_local(n):
    a = 0
    for i in range(n):
        t = i * 2
        a = a + t
    return a


def _aug_assigned_parameter(n, x):
    for i in range(n):
        x -= i
    return x


def test_body_locals_are_not_loop_variables():
    code = tf.autograph.to_code(_body_local)
    assert "('a',)" in code  # the loop's variables: not t, and not i (no one reads it after)
    assert "nonlocal t" not in code
    f = tf.function(_body_local)
    assert int(f(tf.constant(4))) == _body_local(4) == 12
    assert int(f(tf.constant(0))) == 0


def test_augmented_assignment_reads_its_target():
    # x -= i reads x: x is live at the loop head and stays a loop variable
    assert "'x'" in tf.autograph.to_code(_aug_assigned_parameter)
    assert int(tf.function(_aug_assigned_parameter)(tf.constant(4), 10)) == 10 - 6
