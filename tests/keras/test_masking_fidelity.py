"""Keras masks through the layers Keras 3.15 marks ``supports_masking`` (the regularization,
normalization and activation layers, TimeDistributed, MultiHeadAttention), BatchNormalization's
batch statistics of the kept steps only, MultiHeadAttention reading its inputs' masks,
Concatenate of masked and unmasked inputs, the ``keras.ops`` operations Keras writes in the
``.keras`` archives of masked models, ``Tensor._keras_mask`` and Lambda's config.

The numbers in ``KERAS`` were computed by Keras 3.15 (TensorFlow backend) running the models of
``masking_models.py`` (the same code given ``keras``, the same weights) on the same
inputs; ``fixtures/masked_*.keras`` are those models saved by Keras 3.15. Both are written by
tests/keras/fixtures/make_masking_values.py (run it with TensorFlow 2.21 and Keras 3.15 installed,
from the repository root).
"""

import json
import os
import warnings
import zipfile

import numpy as np
import pytest

import tfunc as tf
from tfunc import keras
from tfunc.keras.layers.base import get_keras_mask

from . import masking_models as M

HERE = os.path.dirname(__file__)
TOL = dict(rtol=1e-5, atol=1e-6)

# keras.layers.X(...).supports_masking in Keras 3.15
KERAS_SUPPORTS_MASKING = {
    "Dropout": True,
    "SpatialDropout1D": True,
    "SpatialDropout2D": True,
    "SpatialDropout3D": True,
    "GaussianNoise": True,
    "GaussianDropout": True,
    "AlphaDropout": True,
    "ActivityRegularization": True,
    "BatchNormalization": True,
    "LayerNormalization": True,
    "GroupNormalization": True,
    "UnitNormalization": True,
    "RMSNormalization": False,
    "ReLU": True,
    "ELU": True,
    "LeakyReLU": True,
    "PReLU": True,
    "Softmax": True,
    "Activation": True,
    "TimeDistributed": True,
    "Attention": True,
    "AdditiveAttention": True,
    "MultiHeadAttention": True,
    "Lambda": False,
}


def _layer(name):
    layers = keras.layers
    args = {
        "Dropout": (0.1,),
        "SpatialDropout1D": (0.1,),
        "SpatialDropout2D": (0.1,),
        "SpatialDropout3D": (0.1,),
        "GaussianNoise": (0.1,),
        "GaussianDropout": (0.1,),
        "AlphaDropout": (0.1,),
        "Activation": ("relu",),
        "TimeDistributed": (layers.Dense(2),),
        "MultiHeadAttention": (2, 2),
        "Lambda": (lambda x: x,),
    }.get(name, ())
    return getattr(layers, name)(*args)


@pytest.mark.parametrize("name", sorted(KERAS_SUPPORTS_MASKING))
def test_supports_masking_as_keras(name):
    assert _layer(name).supports_masking is KERAS_SUPPORTS_MASKING[name]


def test_dropout_keeps_the_mask_in_training():
    x = keras.layers.Embedding(8, 4, mask_zero=True)(M.IDS)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "will destroy the mask information"
        for layer in (keras.layers.Dropout(0.5), keras.layers.SpatialDropout1D(0.5), keras.layers.GaussianNoise(0.5)):
            y = layer(x, training=True)
            np.testing.assert_array_equal(get_keras_mask(y).numpy(), M.IDS != 0)


def _fn(model, n_inputs):
    return tf.function(lambda *xs: model(list(xs) if n_inputs > 1 else xs[0]))


def _check(outputs, expected):
    outputs = outputs if isinstance(outputs, (list, tuple)) else [outputs]
    expected = expected if len(outputs) > 1 else [expected]
    assert len(outputs) == len(expected)
    for got, want in zip(outputs, expected):
        np.testing.assert_allclose(np.asarray(got), want, **TOL)


