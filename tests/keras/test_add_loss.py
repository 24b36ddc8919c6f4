"""Layer.add_loss, Layer.losses / Model.losses and their part in the trained loss, against
Keras 3.15 (TensorFlow backend): the values below were computed by Keras on the same data and
initial weights."""

import numpy as np
import pytest

import tfunc as tf
from tfunc import keras
from tfunc.keras import layers, regularizers

X = np.array([[1.0, -2.0, 0.5], [3.0, 0.5, -1.0]], np.float32)


class SumLoss(layers.Layer):
    def call(self, x):
        self.add_loss(tf.reduce_sum(x))
        self.add_loss(tf.reduce_mean(x))
        return x * 2


def _dense():
    return layers.Dense(
        2,
        kernel_initializer=keras.initializers.Constant(0.5),
        bias_initializer=keras.initializers.Constant(0.25),
        kernel_regularizer=regularizers.L1(0.1),
        bias_regularizer=regularizers.L2(0.2),
        activity_regularizer=regularizers.L2(0.05),
    )


def _values(losses):
    return [float(v) for v in losses]


def test_add_loss_is_cleared_by_the_next_call():
    layer = SumLoss()
    layer(X)
    np.testing.assert_allclose(_values(layer.losses), [2.0, 1 / 3], rtol=1e-6)
    layer(X)
    assert len(layer.losses) == 2
    layer.add_loss(tf.constant(3.0))  # outside a call: kept until the next call
    layer.add_loss([tf.constant(1.0), tf.constant(2.0)])
    np.testing.assert_allclose(_values(layer.losses), [2.0, 1 / 3, 3.0, 1.0, 2.0], rtol=1e-6)
    layer(X)
    np.testing.assert_allclose(_values(layer.losses), [2.0, 1 / 3], rtol=1e-6)
    with pytest.raises(ValueError, match="can only be called from inside `build\\(\\)` or `call\\(\\)`, on a tensor"):
        layer.add_loss(1.0)


def test_nested_layers_collect_in_keras_order():
    class Outer(layers.Layer):
        def __init__(self):
            super().__init__()
            self.inner = SumLoss()
            self.d = _dense()

        def call(self, x):
            self.add_loss(tf.constant(100.0))
            return self.d(self.inner(x))

    outer = Outer()
    outer(X)
    # own, the sublayers' add_loss (activity included), then the weight penalties
    expected = [100.0, 2.0, 1 / 3, 0.38125, 0.3, 0.025]
    np.testing.assert_allclose(_values(outer.losses), expected, rtol=1e-6)
    np.testing.assert_allclose(_values(outer.inner.losses), [2.0, 1 / 3], rtol=1e-6)
    outer.inner(X)  # a direct call of a sublayer renews only its own losses
    np.testing.assert_allclose(_values(outer.losses), expected, rtol=1e-6)

    @tf.function
    def total(x):
        outer(x)
        return tf.add_n(outer.losses)

    assert float(total(X)) == pytest.approx(sum(expected), rel=1e-6)
    assert float(total(X)) == pytest.approx(sum(expected), rel=1e-6)  # the traced graph, run again


def test_symbolic_calls_keep_no_losses():
    # Keras: building a functional model adds no loss; the weight penalties are there already
    inp = keras.Input((3,))
    model = keras.Model(inp, _dense()(inp))
    np.testing.assert_allclose(_values(model.losses), [0.3, 0.025], rtol=1e-6)
    model(X)
    np.testing.assert_allclose(_values(model.losses), [0.1125, 0.3, 0.025], rtol=1e-6)
    with pytest.raises(NotImplementedError):
        model.add_loss(tf.constant(1.0))
    seq = keras.Sequential(
        [keras.Input((3,)), _dense(), layers.Dense(1, kernel_initializer="ones", kernel_regularizer="l2")]
    )
    np.testing.assert_allclose(_values(seq.losses), [0.3, 0.025, 0.02], rtol=1e-6)
    seq(X)
    np.testing.assert_allclose(_values(seq.losses), [0.1125, 0.3, 0.025, 0.02], rtol=1e-6)


# --- training: the loss minimized and reported includes sum(model.losses) --------------------

_rng = np.random.default_rng(0)
XS = _rng.normal(size=(10, 3)).astype(np.float32)
YS = _rng.normal(size=(10, 1)).astype(np.float32)
W0 = [_rng.normal(size=s).astype(np.float32) * 0.5 for s in [(3, 4), (4,), (4, 1), (1,)]]


class Penalty(layers.Layer):
    def call(self, x):
        self.add_loss(0.01 * tf.reduce_sum(tf.square(x)))
        return x


def _model():
    return keras.Sequential(
        [
            keras.Input((3,)),
            layers.Dense(
                4,
                activation="tanh",
                kernel_regularizer=regularizers.L2(0.05),
                bias_regularizer=regularizers.L1(0.02),
                activity_regularizer=regularizers.L1(0.01),
            ),
            Penalty(),
            layers.Dense(1, kernel_regularizer=regularizers.L1L2(0.01, 0.03)),
        ]
    )


