"""Array ops against TensorFlow 2.21's results and errors: one_hot's dtype rules, reshape
of empty tensors, top_k's named result, the axis forms squeeze/expand_dims accept, where
with a numeric condition, int16 gather indices and tf.slice's bounds.  Eager and traced."""

import numpy as np
import pytest

import tfunc as tf


def both(fn, *args):
    return [fn(*args), tf.function(fn)(*args)]


def test_one_hot_takes_its_dtype_from_python_on_off_values():
    for r in both(lambda: tf.one_hot([0, -1, 7], 3, on_value=5, off_value=-1)):
        assert r.dtype == tf.int32 and r.numpy().tolist() == [[5, -1, -1], [-1, -1, -1], [-1, -1, -1]]
    for r in both(lambda: tf.one_hot([0, 2], 3, on_value=True, off_value=False)):
        assert r.dtype == tf.bool and r.numpy().tolist() == [[True, False, False], [False, False, True]]
    assert tf.one_hot([1], 2).dtype == tf.float32 and tf.one_hot([1], 2, dtype=tf.int64).dtype == tf.int64
    assert tf.one_hot([1], 2, off_value=-1).numpy().tolist() == [[-1, 1]]


def test_one_hot_errors():
    with pytest.raises(TypeError, match="does not match"):
        tf.one_hot([0], 3, on_value=1.0, off_value=0)
    with pytest.raises(TypeError, match="dtype parameter"):
        tf.one_hot([0], 3, on_value=tf.constant(1.0), dtype=tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="axis"):
        tf.one_hot([0], 3, axis=-2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="depth"):
        tf.one_hot([0], -1)


@pytest.mark.parametrize(
    "target, expected", [([0, -1], [0, 3]), ([-1, 0], [3, 0]), ([-1, 3], [0, 3]), ([2, 0, -1], [2, 0, 1])]
)
def test_reshape_of_an_empty_tensor_places_the_minus_one_as_tensorflow(target, expected):
    z = tf.zeros([0, 3])
    for r in both(lambda x: tf.reshape(x, target), z):
        assert r.shape.as_list() == expected
    traced = tf.function(lambda x: tf.shape(tf.reshape(x, target)))(z)
    assert traced.numpy().tolist() == expected
    dynamic = tf.function(lambda x, s: tf.reshape(x, s))(z, tf.constant(target))
    assert dynamic.shape.as_list() == expected


def test_gather_nd_with_index_depth_zero_takes_everything():
    x = tf.reshape(tf.range(24.0), [2, 3, 4])
    for r in both(lambda p: tf.gather_nd(p, tf.zeros([2, 0], tf.int32)), x):
        assert r.shape == (2, 2, 3, 4) and np.array_equal(r.numpy()[1], x.numpy())
    for r in both(lambda p: tf.gather_nd(p, tf.zeros([2, 3, 0], tf.int32), batch_dims=1), x):
        assert r.shape == (2, 3, 3, 4) and np.array_equal(r.numpy()[1, 2], x.numpy()[1])


def test_top_k_result_has_values_and_indices():
    for r in both(lambda t: tf.math.top_k(t, 2), tf.constant([1.0, 3.0, 2.0])):
        assert r.values.numpy().tolist() == [3.0, 2.0] and r.indices.numpy().tolist() == [1, 2]
        values, indices = r
        assert values is r.values and indices is r.indices


def test_axis_forms_and_numeric_where_condition():
    x = tf.ones([1, 3, 1])
    assert tf.squeeze(x, np.int64(0)).shape == (3, 1)
    assert tf.squeeze(x, [0, 0]).shape == (3, 1)  # a repeated axis is one axis
    assert tf.squeeze(x, tf.constant([2])).shape == (1, 3)
    assert tf.expand_dims(tf.ones([2]), [1]).shape == (2, 1)
    assert tf.expand_dims(tf.ones([2]), tf.constant(0)).shape == (1, 2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="single"):
        tf.expand_dims(tf.ones([2]), [0, 1])
    for r in both(tf.where, tf.constant([0.0, 2.0, 0.0, -1.0])):
        assert r.numpy().tolist() == [[1], [3]]
    for r in both(tf.gather, tf.constant([1.0, 2.0, 3.0]), tf.constant([2, 0], tf.int16)):
        assert r.numpy().tolist() == [3.0, 1.0]


