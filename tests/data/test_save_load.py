"""``Dataset.save`` / ``Dataset.load`` (and the ``tf.data.experimental`` names) round-trip the
elements, element_spec and cardinality, as TensorFlow 2.21's do; the files are tfunc's own
format."""

import collections

import numpy as np
import pytest

import tfunc as tf
from tfunc.data import Dataset


def _values(ds):
    return [tf.nest.map_structure(lambda t: np.asarray(t.numpy()).tolist(), e) for e in ds]


def test_round_trip(tmp_path):
    ds = Dataset.from_tensor_slices(({"a": [1, 2, 3]}, ["x", "yy", "z"])).map(
        lambda a, s: (a, s, tf.fill([a["a"]], 1.5))
    )
    ds.save(str(tmp_path / "s"))
    loaded = Dataset.load(str(tmp_path / "s"))
    assert loaded.element_spec == ds.element_spec  # TF 2.21: the same spec, cardinality 3
    assert int(loaded.cardinality()) == 3
    assert _values(loaded) == [({"a": 1}, b"x", [1.5]), ({"a": 2}, b"yy", [1.5, 1.5]), ({"a": 3}, b"z", [1.5] * 3)]


def test_many_elements_bfloat16_and_compression(tmp_path):
    path = str(tmp_path / "g")
    Dataset.range(3000).map(lambda x: tf.cast(x % 7, tf.bfloat16)).save(path, compression="GZIP")
    loaded = Dataset.load(path, compression="GZIP")
    assert int(loaded.cardinality()) == 3000 and loaded.element_spec == tf.TensorSpec([], tf.bfloat16)
    assert [float(v) for v in loaded.take(8)] == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 0.0]
    assert sum(1 for _ in loaded) == 3000
    with pytest.raises(tf.errors.DataLossError, match="GZIP"):  # TF 2.21: DataLossError too
        Dataset.load(path)


def test_experimental_names_overwrite_and_element_spec(tmp_path):
    path = str(tmp_path / "e")
    tf.data.experimental.save(Dataset.range(2), path)
    assert _values(tf.data.experimental.load(path)) == [0, 1]
    Dataset.range(5).save(path)  # TF 2.21: a second save replaces the first
    assert _values(Dataset.load(path)) == [0, 1, 2, 3, 4]
    Point = collections.namedtuple("Point", "x y")
    Dataset.range(2).map(lambda v: Point(v, v * 2)).save(path)
    spec = Point(tf.TensorSpec([], tf.int64), tf.TensorSpec([], tf.int64))
    assert _values(Dataset.load(path, element_spec=spec)) == [Point(0, 0), Point(1, 2)]


def test_errors(tmp_path):
    with pytest.raises(tf.errors.NotFoundError, match="element_spec"):
        Dataset.load(str(tmp_path / "nothing"))
    with pytest.raises(TypeError, match="windows"):
        Dataset.range(4).window(2).save(str(tmp_path / "w"))
    with pytest.raises(NotImplementedError, match="shard_func"):
        Dataset.range(2).save(str(tmp_path / "s"), shard_func=lambda x: x % 2)
