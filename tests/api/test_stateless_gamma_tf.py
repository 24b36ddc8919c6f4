"""tf.random.stateless_gamma draws TensorFlow's values (its CPU kernel on the Philox stream of
the seed), and so keras.random.gamma / beta and the seeded MixUp layer give Keras's values on
TensorFlow.  Every expected value is TensorFlow 2.21's (Keras 3.15's)."""

import numpy as np

import tfunc as tf
from tfunc import keras


def test_alphas_of_every_branch_draw_tensorflows_values():
    # alpha < 1 (boosted), 1 (exponential), > 1 and large, one column each; TF 2.21 gives:
    expected = [
        [4.585895396758133e-08, 0.047589920461177826, 0.017336418852210045, 2.4022045135498047, 110.75133514404297],
        [0.018210699781775475, 0.1735631376504898, 1.8682763576507568, 1.881827712059021, 98.53627014160156],
        [3.172817741869949e-06, 0.8720741271972656, 0.15429717302322388, 0.8529594540596008, 106.75878143310547],
    ]
    got = tf.random.stateless_gamma([3, 5], seed=[1, 2], alpha=[0.1, 0.5, 1.0, 2.5, 100.0])
    np.testing.assert_array_equal(got.numpy(), np.array(expected, np.float32))


def test_float16_rounds_through_float32():
    alpha = tf.constant([0.3, 1.0, 2.0, 7.0], tf.float16)
    got = tf.random.stateless_gamma([4], seed=[3, 4], alpha=alpha, dtype=tf.float16)
    # TF 2.21 gives:
    np.testing.assert_array_equal(
        got.numpy(), np.array([0.0039825439453125, 1.0419921875, 2.65234375, 3.73046875], np.float16)
    )


def test_float64_matches_to_the_last_bits():
    alpha = tf.constant([0.4, 1.0, 3.0], tf.float64)
    got = tf.random.stateless_gamma([2, 3], seed=[5, 6], alpha=alpha, dtype=tf.float64)
    # TF 2.21 gives (NumPy's log is not glibc's: a last bit may differ):
    expected = [
        [0.009885687165412627, 0.1480269057703089, 9.179442754975799],
        [0.0005686986879579487, 0.7958900218129621, 2.658415838083914],
    ]
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-15, atol=0)


def test_alpha_grid_and_beta_broadcast_against_the_shape():
    seed = tf.constant([7, -3], tf.int64)
    got = tf.random.stateless_gamma(
        [2, 2, 3], seed=seed, alpha=[[0.3, 1.5, 9.0], [0.9, 1.0, 40.0]], beta=[2.0, 0.5, 1.0]
    )
    # TF 2.21 gives:
    expected = [
        [
            [0.44917717576026917, 1.4514036178588867, 11.709613800048828],
            [0.15044145286083221, 0.5669248700141907, 38.8604621887207],
        ],
        [
            [0.40367284417152405, 1.1884833574295044, 7.909938335418701],
            [0.0010821890318766236, 2.582305669784546, 37.821109771728516],
        ],
    ]
    np.testing.assert_array_equal(got.numpy(), np.array(expected, np.float32))


def test_zero_negative_and_nan_alphas():
    got = tf.random.stateless_gamma([4], seed=[2, 3], alpha=[0.0, -0.5, float("nan"), 1e-3])
    # TF 2.21 gives (0 and underflows clipped to the smallest normal float32):
    expected = np.array([1.1754943508222875e-38, 0.24921588599681854, np.nan, 1.1754943508222875e-38], np.float32)
    np.testing.assert_array_equal(got.numpy(), expected)


def test_keras_gamma_and_beta_draw_keras_values():
    # Keras 3.15 on TF 2.21 gives:
    gamma = [
        [0.049564652144908905, 1.1131913661956787, 0.034907467663288116],
        [0.4026792347431183, 0.12826892733573914, 0.06465672701597214],
    ]
    beta = [
        [0.07105804979801178, 0.028142286464571953, 0.40794846415519714],
        [1.3391634468007396e-08, 0.37034377455711365, 0.8016555905342102],
    ]
    np.testing.assert_array_equal(
        np.asarray(keras.random.gamma((2, 3), alpha=0.7, seed=5)), np.array(gamma, np.float32)
    )
    got = keras.random.beta((2, 3), alpha=[0.2, 1.0, 3.0], beta=1.5, seed=9)
    np.testing.assert_array_equal(np.asarray(got), np.array(beta, np.float32))


def test_seeded_mixup_mixes_as_keras():
    images = np.arange(16, dtype="float32").reshape(4, 2, 2, 1)
    labels = np.eye(2, dtype="float32")[[0, 1, 1, 0]]
    out = keras.layers.MixUp(alpha=0.2, seed=4)({"images": images, "labels": labels}, training=True)
    # Keras 3.15 on TF 2.21 gives:
    expected = [
        [0.5121713280677795, 0.48782867193222046],
        [0.0, 1.0],
        [5.59687614440918e-05, 0.9999440312385559],
        [0.01857253536581993, 0.9814274907112122],
    ]
    np.testing.assert_array_equal(np.asarray(out["labels"]), np.array(expected, np.float32))
