"""tf.nn and tf.linalg corner cases checked against TensorFlow 2.21 (the expected values were
computed by TensorFlow): embedding_lookup's max_norm on 1-D params, complex norms, and the
cases below; each eagerly and traced."""

import numpy as np
import pytest

import tfunc as tf


def both(fn, *args):
    """``fn(*args)`` eagerly and inside a tf.function, as NumPy arrays."""
    return [np.asarray(r.numpy()) for r in (fn(*args), tf.function(fn)(*args))]


def test_embedding_lookup_max_norm_clips_each_scalar_of_1d_params():
    # TF 2.21 gives [-0.5, 0.2, 0.5]: with 1-D params every row is a scalar clipped by |x|
    for got in both(lambda p: tf.nn.embedding_lookup(p, [0, 1, 2], max_norm=0.5), tf.constant([-3.0, 0.2, 2.0])):
        np.testing.assert_allclose(got, [-0.5, 0.2, 0.5], rtol=1e-6)
    # a list of row lists is a list of 1-D shards: TF 2.21 gives [-0.5, 0.2, 0.5, 0.5]
    got = tf.nn.embedding_lookup([[-3.0, 0.2], [2.0, 1.0]], [0, 1, 2, 3], max_norm=0.5)
    np.testing.assert_allclose(got.numpy(), [-0.5, 0.2, 0.5, 0.5], rtol=1e-6)


def test_euclidean_norm_of_complex_input_stays_complex():
    x = tf.constant([3 + 4j, 1j], tf.complex64)
    for got in both(tf.norm, x):  # TF 2.21 gives complex64 (5.0990195+0j)
        assert got.dtype == np.complex64
        np.testing.assert_allclose(got, 5.0990195 + 0j, rtol=1e-6)
    assert tf.norm(x, ord=1).dtype == tf.float32  # TF 2.21: the other orders are real
    m = tf.constant([[3 + 4j, 1j], [1, 2]], tf.complex128)
    fro = tf.norm(m, ord="fro", axis=[0, 1])  # TF 2.21 gives complex128 (5.5677643628300215+0j)
    assert fro.dtype == tf.complex128
    np.testing.assert_allclose(fro.numpy(), 5.5677643628300215, rtol=1e-12)
    assert tf.norm(m, ord=2, axis=[0, 1]).dtype == tf.float64


def test_normalize_and_l2_normalize_accept_complex_input():
    x = tf.constant([3 + 4j, 1j], tf.complex64)
    want = [0.5883484 + 0.78446454j, 0.19611613j]  # TF 2.21
    unit, n = tf.linalg.normalize(x)
    np.testing.assert_allclose(unit.numpy(), want, rtol=1e-6)
    assert n.dtype == tf.complex64
    np.testing.assert_allclose((x / tf.norm(x)).numpy(), want, rtol=1e-6)
    for got in both(tf.math.l2_normalize, x):
        assert got.dtype == np.complex64
        np.testing.assert_allclose(got, want, rtol=1e-6)
    m = tf.constant([[3 + 4j, 1j], [0, 2]], tf.complex128)
    want_m = [[0.58834841 + 0.78446454j, 0.19611614j], [0, 1]]  # TF 2.21
    np.testing.assert_allclose(tf.math.l2_normalize(m, axis=1).numpy(), want_m, rtol=1e-7)


NAN, INF = np.nan, np.inf


def test_max_pool_with_argmax_keeps_a_leading_nan_and_an_all_minus_inf_window():
    rows = [[NAN, 1, 2, 3], [1, NAN, 2, 3], [-INF, -INF, -INF, -INF]]
    want = [(NAN, 0), (3.0, 3), (-INF, 0)]  # TF 2.21: the first element, then any strictly greater
    for values, (y, arg) in zip(rows, want):
        out = tf.nn.max_pool_with_argmax(tf.reshape(tf.constant(values), [1, 2, 2, 1]), 2, 2, "VALID")
        np.testing.assert_array_equal(out.output.numpy().ravel(), [y])
        assert out.argmax.numpy().ravel().tolist() == [arg]
    # SAME: a window that starts in the padding takes its first real element (TF 2.21: [0, 0, 1])
    out = tf.nn.max_pool_with_argmax(tf.fill([1, 1, 3, 1], -INF), [1, 3], [1, 1], "SAME")
    assert out.argmax.numpy().ravel().tolist() == [0, 0, 1]


def test_max_pool_with_argmax_and_candidate_samplers_return_named_results():
    x = tf.reshape(tf.range(16.0), [1, 4, 4, 1])
    out = tf.nn.max_pool_with_argmax(x, 2, 2, "VALID", output_dtype=tf.int32)
    assert type(out).__name__ == "MaxPoolWithArgmax" and out._fields == ("output", "argmax")
    assert out.argmax.dtype == tf.int32
    np.testing.assert_array_equal(out.argmax.numpy().ravel(), [5, 7, 13, 15])
    true = tf.constant([[1]], tf.int64)
    s = tf.nn.fixed_unigram_candidate_sampler(true, 1, 2, True, 5, unigrams=[1, 1, 1, 1, 1], seed=1)
    assert type(s).__name__ == "FixedUnigramCandidateSampler"
    assert s.sampled_candidates.shape == (2,) and s.true_expected_count.shape == (1, 1)
    assert type(tf.random.uniform_candidate_sampler(true, 1, 2, True, 5)).__name__ == "UniformCandidateSampler"
    log_uniform = tf.random.log_uniform_candidate_sampler(true, 1, 2, True, 5)
    assert type(log_uniform).__name__ == "LogUniformCandidateSampler"


