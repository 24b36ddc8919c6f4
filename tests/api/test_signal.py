"""``tf.signal``, eagerly and inside ``tf.function``, against NumPy's FFT, loops written from
the definitions, and values TensorFlow 2.21 printed for the same calls (``TF_*`` below).
The op table checks the fft/rfft/irfft ops themselves (odd lengths, empty inputs, both
precisions) eager vs traced vs optimized vs NumPy."""

import numpy as np
import pytest

import tfunc as tf

rng = np.random.RandomState(7)
TOL = dict(rtol=1e-4, atol=1e-4)


def both(fn, *args):
    """``fn(*args)`` eagerly and in a tf.function, which must agree; returns the eager value."""
    args = [tf.constant(a) for a in args]
    eager = fn(*args)
    traced = tf.function(fn)(*args)
    assert eager.dtype == traced.dtype and eager.shape == traced.shape
    np.testing.assert_allclose(eager.numpy(), traced.numpy(), rtol=1e-5, atol=1e-6)
    return eager


@pytest.mark.parametrize("rank", [1, 2, 3])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_transforms_are_numpys_and_keep_precision(rank, dtype):
    x = (rng.randn(2, 3, 4, 5) + 1j * rng.randn(2, 3, 4, 5)).astype(dtype)
    suffix = "" if rank == 1 else f"{rank}d"
    axes = tuple(range(-rank, 0))
    out = both(getattr(tf.signal, "fft" + suffix), x)
    assert out.dtype == tf.as_dtype(dtype)
    np.testing.assert_allclose(out.numpy(), np.fft.fftn(x, axes=axes), **TOL)
    back = both(getattr(tf.signal, "ifft" + suffix), out.numpy())
    np.testing.assert_allclose(back.numpy(), x, **TOL)


