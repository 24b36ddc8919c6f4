"""compile's losses, loss weights and metrics on models with nested outputs ([a, [b, c]],
{"x": a, "y": {"z": b}}, (a, {"q": b, "p": c})), matched leaf by leaf and named by path as
Keras 3.15 does ("1/d2_loss", "y/z_loss"). The names and the errors were checked against Keras
3.15; the values are NumPy formulas of the Dense layers' outputs."""

import numpy as np
import pytest

import tfunc as tf
from tfunc import keras
from tfunc.keras import layers

RNG = np.random.default_rng(0)
X = RNG.normal(size=(8, 4)).astype(np.float32)
Y1 = RNG.normal(size=(8, 1)).astype(np.float32)
Y2 = RNG.normal(size=(8, 2)).astype(np.float32)
Y3 = RNG.normal(size=(8, 2)).astype(np.float32)
SW = np.linspace(0.5, 2.0, 8).astype(np.float32)


def with_weights(model):
    rng = np.random.default_rng(1)
    model.set_weights([rng.normal(size=w.shape).astype(np.float32) for w in model.get_weights()])
    return model


def nested_model():
    i = keras.Input((4,))
    outputs = [layers.Dense(1, name="d1")(i), [layers.Dense(2, name="d2")(i), layers.Dense(2, name="d3")(i)]]
    return with_weights(keras.Model(i, outputs))


def nested_dict_model():
    i = keras.Input((4,))
    return with_weights(keras.Model(i, {"x": layers.Dense(1, name="d1")(i), "y": {"z": layers.Dense(2, name="d2")(i)}}))


def tuple_dict_model():
    i = keras.Input((4,))
    d1, d2, d3 = layers.Dense(1, name="d1"), layers.Dense(2, name="d2"), layers.Dense(2, name="d3")
    return with_weights(keras.Model(i, (d1(i), {"q": d2(i), "p": d3(i)})))


def outputs_of(model, *names):
    """The NumPy outputs of the named Dense layers."""
    return [X @ model.get_layer(n).kernel.numpy() + model.get_layer(n).bias.numpy() for n in names]


def mse(p, y, w=None):
    per_sample = np.mean((p - y) ** 2, axis=-1)
    return np.mean(per_sample if w is None else per_sample * w)


def mae(p, y, w=None):
    per_sample = np.mean(np.abs(p - y), axis=-1)
    return np.mean(per_sample if w is None else per_sample * w)


def weighted_mean_mae(p, y, w):
    return np.sum(np.mean(np.abs(p - y), axis=-1) * w) / np.sum(w)


def evaluate(model, y, sample_weight=None):
    return model.evaluate(X, y, sample_weight=sample_weight, batch_size=8, verbose=0, return_dict=True)


def assert_logs(got, expected):
    assert sorted(got) == sorted(expected)
    for k, v in expected.items():
        np.testing.assert_allclose(got[k], v, rtol=1e-5, atol=1e-6, err_msg=k)


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_one_loss_on_nested_list_outputs_is_one_loss_per_leaf(run_eagerly):
    model = nested_model()
    model.compile(keras.optimizers.SGD(0.1), loss="mse", run_eagerly=run_eagerly)
    p1, p2, p3 = outputs_of(model, "d1", "d2", "d3")
    a, b, c = mse(p1, Y1), mse(p2, Y2), mse(p3, Y3)
    expected = {"d1_loss": a, "1/d2_loss": b, "1/d3_loss": c, "loss": a + b + c}
    # labels as the outputs' structure, as tuples, or flat in flattening order
    for y in ([Y1, [Y2, Y3]], (Y1, (Y2, Y3)), [Y1, Y2, Y3]):
        assert_logs(evaluate(model, y), expected)
    out = model(X)  # the outputs keep their nesting, as in Keras
    assert isinstance(out, list) and isinstance(out[1], list) and len(out[1]) == 2
    pred = model.predict(X, verbose=0)
    assert isinstance(pred[1], list)
    np.testing.assert_allclose(pred[1][1], p3, rtol=1e-5, atol=1e-6)
    # one batch: fit's logs are of the outputs before the update
    history = model.fit(X, [Y1, [Y2, Y3]], batch_size=8, epochs=1, verbose=0).history
    assert_logs({k: v[0] for k, v in history.items()}, expected)


