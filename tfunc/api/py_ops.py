"""``tfunc.py_function``: runs a Python function on every call of a traced
function (eagerly, on eager tensors), for side effects or code that cannot be traced."""

from __future__ import annotations

import functools

from ..core import dtypes as D
from ..core.context import eager_scope
from ..core.errors import InvalidArgumentError
from ..eager.convert import convert_to_tensor
from ..eager.dispatch import call
from ..eager.tensor import EagerTensor, Tensor
from ..ops.py_function import py_function_op


def _run_python(arrays, func, Tout, single):
    """The kernel of a py_function node: ``func`` on eager tensors, outside any trace."""
    args = [EagerTensor._make(a, D.from_numpy(a.dtype) if not isinstance(a, bytes) else D.string) for a in arrays]
    with eager_scope():
        result = func(*args)
    if not Tout:
        return ()
    outs = [result] if single else list(result)
    if len(outs) != len(Tout):
        raise InvalidArgumentError(
            f"py_function {getattr(func, '__name__', func)} returned {len(outs)} values, but Tout lists {len(Tout)}."
        )
    arrays = []
    for v, dt in zip(outs, Tout):
        t = convert_to_tensor(v, dtype=dt) if not isinstance(v, Tensor) else v
        if t.dtype is not dt:
            raise InvalidArgumentError(f"py_function returned a {t.dtype.name} value where Tout says {dt.name}.")
        arrays.append(t._value)
    return tuple(arrays)


def py_function(func=None, inp=None, Tout=None, name=None):
    """Calls ``func(*inp)`` eagerly each time it runs; ``Tout`` gives the output dtypes.

    Without ``inp`` it wraps ``func`` (``tf.py_function(f, Tout=...)(x)``), and without
    ``func`` it is a decorator: ``@tf.py_function(Tout=tf.float32)``."""
    if func is None:
        return lambda f: py_function(f, inp, Tout, name)
    if inp is None:

        @functools.wraps(func)
        def wrapper(*args):
            return py_function(func, list(args), Tout, name)

        return wrapper
    return _py_function(func, inp, Tout)


def _py_function(func, inp, Tout):
    single = not isinstance(Tout, (list, tuple))
    touts = () if Tout is None else ((Tout,) if single else tuple(Tout))
    touts = tuple(D.as_dtype(t) for t in touts)
    inputs = tuple(convert_to_tensor(x) for x in (inp or []))
    outs = call(
        py_function_op, inputs, {"func": func, "Tout": touts, "single": single and bool(touts), "run": _run_python}
    )
    if not touts:
        return None
    return outs[0] if single else list(outs)


def numpy_function(func, inp, Tout, stateful=True, name=None):
    """Like py_function, but ``func`` receives and returns NumPy arrays."""

    def wrapped(*tensors):
        r = func(*[t.numpy() for t in tensors])
        return r

    wrapped.not_differentiable = True  # as TensorFlow's PyFunc: gradients stop here (None, not zeros)
    return _py_function(wrapped, inp, Tout)
