"""Keras layers' symbolic shapes and errors as Keras 3.15's: merges of unknown and known sizes,
RNN masks of the wrong length, global max pooling of nothing.  Expected values: TF 2.21 /
Keras 3.15 on the same calls."""

import numpy as np
import pytest

import tfunc as tf

keras = tf.keras
L = keras.layers


@pytest.mark.parametrize("merge", [L.Add, L.Subtract, L.Multiply, L.Average, L.Maximum, L.Minimum])
def test_symbolic_merge_of_an_unknown_and_a_known_size_is_unknown(merge):
    # TF 2.21 gives (None, None, 4) both ways (tfunc gave (None, 3, 4))
    assert merge()([keras.Input((None, 4)), keras.Input((3, 4))]).shape == (None, None, 4)
    assert merge()([keras.Input((3, 4)), keras.Input((None, 4))]).shape == (None, None, 4)


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [((None, 1), (3, 4), (None, None, 4)), ((1, 4), (None, 4), (None, None, 4)), ((3,), (None,), (None, None))],
)
def test_symbolic_add_follows_keras_shape_rule(a, b, expected):
    # TF 2.21 gives these shapes: a 1 takes the other size, None stays None
    assert L.Add()([keras.Input(a), keras.Input(b)]).shape == expected


def test_merge_compute_output_shape_and_concatenate():
    # TF 2.21 gives (None, None, 4), (None, None, 6) and, run on values, the values' shape
    assert L.Add().compute_output_shape([(None, None, 4), (None, 3, 4)]) == (None, None, 4)
    assert L.Concatenate()([keras.Input((None, 4)), keras.Input((3, 2))]).shape == (None, None, 6)
    assert L.Add()([np.ones((2, 3, 4), "float32"), np.ones((2, 3, 4), "float32")]).shape == (2, 3, 4)


def test_functional_model_with_a_relaxed_merge_runs():
    a, b = keras.Input((None, 4)), keras.Input((3, 4))
    model = keras.Model([a, b], L.Dense(2)(L.Add()([a, b])))
    assert model.output.shape == (None, None, 2)
    out = model.predict([np.ones((2, 3, 4), "float32"), np.ones((2, 3, 4), "float32")], verbose=0)
    assert out.shape == (2, 3, 2)


@pytest.mark.parametrize("rnn", [L.GRU, L.LSTM, L.SimpleRNN])
def test_rnn_mask_with_fewer_steps_raises(rnn):
    # TF 2.21 raises OutOfRangeError "Tried to read from index 3 but array size is: 3"
    # (tfunc returned (1, 3, 3): three steps for a four-step sequence)
    with pytest.raises(tf.errors.OutOfRangeError, match="mask of shape"):
        rnn(3, return_sequences=True)(np.ones((1, 4, 2), "float32"), mask=np.array([[1, 0, 1]], bool))


@pytest.mark.parametrize("rnn", [L.GRU, L.LSTM, L.SimpleRNN])
def test_rnn_mask_with_more_steps_raises(rnn):
    # TF 2.21 raises ValueError "Cannot unstack 5 tensors into a TensorArray of static size 4"
    with pytest.raises(ValueError, match="more steps than the inputs"):
        rnn(3, return_sequences=True)(np.ones((1, 4, 2), "float32"), mask=np.array([[1, 0, 1, 1, 1]], bool))


def test_rnn_mask_batch_size():
    gru = L.GRU(3, return_sequences=True)
    # TF 2.21 broadcasts a one-row mask: (2, 4, 3)
    assert gru(np.ones((2, 4, 2), "float32"), mask=np.array([[1, 0, 1, 1]], bool)).shape == (2, 4, 3)
    # TF 2.21 raises ValueError "Incompatible shape for value ((2, 3)), expected ((1, 3))"
    with pytest.raises(ValueError, match="batch sizes differ"):
        gru(np.ones((1, 4, 2), "float32"), mask=np.array([[1, 0, 1, 1]] * 2, bool))


def test_rnn_mask_of_unknown_length_is_checked_when_run():
    gru = L.GRU(3, return_sequences=True)
    spec = [tf.TensorSpec([None, None, 2]), tf.TensorSpec([None, None], tf.bool)]
    run = tf.function(lambda x, m: gru(x, mask=m), input_signature=spec)
    # TF 2.21 gives (1, 4, 3) for a matching mask and raises InvalidArgumentError for a shorter one
    assert run(np.ones((1, 4, 2), "float32"), np.array([[1, 0, 1, 1]], bool)).shape == (1, 4, 3)
    with pytest.raises(tf.errors.InvalidArgumentError):
        run(np.ones((1, 4, 2), "float32"), np.array([[1, 0, 1]], bool))


@pytest.mark.parametrize(
    ("layer", "shape"),
    [
        (L.GlobalMaxPooling1D(), (2, 0, 3)),
        (L.GlobalMaxPooling1D(data_format="channels_first"), (2, 3, 0)),
        (L.GlobalMaxPooling2D(), (2, 0, 3, 3)),
        (L.GlobalMaxPooling3D(), (2, 0, 2, 2, 3)),
    ],
)
def test_global_max_pooling_of_nothing_raises(layer, shape):
    # TF 2.21 raises InvalidArgumentError "Cannot compute the max of an empty tensor." (tfunc: -inf)
    with pytest.raises(tf.errors.InvalidArgumentError, match="max of an empty tensor"):
        layer(np.ones(shape, "float32"))


def test_global_max_pooling_of_nothing_traced_is_minus_infinity():
    model = keras.Sequential([keras.Input((None, 3)), L.GlobalMaxPooling1D()])
    # TF 2.21 gives -inf from predict (traced: no eager size check)
    np.testing.assert_array_equal(model.predict(np.ones((2, 0, 3), "float32"), verbose=0), np.full((2, 3), -np.inf))
