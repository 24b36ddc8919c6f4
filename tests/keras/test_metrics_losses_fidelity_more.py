"""Keras 3.15 behaviours of losses and metrics used on their own (outside ``fit``): the Keras mask
of ``y_pred``, what ``metrics.get`` returns, dtypes, reductions on edge-case weights and batches,
and the losses/metrics Keras 3 added. Expected values were computed with TF 2.21 / Keras 3.15."""

import numpy as np
import pytest

import tfunc as tf
from tfunc.keras import losses, metrics

keras = tf.keras

# Two sequences of three steps; the all-zero steps are masked out by ``Masking(0.0)``.
MASK_PRED = np.array([[[0.2, 0.8], [0.6, 0.4], [0.0, 0.0]], [[0.9, 0.1], [0.0, 0.0], [0.0, 0.0]]], "float32")
MASK_TRUE = np.array([[[0.0, 1.0], [0.0, 1.0], [1.0, 0.0]], [[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]]], "float32")


@pytest.mark.parametrize(
    "make, sparse, expected, expected_weighted",
    [
        # TF 2.21 gives these (unmasked means would be 0.4333 / 0.5 for MSE, 0.333 for accuracy).
        (metrics.MeanSquaredError, False, 0.13666667, 0.086),
        (metrics.CategoricalAccuracy, False, 0.66666667, 0.8),
        (metrics.SparseCategoricalAccuracy, True, 0.66666667, 0.8),
        (metrics.BinaryCrossentropy, False, 0.41493163, 0.29110318),
    ],
)
def test_mean_metric_wrapper_applies_the_keras_mask_of_y_pred(make, sparse, expected, expected_weighted):
    y_pred = keras.layers.Masking(0.0)(MASK_PRED)
    y_true = MASK_TRUE.argmax(-1) if sparse else MASK_TRUE
    m = make()
    m.update_state(y_true, y_pred)
    np.testing.assert_allclose(float(m.result()), expected, rtol=1e-5)
    m = make()
    m.update_state(y_true, y_pred, sample_weight=np.array([[1.0], [3.0]]))
    np.testing.assert_allclose(float(m.result()), expected_weighted, rtol=1e-5)


GET_TRUE = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]], "float32")
GET_PRED = np.array([[0.2, 0.7], [0.6, 0.1], [0.9, 0.4]], "float32")


@pytest.mark.parametrize(
    "name, cls, expected",
    [
        # TF 2.21 gives these scalars (tfunc gave the per-sample vector of the function).
        ("mse", metrics.MeanSquaredError, 0.11166667),
        ("mae", metrics.MeanAbsoluteError, 0.28333333),
        ("binary_accuracy", metrics.BinaryAccuracy, 0.83333333),
        ("accuracy", metrics.Accuracy, 0.0),
        ("categorical_crossentropy", metrics.CategoricalCrossentropy, 0.65061492),
    ],
)
def test_get_of_a_name_gives_a_metric_instance(name, cls, expected):
    m = metrics.get(name)
    assert type(m) is cls
    result = m(GET_TRUE, GET_PRED)
    assert result.shape == ()
    np.testing.assert_allclose(float(result), expected, rtol=1e-5)


@pytest.mark.parametrize(
    "make, expected",
    [
        # TF 2.21 gives these str dtypes (tfunc gave DType objects: "tf.float32" in an f-string).
        (lambda: metrics.Mean(), "float32"),
        (lambda: metrics.MeanIoU(3), "int64"),
        (lambda: metrics.AUC(dtype="float64"), "float64"),
        (lambda: metrics.Accuracy(dtype="bfloat16"), "bfloat16"),
    ],
)
def test_metric_dtype_is_a_str(make, expected):
    dtype = make().dtype
    assert type(dtype) is str and f"{dtype}" == expected


F64_TRUE = np.array([0, 1, 1, 0, 1], "float32")
F64_PRED = np.array([0.2, 0.6, 0.4, 0.7, 0.9], "float32")


@pytest.mark.parametrize(
    "make, expected",
    [
        # TF 2.21 gives these values as float32: Keras keeps the counts in floatx() whatever the dtype.
        (lambda: metrics.AUC(dtype="float64"), 0.66666667),
        (lambda: metrics.Precision(dtype="float64"), 0.66666667),
        (lambda: metrics.TruePositives(dtype="float64"), 2.0),
        (lambda: metrics.SpecificityAtSensitivity(0.5, dtype="float64"), 0.5),
        (lambda: metrics.R2Score(dtype="float64"), 0.11666667),
    ],
)
def test_confusion_and_r2_metrics_keep_float32_counts(make, expected):
    m = make()
    y_true, y_pred = (F64_TRUE[:, None], F64_PRED[:, None]) if isinstance(m, metrics.R2Score) else (F64_TRUE, F64_PRED)
    m.update_state(y_true, y_pred)
    result = m.result()
    assert result.dtype == tf.float32 and {v.dtype for v in m.variables} == {tf.float32}
    np.testing.assert_allclose(float(result), expected, rtol=1e-5)