KERAS = {  # Keras 3.15: fit(batch_size=4, epochs=3, shuffle=False), then evaluate, *_on_batch(XS[:4])
    "sgd": dict(
        loss=[0.9939415, 0.8949007, 0.8377582],
        mae=[0.5996245, 0.5530711, 0.542268],
        weights=[
            [-0.567637, 0.663914, 0.532336, 0.379541, 0.133966, -0.15334, 0.613392, 0.881161, 0.796611, 0.54306,
             0.36685, -0.496988],
            [-0.002247, 0.365981, -0.644757, 0.207413],
            [-0.001745, 0.172939, -0.670168, -0.127738],
            [0.045313],
        ],
        evaluate=[0.755761, 0.5503181],
        train_on_batch=[1.0332906, 0.6293884],
        test_on_batch=[0.7444215, 0.491266],
    ),
    "adam": dict(
        loss=[0.9933136, 0.6810821, 0.5516607],
        mae=[0.6016506, 0.4960752, 0.4397803],
        weights=[
            [-0.23279, 0.333691, 0.350458, 0.379058, 0.148777, -0.094183, 0.405892, 0.612909, 0.504973, 0.269212,
             0.517375, -0.235289],
            [-0.024069, 0.341724, -0.605654, 0.245158],
            [-0.093545, 0.093849, -0.590381, -0.063586],
            [-0.171283],
        ],
        evaluate=[0.5107743, 0.4352707],
        train_on_batch=[0.487962, 0.4279087],
        test_on_batch=[0.4753937, 0.4366591],
    ),
}  # fmt: skip


@pytest.mark.parametrize("run_eagerly", [False, True])
@pytest.mark.parametrize("opt", ["sgd", "adam"])
def test_fit_minimizes_and_reports_the_added_losses(opt, run_eagerly):
    expected = KERAS[opt]
    model = _model()
    model.set_weights(W0)
    optimizer = keras.optimizers.SGD(0.1) if opt == "sgd" else keras.optimizers.Adam(0.05)
    model.compile(optimizer=optimizer, loss="mse", metrics=["mae"], run_eagerly=run_eagerly)
    history = model.fit(XS, YS, batch_size=4, epochs=3, shuffle=False, verbose=0)
    np.testing.assert_allclose(history.history["loss"], expected["loss"], rtol=1e-5)
    np.testing.assert_allclose(history.history["mae"], expected["mae"], rtol=1e-5)
    for got, want in zip(model.get_weights(), expected["weights"]):
        np.testing.assert_allclose(got.ravel(), want, atol=2e-6)
    np.testing.assert_allclose(model.evaluate(XS, YS, batch_size=4, verbose=0), expected["evaluate"], rtol=1e-5)
    np.testing.assert_allclose(model.train_on_batch(XS[:4], YS[:4]), expected["train_on_batch"], rtol=1e-5)
    np.testing.assert_allclose(model.test_on_batch(XS[:4], YS[:4]), expected["test_on_batch"], rtol=1e-5)


def test_custom_train_step_sees_the_losses_through_compute_loss():
    class Custom(keras.Model):
        def __init__(self):
            super().__init__()
            self.d = layers.Dense(
                1, kernel_regularizer=regularizers.L2(0.1), activity_regularizer=regularizers.L2(0.01)
            )
            self.tracker = keras.metrics.Mean(name="total")

        def call(self, x):
            return self.d(x)

        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                loss = self.compute_loss(x=x, y=y, y_pred=self(x, training=True))
            grads = tape.gradient(loss, self.trainable_weights)
            self.optimizer.apply_gradients(zip(grads, self.trainable_weights))
            self.tracker.update_state(loss)
            return {"total": self.tracker.result()}

    model = Custom()
    model(XS[:1])
    model.set_weights([W0[2][:3], W0[3]])
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    history = model.fit(XS, YS, batch_size=5, epochs=2, shuffle=False, verbose=0)
    np.testing.assert_allclose(history.history["total"], [0.8764575, 0.5762793], rtol=1e-5)
    np.testing.assert_allclose(model.get_weights()[0].ravel(), [-0.089551, 0.045131, -0.502085], atol=2e-6)
    np.testing.assert_allclose(model.get_weights()[1], [-0.026731], atol=2e-6)


def test_an_integer_added_loss_is_summed_as_float32():
    class IntLoss(layers.Layer):
        def call(self, x):
            self.add_loss(tf.constant([1, 2]))  # Keras: cast to floatx, then summed
            return x

    model = keras.Sequential([keras.Input((3,)), IntLoss()])
    model.compile(optimizer="sgd", loss=None)
    loss = model.compute_loss(y_pred=model(X))
    assert loss.dtype == tf.float32 and float(loss) == 3.0
