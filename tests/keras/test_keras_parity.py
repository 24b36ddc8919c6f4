"""Behaviour checked against Keras 3.15 (TensorFlow backend): the expected values below are the
ones Keras gives (or follow analytically from its formulas), never tfunc's own output."""

import numpy as np
import pytest

import tfunc as tf
from tfunc import keras
from tfunc.keras import layers

# --- weight order ----------------------------------------------------------------------------------


def _short(v):
    assert v.name == v.path.rsplit("/", 1)[1]  # Keras 3: the name is the last part of the path
    return v.path.split("/", 1)[1]  # the path inside the model (Keras 3's v.path less 'sequential/')


def _bn_model():
    return keras.Sequential(
        [
            layers.Input((4,)),
            layers.Dense(3, name="d"),
            layers.BatchNormalization(name="bn"),
            layers.LayerNormalization(name="ln"),
        ]
    )


def test_weights_are_listed_layer_by_layer_as_in_keras():
    m = _bn_model()
    # Keras 3: [v.path for v in model.weights]
    expected = [
        "d/kernel",
        "d/bias",
        "bn/gamma",
        "bn/beta",
        "bn/moving_mean",
        "bn/moving_variance",
        "ln/gamma",
        "ln/beta",
    ]
    assert [_short(v) for v in m.weights] == expected
    assert [_short(v) for v in m.trainable_weights] == [
        "d/kernel",
        "d/bias",
        "bn/gamma",
        "bn/beta",
        "ln/gamma",
        "ln/beta",
    ]
    assert [_short(v) for v in m.non_trainable_weights] == ["bn/moving_mean", "bn/moving_variance"]
    assert [w.shape for w in m.get_weights()] == [(4, 3), (3,), (3,), (3,), (3,), (3,), (3,), (3,)]


@pytest.mark.parametrize("run_eagerly", [True, False])
def test_set_weights_takes_keras_ordered_lists(run_eagerly):
    m = _bn_model()
    kernel = np.arange(12, dtype=np.float32).reshape(4, 3) / 10.0
    values = [
        kernel,
        np.zeros(3, np.float32),
        np.full(3, 2.0, np.float32),  # gamma
        np.full(3, 0.5, np.float32),  # beta
        np.full(3, 1.0, np.float32),  # moving_mean
        np.full(3, 4.0, np.float32),  # moving_variance
        np.ones(3, np.float32),
        np.zeros(3, np.float32),
    ]
    m.set_weights(values)
    bn = m.layers[1]
    np.testing.assert_array_equal(bn.moving_variance.numpy(), np.full(3, 4.0))
    np.testing.assert_array_equal(bn.gamma.numpy(), np.full(3, 2.0))
    for got, want in zip(m.get_weights(), values):
        np.testing.assert_array_equal(got, want)
    m.compile(loss="mse", run_eagerly=run_eagerly)
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    h = x @ kernel
    h = 2.0 * (h - 1.0) / np.sqrt(4.0 + 1e-3) + 0.5
    mu, var = h.mean(-1, keepdims=True), h.var(-1, keepdims=True)
    want = (h - mu) / np.sqrt(var + 1e-3)
    np.testing.assert_allclose(m.predict(x, verbose=0), want, rtol=1e-5, atol=1e-5)


def test_frozen_layer_keeps_its_place():
    m = keras.Sequential([layers.Input((3,)), layers.Dense(3, name="a"), layers.Dense(2, name="b")])
    m.layers[0].trainable = False
    assert [_short(v) for v in m.weights] == ["a/kernel", "a/bias", "b/kernel", "b/bias"]
    assert [w.shape for w in m.get_weights()] == [(3, 3), (3,), (3, 2), (2,)]
    assert [_short(v) for v in m.trainable_weights] == ["b/kernel", "b/bias"]
    assert [_short(v) for v in m.non_trainable_weights] == ["a/kernel", "a/bias"]
    values = [np.full(s, i, np.float32) for i, s in enumerate([(3, 3), (3,), (3, 2), (2,)])]
    m.set_weights(values)
    np.testing.assert_array_equal(m.layers[0].kernel.numpy(), values[0])
    np.testing.assert_array_equal(m.layers[1].kernel.numpy(), values[2])


