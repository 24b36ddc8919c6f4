"""Gradient rules of the random ops (``tfunc.ops.random``): none pass a gradient to their
inputs (seeds, logits of integer samples, shuffled values, Poisson rates).  ``random_gamma``
has no rule yet (TensorFlow's RandomGammaGrad, d sample / d alpha): a tape through alpha
raises LookupError."""

from __future__ import annotations

from .registry import no_gradient

no_gradient(
    "random_uniform",
    "random_normal",
    "truncated_normal",
    "random_categorical",  # integer samples
    "random_shuffle",  # as in TensorFlow, not differentiable
    "random_poisson",  # as TensorFlow's RandomPoissonV2
    "stateless_random_uniform",
    "stateless_random_normal",
)
