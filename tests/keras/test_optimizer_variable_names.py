"""Optimizer variables named and pathed as Keras 3.15's: ``iteration`` and ``learning_rate``
under the optimizer's name, each slot ``'<variable path, / as _>_<Keras's slot name>'``; the
slot keys of ``get_slot`` and of checkpoints stay tfunc's.  Expected values: TF 2.21 /
Keras 3.15 on the same calls."""

import numpy as np
import pytest

import tfunc as tf

keras = tf.keras
opts = keras.optimizers


def _dense():
    layer = keras.layers.Dense(2, name="dd")
    layer.build((None, 3))
    return layer


def _names(opt):
    return [(v.name, v.path) for v in opt.variables]


def test_adam_variables_are_keras_variables_with_keras_names_and_paths():
    opt = opts.Adam(name="adam")
    # TF 2.21 gives ('iteration', 'adam/iteration'), ('learning_rate', 'adam/learning_rate') (was 'iteration:0')
    assert _names(opt) == [("iteration", "adam/iteration"), ("learning_rate", "adam/learning_rate")]
    layer = _dense()
    opt.build(layer.trainable_variables)
    # TF 2.21 gives these, in this order (was 'm/dd/kernel:0', ...)
    assert _names(opt)[2:] == [
        ("dd_kernel_momentum", "adam/dd_kernel_momentum"),
        ("dd_kernel_velocity", "adam/dd_kernel_velocity"),
        ("dd_bias_momentum", "adam/dd_bias_momentum"),
        ("dd_bias_velocity", "adam/dd_bias_velocity"),
    ]
    assert all(isinstance(v, keras.Variable) and not v.trainable for v in opt.variables)
    assert opt.variables[0].dtype == tf.int64 and opt.variables[1].dtype == tf.float32
    # tfunc's own slot keys are kept
    assert opt.get_slot_names() == ["m", "v"] and opt.get_slot(layer.kernel, "m") is opt.variables[2]


@pytest.mark.parametrize(
    ("make", "suffixes"),
    [
        (lambda: opts.SGD(momentum=0.9, name="o"), ["momentum"]),
        (lambda: opts.Adam(amsgrad=True, name="o"), ["momentum", "velocity", "velocity_hat"]),
        (lambda: opts.AdamW(name="o"), ["momentum", "velocity"]),
        (lambda: opts.RMSprop(momentum=0.5, centered=True, name="o"), ["velocity", "momentum", "average_gradient"]),
        (lambda: opts.Adagrad(name="o"), ["accumulator"]),
        (lambda: opts.Adamax(name="o"), ["momentum", "norm"]),
        (lambda: opts.Adadelta(name="o"), ["accumulated_grad", "accumulated_delta_var"]),
        (lambda: opts.Lion(name="o"), ["momentum"]),
        (lambda: opts.Ftrl(name="o"), ["accumulator", "linear"]),
        (lambda: opts.Lamb(name="o"), ["momentum", "velocity"]),
        (lambda: opts.Adam(use_ema=True, gradient_accumulation_steps=2, name="o"), ["average", "gradient_accumulator"]),
    ],
)
def test_slot_names_of_every_optimizer(make, suffixes):
    opt = make()
    opt.build(_dense().trainable_variables)
    names = {v.name for v in opt.variables[2:]}
    # TF 2.21 names each slot '<dd_kernel|dd_bias>_<suffix>', path 'o/<name>'
    assert {f"dd_{w}_{s}" for w in ("kernel", "bias") for s in suffixes} <= names
    assert all(v.path == f"o/{v.name}" for v in opt.variables)


def test_nadam_product_and_adafactor_factors_are_named_as_keras():
    nadam = opts.Nadam(name="nadam")
    nadam.build(_dense().trainable_variables)
    # TF 2.21 gives Nadam's product last as ('variable', 'variable'): made outside the optimizer's scope
    assert _names(nadam)[-1] == ("variable", "variable")
    ada = opts.Adafactor(name="adafactor")
    ada.build(_dense().trainable_variables)
    # TF 2.21 gives these: factors named after the variable; int32 placeholders for the bias, unscoped
    assert _names(ada)[2:] == [
        ("kernel", "adafactor/kernel"),
        ("kernel", "adafactor/kernel"),
        ("dd_kernel_velocity", "adafactor/dd_kernel_velocity"),
        ("bias", "bias"),
        ("bias", "bias"),
        ("dd_bias_velocity", "adafactor/dd_bias_velocity"),
    ]


def test_loss_scale_optimizer_schedule_and_plain_variables():
    lso = opts.LossScaleOptimizer(opts.SGD(momentum=0.9, name="sgd"), name="lso")
    lso.build(_dense().trainable_variables)
    # TF 2.21 gives these paths
    assert [v.path for v in lso.variables] == [
        "lso/iteration",
        "lso/learning_rate",
        "lso/step_counter",
        "lso/dynamic_scale",
        "sgd/iteration",
        "sgd/learning_rate",
        "sgd/dd_kernel_momentum",
        "sgd/dd_bias_momentum",
    ]
    # TF 2.21 gives only ('iteration', 'sched/iteration') with a schedule
    assert _names(opts.SGD(opts.schedules.ExponentialDecay(0.1, 10, 0.9), name="sched")) == [
        ("iteration", "sched/iteration")
    ]
    opt = opts.Adam(name="adam")
    opt.build([tf.Variable(np.ones(2, "float32"), name="a/w")])
    # TF 2.21 names a tf.Variable's slots after its name 'a/w:0': 'a_w_0_momentum'
    assert _names(opt)[2:] == [("a_w_0_momentum", "adam/a_w_0_momentum"), ("a_w_0_velocity", "adam/a_w_0_velocity")]


def test_paths_follow_the_open_name_scopes():
    with keras.name_scope("outer"):
        opt = opts.Adam(name="adam")
        opt.build([keras.Variable(np.ones(2, "float32"), name="k")])
    # TF 2.21 gives these
    assert [v.path for v in opt.variables] == [
        "outer/adam/iteration",
        "outer/adam/learning_rate",
        "outer/adam/outer_k_momentum",
        "outer/adam/outer_k_velocity",
    ]
