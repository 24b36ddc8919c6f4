"""MultiHeadAttention, Attention, AdditiveAttention and EinsumDense against Keras 3.15.

``_KERAS`` holds what Keras 3.15 (TensorFlow backend) gives for the constructions below, on the
same NumPy inputs and weights: run this file with Keras installed (``python
tests/keras/test_attention_layers.py``) to print it again. The cases are written
once against the Keras API (each takes the ``keras`` module), so both sides build the same layers.
"""

import json
import os
import sys
import tempfile

import numpy as np
import pytest

import tfunc as tf
from tfunc import keras


def arr(shape, seed, scale=1.0):
    return (np.random.default_rng(seed).normal(size=tuple(shape)) * scale).astype("float32")


def set_weights(layer, seed):
    layer.set_weights([arr(w.shape, seed + i, 0.4) for i, w in enumerate(layer.weights)])


Q, V, K = arr((2, 3, 5), 1), arr((2, 4, 6), 2), arr((2, 4, 7), 3)
X4 = arr((2, 4, 5), 4)
X5 = arr((2, 2, 3, 5), 5)
ATTENTION_MASK = np.array(
    [[[1, 0, 1, 1], [1, 1, 0, 0], [0, 0, 0, 1]], [[1, 1, 1, 1], [0, 1, 0, 0], [1, 0, 1, 0]]], bool
)
VALUE_MASK = np.array([[1, 1, 1, 0], [1, 0, 1, 1]], bool)
QA, VA, KA = arr((2, 3, 4), 6), arr((2, 5, 4), 7), arr((2, 5, 4), 8)
QA_MASK = np.array([[1, 1, 0], [1, 1, 1]], bool)
VA_MASK = np.array([[1, 1, 0, 1, 0], [1, 1, 1, 1, 1]], bool)


# --- the cases, for Keras and tfunc ---------------------------------------------------------------


def mha_cases(keras, call=lambda layer, *a, **k: layer(*a, **k)):
    """``{name: output}`` of MultiHeadAttention constructions (``call`` runs a layer: eagerly, or
    inside a tf.function for tfunc)."""
    out = {}
    m = keras.layers.MultiHeadAttention(num_heads=2, key_dim=3, value_dim=4)
    m(Q, V, K)
    set_weights(m, 10)
    out["mha_qvk"], out["mha_qvk_scores"] = call(m, Q, V, K, return_attention_scores=True)
    out["mha_attention_mask"] = call(m, Q, V, K, attention_mask=ATTENTION_MASK)
    out["mha_value_mask"] = call(m, Q, V, K, value_mask=VALUE_MASK)
    out["mha_key_mask"] = call(m, Q, V, K, key_mask=VALUE_MASK)
    m = keras.layers.MultiHeadAttention(num_heads=2, key_dim=3)
    m(X4, X4)
    set_weights(m, 20)
    out["mha_causal"] = call(m, X4, X4, use_causal_mask=True)
    out["mha_causal_scores"] = call(m, X4, X4, use_causal_mask=True, return_attention_scores=True)[1]
    m = keras.layers.MultiHeadAttention(num_heads=2, key_dim=3, output_shape=(2, 3), sliding_window=2)
    m(X4, X4)
    set_weights(m, 30)
    out["mha_output_shape_window"] = call(m, X4, X4, use_causal_mask=True)
    m = keras.layers.MultiHeadAttention(num_heads=2, key_dim=2, attention_axes=(1, 2), use_bias=False)
    m(X5, X5)
    set_weights(m, 40)
    out["mha_axes12"] = call(m, X5, X5)
    return out


ATTENTION_CASES = {
    "att_dot": ("Attention", {}),
    "att_scale": ("Attention", {"use_scale": True}),
    "att_concat": ("Attention", {"use_scale": True, "score_mode": "concat"}),
    "add_att": ("AdditiveAttention", {}),
    "add_att_noscale": ("AdditiveAttention", {"use_scale": False}),
}


def attention_case(keras, name, call=lambda layer, *a, **k: layer(*a, **k)):
    class_name, kwargs = ATTENTION_CASES[name]
    layer = getattr(keras.layers, class_name)(**kwargs)
    layer([QA, VA, KA])
    if name == "att_concat":
        layer.set_weights([np.float32(0.7), np.float32(1.4)])
    elif layer.weights:
        layer.set_weights([np.float32(1.3) if len(w.shape) == 0 else arr(w.shape, 9, 0.5) for w in layer.weights])
    out = {}
    out[name], out[name + "_scores"] = call(layer, [QA, VA, KA], return_attention_scores=True)
    out[name + "_masked"] = call(layer, [QA, VA, KA], mask=[QA_MASK, VA_MASK])
    out[name + "_causal"] = call(layer, [QA, VA[:, :3], KA[:, :3]], use_causal_mask=True, mask=[None, VA_MASK[:, :3]])
    return layer, out


EINSUM_CASES = {
    "ed_plain": ("ab,bc->ac", 4, "c", (3, 5), 11),
    "ed_3d": ("abc,cde->abde", (None, 2, 3), "de", (2, 3, 5), 12),
    "ed_left": ("...b,bc->...c", 4, "c", (2, 3, 5), 13),
    "ed_right": ("ab...,bc->ac...", (4, None), "c", (2, 5, 3), 14),
}


