"""The keys tf.train.list_variables / load_variable / load_checkpoint use for string variables
and tf.data iterators: their attribute paths, as TensorFlow 2.21 writes them (values and keys
below printed by TensorFlow for the same program)."""

import numpy as np

import tfunc as tf
from tfunc import portable

TF_KEYS = [  # tf.train.list_variables of TensorFlow 2.21, same program
    "_CHECKPOINTABLE_OBJECT_GRAPH",
    "f/.ATTRIBUTES/VARIABLE_VALUE",
    "it/.ATTRIBUTES/ITERATOR_STATE",
    "m/its/0/.ATTRIBUTES/ITERATOR_STATE",
    "m/tag/.ATTRIBUTES/VARIABLE_VALUE",
    "s/.ATTRIBUTES/VARIABLE_VALUE",
    "save_counter/.ATTRIBUTES/VARIABLE_VALUE",
]


def _save(tmp_path):
    m = tf.Module()
    m.tag = tf.Variable([b"x", b"yz"])
    m.its = [iter(tf.data.Dataset.range(5))]
    it = iter(tf.data.Dataset.range(10))
    pull = tf.function(lambda: next(it))
    assert [int(pull()), int(next(it))] == [0, 1]  # moved in a function and eagerly
    ckpt = tf.train.Checkpoint(s=tf.Variable(b"hello"), m=m, f=tf.Variable(1.0), it=it)
    return ckpt.save(str(tmp_path / "ckpt"))


def test_string_variables_and_iterators_listed_by_path(tmp_path):
    path = _save(tmp_path)
    assert [k for k, _ in tf.train.list_variables(path)] == TF_KEYS
    reader = tf.train.load_checkpoint(path)
    assert all(reader.has_tensor(k) for k in TF_KEYS)
    assert reader.get_variable_to_dtype_map()["s/.ATTRIBUTES/VARIABLE_VALUE"] == tf.string


def test_string_values_read_as_tensorflow_returns_them(tmp_path):
    path = _save(tmp_path)
    reader = tf.train.load_checkpoint(path)
    for read in (lambda k: tf.train.load_variable(path, k), reader.get_tensor):
        s = read("s/.ATTRIBUTES/VARIABLE_VALUE")
        assert type(s) is bytes and s == b"hello"
        tag = read("m/tag/.ATTRIBUTES/VARIABLE_VALUE")
        assert tag.dtype == object and tag.tolist() == [b"x", b"yz"]
        f = read("f/.ATTRIBUTES/VARIABLE_VALUE")
        assert type(f) is np.float32 and f == 1.0


def test_iterator_restored_from_its_key(tmp_path):
    path = _save(tmp_path)
    it = iter(tf.data.Dataset.range(10))
    tf.train.Checkpoint(it=it).restore(path).expect_partial()
    assert int(next(it)) == 2  # TensorFlow: 2


def test_checkpoint_written_before_string_keys_still_restores(tmp_path):
    # tfunc used to write string variables without their key: they still restore (restoring
    # follows the object graph), and are listed under node_<i>
    path = _save(tmp_path)
    index = portable.checkpoint_index(path)
    body = portable.read_envelope(index, portable.CHECKPOINT_KIND)
    for node in body["nodes"]:
        node.pop("key", None)
    portable.write_envelope(index, portable.CHECKPOINT_KIND, body)
    assert not any(k.startswith("s/") for k, _ in tf.train.list_variables(path))
    s, it = tf.Variable(b""), iter(tf.data.Dataset.range(10))
    tf.train.Checkpoint(s=s, it=it).restore(path).expect_partial()
    assert s.numpy() == b"hello"
    assert int(next(it)) == 2
