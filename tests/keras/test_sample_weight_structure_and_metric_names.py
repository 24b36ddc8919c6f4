"""Compile's sample weights and metric names as Keras 3.15 (expected
messages, names and classes are Keras's), in a compiled (traced) model and with run_eagerly."""

import numpy as np
import pytest

import tfunc as tf

keras = tf.keras
MODES = [False, True]  # run_eagerly


def two_outputs(run_eagerly):
    i = keras.Input((3,))
    model = keras.Model(i, [keras.layers.Dense(2, name="a")(i), keras.layers.Dense(1, name="b")(i)])
    model.compile("sgd", loss=["mse", "mae"], run_eagerly=run_eagerly)
    return model


@pytest.mark.parametrize("run_eagerly", MODES)
def test_sample_weights_must_have_the_structure_of_y(run_eagerly):
    # Keras's ArrayDataAdapter: one weight array per output, in y's structure (a bare KeyError
    # or IndexError came from the loss before)
    x, sw = np.ones((8, 3), "float32"), np.ones(8, "float32")
    y = [np.ones((8, 2), "float32"), np.ones((8, 1), "float32")]
    model = two_outputs(run_eagerly)
    for weights in ({"a": sw, "b": sw}, [sw], (sw, sw)):
        for call in (model.fit, model.evaluate):
            with pytest.raises(ValueError, match="You should provide one `sample_weight` array per output in `y`"):
                call(x, y, sample_weight=weights, verbose=0)
    # the matching structure (None for an output without weights) and one array for all outputs
    assert np.isfinite(model.evaluate(x, y, sample_weight=[sw, None], verbose=0)).all()
    assert np.isfinite(model.evaluate(x, y, sample_weight=sw, verbose=0)).all()


def my_metric(y_true, y_pred):
    return (y_true - y_pred) ** 2


@pytest.mark.parametrize("run_eagerly", MODES)
def test_metric_names_give_keras_classes_and_leave_the_wrapper_numbering_alone(run_eagerly):
    # Keras 3 resolves a metric name to a class instance; only the user's function is wrapped,
    # taking the unnumbered "mean_metric_wrapper"
    keras.backend.clear_session()
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, kernel_initializer="ones")])
    model.compile("sgd", "mse", metrics=["mae", my_metric, "mse", "binary_accuracy"], run_eagerly=run_eagerly)
    x, y = np.ones((4, 3), "float32"), np.zeros((4, 2), "float32")
    result = model.evaluate(x, y, verbose=0, return_dict=True)
    assert result["mae"] == pytest.approx(3.0) and result["mse"] == pytest.approx(9.0)
    assert result["my_metric"] == pytest.approx(9.0) and result["binary_accuracy"] == pytest.approx(0.0)
    built = [(type(m).__name__, m.name) for m in model.metrics[1].metrics]
    assert built == [
        ("MeanAbsoluteError", "mae"),
        ("MeanMetricWrapper", "my_metric"),
        ("MeanSquaredError", "mse"),
        ("BinaryAccuracy", "binary_accuracy"),
    ]
    assert keras.metrics.MeanMetricWrapper(my_metric).name == "mean_metric_wrapper_1"


@pytest.mark.parametrize("name", ["crossentropy", "ce", "CE"])
def test_keras_2_crossentropy_metric_names_are_refused(name):
    # (Keras 3.15 refuses them when the metrics are built; tfunc when compiling, as other unknown names)
    model = two_outputs(False)
    x, y = np.ones((8, 3), "float32"), [np.ones((8, 2), "float32"), np.ones((8, 1), "float32")]
    with pytest.raises(ValueError, match=f"Could not interpret metric identifier: {name}"):
        model.compile("sgd", loss=["mse", "mse"], metrics=[[name], []])
        model.evaluate(x, y, verbose=0)
