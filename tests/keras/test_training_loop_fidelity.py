"""fit/evaluate/predict against Keras 3.15 (TF backend): the scenarios of
training_loop_scenarios.py, run traced and with run_eagerly=True, give Keras's values, history keys
and Python/NumPy types (recorded in training_loop_keras_values.json by
tests/keras/fixtures/make_training_loop_values.py: run it with TensorFlow 2.21 and Keras 3.15
installed, from the repository root)."""

import json
import os
import warnings

import numpy as np
import pytest

import tfunc as tf

from .training_loop_scenarios import SCENARIOS, jsonable

with open(os.path.join(os.path.dirname(__file__), "training_loop_keras_values.json")) as f:
    EXPECTED = json.load(f)


def assert_same(got, want, path=""):
    """Same keys, lengths, strings and types; numbers within float32 training round-off."""
    assert type(got) is type(want), f"{path}: {got!r} vs Keras {want!r}"
    if isinstance(want, dict):
        assert sorted(got) == sorted(want), f"{path}: keys {sorted(got)} vs Keras {sorted(want)}"
        for k in want:
            assert_same(got[k], want[k], f"{path}/{k}")
    elif isinstance(want, list):
        assert len(got) == len(want), f"{path}: {got} vs Keras {want}"
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same(g, w, f"{path}[{i}]")
    elif isinstance(want, float):
        np.testing.assert_allclose(got, want, rtol=2e-4, atol=2e-5, err_msg=path)
    else:
        assert got == want, f"{path}: {got!r} vs Keras {want!r}"


@pytest.mark.parametrize("run_eagerly", [False, True], ids=["traced", "eager"])
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_matches_keras(name, run_eagerly):
    tf.keras.utils.clear_session()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Keras's "ran out of data" and "shuffle ignored" warnings
        got = jsonable(SCENARIOS[name](tf, tf.keras, run_eagerly))
    assert_same(got, EXPECTED[f"{name}/{'eager' if run_eagerly else 'traced'}"], name)


@pytest.mark.parametrize("run_eagerly", [False, True], ids=["traced", "eager"])
def test_py_dataset_on_epoch_end_count(run_eagerly):
    """Keras 3.15 runs on_epoch_end once more than there are epochs (fit resets its iterator
    first): 4 calls for 3 epochs, 2 for one evaluate, 1 for one predict."""

    class Batches(tf.keras.utils.PyDataset):
        ended = 0

        def __len__(self):
            return 2

        def __getitem__(self, i):
            return np.full((3, 3), i, "float32"), np.ones((3, 1), "float32")

        def on_epoch_end(self):
            self.ended += 1

    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
    model.compile("sgd", "mse", run_eagerly=run_eagerly)
    counts = []
    for run in (
        lambda d: model.fit(d, epochs=3, verbose=0),
        lambda d: model.evaluate(d, verbose=0),
        lambda d: model.predict(d, verbose=0),
    ):
        data = Batches()
        run(data)
        counts.append(data.ended)
    assert counts == [4, 2, 1]
