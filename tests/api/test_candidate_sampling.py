"""tf.random's candidate samplers (distributions, expected counts, seeds), tf.nn's
compute_accidental_hits, nce_loss and sampled_softmax_loss: the losses and their gradients
against TensorFlow 2.21's values for the same sampled_values, eagerly and inside tf.function.

The TensorFlow values live in candidate_sampling_tf_values.npz, written when this module is run with
TensorFlow 2.21 installed, from the repository root: ``PYTHONPATH=. python -m
tests.api.test_candidate_sampling``."""

from pathlib import Path

import numpy as np
import pytest

import tfunc as tf
from tfunc.errors import InvalidArgumentError

VALUES = Path(__file__).with_name("candidate_sampling_tf_values.npz")

RNG = np.random.default_rng(11)
W = RNG.normal(size=(20, 4)).astype(np.float32)
B = RNG.normal(size=20).astype(np.float32)
X = RNG.normal(size=(3, 4)).astype(np.float32)
LABELS = np.array([[2, 5], [7, 7], [1, 9]], np.int64)  # a repeated true class in row 1
SAMPLED = (
    np.array([5, 0, 13, 7, 3], np.int64),
    np.array([[0.3, 0.2], [0.1, 0.1], [0.5, 0.25]], np.float32),
    np.array([0.2, 0.6, 0.05, 0.1, 0.3], np.float32),
)
HITS_CASES = [
    (LABELS, SAMPLED[0]),
    (np.array([[4, 4, 1]], np.int64), np.array([4, 2, 4, 1], np.int64)),  # a class sampled twice: its last position
    (np.zeros((0, 2), np.int64), np.array([1, 2], np.int64)),
]


def _loss(tfm, fn, remove_accidental_hits):
    w, b, x = tfm.constant(W), tfm.constant(B), tfm.constant(X)
    with tfm.GradientTape() as tape:
        tape.watch([w, b, x])
        loss = getattr(tfm.nn, fn)(
            w, b, LABELS, x, 5, 20, num_true=2, sampled_values=SAMPLED, remove_accidental_hits=remove_accidental_hits
        )
    return [loss] + [tfm.convert_to_tensor(g) for g in tape.gradient(loss, [w, b, x])]


def _make_values():
    import tensorflow as tft  # noqa: PLC0415 (only the value generator needs TensorFlow)

    out = {}
    for fn in ("nce_loss", "sampled_softmax_loss"):
        for hits in (False, True):
            for k, v in zip("lwbx", _loss(tft, fn, hits)):
                out[f"{fn}/{hits}/{k}"] = v.numpy()
    for i, (true, sampled) in enumerate(HITS_CASES):
        for k, v in zip(("indices", "ids", "weights"), tft.nn.compute_accidental_hits(true, sampled, true.shape[1])):
            out[f"hits/{i}/{k}"] = v.numpy()
    np.savez(VALUES, **out)


@pytest.fixture(scope="module")
def values():
    return np.load(VALUES)


@pytest.mark.parametrize("fn", ["nce_loss", "sampled_softmax_loss"])
@pytest.mark.parametrize("hits", [False, True])
def test_sampled_losses_match_tensorflow(values, fn, hits):
    for got in (_loss(tf, fn, hits), tf.function(lambda: _loss(tf, fn, hits))()):
        for k, v in zip("lwbx", got):
            np.testing.assert_allclose(v.numpy(), values[f"{fn}/{hits}/{k}"], rtol=1e-5, atol=1e-6, err_msg=k)


@pytest.mark.parametrize("i", range(len(HITS_CASES)))
def test_compute_accidental_hits(values, i):
    true, sampled = HITS_CASES[i]
    fn = lambda: tf.nn.compute_accidental_hits(true, sampled, true.shape[1])  # noqa: E731
    for got in (fn(), tf.function(fn)()):
        for k, v in zip(("indices", "ids", "weights"), got):
            assert v.dtype == tf.as_dtype(values[f"hits/{i}/{k}"].dtype)
            np.testing.assert_array_equal(v.numpy(), values[f"hits/{i}/{k}"])


def test_sampled_losses_draw_their_own_candidates():
    tf.random.set_seed(3)
    first = tf.nn.sampled_softmax_loss(W, B, LABELS, X, 6, 20, num_true=2, seed=1)
    tf.random.set_seed(3)
    again = tf.nn.sampled_softmax_loss(W, B, LABELS, X, 6, 20, num_true=2, seed=1)
    np.testing.assert_array_equal(first.numpy(), again.numpy())
    nce = tf.function(lambda: tf.nn.nce_loss(W, B, LABELS, X, 6, 20, num_true=2))()
    assert nce.shape == (3,) and np.isfinite(nce.numpy()).all()


