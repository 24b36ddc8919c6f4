"""TextVectorization against Keras 3.15 (tests/keras/fixtures/lookup_values.json, from
make_lookup_values.py): outputs, configs and vocabularies, eagerly and inside tf.function, for
each standardize/split/ngrams/output mode; adapt from datasets; callables; errors."""

import numpy as np
import pytest

import tfunc as tf

from .fixtures import lookup_cases
from .test_lookup_layers import VALUES, check_case

TV_CASES = [c for c in lookup_cases.CASES if c[1] == "TextVectorization"]


@pytest.mark.parametrize("mode", ["eager", "function"])
@pytest.mark.parametrize("case", TV_CASES, ids=[c[0] for c in TV_CASES])
def test_matches_keras(case, mode):
    check_case(case, mode)


def test_adapt_from_a_dataset_and_in_dataset_map():
    ds = tf.data.Dataset.from_tensor_slices(np.array(lookup_cases._TEXT)).batch(4)
    layer = tf.keras.layers.TextVectorization(output_sequence_length=4)
    layer.adapt(ds)
    assert layer.get_vocabulary() == VALUES["cases"]["tv_int_len"]["vocabulary"]
    got = np.stack(list(ds.unbatch().batch(6).map(layer).as_numpy_iterator())[0])
    np.testing.assert_array_equal(got, lookup_cases.expected(VALUES["cases"]["tv_int_len"]))


def test_output_sequence_length_pads_in_a_functional_model():
    inp = tf.keras.Input(shape=(), dtype="string")
    layer = tf.keras.layers.TextVectorization(vocabulary=["a", "b"], output_sequence_length=3)
    out = layer(inp)
    assert out.shape.as_list() == [None, 3]
    model = tf.keras.Model(inp, out)
    # "a b c d": truncated to 3; "b": padded with the mask index 0 (Keras's densified ragged indices)
    assert model(tf.constant(["a b c d", "b"])).numpy().tolist() == [[2, 3, 1], [3, 0, 0]]


def test_callables():
    def standardize(x):
        return tf.strings.regex_replace(x, "[0-9]", "#")

    layer = tf.keras.layers.TextVectorization(standardize=standardize, split=None, vocabulary=["a#", "b"])
    assert layer(tf.constant([["a1", "b"], ["c", "a2"]])).numpy().tolist() == [[2, 3], [1, 2]]


def test_trained_model_with_an_embedding():
    layer = tf.keras.layers.TextVectorization(max_tokens=10, output_sequence_length=4)
    layer.adapt(np.array(lookup_cases._TEXT))
    inp = tf.keras.Input(shape=(), dtype="string")
    x = tf.keras.layers.Embedding(10, 3)(layer(inp))
    model = tf.keras.Model(inp, tf.keras.layers.Dense(1)(tf.keras.layers.GlobalAveragePooling1D()(x)))
    model.compile(optimizer=tf.keras.optimizers.SGD(0.5), loss="mse")
    y = tf.constant(np.linspace(0, 1, len(lookup_cases._TEXT), dtype="float32")[:, None])
    history = model.fit(tf.constant(lookup_cases._TEXT), y, epochs=4, batch_size=6, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"sparse": True, "output_mode": "multi_hot"}, "sparse"),
        ({"ragged": True}, "ragged"),
        ({"standardize": "upper"}, "standardize"),
        ({"split": "comma"}, "split"),
        ({"output_mode": "count", "output_sequence_length": 3}, "output_sequence_length"),
        ({"ngrams": [1, 2]}, "ngrams"),
    ],
)
def test_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        tf.keras.layers.TextVectorization(**kwargs)


def test_rank_2_input_needs_a_last_axis_of_1():
    layer = tf.keras.layers.TextVectorization(vocabulary=["a"])
    with pytest.raises(ValueError, match="last shape dimension must be 1"):
        layer(tf.constant([["a", "b"]]))