@pytest.mark.parametrize("run_eagerly", [False, True])
@pytest.mark.parametrize(
    "loss, loss_weights",
    [
        (["mse", ["mae", "mse"]], [1.0, [0.5, 2.0]]),
        (["mse", ["mae", "mse"]], [1.0, 0.5, 2.0]),  # weights flat, packed as the losses
        (["mse", "mae", "mse"], [1.0, 0.5, 2.0]),  # losses flat, in flattening order
        ({"d1": "mse", "d2": "mae", "d3": "mse"}, {"d1": 1.0, "d2": 0.5, "d3": 2.0}),  # by output name
    ],
)
def test_nested_losses_and_loss_weights(loss, loss_weights, run_eagerly):
    model = nested_model()
    model.compile(keras.optimizers.SGD(0.1), loss=loss, loss_weights=loss_weights, run_eagerly=run_eagerly)
    p1, p2, p3 = outputs_of(model, "d1", "d2", "d3")
    a, b, c = mse(p1, Y1), mae(p2, Y2), mse(p3, Y3)
    expected = {"d1_loss": a, "1/d2_loss": b, "1/d3_loss": c, "loss": a + 0.5 * b + 2.0 * c}
    assert_logs(evaluate(model, [Y1, [Y2, Y3]]), expected)


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_no_loss_for_some_nested_outputs(run_eagerly):
    model = nested_model()
    model.compile("sgd", loss=["mse", [None, "mae"]], run_eagerly=run_eagerly)
    p1, _, p3 = outputs_of(model, "d1", "d2", "d3")
    assert_logs(
        evaluate(model, [Y1, [Y2, Y3]]),
        {"d1_loss": mse(p1, Y1), "1/d3_loss": mae(p3, Y3), "loss": mse(p1, Y1) + mae(p3, Y3)},
    )


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_nested_dict_outputs(run_eagerly):
    y = {"x": Y1, "y": {"z": Y2}}
    model = nested_dict_model()
    p1, p2 = outputs_of(model, "d1", "d2")
    model.compile("sgd", loss="mse", run_eagerly=run_eagerly)
    assert_logs(evaluate(model, y), {"x_loss": mse(p1, Y1), "y/z_loss": mse(p2, Y2), "loss": mse(p1, Y1) + mse(p2, Y2)})
    model.compile(
        "sgd",
        loss={"x": "mse", "y": {"z": "mae"}},
        loss_weights={"x": 0.5, "y": {"z": 2.0}},
        run_eagerly=run_eagerly,
    )
    expected = {"x_loss": mse(p1, Y1), "y/z_loss": mae(p2, Y2), "loss": 0.5 * mse(p1, Y1) + 2.0 * mae(p2, Y2)}
    assert_logs(evaluate(model, y), expected)


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_tuple_of_output_and_dict_losses_and_metrics(run_eagerly):
    model = tuple_dict_model()
    p1, p2, p3 = outputs_of(model, "d1", "d2", "d3")
    y = (Y1, {"q": Y2, "p": Y3})
    model.compile(
        "sgd",
        loss=("mse", {"q": "mae", "p": "mse"}),
        metrics=(["mae"], {"q": ["mse"], "p": ["mae"]}),
        run_eagerly=run_eagerly,
    )
    expected = {
        "d1_loss": mse(p1, Y1),
        "1/q_loss": mae(p2, Y2),
        "1/p_loss": mse(p3, Y3),
        "loss": mse(p1, Y1) + mae(p2, Y2) + mse(p3, Y3),
        "d1_mae": mae(p1, Y1),  # metrics named after the output layers
        "d2_mse": mse(p2, Y2),
        "d3_mae": mae(p3, Y3),
    }
    assert_logs(evaluate(model, y), expected)


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_metrics_on_nested_outputs(run_eagerly):
    model = nested_model()
    p1, p2, p3 = outputs_of(model, "d1", "d2", "d3")
    model.compile(
        "sgd",
        loss="mse",
        metrics=[["mae"], [["mse"], ["mae", "mse"]]],
        weighted_metrics=[["mae"], [["mae"], ["mae"]]],
        run_eagerly=run_eagerly,
    )
    expected = {
        "d1_loss": mse(p1, Y1, SW),
        "1/d2_loss": mse(p2, Y2, SW),
        "1/d3_loss": mse(p3, Y3, SW),
        "loss": mse(p1, Y1, SW) + mse(p2, Y2, SW) + mse(p3, Y3, SW),
        "d1_mae": mae(p1, Y1),
        "d2_mse": mse(p2, Y2),
        "d3_mae": mae(p3, Y3),
        "d3_mse": mse(p3, Y3),
        "d1_weighted_mae": weighted_mean_mae(p1, Y1, SW),
        "d2_mae": weighted_mean_mae(p2, Y2, SW),
        "d3_weighted_mae": weighted_mean_mae(p3, Y3, SW),
    }
    # one sample weight for every output, or one per output in the outputs' structure
    for sample_weight in (SW, [SW, [SW, SW]]):
        assert_logs(evaluate(model, [Y1, [Y2, Y3]], sample_weight), expected)


