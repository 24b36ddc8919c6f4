"""reverse_sequence's axis validation and the static shapes of space_to_batch / batch_to_space
inside tf.function, as TensorFlow 2.21 gives them."""

import numpy as np
import pytest

import tfunc as tf

X = np.arange(2 * 4 * 6 * 3, dtype=np.float32).reshape(2, 4, 6, 3)


def eager_and_traced(fn, *args):
    return [fn(*args), tf.function(fn)(*args)]


@pytest.mark.parametrize("seq_axis, batch_axis", [(-1, 0), (-3, 0), (1, -4), (1, -1), (4, 0), (1, 4)])
def test_reverse_sequence_refuses_negative_and_out_of_range_axes(seq_axis, batch_axis):
    # TensorFlow 2.21: "Invalid seq_dim -1", "Invalid batch_dim -4", "seq_dim must be < input rank"
    for run in (lambda f: f(X), lambda f: tf.function(f)(X)):
        with pytest.raises(tf.errors.InvalidArgumentError):
            run(lambda x: tf.reverse_sequence(x, [1, 2], seq_axis=seq_axis, batch_axis=batch_axis))


def test_reverse_sequence_needs_seq_axis():
    # TensorFlow 2.21: TypeError "Expected int for argument 'seq_dim' not None."
    with pytest.raises(TypeError):
        tf.reverse_sequence(X, [1, 2])
    with pytest.raises(TypeError):
        tf.reverse_sequence(X, [1, 2], batch_axis=0)


def test_reverse_sequence_batch_axis_defaults_to_zero():
    for got in eager_and_traced(lambda x: tf.reverse_sequence(x, [2, 0], seq_axis=1), X):
        want = X.copy()
        want[0, :2] = X[0, 1::-1]
        np.testing.assert_array_equal(got, want)


# (input signature, block_shape, paddings, space_to_batch's static shape, batch_to_space's),
# each as TensorFlow 2.21 infers them inside tf.function
STATIC_SHAPES = [
    ([2, 4, 6, 3], [2, 3], [[0, 0], [0, 0]], [12, 2, 2, 3], [2, 4, 6, 3]),
    ([None, 4, 6, 3], [2, 3], [[0, 0], [0, 0]], [None, 2, 2, 3], [None, 4, 6, 3]),
    ([None, 4, 6, 3], [2, 2], [[0, 0], [1, 1]], [None, 2, 4, 3], [None, 4, 6, 3]),
    ([2, None, 6, 3], [2, 2], [[0, 0], [1, 1]], [8, None, 4, 3], [2, None, 6, 3]),
    ([2, None, 6, 3], [2], [[2, 2]], [4, None, 6, 3], [2, None, 6, 3]),
    ([None, 4, None, 3], [2, 3], [[0, 0], [0, 0]], [None, 2, None, 3], [None, 4, None, 3]),
]


@pytest.mark.parametrize("signature, block, pads, forward, back", STATIC_SHAPES)
@pytest.mark.parametrize("as_tensors", [False, True])
def test_space_to_batch_keeps_static_dimensions(signature, block, pads, forward, back, as_tensors):
    shapes = {}

    @tf.function(input_signature=[tf.TensorSpec(signature, tf.float32)])
    def f(x):
        b, p = (tf.constant(block), tf.constant(pads)) if as_tensors else (block, pads)
        y = tf.space_to_batch(x, b, p)
        z = tf.batch_to_space(y, b, p)
        shapes["nd"] = tf.space_to_batch_nd(x, b, p).shape.as_list()
        shapes["y"], shapes["z"] = y.shape.as_list(), z.shape.as_list()
        return z

    np.testing.assert_array_equal(f(X), X)  # batch_to_space undoes space_to_batch
    assert shapes == {"y": forward, "z": back, "nd": forward}
