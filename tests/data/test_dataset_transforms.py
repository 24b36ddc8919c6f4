"""The tf.data transformations beyond map/batch/shuffle (padded_batch, flat_map,
interleave, window, scan, group_by_window, bucketing, sampling, options, files),
checked against the elements TensorFlow 2.21 gives for the same pipelines."""

import gzip

import numpy as np
import pytest

import tfunc as tf
import tfunc.data  # noqa: F401 - makes tf.data available
from tfunc.data import Dataset

Spec = tf.TensorSpec


def values(ds):
    return [tf.nest.map_structure(lambda t: np.asarray(t.numpy()).tolist(), e) for e in ds]


def ragged():
    """Rows of lengths 1, 3, 2, 1, 4, 1 (row k holds the value k + 1)."""
    rows = [[1], [2, 2, 2], [3, 3], [4], [5, 5, 5, 5], [6]]
    return Dataset.from_generator(lambda: iter(rows), output_signature=Spec([None], tf.int32))


# --- padded_batch ------------------------------------------------------------------------
def test_padded_batch_pads_to_the_longest_in_each_batch():
    ds = Dataset.range(1, 5).map(lambda x: tf.fill([x], x)).padded_batch(2)
    assert values(ds) == [[[1, 0], [2, 2]], [[3, 3, 3, 0], [4, 4, 4, 4]]]
    assert ds.element_spec == Spec([None, None], tf.int64)


def test_padded_batch_with_shapes_and_values():
    ds = (
        Dataset.range(1, 4)
        .map(lambda x: tf.fill([x], x))
        .padded_batch(2, padded_shapes=[4], padding_values=tf.constant(-1, tf.int64))
    )
    assert values(ds) == [[[1, -1, -1, -1], [2, 2, -1, -1]], [[3, 3, 3, -1]]]
    assert ds.element_spec == Spec([None, 4], tf.int64)

    pairs = Dataset.range(1, 4).map(lambda x: (tf.fill([x, 2], x), tf.cast(x, tf.float32)))
    ds = pairs.padded_batch(2, padded_shapes=([None, 3], []), padding_values=(np.int64(7), 0.5), drop_remainder=True)
    assert values(ds) == [([[[1, 1, 7], [7, 7, 7]], [[2, 2, 7], [2, 2, 7]]], [1.0, 2.0])]
    assert ds.element_spec == (Spec([2, None, 3], tf.int64), Spec([2], tf.float32))


def test_padded_batch_strings_keep_their_length():
    ds = Dataset.from_tensor_slices(["a", "bbb"]).map(lambda s: tf.stack([s, s])).padded_batch(2, padded_shapes=[3])
    assert values(ds) == [[[b"a", b"a", b""], [b"bbb", b"bbb", b""]]]


def test_padded_batch_errors():
    rows = Dataset.range(1, 4).map(lambda x: tf.fill([x], x))
    with pytest.raises(tf.errors.InvalidArgumentError, match="smaller size"):
        list(rows.padded_batch(3, padded_shapes=[2]))
    with pytest.raises(ValueError, match="not compatible"):
        rows.padded_batch(2, padded_shapes=[2, 2])
    with pytest.raises(TypeError, match="type int32 does not match"):
        rows.padded_batch(2, padding_values=tf.constant(1))
    with pytest.raises(ValueError, match="scalar"):
        rows.padded_batch(2, padding_values=tf.constant([1, 2], tf.int64))
    with pytest.raises(ValueError, match="not a shape"):
        rows.padded_batch(2, padded_shapes=([3], [3]))
    with pytest.raises(ValueError, match="structure"):
        Dataset.zip((rows, rows)).padded_batch(2, padded_shapes=[3])


# --- datasets of datasets ---------------------------------------------------------------
def test_flat_map():
    ds = Dataset.range(3).flat_map(lambda x: Dataset.range(x))
    assert values(ds) == [0, 0, 1]
    assert ds.element_spec == Spec([], tf.int64)
    assert values(Dataset.from_tensor_slices([[1, 2], [3, 4]]).flat_map(Dataset.from_tensor_slices)) == [1, 2, 3, 4]
    with pytest.raises(TypeError, match="must return a `Dataset`"):
        list(Dataset.range(2).flat_map(lambda x: x))