def test_what_keras_refuses_on_nested_outputs():
    model = nested_model()
    model.compile("sgd", loss="mse", metrics=["mae"])  # neither one per top-level output nor the structure
    with pytest.raises(ValueError, match="Invalid `metrics`"):
        evaluate(model, [Y1, [Y2, Y3]])
    model.compile("sgd", loss="mse", loss_weights=[1.0, 2.0])
    with pytest.raises(ValueError, match="`loss_weights` must match the number of losses"):
        evaluate(model, [Y1, [Y2, Y3]])
    model.compile("sgd", loss="mse")
    with pytest.raises(ValueError, match="different structures"):
        evaluate(model, [Y1, Y2])


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_train_on_batch_gradients_of_nested_losses(run_eagerly):
    model = nested_model()
    lr = 0.1
    model.compile(
        keras.optimizers.SGD(lr), loss=["mse", ["mae", "mse"]], loss_weights=[1.0, [0.5, 2.0]], run_eagerly=run_eagerly
    )
    before = {n: (model.get_layer(n).kernel.numpy(), model.get_layer(n).bias.numpy()) for n in ("d1", "d2", "d3")}
    p1, p2, p3 = outputs_of(model, "d1", "d2", "d3")
    logs = model.train_on_batch(X, [Y1, [Y2, Y3]], return_dict=True)
    a, b, c = mse(p1, Y1), mae(p2, Y2), mse(p3, Y3)
    assert_logs(logs, {"d1_loss": a, "1/d2_loss": b, "1/d3_loss": c, "loss": a + 0.5 * b + 2.0 * c})
    # d(total)/d(output): each output's loss is a mean over its elements, times its weight
    grads = {
        "d1": 1.0 * 2 * (p1 - Y1) / p1.size,
        "d2": 0.5 * np.sign(p2 - Y2) / p2.size,
        "d3": 2.0 * 2 * (p3 - Y3) / p3.size,
    }
    for name, g in grads.items():
        kernel, bias = before[name]
        np.testing.assert_allclose(model.get_layer(name).kernel.numpy(), kernel - lr * X.T @ g, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(model.get_layer(name).bias.numpy(), bias - lr * g.sum(0), rtol=1e-5, atol=1e-6)


def test_compute_loss_of_nested_outputs_inside_tf_function():
    model = nested_model()
    model.compile("sgd", loss=["mse", ["mae", "mse"]])
    p1, p2, p3 = outputs_of(model, "d1", "d2", "d3")

    @tf.function
    def total(x, y1, y2, y3):
        return model.compute_loss(x=x, y=[y1, [y2, y3]], y_pred=model(x))

    np.testing.assert_allclose(total(X, Y1, Y2, Y3).numpy(), mse(p1, Y1) + mae(p2, Y2) + mse(p3, Y3), rtol=1e-5)


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_flat_outputs_keep_their_names(run_eagerly):
    i = keras.Input((4,))
    model = with_weights(keras.Model(i, [layers.Dense(1, name="d1")(i), layers.Dense(2, name="d2")(i)]))
    p1, p2 = outputs_of(model, "d1", "d2")
    model.compile(
        "sgd",
        loss=["mse", "mae"],
        loss_weights=[1.0, 0.5],
        metrics=[["mae"], ["mse", "mae"]],
        run_eagerly=run_eagerly,
    )
    expected = {
        "d1_loss": mse(p1, Y1),
        "d2_loss": mae(p2, Y2),
        "loss": mse(p1, Y1) + 0.5 * mae(p2, Y2),
        "d1_mae": mae(p1, Y1),
        "d2_mse": mse(p2, Y2),
        "d2_mae": mae(p2, Y2),
    }
    assert_logs(evaluate(model, [Y1, Y2]), expected)
    assert_logs(evaluate(model, {"d1": Y1, "d2": Y2}), expected)  # labels by output name
