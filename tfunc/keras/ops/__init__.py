"""``tfunc.keras.ops``: Keras 3's backend-neutral ops (``from keras import ops``) on tfunc
tensors: the NumPy-like functions (:mod:`.numpy`), neural-network functions (:mod:`.nn`),
control flow, slices, math and linear algebra (:mod:`.core`), with Keras's dtype promotion
(:mod:`.promotion`).  ``ops.nn``, ``ops.numpy``, ``ops.linalg``, ``ops.math`` and ``ops.core``
name the same functions by family, as Keras does."""

from types import SimpleNamespace as _Namespace

from ..layers import operators as _operators
from . import core as _core
from . import image as _image
from . import nn as nn
from . import numpy as _numpy
from . import numpy_extra as _numpy_extra
from . import symbolic as _symbolic
from .core import *  # noqa: F403
from .nn import *  # noqa: F403
from .numpy import *  # noqa: F403
from .numpy_extra import *  # noqa: F403
from .promotion import is_tensor as is_tensor
from .promotion import result_type as result_type

_LINALG = (
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
    "cholesky_inverse",
    "eig",
    "lu_factor",
    "jvp",
)
_MATH = (
    "top_k", "in_top_k", "logsumexp", "segment_sum", "segment_max", "segment_min", "segment_prod", "erf", "erfc",
    "erfinv", "rsqrt", "extract_sequences", "fft", "fft2", "ifft2", "rfft", "irfft", "stft", "istft", "cdist",
    "view_as_complex", "view_as_real",
)  # fmt: skip
# functions that take Python callables or answer about their argument: never operations
# (``get_item`` on a KerasTensor is its own indexing)
_NOT_OPERATIONS = frozenset(
    {"cond", "while_loop", "fori_loop", "scan", "map", "switch", "custom_gradient", "convert_to_numpy", "shape", "ndim",
     "associative_scan", "vectorized_map", "get_item", "vectorize", "jvp"}
)  # fmt: skip

# Given KerasTensors, each function records an operation in the functional model (symbolic.py).
for _module, _family in ((_numpy, "numpy"), (_numpy_extra, "numpy"), (nn, "nn"), (_core, "core")):
    for _name in _module.__all__:
        if _name in _NOT_OPERATIONS:
            continue
        _kind = "linalg" if _name in _LINALG else "math" if _name in _MATH else _family
        _wrapped = _symbolic.symbolic(getattr(_module, _name), _name, _kind)
        setattr(_module, _name, _wrapped)
        globals()[_name] = _wrapped
# ``keras.ops.image``: a submodule only (Keras does not export its functions as ``keras.ops.X``);
# its operations are written under keras.src.ops.image, with Keras's class names
for _name in _image.__all__:
    setattr(_image, _name, _symbolic.symbolic(getattr(_image, _name), _name, "image"))
image = _image
for _name in _numpy_extra.__all__:  # ops.numpy names Keras's whole NumPy family
    setattr(_numpy, _name, getattr(_numpy_extra, _name))

numpy = _numpy
linalg = _Namespace(**{n: getattr(_core, n) for n in _LINALG})
math = _Namespace(**{n: getattr(_core, n) for n in _MATH})
core = _core


def dtype(x):
    """The dtype name of ``x`` (Keras's standardized string)."""
    return _numpy.convert_to_tensor(x).dtype.name


# Keras's KerasTensor operators (x + y, x / y, ...) compute with keras.ops, promotion included:
# the operator layers take their functions from here.
for _class, _function in {
    "Add": "add", "Subtract": "subtract", "Multiply": "multiply", "TrueDivide": "true_divide", "Matmul": "matmul",
    "Power": "power", "Negative": "negative", "FloorDivide": "floor_divide", "Mod": "mod", "Absolute": "absolute",
    "Greater": "greater", "GreaterEqual": "greater_equal", "Less": "less", "LessEqual": "less_equal",
    "NotEqual": "not_equal", "LogicalOr": "logical_or",
}.items():  # fmt: skip
    getattr(_operators, _class)._tfunc_fn = staticmethod(getattr(_numpy, _function).__wrapped__)
_operators.Concatenate._tfunc_concatenate = staticmethod(_numpy.concatenate.__wrapped__)
