"""``tf.nest`` against TensorFlow 2.21's rules (expected values are TensorFlow's):
OrderedDicts flatten in sorted key order, every Mapping and Sequence is structure,
``check_types`` lets any two mappings (and any two lists) match, type mismatches are
TypeErrors, and keys that do not sort or a non-sequence ``flat_sequence`` are refused."""

import collections

import numpy as np
import pytest

import tfunc as tf

OD = collections.OrderedDict
NT = collections.namedtuple("NT", "b a")
NT2 = collections.namedtuple("NT2", "b a")


class MyList(list):
    pass


class MyTuple(tuple):
    pass


class MyMap(collections.abc.Mapping):
    def __init__(self, d=()):
        self._d = dict(d)

    def __getitem__(self, k):
        return self._d[k]

    def __iter__(self):
        return iter(self._d)

    def __len__(self):
        return len(self._d)


def both(fn):
    """``fn()`` eagerly and inside a tf.function (as NumPy values)."""
    eager = fn()
    traced = tf.function(fn)()
    return tf.nest.map_structure(np.asarray, eager), tf.nest.map_structure(np.asarray, traced)


def test_ordered_dict_flattens_in_sorted_key_order_and_packs_in_its_own():
    assert tf.nest.flatten(OD([("b", 1), ("a", 2)])) == [2, 1]
    packed = tf.nest.pack_sequence_as(OD([("b", 0), ("a", 0)]), [1, 2])
    assert type(packed) is OD and list(packed.items()) == [("b", 2), ("a", 1)]

    def fn():
        d = OD([("b", tf.constant(1.0)), ("a", tf.constant(2.0))])
        flat = tf.nest.flatten(d)
        return tf.stack(flat), tf.nest.pack_sequence_as(d, [x * 10.0 for x in flat])

    for stacked, out in both(fn):
        assert stacked.tolist() == [2.0, 1.0]
        assert list(out) == ["b", "a"] and out["b"] == 10.0 and out["a"] == 20.0


def test_tf_function_pairs_ordered_dict_arguments_and_outputs_by_key():
    @tf.function
    def f(d):
        return OD([("z", d["b"] - d["a"]), ("y", d["a"])])

    out = f(OD([("b", tf.constant(5.0)), ("a", tf.constant(2.0))]))
    assert type(out) is OD and list(out) == ["z", "y"]
    assert float(out["z"]) == 3.0 and float(out["y"]) == 2.0
    out = f(OD([("a", tf.constant(1.0)), ("b", tf.constant(7.0))]))  # other key order
    assert float(out["z"]) == 6.0 and float(out["y"]) == 1.0


def test_list_subclasses_mappings_and_sequences_are_structure():
    assert tf.nest.flatten(MyList([1, [2]])) == [1, 2]
    assert tf.nest.flatten(MyTuple((1, 2))) == [1, 2]
    assert tf.nest.flatten(MyMap({"b": 1, "a": 2})) == [2, 1]
    assert tf.nest.flatten(range(3)) == [0, 1, 2]
    assert tf.nest.flatten({"b": 1, "a": 2}.values()) == [1, 2]
    assert [tf.nest.is_nested(x) for x in (MyList(), MyTuple(), MyMap(), range(1), "ab", {1}, np.zeros(2))] == [
        True,
        True,
        True,
        True,
        False,
        False,
        False,
    ]
    packed = tf.nest.pack_sequence_as(MyList([0, [0]]), [1, 2])
    assert type(packed) is MyList and packed == [1, [2]]
    assert type(tf.nest.pack_sequence_as(MyTuple((0, 0)), [1, 2])) is MyTuple
    packed = tf.nest.pack_sequence_as(MyMap({"b": 0, "a": 0}), [1, 2])
    assert type(packed) is MyMap and dict(packed) == {"b": 2, "a": 1}
    assert tf.nest.pack_sequence_as(range(2), [5, 6]) == [5, 6]  # a range packs as a list

    def fn():
        s = MyList([tf.constant(1.0), MyMap({"b": tf.constant(2.0), "a": tf.constant(3.0)})])
        return tf.stack(tf.nest.flatten(s))

    for stacked in both(fn):
        assert stacked.tolist() == [1.0, 3.0, 2.0]


