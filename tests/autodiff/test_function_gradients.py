"""Gradients with traced functions: a tape inside, a tape outside, and through
control flow; eager, traced and tape-around-function must agree."""

import numpy as np
import pytest

import tfunc as tf


def mlp_params(rng):
    def glorot(i, o):
        lim = np.sqrt(6 / (i + o))
        return rng.uniform(-lim, lim, (i, o)).astype(np.float32)

    return [glorot(8, 16), np.zeros(16, np.float32), glorot(16, 4), np.zeros(4, np.float32)]


def loss_fn(params, x, y):
    w1, b1, w2, b2 = params
    h = tf.nn.relu(tf.matmul(x, w1) + b1)
    logits = tf.matmul(h, w2) + b2
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))


def test_tape_inside_outside_and_eager_agree(rng):
    init = mlp_params(rng)
    x = tf.constant(rng.standard_normal((5, 8)).astype(np.float32))
    y = tf.constant(rng.integers(0, 4, 5).astype(np.int32))

    def step(params, x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(params, x, y)
        return loss, tape.gradient(loss, params)

    eager_p = [tf.Variable(w) for w in init]
    traced_p = [tf.Variable(w) for w in init]
    around_p = [tf.Variable(w) for w in init]
    le, ge = step(eager_p, x, y)
    lt, gt = tf.function(step)(traced_p, x, y)
    f = tf.function(loss_fn)
    with tf.GradientTape() as tape:
        la = f(around_p, x, y)
    ga = tape.gradient(la, around_p)
    assert float(le) == float(lt) == float(la)
    for a, b, c in zip(ge, gt, ga):
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(c.numpy(), a.numpy(), rtol=1e-5, atol=1e-7)


def test_backward_of_a_function_reuses_forward_values():
    @tf.function
    def f(x, w):
        return tf.reduce_sum(tf.tanh(tf.matmul(x, w)))

    x, w = tf.ones([3, 4]), tf.Variable(tf.ones([4, 2]) * 0.1)
    with tf.GradientTape() as tape:
        y = f(x, w)
    g = tape.gradient(y, w)
    expected = x.numpy().T @ (1 - np.tanh(x.numpy() @ w.numpy()) ** 2)
    np.testing.assert_allclose(g.numpy(), expected, rtol=1e-5)
    split = f.get_concrete_function(x, w)._grad_split

    def all_ops(graph):  # node ops, and the ops inside fused groups
        return [m.split(":")[1] for n in graph.nodes() for m in n.meta.get("fused", [f"x:{n.op}"])]

    fwd_ops, bwd_ops = all_ops(split.forward_graph), all_ops(split.backward_graph)
    assert len(split.forward_graph.outputs) > 1  # outputs + saved values
    # the backward graph reads saved values: it does not recompute the forward matmul and tanh
    assert "tanh" not in bwd_ops and sum(op == "matmul" for op in bwd_ops) == 1
    assert "placeholder" in bwd_ops and "matmul" in fwd_ops and "tanh" in fwd_ops


def test_gradients_through_cond_and_while(rng):
    @tf.function
    def g(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            if tf.reduce_sum(x) > 0:
                y = x * x
            else:
                y = x * 3.0
            i = tf.constant(0)
            while i < 3:
                y = y * x
                i += 1
            s = tf.reduce_sum(y)
        return tape.gradient(s, x)

    pos, neg = np.array([1.0, 2.0], np.float32), np.array([-1.0, -2.0], np.float32)
    np.testing.assert_allclose(g(tf.constant(pos)).numpy(), 5 * pos**4, rtol=1e-6)
    np.testing.assert_allclose(g(tf.constant(neg)).numpy(), 12 * neg**3, rtol=1e-6)


def test_gradient_through_a_loop_with_captured_tensors_and_dynamic_trip_count():
    @tf.function
    def f(x, w, n):
        with tf.GradientTape() as tape:
            tape.watch([x, w])
            for _ in tf.range(n):
                x = tf.tanh(x * w)
            s = tf.reduce_sum(x)
        return tape.gradient(s, [x, w])

    def numeric(xv, wv, n, eps=1e-3):
        def val(xv, wv):
            for _ in range(n):
                xv = np.tanh(xv * wv)
            return xv.sum()

        gw = (val(xv, wv + eps) - val(xv, wv - eps)) / (2 * eps)
        return gw

    x0 = np.array([0.3, -0.2, 0.5], np.float32)
    for n in (0, 1, 4):
        _, gw = f(tf.constant(x0), tf.constant(1.5), tf.constant(n))
        np.testing.assert_allclose(float(gw), numeric(x0.astype(np.float64), 1.5, n), rtol=1e-3, atol=1e-4)


def test_gradient_through_tf_cond_and_while_loop_apis():
    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.cond(x > 1.0, lambda: x * x, lambda: x + 1.0)
            (z,) = tf.while_loop(lambda v: v < 100.0, lambda v: (v * 2.0,), (y,))
        return z, tape.gradient(z, x)

    z, g = f(tf.constant(3.0))  # y = 9 -> 144, dz/dx = 2x * 16
    assert float(z) == 144.0 and float(g) == 96.0
    z, g = f(tf.constant(0.5))  # y = 1.5 -> 192, dz/dx = 128
    assert float(z) == 192.0 and float(g) == 128.0


def test_nested_functions_under_a_tape():
    @tf.function
    def inner(x):
        return x * x

    @tf.function
    def outer(x):
        return inner(x) + inner(2.0 * x)

    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = outer(x)
    assert float(tape.gradient(y, x)) == 2 * 3 + 8 * 3


def test_second_order_through_a_traced_function():
    @tf.function
    def cube(x):
        return x * x * x

    x = tf.constant(2.0)
    with tf.GradientTape() as t2:
        t2.watch(x)
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = cube(x)
        dy = t1.gradient(y, x)
    assert float(dy) == 12.0 and float(t2.gradient(dy, x)) == 12.0


def test_py_function_runs_every_call_and_has_a_gradient():
    calls = []

    def py_square(x):
        calls.append(1)
        return x * x

    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.py_function(py_square, [x], tf.float32)
        return y, tape.gradient(y, x)

    y, g = f(tf.constant(3.0))
    y, g = f(tf.constant(4.0))
    assert float(y) == 16.0 and float(g) == 8.0 and len(calls) >= 4  # forward + backward, each call


def test_sgd_training_converges_in_function_and_eagerly(rng):
    x = rng.standard_normal((64, 3)).astype(np.float32)
    y = x @ np.array([1.0, -2.0, 0.5], np.float32) + 0.3

    def train(w, b, steps):
        for _ in range(steps):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(tf.linalg.matmul(x, tf.reshape(w, [3, 1]))[:, 0] + b - y))
            gw, gb = tape.gradient(loss, [w, b])
            w.assign_sub(0.1 * gw)
            b.assign_sub(0.1 * gb)
        return loss

    w1, b1 = tf.Variable(tf.zeros([3])), tf.Variable(0.0)
    w2, b2 = tf.Variable(tf.zeros([3])), tf.Variable(0.0)
    train(w1, b1, 100)
    tf.function(train)(w2, b2, 100)
    np.testing.assert_allclose(w1.numpy(), [1.0, -2.0, 0.5], atol=1e-3)
    np.testing.assert_allclose(w2.numpy(), w1.numpy(), rtol=1e-5, atol=1e-6)


def test_unused_outputs_of_multi_output_ops_get_no_materialised_gradient():
    """The cross-entropy's backprop output and a py_function's second output carry no
    gradient: the backward pass neither builds zeros for them nor recomputes a softmax."""
    w = tf.Variable(np.linspace(-1, 1, 12).reshape(4, 3).astype(np.float32))
    labels = tf.constant([0, 2, 1, 2])

    @tf.function
    def step(x):
        with tf.GradientTape() as tape:
            logits = tf.matmul(x, w)
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
        return tape.gradient(loss, w)

    x = tf.constant(np.arange(16, dtype=np.float32).reshape(4, 4) / 10)
    g = step(x)
    ops = [n.op for n in step.get_concrete_function(x).optimized_graph.nodes()]
    assert "softmax" not in ops and "fill" not in ops and "zeros_like" not in ops, ops
    logits = x.numpy() @ w.numpy()
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    p[np.arange(4), labels.numpy()] -= 1
    np.testing.assert_allclose(g.numpy(), x.numpy().T @ p / 4, rtol=1e-5, atol=1e-6)

    def two(a):
        return a * 2.0, a * 3.0

    a = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(a)
        first, _ = tf.py_function(two, [a], [tf.float32, tf.float32])
        total = tf.reduce_sum(first)
    np.testing.assert_allclose(tape.gradient(total, a).numpy(), [2.0, 2.0])


def test_tape_outside_reaches_a_tensor_the_function_reads_from_its_closure():
    x = tf.constant(2.0)

    @tf.function
    def f():
        return x * x * 3

    @tf.function
    def g(a):
        return a * x + tf.sin(x)

    assert f().numpy() == 12.0  # traced with no tape: x is folded in as a constant
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f()
    assert tape.gradient(y, x).numpy() == 12.0  # TensorFlow: 12 (it was None)
    a = tf.constant(1.5)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, a])
        y = g(a)
    gx, ga = tape.gradient(y, [x, a])
    np.testing.assert_allclose([gx.numpy(), ga.numpy()], [1.5 + np.cos(2.0), 2.0], rtol=1e-6)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = f()
        d = inner.gradient(y, x)
    assert d.numpy() == 12.0 and outer.gradient(d, x).numpy() == 6.0