def test_float64_label_weights_make_a_float64_auc():
    # TF 2.21 gives 1.0 as float64 (the label weights are in the metric's dtype).
    m = metrics.AUC(dtype="float64", multi_label=True, label_weights=[1.0, 2.0])
    m.update_state([[0, 1], [1, 1], [1, 0]], [[0.2, 0.6], [0.4, 0.7], [0.9, 0.3]])
    assert m.result().dtype == tf.float64 and float(m.result()) == 1.0


def test_add_variable_defaults_to_floatx_and_integer_means_divide_as_floats():
    class Counter(metrics.Metric):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.c = self.add_variable((), "zeros", name="c")

        def update_state(self, x):
            self.c.assign_add(np.float64(np.sum(x)))

        def result(self):
            return self.c.read_value()

    # TF 2.21: the variable is float32 though the metric's dtype is float64.
    c = Counter(dtype="float64")
    c.update_state([1.5, 2.0])
    assert c.c.dtype == tf.float32 and float(c.result()) == 3.5
    # TF 2.21 gives 2.3333333 (float32) for an int32 Mean, whose variables are int32.
    m = metrics.Mean(dtype="int32")
    m.update_state([1, 2, 4])
    assert [v.dtype for v in m.variables] == [tf.int32, tf.int32] and m.result().dtype == tf.float32
    np.testing.assert_allclose(float(m.result()), 7 / 3, rtol=1e-6)


def test_mean_with_sample_weight_divides_by_the_weights_as_given():
    loss = losses.MeanSquaredError(reduction="mean_with_sample_weight")
    # TF 2.21 gives 6.0: a (1,) weight broadcasts, the divisor is its sum (2), not 12 (was 1.0).
    assert float(loss(np.ones((2, 3, 2)), np.zeros((2, 3, 2)), sample_weight=np.array([2.0]))) == 6.0
    # TF 2.21 gives 0.15: a scalar loss (rank-1 labels) is returned as weighted, not divided (was 0.30).
    y_true, y_pred = np.array([0.0, 1, 1]), np.array([0.5, 0.2, 0.9])
    np.testing.assert_allclose(float(loss(y_true, y_pred, sample_weight=0.5)), 0.15, rtol=1e-5)
    np.testing.assert_allclose(float(loss(y_true, y_pred, sample_weight=np.array([0.5]))), 0.15, rtol=1e-5)


@pytest.mark.parametrize("reduction", ["sum_over_batch_size", "sum", "mean", "mean_with_sample_weight"])
@pytest.mark.parametrize("cls", [losses.MeanSquaredError, losses.CategoricalCrossentropy, losses.Huber])
def test_an_empty_batch_gives_an_empty_loss(cls, reduction):
    # TF 2.21 gives an empty (0,) tensor (Keras leaves (0,) losses unreduced); tfunc gave 0.0.
    out = cls(reduction=reduction)(np.zeros((0, 3), "float32"), np.full((0, 3), 0.5, "float32"))
    assert out.shape == (0,)
    # TF 2.21 still reduces (0, 2) per-timestep losses to 0.0.
    assert float(cls(reduction=reduction)(np.zeros((0, 2, 3), "float32"), np.zeros((0, 2, 3), "float32"))) == 0.0


class ScaledMean(metrics.Mean):
    """A custom metric with one config entry of its own."""

    def __init__(self, scale=1.0, **kwargs):
        super().__init__(**kwargs)
        self.scale = scale

    def get_config(self):
        return dict(super().get_config(), scale=self.scale)


def test_deserialize_takes_custom_objects_and_serialize_writes_keras_3_configs():
    # TF 2.21 returns the custom metric (tfunc raised TypeError on custom_objects).
    config = {"class_name": "ScaledMean", "config": {"scale": 2.0, "name": "x"}}
    m = metrics.deserialize(config, custom_objects={"ScaledMean": ScaledMean})
    assert type(m) is ScaledMean and m.name == "x" and m.scale == 2.0
    # TF 2.21 writes module, class_name, config and registered_name.
    written = metrics.serialize(metrics.AUC(name="a"))
    assert (written["module"], written["class_name"], written["registered_name"]) == ("keras.metrics", "AUC", None)
    assert type(metrics.deserialize(written)) is metrics.AUC
    assert type(metrics.deserialize("mse")) is metrics.MeanSquaredError


