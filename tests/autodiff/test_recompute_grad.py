"""tf.recompute_grad: the same gradients as the plain function (arguments and variables),
with the function run again on the backward pass instead of its intermediates being kept."""

import numpy as np
import pytest

import tfunc as tf


def _block_and_calls():
    calls = []
    w = tf.Variable([[1.0, 2.0, -1.0], [3.0, 4.0, 0.5]])

    def block(x):
        calls.append(1)
        h = tf.tanh(x @ w)
        return tf.exp(h) * h

    return block, w, calls


def _grads(f, x, w):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(f(x) ** 2)
    return tape.gradient(y, [x, w])


@pytest.mark.parametrize("traced", [False, True])
def test_gradients_match_the_plain_function_and_the_function_runs_again(traced):
    block, w, calls = _block_and_calls()
    x = tf.constant([[0.1, -0.2], [0.3, 0.7]])
    ex, ew = _grads(block, x, w)
    calls.clear()
    recomputed = tf.recompute_grad(block)
    f = tf.function(recomputed) if traced else recomputed
    gx, gw = _grads(f, x, w)
    np.testing.assert_allclose(gx.numpy(), ex.numpy(), rtol=1e-5)
    np.testing.assert_allclose(gw.numpy(), ew.numpy(), rtol=1e-5)
    assert len(calls) >= 2  # the forward pass, then the recomputation for the gradient


def test_a_traced_backward_keeps_fewer_forward_values():
    block, w, _ = _block_and_calls()
    x = tf.constant([[0.1, -0.2], [0.3, 0.7]])

    def saved_count(fn):
        f = tf.function(fn)
        _grads(f, x, w)
        split = f.get_concrete_function(x)._grad_split
        return len(split.forward_graph.outputs) - split.n_outputs

    assert saved_count(tf.recompute_grad(block)) < saved_count(block)


def test_python_arguments_get_no_gradient():
    def scale(x, k):
        return x * k

    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.recompute_grad(scale)(x, 3.0)
    assert tape.gradient(y, x).numpy() == 3.0
