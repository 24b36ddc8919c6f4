"""Input that TensorFlow's tf.nn / tf.linalg refuse is refused here too, with an error that
names what was wrong (it used to be accepted, and sometimes silently mis-read)."""

import numpy as np
import pytest

import tfunc as tf
from tfunc.core.errors import InvalidArgumentError, UnimplementedError

X = np.ones((2, 5, 5, 3), np.float32)
W = np.ones((2, 2, 3, 1), np.float32)
V = np.ones((1, 4, 4, 4, 2), np.float32)
K3 = np.ones((2, 2, 2, 2, 1), np.float32)


@pytest.mark.parametrize("dtype", [tf.int32, tf.int64, tf.complex64, tf.bool])
def test_l2_loss_refuses_non_floating_input(dtype):
    # TF 2.21: InvalidArgumentError (L2Loss allows half, bfloat16, float, double); tfunc gave float64 7.0
    with pytest.raises(InvalidArgumentError, match="l2_loss: t must be a floating tensor"):
        tf.nn.l2_loss(tf.cast(tf.constant([1, 2, 3]), dtype))


def test_l2_loss_keeps_floating_dtype():
    # TF 2.21 gives float16 7.0
    out = tf.nn.l2_loss(tf.constant([1, 2, 3], tf.float16))
    assert out.dtype == tf.float16 and float(out) == 7.0


@pytest.mark.parametrize("strides", [[2, 1, 1, 1], [1, 1, 1, 2]])
def test_conv2d_refuses_batch_and_depth_strides(strides):
    # TF 2.21: UnimplementedError "does not yet support strides in the batch and depth dimensions";
    # tfunc dropped the batch stride and returned (2, 4, 4, 1)
    with pytest.raises(UnimplementedError, match="batch and depth"):
        tf.nn.conv2d(X, W, strides=strides, padding="VALID")
    with pytest.raises(UnimplementedError, match="batch and depth"):
        tf.nn.depthwise_conv2d(X, W, strides, padding="VALID")


def test_conv2d_transpose_refuses_batch_stride():
    # TF 2.21: InvalidArgumentError "does not yet support strides in the batch and depth dimensions"
    with pytest.raises(InvalidArgumentError, match="batch and depth"):
        tf.nn.conv2d_transpose(X, np.ones((2, 2, 1, 3), np.float32), [2, 5, 5, 1], [2, 1, 1, 1], "SAME")


@pytest.mark.parametrize(
    "conv",
    [
        lambda p: tf.nn.conv2d(X, W, 1, padding=p),
        lambda p: tf.nn.conv1d(np.ones((2, 5, 3), np.float32), np.ones((2, 3, 1), np.float32), 1, padding=p),
        lambda p: tf.nn.convolution(X, W, padding=p),
        lambda p: tf.nn.depthwise_conv2d(X, W, [1, 1, 1, 1], padding=p),
        lambda p: tf.nn.conv2d_transpose(X, np.ones((2, 2, 1, 3), np.float32), [2, 5, 5, 1], 1, padding=p),
        lambda p: tf.nn.conv3d(V, K3, [1, 1, 1, 1, 1], padding=p),
        lambda p: tf.nn.conv3d_transpose(V, np.ones((2, 2, 2, 1, 2), np.float32), [1, 4, 4, 4, 1], 1, padding=p),
    ],
)
@pytest.mark.parametrize("padding", ["same", "valid", "Same"])
def test_convolutions_refuse_lowercase_padding(conv, padding):
    # TF 2.21: InvalidArgumentError "Value for attr 'padding' of "same" is not in the list of allowed values"
    with pytest.raises(InvalidArgumentError, match="padding must be one of 'SAME', 'VALID'"):
        conv(padding)