def _probabilities(kind, n, unigrams=None, distortion=1.0, reserved=0):
    c = np.arange(n, dtype=np.float64)
    if kind == "uniform":
        return np.full(n, 1 / n)
    if kind == "log_uniform":
        return np.log((c + 2) / (c + 1)) / np.log(n + 1)
    p = np.zeros(n)
    p[reserved:] = np.asarray(unigrams, np.float64) ** distortion
    return p / p.sum()


UNIGRAMS = [5.0, 1.0, 3.0, 0.5, 2.0, 8.0, 1.0, 4.0]


def _sampler(kind, true, num_sampled, unique, seed=None):
    if kind == "fixed_unigram":
        return tf.random.fixed_unigram_candidate_sampler(
            true, 1, num_sampled, unique, 10, distortion=0.5, num_reserved_ids=2, unigrams=UNIGRAMS, seed=seed
        )
    return getattr(tf.random, f"{kind}_candidate_sampler")(true, 1, num_sampled, unique, 10, seed=seed)


@pytest.mark.parametrize("kind", ["uniform", "log_uniform", "fixed_unigram"])
def test_candidate_sampler_distribution_and_expected_counts(kind):
    p = _probabilities(kind, 10, UNIGRAMS, 0.5, 2)
    true = tf.constant([[0], [3], [9]], tf.int64)
    n = 40000
    sampled, true_count, sampled_count = _sampler(kind, true, n, False, seed=2)
    freq = np.bincount(sampled.numpy(), minlength=10) / n
    assert np.all(np.abs(freq - p) <= 5 * np.sqrt(p * (1 - p) / n) + 1e-12), (freq, p)
    # without unique: expected count = num_sampled * p
    np.testing.assert_allclose(true_count.numpy()[:, 0], n * p[[0, 3, 9]], rtol=1e-5)
    np.testing.assert_allclose(sampled_count.numpy()[:5], n * p[sampled.numpy()[:5]], rtol=1e-5)
    # with unique: distinct classes, expected counts 1 - (1 - p)^tries for one number of tries
    sampled, true_count, sampled_count = tf.function(lambda: _sampler(kind, true, 5, True, seed=4))()
    s = sampled.numpy()
    assert len(set(s.tolist())) == 5 and p[s].min() > 0
    tries = np.log1p(-sampled_count.numpy()[0]) / np.log1p(-p[s[0]])
    assert tries >= 5
    np.testing.assert_allclose(sampled_count.numpy(), -np.expm1(tries * np.log1p(-p[s])), rtol=1e-4)
    np.testing.assert_allclose(true_count.numpy()[:, 0], -np.expm1(tries * np.log1p(-p[[0, 3, 9]])), rtol=1e-4)


def test_candidate_samplers_follow_the_seeds_and_check_their_arguments():
    true = tf.constant([[1]], tf.int64)
    tf.random.set_seed(7)
    a = tf.random.log_uniform_candidate_sampler(true, 1, 6, True, 50, seed=3)[0].numpy()
    tf.random.set_seed(7)
    b = tf.random.log_uniform_candidate_sampler(true, 1, 6, True, 50, seed=3)[0].numpy()
    np.testing.assert_array_equal(a, b)
    sampled = tf.random.uniform_candidate_sampler(true, 1, 10, True, 10)[0].numpy()
    assert sorted(sampled.tolist()) == list(range(10))  # every class, once
    with pytest.raises(InvalidArgumentError, match="range is too small"):
        tf.random.uniform_candidate_sampler(true, 1, 11, True, 10)
    with pytest.raises(TypeError, match="int64"):
        tf.random.uniform_candidate_sampler(tf.constant([[1]]), 1, 2, True, 10)
    with pytest.raises(ValueError, match="vocab_file"):
        tf.random.fixed_unigram_candidate_sampler(true, 1, 2, True, 3, vocab_file="v.txt")
    with pytest.raises(ValueError, match="num_shards"):
        tf.random.fixed_unigram_candidate_sampler(true, 1, 2, True, 3, unigrams=[1, 2, 3], num_shards=2)


if __name__ == "__main__":
    _make_values()
