"""keras.metrics against the values Keras documents for them (the examples in Keras 3's
docstrings), eagerly and inside tfunc.function."""

import numpy as np
import pytest
from sklearn import metrics as sk

import tfunc as tf
from tfunc.keras import metrics


def result(m):
    return np.asarray(m.result().numpy())


@pytest.mark.parametrize(
    "make, args, expected, weighted, expected_weighted",
    [
        (metrics.Mean, ([1, 3, 5, 7],), 4.0, [1, 1, 0, 0], 2.0),
        (metrics.Sum, ([1, 3, 5, 7],), 16.0, [1, 1, 0, 0], 4.0),
        (metrics.Accuracy, ([[1], [2], [3], [4]], [[0], [2], [3], [4]]), 0.75, [1, 1, 0, 0], 0.5),
        (metrics.BinaryAccuracy, ([[1], [1], [0], [0]], [[0.98], [1], [0], [0.6]]), 0.75, [1, 0, 0, 1], 0.5),
        (
            metrics.CategoricalAccuracy,
            ([[0, 0, 1], [0, 1, 0]], [[0.1, 0.9, 0.8], [0.05, 0.95, 0]]),
            0.5,
            [0.7, 0.3],
            0.3,
        ),
        (
            metrics.SparseCategoricalAccuracy,
            ([[2], [1]], [[0.1, 0.6, 0.3], [0.05, 0.95, 0]]),
            0.5,
            [0.7, 0.3],
            0.3,
        ),
        (
            lambda: metrics.TopKCategoricalAccuracy(k=1),
            ([[0, 0, 1], [0, 1, 0]], [[0.1, 0.9, 0.8], [0.05, 0.95, 0]]),
            0.5,
            [0.7, 0.3],
            0.3,
        ),
        (
            lambda: metrics.SparseTopKCategoricalAccuracy(k=1),
            ([2, 1], [[0.1, 0.9, 0.8], [0.05, 0.95, 0]]),
            0.5,
            [0.7, 0.3],
            0.3,
        ),
        (metrics.MeanSquaredError, ([[0, 1], [0, 0]], [[1, 1], [0, 0]]), 0.25, [1, 0], 0.5),
        (metrics.MeanAbsoluteError, ([[0, 1], [0, 0]], [[1, 1], [0, 0]]), 0.25, [1, 0], 0.5),
        (metrics.Precision, ([0, 1, 1, 1], [1, 0, 1, 1]), 2 / 3, [0, 0, 1, 0], 1.0),
        (metrics.Recall, ([0, 1, 1, 1], [1, 0, 1, 1]), 2 / 3, [0, 0, 1, 0], 1.0),
        (lambda: metrics.AUC(num_thresholds=3), ([0, 0, 1, 1], [0, 0.5, 0.3, 0.9]), 0.75, [1, 0, 0, 1], 1.0),
    ],
)
def test_documented_values_plain_and_weighted(make, args, expected, weighted, expected_weighted):
    m = make()
    m.update_state(*args)
    np.testing.assert_allclose(result(m), expected, rtol=1e-6)
    m.reset_state()
    m.update_state(*args, sample_weight=weighted)
    np.testing.assert_allclose(result(m), expected_weighted, rtol=1e-6)


def test_state_accumulates_until_reset_and_call_returns_the_result():
    m = metrics.Mean()
    assert float(m(2.0)) == 2.0
    assert float(m([4.0, 6.0])) == 4.0  # (2 + 4 + 6) / 3
    assert [(v.name, v.path) for v in m.variables] == [("total", "mean/total"), ("count", "mean/count")]  # Keras 3
    m.reset_state()
    assert float(m.result()) == 0.0  # no division by zero
    m.update_state([1.0, 2.0])
    m.reset_states()  # Keras 2's spelling
    assert float(m.result()) == 0.0


def test_mean_weighting_rules():
    m = metrics.Mean()
    m.update_state([[1.0, 3.0], [5.0, 7.0]], sample_weight=[1.0, 0.0])  # per-row weights: row means 2, 6
    np.testing.assert_allclose(result(m), 2.0)
    m = metrics.Mean()
    m.update_state(3.0, sample_weight=4)  # a scalar with a count, as the loss tracker uses it
    m.update_state(1.0, sample_weight=4)
    np.testing.assert_allclose(result(m), 2.0)
    np.testing.assert_allclose(m.count.numpy(), 8.0)


def test_metrics_update_inside_functions_and_reset_there():
    acc = metrics.SparseCategoricalAccuracy()
    loss = metrics.Mean(name="loss")

    @tf.function
    def step(y, p, value):
        acc.update_state(y, p)
        loss(value)
        return acc.result(), loss.result()

    @tf.function
    def reset():
        acc.reset_state()
        loss.reset_state()

    a, lo = step(tf.constant([0, 1]), tf.constant([[0.9, 0.1], [0.8, 0.2]]), tf.constant(2.0))
    assert float(a) == 0.5 and float(lo) == 2.0
    a, lo = step(tf.constant([1, 1]), tf.constant([[0.1, 0.9], [0.3, 0.7]]), tf.constant(4.0))
    assert float(a) == 0.75 and float(lo) == 3.0
    assert step.experimental_get_tracing_count() == 1
    reset()
    assert float(acc.result()) == 0.0 and float(loss.result()) == 0.0