@pytest.mark.parametrize("fft_length", [None, [6], [17]])
def test_rfft_pads_or_crops_to_fft_length(fft_length):
    x = rng.randn(3, 10).astype(np.float32)
    out = both(lambda v: tf.signal.rfft(v, fft_length), x)
    n = 10 if fft_length is None else fft_length[0]
    assert out.dtype == tf.complex64 and out.shape == (3, n // 2 + 1)
    np.testing.assert_allclose(out.numpy(), np.fft.rfft(x, n), **TOL)
    assert tf.signal.rfft(tf.constant(x, tf.float64)).dtype == tf.complex128


@pytest.mark.parametrize("n", [None, 7, 20])
def test_irfft_reads_the_first_half_of_the_last_axis(n):
    c = (rng.randn(3, 6) + 1j * rng.randn(3, 6)).astype(np.complex64)
    out = both(lambda v: tf.signal.irfft(v, None if n is None else [n]), c)
    assert out.dtype == tf.float32 and out.shape == (3, 10 if n is None else n)
    np.testing.assert_allclose(out.numpy(), np.fft.irfft(c, n), **TOL)


def test_two_and_three_dimensional_real_transforms():
    x = rng.randn(2, 4, 6, 5).astype(np.float32)
    np.testing.assert_allclose(
        both(lambda v: tf.signal.rfft2d(v, [3, 8]), x).numpy(), np.fft.rfftn(x, s=[3, 8], axes=(-2, -1)), **TOL
    )
    spectrum = np.fft.rfftn(x, axes=(-3, -2, -1)).astype(np.complex64)
    np.testing.assert_allclose(both(tf.signal.rfft3d, x).numpy(), spectrum, **TOL)
    np.testing.assert_allclose(both(lambda v: tf.signal.irfft3d(v, [4, 6, 5]), spectrum).numpy(), x, **TOL)


def test_transform_inputs_are_checked():
    with pytest.raises(ValueError, match="RFFT requires tf.float32 or tf.float64"):
        tf.signal.rfft(tf.constant([1, 2, 3]))
    with pytest.raises(Exception, match="complex"):
        tf.signal.fft(tf.constant([1.0, 2.0]))
    with pytest.raises(ValueError, match="rank 1"):
        tf.signal.rfft(tf.constant(1.0))
    with pytest.raises(ValueError, match="fft_length must have 2"):
        tf.signal.rfft2d(tf.ones([3, 3]), [3])


def test_fftshift_rolls_half_the_axis():
    np.testing.assert_array_equal(tf.signal.fftshift(tf.range(5)).numpy(), [3, 4, 0, 1, 2])
    np.testing.assert_array_equal(tf.signal.ifftshift(tf.range(5)).numpy(), [2, 3, 4, 0, 1])
    x = rng.randn(4, 6, 5).astype(np.float32)
    np.testing.assert_array_equal(both(lambda v: tf.signal.fftshift(v, axes=[0, 2]), x), np.fft.fftshift(x, (0, 2)))


def _frames(x, length, step):  # from the definition, along the last axis
    count = max(0, 1 + (x.shape[-1] - length) // step)
    return np.stack([x[..., f * step : f * step + length] for f in range(count)], -2) if count else None


@pytest.mark.parametrize("length,step", [(8, 4), (7, 2), (5, 5), (3, 4)])
def test_frame_and_pad_end(length, step):
    x = rng.randn(2, 37).astype(np.float32)
    np.testing.assert_array_equal(both(lambda v: tf.signal.frame(v, length, step), x), _frames(x, length, step))
    padded = both(lambda v: tf.signal.frame(v, length, step, pad_end=True, pad_value=2.5), x)
    count = -(-37 // step)
    tail = np.full((2, (count - 1) * step + length - 37), 2.5, np.float32)
    np.testing.assert_array_equal(padded, _frames(np.concatenate([x, tail], -1), length, step))


def test_frame_of_a_short_signal_is_empty_and_axis_moves_frames_inside():
    assert tf.signal.frame(tf.range(3.0), 4, 3).shape == (0, 4)
    x = rng.randn(2, 9, 3).astype(np.float32)
    out = both(lambda v: tf.signal.frame(v, 3, 2, axis=1), x)
    expected = np.moveaxis(_frames(np.moveaxis(x, 1, -1), 3, 2), (-2, -1), (1, 2))
    np.testing.assert_array_equal(out, expected)


def test_frame_of_a_run_time_length_has_static_frame_length():
    seen = []

    @tf.function(input_signature=[tf.TensorSpec([None])])
    def f(x):
        out = tf.signal.frame(x, 4, 2)
        seen.append(out.shape.as_list())
        return out

    np.testing.assert_array_equal(f(tf.range(9.0)), _frames(np.arange(9.0, dtype=np.float32), 4, 2))
    assert seen == [[None, 4]]


@pytest.mark.parametrize("shape,step", [((5, 7), 3), ((2, 3, 5, 6), 4), ((4, 3), 5), ((0, 4), 2)])
def test_overlap_and_add_sums_shifted_frames(shape, step):
    x = rng.randn(*shape).astype(np.float32)
    frames, length = shape[-2:]
    expected = np.zeros(shape[:-2] + (max(0, (frames - 1) * step + length),), np.float32)
    for f in range(frames):
        expected[..., f * step : f * step + length] += x[..., f, :]
    np.testing.assert_allclose(both(lambda v: tf.signal.overlap_and_add(v, step), x), expected, **TOL)


def test_overlap_and_add_with_frames_known_only_at_run_time():
    @tf.function(input_signature=[tf.TensorSpec([None, 4])])
    def f(x):
        return tf.signal.overlap_and_add(x, 2)

    np.testing.assert_array_equal(f(tf.ones([3, 4])), [1, 1, 2, 2, 2, 2, 1, 1])  # TF's value


@pytest.mark.parametrize("n", [0, 1, 2, 5, 8])
@pytest.mark.parametrize("periodic", [True, False])
def test_windows(n, periodic):
    # an odd periodic window is the symmetric one, as in TF; a window of one sample is [1]
    denom = max(n + (1 - n % 2) * periodic - 1, 1)
    k = np.arange(n)
    hann = np.ones(1) if n == 1 else 0.5 - 0.5 * np.cos(2 * np.pi * k / denom)
    hamming = np.ones(1) if n == 1 else 0.54 - 0.46 * np.cos(2 * np.pi * k / denom)
    np.testing.assert_allclose(tf.signal.hann_window(n, periodic), hann, atol=1e-6)
    out = tf.signal.hamming_window(n, periodic, dtype=tf.float64)
    assert out.dtype == tf.float64
    np.testing.assert_allclose(out, hamming, atol=1e-12)


def test_stft_and_its_inverse():
    x = np.sin(np.arange(200.0) / 5).astype(np.float32)[None].repeat(2, 0)
    spectrum = both(lambda v: tf.signal.stft(v, 15, 6, fft_length=32, pad_end=True), x)
    window = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(15) / 14)  # odd length: symmetric
    padded = np.concatenate([x, np.zeros((2, 15 + 6 * 33 - 200), np.float32)], -1)
    np.testing.assert_allclose(spectrum, np.fft.rfft(_frames(padded, 15, 6) * window, 32), **TOL)
    assert spectrum.shape == (2, 34, 17)

    def round_trip(v):
        s = tf.signal.stft(v, 16, 4)
        return tf.signal.inverse_stft(s, 16, 4, window_fn=tf.signal.inverse_stft_window_fn(4))

    back = both(round_trip, x)
    np.testing.assert_allclose(back[:, 16:-16], x[:, 16 : back.shape[1] - 16], atol=1e-5)  # away from the edges


# TF 2.21's tf.signal.dct / idct of [0, 1, 2, 3, 4]
TF_DCT = {
    (1, None): [16.0, -6.8284, 0.0, -1.1716, 0.0],
    (2, None): [20.0, -9.9596, 0.0, -0.8981, 0.0],
    (2, "ortho"): [4.4721, -3.1495, 0.0, -0.284, 0.0],
    (3, None): [11.137, -12.239, 4.0, -3.1774, 0.2794],
    (3, "ortho"): [3.5218, -3.8703, 1.2649, -1.0048, 0.0883],
    (4, None): [8.5859, -12.0736, 5.6569, -5.3364, 4.4759],
    (4, "ortho"): [2.7151, -3.818, 1.7889, -1.6875, 1.4154],
}


@pytest.mark.parametrize("kind,norm", list(TF_DCT))
def test_dct_types_match_tensorflow(kind, norm):
    x = np.arange(5.0, dtype=np.float32)
    np.testing.assert_allclose(both(lambda v: tf.signal.dct(v, type=kind, norm=norm), x), TF_DCT[kind, norm], atol=2e-4)


@pytest.mark.parametrize("kind", [1, 2, 3, 4])
def test_idct_inverts_dct(kind):
    x = rng.randn(3, 7)
    norm = None if kind == 1 else "ortho"
    back = tf.signal.idct(tf.signal.dct(x, type=kind, norm=norm), type=kind, norm=norm).numpy()
    np.testing.assert_allclose(back, x * (2 * (7 - 1) if kind == 1 else 1), atol=1e-9)


def test_dct_cuts_or_pads_to_n_and_refuses_what_tf_refuses():
    x = rng.randn(2, 5).astype(np.float32)
    np.testing.assert_allclose(tf.signal.dct(x, n=3), tf.signal.dct(x[:, :3]), atol=1e-6)
    np.testing.assert_allclose(tf.signal.dct(x, n=8), tf.signal.dct(np.pad(x, [(0, 0), (0, 3)])), atol=1e-6)
    with pytest.raises(NotImplementedError, match="axis must be -1"):
        tf.signal.dct(x, axis=0)
    with pytest.raises(ValueError, match="type is 1"):
        tf.signal.dct(x, type=1, norm="ortho")
    with pytest.raises(ValueError, match="normalization"):
        tf.signal.dct(x, norm="forward")


def test_mel_matrix_and_mfccs_match_tensorflow():
    mel = tf.signal.linear_to_mel_weight_matrix(4, 9, 8000, 100.0, 3000.0)
    tf_mel = np.zeros((9, 4))  # TF 2.21's values; rows 0 and 6-8 are zero
    tf_mel[1, :2] = [0.67623, 0.32377]
    tf_mel[2, 1:3] = [0.53907, 0.46093]
    tf_mel[3, 2:] = [0.6973, 0.3027]
    tf_mel[4, 2:] = [0.02868, 0.97132]
    tf_mel[5, 3] = 0.47399
    assert mel.dtype == tf.float32
    np.testing.assert_allclose(mel, tf_mel, atol=2e-5)
    mfcc = both(tf.signal.mfccs_from_log_mel_spectrograms, np.arange(8.0, dtype=np.float32).reshape(2, 4))
    np.testing.assert_allclose(mfcc, [[4.2426, -2.2304, 0.0, -0.1585], [15.5563, -2.2304, 0.0, -0.1585]], atol=2e-4)
    with pytest.raises(ValueError, match="Nyquist"):
        tf.signal.linear_to_mel_weight_matrix(upper_edge_hertz=5000.0)


def test_real_composites_differentiate():
    x = tf.constant(rng.randn(2, 37).astype(np.float32))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.signal.overlap_and_add(tf.signal.frame(x, 4, 3), 3) * 1.5)
        y += tf.reduce_sum(tf.signal.dct(x, norm="ortho") ** 2)
    # each sample counts once per frame holding it (frames of 4 every 3 overlap by one);
    # the orthonormal DCT keeps the sum of squares, whose gradient is 2 x
    counts = np.zeros(37, np.float32)
    for f in range(1 + (37 - 4) // 3):
        counts[3 * f : 3 * f + 4] += 1
    np.testing.assert_allclose(tape.gradient(y, x), 1.5 * counts + 2 * x.numpy(), atol=1e-5)
