"""Keras masking: ``Masking``, ``Embedding(mask_zero=True)``, ``supports_masking``/``compute_mask``,
the ``mask`` passed to ``call``, masks travelling through Sequential and functional models (on
KerasTensors and on tensors), recurrent layers and ``Bidirectional`` skipping masked steps,
``Softmax``/``Lambda``/pooling/merge layers with masks, and compile()'s loss and metrics weighted
by the prediction's mask.

The numbers in ``KERAS`` were computed by Keras 3.15 (TensorFlow backend) running the same models
(built below, the same code given ``keras``) with the same weights (``_fill``) on the same inputs.
"""

import warnings

import numpy as np
import pytest

import tfunc as tf
from tfunc import keras
from tfunc.keras.layers import base as base_layer
from tfunc.keras.layers.base import get_keras_mask

IDS = np.array([[1, 2, 0, 0, 3], [3, 0, 0, 0, 0], [0, 4, 2, 1, 1], [5, 5, 1, 0, 0]], dtype="int32")
LABELS = np.array([[1.0], [0.0], [1.0], [0.0]], dtype="float32")
SEQ_LABELS = np.array([[1, 0, 0, 0, 1], [1, 0, 0, 0, 0], [0, 1, 0, 1, 1], [0, 1, 1, 0, 0]], dtype="int32")
FEATS = np.random.RandomState(0).randn(4, 5, 3).astype("float32")
FEATS[0, 3:] = 0.0
FEATS[1, 1:] = 0.0
FEATS[2, 0] = 0.0  # a masked first step (left padding)
TOL = dict(rtol=1e-5, atol=1e-6)


def _fill(model):
    for i, w in enumerate(model.weights):
        n = int(np.prod(w.shape))
        w.assign((0.5 * np.sin(0.37 * np.arange(n) + i)).reshape(tuple(w.shape)).astype("float32"))


def _classifier(sequential=False):
    """Text classification: Embedding(mask_zero) -> LSTM -> Dense."""
    layers = [
        keras.layers.Embedding(6, 4, mask_zero=True),
        keras.layers.LSTM(3),
        keras.layers.Dense(1, activation="sigmoid"),
    ]
    if sequential:
        model = keras.Sequential([keras.Input((5,), dtype="int32")] + layers)
    else:
        inp = keras.Input((5,), dtype="int32")
        x = inp
        for layer in layers:
            x = layer(x)
        model = keras.Model(inp, x)
    _fill(model)
    return model


def _tagger():
    """Per-step outputs: the mask reaches the loss and the metrics."""
    inp = keras.Input((5,), dtype="int32")
    x = keras.layers.Embedding(6, 4, mask_zero=True)(inp)
    x = keras.layers.GRU(3, return_sequences=True)(x)
    x = keras.layers.Dense(2)(x)
    model = keras.Model(inp, x)
    _fill(model)
    return model


def _features():
    inp = keras.Input((5, 3))
    x = keras.layers.Masking(0.0)(inp)
    s = keras.layers.SimpleRNN(2, return_sequences=True)(x)
    b = keras.layers.Bidirectional(keras.layers.LSTM(2, return_sequences=True))(x)
    d = keras.layers.Dense(2, activation="tanh")(x)
    merged = keras.layers.Add()([s, d])
    avg = keras.layers.GlobalAveragePooling1D()(b)
    seq = keras.layers.Bidirectional(keras.layers.GRU(2), merge_mode="sum")(merged)
    sm = keras.layers.Softmax()(keras.layers.Dense(5)(avg))
    lam = keras.layers.Lambda(lambda t: t * 2.0, mask=lambda t, m: m)(merged)
    last = keras.layers.SimpleRNN(2)(lam)
    model = keras.Model(inp, [avg, seq, sm, last])
    _fill(model)
    return model


def _run_in_function(model, x, unknown_length):
    shape = [None] * x.ndim if unknown_length else list(x.shape)
    dtype = tf.int32 if x.dtype == np.int32 else tf.float32
    if unknown_length and x.ndim == 3:
        shape[-1] = x.shape[-1]
    return tf.function(lambda t: model(t), input_signature=[tf.TensorSpec(shape, dtype)])(x)


