"""More of ``keras.ops`` (NaN reductions, quantiles, bitwise, windows, attention, Fourier
transforms...): values and dtypes against what Keras 3.15 (TensorFlow backend) computes on the
same arrays (``fixtures/keras_ops_dtypes.json``'s ``values``, written by
``make_keras_ops_dtypes.py``), eagerly and inside ``tf.function``; and recorded as operations
in a functional model that Keras can load."""

import json
import os

import numpy as np
import pytest

import tfunc as tf
from tfunc.keras import ops

from .fixtures import make_keras_ops_dtypes as spec

with open(os.path.join(os.path.dirname(__file__), "fixtures", "keras_ops_dtypes.json")) as f:
    KERAS = json.load(f)

CASES = list(zip(spec.VALUE_CALLS, KERAS["values"]))


def _check(out, expected):
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    assert len(outs) == len(expected)
    for o, e in zip(outs, expected):
        assert o.dtype.name == e["dtype"]
        got = np.asarray(o)
        assert list(got.shape) == e["shape"]
        want = np.asarray(e["values"], dtype=got.dtype if got.dtype != np.dtype("bfloat16") else np.float32)
        if got.dtype.kind in "fc":
            np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5, equal_nan=True)
        else:
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{i}" for i, (c, _) in enumerate(CASES)])
def test_values_and_dtypes_are_keras(case):
    (name, args, kwargs), keras_result = case
    assert keras_result["fn"] == name
    _check(spec.value_call(ops, name, args, kwargs), keras_result["out"])
    # traced, the arrays as the function's tensor arguments
    names = sorted({n for a in [*args, *kwargs.values()] for n in spec.input_names(a)})

    @tf.function
    def traced(*tensors):
        return spec.value_call(ops, name, args, kwargs, dict(zip(names, tensors)).__getitem__)

    _check(traced(*[tf.constant(spec.INPUTS[n]) for n in names]), keras_result["out"])


def test_rot90_half_turn_is_numpys():
    # Keras 3.15's TensorFlow backend turns k=2 wrongly (not NumPy's rot90); tfunc follows NumPy
    cube = spec.INPUTS["cube"]
    for k, axes in [(2, (0, 1)), (2, (1, 2)), (-2, (2, 0)), (5, (0, 2))]:
        eager = ops.rot90(cube, k=k, axes=axes)
        traced = tf.function(lambda t, k=k, axes=axes: ops.rot90(t, k=k, axes=axes))(tf.constant(cube))
        np.testing.assert_array_equal(eager, np.rot90(cube, k=k, axes=axes))
        np.testing.assert_array_equal(traced, np.rot90(cube, k=k, axes=axes))


def test_new_ops_on_keras_tensors_record_operations_keras_can_read(tmp_path):
    import zipfile

    keras = tf.keras
    keras.backend.clear_session()
    inp = keras.Input((6,))
    x = keras.layers.Dense(6)(inp)
    ints = ops.cast(x, "int32")
    outs = [
        ops.nanmean(x, axis=1, keepdims=True),
        ops.hard_shrink(x, threshold=0.3),
        ops.quantile(x, 0.25, axis=-1),
        ops.bitwise_and(ints, ints),
        ops.erfc(x),
        ops.diff(x, n=2),
        ops.isclose(x, x + 0.25, atol=0.5),
        ops.isclose(x, x + 0.25, atol=0.1),
    ]
    model = keras.Model(inp, outs)
    data = np.random.RandomState(0).rand(2, 6).astype(np.float32)
    dense = model.layers[1](data).numpy()
    got = model(data)
    np.testing.assert_allclose(got[2], np.quantile(dense, 0.25, axis=-1), rtol=1e-5)
    np.testing.assert_allclose(got[5], np.diff(dense, n=2), rtol=1e-5, atol=1e-6)
    assert got[3].dtype == tf.int32 and got[6].dtype == tf.bool
    assert bool(np.all(got[6])) and not bool(np.any(got[7]))  # atol kept apart from rtol
    model.save(tmp_path / "m.keras")
    again = keras.models.load_model(tmp_path / "m.keras")
    for a, b in zip(again(data), got):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6)
    layers = json.loads(zipfile.ZipFile(tmp_path / "m.keras").read("config.json"))["config"]["layers"]
    written = {(entry["module"], entry["class_name"]): entry for entry in layers}
    # as Keras 3.15 writes them: names, modules, and the call's operands apart from the config
    # (Keras also writes the arguments left to their defaults; it loads the archive either way)
    assert written[("keras.src.ops.numpy", "Nanmean")]["config"] == {"name": "nanmean", "axis": 1, "keepdims": True}
    assert written[("keras.src.ops.nn", "HardShrink")]["config"] == {"name": "hard_shrink", "threshold": 0.3}
    quantile = written[("keras.src.ops.numpy", "Quantile")]
    assert quantile["config"] == {"name": "quantile", "axis": -1}
    assert quantile["inbound_nodes"][0]["args"][1] == 0.25  # q is an operand: Quantile(axis, method, keepdims)
    assert written[("keras.src.ops.numpy", "BitwiseAnd")]["config"] == {"name": "bitwise_and"}
    assert written[("keras.src.ops.math", "Erfc")]["config"] == {"name": "erfc"}
    assert written[("keras.src.ops.numpy", "Diff")]["config"] == {"name": "diff", "n": 2}
    isclose = next(entry for entry in layers if entry["config"]["name"] == "isclose")
    # rtol (default) and atol as operands, in Isclose.call(x1, x2, rtol, atol)'s order
    assert isclose["config"] == {"name": "isclose"} and isclose["inbound_nodes"][0]["args"][2:] == [1e-5, 0.5]
