"""Resuming training from a tf.train.Checkpoint gives the same numbers as never stopping, for
every optimizer and every kind of optimizer state (zero slots, Adagrad's and Ftrl's filled
accumulators, Nadam's u_product, EMA averages, gradient accumulators, the loss scale and its
counter, the iteration count): save after some steps, make fresh objects, restore, keep going.

The checkpoint is restored into a fresh optimizer before its first step (deferred: the slots are
filled when they are made; TensorFlow's usual resume) or after ``build`` (at once), eagerly and
inside a tf.function."""

import numpy as np
import pytest

import tfunc as tf

K = tf.keras.optimizers
RS = np.random.RandomState(0)
XS = RS.randn(6, 4, 3).astype(np.float32)  # one batch per step
YS = RS.randn(6, 4, 2).astype(np.float32)
W0 = RS.randn(3, 2).astype(np.float32)
B0 = RS.randn(2).astype(np.float32)

OPTIMIZERS = {
    "sgd": lambda: K.SGD(0.05),
    "sgd_nesterov": lambda: K.SGD(0.05, momentum=0.9, nesterov=True),
    "sgd_schedule": lambda: K.SGD(K.schedules.ExponentialDecay(0.1, decay_steps=1, decay_rate=0.5)),
    "adam_amsgrad": lambda: K.Adam(0.05, amsgrad=True),
    "adamw": lambda: K.AdamW(0.05, weight_decay=0.1),
    "rmsprop_centered": lambda: K.RMSprop(0.01, momentum=0.5, centered=True),
    "adagrad": lambda: K.Adagrad(0.1),
    "nadam": lambda: K.Nadam(0.05),
    "adamax": lambda: K.Adamax(0.05),
    "adadelta": lambda: K.Adadelta(1.0),
    "lion": lambda: K.Lion(0.01),
    "ftrl": lambda: K.Ftrl(0.1, l1_regularization_strength=0.01, beta=0.1),
    "lamb": lambda: K.Lamb(0.05),
    "adafactor": lambda: K.Adafactor(0.05),
    "ema": lambda: K.SGD(0.05, momentum=0.9, use_ema=True, ema_momentum=0.5, ema_overwrite_frequency=4),
    "accumulation": lambda: K.Adam(0.05, gradient_accumulation_steps=2),
    "loss_scale": lambda: K.LossScaleOptimizer(K.Adam(0.05), initial_scale=8.0, dynamic_growth_steps=2),
}


def _make(name, zero=False):
    w = tf.Variable(np.zeros_like(W0) if zero else W0, name="w")
    b = tf.Variable(np.zeros_like(B0) if zero else B0, name="b")
    return [w, b], OPTIMIZERS[name]()


def _stepper(variables, opt, in_function):
    def step(x, y):
        with tf.GradientTape() as tape:
            w, b = variables
            loss = opt.scale_loss(tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y)))
        opt.apply_gradients(zip(tape.gradient(loss, variables), variables))

    return tf.function(step) if in_function else step


def _train(step, start, stop):
    for i in range(start, stop):
        step(tf.constant(XS[i]), tf.constant(YS[i]))


def _state(variables, opt):
    return [v.numpy() for v in variables] + [v.numpy() for v in opt.variables]


@pytest.mark.parametrize("in_function", [False, True], ids=["eager", "function"])
@pytest.mark.parametrize("when", ["before_build", "after_build"])
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_resume_equals_uninterrupted(tmp_path, name, when, in_function):
    variables, opt = _make(name)
    _train(_stepper(variables, opt, in_function), 0, 6)
    expected = _state(variables, opt)

    variables, opt = _make(name)
    _train(_stepper(variables, opt, in_function), 0, 3)  # 3: mid-accumulation, between EMA overwrites
    path = tf.train.Checkpoint(v=variables, opt=opt).save(str(tmp_path / "ckpt"))

    variables, opt = _make(name, zero=True)
    if when == "after_build":
        opt.build(variables)
    status = tf.train.Checkpoint(v=variables, opt=opt).restore(path)
    step = _stepper(variables, opt, in_function)
    _train(step, 3, 6)
    status.assert_consumed()
    got = _state(variables, opt)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-7)


def test_adagrad_and_ftrl_accumulators_restored_before_build(tmp_path):
    # TensorFlow 2.21 restores [1.1, 1.1] (0.1 + 1**2), not initial_accumulator_value
    for make in (lambda: K.Adagrad(0.1), lambda: K.Ftrl(0.1)):
        v, opt = tf.Variable([1.0, 2.0]), make()
        opt.apply_gradients([(tf.constant([1.0, 1.0]), v)])
        path = tf.train.Checkpoint(v=v, opt=opt).save(str(tmp_path / type(opt).__name__))
        v2, opt2 = tf.Variable([0.0, 0.0]), make()
        tf.train.Checkpoint(v=v2, opt=opt2).restore(path)
        opt2.build([v2])
        np.testing.assert_allclose(opt2.get_slot(v2, "accumulator").numpy(), [1.1, 1.1], rtol=1e-6)


def test_loss_scale_restored(tmp_path):
    # TensorFlow 2.21 saves dynamic_scale and step_counter: (16.0, 1) after 3 finite steps
    def make():
        return tf.Variable([1.0, 2.0]), K.LossScaleOptimizer(K.SGD(0.1), initial_scale=8.0, dynamic_growth_steps=2)

    v, opt = make()
    for _ in range(3):
        opt.apply_gradients([(tf.constant([8.0, 8.0]), v)])
    path = tf.train.Checkpoint(v=v, opt=opt).save(str(tmp_path / "ckpt"))
    names = [k for k, _ in tf.train.list_variables(path)]
    assert "opt/dynamic_scale/.ATTRIBUTES/VARIABLE_VALUE" in names
    assert "opt/step_counter/.ATTRIBUTES/VARIABLE_VALUE" in names
    v2, opt2 = make()
    tf.train.Checkpoint(v=v2, opt=opt2).restore(path)
    assert (float(opt2.loss_scale.numpy()), int(opt2.dynamic_counter.numpy())) == (16.0, 1)


def test_fit_resumed_with_checkpoint_equals_uninterrupted(tmp_path):
    x, y = XS.reshape(-1, 3), YS.reshape(-1, 2)

    def make():
        model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
        model.set_weights([W0, B0])
        model.compile(optimizer=K.Adagrad(0.1), loss="mse")
        return model

    model = make()
    model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
    expected = [w.numpy() for w in model.weights + model.optimizer.variables]

    model = make()
    model.fit(x, y, batch_size=4, epochs=1, shuffle=False, verbose=0)
    path = tf.train.Checkpoint(model=model, opt=model.optimizer).save(str(tmp_path / "ckpt"))
    model = make()
    tf.train.Checkpoint(model=model, opt=model.optimizer).restore(path)  # before the optimizer is built
    model.fit(x, y, batch_size=4, epochs=1, shuffle=False, verbose=0)
    got = [w.numpy() for w in model.weights + model.optimizer.variables]
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-7)
