"""Training-loop scenarios run the same way with Keras 3.15 (TF backend) and with tfunc: each
takes ``(tf, keras, run_eagerly)`` and returns a JSON-able dict. The Keras results are recorded
in training_loop_keras_values.json by tests/keras/fixtures/make_training_loop_values.py (run it with
TensorFlow 2.21 and Keras 3.15 installed, from the repository root); the tests are in
test_training_loop_fidelity.py (this module has none)."""

import random

import numpy as np


def jsonable(v):
    """Results with their Python/NumPy types (Keras logs hold floats and NumPy arrays)."""
    if isinstance(v, dict):
        return {k: jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    if isinstance(v, (float, int, str)) or v is None:
        return v
    return {"type": type(v).__module__.split(".")[0] + "." + type(v).__name__, "value": np.asarray(v).tolist()}


def data():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(12, 3)).astype("float32")
    y = (x @ np.array([[1.0], [-2.0], [0.5]], "float32") > 0).astype("float32")
    return x, y, np.linspace(0.5, 2.0, 12).astype("float32")


def dense_model(keras, shape=(3,)):
    m = keras.Sequential(
        [keras.Input(shape), keras.layers.Dense(2, activation="tanh"), keras.layers.Dense(1, activation="sigmoid")]
    )
    m.set_weights(
        [
            np.linspace(-1, 1, 6).reshape(3, 2).astype("float32"),
            np.array([0.1, -0.1], "float32"),
            np.array([[0.7], [-0.4]], "float32"),
            np.array([0.05], "float32"),
        ]
    )
    return m


def compiled(keras, run_eagerly, **kw):
    m = dense_model(keras)
    m.compile(keras.optimizers.SGD(0.1), "binary_crossentropy", metrics=["accuracy"], run_eagerly=run_eagerly, **kw)
    return m