def test_sparse_categorical_crossentropy_takes_axis():
    y, p = np.array([0, 2, 1]), np.array([[0.7, 0.2, 0.1], [0.1, 0.3, 0.6], [0.3, 0.4, 0.3]], "float32")
    # TF 2.21 gives 0.5945971 for axis=1 (the last axis) and 2.6543049 summed, axis 4th positionally.
    loss = losses.SparseCategoricalCrossentropy(axis=1)
    np.testing.assert_allclose(float(loss(y, p)), 0.5945971, rtol=1e-6)
    np.testing.assert_allclose(float(losses.SparseCategoricalCrossentropy(True, None, "sum", 1)(y, p)), 2.6543049)
    assert "axis" not in loss.get_config()  # as TF 2.21's config


@pytest.mark.parametrize("reduction", ["auto", losses.Reduction.AUTO, "bogus"])
def test_losses_refuse_the_legacy_auto_reduction(reduction):
    # TF 2.21 raises "Invalid value for argument `reduction`" (tfunc computed 0.1667 for "auto").
    with pytest.raises(ValueError, match="Invalid value for argument `reduction`.*Received: reduction="):
        losses.MeanSquaredError(reduction=reduction)


def test_losses_default_to_sum_over_batch_size():
    # TF 2.21's default reduction and config.
    loss = losses.SparseCategoricalCrossentropy()
    assert loss.reduction == "sum_over_batch_size" and loss.get_config()["reduction"] == "sum_over_batch_size"


def _embeddings():
    rows = np.random.RandomState(0).randn(6, 4).astype("float32")
    return np.array([0, 1, 0, 2, 1, 0]), rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_circle_loss():
    labels, emb = _embeddings()
    # TF 2.21 gives these (the class was missing); a lone class (label 2) gives 0 and is masked out.
    np.testing.assert_allclose(float(losses.Circle()(labels, emb)), 106.95319, rtol=1e-5)
    np.testing.assert_allclose(float(losses.Circle(gamma=2.0, margin=0.25)(labels, emb)), 3.9872944, rtol=1e-5)
    summed = losses.Circle(gamma=2.0, remove_diagonal=False, reduction="sum")(labels, emb)
    np.testing.assert_allclose(float(summed), 21.746494, rtol=1e-5)
    np.testing.assert_allclose(
        losses.circle(labels, emb, gamma=2.0), [6.3844008, 1.617368, 3.227381, 0.0, 1.436446, 5.842926], rtol=1e-5
    )
    against = losses.circle(labels, emb, ref_labels=labels[:3], ref_embeddings=emb[:3], gamma=4.0)
    np.testing.assert_allclose(against, [0.689708, 0.0, 0.358113, 0.0, 0.66069, 9.342882], rtol=1e-5)
    weighted = losses.Circle(gamma=2.0)(labels, emb, sample_weight=np.arange(6.0))
    np.testing.assert_allclose(float(weighted), 8.606509, rtol=1e-5)
    assert losses.Circle().get_config() == {
        "name": "circle",
        "reduction": "sum_over_batch_size",
        "gamma": 80.0,
        "margin": 0.4,
        "remove_diagonal": True,
    }
    assert losses.get("circle") is losses.circle and type(losses.get("Circle")) is losses.Circle


@pytest.mark.parametrize(
    "kwargs, expected",
    [
        # TF 2.21 gives these (tfunc raised "Invalid AUC curve value").
        (dict(), 0.50555557),
        (dict(summation_method="minoring"), 0.43055552),
        (dict(summation_method="majoring"), 0.58055556),
        (dict(num_thresholds=7), 0.5333333),
    ],
)
def test_auc_of_the_precision_recall_gain_curve(kwargs, expected):
    m = metrics.AUC(curve="prgain", **kwargs)
    m.update_state([0, 1, 1, 0, 1, 0, 1, 1, 0, 0], [0.3, 0.6, 0.4, 0.7, 0.9, 0.2, 0.55, 0.35, 0.5, 0.1])
    np.testing.assert_allclose(float(m.result()), expected, rtol=1e-5)
    assert m.get_config()["curve"] == "PRGAIN"