RNG = np.random.RandomState(0)
W1 = RNG.rand(3, 5, 3).astype(np.float32)
X1 = RNG.rand(2, 7, 3).astype(np.float32)
W2 = RNG.rand(3, 3, 4, 2).astype(np.float32)
X2 = RNG.rand(2, 5, 6, 2).astype(np.float32)


def test_conv1d_transpose_with_a_run_time_batch_size_traces():
    @tf.function(input_signature=[tf.TensorSpec((None, 7, 3))])
    def f(x):
        return tf.nn.conv1d_transpose(x, W1, tf.stack([tf.shape(x)[0], 14, 5]), 2)

    assert f.get_concrete_function().structured_outputs.shape.as_list() == [None, 14, 5]  # TF 2.21
    np.testing.assert_allclose(float(tf.reduce_sum(f(X1))), 135.76568603515625, rtol=1e-5)  # TF 2.21


def test_conv2d_transpose_with_run_time_spatial_sizes_traces():
    """A decoder's upsampling: the output twice the input's (unknown) height and width."""

    @tf.function(input_signature=[tf.TensorSpec((None, None, None, 2))])
    def f(x):
        s = tf.shape(x)
        return tf.nn.conv2d_transpose(x, W2, tf.stack([s[0], s[1] * 2, s[2] * 2, 4]), 2, "SAME")

    assert f.get_concrete_function().structured_outputs.shape.as_list() == [None, None, None, 4]  # TF 2.21
    got = f(X2)
    assert got.shape == (2, 10, 12, 4)
    np.testing.assert_allclose(got.numpy(), tf.nn.conv2d_transpose(X2, W2, [2, 10, 12, 4], 2).numpy(), rtol=1e-6)
    np.testing.assert_allclose(got.numpy()[1, 3, 4], [0.76588708, 0.56647974, 0.53718281, 0.7026825], rtol=1e-5)

    @tf.function(input_signature=[tf.TensorSpec((None, None, None, 2))])
    def valid(x):
        s = tf.shape(x)
        return tf.nn.conv2d_transpose(x, W2, [s[0], s[1] * 2 + 1, s[2] * 2 + 1, 4], 2, "VALID")

    np.testing.assert_allclose(float(tf.reduce_sum(valid(X2))), 1156.14697265625, rtol=1e-5)  # TF 2.21
    with tf.GradientTape() as tape:
        x = tf.constant(X2)
        tape.watch(x)
        y = tf.reduce_sum(f(x) ** 2)
    np.testing.assert_allclose(float(tf.reduce_sum(tape.gradient(y, x))), 5366.06640625, rtol=1e-5)  # TF 2.21


def test_conv3d_transpose_with_a_run_time_depth_traces():
    w = RNG.rand(2, 2, 2, 3, 2).astype(np.float32)
    x = RNG.rand(1, 3, 4, 4, 2).astype(np.float32)

    @tf.function(input_signature=[tf.TensorSpec((None, None, 4, 4, 2))])
    def f(v):
        s = tf.shape(v)
        return tf.nn.conv3d_transpose(v, w, [s[0], s[1] * 2, 8, 8, 3], [1, 2, 2, 2, 1], "SAME")

    assert f.get_concrete_function().structured_outputs.shape.as_list() == [None, None, 8, 8, 3]  # TF 2.21
    want = tf.nn.conv3d_transpose(x, w, [1, 6, 8, 8, 3], [1, 2, 2, 2, 1], "SAME")
    np.testing.assert_allclose(f(x).numpy(), want.numpy(), rtol=1e-6)


def test_bias_add_with_channels_first_and_channels_last_formats():
    b = tf.constant([1.0, 2.0, 3.0])
    got = tf.nn.bias_add(tf.ones((2, 3, 4, 4)), b, data_format="NCHW")
    np.testing.assert_array_equal(got.numpy()[0, :, 0, 0], [2.0, 3.0, 4.0])  # TF 2.21
    assert tf.nn.bias_add(tf.ones((2, 3, 4)), b, data_format="NCW").numpy()[1, 2, 3] == 4.0
    assert tf.nn.bias_add(tf.ones((2, 3, 4, 4, 4)), b, data_format="NCDHW").shape == (2, 3, 4, 4, 4)
    got = tf.nn.bias_add(tf.ones((2, 3, 4, 4, 3)), b, data_format="NDHWC")
    np.testing.assert_array_equal(got.numpy()[1, 2, 3, 0], [2.0, 3.0, 4.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="at least 2D"):  # TF 2.21 rejects it too
        tf.nn.bias_add(tf.ones((3,)), b)


def test_activations_take_tensorflows_features_keyword():
    x = tf.constant([-2.0, 0.5, 7.0])
    np.testing.assert_array_equal(tf.nn.relu(features=x).numpy(), [0.0, 0.5, 7.0])
    np.testing.assert_array_equal(tf.nn.relu6(features=x).numpy(), [0.0, 0.5, 6.0])
    assert tf.nn.elu(features=x).numpy()[2] == 7.0
    np.testing.assert_allclose(tf.nn.softplus(features=x).numpy()[1], np.log1p(np.exp(0.5)), rtol=1e-6)


def test_global_norm_of_no_tensors_is_zero():
    assert float(tf.linalg.global_norm([])) == 0.0  # TF 2.21 gives 0.0
    assert float(tf.linalg.global_norm([None])) == 0.0


def test_softmax_cross_entropy_casts_integer_one_hot_labels():
    got = tf.nn.softmax_cross_entropy_with_logits(tf.constant([[0, 1, 0]]), tf.constant([[1.0, 2.0, 0.5]]))
    np.testing.assert_allclose(got.numpy(), [0.4643688], rtol=1e-6)  # TF 2.21