def test_interleave_order_is_tensorflows():
    def tens(x):
        return Dataset.range(x).map(lambda y: x * 10 + y)

    ds = Dataset.range(1, 4).interleave(tens, cycle_length=2, block_length=1)
    assert values(ds) == [10, 20, 21, 30, 31, 32]

    blocks = Dataset.range(1, 6).interleave(lambda x: Dataset.from_tensors(x).repeat(6), cycle_length=2, block_length=4)
    assert values(blocks) == [1] * 4 + [2] * 4 + [1] * 2 + [2] * 2 + [3] * 4 + [4] * 4 + [3] * 2 + [4] * 2 + [5] * 6

    # empty datasets (x = 4) give their slot to the next input element when the cycle returns
    mixed = Dataset.range(1, 8).interleave(
        lambda x: Dataset.range(x % 4).map(lambda y: x * 10 + y), cycle_length=3, block_length=2
    )
    assert values(mixed) == [10, 20, 21, 30, 31, 32, 50, 60, 61, 70, 71, 72]


def test_interleave_arguments():
    with pytest.raises(tf.errors.InvalidArgumentError, match="cycle_length"):
        Dataset.range(2).interleave(Dataset.range, cycle_length=0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="block_length"):
        Dataset.range(2).interleave(Dataset.range, block_length=0)
    auto = Dataset.range(2).interleave(lambda x: Dataset.range(x), num_parallel_calls=tf.data.AUTOTUNE)
    assert sorted(values(auto)) == [0]


@pytest.mark.parametrize(
    "args, expected",
    [
        (dict(size=3, shift=2, drop_remainder=True), [[0, 1, 2], [2, 3, 4], [4, 5, 6]]),
        (dict(size=3, shift=2), [[0, 1, 2], [2, 3, 4], [4, 5, 6], [6]]),
        (dict(size=3), [[0, 1, 2], [3, 4, 5], [6]]),
        (dict(size=3, shift=1, stride=3, drop_remainder=True), [[0, 3, 6]]),
        (dict(size=2, shift=4), [[0, 1], [4, 5]]),
    ],
)
def test_window(args, expected):
    ds = Dataset.range(7).window(**args)
    assert [values(w) for w in ds] == expected
    assert len(ds) == len(expected)
    assert values(ds.flat_map(lambda w: w.batch(3))) == expected


def test_window_of_tuples_and_its_spec():
    pairs = Dataset.zip((Dataset.range(5), Dataset.range(5).map(lambda x: tf.cast(x, tf.float32))))
    ds = pairs.window(2)
    assert ds.element_spec == (
        tf.data.DatasetSpec(Spec([], tf.int64)),
        tf.data.DatasetSpec(Spec([], tf.float32)),
    )
    assert repr(Dataset.range(3).window(2).element_spec) == (
        "DatasetSpec(TensorSpec(shape=(), dtype=tf.int64, name=None), TensorShape([]))"
    )
    batched = ds.flat_map(lambda a, b: Dataset.zip((a.batch(2), b.batch(2))))
    assert values(batched) == [([0, 1], [0.0, 1.0]), ([2, 3], [2.0, 3.0]), ([4], [4.0])]


def test_windows_are_datasets_inside_a_function_too():
    # TensorFlow 2.21: each loop below sums the windows [0 1 2] [2 3 4] [4 5 6] to 27
    windows = Dataset.range(7).window(3, shift=2, drop_remainder=True)

    @tf.function
    def nested_loops(ds):
        total = tf.constant(0, tf.int64)
        for w in ds:
            for x in w:
                total += x
        return total

    @tf.function
    def reduces():
        return windows.reduce(
            tf.constant(0, tf.int64), lambda s, w: s + w.reduce(tf.constant(0, tf.int64), lambda a, b: a + b)
        )

    assert int(nested_loops(windows)) == 27 and int(reduces()) == 27
    pairs = Dataset.from_tensor_slices(([1, 2, 3, 4], [10, 20, 30, 40])).window(2)

    @tf.function
    def first_of_each(ds):
        it = iter(ds)
        a, b = next(it)
        return a.reduce(0, lambda s, x: s + x), b.reduce(0, lambda s, x: s + x)

    assert [int(t) for t in first_of_each(pairs)] == [3, 30]


def test_group_by_window():
    ds = Dataset.range(10).group_by_window(key_func=lambda x: x % 3, reduce_func=lambda k, w: w.batch(2), window_size=2)
    assert values(ds) == [[0, 3], [1, 4], [2, 5], [6, 9], [7], [8]]
    sized = Dataset.range(12).group_by_window(
        key_func=lambda x: x % 2, reduce_func=lambda k, w: w.batch(10), window_size_func=lambda k: k * 2 + 2
    )
    assert values(sized) == [[0, 2], [4, 6], [1, 3, 5, 7], [8, 10], [9, 11]]
    with pytest.raises(ValueError, match="exactly one"):
        Dataset.range(2).group_by_window(lambda x: x, lambda k, w: w)
    with pytest.raises(ValueError, match="int64"):
        list(Dataset.range(2).group_by_window(lambda x: tf.cast(x, tf.int32), lambda k, w: w, window_size=1))


