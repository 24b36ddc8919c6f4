"""keras.callbacks: the hooks fit/evaluate/predict call, and each callback against Keras 3's
documented behaviour."""

import csv

import numpy as np
import pytest

import tfunc as tf
from tfunc import keras
from tfunc.keras import callbacks, layers


def small_model(lr=0.05):
    model = keras.Sequential([keras.Input(shape=(3,)), layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.SGD(lr), loss="mse", metrics=["mae"])
    return model


def data(n=16):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, 3)).astype(np.float32)
    return x, x.sum(axis=1, keepdims=True)


def scripted(name, values):
    """A callback (to put first) that writes ``values[epoch]`` into the epoch logs under ``name``."""
    return callbacks.LambdaCallback(on_epoch_end=lambda epoch, logs: logs.__setitem__(name, values[epoch]))


class Hooks(callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.calls = []

    def __getattribute__(self, name):
        if name.startswith("on_") and name not in ("on_batch_begin", "on_batch_end"):
            original = super().__getattribute__(name)

            def hook(*args, **kwargs):
                self.calls.append(name)
                return original(*args, **kwargs)

            return hook
        return super().__getattribute__(name)

    def on_batch_end(self, batch, logs=None):
        self.calls.append("on_batch_end")


def test_fit_evaluate_and_predict_call_every_hook_in_order():
    x, y = data(8)
    model = small_model()
    hooks = Hooks()
    model.fit(x, y, batch_size=4, epochs=2, validation_data=(x[:4], y[:4]), callbacks=[hooks], verbose=0)
    epoch = (
        ["on_epoch_begin"]
        + ["on_train_batch_begin", "on_train_batch_end", "on_batch_end"] * 2
        + ["on_test_begin", "on_test_batch_begin", "on_test_batch_end", "on_test_end", "on_epoch_end"]
    )
    assert hooks.calls == ["on_train_begin"] + epoch * 2 + ["on_train_end"]
    assert hooks.params == {"verbose": 0, "epochs": 2, "steps": 2} and hooks.model is model
    hooks.calls = []
    model.evaluate(x, y, batch_size=8, callbacks=[hooks], verbose=0)
    assert hooks.calls == ["on_test_begin", "on_test_batch_begin", "on_test_batch_end", "on_test_end"]
    hooks.calls = []
    model.predict(x, batch_size=8, callbacks=[hooks], verbose=0)
    assert hooks.calls == ["on_predict_begin", "on_predict_batch_begin", "on_predict_batch_end", "on_predict_end"]


def test_predict_batch_end_gets_the_batch_outputs_as_numpy_arrays_as_in_keras():
    x, _ = data(8)
    model = small_model()
    seen = []
    cb = callbacks.LambdaCallback(on_predict_batch_end=lambda batch, logs: seen.append(logs["outputs"]))
    out = model.predict(x, batch_size=4, callbacks=[cb], verbose=0)
    assert [type(o) for o in seen] == [np.ndarray, np.ndarray]
    np.testing.assert_array_equal(np.concatenate(seen), out)


def test_logs_passed_to_hooks_are_floats_in_sorted_order():
    x, y = data(8)
    seen = {}
    cb = callbacks.LambdaCallback(
        on_train_batch_end=lambda batch, logs: seen.setdefault("batch", dict(logs)),
        on_epoch_end=lambda epoch, logs: seen.setdefault("epoch", dict(logs)),
        on_test_end=lambda logs: seen.setdefault("test", dict(logs)),  # any hook, by keyword
    )
    small_model().fit(x, y, epochs=1, validation_split=0.5, callbacks=[cb], verbose=0)
    assert list(seen["batch"]) == ["loss", "mae"] and all(isinstance(v, float) for v in seen["batch"].values())
    assert list(seen["epoch"]) == ["loss", "mae", "val_loss", "val_mae"]
    assert list(seen["test"]) == ["loss", "mae"]
    with pytest.raises(TypeError, match="unknown hook"):
        callbacks.LambdaCallback(on_epoch_middle=print)


def test_history_records_each_epoch():
    x, y = data()
    history = small_model().fit(x, y, epochs=3, verbose=0)
    assert history.epoch == [0, 1, 2] and len(history.history["loss"]) == 3 and len(history.history["mae"]) == 3
    assert history.history["loss"][2] < history.history["loss"][0]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_early_stopping_documented_example():
    # From Keras's EarlyStopping docstring: the loss does not improve for 3 epochs, so only 4 run.
    callback = callbacks.EarlyStopping(monitor="loss", patience=3)
    model = keras.models.Sequential([layers.Dense(10)])
    model.compile(keras.optimizers.SGD(), loss="mse")
    history = model.fit(
        np.arange(100).reshape(5, 20), np.zeros(5), epochs=10, batch_size=1, callbacks=[callback], verbose=0
    )
    assert len(history.history["loss"]) == 4


def test_early_stopping_patience_min_delta_baseline_and_restore(capsys):
    x, y = data()
    model = small_model()
    weights = []
    keep = callbacks.LambdaCallback(on_epoch_end=lambda epoch, logs: weights.append(model.get_weights()))
    stop = callbacks.EarlyStopping(monitor="score", mode="min", patience=2, restore_best_weights=True, verbose=1)
    history = model.fit(x, y, epochs=10, callbacks=[scripted("score", [5, 3, 4, 3.5, 1, 0]), keep, stop], verbose=0)
    assert history.epoch == [0, 1, 2, 3] and stop.stopped_epoch == 3 and stop.best_epoch == 1
    for a, b in zip(model.get_weights(), weights[1]):
        np.testing.assert_array_equal(a, b)
    out = capsys.readouterr().out
    assert "Epoch 4: early stopping" in out and "Restoring model weights from the end of the best epoch: 2." in out
    delta = callbacks.EarlyStopping(monitor="score", mode="max", patience=1, min_delta=0.5)
    history = small_model().fit(x, y, epochs=10, callbacks=[scripted("score", [1, 1.4, 1.8, 3, 3.1]), delta], verbose=0)
    assert history.epoch == [0, 1]  # +0.4 is not an improvement of more than 0.5
    scores = [1, 2, 3, 2.5, 2.6, 2.7]
    plain = callbacks.EarlyStopping(monitor="score", mode="max", patience=2)
    history = small_model().fit(x, y, epochs=6, callbacks=[scripted("score", scores), plain], verbose=0)
    assert history.epoch == [0, 1, 2, 3, 4]
    base = callbacks.EarlyStopping(monitor="score", mode="max", patience=2, baseline=10)
    history = small_model().fit(x, y, epochs=6, callbacks=[scripted("score", scores), base], verbose=0)
    assert history.epoch == [0, 1, 2, 3]  # improvements short of the baseline do not restart the wait
    warm = callbacks.EarlyStopping(monitor="score", mode="min", patience=0, start_from_epoch=3)
    history = small_model().fit(x, y, epochs=6, callbacks=[scripted("score", [1, 2, 3, 4, 5, 6]), warm], verbose=0)
    assert history.epoch == [0, 1, 2, 3, 4]


def test_early_stopping_infers_the_direction_of_compiled_metrics():
    x, y = data()
    model = keras.Sequential([keras.Input(shape=(3,)), layers.Dense(2, activation="softmax")])
    model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    labels = (x[:, 0] > 0).astype(np.int32)
    up = callbacks.EarlyStopping(monitor="val_accuracy")
    down = callbacks.EarlyStopping(monitor="val_loss")
    model.fit(x, labels, epochs=1, validation_split=0.25, callbacks=[up, down], verbose=0)
    assert up.monitor_op(2, 1) and down.monitor_op(1, 2)
    unknown = callbacks.EarlyStopping(monitor="score")
    with pytest.raises(ValueError, match="isn't able to automatically determine"):
        model.fit(x, labels, epochs=1, callbacks=[scripted("score", [1.0]), unknown], verbose=0)
    with pytest.warns(UserWarning, match="conditioned on metric `nope` which is not available"):
        model.fit(x, labels, epochs=1, callbacks=[callbacks.EarlyStopping(monitor="nope", mode="min")], verbose=0)


def test_model_checkpoint_weights_every_epoch_and_best_only(tmp_path, capsys):
    x, y = data()
    model = small_model()
    template = str(tmp_path / "ckpt-{epoch:02d}-{loss:.2f}.weights.h5")
    history = model.fit(
        x, y, epochs=2, callbacks=[callbacks.ModelCheckpoint(template, save_weights_only=True)], verbose=0
    )
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [f"ckpt-{e + 1:02d}-{loss:.2f}.weights.h5" for e, loss in enumerate(history.history["loss"])]
    restored = small_model()
    restored.load_weights(tmp_path / names[-1])
    for a, b in zip(restored.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(a, b)

    best = tmp_path / "best.weights.h5"
    weights = []
    keep = callbacks.LambdaCallback(on_epoch_end=lambda epoch, logs: weights.append(model.get_weights()))
    ckpt = callbacks.ModelCheckpoint(
        best, monitor="score", mode="min", save_best_only=True, save_weights_only=True, verbose=1
    )
    model.fit(x, y, epochs=4, callbacks=[scripted("score", [3.0, 1.0, 2.0, 1.5]), keep, ckpt], verbose=0)
    out = capsys.readouterr().out
    assert "Epoch 2: score improved from 3.00000 to 1.00000, saving model to" in out
    assert "Epoch 3: score did not improve from 1.00000" in out
    restored.load_weights(best)
    for a, b in zip(restored.get_weights(), weights[1]):
        np.testing.assert_array_equal(a, b)


def test_model_checkpoint_batch_frequency_threshold_and_errors(tmp_path):
    x, y = data(16)
    model = small_model()
    ckpt = callbacks.ModelCheckpoint(
        str(tmp_path / "b{epoch}-{batch}.weights.h5"), save_weights_only=True, save_freq=3, monitor="loss"
    )
    model.fit(x, y, batch_size=4, epochs=2, callbacks=[ckpt], verbose=0)  # 8 batches in all
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b1-3.weights.h5", "b2-2.weights.h5"]
    never = callbacks.ModelCheckpoint(
        str(tmp_path / "never.weights.h5"),
        monitor="loss",
        save_best_only=True,
        save_weights_only=True,
        initial_value_threshold=0.0,
    )
    model.fit(x, y, epochs=1, callbacks=[never], verbose=0)
    assert not (tmp_path / "never.weights.h5").exists()
    with pytest.raises(ValueError, match="must end in `.weights.h5`"):
        callbacks.ModelCheckpoint(str(tmp_path / "w.h5"), save_weights_only=True)
    with pytest.raises(ValueError, match="must end in `.keras`"):
        callbacks.ModelCheckpoint(str(tmp_path / "model.bin"))
    with pytest.raises(ValueError, match="legacy `.h5`"):
        callbacks.ModelCheckpoint(str(tmp_path / "model.h5"))


def test_model_checkpoint_saves_whole_models(tmp_path):
    x, y = data()
    model = small_model(lr=0.1)
    path = tmp_path / "m-{epoch}.keras"
    model.fit(x, y, epochs=2, callbacks=[callbacks.ModelCheckpoint(str(path))], verbose=0)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m-1.keras", "m-2.keras"]
    again = keras.models.load_model(str(tmp_path / "m-2.keras"))
    np.testing.assert_array_equal(again.predict(x, verbose=0), model.predict(x, verbose=0))
    assert int(again.optimizer.iterations.numpy()) == int(model.optimizer.iterations.numpy())


def test_learning_rate_scheduler(capsys):
    x, y = data()
    model = small_model(lr=0.1)
    sched = callbacks.LearningRateScheduler(lambda epoch, lr: lr if epoch < 1 else lr * 0.5, verbose=1)
    history = model.fit(x, y, epochs=3, callbacks=[sched], verbose=0)
    np.testing.assert_allclose(history.history["learning_rate"], [0.1, 0.05, 0.025], rtol=1e-6)
    assert "Epoch 2: LearningRateScheduler setting learning rate to 0.05" in capsys.readouterr().out
    old_api = callbacks.LearningRateScheduler(lambda epoch: 0.01 * (epoch + 1))
    history = model.fit(x, y, epochs=2, callbacks=[old_api], verbose=0)
    np.testing.assert_allclose(history.history["learning_rate"], [0.01, 0.02], rtol=1e-6)
    with pytest.raises(ValueError, match="should be a float"):
        model.fit(x, y, epochs=1, callbacks=[callbacks.LearningRateScheduler(lambda e: "fast")], verbose=0)


def test_reduce_lr_on_plateau(capsys):
    x, y = data()
    model = small_model(lr=1.0)
    reduce = callbacks.ReduceLROnPlateau(
        monitor="score", mode="min", factor=0.5, patience=2, min_lr=0.2, cooldown=1, verbose=1
    )
    scores = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    history = model.fit(x, y, epochs=8, callbacks=[scripted("score", scores), reduce], verbose=0)
    # (the rate is logged before the reduction of that epoch) epochs 2 and 3 do not improve: halved at the end of
    # epoch 3; epoch 4 is the cooldown, counting again from there: halved after epochs 5 and 7 (to min_lr)
    np.testing.assert_allclose(history.history["learning_rate"], [1.0, 1.0, 1.0, 0.5, 0.5, 0.25, 0.25, 0.2], rtol=1e-6)
    np.testing.assert_allclose(float(model.optimizer.learning_rate), 0.2, rtol=1e-6)
    assert "Epoch 3: ReduceLROnPlateau reducing learning rate to 0.5." in capsys.readouterr().out
    with pytest.raises(ValueError, match="factor >= 1.0"):
        callbacks.ReduceLROnPlateau(factor=1.5)


def test_reduce_lr_on_plateau_asks_the_metric_its_direction():
    # Keras 3: mode="auto" maximizes AUC, precision, recall and accuracies (it used to minimize
    # anything whose name lacks "acc", cutting the rate while AUC improved)
    x, y = data()
    labels = (x[:, 0] > 0).astype(np.float32)
    model = keras.Sequential([keras.Input(shape=(3,)), layers.Dense(1, activation="sigmoid")])
    auc = keras.metrics.AUC()  # named 'auc', or 'auc_<n>' after others (names are unique, as Keras's)
    model.compile(optimizer=keras.optimizers.SGD(0.5), loss="binary_crossentropy", metrics=[auc])
    reduce = callbacks.ReduceLROnPlateau(monitor=auc.name, factor=0.5, patience=1)
    aucs = [0.7031, 0.7344, 0.6875, 0.75, 0.75]  # the curve Keras 3 answers with [0.5, 0.5, 0.5, 0.25, 0.25]
    history = model.fit(x, labels, epochs=5, callbacks=[scripted(auc.name, aucs), reduce], verbose=0)
    np.testing.assert_allclose(history.history["learning_rate"], [0.5, 0.5, 0.5, 0.25, 0.25], rtol=1e-6)
    with pytest.raises(ValueError, match="isn't able to automatically determine"):
        model.fit(x, labels, epochs=1, callbacks=[callbacks.ReduceLROnPlateau(monitor="score")], verbose=0)


def test_accuracy_metrics_named_by_string_are_maximized():
    x, y = data()
    labels = (x[:, 0] > 0).astype(np.float32)
    for name in ("binary_accuracy", "accuracy"):
        model = keras.Sequential([keras.Input(shape=(3,)), layers.Dense(1, activation="sigmoid")])
        model.compile(optimizer="sgd", loss="binary_crossentropy", metrics=[name])
        stop = callbacks.EarlyStopping(monitor=f"val_{name}")
        model.fit(x, labels, epochs=1, validation_split=0.25, callbacks=[stop], verbose=0)
        assert stop.monitor_op(2, 1)


def test_a_reused_early_stopping_starts_afresh():
    x, y = data()
    model = small_model()
    stop = callbacks.EarlyStopping(monitor="score", mode="min", patience=1)
    model.fit(x, y, epochs=5, callbacks=[scripted("score", [1.0, 0.5, 0.1, 0.05, 0.01]), stop], verbose=0)
    assert stop.best == 0.01
    history = model.fit(x, y, epochs=4, callbacks=[scripted("score", [3.0, 2.0, 1.0, 0.5]), stop], verbose=0)
    assert history.epoch == [0, 1, 2, 3]  # compared with its own epochs, not the last fit's best (0.01)


def test_csv_logger_writes_and_appends(tmp_path):
    x, y = data()
    path = tmp_path / "log.csv"
    history = small_model().fit(x, y, epochs=2, callbacks=[callbacks.CSVLogger(path)], verbose=0)
    rows = list(csv.reader(open(path)))
    # Keras 3.15 names val_ columns even without validation (filled with NA)
    assert rows[0] == ["epoch", "loss", "mae", "val_loss", "val_mae"] and [r[0] for r in rows[1:]] == ["0", "1"]
    np.testing.assert_allclose([float(r[1]) for r in rows[1:]], history.history["loss"], rtol=1e-6)
    small_model().fit(x, y, epochs=1, callbacks=[callbacks.CSVLogger(path, append=True, separator=";")], verbose=0)
    lines = open(path).read().splitlines()
    assert len(lines) == 4 and lines[3].startswith("0;")  # no second header
    small_model().fit(x, y, epochs=1, callbacks=[callbacks.CSVLogger(path)], verbose=0)
    assert len(open(path).read().splitlines()) == 2  # overwritten


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_terminate_on_nan(capsys):
    x = np.full((16, 3), 1e30, np.float32)
    y = np.zeros((16, 1), np.float32)
    model = small_model(lr=1e10)
    model.fit(x, y, batch_size=4, epochs=3, callbacks=[callbacks.TerminateOnNaN()], verbose=0)
    assert "Invalid loss, terminating training" in capsys.readouterr().out
    assert int(model.optimizer.iterations.numpy()) == 1  # stopped after the first bad batch
    with pytest.raises(RuntimeError, match="NaN or Inf loss encountered at batch 0"):
        small_model(lr=1e10).fit(x, y, batch_size=4, callbacks=[callbacks.TerminateOnNaN(raise_error=True)], verbose=0)


def test_callbacks_see_the_model_stop_flag_in_a_function():
    x, y = data()
    model = small_model()
    stopper = callbacks.LambdaCallback(on_train_batch_end=lambda batch, logs: setattr(model, "stop_training", True))
    history = model.fit(x, y, batch_size=4, epochs=5, callbacks=[stopper], verbose=0)
    assert history.epoch == [0] and int(model.optimizer.iterations.numpy()) == 1
    assert isinstance(model.train_function, tf.Function)