def test_mappings_match_each_other_and_pair_by_key():
    tf.nest.assert_same_structure({"a": 1}, OD(a=1))
    tf.nest.assert_same_structure({"a": 1}, collections.defaultdict(int, a=1))
    tf.nest.assert_same_structure({"a": 1}, MyMap({"a": 1}))
    tf.nest.assert_same_structure(OD(a=1, b=2), OD(b=1, a=2))
    tf.nest.assert_same_structure([1], MyList([1]))
    assert tf.nest.map_structure(lambda x, y: (x, y), {"b": 1, "a": 2}, OD([("a", 20), ("b", 10)])) == {
        "b": (1, 10),
        "a": (2, 20),
    }
    out = tf.nest.map_structure(lambda x, y: (x, y), OD(a=1, b=2), OD(b=3, a=4))
    assert type(out) is OD and list(out.items()) == [("a", (1, 4)), ("b", (2, 3))]

    def fn():
        a = {"b": tf.constant(1.0), "a": tf.constant(2.0)}
        b = OD([("a", tf.constant(20.0)), ("b", tf.constant(10.0))])
        return tf.nest.map_structure(lambda x, y: x + y, a, b)

    for out in both(fn):
        assert out["b"] == 11.0 and out["a"] == 22.0


def test_check_types_false_compares_only_nesting_and_lengths():
    tf.nest.assert_same_structure(NT(1, 2), (1, 2), check_types=False)
    tf.nest.assert_same_structure({"a": 1}, {"b": 1}, check_types=False)
    assert tf.nest.map_structure(lambda x, y: x + y, NT(1, 2), (3, 4), check_types=False) == NT(4, 6)
    assert tf.nest.map_structure(lambda x, y: (x, y), {"a": 1, "b": 2}, [3, 4], check_types=False) == {
        "a": (1, 3),
        "b": (2, 4),
    }
    with pytest.raises(ValueError, match="same nested structure"):
        tf.nest.assert_same_structure([1, 2], [1], check_types=False)


def test_type_mismatch_is_a_type_error_and_key_or_length_mismatch_a_value_error():
    for a, b in [([1], (1,)), ((1,), MyTuple((1,))), (NT(1, 2), (1, 2)), (NT(1, 2), NT2(1, 2)), ({"a": 1}, [1])]:
        with pytest.raises(TypeError, match="same nested structure"):
            tf.nest.assert_same_structure(a, b)
    with pytest.raises(TypeError):
        tf.nest.map_structure(lambda x, y: x, [1, 2], (3, 4))
    for a, b in [({"a": 1}, {"b": 1}), ([1, 2], [1]), (1, [1])]:
        with pytest.raises(ValueError, match="same nested structure"):
            tf.nest.assert_same_structure(a, b)

    def fn():
        x = tf.constant(1.0)
        with pytest.raises(TypeError):
            tf.nest.assert_same_structure([x], (x,))
        return x

    both(fn)


def test_unsortable_keys_and_non_sequence_flat_values_are_refused():
    for d in ({1: "a", "b": 2}, OD([(1, "a"), ("b", 2)]), {(1, "a"): 1, (1, 2): 2}):
        with pytest.raises(TypeError):
            tf.nest.flatten(d)
    with pytest.raises(TypeError, match="sortable keys"):
        tf.nest.pack_sequence_as({1: 0, "a": 0}, [1, 2])
    assert tf.nest.flatten({1: "a", 2.5: "b", 0: "c"}) == ["c", "a", "b"]  # mixed numbers sort
    for flat in (np.array([1, 2]), "ab", iter([1, 2]), 5):
        with pytest.raises(TypeError, match="Attempted to pack value"):
            tf.nest.pack_sequence_as([0, 0], flat)
    assert tf.nest.pack_sequence_as([0, 0], (1, 2)) == [1, 2]

    def fn():
        x = tf.constant([1.0, 2.0])
        with pytest.raises(TypeError, match="Attempted to pack value"):
            tf.nest.pack_sequence_as([0, 0], x)
        return x

    both(fn)
