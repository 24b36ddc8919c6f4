"""``keras.ops`` functions called on KerasTensors (the functional API): each call becomes an
operation layer named as Keras names the operation (``sum`` -> ``Sum``, ``log_softmax`` ->
``LogSoftmax``), whose config holds the call's other arguments (``axis``, ``keepdims``...), as
Keras records ``keras.ops`` calls in a functional model.  The model then runs the function
itself on its tensors."""

from __future__ import annotations

import functools
import inspect

import numpy as np

from ...core import nest
from ...eager.tensor import Tensor
from ..keras_tensor import KerasTensor, any_keras_tensor, symbolic_call
from ..layers import operators as _operators
from ..layers.base import OperatorLayer, snake_case

__all__ = ["symbolic", "operation_class"]

# the Keras module each family's operations are written under
_KERAS_MODULES = {family: f"keras.src.ops.{family}" for family in ("numpy", "nn", "core", "math", "linalg", "image")}
# where Keras keeps an operation apart from its function's family, and the names it spells otherwise
_KERAS_MODULE_OF = {
    "cast": "core", "convert_to_tensor": "core", "logdet": "math", "matrix_rank": "linalg", "pinv": "linalg",
    "slogdet": "numpy",
}  # fmt: skip
_KERAS_CLASS_OF = {
    "svd": "SVD", "psnr": "PSNR", "rms_normalization": "RMSNorm", "layer_normalization": "LayerNorm",
    "batch_normalization": "BatchNorm", "rgb_to_grayscale": "RGBToGrayscale", "rgb_to_hsv": "RGBToHSV",
    "hsv_to_rgb": "HSVToRGB", "ssim": "SSIM",
}  # fmt: skip
# Parameters Keras passes to an operation's call (operands), also when given a Python value
# (``where(c, x, 0.5)``); the others are its config unless they hold a tensor.
_OPERAND_PARAMETERS = frozenset(
    {"x", "x1", "x2", "x3", "xs", "condition", "indices", "values", "updates", "a", "b", "inputs", "target", "output",
     "data", "segment_ids", "sorted_sequence", "kernel", "depthwise_kernel", "pointwise_kernel", "mean", "variance",
     "offset", "scale", "start_indices", "targets", "predictions", "elements", "y", "q", "start", "stop", "array",
     "query", "key", "value", "bias", "mask", "abs_", "angle", "condlist", "choicelist", "default", "sequence_lengths",
     "target_length", "output_length"}
)  # fmt: skip
# operands of one function only (elsewhere the same names are configuration: ``histogram``'s bins)
_OPERANDS_OF = {"digitize": frozenset({"bins"}), "isclose": frozenset({"rtol", "atol"})}
_FUNCTIONS: dict = {}  # class name -> (function, Keras module), filled by ``symbolic``
_CLASSES: dict = {}


def _class_name(fn_name: str) -> str:
    return _KERAS_CLASS_OF.get(fn_name) or "".join(part.capitalize() for part in fn_name.split("_"))


def _holds_keras_tensor(args, kwargs) -> bool:
    """Whether a KerasTensor is among the arguments (tensors and numbers answer without a walk)."""
    for value in (*args, *kwargs.values()):
        if isinstance(value, KerasTensor):
            return True
        if isinstance(value, (list, tuple, dict)) and any_keras_tensor(value, {}):
            return True
    return False


def _is_operand(fn_name, name, value) -> bool:
    if name in _OPERAND_PARAMETERS or name in _OPERANDS_OF.get(fn_name, ()):
        return True
    return any(isinstance(v, (KerasTensor, Tensor, np.ndarray)) for v in nest.flatten(value))


def _arguments(fn, config: dict, operands: tuple, kwargs: dict):
    """``fn``'s arguments: each parameter its config value, or the next operand; a
    ``*operands`` parameter takes the operands left (``einsum(subscripts, *operands)``).  Past
    the last operand, config values go by keyword (parameters left to their defaults between)."""
    args, by_name, rest = [], {}, list(operands)
    for name, p in inspect.signature(fn).parameters.items():
        if p.kind is inspect.Parameter.VAR_POSITIONAL:
            args += rest
            rest = []
        elif p.kind is inspect.Parameter.VAR_KEYWORD:
            by_name.update(config.get(name, {}))  # rearrange's axis lengths (h=3)
        elif name in kwargs:
            continue
        elif name in config and rest:
            args.append(config[name])
        elif name in config:
            by_name[name] = config[name]
        elif rest:
            args.append(rest.pop(0))
    return args, by_name


