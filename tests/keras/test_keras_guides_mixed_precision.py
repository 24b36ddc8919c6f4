"""Keras 3's compile under the ``mixed_float16`` policy wraps the optimizer in a
LossScaleOptimizer, so ``fit`` scales the loss (mixed precision guide). Expected numbers come from
Keras 3.15 (TensorFlow backend)."""

import numpy as np
import pytest

import tfunc as tf
from tfunc import keras


@pytest.fixture(autouse=True)
def _float32_afterwards():
    yield
    keras.mixed_precision.set_global_policy("float32")


def _functional():
    inp = keras.Input((4,))
    out = keras.layers.Dense(1, kernel_initializer="ones")(inp)
    out = keras.layers.Activation("linear", dtype="float32")(out)
    return keras.Model(inp, out)


def test_compile_wraps_the_optimizer_as_keras_does():
    keras.mixed_precision.set_global_policy("mixed_float16")
    m = _functional()
    assert m.dtype_policy.name == "mixed_float16"
    m.compile("sgd", "mse")
    assert isinstance(m.optimizer, keras.optimizers.LossScaleOptimizer)
    assert m.optimizer.name == "loss_scale_optimizer"
    assert isinstance(m.optimizer.inner_optimizer, keras.optimizers.SGD)
    sgd = keras.optimizers.SGD(0.1)
    m.compile(sgd, "mse")
    assert m.optimizer.inner_optimizer is sgd
    lso = keras.optimizers.LossScaleOptimizer(keras.optimizers.SGD())
    m.compile(lso, "mse")
    assert m.optimizer is lso  # not wrapped twice
    m.compile("sgd", "mse", auto_scale_loss=False)
    assert type(m.optimizer) is keras.optimizers.SGD
    # the policy is the model's (the global one when it was made), not the global one at compile
    keras.mixed_precision.set_global_policy("float32")
    m.compile("sgd", "mse")
    assert isinstance(m.optimizer, keras.optimizers.LossScaleOptimizer)
    f32 = _functional()
    f32.compile("sgd", "mse")
    assert type(f32.optimizer) is keras.optimizers.SGD


def test_subclassed_and_sequential_models_are_wrapped_too():
    keras.mixed_precision.set_global_policy("mixed_float16")

    class Sub(keras.Model):
        def __init__(self):
            super().__init__()
            self.d = keras.layers.Dense(1)

        def call(self, x):
            return self.d(x)

    for m in (Sub(), keras.Sequential([keras.layers.Dense(1)])):
        m.compile("adam", "mse")
        assert isinstance(m.optimizer, keras.optimizers.LossScaleOptimizer)
        assert isinstance(m.optimizer.inner_optimizer, keras.optimizers.Adam)


@pytest.mark.parametrize("run_eagerly", [True, False])
def test_fit_scales_tiny_float16_gradients(run_eagerly):
    # Gradients of 1e-9 * mse flush to zero in float16 without loss scaling (the kernel would stay 1).
    keras.mixed_precision.set_global_policy("mixed_float16")
    x = np.arange(32, dtype=np.float32).reshape(8, 4) / 32.0
    y = np.linspace(0.0, 1.0, 8, dtype=np.float32).reshape(8, 1)
    m = _functional()
    m.compile(
        optimizer=keras.optimizers.SGD(1e8),
        loss=lambda t, p: 1e-9 * tf.reduce_mean(tf.square(t - p)),
        run_eagerly=run_eagerly,
    )
    h = m.fit(x, y, epochs=2, batch_size=4, verbose=0, shuffle=False)
    kernel, bias = m.get_weights()
    # Keras 3.15's numbers
    np.testing.assert_allclose(kernel.ravel(), [0.59272826, 0.57290137, 0.5530743, 0.5332473], rtol=1e-5)
    np.testing.assert_allclose(bias, [-0.63319016], rtol=1e-5)
    np.testing.assert_allclose(h.history["loss"], [2.1680943707025335e-09, 2.81631606924293e-10], rtol=1e-4)
    assert int(m.optimizer.iterations) == 4
    assert float(m.optimizer.loss_scale) == 32768.0
