"""tfunc.keras.regularizers and the layers' ``*_regularizer`` arguments, against Keras 3.15.

Expected values were computed with Keras 3.15 (TensorFlow backend) on the same inputs, or are
analytic (``L1(a)(x) = a * sum|x|``, ``L2(b)(x) = b * sum x**2``)."""

import numpy as np
import pytest

import tfunc as tf
from tfunc import keras
from tfunc.keras import layers, regularizers

C = keras.initializers.Constant
X = np.array([[1.0, -2.0], [3.0, 0.5]], np.float32)
W = np.array([[1.0, 2.0, 0.0], [0.5, -1.0, 2.0], [1.0, 1.0, 1.0], [3.0, 0.0, -1.0]], np.float32)


@pytest.mark.parametrize("in_function", [False, True])
def test_penalties(in_function):
    def run(fn, x):
        return float((tf.function(fn) if in_function else fn)(tf.constant(x)))

    assert run(regularizers.L1(0.1), X) == pytest.approx(0.1 * 6.5, rel=1e-6)
    assert run(regularizers.L2(0.1), X) == pytest.approx(0.1 * 14.25, rel=1e-6)
    assert run(regularizers.L1L2(0.1, 0.2), X) == pytest.approx(0.1 * 6.5 + 0.2 * 14.25, rel=1e-6)
    assert run(regularizers.L1L2(), X) == 0.0
    assert run(regularizers.OrthogonalRegularizer(0.1), W) == pytest.approx(0.03839583322405815, rel=1e-6)
    assert run(regularizers.OrthogonalRegularizer(0.1, "columns"), W) == pytest.approx(0.019755769520998, rel=1e-6)
    assert float(regularizers.Regularizer()(X)) == 0.0


def test_float64_input_keeps_its_dtype():
    assert regularizers.L1(0.1)(tf.constant(X, tf.float64)).dtype == tf.float64


def test_get_by_name_dict_class_and_callable():
    # Keras 3.15's names: class names and snake_case ('l1l2'; 'l1_l2' is not one)
    assert regularizers.get(None) is None
    for name, cls in [("l1", regularizers.L1), ("L2", regularizers.L2), ("l1l2", regularizers.L1L2)]:
        assert type(regularizers.get(name)) is cls
    assert type(regularizers.get("orthogonal_regularizer")) is regularizers.OrthogonalRegularizer
    with pytest.raises(ValueError, match="Could not interpret regularizer identifier: l1_l2"):
        regularizers.get("l1_l2")
    with pytest.raises(ValueError, match="Could not interpret regularizer identifier: 3"):
        regularizers.get(3)
    assert regularizers.get({"class_name": "L2", "config": {"l2": 0.5}}).get_config() == {"l2": 0.5}
    assert regularizers.get(regularizers.L2).get_config() == {"l2": 0.01}

    def fn(w):
        return tf.reduce_sum(w)

    assert regularizers.get(fn) is fn
    assert regularizers.l1_l2 is regularizers.L1L2 and keras.Regularizer is regularizers.Regularizer


def test_configs_and_serialization():
    # Keras keeps L1's factor (and OrthogonalRegularizer's) as a float32 tensor
    assert regularizers.L1().get_config() == {"l1": 0.009999999776482582}
    assert regularizers.L2().get_config() == {"l2": 0.01}
    assert regularizers.L1L2().get_config() == {"l1": 0.0, "l2": 0.0}
    assert regularizers.OrthogonalRegularizer(0.1).get_config() == {"factor": 0.10000000149011612, "mode": "rows"}
    assert regularizers.L1.from_config({"l1": 0.2}).get_config() == {"l1": 0.20000000298023224}
    assert regularizers.serialize(regularizers.L1L2(0.3, 0.1)) == {
        "module": "keras.regularizers",
        "class_name": "L1L2",
        "config": {"l1": 0.3, "l2": 0.1},
        "registered_name": None,
    }
    restored = regularizers.deserialize(regularizers.serialize(regularizers.L2(0.3)))
    assert type(restored) is regularizers.L2 and restored.l2 == 0.3
    with pytest.raises(NotImplementedError, match="does not implement get_config"):
        regularizers.Regularizer().get_config()
    for bad in (-1.0, float("nan"), "a"):
        with pytest.raises(ValueError, match="Invalid value for argument l2: expected a non-negative float"):
            regularizers.L2(bad)
    with pytest.raises(ValueError, match="Invalid value for argument `mode`"):
        regularizers.OrthogonalRegularizer(mode="diag")


X4 = np.arange(2 * 4 * 4 * 2, dtype=np.float32).reshape(2, 4, 4, 2) / 10.0
X3 = np.arange(2 * 3 * 2, dtype=np.float32).reshape(2, 3, 2) / 10.0
R1, R2 = regularizers.L1(0.1), regularizers.L2(0.2)


