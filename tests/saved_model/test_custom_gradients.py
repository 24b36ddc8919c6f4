"""Custom gradients in a SavedModel: ``tf.saved_model.SaveOptions(experimental_custom_gradients=
...)``.  A function that used ``tf.custom_gradient`` is saved with its gradient (TensorFlow's
default), so the loaded function's gradient is the custom one: eagerly, inside another
function, for variables, and to second order.  Saved without, a gradient through it raises
TensorFlow's LookupError."""

import numpy as np
import pytest

import tfunc as tf
from tfunc import portable

from .helpers import edit_description


@tf.custom_gradient
def clip_gradients(y):
    def backward(dy):
        return tf.clip_by_norm(dy, 0.5)

    return y, backward


class ClipModule(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec(None)])
    def call_custom_grad(self, x):
        return clip_gradients(x)


def _grad_of_loaded(path, x):
    loaded = tf.saved_model.load(path)
    with tf.GradientTape() as t:
        result = loaded.call_custom_grad(x)
    return t.gradient(result, x)


def test_the_advanced_autodiff_guide_cell(tmp_path, capsys):
    model = ClipModule()
    tf.saved_model.save(
        model, str(tmp_path / "saved_model"), options=tf.saved_model.SaveOptions(experimental_custom_gradients=True)
    )
    # The loaded gradients will be the same as the above example.
    v = tf.Variable(2.0)
    loaded = tf.saved_model.load(str(tmp_path / "saved_model"))
    with tf.GradientTape() as t:
        result = loaded.call_custom_grad(v)
    print(t.gradient(result, v))
    assert capsys.readouterr().out == "tf.Tensor(0.5, shape=(), dtype=float32)\n"


def test_custom_gradients_are_saved_by_default(tmp_path):
    tf.saved_model.save(ClipModule(), str(tmp_path / "m"))
    g = _grad_of_loaded(str(tmp_path / "m"), tf.Variable([3.0, 4.0]))
    np.testing.assert_allclose(g.numpy(), [0.5**1.5, 0.5**1.5], rtol=1e-6)  # [1, 1] clipped to norm 0.5
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    assert loaded.call_custom_grad(tf.constant([3.0, 4.0])).numpy().tolist() == [3.0, 4.0]


def test_saved_without_custom_gradients_a_gradient_raises(tmp_path):
    path = str(tmp_path / "m")
    tf.saved_model.save(ClipModule(), path, options=tf.saved_model.SaveOptions(experimental_custom_gradients=False))
    loaded = tf.saved_model.load(path)
    v = tf.Variable(2.0)
    assert loaded.call_custom_grad(v).numpy() == 2.0  # the forward pass is there
    with tf.GradientTape() as t:
        result = loaded.call_custom_grad(v)
    with pytest.raises(LookupError, match=r"No gradient defined for operation 'IdentityN' \(op type: IdentityN\)"):
        t.gradient(result, v)


def test_variables_read_by_the_function_get_their_custom_gradient(tmp_path):
    class Scaled(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable([1.0, 2.0])

        @tf.function(input_signature=[tf.TensorSpec([2])])
        def __call__(self, x):
            @tf.custom_gradient
            def scaled(x):
                y = x * self.w

                def grad(dy, variables=None):
                    return dy * 10.0, [tf.reduce_sum(dy * x) * 100.0 * tf.ones_like(self.w)]

                return y, grad

            return tf.reduce_sum(scaled(x))

    m = Scaled()
    x = tf.constant([3.0, 5.0])
    with tf.GradientTape() as t:
        t.watch(x)
        y = m(x)
    expected = [g.numpy() for g in t.gradient(y, [x, m.w])]
    np.testing.assert_allclose(expected[0], [10.0, 10.0])
    np.testing.assert_allclose(expected[1], [800.0, 800.0])
    tf.saved_model.save(m, str(tmp_path / "m"))
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    with tf.GradientTape() as t:
        t.watch(x)
        y = loaded(x)
    assert y.numpy() == 13.0
    gx, gw = t.gradient(y, [x, loaded.w])
    np.testing.assert_allclose(gx.numpy(), expected[0])
    np.testing.assert_allclose(gw.numpy(), expected[1])


def test_a_loaded_function_called_inside_another_function_keeps_its_gradient(tmp_path):
    tf.saved_model.save(ClipModule(), str(tmp_path / "m"))
    loaded = tf.saved_model.load(str(tmp_path / "m"))

    @tf.function
    def outer(x):
        return 3.0 * loaded.call_custom_grad(x * 2.0)

    x = tf.constant([3.0, 4.0])
    with tf.GradientTape() as t:
        t.watch(x)
        y = outer(x)
    np.testing.assert_allclose(y.numpy(), [18.0, 24.0])
    # upstream [3, 3] clipped to norm 0.5, then times 2 for x * 2
    np.testing.assert_allclose(t.gradient(y, x).numpy(), [2 * 0.5**1.5, 2 * 0.5**1.5], rtol=1e-6)


def test_second_order_gradients_go_through_the_saved_backward_graph(tmp_path):
    @tf.custom_gradient
    def cube(x):
        def grad(dy):
            return dy * 6.0 * x * x  # twice the true derivative

        return x * x * x, grad

    class Cube(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([])])
        def f(self, x):
            return cube(x)

    tf.saved_model.save(Cube(), str(tmp_path / "m"))
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    x = tf.constant(2.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = loaded.f(x)
        dy = inner.gradient(y, x)
    assert dy.numpy() == pytest.approx(24.0)  # 6 x^2
    assert outer.gradient(dy, x).numpy() == pytest.approx(24.0)  # 12 x


def test_save_and_load_options_are_checked():
    with pytest.raises(TypeError, match="experimental_custom_gradients must be a bool"):
        tf.saved_model.SaveOptions(experimental_custom_gradients="yes")
    with pytest.raises(NotImplementedError, match="save_debug_info=True"):
        tf.saved_model.SaveOptions(save_debug_info=True)
    with pytest.raises(NotImplementedError, match="allow_partial_checkpoint"):
        tf.saved_model.LoadOptions(allow_partial_checkpoint=True)
    assert tf.saved_model.SaveOptions(experimental_io_device="/job:localhost").experimental_custom_gradients
    with pytest.raises(TypeError, match="options must be a tf.saved_model.SaveOptions, got dict"):
        tf.saved_model.save(ClipModule(), "unused", options={"experimental_custom_gradients": True})
    with pytest.raises(TypeError, match="options must be a tf.saved_model.LoadOptions"):
        tf.saved_model.load("unused", options=tf.saved_model.SaveOptions())


def test_the_numpy_loader_runs_a_model_with_a_saved_gradient(tmp_path):
    tf.saved_model.save(ClipModule(), str(tmp_path / "m"))
    model = portable.load(str(tmp_path / "m"))
    out = model.call_custom_grad(np.array([1.0, -2.0], np.float32))
    np.testing.assert_allclose(out, [1.0, -2.0])


def test_a_damaged_gradient_entry_is_refused(tmp_path):
    path = str(tmp_path / "m")
    tf.saved_model.save(ClipModule(), path)

    def drop_backward_output(body):
        fn = next(f for f in body["functions"] if "gradient" in f)
        fn["gradient"]["has_grad"] = fn["gradient"]["has_grad"] + [True]

    edit_description(path, drop_backward_output)
    with pytest.raises(tf.errors.DataLossError, match="has_grad needs one entry per input and variable"):
        tf.saved_model.load(path)
