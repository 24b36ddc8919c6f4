"""``tfunc.keras.ops``: Keras 3's backend-neutral ops (``from keras import ops``) on tfunc
tensors: the NumPy-like functions (:mod:`.numpy`), neural-network functions (:mod:`.nn`),
control flow, slices, math and linear algebra (:mod:`.core`), with Keras's dtype promotion
(:mod:`.promotion`).  ``ops.nn``, ``ops.numpy``, ``ops.linalg``, ``ops.math`` and ``ops.core``
name the same functions by family, as Keras does."""

from types import SimpleNamespace as _Namespace

from . import core as _core
from . import nn as nn
from . import numpy as _numpy
from .core import *  # noqa: F403
from .nn import *  # noqa: F403
from .numpy import *  # noqa: F403
from .promotion import is_tensor as is_tensor
from .promotion import result_type as result_type

numpy = _numpy
linalg = _Namespace(
    **{
        n: getattr(_core, n)
        for n in (
            "cholesky",
            "det",
            "inv",
            "solve",
            "solve_triangular",
            "qr",
            "svd",
            "norm",
            "slogdet",
            "eigh",
            "lstsq",
        )
    }
)
math = _Namespace(
    **{
        n: getattr(_core, n)
        for n in (
            "top_k",
            "in_top_k",
            "logsumexp",
            "segment_sum",
            "segment_max",
            "erf",
            "erfinv",
            "rsqrt",
            "extract_sequences",
        )
    }
)
core = _core


def dtype(x):
    """The dtype name of ``x`` (Keras's standardized string)."""
    return _numpy.convert_to_tensor(x).dtype.name
