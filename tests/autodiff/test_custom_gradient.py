"""tf.custom_gradient: the user's gradient function replaces what the tape would derive, in
eager code, inside a traced function (tape inside), under a tape outside a traced function
(the graph is replayed, so the function runs again for a gradient function of its own), with
variables, multiple results, None gradients, higher orders, and the errors TensorFlow gives."""

import numpy as np
import pytest

import tfunc as tf
from tfunc.testing import optimizer_options


@tf.custom_gradient
def softplus(x):
    """log(1 + e^x) with the stable derivative 1 - 1/(1 + e^x) (naively inf/inf at x = 100)."""
    e = tf.exp(x)

    def grad(dy):
        return dy * (1 - 1 / (1 + e))

    return tf.math.log(1 + e), grad


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


@tf.custom_gradient
def halved_square(x):
    """x**2 whose reported gradient is half the true one (x, not 2x): a tape that ignored
    the custom rule would give 2x."""

    def grad(dy):
        return dy * x

    return x * x, grad


def _eager_grad(f, x):
    x = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return y, tape.gradient(y, x)


@pytest.mark.filterwarnings("ignore:overflow")
@pytest.mark.parametrize("mode", ["eager", "inner_tape", "outer_tape"])
def test_each_mode_gives_the_analytic_gradient(mode):
    xs = np.array([-3.0, 0.0, 0.5, 100.0], np.float32)
    if mode == "eager":
        _, g = _eager_grad(softplus, xs)
    elif mode == "inner_tape":

        @tf.function
        def g_of(x):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = softplus(x)
            return tape.gradient(y, x)

        g = g_of(tf.constant(xs))
    else:
        g_of = tf.function(lambda x: softplus(x) * 3.0)
        _, g = _eager_grad(g_of, xs)
        g = g / 3.0
    np.testing.assert_allclose(g.numpy(), _sigmoid(xs.astype(np.float64)), rtol=1e-6)
    assert not np.isnan(g.numpy()).any()


@pytest.mark.parametrize("mode", ["eager", "inner_tape", "outer_tape"])
def test_the_rule_replaces_the_derived_gradient(mode):
    x = tf.constant([1.5, -2.0])
    if mode == "eager":
        _, g = _eager_grad(halved_square, x)
    elif mode == "inner_tape":

        @tf.function
        def g_of(x):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = halved_square(x) + 0.0
            return tape.gradient(y, x)

        g = g_of(x)
    else:
        _, g = _eager_grad(tf.function(lambda x: halved_square(x) * 1.0), x)
    np.testing.assert_allclose(g.numpy(), [1.5, -2.0])


def test_the_outer_tape_reruns_the_function_on_the_replayed_arguments():
    calls = []

    @tf.custom_gradient
    def f(x):
        calls.append(x)

        def grad(dy):
            return dy * 2 * x  # closes over this call's x

        return x * x, grad

    fn = tf.function(lambda x: f(x))
    x = tf.constant(3.0)
    assert fn(x).numpy() == 9.0  # the trace: one call
    assert len(calls) == 1
    _, g = _eager_grad(fn, 3.0)
    assert g.numpy() == 6.0
    _, g = _eager_grad(fn, 4.0)  # the backward plan is reused with a new value
    assert g.numpy() == 8.0


def test_forward_graphs_hold_no_custom_gradient_node():
    cf = tf.function(lambda x: halved_square(x) + 1.0).get_concrete_function(tf.TensorSpec([None], tf.float32))
    assert any(n.op == "custom_gradient" for n in cf.graph.as_graph_def().node)
    assert all(n.op != "custom_gradient" for n in cf.optimized_graph.nodes())
    np.testing.assert_allclose(cf(tf.constant([2.0])).numpy(), [5.0])
    with optimizer_options(arithmetic_simplification=False):  # left in: runs as an identity
        kept = tf.function(lambda x: halved_square(x) + 1.0).get_concrete_function(tf.TensorSpec([None], tf.float32))
    assert any(n.op == "custom_gradient" for n in kept.optimized_graph.nodes())
    np.testing.assert_allclose(kept(tf.constant([2.0, 3.0])).numpy(), [5.0, 10.0])