def test_bucket_by_sequence_length():
    ds = ragged().bucket_by_sequence_length(lambda x: tf.shape(x)[0], [2, 4], [2, 2, 2])
    # lengths 1 and 3, 2 go to buckets 0 and 1; full buckets come out first, then the
    # rest in bucket order
    assert values(ds) == [[[2, 2, 2], [3, 3, 0]], [[1], [4]], [[6]], [[5, 5, 5, 5]]]
    assert ds.element_spec == Spec([None, None], tf.int32)

    padded = ragged().bucket_by_sequence_length(
        lambda x: tf.shape(x)[0], [3, 6], [2, 2, 2], pad_to_bucket_boundary=True, padding_values=-1
    )
    assert values(padded) == [[[1, -1], [3, 3]], [[2, 2, 2, -1, -1], [5, 5, 5, 5, -1]], [[4, -1], [6, -1]]]
    assert padded.element_spec == Spec([None, None], tf.int32)
    with pytest.raises(ValueError, match="len\\(bucket_batch_sizes\\)"):
        ragged().bucket_by_sequence_length(lambda x: tf.shape(x)[0], [2], [1])


# --- carried state -----------------------------------------------------------------------
def test_scan():
    ds = Dataset.range(5).scan(tf.constant(0, tf.int64), lambda s, x: (s + x, s * x))
    assert values(ds) == [0, 0, 2, 9, 24]
    pairs = Dataset.from_tensor_slices(([1, 2, 3], [4.0, 5.0, 6.0]))
    ds = pairs.scan(
        (tf.constant(0), tf.constant(1.0)), lambda s, e: ((s[0] + e[0], s[1] * e[1]), s[1] + tf.cast(e[0], tf.float32))
    )
    assert values(ds) == [2.0, 6.0, 23.0]
    assert ds.element_spec == Spec([], tf.float32)
    with pytest.raises(TypeError, match="must match the initial state"):
        list(Dataset.range(2).scan(tf.constant(0), lambda s, x: (x, x)))


def test_take_while_and_unique():
    assert values(Dataset.range(10).take_while(lambda x: x < 4)) == [0, 1, 2, 3]
    assert values(Dataset.from_tensor_slices([1, 1, 2, 3, 2]).unique()) == [1, 2, 3]
    assert values(Dataset.from_tensor_slices(["a", "b", "a"]).unique()) == [b"a", b"b"]
    with pytest.raises(TypeError, match="int32, int64 or string"):
        Dataset.range(3).map(lambda x: tf.cast(x, tf.float32)).unique()


def test_rebatch_and_single_element():
    assert values(Dataset.range(10).batch(4).rebatch(3)) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    assert Dataset.range(4, 5).get_single_element().numpy() == 4
    with pytest.raises(tf.errors.InvalidArgumentError, match="empty"):
        Dataset.range(0).get_single_element()
    with pytest.raises(tf.errors.InvalidArgumentError, match="more than one"):
        Dataset.range(2).get_single_element()


# --- sources and sampling ---------------------------------------------------------------------
def test_counter_and_random():
    assert values(Dataset.counter(3, 2).take(4)) == [3, 5, 7, 9]
    assert len(Dataset.counter().take(3)) == 3 and Dataset.counter().cardinality() == -1
    r = Dataset.random(seed=4).take(50)
    first = values(r)
    assert r.element_spec == Spec([], tf.int64) and first == values(r) and len(set(first)) == 50
    again = Dataset.random(seed=4, rerandomize_each_iteration=True).take(5)
    assert values(again) != values(again)


def test_choose_from_datasets():
    choices = Dataset.from_tensor_slices(np.array([0, 1, 1, 0, 0, 0, 1, 1], np.int64))
    sources = [Dataset.range(3), Dataset.range(10, 13)]
    assert values(Dataset.choose_from_datasets(sources, choices)) == [0, 10, 11, 1, 2]
    assert values(Dataset.choose_from_datasets(sources, choices, stop_on_empty_dataset=False)) == [0, 10, 11, 1, 2, 12]
    with pytest.raises(tf.errors.InvalidArgumentError, match="out of range"):
        list(Dataset.choose_from_datasets(sources, Dataset.from_tensor_slices(np.array([2], np.int64))))
    with pytest.raises(TypeError, match="int64"):
        Dataset.choose_from_datasets(sources, Dataset.range(2).map(lambda x: tf.cast(x, tf.int32)))
    with pytest.raises(TypeError, match="Incompatible"):
        Dataset.choose_from_datasets([Dataset.range(2), Dataset.from_tensors(1.0)], Dataset.range(1))