def einsum_case(keras, name):
    equation, output_shape, bias_axes, shape, seed = EINSUM_CASES[name]
    layer = keras.layers.EinsumDense(equation, output_shape=output_shape, bias_axes=bias_axes, activation="relu")
    x = arr(shape, seed)
    layer(x)
    set_weights(layer, 15)
    return layer, x


def encoder(keras):
    """A Transformer encoder block: self-attention, residual and LayerNormalization, a two-layer
    feed-forward network, residual and LayerNormalization, then a pooled Dense head."""
    layers = keras.layers
    inputs = keras.Input((4, 8))
    a = layers.MultiHeadAttention(2, 4, name="mha")(inputs, inputs)
    h = layers.LayerNormalization(name="ln1")(layers.Add()([inputs, a]))
    f = layers.Dense(16, activation="relu", name="ff1")(h)
    f = layers.Dense(8, name="ff2")(f)
    h = layers.LayerNormalization(name="ln2")(layers.Add()([h, f]))
    outputs = layers.Dense(1, name="head")(layers.GlobalAveragePooling1D()(h))
    return keras.Model(inputs, outputs)


X_TRAIN, Y_TRAIN = arr((8, 4, 8), 50), arr((8, 1), 51)


def trained_encoder(keras):
    model = encoder(keras)
    model.set_weights([arr(w.shape, 100 + i, 0.3) for i, w in enumerate(model.weights)])
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse")
    history = model.fit(X_TRAIN, Y_TRAIN, batch_size=4, epochs=3, shuffle=False, verbose=0)
    return model, history


def _h5_datasets(model, path):
    """``[path in the file, shape]`` of every variable ``model.save_weights`` writes."""
    import h5py

    model.save_weights(path)
    found = []
    with h5py.File(path) as f:
        f.visititems(lambda name, obj: found.append([name, list(obj.shape)]) if isinstance(obj, h5py.Dataset) else None)
    return sorted(found)


def _keras_values():  # run with Keras: the values of _KERAS
    import keras

    def r(x):
        return np.round(np.asarray(x, dtype=np.float64), 6).tolist()

    out = {k: r(v) for k, v in mha_cases(keras).items()}
    m = keras.layers.MultiHeadAttention(num_heads=2, key_dim=3, value_dim=4)
    m(Q, V, K)
    out["mha_config"], out["mha_build_config"] = m.get_config(), m.get_build_config()
    out["mha_shapes"] = [list(w.shape) for w in m.weights]
    m = keras.layers.MultiHeadAttention(num_heads=2, key_dim=2, attention_axes=(1, 2), use_bias=False)
    m(X5, X5)
    out["mha_axes12_shapes"] = [list(w.shape) for w in m.weights]
    for name in ATTENTION_CASES:
        layer, values = attention_case(keras, name)
        out.update({k: r(v) for k, v in values.items()})
        out[name + "_config"] = layer.get_config()
        out[name + "_shapes"] = [list(w.shape) for w in layer.weights]
    for name in EINSUM_CASES:
        layer, x = einsum_case(keras, name)
        out[name], out[name + "_config"] = r(layer(x)), layer.get_config()
        out[name + "_shapes"] = [list(w.shape) for w in layer.weights]
    model, history = trained_encoder(keras)
    out["enc_loss"], out["enc_pred"] = r(history.history["loss"]), r(model.predict(X_TRAIN, verbose=0))
    out["enc_weight_sums"] = r([float(np.sum(w)) for w in model.get_weights()])
    out["enc_paths"] = [w.path for w in model.weights]
    with tempfile.TemporaryDirectory() as scratch:
        out["enc_h5"] = _h5_datasets(model, os.path.join(scratch, "encoder.weights.h5"))
    return out


if __name__ == "__main__":
    print(json.dumps(_keras_values(), separators=(",", ":")))
    sys.exit()


# --- tests ------------------------------------------------------------------------------------------


def _plain(config):
    """A config as JSON has it, without Keras-only arguments at their unused values (tfunc writes
    none of them) and with the name left out."""
    from tfunc.keras.serialization import KERAS_ONLY_DEFAULTS

    def strip(c):
        if isinstance(c, dict):
            return {
                k: strip(v)
                for k, v in c.items()
                if k != "name" and not (k in KERAS_ONLY_DEFAULTS and v == KERAS_ONLY_DEFAULTS[k])
            }
        if isinstance(c, list):
            return [strip(v) for v in c]
        return c

    return strip(json.loads(json.dumps(config)))


def _in_function(layer, *args, **kwargs):
    """``layer(*args, **kwargs)`` inside a tf.function (the tensors as its arguments)."""
    return tf.function(lambda *a: layer(*a, **kwargs))(*args)


def _close(got, name, atol=2e-5):
    np.testing.assert_allclose(np.asarray(got), np.asarray(_KERAS[name]), rtol=1e-4, atol=atol, err_msg=name)


@pytest.mark.parametrize("call", [None, _in_function], ids=["eager", "function"])
def test_multi_head_attention_matches_keras(call):
    values = mha_cases(keras) if call is None else mha_cases(keras, call)
    for name, got in values.items():
        _close(got, name)


