"""Names of function metrics and losses (snake case, as Keras 3's ``get_object_name``), the
automatic name of ``MeanMetricWrapper``, and the batch indices callbacks get with
``steps_per_execution`` when the last execution is short. Expected values checked against
Keras 3.15 (TensorFlow backend)."""

import os
import warnings

import numpy as np
import pytest

from tfunc import keras
from tfunc.keras import layers

RNG = np.random.default_rng(0)
X = RNG.normal(size=(10, 3)).astype(np.float32)
Y = RNG.normal(size=(10, 1)).astype(np.float32)
Y2 = RNG.normal(size=(10, 2)).astype(np.float32)


def myMetric(y_true, y_pred):  # noqa: N802 (a camelCase name is the point)
    return keras.ops.mean(keras.ops.abs(y_true - y_pred), axis=-1)


def myLoss(y_true, y_pred):  # noqa: N802
    return keras.ops.mean(keras.ops.square(y_true - y_pred), axis=-1)


def linear(**compile_kwargs):
    model = keras.Sequential([keras.Input((3,)), layers.Dense(1)])
    model.compile("sgd", "mse", **compile_kwargs)
    return model


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_function_metrics_are_named_in_snake_case(run_eagerly):
    model = linear(metrics=[lambda a, b: keras.ops.mean(b), myMetric], run_eagerly=run_eagerly)
    history = model.fit(X, Y, epochs=1, verbose=0, validation_data=(X, Y)).history
    assert sorted(history) == ["lambda", "loss", "my_metric", "val_lambda", "val_loss", "val_my_metric"]
    logs = model.evaluate(X, Y, verbose=0, return_dict=True)
    assert sorted(logs) == ["lambda", "loss", "my_metric"]
    np.testing.assert_allclose(logs["my_metric"], np.mean(np.abs(model.predict(X, verbose=0) - Y)), rtol=1e-5)
    # the names monitor= uses: EarlyStopping finds the metric (no "not available" warning)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        stop = keras.callbacks.EarlyStopping(monitor="val_my_metric", patience=0, mode="min")
        model.fit(X, Y, epochs=2, verbose=0, validation_data=(X, Y), callbacks=[stop])
    assert not [w for w in caught if "val_my_metric" in str(w.message)]


def test_function_losses_name_the_per_output_losses():
    class TwoOutputs(keras.Model):  # no output names: the losses' names are used
        def __init__(self):
            super().__init__()
            self.a, self.b = layers.Dense(1), layers.Dense(2)

        def call(self, x):
            return [self.a(x), self.b(x)]

    model = TwoOutputs()
    model.compile("sgd", loss=[myLoss, lambda a, b: keras.ops.mean(keras.ops.abs(a - b), axis=-1)])
    assert sorted(model.evaluate(X, [Y, Y2], verbose=0, return_dict=True)) == ["lambda_loss", "loss", "my_loss_loss"]


def test_mean_metric_wrapper_default_name():
    keras.backend.clear_session()
    assert keras.metrics.MeanMetricWrapper(myMetric).name == "mean_metric_wrapper"
    assert keras.metrics.MeanMetricWrapper(lambda a, b: a).name == "mean_metric_wrapper_1"
    assert keras.metrics.MeanMetricWrapper(myMetric, name="mine").name == "mine"
    # a function given to compile is wrapped unnamed (taking a number), then named after the function
    model = linear(metrics=[myMetric])
    model.evaluate(X, Y, verbose=0)
    assert keras.metrics.MeanMetricWrapper(myMetric).name == "mean_metric_wrapper_3"


class Indices(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.seen = []

    def on_train_batch_begin(self, batch, logs=None):
        self.seen.append(("train_begin", batch))

    def on_train_batch_end(self, batch, logs=None):
        self.seen.append(("train", batch))

    def on_test_batch_end(self, batch, logs=None):
        self.seen.append(("test", batch))

    def on_predict_batch_end(self, batch, logs=None):
        self.seen.append(("predict", batch, logs["outputs"].shape))


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_a_short_last_execution_ends_at_begin_plus_steps_per_execution(run_eagerly, tmp_path):
    model = linear(steps_per_execution=3, run_eagerly=run_eagerly)
    seen = Indices()
    checkpoint = keras.callbacks.ModelCheckpoint(
        os.path.join(tmp_path, "e{epoch}-b{batch}.weights.h5"), save_weights_only=True, save_freq=2
    )
    # 4 batches of 3: executions of 3 and 1 batches
    model.fit(
        X,
        Y,
        batch_size=3,
        epochs=2,
        shuffle=False,
        verbose=0,
        validation_data=(X[:5], Y[:5]),
        callbacks=[seen, checkpoint],
    )
    epoch = [("train_begin", 0), ("train", 2), ("train_begin", 3), ("train", 5), ("test", 2)]
    assert seen.seen == epoch + epoch
    assert sorted(os.listdir(tmp_path)) == [
        "e1-b3.weights.h5",
        "e1-b6.weights.h5",
        "e2-b3.weights.h5",
        "e2-b6.weights.h5",
    ]
    seen.seen.clear()
    model.evaluate(X, Y, batch_size=2, verbose=0, callbacks=[seen])
    # predict gives each execution's outputs, its batches concatenated
    model.predict(X, batch_size=2, verbose=0, callbacks=[seen])
    model.predict(X, batch_size=4, verbose=0, callbacks=[seen])
    assert seen.seen == [
        ("test", 2),
        ("test", 5),
        ("predict", 2, (6, 1)),
        ("predict", 5, (4, 1)),
        ("predict", 2, (10, 1)),
    ]

    def batches():  # data of unknown size
        for i in range(0, 10, 3):
            yield X[i : i + 3], Y[i : i + 3]

    seen.seen.clear()
    model.fit(batches(), epochs=1, verbose=0, callbacks=[seen])
    assert [s for s in seen.seen if s[0] == "train"] == [("train", 2), ("train", 5)]
