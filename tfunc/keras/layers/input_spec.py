"""``keras.InputSpec``: what a layer's ``input_spec`` says of the first argument of its calls
(rank, dtype, shape, given axes), checked before every call as Keras 3 checks it, with Keras's
error messages."""

from __future__ import annotations

from ...core import dtypes as _dtypes
from ...core import nest
from ...core.shapes import TensorShape

__all__ = ["InputSpec", "assert_input_compatibility"]


def _dtype_name(dtype) -> str:
    return _dtypes.as_dtype(dtype).name


def _shape(shape) -> tuple:
    return tuple(TensorShape(shape).as_list())


class InputSpec:
    """Specifies the rank, dtype and shape of every input to a layer (``None`` in a shape is
    compatible with any size); ``axes`` maps axes to required sizes, ``allow_last_axis_squeeze``
    accepts a trailing axis of 1 more or less; ``name`` is the key of the input in a dict."""

    def __init__(
        self,
        dtype=None,
        shape=None,
        ndim=None,
        max_ndim=None,
        min_ndim=None,
        axes=None,
        allow_last_axis_squeeze=False,
        name=None,
        optional=False,
    ):
        self.dtype = _dtype_name(dtype) if dtype is not None else None
        if shape is not None:
            self.shape = _shape(shape)
            self.ndim = len(self.shape)
        else:
            self.ndim = ndim
            self.shape = None
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.name = name
        self.optional = optional
        self.allow_last_axis_squeeze = allow_last_axis_squeeze
        try:
            axes = axes or {}
            self.axes = {int(k): axes[k] for k in axes}
        except (ValueError, TypeError):
            raise TypeError(f"Argument `axes` must be a dict with integer keys. Received: axes={axes}") from None
        if self.axes and (self.ndim is not None or self.max_ndim is not None):
            max_dim = (self.ndim if self.ndim else self.max_ndim) - 1
            if max(self.axes) > max_dim:
                raise ValueError(f"Axis {max(self.axes)} is greater than the maximum allowed value: {max_dim}")

    def __repr__(self):
        parts = [
            f"dtype={self.dtype}" if self.dtype else "",
            f"shape={self.shape}" if self.shape else "",
            f"ndim={self.ndim}" if self.ndim else "",
            f"max_ndim={self.max_ndim}" if self.max_ndim else "",
            f"min_ndim={self.min_ndim}" if self.min_ndim else "",
            f"axes={self.axes}" if self.axes else "",
        ]
        return f"InputSpec({', '.join(p for p in parts if p)})"

    def get_config(self):
        return {
            "dtype": self.dtype,
            "shape": self.shape,
            "ndim": self.ndim,
            "max_ndim": self.max_ndim,
            "min_ndim": self.min_ndim,
            "axes": self.axes,
            "optional": self.optional,
        }

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _by_name(specs: list, inputs):
    """Dict inputs in the order of the specs' names, when every spec has one."""
    names = [spec.name for spec in specs]
    if not isinstance(inputs, dict) or not all(names):
        return inputs
    for name in names:
        if name not in inputs:
            raise ValueError(
                f'Missing data for input "{name}". You passed a data dictionary with keys {list(inputs)}. '
                f"Expected the following keys: {names}"
            )
    return [inputs[name] for name in names]


def _check_one(index: int, x, spec: InputSpec, layer_name: str) -> None:
    where = f"Input {index} with name '{spec.name}' of layer '{layer_name}' is incompatible with the layer"
    if not hasattr(x, "shape"):
        raise ValueError(
            f"Inputs to a layer should be tensors. Got '{x}' (of type {type(x)}) as input for layer '{layer_name}'."
        )
    shape = _shape(x.shape)
    ndim = len(shape)
    if spec.ndim is not None and not spec.allow_last_axis_squeeze and ndim != spec.ndim:
        raise ValueError(f"{where}: expected ndim={spec.ndim}, found ndim={ndim}. Full shape received: {shape}")
    if spec.max_ndim is not None and ndim > spec.max_ndim:
        raise ValueError(f"{where}: expected max_ndim={spec.max_ndim}, found ndim={ndim}")
    if spec.min_ndim is not None and ndim < spec.min_ndim:
        raise ValueError(f"{where}: expected min_ndim={spec.min_ndim}, found ndim={ndim}. Full shape received: {shape}")
    if spec.dtype is not None and _dtype_name(x.dtype) != spec.dtype:
        raise ValueError(f"{where}: expected dtype={spec.dtype}, found dtype={_dtype_name(x.dtype)}")
    for axis, value in spec.axes.items():
        if value is not None and shape[axis] not in (value, None):
            raise ValueError(
                f"{where}: expected axis {axis} of input shape to have value {value}, but received input with "
                f"shape {shape}"
            )
    if spec.shape is not None:
        spec_shape = spec.shape
        if spec.allow_last_axis_squeeze:
            shape = shape[:-1] if shape and shape[-1] == 1 else shape
            spec_shape = spec_shape[:-1] if spec_shape and spec_shape[-1] == 1 else spec_shape
        for spec_dim, dim in zip(spec_shape, shape):
            if spec_dim is not None and dim is not None and spec_dim != dim:
                raise ValueError(f"{where}: expected shape={spec.shape}, found shape={shape}")


def assert_input_compatibility(input_spec, inputs, layer_name: str) -> None:
    """Raises Keras's ValueError where ``inputs`` (the first argument of a call) do not meet
    ``input_spec`` (one InputSpec or a nested structure of them)."""
    if not input_spec:
        return
    specs = nest.flatten(input_spec)
    flat = nest.flatten(_by_name(specs, inputs))
    if len(flat) != len(specs):
        names = [spec.name for spec in specs if spec is not None]
        if len(names) == len(specs) and all(names):
            keys = ", ".join(f"'{n}': ..." for n in names)
            raise ValueError(
                f'Layer "{layer_name}" expects {len(specs)} named input(s) with keys {names}, but it received '
                f"{len(flat)} input tensors. Pass inputs as a dict, e.g. `layer({{{keys}}})`."
            )
        raise ValueError(
            f'Layer "{layer_name}" expects {len(specs)} input(s), but it received {len(flat)} input tensors. '
            f"Inputs received: {flat}"
        )
    for index, (x, spec) in enumerate(zip(flat, specs)):
        if spec is None or (x is None and spec.optional):
            continue
        _check_one(index, x, spec, layer_name)