class _Custom(layers.Layer):
    def __init__(self):
        super().__init__(name="custom")
        self.d = layers.Dense(2, name="inner_dense")

    def build(self, input_shape):
        self.n = self.add_weight(name="n", shape=(1,), trainable=False, initializer="zeros")
        self.t = self.add_weight(name="t", shape=(2,), initializer="ones")

    def call(self, x):
        return self.d(x) * self.t + self.n


def test_nested_model_and_custom_layer_order():
    inner = keras.Sequential([layers.Input((4,)), layers.Dense(3), layers.BatchNormalization()])
    inner.layers[0].trainable = False
    m = keras.Sequential([layers.Input((4,)), inner, _Custom(), layers.Dense(2)])
    # Keras 3.15: shapes of model.weights / trainable_weights / non_trainable_weights
    assert [tuple(v.shape) for v in m.weights] == [
        (4, 3), (3,), (3,), (3,), (3,), (3,), (2,), (1,), (3, 2), (2,), (2, 2), (2,)
    ]  # fmt: skip
    assert [tuple(v.shape) for v in m.trainable_weights] == [(3,), (3,), (2,), (3, 2), (2,), (2, 2), (2,)]
    assert [tuple(v.shape) for v in m.non_trainable_weights] == [(4, 3), (3,), (3,), (3,), (1,)]
    custom = m.layers[1]
    # Keras 3.15: the sublayer built inside the custom layer's call is under its path
    assert [_short(v) for v in custom.weights] == [
        "custom/t", "custom/n", "custom/inner_dense/kernel", "custom/inner_dense/bias"
    ]  # fmt: skip


# --- losses line up ranks (Keras 3's squeeze_or_expand_to_same_rank) --------------------------------

Y_1D = np.array([1.0, 0.0, 1.0, 0.0], np.float32)  # (N,)
P_COL = np.array([[0.9], [0.2], [0.4], [0.7]], np.float32)  # (N, 1)


def test_loss_classes_line_up_n_labels_with_n_by_1_predictions():
    # Keras 3.15: MeanSquaredError()(Y_1D, P_COL) etc.
    np.testing.assert_allclose(keras.losses.MeanSquaredError()(Y_1D, P_COL).numpy(), 0.225, rtol=1e-6)
    np.testing.assert_allclose(keras.losses.MeanSquaredError()(P_COL, Y_1D).numpy(), 0.225, rtol=1e-6)
    np.testing.assert_allclose(keras.losses.MeanAbsoluteError()(Y_1D, P_COL).numpy(), 0.4, rtol=1e-6)
    np.testing.assert_allclose(keras.losses.BinaryCrossentropy()(Y_1D, P_COL).numpy(), 0.612191915512085, rtol=1e-6)
    np.testing.assert_allclose(
        keras.losses.BinaryCrossentropy(reduction="none")(Y_1D, P_COL).numpy(),
        [0.105360545, 0.22314353, 0.9162907, 1.2039728],
        rtol=1e-6,
    )
    sw = np.array([1.0, 2.0, 0.0, 1.0], np.float32)
    np.testing.assert_allclose(
        keras.losses.BinaryCrossentropy()(Y_1D, P_COL, sample_weight=sw).numpy(), 0.43890511989593506, rtol=1e-6
    )
    np.testing.assert_allclose(
        keras.losses.MeanSquaredError()(Y_1D, P_COL, sample_weight=sw).numpy(), 0.14499999582767487, rtol=1e-6
    )
    ys, ps = np.array([[2], [0]]), np.array([[0.1, 0.2, 0.7], [0.5, 0.3, 0.2]], np.float32)
    np.testing.assert_allclose(
        keras.losses.SparseCategoricalCrossentropy()(ys, ps).numpy(), 0.5249110460281372, rtol=1e-6
    )


