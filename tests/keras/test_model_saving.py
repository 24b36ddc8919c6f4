"""Whole models: layer and model configs, checked against what Keras 3 writes and reads.

``fixtures/keras_configs.json`` holds Keras 3.15's ``get_config()`` of the layers in
``fixtures/layer_cases.py`` (``make_keras_configs.py``).
"""

import json
import os

import pytest

import tfunc as tf
from tfunc.keras import layers
from tfunc.keras.serialization import KERAS_ONLY_DEFAULTS

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
with open(os.path.join(FIXTURES, "keras_configs.json")) as _f:
    KERAS_CONFIGS = json.load(_f)["cases"]


def _plain(config):
    """A config as JSON has it (tuples as lists), without the arguments only Keras has at their
    unused values (tfunc writes none of them; Keras reads configs without them) and without the
    ids Keras gives objects shared between configs (the global dtype policy)."""

    def strip(c):
        if isinstance(c, dict):
            return {
                k: strip(v)
                for k, v in c.items()
                if k != "shared_object_id" and not (k in KERAS_ONLY_DEFAULTS and v == KERAS_ONLY_DEFAULTS[k])
            }
        if isinstance(c, list):
            return [strip(v) for v in c]
        return c

    return strip(json.loads(json.dumps(config)))


def _case_id(case):
    return f"{case['class_name']}-{'-'.join(sorted(case['kwargs'])) or 'defaults'}"


# --- layer configs ------------------------------------------------------------------------------


@pytest.mark.parametrize("case", KERAS_CONFIGS, ids=_case_id)
def test_layer_configs_are_the_ones_keras_writes(case):
    layer = getattr(layers, case["class_name"])(**case["kwargs"])
    config = _plain(layer.get_config())
    assert config.pop("name") == layer.name
    assert config == _plain(case["config"])


@pytest.mark.parametrize("case", KERAS_CONFIGS, ids=_case_id)
def test_layers_rebuild_from_the_configs_keras_writes(case):
    cls = getattr(layers, case["class_name"])
    layer = cls.from_config(dict(case["config"], name="from_keras"))
    assert type(layer) is cls and layer.name == "from_keras"
    config = _plain(layer.get_config())
    config.pop("name")
    assert config == _plain(case["config"])


def test_keras_only_arguments_load_at_their_unused_values_and_are_refused_otherwise():
    config = layers.Dense(3).get_config()
    dense = layers.Dense.from_config(dict(config, quantization_config=None, lora_rank=None))
    assert dense.units == 3
    with pytest.raises(ValueError, match="lora_rank=4"):
        layers.Dense.from_config(dict(config, lora_rank=4))
    with pytest.raises(ValueError, match="renorm=True"):
        layers.BatchNormalization.from_config(dict(layers.BatchNormalization().get_config(), renorm=True))


def test_user_layers_get_keras_automatic_config_from_plain_arguments():
    class Scale(layers.Layer):
        def __init__(self, factor, offset=0.0, **kwargs):
            super().__init__(**kwargs)
            self.factor, self.offset = factor, offset

        def call(self, x):
            return x * self.factor + self.offset

    config = Scale(2.0, name="s").get_config()
    assert config["factor"] == 2.0 and "offset" not in config  # only what was passed, as in Keras
    again = Scale.from_config(config)
    assert again.factor == 2.0 and again.name == "s"

    class Wrapper(layers.Layer):
        def __init__(self, inner, **kwargs):
            super().__init__(**kwargs)
            self.inner = inner

    with pytest.raises(NotImplementedError, match="must override `get_config\\(\\)`"):
        Wrapper(layers.Dense(2)).get_config()


def test_a_get_config_of_its_own_gets_only_the_base_keys_from_super():
    class Own(layers.Layer):
        def __init__(self, units, **kwargs):
            super().__init__(**kwargs)
            self.units = units

        def get_config(self):
            return {**super().get_config(), "units": self.units}

    config = Own(4, name="own").get_config()
    assert set(config) == {"name", "trainable", "dtype", "units"}


def test_build_config_records_the_shape_a_layer_was_built_for():
    dense = layers.Dense(3)
    assert dense.get_build_config() is None
    dense.build((None, 5))
    assert dense.get_build_config() == {"input_shape": [None, 5]}
    again = layers.Dense.from_config(dense.get_config())
    again.build_from_config(dense.get_build_config())
    assert again.built and again.kernel.shape.as_list() == [5, 3]
    called = layers.Add()
    called([tf.ones((2, 3)), tf.ones((2, 3))])
    assert called.get_build_config() == {"input_shape": [[2, 3], [2, 3]]}
