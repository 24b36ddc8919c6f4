"""tf.saved_model.save / load edge cases checked against TensorFlow 2.21: functions made from
lambdas, automatic signatures, Keras models, signature calls, the variables' file layout."""

import numpy as np
import pytest

import tfunc as tf


def _roundtrip(obj, path, **kwargs):
    tf.saved_model.save(obj, str(path), **kwargs)
    return tf.saved_model.load(str(path))


def test_function_of_a_lambda_loads(tmp_path):
    # TF: saves and loads; the loaded function computes 3 * 2 = 6.
    root = tf.Module()
    root.v = tf.Variable(2.0)
    root.f = tf.function(
        lambda x: tf.cond(x > 0, lambda: x * root.v, lambda: -x), input_signature=[tf.TensorSpec([], tf.float32)]
    )
    loaded = _roundtrip(root, tmp_path / "m")
    assert float(loaded.f(tf.constant(3.0))) == 6.0
    assert float(tf.function(lambda x: loaded.f(x))(tf.constant(-4.0))) == 4.0


def test_automatic_signature_skips_functions_that_cannot_be_signatures(tmp_path):
    # TF: a function returning a nested structure is no signature (saved, no serving_default);
    # with another, valid one beside it, that one is serving_default; a traced concrete function
    # counts; a function returning nothing does not.
    spec = [tf.TensorSpec([None], tf.float32)]

    class Nested(tf.Module):
        @tf.function(input_signature=spec)
        def f(self, x):
            return {"a": x * 2.0, "c": (x, x + 1.0)}

    loaded = _roundtrip(Nested(), tmp_path / "nested")
    assert list(loaded.signatures) == []
    assert loaded.f(tf.constant([1.0]))["c"][1].numpy().tolist() == [2.0]
    assert tf.function(lambda x: loaded.f(x)["a"])(tf.constant([3.0])).numpy().tolist() == [6.0]

    root = Nested()
    root.g = tf.function(lambda x: x + 1.0, input_signature=spec)
    sig = _roundtrip(root, tmp_path / "two").signatures["serving_default"]
    assert sig(x=tf.constant([1.0]))["output_0"].numpy().tolist() == [2.0]

    root = tf.Module()
    root.c = tf.function(lambda x: x * 3.0).get_concrete_function(spec[0])
    root.e = tf.function(lambda x: {}, input_signature=spec)
    sig = _roundtrip(root, tmp_path / "concrete").signatures["serving_default"]
    assert tf.function(lambda x: sig(x=x)["output_0"])(tf.constant([1.0])).numpy().tolist() == [3.0]


def test_default_save_signature_attribute_is_served(tmp_path):
    # TF's find_function_to_export serves an object's `_default_save_signature` function (Keras
    # models define it as their call); unset (None), the usual search applies.
    class Served(tf.Module):
        def __init__(self, default):
            super().__init__()
            self.w = tf.Variable(3.0)
            self._default = default

        @property
        def _default_save_signature(self):
            if not self._default:
                return None
            return tf.function(lambda inputs: inputs * self.w, input_signature=[tf.TensorSpec([None], tf.float32)])

        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def other(self, x):
            return x + 1.0

    sig = _roundtrip(Served(True), tmp_path / "served").signatures["serving_default"]
    assert list(sig.structured_input_signature[1]) == ["inputs"]
    assert sig(inputs=tf.constant([2.0]))["output_0"].numpy().tolist() == [6.0]
    sig = _roundtrip(Served(False), tmp_path / "search").signatures["serving_default"]
    assert sig(x=tf.constant([2.0]))["output_0"].numpy().tolist() == [3.0]


def test_signature_with_one_input_takes_it_by_position(tmp_path):
    # TF 2.21: one input may be passed by position (a tensor); several are keyword-only.
    spec = tf.TensorSpec([None], tf.float32)
    root = tf.Module()
    root.one = tf.function(lambda x: x * 2.0, input_signature=[spec])
    root.two = tf.function(lambda x, y: {"o": x * 2.0 + y}, input_signature=[spec, spec])
    loaded = _roundtrip(root, tmp_path / "m", signatures={"one": root.one, "two": root.two})
    one, two = loaded.signatures["one"], loaded.signatures["two"]
    assert one(tf.constant([1.0, 2.0]))["output_0"].numpy().tolist() == [2.0, 4.0]
    assert tf.function(lambda x: one(x)["output_0"])(tf.constant([3.0])).numpy().tolist() == [6.0]
    with pytest.raises(TypeError, match="Tensor"):
        one([1.0])
    with pytest.raises(TypeError, match="two values"):
        one(tf.constant([1.0]), x=tf.constant([1.0]))
    with pytest.raises(TypeError, match="keyword"):
        two(tf.constant([1.0]), y=tf.constant([1.0]))
    assert two(x=tf.constant([1.0]), y=tf.constant([10.0]))["o"].numpy().tolist() == [12.0]
    np.testing.assert_array_equal(one(tf.Variable([1.0]))["output_0"].numpy(), [2.0])


class _Vars(tf.Module):
    def __init__(self, a):
        super().__init__()
        self.v = tf.Variable(a)
        self.l = [tf.Variable(a * 2.0)]


def test_checkpoint_restores_the_export_variables_prefix(tmp_path):
    # TF: the export's variables are the checkpoint export_dir/variables/variables.
    d = str(tmp_path / "m")
    source = _Vars(3.0)
    tf.saved_model.save(source, d)
    prefix = d + "/variables/variables"
    assert [k for k, _ in tf.train.list_variables(prefix)] == [
        "_CHECKPOINTABLE_OBJECT_GRAPH",
        "l/0/.ATTRIBUTES/VARIABLE_VALUE",
        "v/.ATTRIBUTES/VARIABLE_VALUE",
    ]
    target = _Vars(0.0)
    tf.train.Checkpoint(target).restore(prefix)
    assert (float(target.v), float(target.l[0])) == (3.0, 6.0)
    # saved again in place: the prefix follows, and the old data file is gone
    source.v.assign(5.0)
    tf.saved_model.save(source, d)
    tf.train.Checkpoint(target).restore(prefix)
    assert float(tf.function(lambda: target.v + target.l[0])()) == 11.0
    assert len(list((tmp_path / "m" / "variables").glob("*.data-*"))) == 1
