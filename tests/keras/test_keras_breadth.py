"""fit on a Model without call() (Keras's GAN guide), RootMeanSquaredError and
MeanAbsolutePercentageError, GlobalAveragePooling1D / GlobalMaxPooling1D; expected values from
NumPy formulas of Keras 3.15's definitions (checked against Keras)."""

import numpy as np
import pytest

import tfunc as tf
from tfunc import keras
from tfunc.keras import layers, metrics


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_fit_a_model_that_overrides_train_step_without_call(run_eagerly):
    x = np.random.RandomState(0).rand(8, 4).astype(np.float32)

    class GAN(keras.Model):
        def __init__(self):
            super().__init__()
            self.d = layers.Dense(1, kernel_initializer="ones", bias_initializer="zeros")
            self.tracker = metrics.Mean(name="d_loss")

        @property
        def metrics(self):
            return [self.tracker]

        def train_step(self, data):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(self.d(data) ** 2)
            grads = tape.gradient(loss, self.d.trainable_weights)
            self.optimizer.apply(grads, self.d.trainable_weights)
            self.tracker.update_state(loss)
            return {"d_loss": self.tracker.result()}

    gan = GAN()
    gan.compile(optimizer=keras.optimizers.SGD(0.1), run_eagerly=run_eagerly)
    history = gan.fit(tf.data.Dataset.from_tensor_slices(x).batch(4), epochs=1, verbose=0)
    # NumPy: two SGD steps of mean((x @ w + b)**2)
    w, b, losses = np.ones(4), 0.0, []
    for batch in (x[:4], x[4:]):
        out = batch @ w + b
        losses.append(np.mean(out**2))
        w, b = w - 0.1 * 2 * batch.T @ out / 4, b - 0.1 * 2 * np.mean(out)
    assert history.history["d_loss"] == pytest.approx([np.mean(losses)], rel=1e-5)
    np.testing.assert_allclose(gan.d.kernel.numpy()[:, 0], w, rtol=1e-5)


Y_TRUE = np.array([[1.0, 2.0, 0.5], [0.2, -1.0, 3.0]], np.float32)
Y_PRED = np.array([[1.5, 1.0, 0.0], [0.0, -2.0, 2.0]], np.float32)
SW = np.array([0.25, 2.0], np.float32)


@pytest.mark.parametrize("in_function", [False, True])
def test_rmse_and_mape_with_sample_weights(in_function):
    sq = ((Y_PRED - Y_TRUE) ** 2).mean(axis=1)
    ape = 100 * (np.abs(Y_TRUE - Y_PRED) / np.maximum(np.abs(Y_TRUE), 1e-7)).mean(axis=1)
    for metric, per_sample, finish in (
        (metrics.RootMeanSquaredError(), sq, np.sqrt),
        (metrics.MeanAbsolutePercentageError(), ape, lambda r: r),
    ):

        def update(yt, yp, sw, metric=metric):
            metric.update_state(yt, yp, sample_weight=sw)
            return metric.result()

        if in_function:
            update = tf.function(update)
        update(tf.constant(Y_TRUE), tf.constant(Y_PRED), tf.constant(SW))
        result = update(tf.constant(Y_TRUE[:1]), tf.constant(Y_PRED[:1]), tf.constant([1.0]))
        expected = finish((np.sum(per_sample * SW) + per_sample[0]) / (SW.sum() + 1.0))
        assert float(result) == pytest.approx(expected, rel=1e-5)
    np.testing.assert_allclose(metrics.mape(Y_TRUE, Y_PRED).numpy(), ape, rtol=1e-5)
    assert isinstance(metrics.get("mape"), metrics.MeanAbsolutePercentageError)
    assert isinstance(metrics.get("RootMeanSquaredError"), metrics.RootMeanSquaredError)
    assert metrics.RootMeanSquaredError.from_config(metrics.RootMeanSquaredError().get_config()).name == (
        "root_mean_squared_error"
    )


def test_rmse_and_mape_in_fit_and_evaluate():
    x = np.array([[1.0], [2.0], [3.0], [4.0]], np.float32)
    y = np.array([[2.0], [3.0], [5.0], [4.0]], np.float32)
    model = keras.Sequential([keras.Input((1,)), layers.Dense(1, kernel_initializer="ones")])
    model.compile(optimizer=keras.optimizers.SGD(0.0), loss="mse", metrics=["mape", metrics.RootMeanSquaredError()])
    logs = model.evaluate(x, y, batch_size=3, verbose=0, return_dict=True)
    assert logs["mape"] == pytest.approx(100 * np.mean(np.abs(y - x) / y), rel=1e-5)
    assert logs["root_mean_squared_error"] == pytest.approx(np.sqrt(np.mean((y - x) ** 2)), rel=1e-5)
    history = model.fit(x, y, batch_size=3, epochs=1, verbose=0, shuffle=False)
    assert history.history["mape"] == pytest.approx([logs["mape"]], rel=1e-5)


X = np.random.RandomState(1).randn(2, 5, 3).astype(np.float32)
MASK = np.array([[1, 1, 0, 1, 0], [1, 0, 0, 0, 0]], bool)


@pytest.mark.parametrize("in_function", [False, True])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_global_pooling_1d(data_format, keepdims, in_function):
    axis = 1 if data_format == "channels_last" else 2
    avg = layers.GlobalAveragePooling1D(data_format=data_format, keepdims=keepdims)
    mx = layers.GlobalMaxPooling1D(data_format=data_format, keepdims=keepdims)
    mask = MASK if axis == 1 else MASK[:, :3]
    m = np.expand_dims(mask.astype(np.float32), 2 if axis == 1 else 1)

    def run(x, mk):
        return avg(x), mx(x), avg(x, mask=mk)

    if in_function:
        run = tf.function(run)
    got = [t.numpy() for t in run(tf.constant(X), tf.constant(mask))]
    expected = [
        X.mean(axis=axis, keepdims=keepdims),
        X.max(axis=axis, keepdims=keepdims),
        (X * m).sum(axis=axis, keepdims=keepdims) / m.sum(axis=axis, keepdims=keepdims),
    ]
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-5)
    assert tuple(avg.compute_output_shape((None,) + X.shape[1:]).as_list()) == (None,) + expected[0].shape[1:]
    assert avg.get_config()["data_format"] == data_format


def test_global_pooling_1d_checks_and_aliases():
    with pytest.raises(ValueError, match="expected ndim=3"):
        layers.GlobalMaxPooling1D()(np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match="data_format"):
        layers.GlobalAveragePooling1D(data_format="nchw")
    assert layers.GlobalAvgPool1D is layers.GlobalAveragePooling1D
    assert layers.GlobalMaxPool1D is layers.GlobalMaxPooling1D
