"""Functional models holding nested models: ``.keras`` archives written by Keras 3.15 load with
Keras's outputs, and the configs tfunc writes wire the layers as Keras's do (a nested functional
model's calls numbered from 1 in ``input_layers``/``output_layers``, from 0 in ``inbound_nodes``),
so Keras reads tfunc's archives the same way (``make_nested_archives.py --export/--verify`` checks
that with Keras itself).

The archives and the outputs Keras recorded are written by ``fixtures/make_nested_archives.py``,
whose builders make the same models here.
"""

import copy
import json
import os
import zipfile

import numpy as np
import pytest

import tfunc as tf
from tfunc import keras

from .fixtures.make_nested_archives import BUILDERS, NPZ, inputs_of, outputs_of

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
RECORDED = dict(np.load(NPZ))

pytest.importorskip("h5py")


def _archive(name):
    return os.path.join(FIXTURES, f"nested_{name}.keras")


def _keras_config(name):
    with zipfile.ZipFile(_archive(name)) as archive:
        return json.loads(archive.read("config.json"))["config"]


def _check_outputs(model, name):
    x = inputs_of(RECORDED, model)
    want = outputs_of(RECORDED, name)
    for got in (model(x), tf.function(lambda x: model(x))(x)):
        got = tf.nest.flatten(got)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.numpy(), w, rtol=1e-5, atol=1e-6)


def _call(node):
    """A call in ``inbound_nodes`` without a ``mask`` of Nones: Keras records the mask of the
    inputs of a layer that takes one (a nested model) even when there is none; tfunc leaves it
    out, and Keras's call fills it in the same way on reading."""
    kwargs = dict(node["kwargs"])
    if all(m is None for m in tf.nest.flatten(kwargs.get("mask"))):
        kwargs.pop("mask", None)
    return {**node, "kwargs": kwargs}


def _wiring(config):
    """What connects a functional config's layers: each layer's name, class and calls, its own
    wiring for a nested functional model, and the model's inputs and outputs."""
    layers = []
    for layer in config["layers"]:
        calls = [_call(node) for node in layer["inbound_nodes"]]
        entry = {"name": layer["name"], "class_name": layer["class_name"], "inbound_nodes": calls}
        if layer["class_name"] == "Functional":
            entry["config"] = _wiring(layer["config"])
        layers.append(entry)
    return {"layers": layers, "input_layers": config["input_layers"], "output_layers": config["output_layers"]}


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_archives_keras_wrote_load_with_keras_outputs(name):
    _check_outputs(keras.models.load_model(_archive(name)), name)


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_configs_written_here_wire_the_layers_as_keras_does(name):
    model = BUILDERS[name](keras)
    assert _wiring(json.loads(json.dumps(model.get_config()))) == _wiring(_keras_config(name))


def test_keras_numbers_the_calls_of_nested_functional_models_from_1_in_outputs_only():
    # the values Keras 3.15 writes (see the fixtures), spelled out
    assert BUILDERS["once"](keras).get_config()["output_layers"] == ["inner", 1, 0]
    config = BUILDERS["twice"](keras).get_config()
    assert config["output_layers"] == [["inner", 1, 0], ["inner", 2, 0]]
    config = BUILDERS["second_call"](keras).get_config()
    inner = next(layer for layer in config["layers"] if layer["name"] == "inner")
    assert inner["inbound_nodes"][1]["args"][0]["config"]["keras_history"] == ["inner", 0, 0]
    assert config["output_layers"] == [["head", 0, 0], ["inner", 2, 0]]
    assert BUILDERS["sequential"](keras).get_config()["output_layers"] == [["seq", 0, 0], ["seq", 1, 0]]


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_archives_written_here_round_trip(name, tmp_path):
    model = BUILDERS[name](keras)
    model.set_weights(keras.models.load_model(_archive(name)).get_weights())
    model.save(tmp_path / "m.keras")
    again = keras.models.load_model(tmp_path / "m.keras")
    _check_outputs(again, name)
    assert again.get_config() == model.get_config()


def _numbered_from_0(config):
    """``config`` as tfunc wrote it before numbering nested functional models' calls as Keras."""
    old = copy.deepcopy(config)
    functional = {layer["name"] for layer in config["layers"] if layer["class_name"] == "Functional"}

    def renumber(refs):
        if isinstance(refs, dict):
            return {k: renumber(v) for k, v in refs.items()}
        if isinstance(refs[0], str):
            return [refs[0], refs[1] - (refs[0] in functional), refs[2]]
        return [renumber(r) for r in refs]

    old["output_layers"] = renumber(config["output_layers"])
    return old


@pytest.mark.parametrize("name", ["once", "twice", "chained", "deep", "shared", "dict_io"])
def test_archives_tfunc_wrote_before_still_load(name):
    # Their outputs name a nested model's first call as 0, which Keras never writes. (An archive
    # whose outputs are only later calls, as second_call's, cannot be told from Keras's.)
    model = BUILDERS[name](keras)
    model.set_weights(keras.models.load_model(_archive(name)).get_weights())
    old = keras.Model.from_config(_numbered_from_0(model.get_config()))
    old.set_weights(model.get_weights())
    _check_outputs(old, name)