def test_loss_functions_line_up_ranks_or_refuse():
    want = [0.010000004, 0.040000003, 0.36, 0.48999998]  # Keras 3.15 mean_squared_error
    np.testing.assert_allclose(keras.losses.mean_squared_error(Y_1D, P_COL).numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(keras.losses.mean_squared_error(P_COL, Y_1D).numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(keras.losses.mean_absolute_error(Y_1D, P_COL).numpy(), [0.1, 0.2, 0.6, 0.7], rtol=1e-6)
    # Keras's binary/categorical crossentropy functions refuse labels and predictions of different ranks
    with pytest.raises(ValueError, match="same rank"):
        keras.losses.binary_crossentropy(Y_1D, P_COL)
    with pytest.raises(ValueError, match="same rank"):
        keras.losses.categorical_crossentropy(Y_1D, P_COL)
    with pytest.raises(ValueError, match="same shape"):
        keras.losses.CategoricalCrossentropy()(np.eye(3, dtype=np.float32)[:2], np.array([[0.2], [0.3]], np.float32))


@pytest.mark.parametrize("run_eagerly", [True, False])
def test_fit_with_n_labels_and_n_by_1_predictions(run_eagerly):
    m = keras.Sequential([layers.Input((1,)), layers.Dense(1, use_bias=False, kernel_initializer="ones")])
    m.compile(loss=keras.losses.MeanSquaredError(), run_eagerly=run_eagerly)
    x = P_COL
    # predictions == x: the MSE of Y_1D against P_COL, not of a (4, 4) broadcast
    np.testing.assert_allclose(m.evaluate(x, Y_1D, verbose=0), 0.225, rtol=1e-6)


def test_reduction_spellings_of_keras_3():
    sw = np.array([1.0, 2.0, 0.0, 3.0], np.float32)
    per = np.array([0.01, 0.04, 0.36, 0.49])
    np.testing.assert_allclose(
        keras.losses.MeanSquaredError(reduction=None)(Y_1D, P_COL).numpy().ravel(), per, rtol=1e-5
    )
    np.testing.assert_allclose(
        keras.losses.MeanSquaredError(reduction="mean")(Y_1D, P_COL, sample_weight=sw).numpy(),
        (per * sw).sum() / 4,
        rtol=1e-5,
    )
    np.testing.assert_allclose(
        keras.losses.MeanSquaredError(reduction="mean_with_sample_weight")(Y_1D, P_COL, sample_weight=sw).numpy(),
        (per * sw).sum() / sw.sum(),
        rtol=1e-5,
    )
    np.testing.assert_allclose(
        keras.losses.MeanSquaredError(reduction="mean_with_sample_weight")(Y_1D, P_COL).numpy(), 0.225, rtol=1e-6
    )


# --- binary crossentropy: Keras 3.15's formula (clip, no epsilon in the log) ------------------------


def test_binary_crossentropy_has_no_epsilon_inside_the_log():
    y = np.array([[0.0], [1.0]], np.float32)
    # Keras 3.15: -log(1e-7) computed in float32 after clipping to [1e-7, 1 - 1e-7]
    np.testing.assert_allclose(
        keras.losses.BinaryCrossentropy(reduction="none")(y, np.array([[1.0], [0.0]], np.float32)).numpy(),
        [15.942385, 16.118095],
        rtol=1e-6,
    )
    np.testing.assert_allclose(
        keras.losses.binary_crossentropy(y, np.array([[1e-6], [0.999]], np.float32)).numpy(),
        [1.0132795e-06, 1.0004875e-03],
        rtol=1e-5,
    )


# --- crossentropy after a softmax / sigmoid: the logits are used (Keras 3 on TensorFlow) ------------

X_EYE = np.array([[1.0, 0.0], [0.0, 1.0]], np.float32)
Y_SPARSE = np.array([1, 0])
W_WRONG = np.array([[30.0, -30.0], [-30.0, 30.0]], np.float32)  # confident and wrong


@pytest.mark.parametrize("run_eagerly", [True, False])
@pytest.mark.parametrize(
    "act, loss, units",
    [
        ("softmax", "sparse_categorical_crossentropy", 2),
        ("softmax", "categorical_crossentropy", 2),
        ("sigmoid", "binary_crossentropy", 1),
    ],
)
def test_crossentropy_after_softmax_or_sigmoid_uses_the_logits(run_eagerly, act, loss, units):
    y = {
        "sparse_categorical_crossentropy": Y_SPARSE,
        "categorical_crossentropy": np.eye(2, dtype=np.float32)[Y_SPARSE],
        "binary_crossentropy": 1.0 - Y_SPARSE[:, None].astype(np.float32),
    }[loss]
    m = keras.Sequential([layers.Input((2,)), layers.Dense(units, activation=act, use_bias=False)])
    m.set_weights([W_WRONG if units == 2 else W_WRONG[:, :1]])
    m.compile(loss=loss, optimizer=keras.optimizers.SGD(1.0), run_eagerly=run_eagerly)
    # Keras 3.15: evaluate gives 60.0 (softmax) / 30.0 (sigmoid), clipping would give 16.118
    np.testing.assert_allclose(m.evaluate(X_EYE, y, verbose=0), 60.0 if units == 2 else 30.0, rtol=1e-6)
    m.fit(X_EYE, y, epochs=1, batch_size=2, verbose=0, shuffle=False)
    want = [29.5, -29.5, -29.5, 29.5] if units == 2 else [29.5, -29.5]  # Keras 3.15 after one SGD step
    np.testing.assert_allclose(m.get_weights()[0].ravel(), want, rtol=1e-6)


@pytest.mark.parametrize("run_eagerly", [True, False])
@pytest.mark.parametrize("last", ["activation", "softmax_layer"])
def test_activation_and_softmax_layers_give_their_logits_too(run_eagerly, last):
    out = layers.Activation("softmax") if last == "activation" else layers.Softmax()
    m = keras.Sequential([layers.Input((2,)), layers.Dense(2, use_bias=False), out])
    m.set_weights([W_WRONG])
    m.compile(loss="sparse_categorical_crossentropy", run_eagerly=run_eagerly)
    np.testing.assert_allclose(m.evaluate(X_EYE, Y_SPARSE, verbose=0), 60.0, rtol=1e-6)  # Keras 3.15


def test_standalone_losses_use_the_logits_of_keras_activations():
    z = tf.constant(W_WRONG)
    act = keras.activations
    np.testing.assert_allclose(
        keras.losses.sparse_categorical_crossentropy(Y_SPARSE, act.softmax(z)).numpy(), [60.0, 60.0]
    )
    onehot = np.eye(2, dtype=np.float32)[Y_SPARSE]
    np.testing.assert_allclose(keras.losses.categorical_crossentropy(onehot, act.softmax(z)).numpy(), [60.0, 60.0])
    y = np.array([[1.0], [0.0]], np.float32)
    zz = tf.constant([[-20.0], [20.0]])
    np.testing.assert_allclose(keras.losses.binary_crossentropy(y, act.sigmoid(zz)).numpy(), [20.0, 20.0])
    np.testing.assert_allclose(keras.metrics.BinaryCrossentropy()(y, act.sigmoid(zz)).numpy(), 20.0)
    # tf.nn.softmax outside a graph carries no logits (Keras 3.15: clipped, 16.118095)
    np.testing.assert_allclose(
        keras.losses.sparse_categorical_crossentropy(Y_SPARSE, tf.nn.softmax(z)).numpy(), [16.118095] * 2, rtol=1e-6
    )
    with pytest.warns(UserWarning, match="does not represent logits"):
        v = keras.losses.sparse_categorical_crossentropy(Y_SPARSE, act.softmax(z), from_logits=True)
    np.testing.assert_allclose(v.numpy(), [60.0, 60.0])


@pytest.mark.parametrize("in_function", [False, True])
def test_gradient_through_softmax_and_sigmoid_is_the_logits_gradient(in_function):
    act = keras.activations

    def grads(z, zz):
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(z)
            tape.watch(zz)
            a = keras.losses.SparseCategoricalCrossentropy()(Y_SPARSE, act.softmax(z))
            b = keras.losses.BinaryCrossentropy()(np.array([1.0, 0.0], np.float32), act.sigmoid(zz))
        return a, tape.gradient(a, z), b, tape.gradient(b, zz)

    fn = tf.function(grads) if in_function else grads
    a, ga, b, gb = fn(tf.constant(W_WRONG), tf.constant([[-20.0], [20.0]]))
    # Keras 3.15 (GradientTape): softmax(z) - onehot over a batch of 2; sigmoid(z) - y likewise
    np.testing.assert_allclose(a.numpy(), 60.0)
    np.testing.assert_allclose(ga.numpy(), [[0.5, -0.5], [-0.5, 0.5]], atol=1e-6)
    np.testing.assert_allclose(b.numpy(), 20.0)
    np.testing.assert_allclose(gb.numpy(), [[-0.5], [0.5]], atol=1e-6)


# --- train_on_batch / test_on_batch reset the metrics on every call ---------------------------------


@pytest.mark.parametrize("run_eagerly", [True, False])
def test_train_and_test_on_batch_report_the_batch_alone(run_eagerly):
    x = np.array([[1.0, 2.0], [-1.0, 0.5], [0.3, -2.0], [2.0, 1.0]], np.float32)
    y = np.array([0, 1, 2, 1])
    m = keras.Sequential([layers.Input((2,)), layers.Dense(3, activation="softmax", use_bias=False)])
    m.set_weights([np.array([[0.1, -0.2, 0.3], [0.4, 0.0, -0.1]], np.float32)])
    m.compile(
        optimizer=keras.optimizers.SGD(0.5),
        loss="sparse_categorical_crossentropy",
        metrics=["accuracy"],
        run_eagerly=run_eagerly,
    )
    got = [m.train_on_batch(x, y) for _ in range(3)]
    # Keras 3.15
    np.testing.assert_allclose(got, [[1.0065503, 0.75], [0.8103391, 0.75], [0.7260224, 0.5]], rtol=1e-5)
    np.testing.assert_allclose(m.test_on_batch(x[:2], y[:2]), [0.7629433, 0.5], rtol=1e-5)
    np.testing.assert_allclose(m.test_on_batch(x[2:], y[2:]), [0.6022118, 0.5], rtol=1e-5)
    logs = m.test_on_batch(x[2:], y[2:], return_dict=True)
    np.testing.assert_allclose([logs["loss"], logs["accuracy"]], [0.6022118, 0.5], rtol=1e-5)
    np.testing.assert_allclose(
        m.get_weights()[0],
        [[0.03843037, 0.01636651, 0.1452031], [0.56596655, 0.37065804, -0.6366247]],
        rtol=1e-5,
        atol=1e-6,
    )


# --- accuracies on 1-D inputs: one value per element, so a per-sample running mean -----------------


def test_accuracy_metrics_on_1d_inputs_average_per_sample():
    b = keras.metrics.BinaryAccuracy()
    b.update_state(np.ones(6, np.float32), np.full(6, 0.9, np.float32))  # 6/6
    b.update_state(np.ones(2, np.float32), np.full(2, 0.1, np.float32))  # 0/2
    np.testing.assert_allclose(b.result().numpy(), 0.75)  # Keras 3.15
    a = keras.metrics.Accuracy()
    a.update_state([1, 2, 3], [1, 2, 4])
    a.update_state([5], [5], sample_weight=[3.0])
    np.testing.assert_allclose(a.result().numpy(), 0.8333333134651184, rtol=1e-6)  # Keras 3.15: (2 + 3) / (3 + 3)
    b = keras.metrics.BinaryAccuracy()
    b.update_state(np.ones(6, np.float32), np.full(6, 0.9, np.float32), sample_weight=np.ones(6, np.float32))
    np.testing.assert_allclose(b.result().numpy(), 1.0)
    got = keras.metrics.binary_accuracy(np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([[0.7, 0.2], [0.6, 0.4]]))
    np.testing.assert_array_equal(got.numpy(), [[1.0, 1.0], [0.0, 0.0]])  # Keras 3.15: per element
    np.testing.assert_array_equal(keras.metrics.accuracy([1.0, 2.0, 3.0], [1.0, 0.0, 3.0]).numpy(), [1.0, 0.0, 1.0])


def test_binary_accuracy_accepts_threshold_zero():
    b = keras.metrics.BinaryAccuracy(threshold=0.0)
    np.testing.assert_allclose(b(np.array([[1.0], [0.0], [1.0]]), np.array([[2.0], [-3.0], [-0.5]])).numpy(), 2 / 3)


@pytest.mark.parametrize("run_eagerly", [True, False])
def test_evaluate_1d_outputs_with_accuracy_metrics(run_eagerly):
    x = np.array([[0.9], [0.8], [0.1], [0.9], [0.8], [0.1], [0.7]], np.float32)
    y = np.array([1, 1, 0, 0, 0, 1, 1], np.float32)  # batches of 3, 3, 1: 3/3, 0/3, 1/1 correct
    sw = np.array([1, 1, 1, 2, 2, 2, 1], np.float32)
    m = keras.Sequential([layers.Input((1,)), layers.Lambda(lambda t: t[:, 0])])  # 1-D predictions
    m.compile(
        loss="mse",
        metrics=["binary_accuracy", keras.metrics.BinaryAccuracy(name="ba")],
        weighted_metrics=["binary_accuracy"],
        run_eagerly=run_eagerly,
    )
    logs = m.evaluate(x, y, batch_size=3, verbose=0, return_dict=True)
    np.testing.assert_allclose([logs["binary_accuracy"], logs["ba"]], [4 / 7, 4 / 7], rtol=1e-6)  # Keras 3.15
    logs = m.evaluate(x, y, sample_weight=sw, batch_size=3, verbose=0, return_dict=True)
    np.testing.assert_allclose(logs["binary_accuracy"], 4 / 7, rtol=1e-6)
    np.testing.assert_allclose(logs["weighted_binary_accuracy"], 0.4, rtol=1e-6)  # (3 + 0 + 1) / (3 + 6 + 1)
    np.testing.assert_allclose(logs["loss"], 0.6671428680419922, rtol=1e-5)  # Keras 3.15


# --- AUC clips predictions to [0, 1] (evenly spread thresholds), as Keras buckets them --------------

AUC_Y = np.array([0, 1, 1, 0, 1, 0, 1, 1], np.float32)
AUC_P = np.array([-0.5, 1.5, 0.3, 2.0, 0.1, 0.2, 0.9, -1.0], np.float32)  # raw outputs, outside [0, 1]


def test_auc_clips_out_of_range_predictions():
    m = keras.metrics
    # Keras 3.15 (ROC: exactly the AUC of clip(p, 0, 1) = 8 / 15)
    np.testing.assert_allclose(m.AUC()(AUC_Y, AUC_P).numpy(), 0.5333333611488342, rtol=1e-5)
    np.testing.assert_allclose(m.AUC(curve="PR")(AUC_Y, AUC_P).numpy(), 0.6172101497650146, rtol=1e-5)
    np.testing.assert_allclose(m.AUC(num_thresholds=5)(AUC_Y, AUC_P).numpy(), 0.6, rtol=1e-5)
    np.testing.assert_allclose(m.AUC(thresholds=[0.25, 0.5, 0.75])(AUC_Y, AUC_P).numpy(), 0.6, rtol=1e-5)
    # thresholds not evenly spread: Keras compares without clipping
    np.testing.assert_allclose(m.AUC(thresholds=[0.2, 0.5, 0.7])(AUC_Y, AUC_P).numpy(), 0.23333334922790527, rtol=1e-5)


@pytest.mark.parametrize("run_eagerly", [True, False])
def test_auc_metric_in_evaluate_with_out_of_range_outputs(run_eagerly):
    model = keras.Sequential([layers.Input((1,)), layers.Dense(1, use_bias=False, kernel_initializer="ones")])
    model.compile(loss="mse", metrics=[keras.metrics.AUC(name="auc")], run_eagerly=run_eagerly)
    logs = model.evaluate(AUC_P[:, None], AUC_Y, verbose=0, batch_size=3, return_dict=True)
    np.testing.assert_allclose(logs["auc"], 0.5333333611488342, rtol=1e-5)  # Keras 3.15


# --- minor items, as Keras 3.15 on TensorFlow does them ---------------------------------------------


def test_merge_layers_broadcast_and_take_one_input():
    a, b = np.ones((2, 3), np.float32), np.full((2, 1), 2.0, np.float32)
    np.testing.assert_array_equal(layers.Add()([a, b]).numpy(), np.full((2, 3), 3.0))
    np.testing.assert_array_equal(layers.Add()([a, b, np.full((2, 3), 3.0, np.float32)]).numpy(), np.full((2, 3), 6.0))
    np.testing.assert_array_equal(layers.Average()([a, b]).numpy(), np.full((2, 3), 1.5))
    np.testing.assert_array_equal(layers.Subtract()([a, b]).numpy(), np.full((2, 3), -1.0))
    np.testing.assert_array_equal(layers.Add()([a]).numpy(), a)
    x, y = keras.Input((3,)), keras.Input((1,))
    m = keras.Model([x, y], layers.Add()([x, y]))
    assert m.output_shape == (None, 3)
    np.testing.assert_array_equal(m.predict([a, b], verbose=0), np.full((2, 3), 3.0))


def test_softmax_of_a_1d_tensor():
    want = [0.09003056585788727, 0.2447284758090973, 0.6652408838272095]  # Keras 3.15
    np.testing.assert_allclose(
        keras.activations.softmax(np.array([1.0, 2.0, 3.0], np.float32)).numpy(), want, rtol=1e-6
    )
    np.testing.assert_allclose(layers.Softmax()(np.array([1.0, 2.0, 3.0], np.float32)).numpy(), want, rtol=1e-6)


@pytest.mark.parametrize("in_function", [False, True])
def test_dropout_rate_one_drops_everything(in_function):
    d = layers.Dropout(1.0)
    x = tf.ones((2, 2))
    call = tf.function(lambda t: d(t, training=True)) if in_function else (lambda t: d(t, training=True))
    np.testing.assert_array_equal(call(x).numpy(), np.zeros((2, 2)))
    np.testing.assert_array_equal(d(x, training=False).numpy(), np.ones((2, 2)))


@pytest.mark.parametrize("in_function", [False, True])
def test_embedding_negative_ids_count_from_the_end(in_function):
    e = layers.Embedding(6, 2)
    e.build(None)
    e.set_weights([np.arange(12, dtype=np.float32).reshape(6, 2)])
    call = tf.function(lambda t: e(t)) if in_function else e
    got = call(tf.constant([[-1, 0, -6]])).numpy()
    np.testing.assert_array_equal(got, [[[10.0, 11.0], [0.0, 1.0], [0.0, 1.0]]])  # Keras 3.15 (TensorFlow backend)
