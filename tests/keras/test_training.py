"""compile / fit / evaluate / predict and the *_on_batch methods, option by option, against
Keras 3's documented behaviour."""

import numpy as np
import pytest

import tfunc as tf
from tfunc import keras
from tfunc.keras import layers


def linear_model(units=1, inputs=3, name=None):
    return keras.Sequential([keras.Input(shape=(inputs,)), layers.Dense(units, name="dense_out")], name=name)


def regression_data(n=40, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 3)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)
    return x, y


class Recorder(keras.callbacks.Callback):
    """Records every hook call (name and arguments)."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def __getattribute__(self, name):
        if name.startswith("on_"):

            def hook(*args, **kwargs):
                self.calls.append((name,) + args)

            return hook
        return super().__getattribute__(name)


class DataRecorder(keras.Model):
    """Records the x of every training batch (run eagerly)."""

    def __init__(self):
        super().__init__()
        self.dense = layers.Dense(1)
        self.seen = []

    def call(self, x):
        return self.dense(x)

    def train_step(self, data):
        self.seen.append(data[0].numpy().ravel().tolist())
        return super().train_step(data)


# --- compile ---------------------------------------------------------------------------------


def test_fit_before_compile_and_unknown_names_are_clear_errors():
    model = linear_model()
    x, y = regression_data()
    with pytest.raises(ValueError, match="You must call `compile\\(\\)` before using the model"):
        model.fit(x, y)
    with pytest.raises(ValueError, match="You must call `compile\\(\\)`"):
        model.evaluate(x, y)
    with pytest.raises(ValueError, match="Could not interpret metric identifier: acuracy"):
        model.compile(optimizer="sgd", loss="mse", metrics=["acuracy"])
    with pytest.raises(ValueError, match="Unknown loss function: 'mean_sqared_error'"):
        model.compile(optimizer="sgd", loss="mean_sqared_error")
    with pytest.raises(ValueError, match="Unknown optimizer"):
        model.compile(optimizer="adamx", loss="mse")
    with pytest.raises(ValueError, match="Expected `metrics` argument to be a list"):
        model.compile(optimizer="sgd", loss="mse", metrics="mae")


def test_labels_of_the_wrong_shape_for_the_loss_are_clear_errors():
    x = np.ones((8, 4), np.float32)
    model = keras.Sequential([keras.Input(shape=(4,)), layers.Dense(3, activation="softmax")])
    model.compile(optimizer="sgd", loss="categorical_crossentropy")
    with pytest.raises(ValueError, match="integer class indices: use loss='sparse_categorical_crossentropy'"):
        model.fit(x, np.zeros(8, np.int32), verbose=0)
    model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
    with pytest.raises(ValueError, match="look one-hot encoded: use loss='categorical_crossentropy'"):
        model.fit(x, np.eye(3, dtype=np.float32)[np.zeros(8, int)], verbose=0)
    model.compile(optimizer="sgd", loss="mse")
    with pytest.raises(ValueError, match=r"shaped like the predictions.*\(None, 2\).*\(None, 3\)"):
        model.fit(x, np.zeros((8, 2), np.float32), verbose=0)
    with pytest.raises(ValueError, match="Data cardinality is ambiguous"):
        model.fit(x, np.zeros((7, 3), np.float32), verbose=0)


def test_accuracy_resolves_as_keras_resolves_it():
    def compiled(units, activation, loss, y):
        model = keras.Sequential([keras.Input(shape=(2,)), layers.Dense(units, activation=activation)])
        model.compile(optimizer="sgd", loss=loss, metrics=["accuracy", "acc"])
        model.evaluate(np.ones((4, 2), np.float32), y, verbose=0)
        return model.metrics[1].metrics  # the compiled metrics

    binary = compiled(1, "sigmoid", "binary_crossentropy", np.ones((4, 1), np.float32))
    sparse = compiled(3, "softmax", "sparse_categorical_crossentropy", np.zeros(4, np.int32))
    onehot = compiled(3, "softmax", "categorical_crossentropy", np.eye(3, dtype=np.float32)[[0, 1, 2, 0]])
    assert [type(m).__name__ for m in binary] == ["BinaryAccuracy", "BinaryAccuracy"]
    assert [type(m).__name__ for m in sparse] == ["SparseCategoricalAccuracy"] * 2
    assert [type(m).__name__ for m in onehot] == ["CategoricalAccuracy"] * 2
    assert [m.name for m in onehot] == ["accuracy", "acc"]


# --- fit -------------------------------------------------------------------------------------------


def test_fit_learns_returns_history_and_runs_steps_as_functions():
    x, y = regression_data(n=64)
    model = linear_model()
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse", metrics=["mae"])
    history = model.fit(x, y, batch_size=16, epochs=30, verbose=0)
    assert isinstance(history, keras.callbacks.History) and model.history is history
    assert history.epoch == list(range(30)) and list(history.history) == ["loss", "mae"]
    assert history.history["loss"][-1] < 1e-3 < history.history["loss"][0]
    kernel, bias = model.get_weights()
    np.testing.assert_allclose(kernel.ravel(), [1.0, -2.0, 0.5], atol=0.02)
    assert isinstance(model.train_function, tf.Function)
    loss, mae = model.evaluate(x, y, verbose=0)
    np.testing.assert_allclose(loss, np.mean((model.predict(x, verbose=0) - y) ** 2), rtol=1e-4)
    assert mae < 0.03


def test_a_partial_last_batch_traces_once_more_and_never_again():
    x, y = regression_data(n=50)  # batches of 16, 16, 16, 2
    model = linear_model()
    model.compile(optimizer="sgd", loss="mse")
    model.fit(x, y, batch_size=16, epochs=3, verbose=0, validation_data=(x[:10], y[:10]))
    assert model.train_function.experimental_get_tracing_count() == 2
    model.fit(x, y, batch_size=16, epochs=2, verbose=0)
    assert model.train_function.experimental_get_tracing_count() == 2
    model.evaluate(x, y, batch_size=16, verbose=0)
    model.evaluate(x, y, batch_size=16, verbose=0)
    assert model.test_function.experimental_get_tracing_count() <= 3  # the validation batch of 10, 16, then 2


def test_run_eagerly_gives_the_same_training_as_functions():
    x, y = regression_data()
    results = []
    for eager in (False, True):
        keras.utils.set_random_seed(3)
        model = linear_model()
        model.compile(optimizer=keras.optimizers.Adam(0.05), loss="mse", run_eagerly=eager)
        model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
        results.append(model.get_weights())
        assert (model.train_function.__class__ is tf.Function) is not eager
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_shuffle_options_and_batch_size():
    x = np.arange(10, dtype=np.float32).reshape(10, 1)
    y = np.zeros((10, 1), np.float32)

    def batches(shuffle):
        model = DataRecorder()
        model.compile(optimizer="sgd", loss="mse", run_eagerly=True)
        model.fit(x, y, batch_size=4, epochs=2, shuffle=shuffle, verbose=0)
        return model.seen

    plain = batches(False)
    assert plain == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]] * 2
    keras.utils.set_random_seed(0)
    shuffled = batches(True)
    assert [len(b) for b in shuffled] == [4, 4, 2] * 2
    assert sorted(sum(shuffled[:3], [])) == list(range(10)) and shuffled[:3] != plain[:3]
    assert shuffled[:3] != shuffled[3:]  # a new order every epoch
    in_batch = batches("batch")
    assert [sorted(b) for b in in_batch] == plain


def test_validation_split_takes_the_last_samples_before_shuffling():
    x, y = regression_data(n=20)
    model = DataRecorder()
    model.compile(optimizer="sgd", loss="mse", run_eagerly=True)
    history = model.fit(x, y, batch_size=4, epochs=1, validation_split=0.25, verbose=0)
    trained = np.array(sum(model.seen, [])).reshape(-1, 3)
    assert trained.shape == (15, 3)
    assert {tuple(r) for r in trained} == {tuple(r) for r in x[:15]}
    expected = model.evaluate(x[15:], y[15:], verbose=0)
    np.testing.assert_allclose(history.history["val_loss"], [expected], rtol=1e-5)
    with pytest.raises(ValueError, match="not sufficient to split"):
        model.fit(x[:1], y[:1], validation_split=0.5, verbose=0)
    with pytest.raises(ValueError, match="only supported for tensors or NumPy arrays"):
        model.fit(tf.data.Dataset.from_tensor_slices((x, y)).batch(4), validation_split=0.5, verbose=0)


def test_validation_data_freq_steps_and_batch_size():
    x, y = regression_data(n=32)
    model = linear_model()
    model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    recorder = Recorder()
    history = model.fit(
        x,
        y,
        epochs=4,
        batch_size=8,
        validation_data=(x[:12], y[:12]),
        validation_freq=2,
        validation_batch_size=5,
        validation_steps=2,
        callbacks=[recorder],
        verbose=0,
    )
    assert list(history.history) == ["loss", "mae", "val_loss", "val_mae"]
    assert len(history.history["loss"]) == 4 and len(history.history["val_loss"]) == 2  # epochs 2 and 4
    test_batches = [c[1] for c in recorder.calls if c[0] == "on_test_batch_end"]
    assert test_batches == [0, 1, 0, 1]  # validation_steps=2 batches of 5
    dataset_val = tf.data.Dataset.from_tensor_slices((x[:12], y[:12])).batch(6)
    history = model.fit(x, y, epochs=1, validation_data=dataset_val, verbose=0)
    np.testing.assert_allclose(history.history["val_loss"], [model.evaluate(dataset_val, verbose=0)[0]], rtol=1e-5)


def test_initial_epoch_and_steps_per_epoch():
    x, y = regression_data(n=40)
    model = linear_model()
    model.compile(optimizer="sgd", loss="mse")
    history = model.fit(x, y, epochs=5, initial_epoch=2, verbose=0)
    assert history.epoch == [2, 3, 4]
    recorder = Recorder()
    with pytest.warns(UserWarning, match="ran out of data"):
        model.fit(x, y, batch_size=10, epochs=3, steps_per_epoch=3, callbacks=[recorder], verbose=0)
    per_epoch = []
    for call in recorder.calls:
        if call[0] == "on_epoch_begin":
            per_epoch.append(0)
        elif call[0] == "on_train_batch_end":
            per_epoch[-1] += 1
    assert per_epoch == [3, 1, 3]  # 4 batches in the data: the pass continues across epochs, as in Keras
    repeated = tf.data.Dataset.from_tensor_slices((x, y)).batch(10).repeat()
    history = model.fit(repeated, epochs=2, steps_per_epoch=7, verbose=0)
    assert len(history.history["loss"]) == 2


def test_fit_on_datasets_and_generators():
    x, y = regression_data(n=40)
    model = linear_model()
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(40).batch(8)
    history = model.fit(ds, epochs=20, verbose=0)
    assert history.history["loss"][-1] < 0.01
    with pytest.raises(ValueError, match="`y` should not be passed"):
        model.fit(ds, y)

    def generator():
        for i in range(0, 40, 10):
            yield x[i : i + 10], y[i : i + 10]

    history = model.fit(generator(), epochs=1, verbose=0)
    assert history.history["loss"][0] < 0.01
    assert model.predict(ds.map(lambda a, b: a), verbose=0).shape == (40, 1)


def test_sample_weight_and_class_weight_weight_the_loss():
    x = np.ones((4, 2), np.float32)
    y = np.array([[0.0], [1.0], [2.0], [3.0]], np.float32)
    model = keras.Sequential([keras.Input(shape=(2,)), layers.Dense(1, kernel_initializer="zeros")])
    model.compile(optimizer="sgd", loss="mse", weighted_metrics=["mse"])
    sw = np.array([1.0, 0.0, 0.0, 1.0], np.float32)
    loss, weighted_mse = model.evaluate(x, y, sample_weight=sw, verbose=0)
    np.testing.assert_allclose(loss, (0 + 9) / 4)  # sum over the batch of weighted losses / batch size
    np.testing.assert_allclose(weighted_mse, (0 + 9) / 2)  # a weighted mean
    labels = np.array([0, 1, 1, 1])
    clf = keras.Sequential([keras.Input(shape=(2,)), layers.Dense(2, activation="softmax")])
    clf.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
    recorded = {}

    class Probe(keras.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            recorded["loss"] = logs["loss"]

    keras.utils.set_random_seed(0)
    probs = clf.predict(x, verbose=0)
    clf.fit(x, labels, class_weight={0: 3.0, 1: 0.0}, batch_size=4, epochs=1, callbacks=[Probe()], verbose=0)
    np.testing.assert_allclose(recorded["loss"], 3.0 * -np.log(probs[0, 0]) / 4, rtol=1e-4)


def test_steps_per_execution_runs_several_batches_per_call():
    x, y = regression_data(n=40)
    model = linear_model()
    model.compile(optimizer="sgd", loss="mse", steps_per_execution=2)
    recorder = Recorder()
    model.fit(x, y, batch_size=8, epochs=1, callbacks=[recorder], verbose=0)
    begins = [c[1] for c in recorder.calls if c[0] == "on_train_batch_begin"]
    ends = [c[1] for c in recorder.calls if c[0] == "on_train_batch_end"]
    assert begins == [0, 2, 4] and ends == [1, 3, 5]  # 5 batches: 2 + 2 + 1; Keras ends a short run at begin + 2 - 1
    assert int(model.optimizer.iterations.numpy()) == 5


# --- evaluate / predict / *_on_batch -----------------------------------------------------------------


def test_evaluate_return_forms_and_predict_structures():
    x, y = regression_data(n=10)
    model = linear_model()
    model.compile(optimizer="sgd", loss="mse")
    assert isinstance(model.evaluate(x, y, verbose=0), float)
    model.compile(optimizer="sgd", loss="mse", metrics=["mae", keras.metrics.MeanSquaredError(name="m2")])
    loss, mae, m2 = model.evaluate(x, y, batch_size=3, verbose=0)
    pred = model.predict(x, batch_size=3, verbose=0)
    assert isinstance(pred, np.ndarray) and pred.shape == (10, 1)
    np.testing.assert_allclose([loss, mae, m2], [np.mean((pred - y) ** 2), np.mean(np.abs(pred - y)), loss], rtol=1e-5)
    assert model.evaluate(x, y, verbose=0, return_dict=True).keys() == {"loss", "mae", "m2"}
    assert model.metrics_names == ["loss", "compile_metrics"]
    with pytest.raises(ValueError, match="Arguments not recognized"):
        model.evaluate(x, y, epochs=2)


def test_on_batch_methods():
    x, y = regression_data(n=8)
    model = linear_model()
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse", metrics=["mae"])
    before = model.test_on_batch(x, y)
    np.testing.assert_allclose(before[0], np.mean((model.predict_on_batch(x) - y) ** 2), rtol=1e-5)
    model.reset_metrics()
    losses = [model.train_on_batch(x, y, return_dict=True)["loss"] for _ in range(3)]
    assert losses[0] == pytest.approx(before[0], rel=1e-5)
    assert losses[2] < losses[1] < losses[0]  # each batch's own loss (metrics are reset on every call)
    assert isinstance(model.predict_on_batch(x), np.ndarray)
    assert int(model.optimizer.iterations.numpy()) == 3


def test_multi_output_losses_weights_and_metrics_by_name():
    a = keras.Input(shape=(2,), name="a")
    h = layers.Dense(4, activation="relu")(a)
    reg = layers.Dense(1, name="reg")(h)
    cls = layers.Dense(3, activation="softmax", name="cls")(h)
    model = keras.Model(a, [reg, cls])
    model.compile(
        optimizer="adam",
        loss={"reg": "mse", "cls": "sparse_categorical_crossentropy"},
        loss_weights={"reg": 2.0, "cls": 0.5},
        metrics={"cls": ["accuracy"]},
    )
    x = np.random.default_rng(0).standard_normal((16, 2)).astype(np.float32)
    y_reg, y_cls = x[:, :1] * 2, (x[:, 0] > 0).astype(np.int32)
    logs = model.evaluate(x, {"reg": y_reg, "cls": y_cls}, verbose=0, return_dict=True)
    assert set(logs) == {"loss", "reg_loss", "cls_loss", "cls_accuracy"}
    np.testing.assert_allclose(logs["loss"], 2.0 * logs["reg_loss"] + 0.5 * logs["cls_loss"], rtol=1e-5)
    p_reg, p_cls = model.predict(x, verbose=0)
    np.testing.assert_allclose(logs["reg_loss"], np.mean((p_reg - y_reg) ** 2), rtol=1e-5)
    np.testing.assert_allclose(logs["cls_accuracy"], np.mean(p_cls.argmax(-1) == y_cls), rtol=1e-6)
    history = model.fit(x, [y_reg, y_cls], epochs=1, verbose=0)
    assert set(history.history) == {"loss", "reg_loss", "cls_loss", "cls_accuracy"}


def test_custom_train_step_with_its_own_metrics():
    class Custom(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = layers.Dense(1)
            self.loss_tracker = keras.metrics.Mean(name="loss")
            self.mae_metric = keras.metrics.MeanAbsoluteError(name="mae")

        def call(self, x):
            return self.dense(x)

        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = tf.reduce_mean(tf.square(y - y_pred))
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
            self.loss_tracker.update_state(loss)
            self.mae_metric.update_state(y, y_pred)
            return {"loss": self.loss_tracker.result(), "mae": self.mae_metric.result()}

        @property
        def metrics(self):
            return [self.loss_tracker, self.mae_metric]

    x, y = regression_data(n=32)
    model = Custom()
    model.compile(optimizer=keras.optimizers.SGD(0.1))
    history = model.fit(x, y, epochs=15, batch_size=8, verbose=0)
    assert list(history.history) == ["loss", "mae"] and history.history["loss"][-1] < 0.01


# --- progress output -----------------------------------------------------------------------------------


def test_verbose_modes_print_as_keras(capsys):
    x, y = regression_data(n=20)
    model = linear_model()
    model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    model.fit(x, y, batch_size=10, epochs=2, verbose=0)
    model.evaluate(x, y, verbose=0)
    model.predict(x, verbose=0)
    assert capsys.readouterr().out == ""
    model.fit(x, y, batch_size=10, epochs=2, verbose=2)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Epoch 1/2" and lines[2] == "Epoch 2/2" and len(lines) == 4
    assert lines[1].startswith("2/2 - ") and "/step - loss: " in lines[1] and " - mae: " in lines[1]
    model.fit(x, y, batch_size=10, epochs=1, verbose=1)  # not a terminal: one plain line at the end
    out = capsys.readouterr().out
    assert "\x1b[" not in out and "\r" not in out and "\b" not in out
    (line,) = out.splitlines()
    assert line.startswith("2/2 ━━━━━━━━━━━━━━━━━━━━ ") and "/step - loss: " in line
    model.evaluate(x, y, verbose=1)
    assert capsys.readouterr().out.startswith("1/1 ━━━━━━━━━━━━━━━━━━━━ ")
    model.predict(x, batch_size=5, verbose=1)
    assert capsys.readouterr().out.startswith("4/4 ━━━━━━━━━━━━━━━━━━━━ ")


def test_progress_bar_on_a_terminal_redraws_in_place_with_eta_and_step_time(monkeypatch, capsys):
    from tfunc.keras import utils

    clock = iter([100.0, 110.0, 112.0, 114.0, 116.0])
    monkeypatch.setattr(utils.time, "time", lambda: next(clock))
    monkeypatch.setattr(utils, "_is_dynamic_display", lambda: True)
    bar = utils.Progbar(target=4, interval=0.0)  # starts at t=100
    for step in range(1, 5):  # steps end at t=110, 112, 114, 116
        bar.update(step, [("loss", 1.0 / step)])
    frames = capsys.readouterr().out.split("\r")[1:]
    assert len(frames) == 4 and frames[-1].endswith("\n") and not frames[0].endswith("\n")
    # step 1: 10 s/step so far, 3 steps left: ETA 30s; later steps leave the first (slow) one out
    assert frames[0].startswith("\x1b[1m1/4\x1b[0m \x1b[32m" + "━" * 5 + "\x1b[0m\x1b[37m" + "━" * 15)
    assert " \x1b[1m30s\x1b[0m 10s/step - loss: 1.0000" in frames[0]
    assert " \x1b[1m4s\x1b[0m 2s/step - loss: 0.7500" in frames[1]  # averaged over the steps
    assert " - loss: 0.6111" in frames[2]  # (1 + 1/2 + 1/3) / 3
    assert " \x1b[1m16s\x1b[0m 2s/step - loss: 0.2500\n" in frames[3]  # finished: elapsed time, final value