def test_multi_head_attention_weights_config_and_build_config_are_keras():
    m = keras.layers.MultiHeadAttention(num_heads=2, key_dim=3, value_dim=4)
    m(Q, V, K)
    assert [w.path.split("/", 1)[1] for w in m.weights] == [
        f"{d}/{v}" for d in ("query", "key", "value", "attention_output") for v in ("kernel", "bias")
    ]
    assert [list(w.shape) for w in m.weights] == _KERAS["mha_shapes"]
    assert _plain(m.get_config()) == _plain(_KERAS["mha_config"])
    assert m.get_build_config() == _KERAS["mha_build_config"]
    again = keras.layers.MultiHeadAttention.from_config(_KERAS["mha_config"])
    again.build_from_config(_KERAS["mha_build_config"])
    assert [list(w.shape) for w in again.weights] == _KERAS["mha_shapes"]
    m = keras.layers.MultiHeadAttention(num_heads=2, key_dim=2, attention_axes=(1, 2), use_bias=False)
    m(X5, X5)
    assert [list(w.shape) for w in m.weights] == _KERAS["mha_axes12_shapes"]


def test_multi_head_attention_first_called_in_a_function_builds_once_and_drops_only_in_training():
    m = keras.layers.MultiHeadAttention(num_heads=2, key_dim=3, dropout=0.5)
    f = tf.function(lambda x, training: m(x, x, training=training))
    inference = f(X4, False).numpy()
    assert len(m.weights) == 8
    np.testing.assert_allclose(inference, m(X4, X4).numpy(), atol=1e-6)  # no dropout outside training
    assert not np.allclose(f(X4, True).numpy(), inference)
    assert len(m.weights) == 8


def test_multi_head_attention_refuses_what_it_does_not_implement():
    with pytest.raises(ValueError, match="use_gate"):
        keras.layers.MultiHeadAttention(2, 3, use_gate=True)
    with pytest.raises(ValueError, match="flash_attention"):
        keras.layers.MultiHeadAttention(2, 3, flash_attention=True)
    with pytest.raises(ValueError, match="key_dim"):
        keras.layers.MultiHeadAttention(2, 0)
    m = keras.layers.MultiHeadAttention(2, 3)
    # Keras 3.15 ignores an explicit query_mask (it reads the query's Keras mask): same output
    np.testing.assert_array_equal(m(Q, V, query_mask=np.zeros((2, 3), bool)).numpy(), m(Q, V).numpy())


@pytest.mark.parametrize("name", sorted(ATTENTION_CASES))
@pytest.mark.parametrize("call", [None, _in_function], ids=["eager", "function"])
def test_attention_layers_match_keras(name, call):
    layer, values = attention_case(keras, name) if call is None else attention_case(keras, name, call)
    for key, got in values.items():
        _close(got, key)
    assert [list(w.shape) for w in layer.weights] == _KERAS[name + "_shapes"]
    assert _plain(layer.get_config()) == _plain(_KERAS[name + "_config"])


def test_attention_dropout_applies_only_in_training():
    layer = keras.layers.Attention(dropout=0.5)
    plain = layer([QA, VA]).numpy()
    assert not np.allclose(layer([QA, VA], training=True).numpy(), plain)
    np.testing.assert_array_equal(layer([QA, VA], training=False).numpy(), plain)
    with pytest.raises(ValueError, match="score_mode"):
        keras.layers.Attention(score_mode="add")


@pytest.mark.parametrize("name", sorted(EINSUM_CASES))
def test_einsum_dense_matches_keras(name):
    layer, x = einsum_case(keras, name)
    _close(layer(x), name)
    _close(tf.function(layer)(x), name)
    assert [list(w.shape) for w in layer.weights] == _KERAS[name + "_shapes"]
    # as Keras's, the static shape leaves None where output_shape does (and for "ab...,bc->ac..."
    # it has an extra trailing axis, as Keras's _analyze_einsum_string gives)
    static = layer.compute_output_shape(x.shape).as_list()
    assert all(d in (None, e) for d, e in zip(static, np.shape(_KERAS[name])))
    assert _plain(layer.get_config()) == _plain(_KERAS[name + "_config"])


def test_einsum_dense_kernel_fans_come_from_the_contracted_and_kept_axes():
    # glorot_uniform over a (64, 8, 16) kernel of "abc,cde->abde": fan_in 64, fan_out 128 (Keras
    # passes input_axes/output_axes), so the limit is sqrt(6 / 192); plain fans would give a
    # tighter sqrt(6 / (512 + 1024)).
    layer = keras.layers.EinsumDense("abc,cde->abde", output_shape=(None, 8, 16))
    layer.build((None, 3, 64))
    kernel = layer.kernel.numpy()
    assert kernel.shape == (64, 8, 16)
    assert 0.9 * np.sqrt(6 / 192) < np.abs(kernel).max() <= np.sqrt(6 / 192)


