"""keras.losses.CTC and keras.losses.ctc against Keras 3.15 (values, gradient, config, and a
compiled model's fit), the expected numbers computed by Keras 3.15 on TensorFlow 2.21 from
the same NumPy inputs."""

import numpy as np
import pytest

import tfunc as tf

keras = tf.keras

Y_TRUE = np.array([[1, 2, 2, 0], [3, 0, 0, 0], [0, 0, 0, 0]], np.int32)  # 0: the blank and padding


def _y_pred():
    return np.random.default_rng(5).normal(size=(3, 6, 5)).astype(np.float32)


def test_ctc_values_and_gradient():
    y_pred = _y_pred()

    def fn():
        x = tf.constant(y_pred)
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = keras.losses.CTC()(Y_TRUE, x)
        return keras.losses.ctc(Y_TRUE, x), loss, tape.gradient(loss, x)

    weights = np.array([1.0, 0.5, 2.0], np.float32)
    summed = keras.losses.CTC(reduction="sum")(Y_TRUE, y_pred, sample_weight=weights)
    np.testing.assert_allclose(summed.numpy(), 36.26876, rtol=1e-5)
    for per_sample, loss, grad in (fn(), tf.function(fn)()):
        np.testing.assert_allclose(per_sample.numpy(), [10.6694, 6.641255, 11.139366], rtol=1e-5)
        np.testing.assert_allclose(loss.numpy(), 9.48334, rtol=1e-5)
        np.testing.assert_allclose(
            grad.numpy()[0, :2],
            [
                [-0.0444951, -0.24999917, 0.04240763, 0.08277575, 0.16931087],
                [-0.03306188, -0.07527164, -0.14876522, 0.07505438, 0.18204433],
            ],
            atol=5e-6,
        )


def test_ctc_config_and_serialization():
    assert keras.losses.CTC().get_config() == {"name": "ctc", "reduction": "sum_over_batch_size"}
    assert keras.losses.get("ctc") is keras.losses.ctc
    ser = keras.losses.serialize(keras.losses.CTC(name="c2"))
    assert ser == {
        "module": "keras.losses",
        "class_name": "CTC",
        "config": {"name": "c2", "reduction": "sum_over_batch_size"},
        "registered_name": None,
    }
    assert keras.losses.deserialize(ser).get_config() == {"name": "c2", "reduction": "sum_over_batch_size"}
    assert keras.losses.CTC(dtype="float64").dtype == "float64"  # as Keras 3.15: losses take a dtype


def test_ctc_rejects_bad_ranks():
    with pytest.raises(ValueError, match="y_true"):
        keras.losses.ctc(np.zeros((2, 3, 1), np.int32), _y_pred())
    with pytest.raises(ValueError, match="y_pred"):
        keras.losses.ctc(Y_TRUE, np.zeros((3, 5), np.float32))


@pytest.mark.parametrize("loss", ["ctc", "CTC"])
def test_fit_with_ctc_matches_keras(loss):
    rng = np.random.default_rng(7)
    x = rng.normal(size=(4, 6, 3)).astype(np.float32)
    y = np.array([[1, 2, 0], [3, 3, 0], [4, 0, 0], [2, 1, 4]], np.int32)
    kernel = rng.normal(size=(3, 5)).astype(np.float32) * 0.5
    model = keras.Sequential([keras.Input((6, 3)), keras.layers.Dense(5)])
    model.set_weights([kernel, np.zeros(5, np.float32)])
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss=keras.losses.CTC() if loss == "CTC" else loss)
    history = model.fit(x, y, batch_size=2, epochs=2, verbose=0, shuffle=False)
    np.testing.assert_allclose(history.history["loss"], [5.759383201599121, 4.931782245635986], rtol=1e-5)
    np.testing.assert_allclose(
        model.get_weights()[0],
        [
            [-4.83495533e-01, 9.69418883e-02, 7.25854576e-01, 2.79850513e-01, -8.97771195e-02],
            [-1.22895785e-01, -1.20049901e-01, 5.96379578e-01, -3.09608638e-01, 4.27011102e-02],
            [6.71232790e-02, -4.44743261e-02, 1.97306834e-03, -5.69425523e-01, -7.23630190e-04],
        ],
        atol=2e-6,
    )
    np.testing.assert_allclose(
        model.get_weights()[1], [0.56704175, -0.13213766, -0.1464831, -0.17552915, -0.11289187], atol=2e-6
    )


def test_a_model_compiled_with_ctc_round_trips(tmp_path):
    """The archive holds the loss as Keras 3.15 writes it (Keras loads tfunc's archive and
    tfunc Keras's: checked by hand with both), and loads back with it."""
    rng = np.random.default_rng(7)
    x = rng.normal(size=(4, 6, 3)).astype(np.float32)
    y = np.array([[1, 2, 0], [3, 3, 0], [4, 0, 0], [2, 1, 4]], np.int32)
    model = keras.Sequential([keras.Input((6, 3)), keras.layers.Dense(5)])
    model.compile(optimizer="sgd", loss=keras.losses.CTC(name="my_ctc"))
    model.fit(x, y, epochs=1, verbose=0)
    model.save(tmp_path / "ctc.keras")
    loaded = keras.models.load_model(tmp_path / "ctc.keras")
    assert type(loaded.loss).__name__ == "CTC"
    assert loaded.loss.get_config() == {"name": "my_ctc", "reduction": "sum_over_batch_size"}
    np.testing.assert_allclose(loaded.evaluate(x, y, verbose=0), model.evaluate(x, y, verbose=0), rtol=1e-6)
