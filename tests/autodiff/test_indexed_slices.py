"""Sparse gradients, as TensorFlow gives them: ``gather`` along axis 0 (an Embedding lookup)
differentiates to a ``tf.IndexedSlices``, and Keras's optimizers apply one as Keras 3 does
(the rows of an id looked up twice are squared one at a time).  Expected optimizer values were
computed with TensorFlow 2.21 / Keras 3.15."""

import numpy as np
import pytest

import tfunc as tf

INIT = np.arange(12, dtype=np.float32).reshape(6, 2) / 10
IDS = [0, 0, 5, 2, 0]


def _dense(g):
    return tf.convert_to_tensor(g).numpy()


def test_gather_gives_indexed_slices_that_add_up_and_convert():
    v = tf.Variable(INIT)
    with tf.GradientTape(persistent=True) as tape:
        once = tf.reduce_sum(tf.gather(v, IDS) * 2.0)
        twice = tf.reduce_sum(tf.gather(v, [1, 0])) + tf.reduce_sum(tf.gather(v, [0]))
        mixed = tf.reduce_sum(tf.gather(v, [1])) + tf.reduce_sum(v)
        cast = tf.reduce_sum(tf.gather(tf.cast(v, tf.float64), [3]))  # Cast passes it on
        other_axis = tf.reduce_sum(tf.gather(v, [1], axis=1))
    g = tape.gradient(once, v)
    assert isinstance(g, tf.IndexedSlices)
    assert g.indices.numpy().tolist() == IDS and g.dense_shape.numpy().tolist() == [6, 2] and g.shape == (6, 2)
    want = np.zeros((6, 2), np.float32)
    np.add.at(want, IDS, 2.0)
    np.testing.assert_array_equal(_dense(g), want)
    g2 = tape.gradient(twice, v)
    assert isinstance(g2, tf.IndexedSlices) and sorted(g2.indices.numpy().tolist()) == [0, 0, 1]
    assert isinstance(tape.gradient(cast, v), tf.IndexedSlices)
    for dense in (tape.gradient(mixed, v), tape.gradient(other_axis, v)):
        assert not isinstance(dense, tf.IndexedSlices)
    np.testing.assert_array_equal(tape.gradient(mixed, v).numpy(), np.ones((6, 2)) + (np.arange(6) == 1)[:, None])
    with pytest.raises(AttributeError, match="convert_to_tensor"):
        g.numpy()
    assert "IndexedSlices(indices=tf.Tensor([0 0 5 2 0]" in repr(g)


def test_composites_built_on_gather_keep_tensorflows_dense_gradients():
    w = tf.constant([0.5, -0.3, 1.5])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(w)
        repeated = tf.reduce_sum(tf.repeat(w, [1, 2, 0], axis=0) ** 2)
        masked = tf.reduce_sum(tf.boolean_mask(w, w > 0.2) ** 2)
    for y in (repeated, masked):
        assert not isinstance(tape.gradient(y, w), tf.IndexedSlices)


def test_inside_a_function_and_returned_from_it():
    v = tf.Variable(INIT)

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.gather(v, IDS) ** 2)
        g = tape.gradient(loss, v)
        assert isinstance(g, tf.IndexedSlices)  # while tracing
        return g  # a function returns it dense

    want = np.zeros((6, 2), np.float32)
    np.add.at(want, IDS, 2 * INIT[IDS])
    np.testing.assert_allclose(step().numpy(), want, rtol=1e-6)


def test_clipping_keeps_the_rows():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.gather(v, [0, 0, 1]) * 3.0)
    g = tape.gradient(loss, v)
    assert float(tf.linalg.global_norm([g])) == pytest.approx(np.sqrt(54.0))  # each row counts
    (clipped,), norm = tf.clip_by_global_norm([g], 1.0)
    assert isinstance(clipped, tf.IndexedSlices) and float(norm) == pytest.approx(np.sqrt(54.0))
    np.testing.assert_allclose(clipped.values.numpy(), np.full((3, 2), 3.0 / np.sqrt(54.0)), rtol=1e-6)
    by_norm = tf.clip_by_norm(g, 1.0)
    assert isinstance(by_norm, tf.IndexedSlices)
    np.testing.assert_allclose(by_norm.values.numpy(), clipped.values.numpy(), rtol=1e-6)