def test_slice_checks_its_bounds():
    x = tf.reshape(tf.range(12), [3, 4])
    for r in both(lambda t: tf.slice(t, [1, 0], [2, -1]), x):
        assert r.numpy().tolist() == [[4, 5, 6, 7], [8, 9, 10, 11]]
    for begin, size, what in [
        ([0, 0], [4, 1], "size"),
        ([-1, 0], [1, 1], "begin"),
        ([4, 0], [0, 1], "begin"),
        ([0, 0], [-2, 1], "size"),
        ([0], [1], "one entry per dimension"),
    ]:
        with pytest.raises(tf.errors.InvalidArgumentError, match=what):
            tf.slice(x, begin, size)
    sig = [tf.TensorSpec([None, 4], tf.int32), tf.TensorSpec([2], tf.int32), tf.TensorSpec([2], tf.int32)]
    f = tf.function(lambda t, b, s: tf.slice(t, b, s), input_signature=sig)
    assert f(x, tf.constant([1, 1]), tf.constant([-1, 2])).numpy().tolist() == [[5, 6], [9, 10]]
    g = tf.function(lambda t: tf.slice(t, [1, 0], [tf.shape(t)[0] - 1, -1]), input_signature=sig[:1])
    assert g(x).numpy().tolist() == [[4, 5, 6, 7], [8, 9, 10, 11]]


def test_reshape_of_a_non_empty_tensor_to_a_zero_size_is_an_error():
    for fn in (lambda x: tf.reshape(x, [0, -1]), tf.function(lambda x: tf.shape(tf.reshape(x, [0, -1])))):
        with pytest.raises(tf.errors.InvalidArgumentError, match="6 values"):
            fn(tf.ones([2, 3]))