def test_mask_passing_layers_match_keras_eagerly_in_function_and_in_fit():
    model = M.tagger(keras)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every layer passes the mask on
        out = model(M.IDS)
        _check(out, KERAS["tagger"])
        np.testing.assert_array_equal(get_keras_mask(out).numpy(), M.IDS != 0)
        _check(_fn(model, 1)(M.IDS), KERAS["tagger"])
    model.compile(
        optimizer=keras.optimizers.SGD(0.1),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    _check(model.evaluate(M.IDS, M.SEQ_LABELS, verbose=0), KERAS["tagger_eval"])
    # training: BatchNormalization's statistics over the kept steps only, the loss weighted by the mask
    history = model.fit(M.IDS, M.SEQ_LABELS, batch_size=2, epochs=2, shuffle=False, verbose=0)
    _check([history.history["loss"], history.history["accuracy"]], KERAS["tagger_fit"])
    _check(model.predict(M.IDS, verbose=0), KERAS["tagger_after"])


def test_batch_normalization_statistics_of_the_kept_positions():
    x = M.FEATS
    mask = M.IDS != 0
    layer = keras.layers.BatchNormalization(momentum=0.0, epsilon=0.0, center=False, scale=False)
    out = layer(x, training=True, mask=tf.constant(mask))
    kept = x[mask]  # (kept steps, channels)
    np.testing.assert_allclose(layer.moving_mean.numpy(), kept.mean(0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(layer.moving_variance.numpy(), kept.var(0), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(out.numpy(), (x - kept.mean(0)) / np.sqrt(kept.var(0)), rtol=1e-4, atol=1e-4)
    with pytest.raises(ValueError, match="one dimension less"):
        layer(x, training=True, mask=tf.constant(np.ones((4, 6, 3), bool)))


def test_multi_head_attention_reads_the_masks_of_its_inputs():
    model = M.attention(keras)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the projections see no mask to drop
        _check(model([M.IDS, M.IDS2]), KERAS["attention"])
    _check(_fn(model, 2)(M.IDS, M.IDS2), KERAS["attention"])


def test_multi_head_attention_masks_directly():
    """Keras's rule, without a model: query mask x value mask (x key mask), AND the
    attention_mask; the output keeps the query's mask, and the inputs keep theirs."""
    embed = keras.layers.Embedding(8, 4, mask_zero=True)
    q, v = embed(M.IDS), embed(M.IDS2)
    layer = keras.layers.MultiHeadAttention(1, 2)
    out, scores = layer(q, v, return_attention_scores=True)
    allowed = (M.IDS != 0)[:, :, None] & (M.IDS2 != 0)[:, None, :]
    s = scores.numpy()[:, 0]
    assert np.all(s[~allowed] == 0)
    rows = allowed.any(-1)
    np.testing.assert_allclose(s.sum(-1)[rows], 1.0, rtol=1e-5)
    np.testing.assert_array_equal(get_keras_mask(out).numpy(), M.IDS != 0)
    assert get_keras_mask(q) is not None and get_keras_mask(v) is not None
    # the same weights given the same masks explicitly: the same scores
    plain_q, plain_v = tf.identity(q), tf.identity(v)
    _, explicit = layer(plain_q, plain_v, attention_mask=allowed, return_attention_scores=True)
    np.testing.assert_allclose(explicit.numpy(), scores.numpy(), **TOL)
    # an explicit query_mask is ignored, as Keras 3.15 does: the query's Keras mask counts
    ignored, _ = layer(q, v, query_mask=tf.constant(M.IDS == 0), return_attention_scores=True)
    np.testing.assert_array_equal(ignored.numpy(), out.numpy())


def test_multi_head_attention_fully_masked_rows_as_keras():
    """A query row with every key masked: Keras's fused computation (no dropout, no scores
    returned, 3-D inputs) averages all the values (its softmax of equal logits); its other one
    (the masked Softmax) gives zero weights, so the output is the output projection's bias."""
    embed = keras.layers.Embedding(8, 3, mask_zero=True)
    layer = keras.layers.MultiHeadAttention(2, 2, bias_initializer="ones")
    masked_rows = M.IDS == 0
    for call in (lambda a, b: layer(embed(a), b), tf.function(lambda a, b: layer(embed(a), b))):
        fused = call(M.IDS, M.FEATS).numpy()
        mean_value = tf.reduce_mean(layer.value_dense(M.FEATS), axis=1, keepdims=True)
        uniform = np.broadcast_to(layer.output_dense(mean_value).numpy(), fused.shape)
        np.testing.assert_allclose(fused[masked_rows], uniform[masked_rows], **TOL)
    out, _ = layer(embed(M.IDS), M.FEATS, return_attention_scores=True)
    np.testing.assert_allclose(out.numpy()[masked_rows], np.ones((masked_rows.sum(), 3)), **TOL)


def test_concatenate_of_masked_and_unmasked_inputs():
    model = M.concat(keras)
    _check(model([M.IDS, M.FEATS]), KERAS["concat"])
    _check(_fn(model, 2)(M.IDS, M.FEATS), KERAS["concat"])
    e = keras.layers.Embedding(8, 3, mask_zero=True)(M.IDS)
    # along the features: a step is kept where any of its features is (all, the features' input unmasked)
    features = get_keras_mask(keras.layers.Concatenate()([e, M.FEATS])).numpy()
    np.testing.assert_array_equal(features, np.ones((4, 6), bool))
    steps = get_keras_mask(keras.layers.Concatenate(axis=1)([M.FEATS, e])).numpy()
    np.testing.assert_array_equal(steps, np.concatenate([np.ones((4, 6), bool), M.IDS != 0], axis=1))
    assert get_keras_mask(keras.layers.Concatenate()([M.FEATS, M.FEATS])) is None


def test_attention_and_concatenate_in_fit():
    model = M.regressor(keras)
    _check(model([M.IDS, M.FEATS]), KERAS["regressor"])
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    history = model.fit([M.IDS, M.FEATS], M.LABELS, batch_size=2, epochs=2, shuffle=False, verbose=0)
    _check(history.history["loss"], KERAS["regressor_fit"])
    _check(model.predict([M.IDS, M.FEATS], verbose=0), KERAS["regressor_after"])


INPUTS = {"attention": [M.IDS, M.IDS2], "concat": [M.IDS, M.FEATS], "tagger": M.IDS, "luong": M.IDS}


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_keras_archives_of_masked_models_load(name):
    """Keras writes the operations that compute the masks (NotEqual, Any, LogicalOr, ExpandDims,
    ZerosLike, OnesLike, Concatenate, ConvertToTensor) and passes their outputs as ``mask``."""
    path = os.path.join(HERE, "fixtures", f"masked_{name}.keras")
    model = keras.models.load_model(path)
    n = 2 if isinstance(INPUTS[name], list) else 1
    _check(model(INPUTS[name]), KERAS[name])
    _check(_fn(model, n)(*([INPUTS[name]] if n == 1 else INPUTS[name])), KERAS[name])
    # each operation's config is Keras's
    config = json.loads(zipfile.ZipFile(path).read("config.json"))
    ops = [entry for entry in config["config"]["layers"] if entry["module"].startswith("keras.src.ops")]
    assert ops
    for entry in ops:
        layer = next(lay for lay in model._layers if lay.name == entry["config"]["name"])  # operations too
        assert type(layer).__name__ == entry["class_name"]
        assert layer.get_config() == entry["config"]


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_masked_models_round_trip(name, tmp_path):
    model = getattr(M, name)(keras)
    path = str(tmp_path / f"{name}.keras")
    model.save(path)
    _check(keras.models.load_model(path)(INPUTS[name]), KERAS[name])


@pytest.mark.parametrize("name", ["concat", "luong"])
def test_keras_archive_resaved_by_tfunc_loads_again(name, tmp_path):
    model = keras.models.load_model(os.path.join(HERE, "fixtures", f"masked_{name}.keras"))
    path = str(tmp_path / "again.keras")
    model.save(path)
    _check(keras.models.load_model(path)(INPUTS[name]), KERAS[name])
    # each operation under the module Keras writes it in (which Keras 3.15 needs to load it)
    original = json.loads(zipfile.ZipFile(os.path.join(HERE, "fixtures", f"masked_{name}.keras")).read("config.json"))
    again = json.loads(zipfile.ZipFile(path).read("config.json"))
    modules = sorted((e["module"], e["class_name"]) for e in original["config"]["layers"])
    assert sorted((e["module"], e["class_name"]) for e in again["config"]["layers"]) == modules


def test_operations_on_masked_tensors_keep_no_mask_silently():
    inp = keras.Input((6,), dtype="int32")
    x = keras.layers.Embedding(8, 4, mask_zero=True)(inp)
    model = keras.Model(inp, x * 2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a Keras operation does not warn about the mask
        out = model(M.IDS)
    assert get_keras_mask(out) is None


def test_tensor_keras_mask_property():
    embed = keras.layers.Embedding(8, 4, mask_zero=True)
    x = tf.constant(M.IDS)
    y = embed(x)
    np.testing.assert_array_equal(y._keras_mask.numpy(), M.IDS != 0)
    assert x._keras_mask is None
    with pytest.raises(AttributeError):
        y._keras_mask = None

    @tf.function
    def masked(ids):
        return tf.cast(embed(ids)._keras_mask, tf.int32)

    np.testing.assert_array_equal(masked(M.IDS).numpy(), (M.IDS != 0).astype("int32"))


def _named(x):
    return x * 2.0


def _same_mask(inputs, mask):
    return mask


def test_lambda_config_writes_output_shape_and_mask_only_when_set():
    # Keras 3.15: keras.layers.Lambda(f, **kw).get_config() keys
    base = ["arguments", "dtype", "function", "name", "trainable"]
    assert sorted(keras.layers.Lambda(_named).get_config()) == base
    assert sorted(keras.layers.Lambda(_named, output_shape=(3,)).get_config()) == sorted(base + ["output_shape"])
    config = keras.layers.Lambda(_named, mask=_same_mask).get_config()
    assert sorted(config) == sorted(base + ["mask"])
    # the function is written by name (TF 2.21 writes {"class_name": "function", "config": "_named", ...}),
    # found again in custom_objects
    again = keras.layers.Lambda.from_config(keras.layers.Lambda(_named).get_config(), custom_objects={"_named": _named})
    assert again.mask is None and again.supports_masking is False


KERAS = {
    "attention": [
        [
            [-0.8113909, -0.6925542, -0.21197467, 0.46680441],
            [-0.83240914, -0.63893586, -0.1617527, 0.38790655],
            [-0.56301016, -0.6382883, -0.4093267, 0.14936417],
            [-0.71833706, -0.79364604, -0.35583425, 0.5684851],
        ],
        [
            [
                [-0.18578348, -0.16547135],
                [-0.18578348, -0.16547135],
                [-0.24390902, -0.21042188],
                [-0.24390902, -0.21042188],
                [-0.24390902, -0.21042188],
                [-0.24390902, -0.21042188],
            ],
            [
                [-0.18331464, -0.16317129],
                [-0.242028, -0.20872445],
                [-0.2610233, -0.22087622],
                [-0.26886663, -0.2248776],
                [-0.26886663, -0.2248776],
                [-0.26886663, -0.2248776],
            ],
            [
                [-0.18757945, -0.16649538],
                [-0.24687421, -0.2122967],
                [-0.24687421, -0.2122967],
                [-0.24687421, -0.2122967],
                [-0.24687421, -0.2122967],
                [-0.24687421, -0.2122967],
            ],
            [
                [0.0, 0.0],
                [-0.18363999, -0.1633563],
                [-0.24229656, -0.20884424],
                [-0.26197407, -0.22161815],
                [-0.26197407, -0.22161815],
                [-0.26982814, -0.2256622],
            ],
        ],
        [
            [
                [-0.84544635, -0.79761326, -0.641827, -0.3991724],
                [-0.8447807, -0.79686654, -0.6411004, -0.39856422],
                [-0.4940158, -0.43269458, -0.3128102, -0.15058841],
                [-0.4940158, -0.43269458, -0.3128102, -0.15058841],
                [-0.8450122, -0.7971035, -0.6413107, -0.3987195],
                [-0.4940158, -0.43269458, -0.3128102, -0.15058841],
            ],
            [
                [-0.78477275, -0.73827994, -0.59186447, -0.36534292],
                [-0.4940158, -0.43269458, -0.3128102, -0.15058841],
                [-0.4940158, -0.43269458, -0.3128102, -0.15058841],
                [-0.4940158, -0.43269458, -0.3128102, -0.15058841],
                [-0.4940158, -0.43269458, -0.3128102, -0.15058841],
                [-0.4940158, -0.43269458, -0.3128102, -0.15058841],
            ],
            [
                [-0.72563297, -0.6753428, -0.53364825, -0.31972682],
                [-0.72563297, -0.6753428, -0.53364825, -0.31972682],
                [-0.73890245, -0.6884078, -0.5447404, -0.3273449],
                [-0.7302698, -0.6801734, -0.53801876, -0.3230458],
                [-0.7302698, -0.6801734, -0.53801876, -0.3230458],
                [-0.73890245, -0.6884078, -0.5447404, -0.3273449],
            ],
            [
                [-0.7874299, -0.73852503, -0.58966434, -0.36099532],
                [-0.7874299, -0.73852503, -0.58966434, -0.36099532],
                [-0.7875955, -0.7387506, -0.5899193, -0.3612452],
                [-0.4940158, -0.43269458, -0.3128102, -0.15058841],
                [-0.4940158, -0.43269458, -0.3128102, -0.15058841],
                [-0.4940158, -0.43269458, -0.3128102, -0.15058841],
            ],
        ],
        [
            [
                [
                    [0.37492839, 0.3556821, 0.0, 0.0, 0.26938948, 0.0],
                    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                    [0.32112718, 0.3257869, 0.0, 0.0, 0.35308596, 0.0],
                    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                ]
            ],
            [
                [
                    [1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                    [1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                    [1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                    [1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                ]
            ],
            [
                [
                    [0.14700867, 0.14700867, 0.17571269, 0.17727865, 0.17727865, 0.17571269],
                    [0.1349218, 0.1349218, 0.17773052, 0.18734767, 0.18734767, 0.17773052],
                    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                ]
            ],
            [
                [
                    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                    [0.33530775, 0.33530775, 0.32938448, 0.0, 0.0, 0.0],
                    [0.33495447, 0.33495447, 0.33009103, 0.0, 0.0, 0.0],
                    [0.32773525, 0.32773525, 0.34452942, 0.0, 0.0, 0.0],
                    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                    [0.32321846, 0.32321846, 0.35356307, 0.0, 0.0, 0.0],
                ]
            ],
        ],
    ],
    "concat": [
        [
            [
                [-0.01354289, -0.12117273],
                [-0.5794241, -0.7290684],
                [-0.15785621, -0.37961906],
                [-0.63769734, -0.7992237],
                [-0.00715503, -0.07781076],
                [-0.4794549, -0.43533894],
            ],
            [
                [-0.43416002, -0.5158783],
                [-0.37426087, -0.40216327],
                [-0.13796803, -0.21587427],
                [-0.1532148, 0.03364655],
                [-0.413346, -0.28561762],
                [-0.23390833, -0.04698327],
            ],
            [
                [-0.01529659, 0.28998312],
                [-0.28087345, -0.21539354],
                [-0.70478946, -0.6423846],
                [0.17885083, 0.30371475],
                [-0.26526234, -0.18583651],
                [-0.11455032, -0.09734204],
            ],
            [
                [-0.26174036, -0.08971161],
                [-0.10728573, -0.00756835],
                [-0.5660305, -0.39187172],
                [-0.571973, -0.40865892],
                [-0.12400175, 0.05829591],
                [-0.13284928, 0.06919558],
            ],
        ],
        [[0.46171343, 0.4228539], [0.4025365, 0.34275556], [0.42107844, 0.38736635], [0.42657882, 0.33961785]],
        [
            [0.12541412, 0.17291127, 0.1970057, 0.10408495, 0.06634495, -0.71915025],
            [-0.01560789, 0.10652008, 0.21423106, -0.06414042, -0.08920159, -0.14841616],
            [0.12152221, 0.08744755, 0.0415373, -0.33191854, 0.23343919, 0.47901067],
            [-0.03689842, 0.114185, 0.24981399, -0.09919164, 0.44821668, 0.64043206],
        ],
    ],
    "luong": [
        [-0.29081023, -0.32143372],
        [-0.20066135, -0.22670357],
        [-0.30068174, -0.32574433],
        [-0.28025484, -0.3066237],
    ],
    "regressor": [
        [-0.27816728, -0.2596907],
        [-0.2760831, -0.2576483],
        [-0.27514789, -0.25666142],
        [-0.27674907, -0.25818914],
    ],
    "regressor_after": [
        [-0.57024723, -0.27444655],
        [-0.5692695, -0.27348933],
        [-0.5687116, -0.27279446],
        [-0.5693966, -0.2735014],
    ],
    "regressor_fit": [1.4643794, 1.371046],
    "tagger": [
        [
            [0.11528623, 0.2838324, 0.4139632],
            [0.12310271, 0.28367463, 0.40585253],
            [0.12310271, 0.28367463, 0.40585253],
            [0.12310271, 0.28367463, 0.40585253],
            [0.14118545, 0.30645767, 0.43025228],
            [0.14118545, 0.30645767, 0.43025228],
        ],
        [
            [0.11552157, 0.2834483, 0.41301167],
            [0.11552157, 0.2834483, 0.41301167],
            [0.11552157, 0.2834483, 0.41301167],
            [0.11552157, 0.2834483, 0.41301167],
            [0.11552157, 0.2834483, 0.41301167],
            [0.11552157, 0.2834483, 0.41301167],
        ],
        [
            [0.11540227, 0.2836345, 0.41347817],
            [0.12262774, 0.284298, 0.4074899],
            [0.13394566, 0.31405672, 0.4516617],
            [0.14794107, 0.33228064, 0.4716476],
            [0.15540326, 0.33305222, 0.46562412],
            [0.14998281, 0.3135926, 0.43475917],
        ],
        [
            [0.11546074, 0.2835847, 0.41332686],
            [0.12394376, 0.28245175, 0.40273124],
            [0.13454796, 0.3122353, 0.4476631],
            [0.13454796, 0.3122353, 0.4476631],
            [0.13454796, 0.3122353, 0.4476631],
            [0.13454796, 0.3122353, 0.4476631],
        ],
    ],
    "tagger_after": [
        [
            [0.10087787, 0.31273565, 0.40550363],
            [0.1026984, 0.33445936, 0.4435662],
            [0.1026984, 0.33445936, 0.4435662],
            [0.1026984, 0.33445936, 0.4435662],
            [0.12587465, 0.34706563, 0.44390246],
            [0.12587465, 0.34706563, 0.44390246],
        ],
        [
            [0.10136368, 0.3121199, 0.403896],
            [0.10136368, 0.3121199, 0.403896],
            [0.10136368, 0.3121199, 0.403896],
            [0.10136368, 0.3121199, 0.403896],
            [0.10136368, 0.3121199, 0.403896],
            [0.10136368, 0.3121199, 0.403896],
        ],
        [
            [0.10128711, 0.31224123, 0.4041939],
            [0.10208416, 0.3346692, 0.44455475],
            [0.12051621, 0.35853577, 0.47021586],
            [0.13761911, 0.36723405, 0.4693558],
            [0.1437592, 0.36444426, 0.45820084],
            [0.13287568, 0.36018252, 0.46108562],
        ],
        [
            [0.10090285, 0.31258884, 0.40520972],
            [0.10253893, 0.33449018, 0.44377947],
            [0.12114967, 0.3574735, 0.4676444],
            [0.12114967, 0.3574735, 0.4676444],
            [0.12114967, 0.3574735, 0.4676444],
            [0.12114967, 0.3574735, 0.4676444],
        ],
    ],
    "tagger_eval": [1.0723343, 0.3846154],
    "tagger_fit": [[1.0958567, 1.0924754], [0.3846154, 0.3846154]],
}


def test_rescaling_and_normalization_pass_masks_and_operations_are_not_layers():
    from tfunc import keras as K

    assert K.layers.Rescaling(2.0).supports_masking and K.layers.Normalization(mean=0.0, variance=1.0).supports_masking
    inp = K.Input((3,), dtype="int32")
    x = K.layers.Embedding(5, 2, mask_zero=True)(inp)
    out = K.layers.Rescaling(2.0)(x)
    model = K.Model(inp, out * 2.0 + 1.0)
    assert [layer.name for layer in model.layers] == [
        model.layers[0].name,
        x._keras_history[0].name,
        out._keras_history[0].name,
    ]
    np.testing.assert_array_equal(K.Model(inp, out)(np.array([[1, 0, 2]]))._keras_mask, [[True, False, True]])