def test_metric_created_inside_a_function_is_lifted_out():
    holder = {}

    @tf.function
    def f(x):
        if "m" not in holder:
            holder["m"] = metrics.Sum()
        holder["m"].update_state(x)
        return holder["m"].result()

    assert float(f(tf.constant([1.0, 2.0]))) == 3.0
    assert float(f(tf.constant([1.0, 2.0]))) == 6.0


def test_precision_recall_thresholds_top_k_and_class_id():
    m = metrics.Precision(thresholds=[0.2, 0.5, 0.8])
    m.update_state([1, 0, 1, 1], [0.3, 0.6, 0.9, 0.1])
    np.testing.assert_allclose(result(m), [2 / 3, 1 / 2, 1.0], rtol=1e-6)
    m = metrics.Precision(top_k=2)  # ties go to the lower indices, as tf.math.top_k picks them
    m.update_state([0, 0, 1, 1], [1, 1, 1, 1])
    assert float(m.result()) == 0.0
    m = metrics.Precision(top_k=4)
    m.update_state([0, 0, 1, 1], [1, 1, 1, 1])
    assert float(m.result()) == 0.5
    m = metrics.Recall(top_k=2)
    m.update_state([0, 0, 1, 1], [1, 1, 1, 1])
    assert float(m.result()) == 0.0
    m = metrics.Recall(class_id=2)
    m.update_state([[0, 0, 1], [0, 0, 1], [1, 0, 0]], [[0.1, 0.1, 0.8], [0.6, 0.3, 0.1], [0.2, 0.2, 0.7]])
    assert float(m.result()) == 0.5  # class 2: one of its two positives found
    with pytest.raises(ValueError, match=r"must be in \[0, 1\]"):
        metrics.Precision(thresholds=[1.5])


def test_auc_curves_and_summation_methods(rng):
    y = (rng.random(400) < 0.4).astype(np.float32)
    p = np.clip(y * 0.3 + rng.random(400) * 0.7, 0, 1).astype(np.float32)
    roc = metrics.AUC(num_thresholds=1000)
    roc.update_state(y, p)
    np.testing.assert_allclose(result(roc), sk.roc_auc_score(y, p), atol=2e-3)
    lo, mid, hi = (metrics.AUC(summation_method=s) for s in ("minoring", "interpolation", "majoring"))
    for m in (lo, mid, hi):
        m.update_state(y, p)
    assert result(lo) <= result(mid) <= result(hi)
    pr = metrics.AUC(curve="PR", num_thresholds=1000)
    pr.update_state(y, p)
    np.testing.assert_allclose(result(pr), sk.average_precision_score(y, p), atol=2e-3)
    logits = metrics.AUC(num_thresholds=1000, from_logits=True)
    logits.update_state(y, np.log(p + 1e-6) - np.log1p(-p + 1e-6))
    np.testing.assert_allclose(result(logits), result(roc), atol=2e-3)
    with pytest.raises(ValueError, match="Invalid AUC curve"):
        metrics.AUC(curve="XY")
    with pytest.raises(ValueError, match="num_thresholds"):
        metrics.AUC(num_thresholds=1)


def test_auc_multi_label_averages_the_labels():
    y = np.array([[0, 1], [0, 0], [1, 1], [1, 0]], np.float32)
    p = np.array([[0.1, 0.9], [0.4, 0.3], [0.8, 0.2], [0.7, 0.6]], np.float32)
    multi = metrics.AUC(num_thresholds=50, multi_label=True)
    multi.update_state(y, p)
    per_label = []
    for j in range(2):
        m = metrics.AUC(num_thresholds=50)
        m.update_state(y[:, j], p[:, j])
        per_label.append(float(m.result()))
    np.testing.assert_allclose(result(multi), np.mean(per_label), rtol=1e-5)
    weighted = metrics.AUC(num_thresholds=50, multi_label=True, label_weights=[3.0, 1.0])
    weighted.update_state(y, p)
    np.testing.assert_allclose(result(weighted), (3 * per_label[0] + per_label[1]) / 4, rtol=1e-5)


def test_names_get_and_directions():
    assert metrics.Mean().name == "mean"
    a, b = metrics.Precision(), metrics.Precision()
    assert a.name.startswith("precision") and a.name != b.name  # unique names, as Keras gives them
    assert isinstance(metrics.get("mse"), metrics.MeanSquaredError)  # Keras 3: a name gives an instance
    assert isinstance(metrics.get("auc"), metrics.AUC) and isinstance(metrics.get("AUC"), metrics.AUC)
    assert isinstance(metrics.get("SparseCategoricalAccuracy"), metrics.SparseCategoricalAccuracy)
    with pytest.raises(ValueError, match="Could not interpret metric identifier: nope"):
        metrics.get("nope")
    assert metrics.Accuracy()._direction == "up" and metrics.MeanSquaredError()._direction == "down"
    restored = metrics.deserialize(metrics.serialize(metrics.BinaryAccuracy(threshold=0.7, name="ba")))
    assert isinstance(restored, metrics.BinaryAccuracy) and restored.threshold == 0.7 and restored.name == "ba"
    assert metrics.BinaryAccuracy(threshold=1.0).threshold == 1.0  # Keras 3 accepts any threshold


def test_mean_metric_wrapper_of_a_function():
    m = metrics.MeanMetricWrapper(lambda yt, yp: tf.abs(yt - yp), name="abs_err")
    m.update_state(tf.constant([1.0, 2.0]), tf.constant([2.0, 4.0]))
    assert m.name == "abs_err" and float(m.result()) == 1.5
