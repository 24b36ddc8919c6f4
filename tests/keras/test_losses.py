"""tfunc.keras losses against NumPy."""

import numpy as np
import pytest

import tfunc as tf
from tfunc.keras import losses

EPS = 1e-7


def np_log_softmax(z):
    z = z - z.max(-1, keepdims=True)
    return z - np.log(np.exp(z).sum(-1, keepdims=True))


@pytest.fixture
def data(rng):
    logits = rng.standard_normal((6, 4)).astype(np.float32)
    probs = np.exp(np_log_softmax(logits.astype(np.float64))).astype(np.float32)
    labels = rng.integers(0, 4, size=6).astype(np.int32)
    onehot = np.eye(4, dtype=np.float32)[labels]
    return logits, probs, labels, onehot


def test_sparse_categorical_crossentropy(data):
    logits, probs, labels, _ = data
    per = -np_log_softmax(logits.astype(np.float64))[np.arange(6), labels]
    loss = losses.SparseCategoricalCrossentropy(from_logits=True)(labels, logits)
    assert loss.shape == () and loss.dtype is tf.float32
    np.testing.assert_allclose(loss.numpy(), per.mean(), rtol=1e-5)
    np.testing.assert_allclose(losses.SparseCategoricalCrossentropy()(labels, probs).numpy(), per.mean(), rtol=1e-5)
    # (batch, 1) labels, and float labels, as Keras accepts
    np.testing.assert_allclose(
        losses.SparseCategoricalCrossentropy(from_logits=True)(labels[:, None].astype(np.float32), logits).numpy(),
        per.mean(),
        rtol=1e-5,
    )
    np.testing.assert_allclose(
        losses.sparse_categorical_crossentropy(labels, logits, from_logits=True).numpy(), per, rtol=1e-5
    )


def test_categorical_crossentropy(data):
    logits, probs, _, onehot = data
    soft = np.abs(onehot + 0.25)
    soft /= soft.sum(-1, keepdims=True)
    per = -(soft * np_log_softmax(logits.astype(np.float64))).sum(-1)
    np.testing.assert_allclose(
        losses.CategoricalCrossentropy(from_logits=True)(soft, logits).numpy(), per.mean(), rtol=1e-5
    )
    unnormalized = probs * 3.0  # probabilities are rescaled to sum to one
    np.testing.assert_allclose(losses.CategoricalCrossentropy()(soft, unnormalized).numpy(), per.mean(), rtol=1e-5)
    smoothed = onehot * 0.9 + 0.1 / 4
    per_s = -(smoothed * np_log_softmax(logits.astype(np.float64))).sum(-1)
    np.testing.assert_allclose(
        losses.CategoricalCrossentropy(from_logits=True, label_smoothing=0.1)(onehot, logits).numpy(),
        per_s.mean(),
        rtol=1e-5,
    )
    # probabilities are clipped away from zero
    zero = np.array([[1.0, 0.0]], np.float32)
    np.testing.assert_allclose(losses.categorical_crossentropy([[0.0, 1.0]], zero).numpy(), [-np.log(EPS)], rtol=1e-4)


def test_mean_squared_error(rng):
    y_true = rng.standard_normal((5, 3)).astype(np.float32)
    y_pred = rng.standard_normal((5, 3)).astype(np.float32)
    per = ((y_pred - y_true) ** 2).mean(-1)
    np.testing.assert_allclose(losses.MeanSquaredError()(y_true, y_pred).numpy(), per.mean(), rtol=1e-5)
    np.testing.assert_allclose(losses.mean_squared_error(y_true, y_pred).numpy(), per, rtol=1e-5)
    assert losses.mse is losses.mean_squared_error and losses.get("mse") is losses.mean_squared_error
    np.testing.assert_allclose(
        losses.MeanAbsoluteError()(y_true, y_pred).numpy(), np.abs(y_pred - y_true).mean(), rtol=1e-5
    )


def test_binary_crossentropy(rng):
    y_true = (rng.random((4, 3)) > 0.5).astype(np.float32)
    logits = rng.standard_normal((4, 3)).astype(np.float32) * 3
    p = 1 / (1 + np.exp(-logits.astype(np.float64)))
    per_logits = (np.maximum(logits, 0) - logits * y_true + np.log1p(np.exp(-np.abs(logits)))).mean(-1)
    np.testing.assert_allclose(
        losses.BinaryCrossentropy(from_logits=True)(y_true, logits).numpy(), per_logits.mean(), rtol=1e-5
    )
    pc = np.clip(p, EPS, 1 - EPS)
    per_probs = -(y_true * np.log(pc) + (1 - y_true) * np.log(1 - pc)).mean(-1)  # Keras 3: no eps in the log
    np.testing.assert_allclose(
        losses.BinaryCrossentropy()(y_true, p.astype(np.float32)).numpy(), per_probs.mean(), rtol=1e-4
    )
    np.testing.assert_allclose(losses.binary_crossentropy(y_true, p.astype(np.float32)).numpy(), per_probs, rtol=1e-4)


def test_reductions_and_sample_weight(rng):
    y_true = rng.standard_normal((4, 3)).astype(np.float32)
    y_pred = rng.standard_normal((4, 3)).astype(np.float32)
    per = ((y_pred - y_true) ** 2).mean(-1)
    w = np.array([1.0, 0.0, 2.0, 0.5], np.float32)
    np.testing.assert_allclose(
        losses.MeanSquaredError()(y_true, y_pred, sample_weight=w).numpy(), (per * w).sum() / 4, rtol=1e-5
    )
    np.testing.assert_allclose(
        losses.MeanSquaredError()(y_true, y_pred, sample_weight=w[:, None]).numpy(), (per * w).sum() / 4, rtol=1e-5
    )
    np.testing.assert_allclose(losses.MeanSquaredError(reduction="sum")(y_true, y_pred).numpy(), per.sum(), rtol=1e-5)
    np.testing.assert_allclose(losses.MeanSquaredError(reduction="none")(y_true, y_pred).numpy(), per, rtol=1e-5)
    with pytest.raises(ValueError, match="Invalid value for argument `reduction`"):
        losses.MeanSquaredError(reduction="average")


def test_losses_inside_a_function(data):
    logits, _, labels, _ = data
    loss_obj = losses.SparseCategoricalCrossentropy(from_logits=True)

    @tf.function
    def f(y, z):
        return loss_obj(y, z)

    expected = loss_obj(labels, logits).numpy()
    for _ in range(2):
        np.testing.assert_allclose(f(tf.constant(labels), tf.constant(logits)).numpy(), expected, rtol=1e-6)
