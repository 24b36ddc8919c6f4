"""Keras' reading of a dtype argument: Python types as Keras 3 with the TensorFlow backend maps
them (``int`` is int64, ``complex`` complex128), then TensorFlow's names and NumPy types."""

from __future__ import annotations

from ..core import dtypes as D

# The global mixed-precision policy (keras.mixed_precision.set_global_policy): kept here, below
# the layers and the optimizers, so that layers read its variable dtype without importing
# mixed_precision (which imports the optimizers, which import the layers).
GLOBAL_POLICY: dict = {"policy": None}

_PYTHON = {bool: D.bool, int: D.int64, float: D.float32, str: D.string, "int": D.int64, complex: D.complex128}


def keras_dtype(dtype) -> D.DType:
    """``dtype`` as a DType, Keras-style (``dtype=int`` is int64, as Keras' own map)."""
    if isinstance(dtype, (type, str)):
        found = _PYTHON.get(dtype)
        if found is not None:
            return found
    return D.as_dtype(dtype)