class _Operation(OperatorLayer):
    """A ``keras.ops`` function on a functional model's tensors: its config is the arguments
    Keras keeps in the operation (``axis``...), its call's operands the others, in the order of
    the function's parameters."""

    _tfunc_function = None

    def __init__(self, name=None, **arguments):
        super().__init__(name=name)
        self._tfunc_arguments = arguments

    def call(self, *operands, **kwargs):
        fn = type(self)._tfunc_function
        # the function's own keyword operands (Keras's Pad: constant_values), not the model's training
        kwargs = {k: v for k, v in kwargs.items() if k in inspect.signature(fn).parameters}
        args, by_name = _arguments(fn, self._tfunc_arguments, operands, kwargs)
        return fn(*args, **by_name, **kwargs)

    def get_config(self) -> dict:
        return {"name": self.name, **self._tfunc_arguments}


def operation_class(class_name: str):
    """The operation layer class named ``class_name`` (``Sum``), or None for no such function."""
    if class_name in _operators.__all__:  # the operators' own classes (Add, Any...), as written before
        return getattr(_operators, class_name)
    cls = _CLASSES.get(class_name)
    if cls is None and class_name in _FUNCTIONS:
        fn, module = _FUNCTIONS[class_name]
        cls = type(
            class_name,
            (_Operation,),
            {
                "__module__": __name__,
                "__doc__": f"``keras.ops`` in a functional model ({class_name}).",
                "_tfunc_op_name": snake_case(class_name),  # Keras's automatic name: hard_shrink
                "_tfunc_function": staticmethod(fn),
                "_tfunc_keras_module": module,
            },
        )
        _CLASSES[class_name] = cls
    return cls


def _with_skipped_operands(fn_name, signature, arguments) -> dict:
    """The call's arguments in parameter order, with an operand left to its default before a
    later one given (``isclose(x1, x2, atol=0.5)``'s rtol) in its place, as Keras passes them
    all: operands are positional in the recorded call."""
    names = [n for n in signature.parameters if n in _OPERAND_PARAMETERS or n in _OPERANDS_OF.get(fn_name, ())]
    given = [n for n in names if n in arguments]
    if not given:
        return arguments
    skipped = {
        n: signature.parameters[n].default
        for n in names[: names.index(given[-1])]
        if n not in arguments and signature.parameters[n].default is not inspect.Parameter.empty
    }
    if not skipped:
        return arguments
    return {
        n: arguments[n] if n in arguments else skipped[n]
        for n in signature.parameters
        if n in arguments or n in skipped
    }


def symbolic(fn, name: str, family: str):
    """``fn`` (public as ``keras.ops.<name>``) that, given KerasTensors, records an operation
    layer instead of computing."""
    signature = inspect.signature(fn)
    class_name = _class_name(name)
    _FUNCTIONS.setdefault(class_name, (fn, _KERAS_MODULES[_KERAS_MODULE_OF.get(name, family)]))

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if not _holds_keras_tensor(args, kwargs):
            return fn(*args, **kwargs)
        bound = signature.bind(*args, **kwargs)
        cls = operation_class(class_name)
        if not issubclass(cls, (_Operation, _operators._ConfiguredOperator)):  # x + y's: all operands
            return symbolic_call(cls(), tuple(bound.arguments.values()), {})
        operands, config = [], {}
        for n, v in _with_skipped_operands(name, signature, bound.arguments).items():
            if signature.parameters[n].kind is inspect.Parameter.VAR_POSITIONAL:
                operands += list(v)
            elif _is_operand(name, n, v):
                operands.append(v)
            else:
                config[n] = v
        return symbolic_call(cls(**config), tuple(operands), {})

    wrapper.__name__ = name
    return wrapper


def __getattr__(name):
    """The operation layer class a functional model's config names (``Sum``): how
    :mod:`tfunc.keras.serialization` finds it."""
    cls = operation_class(name)
    if cls is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return cls