@pytest.mark.parametrize(
    "axis, batch_dims, index_shape, bound",
    [(1, 1, (2, 6), 3), (2, 1, (2, 6), 4), (3, 1, (2, 2, 3), 5), (2, 2, (2, 3, 7), 4), (None, 1, (2, 4), 3)],
)
def test_gather_with_batch_dims(axis, batch_dims, index_shape, bound):
    rng = np.random.default_rng(1)
    params = rng.normal(size=(2, 3, 4, 5)).astype(np.float32)
    idx = rng.integers(0, bound, index_shape).astype(np.int32)
    ax = batch_dims if axis is None else axis
    want = np.stack(
        [np.take(params[b], idx[b], axis=ax - 1) for b in range(2)]
    )  # batch_dims 1 by hand; batch_dims 2 below
    if batch_dims == 2:
        want = np.stack([np.stack([np.take(params[b, c], idx[b, c], axis=ax - 2) for c in range(3)]) for b in range(2)])
    fn = lambda p, i: tf.gather(p, i, axis=axis, batch_dims=batch_dims)  # noqa: E731
    for got in both(fn, tf.constant(params), tf.constant(idx)):
        np.testing.assert_array_equal(got.numpy(), want)
    p = tf.constant(params)
    with tf.GradientTape() as tape:
        tape.watch(p)
        y = tf.reduce_sum(fn(p, tf.constant(idx)))
    counts = tape.gradient(y, p).numpy()
    assert counts.sum() == idx.size * (params.size // (params.shape[ax] * int(np.prod(params.shape[:batch_dims]))))


def test_gather_batch_dims_negative_and_mismatched_batches():
    # as TensorFlow: the axis defaults to batch_dims as given, against the params' rank
    assert tf.gather(tf.zeros([2, 3, 4]), tf.zeros([2, 2], tf.int32), batch_dims=-1).shape == (2, 3, 2)
    assert tf.gather(tf.zeros([2, 3, 4, 5]), tf.zeros([2, 3], tf.int32), batch_dims=-1).shape == (2, 3, 4, 3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="should be equal"):
        tf.gather(tf.zeros([2, 3, 4]), [[0, 2]], axis=1, batch_dims=1)  # a batch of 1 is not broadcast
    with pytest.raises(tf.errors.InvalidArgumentError, match="should be equal"):
        tf.gather_nd(tf.zeros([2, 3, 4]), [[[0], [2]]], batch_dims=1)


def test_a_boolean_key_indexes_as_a_mask_as_tensorflow():
    t = tf.constant(np.arange(12.0).reshape(4, 3))
    mask = np.array([True, False, True, True])
    rows = np.arange(12.0).reshape(4, 3)[mask]
    np.testing.assert_array_equal(t[mask].numpy(), rows)
    np.testing.assert_array_equal(t[tf.constant(mask)].numpy(), rows)
    np.testing.assert_array_equal(t[t > 4].numpy(), np.arange(5.0, 12.0))
    traced = tf.function(lambda a, k: a[k])
    np.testing.assert_array_equal(traced(t, tf.constant(mask)).numpy(), rows)
    np.testing.assert_array_equal(tf.Variable(t)[mask].numpy(), rows)
    with tf.GradientTape() as tape:
        tape.watch(t)
        y = tf.reduce_sum(t[mask] * 2.0)
    np.testing.assert_array_equal(tape.gradient(y, t).numpy(), 2.0 * mask[:, None] * np.ones((4, 3)))


def test_set_shape_on_an_eager_tensor_checks_the_shape_as_tensorflow():
    x = tf.zeros([3, 6, 2])
    x.set_shape([None, 6, None])
    x.set_shape([3, 6, 2])
    assert x.shape == (3, 6, 2)
    with pytest.raises(ValueError, match="not compatible"):
        x.set_shape([None, 5, None])
    with pytest.raises(ValueError, match="not compatible"):
        x.set_shape([3, 6])


def test_repeat_keeps_the_static_dimensions_it_knows_while_tracing():
    shapes = {}

    @tf.function(input_signature=[tf.TensorSpec([None, 6, 6, 3])])
    def one_unknown(z):
        shapes["one"] = tf.repeat(z, 2, axis=1).shape
        return tf.repeat(z, 2, axis=1)

    @tf.function(input_signature=[tf.TensorSpec([None, None, 4])])
    def two_unknown(z):
        shapes["two"] = tf.repeat(z, 3, axis=2).shape
        return tf.repeat(z, 3, axis=2)

    x = np.arange(2 * 6 * 6 * 3, dtype=np.float32).reshape(2, 6, 6, 3)
    np.testing.assert_array_equal(one_unknown(x).numpy(), np.repeat(x, 2, axis=1))
    y = np.arange(8, dtype=np.float32).reshape(1, 2, 4)
    np.testing.assert_array_equal(two_unknown(y).numpy(), np.repeat(y, 3, axis=2))
    assert shapes["one"].as_list() == [None, 12, 6, 3] and shapes["two"].as_list() == [None, None, 12]
    np.testing.assert_array_equal(tf.repeat(tf.zeros([0, 2]), 2, axis=1).shape, (0, 4))


def test_up_sampling_keeps_its_static_shape_so_a_convolution_can_follow():
    model = tf.keras.Sequential(
        [tf.keras.Input((6, 6, 3)), tf.keras.layers.UpSampling2D(2), tf.keras.layers.Conv2D(2, 3)]
    )
    assert model.output_shape == (None, 10, 10, 2)


def test_tensor_scatter_max_and_min_follow_tensorflow_with_nan():
    # an update replaces the value only when greater (less): a NaN update never wins, a NaN stays
    nan = float("nan")
    for fn in (lambda *a: tf.tensor_scatter_nd_max(*a), tf.function(lambda *a: tf.tensor_scatter_nd_max(*a))):
        np.testing.assert_array_equal(fn(tf.constant([1.0]), [[0], [0]], tf.constant([nan, 5.0])).numpy(), [5.0])
        got = fn(tf.constant([1.0, nan, 1.0]), [[0], [1], [2]], tf.constant([nan, 2.0, 3.0])).numpy()
        np.testing.assert_array_equal(got, [1.0, nan, 3.0])
    got = tf.tensor_scatter_nd_min(tf.constant([1.0, nan]), [[0], [1], [0]], tf.constant([nan, -2.0, 0.5]))
    np.testing.assert_array_equal(got.numpy(), [0.5, nan])


def test_split_refuses_sizes_tensorflow_refuses_in_both_modes():
    x = tf.range(5.0)
    for sizes in ([-2, 7], [7, -1], [6, -1], [-1, -1], [2, 2]):
        for split in (lambda t, s=sizes: tf.split(t, s), tf.function(lambda t, s=sizes: tf.split(t, s))):
            with pytest.raises(tf.errors.InvalidArgumentError, match="split"):
                split(x)
    run_time = tf.function(lambda t: tf.split(t, [-1, -1]), input_signature=[tf.TensorSpec([None])])
    with pytest.raises(tf.errors.InvalidArgumentError, match="one -1"):
        run_time.get_concrete_function()
