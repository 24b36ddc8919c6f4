"""``tfunc.data.experimental``: the constants and helpers TensorFlow keeps there, and its
``apply()``-style transformations (``ds.apply(tf.data.experimental.unique())``), each the
``Dataset`` method of the same name; the CSV readers ``CsvDataset`` and
``make_csv_dataset``."""

from __future__ import annotations

from ..core import dtypes as _dtypes
from .csv import CsvDataset, make_csv_dataset
from .dataset import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset
from .experimental_ops import AssertCardinalityDataset, GroupByReducerDataset, Reducer, from_list
from .optional import Optional
from .options import (
    AutoShardPolicy,
    AutotuneOptions,
    DistributeOptions,
    ExternalStatePolicy,
    OptimizationOptions,
    ThreadingOptions,
)

__all__ = [
    "AUTOTUNE",
    "INFINITE_CARDINALITY",
    "UNKNOWN_CARDINALITY",
    "AutoShardPolicy",
    "AutotuneOptions",
    "DistributeOptions",
    "ExternalStatePolicy",
    "OptimizationOptions",
    "ThreadingOptions",
    "Counter",
    "CsvDataset",
    "Optional",
    "RandomDataset",
    "Reducer",
    "assert_cardinality",
    "bucket_by_sequence_length",
    "cardinality",
    "choose_from_datasets",
    "enumerate_dataset",
    "from_list",
    "get_next_as_optional",
    "get_single_element",
    "group_by_reducer",
    "group_by_window",
    "ignore_errors",
    "load",
    "make_csv_dataset",
    "map_and_batch",
    "parallel_interleave",
    "sample_from_datasets",
    "save",
    "scan",
    "shuffle_and_repeat",
    "take_while",
    "unbatch",
    "unique",
]


def Counter(start=0, step=1, dtype=_dtypes.int64):  # noqa: N802 - TensorFlow's name
    """``Dataset.counter``: ``start, start + step, ...`` forever."""
    return Dataset.counter(start, step, dtype)


def cardinality(dataset):
    """``dataset.cardinality()``: an int64 scalar, -1 if infinite, -2 if unknown."""
    return dataset.cardinality()


def get_single_element(dataset):
    """``dataset.get_single_element()``."""
    return dataset.get_single_element()


def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False):
    """``Dataset.sample_from_datasets``."""
    return Dataset.sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset)


def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=False):
    """``Dataset.choose_from_datasets`` (here an exhausted dataset is skipped by default, as in
    TensorFlow's experimental version)."""
    return Dataset.choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)


def save(dataset, path, compression=None, shard_func=None, checkpoint_args=None):
    """``dataset.save(path)`` (tfunc's own directory format)."""
    return dataset.save(path, compression, shard_func, checkpoint_args)


def load(path, element_spec=None, compression=None, reader_func=None):
    """``Dataset.load(path)``."""
    return Dataset.load(path, element_spec, compression, reader_func)


def RandomDataset(seed=None, rerandomize_each_iteration=None, name=None):  # noqa: N802 - TensorFlow's name
    """``Dataset.random``."""
    return Dataset.random(seed, rerandomize_each_iteration)


def get_next_as_optional(iterator):
    """``iterator.get_next_as_optional()``."""
    return iterator.get_next_as_optional()


# --- apply()-style transformations -------------------------------------------------------------
def assert_cardinality(expected_cardinality):
    """The dataset with ``cardinality()`` ``expected_cardinality``, checked while it is iterated
    (``FailedPreconditionError`` where the number of elements differs)."""
    return lambda dataset: AssertCardinalityDataset(dataset, expected_cardinality)


def group_by_reducer(key_func, reducer):
    """One element per key: the group's elements folded by ``reducer`` (a :class:`Reducer`)."""
    return lambda dataset: GroupByReducerDataset(dataset, key_func, reducer)


def ignore_errors(log_warning=False):
    """``Dataset.ignore_errors``."""
    return lambda dataset: dataset.ignore_errors(log_warning)


def group_by_window(key_func, reduce_func, window_size=None, window_size_func=None):
    """``Dataset.group_by_window``."""
    return lambda dataset: dataset.group_by_window(key_func, reduce_func, window_size, window_size_func)


def bucket_by_sequence_length(
    element_length_func,
    bucket_boundaries,
    bucket_batch_sizes,
    padded_shapes=None,
    padding_values=None,
    pad_to_bucket_boundary=False,
    no_padding=False,
    drop_remainder=False,
):
    """``Dataset.bucket_by_sequence_length``."""
    return lambda dataset: dataset.bucket_by_sequence_length(
        element_length_func,
        bucket_boundaries,
        bucket_batch_sizes,
        padded_shapes,
        padding_values,
        pad_to_bucket_boundary,
        no_padding,
        drop_remainder,
    )


def scan(initial_state, scan_func):
    """``Dataset.scan``."""
    return lambda dataset: dataset.scan(initial_state, scan_func)


def take_while(predicate):
    """``Dataset.take_while``."""
    return lambda dataset: dataset.take_while(predicate)


def unique():
    """``Dataset.unique``."""
    return lambda dataset: dataset.unique()


def unbatch():
    """``Dataset.unbatch``."""
    return lambda dataset: dataset.unbatch()


def enumerate_dataset(start=0):
    """``Dataset.enumerate``."""
    return lambda dataset: dataset.enumerate(start)


def shuffle_and_repeat(buffer_size, count=None, seed=None):
    """``shuffle(buffer_size, seed)`` (a new order every epoch) then ``repeat(count)``."""
    return lambda dataset: dataset.shuffle(buffer_size, seed).repeat(count)


def map_and_batch(map_func, batch_size, num_parallel_batches=None, drop_remainder=False, num_parallel_calls=None):
    """``map(map_func)`` then ``batch(batch_size, drop_remainder)``."""
    if num_parallel_batches is not None and num_parallel_calls is not None:
        raise ValueError(
            "`map_and_batch` allows only one of `num_parallel_batches` and `num_parallel_calls` to be set, but "
            f"`num_parallel_batches` was set to {num_parallel_batches} and `num_parallel_calls` as set to "
            f"{num_parallel_calls}."
        )
    return lambda dataset: dataset.map(map_func).batch(batch_size, drop_remainder)


def parallel_interleave(
    map_func, cycle_length, block_length=1, sloppy=False, buffer_output_elements=None, prefetch_input_elements=None
):
    """``Dataset.interleave`` (tfunc's order is deterministic, ``sloppy`` or not)."""
    return lambda dataset: dataset.interleave(map_func, cycle_length, block_length)
