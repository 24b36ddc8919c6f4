"""``keras.random``: Keras 3's stateless random functions and their ``SeedGenerator``.

Every draw is a stateless one (``tf.random.stateless_*``) from a seed of shape [2], as Keras's
TensorFlow backend draws: an int ``seed`` gives the same values at every call; a
``SeedGenerator`` gives the next seed of its state (``[seed, 0]``, then ``[seed, 1]``...), so
repeated calls differ but replay from the same initial seed; ``seed=None`` takes the next seed
of a global generator. Floating draws default to ``keras.backend.floatx()``. The implementation
is ``tfunc.keras.layers.keras_random``, below the layers so that they can draw with it.
"""

from __future__ import annotations

from .backend import floatx
from .layers import keras_random as _impl
from .layers.keras_random import (
    SeedGenerator,
    beta,
    binomial,
    categorical,
    dropout,
    gamma,
    normal,
    randint,
    shuffle,
    truncated_normal,
    uniform,
)
from .layers.keras_random import draw_seed as _draw_seed  # noqa: F401  (keras.ops.image draws with it)

_impl.floatx_hook = floatx  # the draws' default dtype follows ``set_floatx``

__all__ = [
    "SeedGenerator",
    "beta",
    "binomial",
    "categorical",
    "dropout",
    "gamma",
    "normal",
    "randint",
    "shuffle",
    "truncated_normal",
    "uniform",
]
