"""The "Introduction to gradients and automatic differentiation" and "Advanced automatic
differentiation" guides, cell by cell, with ``import tfunc as tf``: the values, shapes and
Nones TensorFlow prints.  Cells not here: plots (matplotlib), and custom gradients saved in a
SavedModel (``tests/saved_model/test_custom_gradients.py`` runs that cell)."""

import numpy as np
import pytest

import tfunc as tf


def test_computing_gradients():
    x = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = x**2
    assert tape.gradient(y, x).numpy() == 6.0

    w = tf.Variable(tf.random.normal((3, 2)), name="w")
    b = tf.Variable(tf.zeros(2, dtype=tf.float32), name="b")
    x = [[1.0, 2.0, 3.0]]
    with tf.GradientTape(persistent=True) as tape:
        y = x @ w + b
        loss = tf.reduce_mean(y**2)
    [dl_dw, dl_db] = tape.gradient(loss, [w, b])
    assert str(w.shape) == "(3, 2)" and str(dl_dw.shape) == "(3, 2)"
    grad = tape.gradient(loss, {"w": w, "b": b})
    assert grad["b"].shape == (2,) and grad["b"].dtype == tf.float32
    np.testing.assert_allclose(grad["b"].numpy(), dl_db.numpy())


def test_gradients_with_respect_to_a_model():
    layer = tf.keras.layers.Dense(2, activation="relu")
    x = tf.constant([[1.0, 2.0, 3.0]])
    with tf.GradientTape() as tape:
        y = layer(x)
        loss = tf.reduce_mean(y**2)
    grad = tape.gradient(loss, layer.trainable_variables)
    assert [tuple(g.shape) for g in grad] == [(3, 2), (2,)]


def test_controlling_what_the_tape_watches(capsys):
    x0 = tf.Variable(3.0, name="x0")
    x1 = tf.Variable(3.0, name="x1", trainable=False)
    x2 = tf.Variable(2.0, name="x2") + 1.0
    x3 = tf.constant(3.0, name="x3")
    with tf.GradientTape() as tape:
        y = (x0**2) + (x1**2) + (x2**2)
    grad = tape.gradient(y, [x0, x1, x2, x3])
    for g in grad:
        print(g)
    assert capsys.readouterr().out == "tf.Tensor(6.0, shape=(), dtype=float32)\nNone\nNone\nNone\n"
    assert [var.name for var in tape.watched_variables()] == ["x0:0"]

    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x**2
    assert tape.gradient(y, x).numpy() == 6.0

    x0 = tf.Variable(0.0)
    x1 = tf.Variable(10.0)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(x1)
        y0 = tf.math.sin(x0)
        y1 = tf.nn.softplus(x1)
        y = y0 + y1
        ys = tf.reduce_sum(y)
    grad = tape.gradient(ys, {"x0": x0, "x1": x1})
    assert grad["x0"] is None
    assert grad["x1"].numpy() == pytest.approx(0.9999546, rel=1e-6)


