"""``tfunc.random``: seeded random tensors (TensorFlow's global/op seed rules), stateless
draws and ``Generator`` objects."""

from .api.random_ops import (
    Generator,
    categorical,
    get_global_generator,
    normal,
    set_global_generator,
    set_seed,
    shuffle,
    stateless_categorical,
    stateless_normal,
    stateless_truncated_normal,
    stateless_uniform,
    truncated_normal,
    uniform,
)

__all__ = [
    "Generator",
    "categorical",
    "get_global_generator",
    "normal",
    "set_global_generator",
    "set_seed",
    "shuffle",
    "stateless_categorical",
    "stateless_normal",
    "stateless_truncated_normal",
    "stateless_uniform",
    "truncated_normal",
    "uniform",
]