def test_conv3d_refuses_an_int_stride():
    # TF 2.21: TypeError "Expected list for 'strides' argument to 'conv3d' Op, not 1"
    with pytest.raises(TypeError, match="conv3d: strides must be a list of 5 ints"):
        tf.nn.conv3d(V, K3, 1, "VALID")
    with pytest.raises(TypeError, match="conv3d: dilations must be a list of 5 ints"):
        tf.nn.conv3d(V, K3, [1, 1, 1, 1, 1], "VALID", dilations=1)
    # TF 2.21 gives shape (1, 3, 3, 3, 1), all 16.0, for 5 entries; conv3d_transpose takes an int stride
    np.testing.assert_array_equal(tf.nn.conv3d(V, K3, (1, 1, 1, 1, 1), "VALID").numpy(), np.full((1, 3, 3, 3, 1), 16.0))
    assert tf.nn.conv3d_transpose(V, np.ones((2, 2, 2, 1, 2), np.float32), [1, 4, 4, 4, 1], 1).shape == (1, 4, 4, 4, 1)


X1 = np.ones((2, 5, 3), np.float32)


@pytest.mark.parametrize(
    "pool",
    [
        lambda p: tf.nn.avg_pool(X, 2, 1, padding=p),
        lambda p: tf.nn.max_pool(X, 2, 1, padding=p),
        lambda p: tf.nn.max_pool2d(X, 2, 1, padding=p),
        lambda p: tf.nn.avg_pool1d(X1, 2, 1, padding=p),
        lambda p: tf.nn.max_pool1d(X1, 2, 1, padding=p),
        lambda p: tf.nn.avg_pool3d(V, 2, 1, padding=p),
        lambda p: tf.nn.max_pool3d(V, 2, 1, padding=p),
        lambda p: tf.nn.pool(X, [2, 2], "MAX", padding=p),
    ],
)
def test_pooling_refuses_lowercase_padding(pool):
    # TF 2.21: InvalidArgumentError "Value for attr 'padding' of "same" is not in the list of allowed values"
    with pytest.raises(InvalidArgumentError, match="padding must be 'SAME' or 'VALID'"):
        pool("same")


PAIRS2 = [[0, 0], [1, 1], [1, 1], [0, 0]]


@pytest.mark.parametrize(
    "pool",
    [
        lambda: tf.nn.avg_pool(X, 2, 1, padding=PAIRS2),
        lambda: tf.nn.avg_pool2d(X, 2, 1, padding=PAIRS2),
        lambda: tf.nn.avg_pool1d(X1, 2, 1, padding=[[0, 0], [1, 1], [0, 0]]),
        lambda: tf.nn.avg_pool3d(V, 2, 1, padding=[[0, 0], [1, 1], [1, 1], [1, 1], [0, 0]]),
        lambda: tf.nn.max_pool3d(V, 2, 1, padding=[[0, 0], [1, 1], [1, 1], [1, 1], [0, 0]]),
        lambda: tf.nn.pool(X, [2, 2], "AVG", padding=PAIRS2),
    ],
)
def test_average_and_3d_pooling_refuse_explicit_padding(pool):
    # TF 2.21: TypeError "Expected string for argument 'padding' not [[0, 0], [1, 1], [1, 1], [0, 0]]"
    with pytest.raises(TypeError, match="takes padding 'SAME' or 'VALID' only"):
        pool()


def test_max_pool2d_keeps_explicit_padding():
    # TF 2.21 gives shape (2, 6, 6, 3), all ones
    np.testing.assert_array_equal(tf.nn.max_pool2d(X, 2, 1, padding=PAIRS2).numpy(), np.ones((2, 6, 6, 3)))


@pytest.mark.parametrize("dtype", [tf.int32, tf.bool, tf.complex64])
def test_dropout_refuses_non_floating_input(dtype):
    # TF 2.21: ValueError "`x.dtype` must be a floating point tensor as `x` will be scaled" (even at rate 0);
    # tfunc raised "Must specify maxval for integer dtype tf.int32"
    for rate in (0.5, 0.0):
        with pytest.raises(ValueError, match="dropout: x.dtype must be a floating point tensor"):
            tf.nn.dropout(tf.cast(tf.constant([1, 2, 3]), dtype), rate, seed=1)


P = [[0.1, 0.9], [0.8, 0.2]]