@pytest.mark.parametrize("sequential", [False, True])
def test_classifier_matches_keras(sequential):
    model = _classifier(sequential)
    np.testing.assert_allclose(model(IDS).numpy(), KERAS["classifier"], **TOL)
    for unknown_length in (False, True):  # a known length unrolls; an unknown one is a while loop
        np.testing.assert_allclose(_run_in_function(model, IDS, unknown_length).numpy(), KERAS["classifier"], **TOL)


def test_classifier_fit_matches_keras():
    model = _classifier()
    model.compile(optimizer=keras.optimizers.SGD(0.5), loss="binary_crossentropy", metrics=["accuracy"])
    history = model.fit(IDS, LABELS, batch_size=2, epochs=3, shuffle=False, verbose=0)
    np.testing.assert_allclose(history.history["loss"], KERAS["classifier_fit"], **TOL)
    np.testing.assert_allclose(model.predict(IDS, verbose=0), KERAS["classifier_after"], **TOL)


def test_loss_and_metrics_weighted_by_the_output_mask():
    model = _tagger()
    np.testing.assert_allclose(model(IDS).numpy(), KERAS["tagger"], **TOL)
    model.compile(
        optimizer=keras.optimizers.SGD(0.5),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    np.testing.assert_allclose(model.evaluate(IDS, SEQ_LABELS, verbose=0), KERAS["tagger_eval"], **TOL)
    history = model.fit(IDS, SEQ_LABELS, batch_size=2, epochs=2, shuffle=False, verbose=0)
    np.testing.assert_allclose([history.history["loss"], history.history["accuracy"]], KERAS["tagger_fit"], **TOL)
    sw = np.linspace(0.5, 2.0, 20).reshape(4, 5).astype("float32")
    np.testing.assert_allclose(
        model.evaluate(IDS, SEQ_LABELS, sample_weight=sw, verbose=0), KERAS["tagger_eval_sw"], **TOL
    )


def test_masking_rnn_bidirectional_pooling_merge_lambda_match_keras():
    model = _features()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every layer here takes the mask: none is dropped
        eager = model(FEATS)
        for unknown_length in (False, True):
            traced = _run_in_function(model, FEATS, unknown_length)
            for got, want in zip(traced, KERAS["features"]):
                np.testing.assert_allclose(got.numpy(), want, **TOL)
    for got, want in zip(eager, KERAS["features"]):
        np.testing.assert_allclose(got.numpy(), want, **TOL)


def test_softmax_with_a_mask():
    logits = FEATS[:, :, 0] * 3.0
    layer = keras.layers.Softmax()
    np.testing.assert_allclose(layer(logits, mask=IDS > 0).numpy(), KERAS["softmax"], **TOL)
    traced = tf.function(lambda x, m: layer(x, mask=m))(logits, IDS > 0)
    np.testing.assert_allclose(traced.numpy(), KERAS["softmax"], **TOL)
    with pytest.raises(ValueError, match="broadcastable"):
        layer(logits, mask=np.ones((4, 3), bool))


def test_masks_travel_with_keras_tensors_and_tensors():
    inp = keras.Input((5,), dtype="int32")
    emb = keras.layers.Embedding(6, 4, mask_zero=True)(inp)
    assert emb._keras_mask.shape.as_list() == [None, 5] and emb._keras_mask.dtype == tf.bool
    seq = keras.layers.Dense(3)(keras.layers.SimpleRNN(2, return_sequences=True)(emb))
    assert seq._keras_mask.shape.as_list() == [None, 5]
    assert getattr(keras.layers.LSTM(2)(emb), "_keras_mask", None) is None  # the last output only
    assert getattr(inp, "_keras_mask", None) is None
    out = keras.Model(inp, seq)(IDS)
    np.testing.assert_array_equal(get_keras_mask(out).numpy(), IDS != 0)

    embedding = keras.layers.Embedding(6, 4, mask_zero=True)

    @tf.function
    def masked_in_graph(x):
        return tf.cast(get_keras_mask(embedding(x)), tf.int32)

    np.testing.assert_array_equal(masked_in_graph(IDS).numpy(), (IDS != 0).astype("int32"))


def test_explicit_mask_argument_equals_the_attached_one():
    emb = keras.layers.Embedding(6, 4, mask_zero=True)
    rnn = keras.layers.GRU(2, return_sequences=True)
    x = emb(IDS)
    auto = rnn(x)
    given = rnn(tf.identity(x), mask=tf.constant(IDS != 0))
    np.testing.assert_allclose(auto.numpy(), given.numpy(), **TOL)
    np.testing.assert_array_equal(get_keras_mask(given).numpy(), IDS != 0)
    unmasked = rnn(tf.identity(x))  # no mask: padded steps are computed too
    assert not np.allclose(unmasked.numpy(), auto.numpy())


def test_a_layer_without_mask_support_drops_the_mask_with_keras_warning():
    x = keras.layers.Embedding(6, 4, mask_zero=True)(IDS)
    with pytest.warns(UserWarning, match="does not support masking"):
        out = keras.layers.GlobalMaxPooling1D()(x)
    assert get_keras_mask(out) is None


def test_supports_masking_and_compute_mask_of_a_users_layer():
    class Halve(keras.layers.Layer):
        def call(self, inputs, mask=None):
            self.seen = mask
            return inputs / 2

        def compute_mask(self, inputs, previous_mask):
            return tf.logical_and(previous_mask, tf.constant([True, True, True, False, True]))

    layer = Halve()
    assert layer.supports_masking  # as Keras: a layer defining compute_mask supports masking
    assert not keras.layers.Layer().supports_masking
    x = keras.layers.Embedding(6, 4, mask_zero=True)(IDS)
    out = layer(x)
    np.testing.assert_array_equal(layer.seen.numpy(), IDS != 0)
    np.testing.assert_array_equal(get_keras_mask(out).numpy(), (IDS != 0) & [True, True, True, False, True])


def test_no_mask_leaves_nothing_behind():
    """A model without masks attaches none (the call path then skips all mask work), and a mask
    goes away with its tensor."""
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2), keras.layers.Dense(1)])
    before = len(base_layer._masks)
    model(np.ones((2, 3), "float32"))
    assert len(base_layer._masks) == before
    y = keras.layers.Embedding(6, 4, mask_zero=True)(IDS)
    assert len(base_layer._masks) > before
    del y
    assert len(base_layer._masks) == before