def test_sample_from_datasets():
    sources = [Dataset.range(50), Dataset.range(100, 150)]
    ds = Dataset.sample_from_datasets(sources, seed=3)
    drawn = values(ds)
    assert sorted(drawn) == list(range(50)) + list(range(100, 150))
    assert drawn != sorted(drawn) and drawn == values(ds)  # the same order on every pass
    # a zero weight is never drawn, and exhausting the others ends the dataset
    one_sided = Dataset.sample_from_datasets([Dataset.range(3), Dataset.range(10, 13)], weights=[1.0, 0.0])
    assert values(one_sided) == [0, 1, 2]
    stop = values(Dataset.sample_from_datasets(sources, weights=[0.5, 0.5], seed=1, stop_on_empty_dataset=True))
    assert len(stop) < 100 and (set(range(50)) <= set(stop) or set(range(100, 150)) <= set(stop))
    with pytest.raises(ValueError, match="same length as `datasets`"):  # TF 2.21's message
        Dataset.sample_from_datasets(sources, weights=[1.0])


# --- options and files ---------------------------------------------------------------------
def test_options_merge_and_pass_through():
    o = tf.data.Options()
    o.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
    o.deterministic = False
    ds = Dataset.range(3).with_options(o).map(lambda x: x + 1)
    assert values(ds) == [1, 2, 3]
    assert ds.options().deterministic is False
    assert ds.options().experimental_distribute.auto_shard_policy == tf.data.experimental.AutoShardPolicy.DATA
    later = tf.data.Options()
    later.deterministic = True
    assert ds.with_options(later).options().deterministic is True
    assert ds.with_options(later).options().experimental_distribute.auto_shard_policy is not None
    with pytest.raises(AttributeError, match="Cannot set the property"):
        o.not_an_option = 1
    with pytest.raises(TypeError, match="Options"):
        ds.with_options({"deterministic": True})


def test_text_lines_and_list_files(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"one\r\ntwo\n\nlast")
    with gzip.open(tmp_path / "b.txt.gz", "wb") as f:
        f.write(b"x\ny\n")
    lines = tf.data.TextLineDataset(str(tmp_path / "a.txt"))
    assert values(lines) == [b"one", b"two", b"", b"last"]
    assert lines.element_spec == Spec([], tf.string)
    gz = tf.data.TextLineDataset([str(tmp_path / "b.txt.gz")], compression_type="GZIP")
    assert values(gz) == [b"x", b"y"]
    names = Dataset.list_files(str(tmp_path / "*"), shuffle=False)
    assert values(names) == [str(tmp_path / "a.txt").encode(), str(tmp_path / "b.txt.gz").encode()]
    assert sorted(values(Dataset.list_files(str(tmp_path / "*"), seed=1))) == values(names)
    with pytest.raises(tf.errors.InvalidArgumentError, match="No files matched"):
        Dataset.list_files(str(tmp_path / "*.csv"))
    with pytest.raises(tf.errors.NotFoundError):
        list(tf.data.TextLineDataset(str(tmp_path / "missing.txt")))


def test_new_transformations_feed_a_traced_loop():
    ds = Dataset.range(1, 4).map(lambda x: tf.fill([x], x)).padded_batch(2).flat_map(Dataset.from_tensor_slices)

    @tf.function
    def total(d):
        s = tf.constant(0, tf.int64)
        for row in d:
            s += tf.reduce_sum(row)
        return s

    assert total(ds).numpy() == 1 + 4 + 9


def test_padded_batch_string_padding_value_is_kept_whole():
    ds = Dataset.from_tensor_slices([["a"], ["b"]]).padded_batch(2, padded_shapes=[3], padding_values="<PAD>")
    assert values(ds) == [[[b"a", b"<PAD>", b"<PAD>"], [b"b", b"<PAD>", b"<PAD>"]]]


def test_flat_map_spec_never_contradicts_later_elements():
    # TensorFlow traces map_func: (None,); tfunc's spec comes from one element, so its dims are
    # left unknown (a static size of 1 taken from the first element summed the sizes to 3, not 6)
    ds = tf.data.Dataset.range(1, 4).flat_map(lambda x: tf.data.Dataset.from_tensors(tf.range(x)))
    assert ds.element_spec.shape.as_list() == [None]

    @tf.function
    def total():
        s = tf.constant(0)
        for x in ds:
            s += tf.size(x)
        return s

    assert int(total()) == 6
    assert ds.padded_batch(3).get_single_element().numpy().tolist() == [[0, 0, 0], [0, 1, 0], [0, 1, 2]]
    inter = tf.data.Dataset.range(1, 3).interleave(lambda x: tf.data.Dataset.from_tensors(tf.range(x)))
    assert inter.element_spec.shape.as_list() == [None]