def _cases():
    """(layer, input, Keras 3.15's ``layer.losses`` after one call): the activity penalties
    first (divided by the batch size), then the weights' in weight order."""
    return [
        (
            layers.Conv2D(
                3, 2, kernel_initializer=C(0.5), bias_initializer=C(0.25), kernel_regularizer=R1,
                bias_regularizer=R2, activity_regularizer=regularizers.L2(0.01),
            ),
            X4,
            [57.600677, 1.2, 0.0375],
        ),
        (
            layers.DepthwiseConv2D(
                2, depth_multiplier=2, depthwise_initializer=C(0.5), bias_initializer=C(0.25),
                depthwise_regularizer=R1, bias_regularizer=R2, activity_regularizer=regularizers.L1(0.01),
            ),
            X4,
            [2.358, 0.8, 0.05],
        ),
        (
            layers.Conv2DTranspose(
                3, 2, kernel_initializer=C(0.5), bias_initializer=C(0.25), kernel_regularizer=R1,
                bias_regularizer=R2, activity_regularizer=regularizers.L1(0.01),
            ),
            X4,
            [6.2355, 1.2, 0.0375],
        ),
        (
            layers.Embedding(
                5, 3, embeddings_initializer=C(0.5), embeddings_regularizer=R2,
                activity_regularizer=regularizers.L1(0.01),
            ),
            np.array([[0, 1], [4, 2]]),
            [0.03, 0.75],
        ),
        (
            layers.BatchNormalization(
                gamma_initializer=C(2.0), beta_initializer=C(0.5), gamma_regularizer=R2, beta_regularizer=R1,
                activity_regularizer=regularizers.L1(0.01),
            ),
            X3,
            [0.095967, 1.6, 0.1],
        ),
        (
            layers.LayerNormalization(
                gamma_initializer=C(2.0), beta_initializer=C(0.5), gamma_regularizer=R2, beta_regularizer=R1
            ),
            X3,
            [1.6, 0.1],
        ),
        (  # each output of return_state gets the activity penalty
            layers.LSTM(
                2, kernel_initializer=C(0.1), recurrent_initializer=C(0.2), bias_initializer=C(0.3),
                unit_forget_bias=False, kernel_regularizer=R1, recurrent_regularizer=R2,
                bias_regularizer=regularizers.L1L2(0.1, 0.1), activity_regularizer=regularizers.L2(0.5),
                return_state=True,
            ),
            X3,
            [0.105538, 0.105538, 0.323332, 0.16, 0.128, 0.312],
        ),
        (
            layers.GRU(
                2, kernel_initializer=C(0.1), recurrent_initializer=C(0.2), bias_initializer=C(0.3),
                kernel_regularizer=R1, recurrent_regularizer=R2, bias_regularizer=R1,
                activity_regularizer=regularizers.L2(0.5),
            ),
            X3,
            [0.158323, 0.12, 0.096, 0.36],
        ),
    ]  # fmt: skip


@pytest.mark.parametrize("index", range(8))
def test_layer_regularizers_match_keras(index):
    layer, x, expected = _cases()[index]
    layer(x)
    np.testing.assert_allclose([float(v) for v in layer.losses], expected, rtol=1e-5, atol=1e-6)

    @tf.function
    def total(x):
        layer(x)
        return tf.add_n(layer.losses)

    assert float(total(x)) == pytest.approx(sum(expected), rel=1e-5)


def test_dense_losses_follow_the_weights_and_trainability():
    d = layers.Dense(
        2, kernel_initializer=C(0.5), bias_initializer=C(0.25), kernel_regularizer="l1",
        bias_regularizer=R2, activity_regularizer=regularizers.L2(0.05),
    )  # fmt: skip
    assert d.losses == []
    d(np.array([[1.0, -2.0, 0.5], [3.0, 0.5, -1.0]], np.float32))
    assert d.kernel.regularizer is d.kernel_regularizer and d.bias.regularizer is R2
    # Keras: activity 0.05 * (0 + 2 * 1.5**2) / 2, then 0.01 * 6 * 0.5 (float32 factor), 0.2 * 2 * 0.25**2
    np.testing.assert_allclose([float(v) for v in d.losses], [0.1125, 0.03, 0.025], rtol=1e-6)
    d.kernel.assign(np.full((3, 2), 2.0, np.float32))  # recomputed from the current value
    assert float(d.losses[1]) == pytest.approx(0.12, rel=1e-6)
    d.trainable = False  # a frozen weight is not regularized; the activity loss stays
    np.testing.assert_allclose([float(v) for v in d.losses], [0.1125], rtol=1e-6)


def test_add_weight_regularizer_and_plain_callable():
    class W(layers.Layer):
        def build(self, shape):
            self.w = self.add_weight(shape=(2,), initializer="ones", regularizer="l2")
            self.n = self.add_weight(shape=(2,), initializer="ones", regularizer="l2", trainable=False)

        def call(self, x):
            return x

    w = W()
    w.build(None)  # no call needed: the penalty is on the weight; the non-trainable one is skipped
    np.testing.assert_allclose([float(v) for v in w.losses], [0.02], rtol=1e-6)

    d = layers.Dense(2, kernel_initializer="ones", kernel_regularizer=lambda k: tf.reduce_sum(k) * 2)
    d(X[:, :1].repeat(3, axis=1))
    assert [float(v) for v in d.losses] == [12.0]

    plain = layers.Dense(1)
    plain(X)
    assert plain.kernel.regularizer is None and plain.losses == []  # as Keras's variable.regularizer


def test_activity_regularizer_on_any_layer_and_settable():
    act = layers.Activation("linear")
    act.activity_regularizer = regularizers.L1(1.0)
    act(X)
    assert [float(v) for v in act.losses] == [pytest.approx(6.5 / 2)]  # divided by the batch size 2
    scalar = layers.Activation("relu", activity_regularizer=regularizers.L1(1.0))
    scalar(tf.constant(2.0))  # a scalar output is not divided
    assert [float(v) for v in scalar.losses] == [2.0]
    scalar(tf.zeros((0, 3)))  # an empty batch gives 0, not NaN (divide_no_nan)
    assert [float(v) for v in scalar.losses] == [0.0]
