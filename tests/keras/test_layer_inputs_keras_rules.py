"""Keras 3's rules for layer inputs: merging inputs of different ranks, an unknown batch size
(Conv2DTranspose, Reshape with -1), integer inputs, and sample weights of rank one more than
the losses.  Expected values are Keras 3.15's (TensorFlow backend)."""

import numpy as np
import pytest

import tfunc as tf

L = tf.keras.layers


@pytest.mark.parametrize("mode", ["eager", "function"])
def test_merging_a_lower_rank_input_expands_it_after_the_batch_axis(mode):
    a = np.zeros((2, 2, 3), np.float32)
    e = np.array([[1.0] * 3, [100.0] * 3], np.float32)
    add = L.Add()
    run = add if mode == "eager" else tf.function(lambda xs: add(xs))
    out = run([tf.constant(a), tf.constant(e)]).numpy()
    assert out[0].tolist() == [[1.0] * 3] * 2 and out[1].tolist() == [[100.0] * 3] * 2  # rows stay in their batch
    b, f = np.ones((2, 3, 4), np.float32), np.arange(8, dtype=np.float32).reshape(2, 4)
    np.testing.assert_array_equal(L.Maximum()([b, f]).numpy(), np.maximum(b, f[:, None, :]))
    i1, i2 = tf.keras.Input((3, 4)), tf.keras.Input((4,))
    assert L.Multiply()([i1, i2]).shape.as_list() == [None, 3, 4]
    with pytest.raises(ValueError, match="different batch sizes"):
        L.Add()([np.ones((2, 3), np.float32), np.ones((1, 3), np.float32)])


def test_conv2d_transpose_and_reshape_with_an_unknown_batch():
    x = tf.keras.Input((4, 4, 3))
    y = L.Conv2DTranspose(2, 3, strides=2, padding="same")(x)
    assert y.shape.as_list() == [None, 8, 8, 2]
    model = tf.keras.Sequential([tf.keras.Input((4, 4, 3)), L.Conv2DTranspose(2, 3, strides=2, padding="same")])
    assert model.predict(np.ones((5, 4, 4, 3), np.float32), verbose=0).shape == (5, 8, 8, 2)
    inp = tf.keras.Input((2, 3, 4))
    assert L.Reshape((-1,))(inp).shape.as_list() == [None, 24]
    assert L.Reshape((-1, 2))(inp).shape.as_list() == [None, 12, 2]
    dense = L.Dense(3)(L.Reshape((-1,))(inp))  # needs the last dimension known
    assert dense.shape.as_list() == [None, 3]
    f = tf.function(lambda t: L.Reshape((3, -1))(t), input_signature=[tf.TensorSpec([None, 2, 3, 4])])
    assert f.get_concrete_function().structured_outputs.shape.as_list() == [None, 3, 8]
    assert f(np.ones((2, 2, 3, 4), np.float32)).shape == (2, 3, 8)
    with pytest.raises(ValueError, match="total size of the tensor must be unchanged"):
        L.Reshape((-1, 5))(inp)


def test_integer_inputs_as_keras_takes_them():
    x = tf.constant([[1, -2, 3]], tf.int32)
    tanh = L.Activation("tanh")(x)
    assert tanh.dtype == tf.float32
    np.testing.assert_allclose(tanh.numpy(), np.tanh([[1.0, -2.0, 3.0]]), rtol=1e-6)
    assert L.Activation("exponential")(x).dtype == tf.float32
    leaky = L.LeakyReLU()(x)
    assert leaky.dtype == tf.float32 and np.allclose(leaky.numpy(), [[1.0, -0.6, 3.0]])
    bn = L.BatchNormalization()(x)  # inference: x / sqrt(1 + 0.001)
    assert bn.dtype == tf.float32 and np.allclose(bn.numpy(), [[0.9995, -1.999, 2.9985]], atol=1e-4)
    ln = L.LayerNormalization()(x)
    xs = np.array([1.0, -2.0, 3.0])
    assert ln.dtype == tf.float32 and np.allclose(ln.numpy(), [(xs - xs.mean()) / np.sqrt(xs.var() + 1e-3)], atol=1e-5)
    avg = L.Average()([x, x * 2])
    assert avg.dtype == tf.float64 and avg.numpy().tolist() == [[1.5, -3.0, 4.5]]
    assert L.Add()([x, x]).dtype == tf.int32


def test_loss_weights_of_one_more_rank_than_the_losses():
    yt = np.array([[0.0], [1.0], [2.0], [3.0]], np.float32)
    yp = np.array([[0.5], [1.0], [1.0], [5.0]], np.float32)
    sw = np.array([[1.0], [0.0], [2.0], [0.5]], np.float32)
    per_sample = tf.keras.losses.MeanSquaredError(reduction="none")(yt, yp, sample_weight=sw)
    assert per_sample.shape == (4, 1)  # Keras expands the (4,) losses to the weights' (4, 1)
    np.testing.assert_allclose(per_sample.numpy().ravel(), ((yt - yp) ** 2).ravel() * sw.ravel())
    weighted_mean = tf.keras.losses.MeanSquaredError(reduction="mean_with_sample_weight")
    assert float(weighted_mean(yt, yp, sample_weight=2.0)) == pytest.approx(5.25)  # divided by the weight given


def test_a_valid_window_longer_than_the_input_is_refused():
    x = np.ones((1, 2, 2, 1), np.float32)
    for layer in (L.Conv2D(2, 3), L.DepthwiseConv2D(3), L.Conv2D(2, 2, dilation_rate=2)):
        with pytest.raises(ValueError, match="zero or negative"):
            layer(x)
    assert L.Conv2D(2, 2)(x).shape == (1, 1, 1, 2) and L.Conv2D(2, 3, padding="same")(x).shape == (1, 2, 2, 2)


def test_a_valid_pooling_window_longer_than_the_input_is_refused():
    for layer, x in (
        (L.MaxPooling2D(3, strides=1), np.ones((1, 2, 2, 1), np.float32)),
        (L.AveragePooling1D(4), np.ones((1, 3, 2), np.float32)),
    ):
        with pytest.raises(ValueError, match="zero or negative"):
            layer(x)
    assert L.MaxPooling2D(2)(np.ones((1, 2, 2, 1), np.float32)).shape == (1, 1, 1, 1)
