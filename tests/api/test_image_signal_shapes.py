"""image.sobel_edges/ssim inside tf.function with several unknown dimensions, static shapes
of signal.frame/overlap_and_add/stft/inverse_stft/fftshift and tf.roll with a tensor shift
(TensorFlow keeps them), and signal.vorbis_window(0) (empty).  Expected values from NumPy
formulas or recorded from TF 2.21."""

import numpy as np

import tfunc as tf

RNG = np.random.default_rng(141)


def _sobel_ref(x):
    """Sobel responses (vertical, horizontal) of reflect-padded NHWC images."""
    p = np.pad(x.astype(np.float64), [(0, 0), (1, 1), (1, 1), (0, 0)], mode="reflect")
    ky = np.array([[-1, -2, -1], [0, 0, 0], [1, 2, 1]])
    h, w = x.shape[1:3]
    out = np.zeros(x.shape + (2,))
    for k, kern in enumerate((ky, ky.T)):
        for i in range(3):
            for j in range(3):
                out[..., k] += kern[i, j] * p[:, i : i + h, j : j + w]
    return out


def test_sobel_edges_with_unknown_batch_height_and_width():
    x = RNG.standard_normal((2, 7, 6, 3)).astype(np.float32)
    fn = tf.function(tf.image.sobel_edges, input_signature=[tf.TensorSpec([None, None, None, 3])])
    for got in (tf.image.sobel_edges(x), fn(x)):
        np.testing.assert_allclose(np.asarray(got), _sobel_ref(x), rtol=1e-5, atol=1e-5)


def test_ssim_with_several_unknown_leading_dimensions():
    i = np.arange(2 * 2 * 12 * 12, dtype=np.float32).reshape(2, 2, 12, 12, 1)
    a, b = (np.sin(i * 0.37) + 1) / 2, (np.cos(i * 0.23) + 1) / 2
    want = [[0.18444204, 0.08071349], [-0.17268212, -0.08394853]]  # TF 2.21
    spec = tf.TensorSpec([None, None, 12, 12, 1])
    fn = tf.function(lambda a, b: tf.image.ssim(a, b, 1.0), input_signature=[spec, spec])
    for got in (tf.image.ssim(a, b, 1.0), fn(a, b)):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-6)


def test_signal_shapes_stay_static_inside_a_function():
    x = RNG.standard_normal((2, 11)).astype(np.float32)
    c = (RNG.standard_normal((2, 4, 3)) + 1j * RNG.standard_normal((2, 4, 3))).astype(np.complex64)
    shapes = {}

    @tf.function
    def f(x, c):
        outs = {
            "frame": tf.signal.frame(x, 4, 3),
            "frame_pad_end": tf.signal.frame(x, 4, 3, pad_end=True),
            "ola": tf.signal.overlap_and_add(tf.reshape(x[:, :10], [2, 5, 2]), 1),
            "stft": tf.signal.stft(x, 4, 2),
            "istft": tf.signal.inverse_stft(c, 4, 2),
            "fftshift": tf.signal.fftshift(x),
            "roll": tf.roll(x, tf.shape(x)[1] // 2, 1),
        }
        shapes.update({k: tuple(v.shape.as_list()) for k, v in outs.items()})
        return outs

    got = {k: np.asarray(v) for k, v in f(x, c).items()}
    want_shapes = {  # TF 2.21 inside tf.function
        "frame": (2, 3, 4),
        "frame_pad_end": (2, 4, 4),
        "ola": (2, 6),
        "stft": (2, 4, 3),
        "istft": (2, 10),
        "fftshift": (2, 11),
        "roll": (2, 11),
    }
    assert shapes == want_shapes
    starts = np.arange(3)[:, None] * 3 + np.arange(4)
    np.testing.assert_array_equal(got["frame"], x[:, starts])
    padded = np.concatenate([x, np.zeros((2, 2), np.float32)], 1)  # 4 frames: 2 pad samples
    np.testing.assert_array_equal(got["frame_pad_end"], padded[:, np.arange(4)[:, None] * 3 + np.arange(4)])
    pieces = x[:, :10].reshape(2, 5, 2)
    ola = np.zeros((2, 6))
    for k in range(5):
        ola[:, k : k + 2] += pieces[:, k]
    np.testing.assert_allclose(got["ola"], ola, rtol=1e-6, atol=1e-6)
    hann = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(4) / 4)
    frames = x[:, np.arange(4)[:, None] * 2 + np.arange(4)]
    np.testing.assert_allclose(got["stft"], np.fft.rfft(frames * hann, 4), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got["fftshift"], np.fft.fftshift(x, axes=(0, 1)), rtol=0, atol=0)
    np.testing.assert_array_equal(got["roll"], np.roll(x, 5, 1))
    istft_frames = np.fft.irfft(c, 4) * hann
    istft = np.zeros((2, 10))
    for k in range(4):
        istft[:, 2 * k : 2 * k + 4] += istft_frames[:, k]
    np.testing.assert_allclose(got["istft"], istft, rtol=1e-5, atol=1e-5)


def test_frame_and_roll_with_an_unknown_length_still_work():
    x = RNG.standard_normal((2, 11)).astype(np.float32)
    fn = tf.function(lambda x: (tf.signal.frame(x, 4, 3), tf.roll(x, 3, 1)), input_signature=[tf.TensorSpec([2, None])])
    frames, rolled = fn(x)
    np.testing.assert_array_equal(np.asarray(frames), x[:, np.arange(3)[:, None] * 3 + np.arange(4)])
    np.testing.assert_array_equal(np.asarray(rolled), np.roll(x, 3, 1))


def test_vorbis_window_of_length_zero_is_empty():
    for got in (tf.signal.vorbis_window(0), tf.function(lambda: tf.signal.vorbis_window(0))()):
        assert got.shape == (0,) and got.dtype == tf.float32  # TF 2.21