def test_a_transformer_encoder_trains_as_keras_does():
    model, history = trained_encoder(keras)
    assert [w.path for w in model.weights] == _KERAS["enc_paths"]  # Keras 3's paths, nested scopes included
    np.testing.assert_allclose(history.history["loss"], _KERAS["enc_loss"], rtol=1e-5)
    _close(model.predict(X_TRAIN, verbose=0), "enc_pred")
    _close([float(np.sum(w)) for w in model.get_weights()], "enc_weight_sums", atol=2e-4)


def test_encoder_files_have_keras_layout_and_round_trip(tmp_path):
    pytest.importorskip("h5py")
    model, _ = trained_encoder(keras)
    assert _h5_datasets(model, str(tmp_path / "enc.weights.h5")) == _KERAS["enc_h5"]
    again = encoder(keras)
    again.load_weights(str(tmp_path / "enc.weights.h5"))
    _close(again.predict(X_TRAIN, verbose=0), "enc_pred")
    model.save(str(tmp_path / "enc.keras"))
    loaded = keras.models.load_model(str(tmp_path / "enc.keras"))
    assert type(loaded.get_layer("mha")).__name__ == "MultiHeadAttention"
    _close(loaded.predict(X_TRAIN, verbose=0), "enc_pred")


# Keras 3.15's values for the cases above (printed by running this file with Keras).
_KERAS = json.loads(
    """
{"mha_qvk":[[[-0.006268,0.877083,-0.642551,-1.983312,-0.612856],[0.072085,0.700477,-0.524026,-1.652653,
-0.163697],[0.241763,0.878365,-0.918179,-2.762848,-0.639426]],[[-0.156539,0.098355,-0.527979,-0.184724,
-1.039005],[-0.149571,0.104689,-0.090732,0.408217,-1.407603],[-0.208058,0.140165,-0.511587,-0.145409,
-1.21952]]],"mha_qvk_scores":[[[[0.283834,0.140076,0.233382,0.342708],[0.188412,0.42717,0.232257,0.152161],
[0.772285,0.064277,0.052543,0.110895]],[[0.252626,0.194758,0.192971,0.359645],[0.318791,0.119624,0.221473,
0.340112],[0.225943,0.214587,0.315412,0.244058]]],[[[0.152041,0.313539,0.170314,0.364106],[0.009751,0.78424,
0.041447,0.164562],[0.086014,0.400672,0.10209,0.411224]],[[0.251294,0.254122,0.244913,0.24967],[0.216212,
0.006455,0.414453,0.362881],[0.2482,0.243232,0.255834,0.252733]]]],"mha_attention_mask":[[[0.054602,0.850003,
-0.480059,-2.217227,-0.566533],[0.038786,1.03784,-0.815218,-1.274652,0.110401],[-0.272824,0.594186,-0.108882,
-1.496153,-1.006829]],[[-0.156539,0.098355,-0.527979,-0.184724,-1.039005],[-0.997817,0.707989,-0.300391,
1.181938,-1.787364],[-0.017594,0.088066,-1.05479,-0.213372,-0.59544]]],"mha_value_mask":[[[0.129383,1.040464,
-0.93708,-2.236517,-0.411802],[0.114275,0.850829,-0.716034,-1.677593,-0.01901],[0.291649,0.989949,-1.110607,
-2.928916,-0.62155]],[[0.171621,-0.132516,-0.645873,-0.752474,-0.71202],[0.211636,-0.140394,-0.571317,-0.660432,
-0.917671],[0.147966,-0.096246,-0.697699,-0.865443,-0.885374]]],"mha_key_mask":[[[0.129383,1.040464,-0.93708,
-2.236517,-0.411802],[0.114275,0.850829,-0.716034,-1.677593,-0.01901],[0.291649,0.989949,-1.110607,-2.928916,
-0.62155]],[[0.171621,-0.132516,-0.645873,-0.752474,-0.71202],[0.211636,-0.140394,-0.571317,-0.660432,
-0.917671],[0.147966,-0.096246,-0.697699,-0.865443,-0.885374]]],"mha_causal":[[[1.045239,0.385329,-0.124071,
-1.137341,-0.75989],[0.617414,0.497202,0.548769,-0.571092,-0.341595],[0.151857,0.443233,1.419517,-0.09424,
0.008545],[0.625746,0.51553,0.741606,-0.811689,-0.402536]],[[0.752892,0.47663,1.454557,1.207276,0.38096],
[1.535875,1.776839,-1.464551,-1.215382,-0.482479],[1.884491,1.941872,0.586123,-0.462739,-0.760613],[1.028077,
0.990403,0.219896,0.403011,0.102982]]],"mha_causal_scores":[[[[1.0,0.0,0.0,0.0],[0.752299,0.247701,0.0,0.0],
[0.127976,0.159779,0.712244,0.0],[0.65187,0.114507,0.22604,0.007583]],[[1.0,0.0,0.0,0.0],[0.65436,0.34564,0.0,
0.0],[0.138071,0.735691,0.126237,0.0],[0.183295,0.140671,0.269263,0.406771]]],[[[1.0,0.0,0.0,0.0],[0.071251,
0.928749,0.0,0.0],[0.070209,0.768119,0.161671,0.0],[0.309532,0.398677,0.15324,0.138551]],[[1.0,0.0,0.0,0.0],
[0.167112,0.832888,0.0,0.0],[0.768304,0.125818,0.105879,0.0],[0.343575,0.173471,0.198918,0.284036]]]],
"mha_output_shape_window":[[[[0.322139,0.378118,-0.838922],[0.424592,0.228951,1.157726]],[[0.311968,0.009138,
-0.900263],[0.054303,0.219072,0.764019]],[[0.261467,-0.30606,-0.494422],[-0.141398,-0.064651,0.403171]],
[[-0.036963,-0.38135,0.211517],[-0.146878,-0.435734,0.31794]]],[[[0.660688,-0.238689,-0.829551],[0.22939,
0.440347,0.052405]],[[0.800994,0.174577,-1.103136],[0.558205,0.545315,0.507247]],[[0.819822,0.170948,-0.991622],
[0.593041,0.490463,0.32102]],[[0.293183,-0.797314,0.201416],[-0.293236,-0.354806,-0.546121]]]],
"mha_axes12":[[[[0.171089,0.275229,-0.040562,-0.337438,0.141309],[0.222862,0.275984,-0.091701,-0.385744,
-0.027942],[0.175428,0.296626,-0.067566,-0.360412,0.054415]],[[0.235423,0.205603,-0.0368,-0.325222,0.168191],
[0.241176,0.224042,-0.117915,-0.336721,-0.083743],[0.199434,0.210619,-0.073353,-0.299371,0.027693]]],
[[[0.064004,0.069785,0.128995,-0.063566,0.631069],[0.077655,0.089303,0.141742,-0.096186,0.677889],[0.152504,
0.100685,-0.034968,-0.064407,0.353825]],[[0.134723,0.074676,0.092347,-0.10331,0.592016],[0.027749,0.078311,
0.070871,-0.028281,0.44686],[-0.020221,0.088297,0.076084,-0.005699,0.427412]]]],
"mha_config":{"name":"multi_head_attention_4","trainable":true,"dtype":{"module":"keras",
"class_name":"DTypePolicy","config":{"name":"float32"},"registered_name":null},"num_heads":2,"key_dim":3,
"value_dim":4,"dropout":0.0,"use_bias":true,"use_gate":false,"output_shape":null,"attention_axes":[1],
"sliding_window":null,"kernel_initializer":{"module":"keras.initializers","class_name":"GlorotUniform",
"config":{"seed":null,"input_axes":null,"output_axes":null},"registered_name":null},
"bias_initializer":{"module":"keras.initializers","class_name":"Zeros","config":{},"registered_name":null},
"kernel_regularizer":null,"bias_regularizer":null,"activity_regularizer":null,"kernel_constraint":null,
"bias_constraint":null,"seed":null},"mha_build_config":{"shapes_dict":{"query_shape":[2,3,5],"value_shape":[2,4,
6],"key_shape":[2,4,7]}},"mha_shapes":[[5,2,3],[2,3],[7,2,3],[2,3],[6,2,4],[2,4],[2,4,5],[5]],
"mha_axes12_shapes":[[5,2,2],[5,2,2],[5,2,2],[2,2,5]],"att_dot":[[[-0.451023,-0.745582,-0.725661,-0.05835],
[-0.225465,-0.771332,0.125529,0.461327],[-0.64864,-0.588682,-0.427593,-0.161093]],[[-0.991427,-0.648061,0.41932,
-0.624907],[-1.001137,-0.777283,0.940671,-0.761891],[-0.384165,-0.131372,-1.451072,-0.397164]]],
"att_dot_scores":[[[0.001746,0.0022,0.015919,0.603825,0.37631],[0.000116,0.002573,0.44931,0.505984,0.042017],
[0.041904,0.018851,0.437477,0.172246,0.329522]],[[0.139255,0.061179,0.033543,0.758995,0.007028],[0.038692,
0.006717,0.000636,0.951243,0.002711],[0.162242,0.408296,0.207926,0.13961,0.081926]]],
"att_dot_masked":[[[0.103087,-0.927158,-0.029632,0.693082],[0.102557,-0.930497,-0.028856,0.698203],[0.0,0.0,0.0,
0.0]],[[-0.991427,-0.648061,0.41932,-0.624907],[-1.001137,-0.777283,0.940671,-0.761891],[-0.384165,-0.131372,
-1.451072,-0.397164]]],"att_dot_causal":[[[0.00123,0.298746,-0.274138,-0.890592],[-0.434981,-0.935915,0.045706,
1.243868],[-0.140227,-0.101637,-0.170417,-0.198418]],[[-1.841735,-0.235091,-1.267447,0.271264],[-1.546122,
-0.227967,-1.452243,0.151457],[-0.314582,-0.116775,-1.992862,-0.353611]]],"att_dot_config":{"name":"attention",
"trainable":true,"dtype":{"module":"keras","class_name":"DTypePolicy","config":{"name":"float32"},
"registered_name":null},"use_scale":false,"score_mode":"dot","dropout":0.0,"seed":null},"att_dot_shapes":[],
"att_scale":[[[-0.403776,-0.763439,-0.679102,0.001006],[-0.194877,-0.780675,0.166401,0.501623],[-0.680912,
-0.592365,-0.412038,-0.169459]],[[-1.007602,-0.717485,0.68327,-0.690657],[-0.989413,-0.798201,1.01869,
-0.790254],[-0.318242,-0.144314,-1.601029,-0.416309]]],"att_scale_scores":[[[0.000323,0.000436,0.005711,0.64482,
0.34871],[1e-05,0.00055,0.451637,0.527057,0.020746],[0.023076,0.008169,0.486928,0.144949,0.336878]],[[0.094466,
0.032427,0.014846,0.856315,0.001946],[0.015293,0.00157,7.3e-05,0.98258,0.000483],[0.144218,0.478714,0.199109,
0.118631,0.059328]]],"att_scale_masked":[[[0.104984,-0.929895,-0.029314,0.694946],[0.104829,-0.930509,-0.029163,
0.695946],[0.0,0.0,0.0,0.0]],[[-1.007602,-0.717485,0.68327,-0.690657],[-0.989413,-0.798201,1.01869,-0.790254],
[-0.318242,-0.144314,-1.601029,-0.416309]]],"att_scale_causal":[[[0.00123,0.298746,-0.274138,-0.890592],
[-0.446689,-0.969054,0.054291,1.301157],[-0.117964,-0.038625,-0.186741,-0.307352]],[[-1.841735,-0.235091,
-1.267447,0.271264],[-1.655671,-0.230607,-1.383761,0.195855],[-0.243577,-0.122658,-2.058608,-0.381834]]],
"att_scale_config":{"name":"attention_1","trainable":true,"dtype":{"module":"keras","class_name":"DTypePolicy",
"config":{"name":"float32"},"registered_name":null},"use_scale":true,"score_mode":"dot","dropout":0.0,
"seed":null},"att_scale_shapes":[[]],"att_concat":[[[-0.31454,-0.756156,-0.126555,0.326828],[-0.428482,
-0.683781,0.092812,0.276355],[-0.377003,-0.701136,0.178599,0.355874]],[[-0.879698,-0.431231,-0.247465,
-0.467654],[-0.699299,-0.398871,-0.720964,-0.47369],[-0.871728,-0.607384,0.31587,-0.648216]]],
"att_concat_scores":[[[0.011646,0.051758,0.313153,0.483679,0.139764],[0.003933,0.01434,0.619981,0.254862,
0.106884],[0.001754,0.013258,0.635435,0.283978,0.065575]],[[0.218148,0.169874,0.029559,0.511819,0.0706],
[0.191232,0.346337,0.008916,0.408254,0.045261],[0.090872,0.11245,0.031875,0.73528,0.029523]]],
"att_concat_masked":[[[0.050209,-0.910089,-0.026007,0.722556],[0.074508,-0.91598,-0.028085,0.706326],[0.0,0.0,
0.0,0.0]],[[-0.879698,-0.431231,-0.247465,-0.467654],[-0.699299,-0.398871,-0.720964,-0.47369],[-0.871728,
-0.607384,0.31587,-0.648216]]],"att_concat_causal":[[[0.00123,0.298746,-0.274138,-0.890592],[-0.356544,
-0.713908,-0.011806,0.860065],[-0.401415,-0.840911,0.021095,1.079626]],[[-1.841735,-0.235091,-1.267447,
0.271264],[-0.554179,-0.204063,-2.072336,-0.250563],[-0.643212,-0.164848,-1.900355,-0.217494]]],
"att_concat_config":{"name":"attention_2","trainable":true,"dtype":{"module":"keras","class_name":"DTypePolicy",
"config":{"name":"float32"},"registered_name":null},"use_scale":true,"score_mode":"concat","dropout":0.0,
"seed":null},"att_concat_shapes":[[],[]],"add_att":[[[-0.389511,-0.586854,-0.234506,0.27879],[-0.369982,
-0.451173,-0.336316,0.057172],[-0.404452,-0.511461,-0.369709,0.116824]],[[-0.699782,-0.18991,-0.88117,
-0.346953],[-0.649742,-0.0416,-0.928285,-0.286001],[-0.764375,-0.179808,-0.802151,-0.320647]]],
"add_att_scores":[[[0.213524,0.3598,0.12785,0.164478,0.134348],[0.332775,0.329234,0.058879,0.126563,0.152549],
[0.27908,0.353946,0.047346,0.144235,0.175394]],[[0.251809,0.200084,0.176942,0.260812,0.110353],[0.25524,
0.141041,0.219746,0.188818,0.195156],[0.27977,0.14553,0.191022,0.264464,0.119213]]],
"add_att_masked":[[[-0.197871,-0.604562,-0.056528,0.550838],[-0.17239,-0.437286,-0.09527,0.295315],[0.0,0.0,0.0,
0.0]],[[-0.699782,-0.18991,-0.88117,-0.346953],[-0.649742,-0.0416,-0.928285,-0.286001],[-0.764375,-0.179808,
-0.802151,-0.320647]]],"add_att_causal":[[[0.00123,0.298746,-0.274138,-0.890592],[-0.225501,-0.342999,-0.107891,
0.218845],[-0.253679,-0.422755,-0.08723,0.356726]],[[-1.841735,-0.235091,-1.267447,0.271264],[-1.13045,-0.21795,
-1.712092,-0.017009],[-0.814045,-0.115736,-1.643861,-0.152138]]],"add_att_config":{"name":"additive_attention",
"trainable":true,"dtype":{"module":"keras","class_name":"DTypePolicy","config":{"name":"float32"},
"registered_name":null},"use_scale":true,"dropout":0.0,"seed":null},"add_att_shapes":[[4]],
"add_att_noscale":[[[-0.339118,-0.749373,-0.196534,0.301791],[-0.463291,-0.675144,-0.011326,0.212254],[-0.39986,
-0.696077,0.133593,0.329095]],[[-0.85225,-0.301967,-0.534887,-0.370866],[-0.649746,-0.312526,-0.936075,
-0.421012],[-0.811289,-0.506421,0.047516,-0.587402]]],"add_att_noscale_scores":[[[0.022427,0.085955,0.26292,
0.465258,0.16344],[0.009079,0.025854,0.567319,0.249961,0.147788],[0.004128,0.025517,0.61592,0.269954,0.084481]],
[[0.270802,0.182632,0.047657,0.384352,0.114558],[0.211391,0.37619,0.012913,0.323224,0.076283],[0.115112,
0.138396,0.06149,0.629723,0.055278]]],"add_att_noscale_masked":[[[0.017417,-0.891578,-0.025431,0.729937],
[0.051267,-0.896849,-0.028943,0.703291],[0.0,0.0,0.0,0.0]],[[-0.85225,-0.301967,-0.534887,-0.370866],[-0.649746,
-0.312526,-0.936075,-0.421012],[-0.811289,-0.506421,0.047516,-0.587402]]],"add_att_noscale_causal":[[[0.00123,
0.298746,-0.274138,-0.890592],[-0.336186,-0.656285,-0.026733,0.760447],[-0.391191,-0.811971,0.013598,1.029595]],
[[-1.841735,-0.235091,-1.267447,0.271264],[-0.562234,-0.204257,-2.067301,-0.247299],[-0.613638,-0.145921,
-1.867617,-0.230808]]],"add_att_noscale_config":{"name":"additive_attention_1","trainable":true,
"dtype":{"module":"keras","class_name":"DTypePolicy","config":{"name":"float32"},"registered_name":null},
"use_scale":false,"dropout":0.0,"seed":null},"add_att_noscale_shapes":[],"ed_plain":[[0.0,1.462665,0.0,
0.431124],[0.0,0.0,0.0,1.314374],[0.0,0.0,0.802413,0.0]],"ed_plain_config":{"name":"einsum_dense",
"trainable":true,"dtype":{"module":"keras","class_name":"DTypePolicy","config":{"name":"float32"},
"registered_name":null},"output_shape":[4],"equation":"ab,bc->ac","activation":"relu","bias_axes":"c",
"kernel_initializer":{"module":"keras.initializers","class_name":"GlorotUniform","config":{"seed":null,
"input_axes":null,"output_axes":null},"registered_name":null},"bias_initializer":{"module":"keras.initializers",
"class_name":"Zeros","config":{},"registered_name":null},"kernel_regularizer":null,"bias_regularizer":null,
"activity_regularizer":null,"kernel_constraint":null,"bias_constraint":null,"quantization_config":null},
"ed_plain_shapes":[[5,4],[4]],"ed_3d":[[[[0.339945,0.295649,0.0],[0.725058,0.974526,0.0]],[[1.256957,0.097955,
0.297855],[0.0,0.0,0.0]],[[0.0,0.509999,0.0],[0.0,0.625064,0.0]]],[[[0.0,0.0,0.663674],[1.148933,1.452973,
0.283873]],[[0.0,0.0,0.587058],[0.0,0.751943,0.322563]],[[0.0,0.634112,0.0],[0.0,0.696736,0.898319]]]],
"ed_3d_config":{"name":"einsum_dense_1","trainable":true,"dtype":{"module":"keras","class_name":"DTypePolicy",
"config":{"name":"float32"},"registered_name":null},"output_shape":[null,2,3],"equation":"abc,cde->abde",
"activation":"relu","bias_axes":"de","kernel_initializer":{"module":"keras.initializers",
"class_name":"GlorotUniform","config":{"seed":null,"input_axes":null,"output_axes":null},
"registered_name":null},"bias_initializer":{"module":"keras.initializers","class_name":"Zeros","config":{},
"registered_name":null},"kernel_regularizer":null,"bias_regularizer":null,"activity_regularizer":null,
"kernel_constraint":null,"bias_constraint":null,"quantization_config":null},"ed_3d_shapes":[[5,2,3],[2,3]],
"ed_left":[[[0.0,0.258041,3.103916,0.0],[0.000125,1.065713,0.0,0.739092],[0.0,0.297765,0.891296,0.580803]],
[[0.485519,0.0,0.188029,1.707631],[0.0,1.858094,1.235382,0.716762],[0.0,0.545723,1.456488,0.0]]],
"ed_left_config":{"name":"einsum_dense_2","trainable":true,"dtype":{"module":"keras","class_name":"DTypePolicy",
"config":{"name":"float32"},"registered_name":null},"output_shape":[4],"equation":"...b,bc->...c",
"activation":"relu","bias_axes":"c","kernel_initializer":{"module":"keras.initializers",
"class_name":"GlorotUniform","config":{"seed":null,"input_axes":null,"output_axes":null},
"registered_name":null},"bias_initializer":{"module":"keras.initializers","class_name":"Zeros","config":{},
"registered_name":null},"kernel_regularizer":null,"bias_regularizer":null,"activity_regularizer":null,
"kernel_constraint":null,"bias_constraint":null,"quantization_config":null},"ed_left_shapes":[[5,4],[4]],
"ed_right":[[[0.0,0.924163,0.586179],[0.0,2.981766,1.950462],[2.202386,1.659141,0.0],[0.0,1.647001,0.548597]],
[[0.0,0.11465,0.0],[0.0,0.439658,0.588803],[1.35695,0.80853,0.0],[0.0,0.351099,1.321374]]],
"ed_right_config":{"name":"einsum_dense_3","trainable":true,"dtype":{"module":"keras",
"class_name":"DTypePolicy","config":{"name":"float32"},"registered_name":null},"output_shape":[4,null],
"equation":"ab...,bc->ac...","activation":"relu","bias_axes":"c",
"kernel_initializer":{"module":"keras.initializers","class_name":"GlorotUniform","config":{"seed":null,
"input_axes":null,"output_axes":null},"registered_name":null},"bias_initializer":{"module":"keras.initializers",
"class_name":"Zeros","config":{},"registered_name":null},"kernel_regularizer":null,"bias_regularizer":null,
"activity_regularizer":null,"kernel_constraint":null,"bias_constraint":null,"quantization_config":null},
"ed_right_shapes":[[5,4],[4,1]],"enc_loss":[0.937289,0.905651,0.883047],"enc_pred":[[-0.214993],[-0.122121],
[-0.047693],[-0.066981],[-0.168123],[-0.11521],[-0.069107],[-0.034843]],"enc_weight_sums":[1.826975,0.670027,
0.251818,-0.758771,4.303444,1.491795,-0.208314,0.049532,1.170643,0.538164,1.699083,0.23131,0.22345,1.945008,
0.228877,-0.518176,-0.158149,-0.012248],"enc_paths":["mha/query/kernel","mha/query/bias","mha/key/kernel",
"mha/key/bias","mha/value/kernel","mha/value/bias","mha/attention_output/kernel","mha/attention_output/bias",
"ln1/gamma","ln1/beta","ff1/kernel","ff1/bias","ff2/kernel","ff2/bias","ln2/gamma","ln2/beta","head/kernel",
"head/bias"],"enc_h5":[["layers/dense/vars/0",[8,16]],["layers/dense/vars/1",[16]],["layers/dense_1/vars/0",[16,
8]],["layers/dense_1/vars/1",[8]],["layers/dense_2/vars/0",[8,1]],["layers/dense_2/vars/1",[1]],
["layers/layer_normalization/vars/0",[8]],["layers/layer_normalization/vars/1",[8]],
["layers/layer_normalization_1/vars/0",[8]],["layers/layer_normalization_1/vars/1",[8]],
["layers/multi_head_attention/key_dense/vars/0",[8,2,4]],["layers/multi_head_attention/key_dense/vars/1",[2,4]],
["layers/multi_head_attention/output_dense/vars/0",[2,4,8]],["layers/multi_head_attention/output_dense/vars/1",
[8]],["layers/multi_head_attention/query_dense/vars/0",[8,2,4]],
["layers/multi_head_attention/query_dense/vars/1",[2,4]],["layers/multi_head_attention/value_dense/vars/0",[8,2,
4]],["layers/multi_head_attention/value_dense/vars/1",[2,4]],["optimizer/vars/0",[]],["optimizer/vars/1",[]],
["optimizer/vars/10",[8,2,4]],["optimizer/vars/11",[8,2,4]],["optimizer/vars/12",[2,4]],["optimizer/vars/13",[2,
4]],["optimizer/vars/14",[2,4,8]],["optimizer/vars/15",[2,4,8]],["optimizer/vars/16",[8]],["optimizer/vars/17",
[8]],["optimizer/vars/18",[8]],["optimizer/vars/19",[8]],["optimizer/vars/2",[8,2,4]],["optimizer/vars/20",[8]],
["optimizer/vars/21",[8]],["optimizer/vars/22",[8,16]],["optimizer/vars/23",[8,16]],["optimizer/vars/24",[16]],
["optimizer/vars/25",[16]],["optimizer/vars/26",[16,8]],["optimizer/vars/27",[16,8]],["optimizer/vars/28",[8]],
["optimizer/vars/29",[8]],["optimizer/vars/3",[8,2,4]],["optimizer/vars/30",[8]],["optimizer/vars/31",[8]],
["optimizer/vars/32",[8]],["optimizer/vars/33",[8]],["optimizer/vars/34",[8,1]],["optimizer/vars/35",[8,1]],
["optimizer/vars/36",[1]],["optimizer/vars/37",[1]],["optimizer/vars/4",[2,4]],["optimizer/vars/5",[2,4]],
["optimizer/vars/6",[8,2,4]],["optimizer/vars/7",[8,2,4]],["optimizer/vars/8",[2,4]],["optimizer/vars/9",[2,
4]]]}
"""
)