KERAS = {  # rows 0, 2 and 5 after two steps, from Keras 3.15 (TensorFlow backend)
    "Adam": [[0.0, -0.090677], [0.201745, 0.301189], [0.800414, 0.900363]],
    "RMSprop": [[0.0, 0.088104], [0.015603, 0.069532], [0.498871, 0.593864]],
    "Adagrad": [[0.0, 0.022788], [0.248906, 0.339111], [0.834737, 0.933075]],
    "Adadelta": [[0.0, 0.0951], [0.397156, 0.497156], [0.997155, 1.097154]],
    "Ftrl": [[0.0, 0.01688], [0.125102, 0.269333], [0.685782, 0.857288]],
    "Nadam": [[0.0, 0.020277], [0.22742, 0.324831], [0.820245, 0.919865]],
    "Adam_clipnorm": [[0.0, -0.080652], [0.20079, 0.300406], [0.799968, 0.899946]],
    "Adam_clipvalue": [[0.0, -0.090677], [0.200003, 0.300003], [0.800003, 0.900003]],
    "Adam_global": [[0.0, -0.067004], [0.200752, 0.300376], [0.799956, 0.899935]],
}


@pytest.mark.parametrize("mode", ["eager", "function"])
@pytest.mark.parametrize("case", sorted(KERAS))
def test_optimizers_apply_sparse_gradients_as_keras(case, mode):
    name, _, clip = case.partition("_")
    kwargs = {"clipnorm": {"clipnorm": 1.0}, "clipvalue": {"clipvalue": 0.5}, "global": {"global_clipnorm": 1.0}}
    opt = getattr(tf.keras.optimizers, name)(1.0 if name == "Adadelta" else 0.1, **kwargs.get(clip, {}))
    v = tf.Variable(INIT)

    def step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.gather(v, IDS) ** 2 * [[1.0, 2.0]])
        opt.apply_gradients([(tape.gradient(loss, v), v)])

    run = step if mode == "eager" else tf.function(step)
    run()
    run()
    np.testing.assert_allclose(v.numpy()[[0, 2, 5]], KERAS[case], rtol=2e-5, atol=2e-6)


def test_fit_an_embedding_with_adam_as_keras():
    x = np.array([[1, 1, 2], [3, 1, 1]], np.int32)
    y = np.array([[1.0], [0.0]], np.float32)
    emb = np.random.RandomState(0).randn(5, 2).astype(np.float32)
    dense = np.random.RandomState(1).randn(6, 1).astype(np.float32)
    keras = tf.keras
    m = keras.Sequential(
        [
            keras.Input(shape=(3,), dtype="int32"),
            keras.layers.Embedding(5, 2),
            keras.layers.Flatten(),
            keras.layers.Dense(1),
        ]
    )
    m.set_weights([emb, dense, np.zeros(1, np.float32)])
    m.compile(optimizer=keras.optimizers.Adam(0.1), loss="mse")
    history = m.fit(x, y, epochs=3, batch_size=2, verbose=0, shuffle=False)
    np.testing.assert_allclose(history.history["loss"], [15.67078, 8.38849, 3.68467], rtol=1e-5)  # Keras 3.15
    np.testing.assert_allclose(m.get_weights()[0][1], [1.0686169, 1.8728257], rtol=1e-5)


@pytest.mark.parametrize("mode", ["eager", "function"])
def test_rows_that_cancel_still_count_one_at_a_time(mode):
    # id 1 looked up twice with gradient rows +1 and -1: their sum is 0, but Keras's Adamax norm
    # takes each row's absolute value (2), and Adam's v each row's square (2 * (1 - beta_2) = 0.002),
    # also through a LossScaleOptimizer (Keras 3.15's values)
    ids, signs = np.array([1, 1]), np.array([[1.0], [-1.0]], np.float32)

    def run(opt, slot):
        v = tf.Variable(np.zeros((3, 1), np.float32))

        def step():
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.gather(v, ids) * signs)
                if isinstance(opt, tf.keras.optimizers.LossScaleOptimizer):
                    loss = opt.scale_loss(loss)
            opt.apply_gradients([(tape.gradient(loss, v), v)])

        (step if mode == "eager" else tf.function(step))()
        return opt.get_slot(v, slot).numpy().ravel()

    np.testing.assert_allclose(run(tf.keras.optimizers.Adamax(1.0), "norm"), [0.0, 2.0, 0.0])
    lso = tf.keras.optimizers.LossScaleOptimizer(tf.keras.optimizers.Adam(0.1))
    np.testing.assert_allclose(run(lso, "v"), [0.0, 0.002, 0.0], rtol=1e-5)
    rows = tf.IndexedSlices(tf.constant([[-2.0], [-2.0]]), tf.constant([0, 0]), [3, 1])
    clipped = tf.clip_by_value(rows, -1.0, 1.0)  # each row clipped, then added: -2 (TensorFlow)
    assert isinstance(clipped, tf.IndexedSlices)
    assert tf.convert_to_tensor(clipped).numpy().ravel().tolist() == [-2.0, 0.0, 0.0]
