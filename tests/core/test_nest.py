"""``tfunc.nest`` on optree: TensorFlow's structure rules."""

import collections

import pytest

import tfunc as tf
from tfunc.core import nest


def test_dicts_flatten_in_sorted_key_order_and_pack_in_their_own():
    d = {"b": 1, "a": 2, "c": None}
    assert nest.flatten(d) == [2, 1, None]  # None is a leaf, as in TensorFlow
    packed = nest.pack_sequence_as(d, [20, 10, 30])
    assert packed == {"b": 10, "a": 20, "c": 30} and list(packed) == ["b", "a", "c"]


def test_lists_tuples_and_namedtuples_are_structure_other_objects_are_leaves():
    Point = collections.namedtuple("Point", "x y")
    obj = object()
    s = [1, (2, Point(3, [4])), obj, "text"]
    assert nest.flatten(s) == [1, 2, 3, 4, obj, "text"]
    rebuilt = nest.map_structure(lambda v: v * 10 if isinstance(v, int) else v, s)
    assert rebuilt == [10, (20, Point(30, [40])), obj, "text"] and isinstance(rebuilt[1][1], Point)


def test_same_structure_checks_types_unless_told_not_to():
    nest.assert_same_structure([1, (2, 3)], [4, (5, 6)])
    with pytest.raises(TypeError, match="same nested structure"):  # TensorFlow: a TypeError
        nest.assert_same_structure([1, 2], (1, 2))
    nest.assert_same_structure([1, 2], (1, 2), check_types=False)
    with pytest.raises(ValueError):
        nest.assert_same_structure({"a": 1}, {"b": 1})
    nest.assert_same_structure({"a": 1}, {"b": 1}, check_types=False)  # keys are checked with the types


def test_pack_sequence_as_counts_leaves():
    with pytest.raises(ValueError, match="2 atoms, but flat_sequence had 3 items"):
        nest.pack_sequence_as([1, 2], [1, 2, 3])


def test_flatten_up_to_stops_at_the_shallow_structure_and_accepts_lists_for_tuples():
    assert nest.flatten_up_to((1, {"a": 2}), ([9, 9], {"a": (7,)})) == [[9, 9], (7,)]
    assert nest.flatten_up_to((1, 2), [3, 4]) == [3, 4]
    with pytest.raises(ValueError):
        nest.flatten_up_to((1, 2), [3, 4, 5])


def test_composites_expand_only_when_asked():
    ta = tf.TensorArray(tf.float32, size=2)
    assert nest.flatten([ta, 1]) == [ta, 1]
    leaves, spec = nest.flatten_with_spec([ta, 1], expand_composites=True)
    assert len(leaves) == 2 and leaves[0] is ta.handle
    rebuilt = nest.unflatten(spec, leaves)
    assert isinstance(rebuilt[0], tf.TensorArray) and rebuilt[0].handle is ta.handle
    other = tf.TensorArray(tf.float32, size=3)
    assert nest.same_skeleton([ta, 1], [other, 2])  # which instance sits there does not matter
    assert not nest.same_skeleton([ta, 1], [other, [2]])


def test_ordered_dicts_keep_their_specs_consistent():
    d = collections.OrderedDict([("b", [1]), ("a", 2)])
    leaves, spec = nest.flatten_with_spec(d)
    assert leaves == [2, 1]  # TensorFlow's sorted key order
    rebuilt = nest.unflatten(spec, [20, 10])
    assert type(rebuilt) is collections.OrderedDict and list(rebuilt.items()) == [("b", [10]), ("a", 20)]
    assert nest.flatten_up_to(collections.OrderedDict(b=0, a=0), d) == [2, [1]]


def test_public_namespace_is_this_module():
    assert tf.nest.flatten({"b": [1], "a": 2}) == [2, 1]