def test_multi_label_prgain_auc():
    # TF 2.21 gives 0.25 for one label, 0.38055557 averaged over two.
    m = metrics.AUC(curve="PRGAIN")
    m.update_state([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    np.testing.assert_allclose(float(m.result()), 0.25, rtol=1e-6)
    rs = np.random.RandomState(0)
    rs.rand(40)  # (the draws of a sweep this case came from)
    y, p = (rs.rand(10, 2) > 0.5).astype("float32"), rs.rand(10, 2).astype("float32")
    m = metrics.AUC(curve="PRGAIN", multi_label=True)
    m.update_state(y, p)
    np.testing.assert_allclose(float(m.result()), 0.38055557, rtol=1e-5)


def test_stateless_metric_api_leaves_the_state_alone():
    m = metrics.MeanSquaredError()
    m.update_state([1.0, 2.0], [1.5, 2.5])
    # TF 2.21: [0, 0], then [1.6666666, 1.0] and result 1.6666666; the metric keeps 0.25 (total 0.25, count 1).
    state = m.stateless_reset_state()
    assert [float(v) for v in state] == [0.0, 0.0]
    state = m.stateless_update_state(state, [0.0, 1.0, 2.0], [1.0, 1.0, 4.0])
    np.testing.assert_allclose([float(v) for v in state], [1.6666666, 1.0], rtol=1e-6)
    np.testing.assert_allclose(float(m.stateless_result(state)), 1.6666666, rtol=1e-6)
    assert float(m.result()) == 0.25 and [float(v) for v in m.variables] == [0.25, 1.0]
    with pytest.raises(ValueError, match="corresponding 1:1 to MeanSquaredError"):
        m.stateless_result([1.0])


def _sym_data():
    rng = np.random.RandomState(0)
    yt = (rng.rand(6, 4) > 0.5).astype("float32")
    yp, sw = rng.rand(6, 4).astype("float32"), rng.rand(6).astype("float32")
    return yt, yp, sw, np.eye(4, dtype="float32")[rng.randint(0, 4, 6)], rng.randint(0, 4, 6).astype("int32")


def _unknown(a):
    return tf.TensorSpec([None] * a.ndim, a.dtype)


def test_losses_traced_with_unknown_dimensions():
    yt, yp, sw, onehot, _ = _sym_data()
    # TF 2.21 gives 0.59907645 (tfunc: "label_smoothing needs a static number of classes").
    cce = losses.CategoricalCrossentropy(label_smoothing=0.1)
    f = tf.function(
        lambda a, b, w: cce(a, b, sample_weight=w), input_signature=[_unknown(onehot), _unknown(yp), _unknown(sw)]
    )
    np.testing.assert_allclose(float(f(onehot, yp, sw)), 0.59907645, rtol=1e-5)
    # TF 2.21 gives 0.20313561 (tfunc squeezed the unknown weight axis and failed at run time).
    dice = losses.Dice()
    f = tf.function(
        lambda a, b, w: dice(a, b, sample_weight=w), input_signature=[_unknown(yt), _unknown(yp), _unknown(sw)]
    )
    np.testing.assert_allclose(float(f(yt, yp, sw)), 0.20313561, rtol=1e-5)


@pytest.mark.parametrize(
    "make, sparse, expected",
    [
        # TF 2.21 gives these (tfunc refused an unknown number of classes).
        (lambda: metrics.Precision(top_k=2), False, 0.6592319),
        (lambda: metrics.SparseTopKCategoricalAccuracy(k=2), True, 0.28313822),
    ],
)
def test_top_k_metrics_traced_with_unknown_dimensions(make, sparse, expected):
    yt, yp, sw, _, labels = _sym_data()
    y = labels if sparse else yt
    m = make()
    f = tf.function(
        lambda a, b, w: m.update_state(a, b, sample_weight=w), input_signature=[_unknown(y), _unknown(yp), _unknown(sw)]
    )
    f(y, yp, sw)
    f(y[:3], yp[:3], sw[:3])
    np.testing.assert_allclose(float(m.result()), expected, rtol=1e-5)


def test_metric_variables_are_named_and_pathed_as_keras_3():
    # TF 2.21: name 'true_positives', path 'myauc/true_positives' (tfunc gave 'myauc/true_positives:0', no path).
    m = metrics.AUC(name="myauc")
    assert (m.variables[0].name, m.variables[0].path) == ("true_positives", "myauc/true_positives")

    class Counter(metrics.Metric):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.c = self.add_variable((), "zeros", name="c")

    assert [(v.name, v.path) for v in Counter(name="my_metric").variables] == [("c", "my_metric/c")]
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse", metrics=["mae"])
    model.fit(np.ones((4, 3)), np.ones((4, 1)), verbose=0)
    assert [v.path for v in model.metrics_variables] == [
        "loss/total",
        "loss/count",
        "mean_absolute_error/total",
        "mean_absolute_error/count",
    ]