@pytest.mark.parametrize("dtype", [tf.float64, tf.float16, tf.int32])
def test_in_top_k_refuses_predictions_that_are_not_float32(dtype):
    # TF 2.21: InvalidArgumentError "expected to be a float tensor but is a double tensor"
    with pytest.raises(InvalidArgumentError, match="in_top_k: predictions must be a float32 tensor"):
        tf.math.in_top_k(tf.constant([1, 0]), tf.cast(tf.constant(P), dtype), 1)


def test_in_top_k_targets_and_converted_operands():
    # TF 2.21: InvalidArgumentError "Value for attr 'T' of float is not in the list of allowed values: int32, int64"
    with pytest.raises(InvalidArgumentError, match="in_top_k: targets must be an int32 or int64 tensor"):
        tf.math.in_top_k(tf.constant([1.0, 0.0]), tf.constant(P), 1)
    # TF 2.21 gives [True, True] for NumPy float64 predictions (converted to float32) and int64 targets
    out = tf.math.in_top_k(tf.constant([1, 0], tf.int64), np.array(P), 1)
    np.testing.assert_array_equal(out.numpy(), [True, True])


def test_top_k_refuses_a_float_k():
    x = tf.constant([1.0, 3.0, 2.0])
    # TF 2.21: TypeError "Cannot convert 2.0 to EagerTensor of dtype int32"
    with pytest.raises(TypeError, match="top_k: k must be an int"):
        tf.math.top_k(x, 2.0)
    # TF 2.21: InvalidArgumentError "Value for attr 'Tk' of float is not in the list of allowed values"
    with pytest.raises(InvalidArgumentError, match="top_k: k must be an int16, int32 or int64 tensor"):
        tf.math.top_k(x, tf.constant(2.0))
    # TF 2.21 gives indices [1, 2] for an int64 tensor k and for a NumPy float32 k
    np.testing.assert_array_equal(tf.math.top_k(x, tf.constant(2, tf.int64)).indices.numpy(), [1, 2])
    np.testing.assert_array_equal(tf.math.top_k(x, np.float32(2)).indices.numpy(), [1, 2])


EYE = np.eye(3, dtype=np.float32)


@pytest.mark.parametrize(
    "matrix, rhs, what",
    [
        (np.stack([EYE, EYE]), np.ones((3, 1), np.float32), "same rank"),  # TF 2.21: "... the same rank"
        (EYE, np.ones((2, 3, 1), np.float32), "same rank"),
        (EYE[None], np.ones((2, 3, 1), np.float32), "same batch dimensions"),  # TF 2.21: "same outer dimensions"
    ],
)
def test_solve_refuses_batch_broadcasting(matrix, rhs, what):
    # TF 2.21: InvalidArgumentError from MatrixSolve; tfunc broadcast and returned shape (2, 3, 1)
    with pytest.raises(InvalidArgumentError, match=f"solve: matrix and rhs must have the {what}"):
        tf.linalg.solve(matrix, rhs)


def test_solve_gradient_with_adjoint_still_works():
    # TF 2.21 gives d sum(solve(A, B, adjoint=True) ** 2) / dA = [[-0.16, -0], [-0.08, -0]] in the first batch
    a = tf.Variable(np.array([[[2.0, 1.0], [1.0, 3.0]], [[4.0, 1.0], [0.0, 2.0]]], np.float32))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.linalg.solve(a, np.ones((2, 2, 1), np.float32), adjoint=True) ** 2)
    np.testing.assert_allclose(tape.gradient(y, a).numpy()[0], [[-0.16, 0.0], [-0.08, 0.0]], atol=1e-6)


@pytest.mark.parametrize("which", ["argmax", "dilation", "erosion"])
def test_morphology_and_argmax_pooling_padding_is_case_sensitive(which):
    # TF 2.21: InvalidArgumentError for 'same' / 'valid' in lower case
    x, f = tf.ones([1, 4, 4, 1]), tf.ones([2, 2, 1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="upper case"):
        if which == "argmax":
            tf.nn.max_pool_with_argmax(x, 2, 2, "same")
        elif which == "dilation":
            tf.nn.dilation2d(x, f, [1, 1, 1, 1], "same", "NHWC", [1, 1, 1, 1])
        else:
            tf.nn.erosion2d(x, f, [1, 1, 1, 1], "valid", "NHWC", [1, 1, 1, 1])