def scenario_py_dataset(tf, keras, run_eagerly):
    """Hook calls and batch orders of a PyDataset in fit (shuffled), evaluate and predict."""
    x, y, _ = data()
    events = []

    class Batches(keras.utils.PyDataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            events.append(i)
            return x[i * 3 : (i + 1) * 3], y[i * 3 : (i + 1) * 3]

        def on_epoch_begin(self):
            events.append("begin")

        def on_epoch_end(self):
            events.append("end")

    class Steps(keras.callbacks.Callback):
        def on_train_begin(self, logs=None):
            events.append(f"steps={self.params['steps']}")

    def epochs_log():
        # what runs from the first epoch hook on (Keras reads batches ahead for their specs)
        first = next(i for i, e in enumerate(events) if isinstance(e, str))
        out = events[first:]
        events.clear()
        return out

    out = {}
    m = compiled(keras, run_eagerly)
    random.seed(7)  # Keras shuffles a PyDataset's batch order with Python's random.shuffle
    out["fit_shuffled"] = m.fit(Batches(), epochs=3, callbacks=[Steps()], verbose=0).history
    out["fit_shuffled_events"] = epochs_log()
    out["fit_events"] = (m.fit(Batches(), epochs=2, shuffle=False, verbose=0), epochs_log())[1]
    out["evaluate"] = m.evaluate(Batches(), verbose=0, return_dict=True)
    out["evaluate_events"] = epochs_log()
    out["predict"] = m.predict(Batches(), verbose=0)
    out["predict_events"] = epochs_log()
    m = compiled(keras, run_eagerly)
    out["fit_validation"] = m.fit(
        Batches(), epochs=2, shuffle=False, validation_data=Batches(), class_weight={0: 0.5, 1: 2.0}, verbose=0
    ).history
    events.clear()
    return out


def scenario_vector_metric(tf, keras, run_eagerly):
    """A metric with a vector result: NumPy arrays in the history, evaluate and *_on_batch."""
    x, y, _ = data()
    m = dense_model(keras)
    m.compile(
        keras.optimizers.SGD(0.1),
        "binary_crossentropy",
        metrics=[keras.metrics.FalseNegatives(thresholds=[0.3, 0.7]), "accuracy"],
        run_eagerly=run_eagerly,
    )
    logs = {}

    class Record(keras.callbacks.Callback):
        def on_epoch_end(self, epoch, epoch_logs=None):
            logs["epoch_end"] = dict(epoch_logs)

        def on_test_end(self, test_logs=None):
            logs["test_end"] = dict(test_logs)

    out = {"fit": m.fit(x, y, batch_size=5, epochs=2, validation_data=(x, y), shuffle=False, verbose=0).history}
    m.fit(x, y, batch_size=5, epochs=1, validation_data=(x, y), shuffle=False, verbose=0, callbacks=[Record()])
    out.update(logs)
    out["evaluate"] = m.evaluate(x, y, verbose=0)
    out["evaluate_dict"] = m.evaluate(x, y, verbose=0, return_dict=True)
    out["train_on_batch"] = m.train_on_batch(x, y)
    out["test_on_batch"] = m.test_on_batch(x, y, return_dict=True)
    return out


def scenario_per_output_losses(tf, keras, run_eagerly):
    """Per-output loss trackers over batches of unequal size (9 training samples in batches of 5)."""
    x, y, sw = data()
    inp = keras.Input((3,), name="inp")
    hidden = keras.layers.Dense(3, activation="tanh", name="hid")(inp)
    first = keras.layers.Dense(1, activation="sigmoid", name="first")(hidden)
    second = keras.layers.Dense(1, name="second")(hidden)
    m = keras.Model(inp, [first, second])
    m.set_weights([np.linspace(-1, 1, w.size).reshape(w.shape).astype("float32") * 0.6 for w in m.get_weights()])
    m.compile(
        keras.optimizers.SGD(0.1),
        loss=["binary_crossentropy", "mse"],
        loss_weights=[0.3, 1.0],
        metrics=[["accuracy"], ["mae", "mse"]],
        run_eagerly=run_eagerly,
    )
    y2 = x[:, :1] * 2
    out = {}
    out["fit"] = m.fit(
        x, [y, y2], batch_size=5, epochs=2, validation_split=0.25, validation_batch_size=2, shuffle=False, verbose=0
    ).history
    out["evaluate"] = m.evaluate(x, [y, y2], batch_size=5, verbose=0, return_dict=True)
    out["metrics_names"] = m.metrics_names
    out["train_on_batch"] = m.train_on_batch(x, [y, y2], sample_weight=[sw, sw])
    return out


def scenario_generator(tf, keras, run_eagerly):
    """A generator over two epochs: Keras replays the batches it read ahead for the specs."""
    x, y, _ = data()

    def batches():
        for i in range(3):
            yield x[i * 4 : (i + 1) * 4], y[i * 4 : (i + 1) * 4]

    m = compiled(keras, run_eagerly)
    out = {"fit": m.fit(batches(), epochs=2, verbose=0).history}
    out["fit_validation"] = m.fit(batches(), epochs=2, validation_data=batches(), verbose=0).history
    out["evaluate"] = m.evaluate(batches(), verbose=0)
    out["predict"] = m.predict((b[:1] for b in batches()), verbose=0)
    return out


def scenario_fit_options(tf, keras, run_eagerly):
    """fit/evaluate/predict options on one model, shuffle=False."""
    x, y, sw = data()
    out = {}
    m = compiled(keras, run_eagerly)
    out["validation_split"] = m.fit(
        x, y, batch_size=4, epochs=2, validation_split=0.25, shuffle=False, verbose=0
    ).history
    m = compiled(keras, run_eagerly)
    out["validation_tuple_freq"] = m.fit(
        x,
        y,
        batch_size=5,
        epochs=3,
        validation_data=(x[:6], y[:6], sw[:6]),
        validation_freq=2,
        shuffle=False,
        verbose=0,
    ).history
    m = compiled(keras, run_eagerly)
    out["validation_freq_list"] = m.fit(
        x, y, batch_size=4, epochs=4, validation_data=(x, y), validation_freq=[1, 3], shuffle=False, verbose=0
    ).history
    m = compiled(keras, run_eagerly)
    vds = tf.data.Dataset.from_tensor_slices((x, y)).batch(4)
    out["validation_dataset_steps"] = m.fit(
        x, y, batch_size=6, epochs=2, validation_data=vds, validation_steps=2, shuffle=False, verbose=0
    ).history
    m = compiled(keras, run_eagerly)
    out["class_weight"] = m.fit(
        x, y, batch_size=4, epochs=2, class_weight={0: 0.3, 1: 2.0}, shuffle=False, verbose=0
    ).history
    m = compiled(keras, run_eagerly, weighted_metrics=["accuracy"])
    out["sample_weight"] = m.fit(x, y, sample_weight=sw, batch_size=4, epochs=2, shuffle=False, verbose=0).history
    m = dense_model(keras, shape=(2, 3))
    m.compile(keras.optimizers.SGD(0.1), "mse", metrics=["mae"], run_eagerly=run_eagerly)
    xt, yt, swt = x.reshape(6, 2, 3), y.reshape(6, 2, 1), sw.reshape(6, 2)
    out["sample_weight_temporal"] = m.fit(
        xt, yt, sample_weight=swt, batch_size=4, epochs=2, shuffle=False, verbose=0
    ).history
    out["sample_weight_temporal_evaluate"] = m.evaluate(xt, yt, sample_weight=swt, batch_size=4, verbose=0)
    m = compiled(keras, run_eagerly)
    h = m.fit(x, y, batch_size=4, epochs=3, initial_epoch=1, shuffle=False, verbose=0)
    out["initial_epoch"] = {"history": h.history, "epoch": h.epoch, "steps": h.params["steps"]}
    m = compiled(keras, run_eagerly)
    rds = tf.data.Dataset.from_tensor_slices((x, y)).batch(4).repeat()
    h = m.fit(rds, epochs=2, steps_per_epoch=2, shuffle=False, verbose=0)
    out["steps_per_epoch_repeat"] = {"history": h.history, "steps": h.params["steps"]}
    m = compiled(keras, run_eagerly)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(5)
    h = m.fit(ds, batch_size=None, epochs=2, shuffle=False, verbose=0)
    out["dataset"] = {"history": h.history, "steps": h.params["steps"]}
    out["evaluate_steps"] = m.evaluate(ds.repeat(), steps=2, verbose=0)
    out["evaluate_list"] = m.evaluate(x, y, batch_size=5, verbose=0)
    out["evaluate_dict"] = m.evaluate(x, y, verbose=0, return_dict=True)
    out["train_on_batch"] = m.train_on_batch(x, y)
    out["train_on_batch_dict"] = m.train_on_batch(x, y, return_dict=True)
    out["test_on_batch_weighted"] = m.test_on_batch(x, y, sample_weight=sw, return_dict=True)
    out["predict_on_batch"] = m.predict_on_batch(x)
    m = dense_model(keras)
    m.compile(keras.optimizers.SGD(0.1), "binary_crossentropy", run_eagerly=run_eagerly)
    out["loss_only"] = [
        m.train_on_batch(x, y),
        m.test_on_batch(x, y),
        m.evaluate(x, y, verbose=0),
        m.train_on_batch(x, y, class_weight={0: 0.5, 1: 2.0}),
    ]
    return out


def scenario_dict_model(tf, keras, run_eagerly):
    """A functional model with dict inputs and outputs, loss and metric dicts and loss_weights."""
    x, y, _ = data()
    ia = keras.Input((3,), name="in_a")
    ib = keras.Input((2,), name="in_b")
    hidden = keras.layers.Dense(3, activation="tanh", name="hidden")(keras.layers.Concatenate()([ia, ib]))
    oa = keras.layers.Dense(1, activation="sigmoid", name="out_a")(hidden)
    ob = keras.layers.Dense(2, name="out_b")(hidden)
    m = keras.Model({"in_a": ia, "in_b": ib}, {"out_a": oa, "out_b": ob})
    m.set_weights([np.linspace(-1, 1, w.size).reshape(w.shape).astype("float32") * 0.7 for w in m.get_weights()])
    m.compile(
        keras.optimizers.SGD(0.1),
        loss={"out_a": "binary_crossentropy", "out_b": "mse"},
        loss_weights={"out_a": 1.0, "out_b": 0.5},
        metrics={"out_a": ["accuracy", keras.metrics.AUC(name="auc")], "out_b": ["mae"]},
        run_eagerly=run_eagerly,
    )
    xb = np.linspace(-1, 1, 24).reshape(12, 2).astype("float32")
    inputs = {"in_a": x, "in_b": xb}
    targets = {"out_a": y, "out_b": np.stack([x[:, 0] - x[:, 1], xb[:, 0]], axis=1)}
    out = {
        "fit": m.fit(
            inputs, targets, batch_size=4, epochs=2, validation_data=(inputs, targets), shuffle=False, verbose=0
        ).history
    }
    out["metrics_names"] = m.metrics_names
    out["evaluate"] = m.evaluate(inputs, targets, verbose=0)
    out["evaluate_dict"] = m.evaluate(inputs, targets, verbose=0, return_dict=True)
    out["train_on_batch"] = m.train_on_batch(inputs, targets)
    out["predict"] = m.predict(inputs, verbose=0)
    out["predict_on_batch"] = m.predict_on_batch(inputs)
    return out


SCENARIOS = {name[len("scenario_") :]: fn for name, fn in sorted(globals().items()) if name.startswith("scenario_")}
