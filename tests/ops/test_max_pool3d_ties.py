"""max_pool3d's gradient with tied maxima: TensorFlow's CPU MaxPool3DGrad gives each window's
gradient to EVERY tied maximum (2-D MaxPoolGrad: to the first only), while MaxPool3DGradGrad,
its registered gradient, reads the first maximum.  Expected values recorded from TF 2.21."""

import numpy as np
import pytest

import tfunc as tf

CASES = [  # x, ksize, strides, padding, weights w, TF's dx (dy = 1), TF's d(sum(dx * w))/d(dy)
    (np.ones(3), [2, 1, 1], 1, "VALID", [1.0, 10.0, 100.0], [1.0, 2.0, 1.0], [1.0, 10.0]),
    ([1.0, 3.0, 3.0, 2.0, 3.0], [3, 1, 1], 1, "SAME", [1, 10, 100, 1000, 1e4], [0, 3, 3, 0, 2], [10, 10, 10, 100, 1e4]),
]


def _grads(x, dy, w, ksize, strides, padding):
    """dx of max_pool3d for upstream dy, and the gradient of sum(dx * w) with respect to dy."""
    with tf.GradientTape() as outer:
        outer.watch(dy)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.nn.max_pool3d(x, ksize, strides, padding)
        dx = inner.gradient(y, x, output_gradients=dy)
        z = tf.reduce_sum(dx * w)
    return dx, outer.gradient(z, dy)


@pytest.mark.parametrize("case", range(len(CASES)))
def test_max_pool3d_gradient_goes_to_every_tied_maximum(case):
    x, ksize, strides, padding, w, want_dx, want_ddy = CASES[case]
    x = np.asarray(x, np.float32).reshape(1, -1, 1, 1, 1)
    w = np.asarray(w, np.float32).reshape(x.shape)
    dy = np.ones((1, len(want_ddy), 1, 1, 1), np.float32)
    run = lambda a, b, c: _grads(a, b, c, ksize, strides, padding)  # noqa: E731
    for fn in (run, tf.function(run)):
        dx, ddy = fn(tf.constant(x), tf.constant(dy), tf.constant(w))
        np.testing.assert_array_equal(np.asarray(dx).ravel(), want_dx)
        np.testing.assert_array_equal(np.asarray(ddy).ravel(), want_ddy)


def test_max_pool3d_gradient_of_an_all_tied_window():
    x = tf.constant(np.ones((1, 2, 2, 2, 1), np.float32))  # TF: every element gets the window's gradient

    def grad(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.nn.max_pool3d(x, 2, 2, "VALID"))
        return tape.gradient(y, x)

    for fn in (grad, tf.function(grad)):
        np.testing.assert_array_equal(np.asarray(fn(x)), np.ones((1, 2, 2, 2, 1)))


def test_max_pool2d_gradient_still_goes_to_the_first_maximum():
    x = tf.constant(np.ones((1, 2, 2, 1), np.float32))  # TF's MaxPoolGrad: the first in row-major order

    def grad(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.nn.max_pool2d(x, 2, 2, "VALID"))
        return tape.gradient(y, x)

    for fn in (grad, tf.function(grad)):
        np.testing.assert_array_equal(np.asarray(fn(x)).ravel(), [1, 0, 0, 0])
