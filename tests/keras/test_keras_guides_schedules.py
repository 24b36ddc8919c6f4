"""Learning-rate schedules PolynomialDecay, InverseTimeDecay and CosineDecayRestarts: values at
several steps as Keras 3.15 computes them, eagerly and in a tf.function, and get_config/from_config."""

import numpy as np
import pytest

import tfunc as tf
from tfunc.keras.optimizers import schedules as S

STEPS = [0, 1, 3, 4, 5, 7, 10, 11, 12, 20, 25, 37, 100]
# fmt: off
CASES = {  # Keras 3.15's values at STEPS
    "poly": (S.PolynomialDecay(0.1, 10, end_learning_rate=0.01, power=0.5),
             [0.1, 0.0953815, 0.0852994, 0.0797137, 0.07363961, 0.059295036] + [0.01] * 7),
    "poly_cycle": (S.PolynomialDecay(0.1, 10, end_learning_rate=0.01, power=2.0, cycle=True),
                   [0.1, 0.082899995, 0.0541, 0.042400002, 0.0325, 0.0181, 0.01, 0.028225, 0.0244, 0.01, 0.0125,
                    0.01050625, 0.01]),
    "poly_default": (S.PolynomialDecay(0.1, 7),
                     [0.1, 0.085728571, 0.057185713, 0.042914286, 0.028642856] + [9.9999997e-05] * 8),
    "inverse_time": (S.InverseTimeDecay(0.1, 5, 0.5),
                     [0.1, 0.09090909, 0.07692308, 0.071428575, 0.06666667, 0.05882353, 0.05, 0.047619052,
                      0.045454547, 0.033333335, 0.028571429, 0.021276597, 0.009090909]),
    "inverse_time_staircase": (S.InverseTimeDecay(0.1, 5, 0.5, staircase=True),
                               [0.1, 0.1, 0.1, 0.1, 0.06666667, 0.06666667, 0.05, 0.05, 0.05, 0.033333335,
                                0.028571429, 0.022222223, 0.009090909]),
    "restarts": (S.CosineDecayRestarts(0.1, 4),
                 [0.1, 0.08535534, 0.014644662, 0.1, 0.09619398, 0.06913417, 0.014644662, 0.003806019, 0.1,
                  0.049999997, 0.008426517, 0.08171966, 0.030865824]),
    "restarts_t1": (S.CosineDecayRestarts(0.1, 4, t_mul=1.0, m_mul=0.5, alpha=0.1),
                    [0.1, 0.08681981, 0.023180196, 0.055000003, 0.048409905, 0.016590098, 0.02125, 0.013295049,
                     0.02125, 0.0128125, 0.01120031, 0.01015004, 0.010000004]),
    "restarts_t3": (S.CosineDecayRestarts(0.1, 3, t_mul=3.0, m_mul=0.9, alpha=0.05),
                    [0.1, 0.07625, 0.0905, 0.08792186, 0.08049839, 0.055173464, 0.0150016, 0.007578138, 0.08195,
                     0.06645068, 0.045712125, 0.006037099, 0.014905897]),
}
# fmt: on


@pytest.mark.parametrize("case", sorted(CASES))
def test_values_match_keras(case):
    schedule, expected = CASES[case]
    eager = [float(schedule(tf.constant(s, dtype=tf.int64))) for s in STEPS]
    np.testing.assert_allclose(eager, expected, rtol=2e-6)
    step = tf.Variable(0, dtype=tf.int64)
    traced = tf.function(lambda: schedule(step))
    values = []
    for s in STEPS:
        step.assign(s)
        values.append(float(traced()))
    np.testing.assert_allclose(values, expected, rtol=2e-6)


@pytest.mark.parametrize("case", sorted(CASES))
def test_config_round_trip(case):
    schedule, expected = CASES[case]
    config = schedule.get_config()
    again = type(schedule).from_config(config)
    assert again.get_config() == config
    restored = S.deserialize(S.serialize(schedule))
    assert type(restored) is type(schedule)
    np.testing.assert_allclose([float(restored(s)) for s in STEPS], expected, rtol=2e-6)


def test_keras_config_keys_and_errors():
    assert S.CosineDecayRestarts(0.1, 4).get_config() == {
        "initial_learning_rate": 0.1,
        "first_decay_steps": 4,
        "t_mul": 2.0,
        "m_mul": 1.0,
        "alpha": 0.0,
        "name": "SGDRDecay",
    }
    with pytest.raises(ValueError, match="decay_steps` must be > 0"):
        S.PolynomialDecay(0.1, 0)
    with pytest.raises(ValueError, match="decay_steps` must be > 0"):
        S.InverseTimeDecay(0.1, 0, 0.5)
    with pytest.raises(ValueError, match="first_decay_steps` must be > 0"):
        S.CosineDecayRestarts(0.1, 0)


def test_optimizer_follows_the_schedule():
    # SGD on loss = w: each step subtracts the learning rate at the iteration count
    schedule = S.InverseTimeDecay(0.1, 5, 0.5)
    opt = tf.keras.optimizers.SGD(schedule)
    w = tf.Variable(0.0)
    step = tf.function(lambda: opt.apply_gradients([(tf.constant(1.0), w)]))
    for _ in range(3):
        step()
    np.testing.assert_allclose(float(w), -(0.1 + 0.1 / 1.1 + 0.1 / 1.2), rtol=1e-6)