def test_reduce_and_get_single_element_run_with_the_function():
    # TensorFlow 2.21: read when the function runs (tfunc folded them once while tracing)
    v = tf.Variable(1.0)
    ds = tf.data.Dataset.range(3)
    f = tf.function(lambda: ds.reduce(tf.constant(0.0), lambda s, x: s + v))
    assert float(f()) == 3.0
    v.assign(2.0)
    assert float(f()) == 6.0
    g = tf.function(lambda y: ds.reduce(tf.constant(0.0), lambda s, x: s + y))
    assert float(g(tf.constant(2.0))) == 6.0  # a function argument in reduce_func
    calls = [0]

    def gen():
        calls[0] += 1
        yield calls[0]

    single = tf.data.Dataset.from_generator(gen, output_signature=tf.TensorSpec([], tf.int32))
    h = tf.function(lambda: single.get_single_element())
    assert [int(h()) for _ in range(3)] == [1, 2, 3]
    with pytest.raises(tf.errors.InvalidArgumentError, match="more than one element"):
        tf.function(lambda: ds.get_single_element())()
    with pytest.raises(tf.errors.InvalidArgumentError, match="empty"):
        tf.function(lambda: ds.take(0).get_single_element())()
    rows = tf.data.Dataset.from_tensors({"a": tf.constant([1, 2, 3])})
    assert tf.function(lambda: rows.get_single_element())()["a"].numpy().tolist() == [1, 2, 3]


def test_enumerate_of_an_infinite_dataset_is_infinite_and_map_lists_are_tensors():
    assert int(tf.data.Dataset.range(3).repeat().enumerate().cardinality()) == tf.data.INFINITE_CARDINALITY
    assert int(tf.data.Dataset.range(3).enumerate().cardinality()) == 3
    ds = tf.data.Dataset.range(3).map(lambda x: (x, [x, x + 1]))
    assert isinstance(ds.element_spec[1], tf.TensorSpec) and ds.element_spec[1].shape.rank == 1

    @tf.function
    def total():
        s = tf.constant(0, tf.int64)
        for a, b in ds:
            s += a + tf.reduce_sum(b)
        return s

    assert int(total()) == 12


def test_text_lines_drop_carriage_returns_and_list_files_sees_hidden_files(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"x\ry\nlast\r")
    (tmp_path / ".hidden.txt").write_bytes(b"h\r\n")
    lines = [t.numpy() for t in tf.data.TextLineDataset(str(tmp_path / "a.txt"))]
    assert lines == [b"xy", b"last"]  # TensorFlow's reader drops every \r
    names = sorted(t.numpy() for t in tf.data.Dataset.list_files(str(tmp_path / "*.txt"), shuffle=False))
    assert [n.rsplit(b"/", 1)[-1] for n in names] == [b".hidden.txt", b"a.txt"]


def test_map_keeps_static_shapes_and_reduce_relaxes_a_growing_state():
    ds = tf.data.Dataset.from_tensor_slices((np.zeros((4, 3), np.float32), np.zeros((4, 2), np.int32)))
    spec = ds.map(lambda a, b: (a * 2, [b[0], b[1]])).element_spec
    assert [s.shape.as_list() for s in spec] == [[3], [2]]  # TensorFlow's (the trace, not one element)
    r = tf.data.Dataset.range(3)
    grow = tf.function(lambda: r.reduce(np.zeros([0], np.int64), lambda s, x: tf.concat([s, [x]], 0)))
    assert grow().numpy().tolist() == [0, 1, 2]  # the state's size changes: unknown in the loop, as TensorFlow


def test_interleave_with_num_parallel_calls_opens_no_more_datasets_than_that():
    ds = tf.data.Dataset.range(1, 4).interleave(lambda x: Dataset.from_tensors(x).repeat(2), num_parallel_calls=1)
    assert [int(v) for v in ds] == [1, 1, 2, 2, 3, 3]  # TensorFlow: cycle_length = min(num_parallel_calls, cores)


def test_experimental_counter_is_dataset_counter():
    c = tf.data.experimental.Counter(5, 2)
    assert values(c.take(4)) == [5, 7, 9, 11] and int(c.cardinality()) == -1
    assert c.element_spec == tf.TensorSpec((), tf.int64)
