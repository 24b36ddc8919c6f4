"""NumPy text arrays (str, bytes, or objects all of them) are string tensor arguments of a
tf.function, as TensorFlow takes them; other object arrays are not tensors."""

import numpy as np
import pytest

import tfunc as tf


@pytest.mark.parametrize(
    "arg",
    [np.array([b"ab", b"c"]), np.array(["ab", "c"]), np.array([b"ab", "c"], dtype=object)],
    ids=["bytes", "str", "object"],
)
def test_text_arrays_are_string_tensor_arguments(arg):
    f = tf.function(lambda s: (tf.strings.length(s), s))
    lengths, same = f(arg)
    np.testing.assert_array_equal(lengths.numpy(), [2, 1])  # TF 2.21: [2 1]
    assert same.dtype == tf.string and list(same.numpy()) == [b"ab", b"c"]
    assert f(np.array(["xyz", "w"])).__getitem__(0).numpy().tolist() == [3, 1]
    assert f.experimental_get_tracing_count() == 1  # one string spec of shape (2,)


def test_an_object_array_of_other_values_is_not_a_tensor_argument():
    with pytest.raises(TypeError, match="TraceType"):
        tf.function(lambda s: s)(np.array([1, None], dtype=object))