def test_configs_are_keras_configs():
    policy = {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"}, "registered_name": None}
    assert keras.layers.Masking(0.5, name="masking").get_config() == {
        "name": "masking",
        "trainable": True,
        "dtype": policy,
        "mask_value": 0.5,
    }
    assert keras.layers.Embedding(6, 4, mask_zero=True).get_config()["mask_zero"] is True
    assert keras.layers.GRU(2).get_config()["zero_output_for_mask"] is False  # Keras writes it
    bi = keras.layers.Bidirectional(keras.layers.LSTM(2, return_sequences=True)).get_config()
    assert bi["layer"]["config"]["zero_output_for_mask"] is True  # Keras's Bidirectional sets it
    assert bi["backward_layer"]["config"]["zero_output_for_mask"] is True
    again = keras.layers.Bidirectional.from_config(bi)
    assert again.forward_layer.zero_output_for_mask and again.backward_layer.zero_output_for_mask


def test_saved_model_keeps_its_masks(tmp_path):
    inp = keras.Input((5,), dtype="int32")
    x = keras.layers.Embedding(6, 4, mask_zero=True)(inp)
    x = keras.layers.Bidirectional(keras.layers.LSTM(2, return_sequences=True))(x)
    x = keras.layers.GlobalAveragePooling1D()(x)
    inp2 = keras.Input((5, 3))
    y = keras.layers.GRU(2, return_sequences=True)(keras.layers.Masking(0.0)(inp2))
    model = keras.Model([inp, inp2], [keras.layers.Dense(1)(x), keras.layers.Dense(2)(y)])
    _fill(model)
    path = str(tmp_path / "masked.keras")
    model.save(path)
    loaded = keras.models.load_model(path)
    for a, b in zip(model([IDS, FEATS]), loaded([IDS, FEATS])):
        np.testing.assert_allclose(a.numpy(), b.numpy(), **TOL)
    assert get_keras_mask(loaded([IDS, FEATS])[1]) is not None


def test_lambda_mask_options():
    x = keras.layers.Embedding(6, 4, mask_zero=True)(IDS)
    fixed = tf.constant(np.ones((4, 5), bool))
    out = keras.layers.Lambda(lambda t: t + 1.0, mask=fixed)(x)
    assert get_keras_mask(out) is fixed
    with pytest.warns(UserWarning, match="does not support masking"):
        plain = keras.layers.Lambda(lambda t: t + 1.0)(x)  # Keras: no mask option, no mask
    assert get_keras_mask(plain) is None

    seen = {}

    def takes_mask(t, mask=None):
        seen["mask"] = mask
        return t

    keras.layers.Lambda(takes_mask, mask=lambda t, m: m)(x)
    np.testing.assert_array_equal(seen["mask"].numpy(), IDS != 0)


KERAS = {
    "classifier": [[0.40921506], [0.40254256], [0.41720253], [0.42028746]],
    "classifier_fit": [0.70442152, 0.69524062, 0.68943298],
    "classifier_after": [[0.46890292], [0.45374665], [0.47936022], [0.47628313]],
    "classifier_seq": [[0.40921506], [0.40254256], [0.41720253], [0.42028746]],
    "tagger": [
        [
            [-0.37565356, -0.29785961],
            [-0.269292, -0.19898121],
            [-0.269292, -0.19898121],
            [-0.269292, -0.19898121],
            [-0.2649512, -0.185875],
        ],
        [
            [-0.35150951, -0.26786196],
            [-0.35150951, -0.26786196],
            [-0.35150951, -0.26786196],
            [-0.35150951, -0.26786196],
            [-0.35150951, -0.26786196],
        ],
        [
            [-0.47946215, -0.39572734],
            [-0.42683676, -0.33452153],
            [-0.29267818, -0.21465655],
            [-0.29399556, -0.21791154],
            [-0.29447371, -0.21946897],
        ],
        [
            [-0.39524224, -0.3141396],
            [-0.35933816, -0.27895921],
            [-0.32247785, -0.2456021],
            [-0.32247785, -0.2456021],
            [-0.32247785, -0.2456021],
        ],
    ],
    "tagger_eval": [0.67521805, 0.72727275],
    "tagger_fit": [[0.6548838, 0.6056242], [0.72727275, 0.72727275]],
    "tagger_eval_sw": [0.75114858, 0.72727275],
    "features": [
        [
            [0.11628097, 0.060553264, -0.056184247, -0.013663034],
            [-0.10474537, -0.11072747, 0.14376029, 0.21151003],
            [-0.11421402, -0.12234902, 0.20044395, 0.33174396],
            [-0.053922653, -0.074282959, 0.056704652, 0.13387358],
        ],
        [
            [0.033960134, 0.0013704896],
            [-0.016776383, -0.041474789],
            [0.044089139, 0.029560924],
            [0.092440009, 0.062896311],
        ],
        [
            [0.12951165, 0.15708633, 0.19427115, 0.23802909, 0.2811017],
            [0.15471272, 0.17284395, 0.19675887, 0.22425872, 0.25142568],
            [0.15970339, 0.17475221, 0.19586128, 0.22140566, 0.24827746],
            [0.14638112, 0.16784696, 0.19616438, 0.22879222, 0.26081532],
        ],
        [[0.94371414, 0.95965815], [0.47078931, 0.45126387], [0.87856412, 0.85224646], [0.93589109, 0.95031768]],
    ],
    "softmax": [
        [0.19283012, 0.80619979, 0.0, 0.0, 0.00097010832],
        [1.0, 0.0, 0.0, 0.0, 0.0],
        [0.0, 6.4845815e-05, 0.98981583, 0.0099715767, 0.00014776029],
        [0.077457793, 0.0022756427, 0.92026657, 0.0, 0.0],
    ],
}
