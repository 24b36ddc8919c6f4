"""``tfunc.data.experimental``: the constants and helpers TensorFlow keeps there."""

from __future__ import annotations

from ..core import dtypes as _dtypes
from .dataset import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset
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
    "cardinality",
    "get_single_element",
    "sample_from_datasets",
    "choose_from_datasets",
    "Counter",
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


def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
    """``Dataset.choose_from_datasets``."""
    return Dataset.choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)