def test_intermediate_results_and_persistent_tapes():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    assert tape.gradient(z, y).numpy() == 18.0

    x = tf.constant([1, 3.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    assert tape.gradient(z, x).numpy().tolist() == [4.0, 108.0]
    assert tape.gradient(y, x).numpy().tolist() == [2.0, 6.0]
    del tape


def test_gradients_of_non_scalar_targets():
    x = tf.Variable(2.0)
    with tf.GradientTape(persistent=True) as tape:
        y0 = x**2
        y1 = 1 / x
    assert tape.gradient(y0, x).numpy() == 4.0
    assert tape.gradient(y1, x).numpy() == -0.25

    x = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y0 = x**2
        y1 = 1 / x
    assert tape.gradient({"y0": y0, "y1": y1}, x).numpy() == 3.75

    x = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = x * [3.0, 4.0]
    assert tape.gradient(y, x).numpy() == 7.0

    x = tf.linspace(-10.0, 10.0, 200 + 1)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.sigmoid(x)
    dy_dx = tape.gradient(y, x)
    assert dy_dx.shape == (201,)
    np.testing.assert_allclose(dy_dx.numpy(), (y * (1 - y)).numpy(), rtol=1e-5, atol=1e-7)


def test_control_flow_and_cases_where_gradient_is_none(capsys):
    x = tf.constant(1.0)
    v0 = tf.Variable(2.0)
    v1 = tf.Variable(2.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        if x > 0.0:
            result = v0
        else:
            result = v1**2
    dv0, dv1 = tape.gradient(result, [v0, v1])
    print(dv0)
    print(dv1)
    print(tape.gradient(result, x))

    x = tf.Variable(2.0)
    y = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        z = y * y
    print(tape.gradient(z, x))
    assert capsys.readouterr().out == "tf.Tensor(1.0, shape=(), dtype=float32)\nNone\nNone\nNone\n"

    x = tf.Variable(2.0)
    types = []
    for _ in range(2):
        with tf.GradientTape() as tape:
            y = x + 1
        types.append(tape.gradient(y, x))
        x = x + 1  # This should be `x.assign_add(1)`
    assert float(types[0]) == 1.0 and types[1] is None and type(x).__name__ == "EagerTensor"

    x = tf.Variable([[1.0, 2.0], [3.0, 4.0]], dtype=tf.float32)
    with tf.GradientTape() as tape:
        x2 = x**2
        y = np.mean(x2, axis=0)  # calculated with NumPy
        y = tf.reduce_mean(y, axis=0)
    assert tape.gradient(y, x) is None

    x = tf.constant(10)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    assert g.gradient(y, x) is None

    x0 = tf.Variable(3.0)
    x1 = tf.Variable(0.0)
    with tf.GradientTape() as tape:
        x1.assign_add(x0)
        y = x1**2
    assert tape.gradient(y, x0) is None


def test_zeros_instead_of_none():
    x = tf.Variable([2.0, 2.0])
    y = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        z = y**2
    assert str(tape.gradient(z, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)) == (
        "tf.Tensor([0. 0.], shape=(2,), dtype=float32)"
    )


# --- advanced automatic differentiation ----------------------------------------------------------


def test_stop_recording_reset_and_stop_gradient(capsys):
    x = tf.Variable(2.0)
    y = tf.Variable(3.0)
    with tf.GradientTape() as t:
        x_sq = x * x
        with t.stop_recording():
            y_sq = y * y
        z = x_sq + y_sq
    grad = t.gradient(z, {"x": x, "y": y})
    print("dz/dx:", grad["x"])
    print("dz/dy:", grad["y"])

    reset = True
    with tf.GradientTape() as t:
        y_sq = y * y
        if reset:
            t.reset()
        z = x * x + y_sq
    grad = t.gradient(z, {"x": x, "y": y})
    print("dz/dx:", grad["x"])
    print("dz/dy:", grad["y"])

    with tf.GradientTape() as t:
        y_sq = y**2
        z = x**2 + tf.stop_gradient(y_sq)
    grad = t.gradient(z, {"x": x, "y": y})
    print("dz/dx:", grad["x"])
    print("dz/dy:", grad["y"])
    line = "dz/dx: tf.Tensor(4.0, shape=(), dtype=float32)\ndz/dy: None\n"
    assert capsys.readouterr().out == line * 3


def test_multiple_tapes_and_higher_order_gradients():
    x0 = tf.constant(0.0)
    x1 = tf.constant(0.0)
    with tf.GradientTape() as tape0, tf.GradientTape() as tape1:
        tape0.watch(x0)
        tape1.watch(x1)
        y0 = tf.math.sin(x0)
        y1 = tf.nn.sigmoid(x1)
        y = y0 + y1
        ys = tf.reduce_sum(y)
    assert tape0.gradient(ys, x0).numpy() == 1.0
    assert tape1.gradient(ys, x1).numpy() == 0.25

    x = tf.Variable(1.0)
    with tf.GradientTape() as t2:
        with tf.GradientTape() as t1:
            y = x * x * x
        dy_dx = t1.gradient(y, x)
    d2y_dx2 = t2.gradient(dy_dx, x)
    assert dy_dx.numpy() == 3.0 and d2y_dx2.numpy() == 6.0


def test_jacobians():
    x = tf.linspace(-10.0, 10.0, 200 + 1)
    delta = tf.Variable(0.0)
    with tf.GradientTape() as tape:
        y = tf.nn.sigmoid(x + delta)
    dy_dx = tape.jacobian(y, delta)
    assert y.shape == (201,) and dy_dx.shape == (201,)

    x = tf.random.normal([7, 5])
    layer = tf.keras.layers.Dense(10, activation=tf.nn.relu)
    with tf.GradientTape(persistent=True) as tape:
        y = layer(x)
    assert y.shape == (7, 10) and layer.kernel.shape == (5, 10)
    j = tape.jacobian(y, layer.kernel)
    assert j.shape == (7, 10, 5, 10)
    g = tape.gradient(y, layer.kernel)
    assert str(g.shape) == "(5, 10)"
    j_sum = tf.reduce_sum(j, axis=[0, 1])
    assert tf.reduce_max(abs(g - j_sum)).numpy() < 1e-3

    x = tf.random.normal([7, 5])
    layer1 = tf.keras.layers.Dense(8, activation=tf.nn.elu)
    layer2 = tf.keras.layers.Dense(6, activation=tf.nn.elu)
    with tf.GradientTape(persistent=True, watch_accessed_variables=False) as tape:
        tape.watch(x)
        y = layer1(x)
        y = layer2(y)
    assert y.shape == (7, 6)
    j = tape.jacobian(y, x)
    assert j.shape == (7, 6, 7, 5)
    jb = tape.batch_jacobian(y, x)
    assert jb.shape == (7, 6, 5)
    diag = tf.stack([j[i, :, i, :] for i in range(7)])
    assert tf.reduce_max(abs(jb - diag)).numpy() == 0.0


def test_custom_gradients(capsys):
    # Establish an identity operation, but clip during the gradient pass.
    @tf.custom_gradient
    def clip_gradients(y):
        def backward(dy):
            return tf.clip_by_norm(dy, 0.5)

        return y, backward

    v = tf.Variable(2.0)
    with tf.GradientTape() as t:
        output = clip_gradients(v * v)
    print(t.gradient(output, v))  # calls "backward", which clips 4 to 2
    assert capsys.readouterr().out == "tf.Tensor(2.0, shape=(), dtype=float32)\n"


def test_input_gradient_regularization():
    x = tf.random.normal([7, 5])
    layer = tf.keras.layers.Dense(10, activation=tf.nn.relu)
    with tf.GradientTape() as t2:
        with tf.GradientTape(watch_accessed_variables=False) as t1:
            t1.watch(x)
            y = layer(x)  # noqa: F841 (as in the guide)
            out = tf.reduce_sum(layer(x) ** 2)
        g1 = t1.gradient(out, x)
        g1_mag = tf.norm(g1)
    dg1_mag = t2.gradient(g1_mag, layer.trainable_variables)
    assert [tuple(var.shape) for var in dg1_mag] == [(5, 10), (10,)]


def test_hessian_and_a_newton_step(capsys):
    x = tf.random.normal([7, 5])
    layer1 = tf.keras.layers.Dense(8, activation=tf.nn.relu)
    layer2 = tf.keras.layers.Dense(6, activation=tf.nn.relu)
    with tf.GradientTape() as t2:
        with tf.GradientTape() as t1:
            x = layer1(x)
            x = layer2(x)
            loss = tf.reduce_mean(x**2)
        g = t1.gradient(loss, layer1.kernel)
    h = t2.jacobian(g, layer1.kernel)
    print(f"layer.kernel.shape: {layer1.kernel.shape}")
    print(f"h.shape: {h.shape}")
    assert capsys.readouterr().out == "layer.kernel.shape: (5, 8)\nh.shape: (5, 8, 5, 8)\n"

    n_params = tf.reduce_prod(layer1.kernel.shape)
    g_vec = tf.reshape(g, [n_params, 1])
    h_mat = tf.reshape(h, [n_params, n_params])
    np.testing.assert_allclose(h_mat.numpy(), h_mat.numpy().T, atol=1e-5)  # "should be symmetric"
    eps = 1e-3
    eye_eps = tf.eye(h_mat.shape[0]) * eps
    update = tf.linalg.solve(h_mat + eye_eps, g_vec)
    before = layer1.kernel.numpy()
    _ = layer1.kernel.assign_sub(tf.reshape(update, layer1.kernel.shape))
    np.testing.assert_allclose((h_mat + eye_eps).numpy() @ update.numpy(), g_vec.numpy(), atol=1e-4)
    np.testing.assert_allclose(layer1.kernel.numpy(), before - update.numpy().reshape(5, 8), rtol=1e-6)


def test_batch_jacobian_by_summing_or_einsum(capsys):
    x = tf.random.normal([7, 5])
    layer1 = tf.keras.layers.Dense(8, activation=tf.nn.elu)
    layer2 = tf.keras.layers.Dense(6, activation=tf.nn.elu)
    with tf.GradientTape(persistent=True, watch_accessed_variables=False) as tape:
        tape.watch(x)
        y = layer1(x)
        y = layer2(y)
    j = tape.jacobian(y, x)
    j_sum = tf.reduce_sum(j, axis=2)
    print(j_sum.shape)
    j_select = tf.einsum("bxby->bxy", j)
    print(j_select.shape)
    assert capsys.readouterr().out == "(7, 6, 5)\n(7, 6, 5)\n"
    np.testing.assert_allclose(j_sum.numpy(), j_select.numpy(), atol=1e-6)
    np.testing.assert_allclose(tape.batch_jacobian(y, x).numpy(), j_select.numpy(), atol=1e-6)


def test_an_op_without_a_registered_gradient(capsys):
    image = tf.Variable([[[0.5, 0.0, 0.0]]])
    delta = tf.Variable(0.1)
    with tf.GradientTape() as tape:
        new_image = tf.image.adjust_contrast(image, delta)
    try:
        print(tape.gradient(new_image, [image, delta]))
        raise AssertionError("This should not happen.")
    except LookupError as e:
        print(f"{type(e).__name__}: {e}")
    assert capsys.readouterr().out == "LookupError: gradient registry has no entry for: AdjustContrastv2\n"
    np.testing.assert_allclose(new_image.numpy(), [[[0.5, 0.0, 0.0]]])  # one pixel: its own mean
