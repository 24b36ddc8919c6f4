"""Keras 3.15's fit-time helpers outside the model: data adapters (PyDataset, the
``pack_x_y_sample_weight`` family) and callbacks' refusals. Expected values come from TF 2.21 /
Keras 3.15."""

import threading

import numpy as np
import pytest

import tfunc as tf
from tfunc.keras import callbacks

keras = tf.keras


@pytest.mark.parametrize("path", ["best.h5", "best.hdf5"])
def test_model_checkpoint_names_the_legacy_h5_refusal(path):
    # TF 2.21 writes a legacy Keras 2 HDF5 model here; tfunc refuses, and says why and what to use.
    with pytest.raises(ValueError, match=r"legacy `\.h5` \(Keras 2 HDF5\).*`\.keras`.*save_weights_only=True"):
        callbacks.ModelCheckpoint(path, save_best_only=True, monitor="loss")


X = np.random.RandomState(0).rand(40, 3).astype("float32")
Y = np.random.RandomState(1).rand(40, 1).astype("float32")


class Batches(keras.utils.PyDataset):
    """Five batches of eight rows (endless, wrapping around, when ``endless``); notes the thread
    that loads each."""

    def __init__(self, endless=False, **kwargs):
        super().__init__(**kwargs)
        self.endless = endless
        self.threads = set()

    @property
    def num_batches(self):
        return None if self.endless else 5

    def __getitem__(self, index):
        self.threads.add(threading.current_thread().name)
        index %= 5
        return X[index * 8 : (index + 1) * 8], Y[index * 8 : (index + 1) * 8]


def _model():
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1, kernel_initializer="ones")])
    model.compile(keras.optimizers.SGD(0.1), "mse")
    return model


@pytest.mark.parametrize(
    "kwargs",
    [dict(workers=2), dict(workers=4, max_queue_size=2), dict(workers=2, use_multiprocessing=True)],
)
def test_py_dataset_with_workers_trains_as_with_one(kwargs):
    # TF 2.21 gives losses [0.7373, 0.24321] and evaluates 0.20315, with or without workers
    # (tfunc refused workers > 1 and use_multiprocessing=True).
    dataset, model = Batches(**kwargs), _model()
    losses = model.fit(dataset, epochs=2, shuffle=False, verbose=0).history["loss"]
    np.testing.assert_allclose(losses, [0.7373, 0.24321], rtol=1e-4)
    np.testing.assert_allclose(model.evaluate(dataset, verbose=0), 0.20315, rtol=1e-4)
    assert any(name.startswith("py_dataset_worker") for name in dataset.threads)  # the batches, not the peek


def test_endless_py_dataset_with_workers_reads_on_across_epochs():
    # TF 2.21 gives [1.07951, 0.29668, 0.20315] with steps_per_epoch=3 and workers=2.
    history = _model().fit(Batches(endless=True, workers=2), epochs=3, steps_per_epoch=3, shuffle=False, verbose=0)
    losses = history.history["loss"]
    np.testing.assert_allclose(losses, [1.07951, 0.29668, 0.20315], rtol=1e-4)


def test_pack_x_y_sample_weight_returns_a_lone_x_itself():
    x = np.ones(3)
    # TF 2.21: x itself for an array or a dict; (x,) for a tuple or list x, so it is not (x, y).
    assert keras.utils.pack_x_y_sample_weight(x) is x
    assert keras.utils.pack_x_y_sample_weight(x, None, None) is x
    features = {"a": x}
    assert keras.utils.pack_x_y_sample_weight(features) is features
    assert keras.utils.pack_x_y_sample_weight([x, x]) == ([x, x],)
    assert len(keras.utils.pack_x_y_sample_weight((x, x))) == 1
    assert len(keras.utils.pack_x_y_sample_weight(x, x, x)) == 3


class MeanAsLoss(keras.layers.Layer):
    """Adds the mean of its input as a loss: a model that trains with no targets."""

    def call(self, x):
        self.add_loss(keras.ops.mean(x))
        return x


def test_on_batch_methods_take_a_lone_x():
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1, kernel_initializer="ones"), MeanAsLoss()])
    model.compile(keras.optimizers.SGD(0.1))
    # TF 2.21 gives 1.8313602 (the mean of the rows' sums) from x alone.
    np.testing.assert_allclose(float(model.test_on_batch(X[:8])), 1.8313602, rtol=1e-6)
    assert model.predict_on_batch(X[:8]).shape == (8, 1)
