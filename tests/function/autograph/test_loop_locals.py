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


def _branch_sets_a_dead_name(n, m, range_=range):
    a, b, c, d = 6, 8, 8, 8
    for _ in range_(n + 1):
        for i2 in range_(m + 1):  # noqa: B007 - i2 is read after the loop
            pass
        d = (d + i2) % 97
        if 8 < (n * c):
            for _ in range(n):
                pass
            b = ((a + d) - (n - d)) % 97
            for _i4 in range(1):  # set in a tensor branch, never read after it
                c = 3
    b = ((a - 7) + (d % 2)) % 97
    return a, b, c, d


def test_names_a_branch_sets_and_nobody_reads_are_not_conditional_outputs():
    # found by the AutoGraph fuzzer: i4 as an output of the tensor if, its value from the
    # loop's probe trace leaked into the loop's real trace (LeakedTensorError)
    f = tf.function(_branch_sets_a_dead_name)
    for n, m in ((0, 2), (2, 1)):
        want = _branch_sets_a_dead_name(n, m)
        assert tuple(int(v) for v in f(n, m, tf.range)) == want  # tensor loops over Python bounds
        assert tuple(int(v) for v in f(tf.constant(n), tf.constant(m))) == want


def _nested_branch_feeds_outer_branch(n, m):
    a, b, c, d = 1, 0, 2, 1
    w1 = 0
    while w1 < n + 1:
        w1 += 1
        if c == n:
            if a < m:
                b = (c * m) % 97
            elif b != 0:  # reads b: b is state of the outer if, an output of its branches
                b = (a - (m + d)) % 97  # b is dead after the inner if, but the outer if outputs it
            else:
                d = (d + d) % 97
        b = (c + d) % 97
    return a, b, c, d


def test_names_an_enclosing_conditional_outputs_stay_state_of_inner_ones():
    # found by the AutoGraph fuzzer: b left out of the inner if's state kept a value of the
    # inner branch's graph, which the outer if then output (LeakedTensorError)
    f = tf.function(_nested_branch_feeds_outer_branch)
    for n, m in ((0, 2), (3, 1), (2, 4)):
        assert tuple(int(v) for v in f(n, tf.constant(m))) == _nested_branch_feeds_outer_branch(n, m)