def test_a_watched_closure_tensor_used_in_a_branch_or_loop_is_refused_not_partial():
    c, x = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])

    @tf.function
    def inner(a):
        return c * a

    @tf.function
    def nested(a):  # an inlined nested function: both uses count
        return tf.reduce_sum(c * a + inner(a))

    @tf.function
    def branch(a):
        return tf.reduce_sum(c * a) + tf.cond(tf.reduce_sum(a) > 0, lambda: tf.reduce_sum(c * a), lambda: 0.0)

    @tf.function
    def only_branch(a):
        return tf.cond(tf.reduce_sum(a) > 0, lambda: tf.reduce_sum(c * a), lambda: 0.0)

    for f in (nested, branch, only_branch):
        f(x)  # traced with no tape: c is folded in
    with tf.GradientTape() as tape:
        tape.watch(c)
        y = nested(x)
    assert tape.gradient(y, c).numpy().tolist() == [6.0, 8.0]  # TensorFlow: [6, 8]
    for f in (branch, only_branch):  # TF: [6, 8] and [3, 4]; tfunc says it cannot, never a part
        with pytest.raises(NotImplementedError, match="as an argument"):
            with tf.GradientTape() as tape:
                tape.watch(c)
                f(x)
    with tf.GradientTape() as tape:  # unwatched, the capture is a plain constant
        tape.watch(x)
        y = only_branch(x * 1.0)
    assert tape.gradient(y, x).numpy().tolist() == [1.0, 2.0]


def test_tape_outside_reaches_a_closure_tensor_read_only_by_a_nested_function():
    d = tf.constant(2.0)

    @tf.function
    def inner(a):
        return d * a

    @tf.function
    def outer(a):
        return inner(a) + 0.0

    @tf.function
    def outer_branch(a):
        return tf.cond(a > 0, lambda: inner(a), lambda: a)

    for f in (outer, outer_branch):
        f(tf.constant(3.0))
    with tf.GradientTape() as tape:
        tape.watch(d)
        y = outer(tf.constant(3.0))
    assert tape.gradient(y, d).numpy() == 3.0  # TensorFlow: 3.0 (it was None)
    with pytest.raises(NotImplementedError, match="as an argument"):
        with tf.GradientTape() as tape:
            tape.watch(d)
            outer_branch(tf.constant(3.0))
