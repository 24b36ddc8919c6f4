"""``tfunc.random``: seeded random tensors (TensorFlow's global/op seed rules), stateless
draws and ``Generator`` objects."""

from .api.nn_extra_ops import fixed_unigram_candidate_sampler, log_uniform_candidate_sampler, uniform_candidate_sampler
from .api.random_ops import (
    Generator,
    categorical,
    gamma,
    get_global_generator,
    normal,
    poisson,
    set_global_generator,
    set_seed,
    shuffle,
    stateless_binomial,
    stateless_categorical,
    stateless_gamma,
    stateless_normal,
    stateless_poisson,
    stateless_truncated_normal,
    stateless_uniform,
    truncated_normal,
    uniform,
)

__all__ = [
    "Generator",
    "categorical",
    "fixed_unigram_candidate_sampler",
    "gamma",
    "get_global_generator",
    "log_uniform_candidate_sampler",
    "normal",
    "poisson",
    "set_global_generator",
    "set_seed",
    "shuffle",
    "stateless_binomial",
    "stateless_categorical",
    "stateless_gamma",
    "stateless_normal",
    "stateless_poisson",
    "stateless_truncated_normal",
    "stateless_uniform",
    "truncated_normal",
    "uniform",
    "uniform_candidate_sampler",
]