def test_variables_are_passed_to_grad_fn_and_get_its_gradients():
    w = tf.Variable(3.0)

    @tf.custom_gradient
    def scaled(x):
        def grad(dy, variables=None):
            assert [v is w for v in variables] == [True]
            return dy * w, [dy * x * 10.0]  # 10x the true d/dw, to tell the rule was used

        return x * w, grad

    def check(g):
        np.testing.assert_allclose([g[0].numpy(), g[1].numpy()], [3.0, 20.0])

    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = scaled(x)
    check(tape.gradient(y, [x, w]))

    @tf.function
    def inner(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = scaled(x)
        return tape.gradient(y, [x, w])

    check(inner(x))

    outer = tf.function(lambda x: scaled(x))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = outer(x)
    check(tape.gradient(y, [x, w]))


def test_a_variable_argument_gets_an_argument_gradient():
    v = tf.Variable(2.0)

    @tf.custom_gradient
    def f(var):
        def grad(dy):
            return dy * 7.0

        return var * var, grad

    with tf.GradientTape() as tape:
        y = f(v)
    assert tape.gradient(y, v).numpy() == 7.0


def test_grad_fn_without_variables_keyword_is_a_type_error():
    w = tf.Variable(1.0)

    @tf.custom_gradient
    def f(x):
        return x * w, lambda dy: dy

    with pytest.raises(TypeError, match="must accept keyword argument 'variables'"):
        f(tf.constant(1.0))


def test_wrong_number_of_gradients_is_a_value_error():
    @tf.custom_gradient
    def f(x, y):
        return x * y, lambda dy: dy

    x = tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        z = f(x, tf.constant(2.0))
    with pytest.raises(ValueError, match="expected to return 2 gradients, but returned 1"):
        tape.gradient(z, x)


def test_not_returning_a_pair_is_a_type_error():
    with pytest.raises(TypeError, match="must return \\(result, grad_fn\\)"):
        tf.custom_gradient(lambda x: x)(tf.constant(1.0))


@pytest.mark.parametrize("traced", [False, True])
def test_multiple_results_and_a_none_gradient(traced):
    @tf.custom_gradient
    def pair(x, z):
        def grad(da, db):
            return da * 2.0 + db * 3.0, None  # z gets no gradient, like tf.stop_gradient

        return (x * 2.0, x * 3.0 + z), grad

    def loss(x, z):
        a, b = pair(x, z)
        return a * b

    if traced:
        loss = tf.function(loss)
    x, z = tf.constant(2.0), tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch([x, z])
        y = loss(x, z)
    gx, gz = tape.gradient(y, [x, z])
    assert y.numpy() == 28.0  # a = 4, b = 7
    assert gx.numpy() == 7.0 * 2.0 + 4.0 * 3.0 and gz is None


def test_an_unused_result_gets_zero_upstream():
    seen = []

    @tf.custom_gradient
    def pair(x):
        def grad(da, db):
            seen.append(db.numpy())
            return da + db

        return (x + 1.0, x + 2.0), grad

    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        a, _ = pair(x)
    np.testing.assert_allclose(tape.gradient(a, x).numpy(), [1.0, 1.0])
    np.testing.assert_allclose(seen[0], [0.0, 0.0])


@pytest.mark.parametrize("traced", [False, True])
def test_second_order_through_nested_tapes(traced):
    @tf.custom_gradient
    def cube(x):
        def grad(dy):
            return dy * 3.0 * x * x

        return x * x * x, grad

    f = tf.function(cube) if traced else cube
    x = tf.constant(2.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        dy = inner.gradient(y, x)
    assert dy.numpy() == 12.0
    assert outer.gradient(dy, x).numpy() == 12.0  # d(3x^2)/dx = 6x


def test_the_guides_clip_gradients():
    @tf.custom_gradient
    def clip_gradients(y):
        def backward(dy):
            return tf.clip_by_norm(dy, 0.5)

        return y, backward

    v = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        output = clip_gradients(v * v)
    assert tape.gradient(output, v).numpy() == 2.0  # 2v times the clipped 0.5


def test_without_a_tape_it_is_the_plain_function():
    y = softplus(tf.constant([0.0, 1.0]))
    np.testing.assert_allclose(y.numpy(), np.log1p(np.exp([0.0, 1.0])), rtol=1e-6)
    np.testing.assert_allclose(tf.function(softplus)(tf.constant(0.0)).numpy(), np.log(2.0), rtol=1e-6)


def test_saving_works_for_the_forward_pass_and_refuses_an_unsimplified_node(tmp_path):
    class M(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def __call__(self, x):
            return halved_square(x) + 1.0

    tf.saved_model.save(M(), str(tmp_path / "ok"))
    loaded = tf.saved_model.load(str(tmp_path / "ok"))
    np.testing.assert_allclose(loaded(tf.constant([3.0])).numpy(), [10.0])
    with optimizer_options(arithmetic_simplification=False):
        with pytest.raises(Exception, match="custom_gradient op, which cannot be saved"):
            tf.saved_model.save(M(), str(tmp_path / "bad"))


@pytest.mark.parametrize("tape", ["inside", "outside"])
@pytest.mark.parametrize("where", ["nested_function", "while_loop", "cond"])
def test_inside_nested_functions_loops_and_branches(where, tape):
    inner = tf.function(lambda x: halved_square(x))

    def body(x):
        if where == "nested_function":
            return inner(x)
        if where == "while_loop":
            s = tf.constant(0.0)
            for _ in tf.range(3):
                s += halved_square(x)
            return s
        if x > 0:
            return halved_square(x)
        return x

    expected = {"nested_function": 3.0, "while_loop": 9.0, "cond": 3.0}[where]  # x = 3, grad x per use
    x = tf.constant(3.0)
    if tape == "inside":

        @tf.function
        def g_of(x):
            with tf.GradientTape() as t:
                t.watch(x)
                y = body(x)
            return t.gradient(y, x)

        g = g_of(x)
    else:
        _, g = _eager_grad(tf.function(body), 3.0)
    assert g.numpy() == expected


def test_keyword_arguments_reach_the_function():
    @tf.custom_gradient
    def scaled(x, k=2.0):
        def grad(dy):
            return dy * k

        return x * k, grad

    x = tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = scaled(x, k=5.0)
    assert y.numpy() == 5.0 and tape.gradient(y, x).numpy() == 5.0


def test_a_method_binds_self_outside_the_differentiated_arguments():
    class Scaler:
        factor = 5.0

        @tf.custom_gradient
        def f(self, x):
            return x * 2.0, lambda dy: dy * self.factor  # one gradient: for x, not for self

    m = Scaler()

    def grad(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = m.f(x)
        return tape.gradient(y, x)

    x = tf.constant(3.0)
    assert float(grad(x)) == float(tf.function(grad)(x)) == 5.0
    assert float(m.f(x)) == 6.0 and Scaler.f.__name__ == "f"
