"""``keras.InputSpec`` and the check of a layer's ``input_spec`` before each call, with
Keras 3.15's messages (checked against Keras on TensorFlow 2.21)."""

import numpy as np
import pytest

import tfunc as tf

keras = tf.keras


class Echo(keras.layers.Layer):
    def __init__(self, spec):
        super().__init__()
        self.input_spec = spec

    def call(self, x):
        return x


X = np.zeros((2, 28, 28, 1), "float32")


def test_a_matching_input_passes_and_a_trailing_axis_of_one_may_be_squeezed():
    spec = keras.InputSpec(shape=(None, 28, 28, 1), allow_last_axis_squeeze=True)
    assert Echo(spec)(X[..., 0]).shape == (2, 28, 28)
    assert keras.layers.InputSpec is keras.InputSpec


@pytest.mark.parametrize(
    "spec, message",
    [
        (keras.InputSpec(ndim=3), "expected ndim=3, found ndim=4. Full shape received: (2, 28, 28, 1)"),
        (keras.InputSpec(min_ndim=5), "expected min_ndim=5, found ndim=4"),
        (keras.InputSpec(max_ndim=3), "expected max_ndim=3, found ndim=4"),
        (keras.InputSpec(dtype="int32"), "expected dtype=int32, found dtype=float32"),
        (keras.InputSpec(axes={-1: 3}), "expected axis -1 of input shape to have value 3"),
        (keras.InputSpec(shape=(None, 27, 28, 1)), "expected shape=(None, 27, 28, 1), found shape=(2, 28, 28, 1)"),
        ([keras.InputSpec(ndim=4), keras.InputSpec(ndim=4)], "expects 2 input(s), but it received 1 input tensors"),
        ([keras.InputSpec(name="a"), keras.InputSpec(name="b")], "expects 2 named input(s) with keys ['a', 'b']"),
    ],
)
def test_mismatches_raise_kerass_errors(spec, message):
    with pytest.raises(ValueError) as e:
        Echo(spec)(X)
    assert message in str(e.value)


def test_symbolic_calls_are_checked_and_specs_round_trip():
    with pytest.raises(ValueError, match="expected axis -1 of input shape to have value 4"):
        Echo(keras.InputSpec(axes={-1: 4}))(keras.Input((5,)))
    spec = keras.InputSpec(ndim=2, axes={1: 4})
    assert spec.get_config() == {
        "dtype": None, "shape": None, "ndim": 2, "max_ndim": None, "min_ndim": None, "axes": {1: 4}, "optional": False
    }  # fmt: skip
    assert (
        repr(keras.InputSpec(shape=(None, 3), dtype="float32")) == "InputSpec(dtype=float32, shape=(None, 3), ndim=2)"
    )
    assert keras.InputSpec.from_config(spec.get_config()).axes == {1: 4}
    with pytest.raises(ValueError, match="Axis 3 is greater than the maximum allowed value: 1"):
        keras.InputSpec(ndim=2, axes={3: 1})
