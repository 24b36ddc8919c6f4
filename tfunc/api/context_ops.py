"""``tf.executing_eagerly`` and ``tf.name_scope``."""

from __future__ import annotations

import contextlib
import re
import threading

from ..core.context import ctx
from ..eager.convert import convert_to_tensor
from ..eager.dispatch import call
from ..eager.tensor import EagerTensor, Tensor
from ..ops.debugging import assert_op

__all__ = [
    "control_dependencies",
    "executing_eagerly",
    "get_current_name_scope",
    "group",
    "name_scope",
    "no_op",
    "tuple_",
]

_VALID = re.compile(r"^[A-Za-z0-9_.\-/>]*$")
_scopes = threading.local()


def current_name_scope() -> str:
    """The open ``tf.name_scope`` blocks' prefix ("outer/inner/"), or "" outside any."""
    stack = getattr(_scopes, "stack", None)
    return stack[-1] if stack else ""


def get_current_name_scope() -> str:
    """``tf.get_current_name_scope``: the current scope without its trailing "/" ("outer/inner")."""
    return current_name_scope()[:-1]


def executing_eagerly() -> bool:
    """True outside a function being traced (and in functions run eagerly)."""
    return ctx.graph is None


class name_scope:
    """``with tf.name_scope("block") as scope:``: ``scope`` is the full scope name ending in
    "/" (nested scopes join; a name ending in "/", such as a scope returned earlier, is taken
    as it is, and "" is the top).  tfunc names its graph nodes by op, so the scope only names."""

    def __init__(self, name):
        if not isinstance(name, str) or not _VALID.match(name):
            raise ValueError(f"'{name}' is not a valid scope name.")
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    def __enter__(self) -> str:
        stack = getattr(_scopes, "stack", None)
        if stack is None:
            stack = _scopes.stack = []
        stack.append(self._scope())
        return stack[-1]

    def _scope(self) -> str:
        """The full scope this block opens."""
        if not self._name or self._name.endswith("/"):
            return self._name
        return current_name_scope() + self._name + "/"

    def __exit__(self, *exc) -> None:
        _scopes.stack.pop()


def _keep(tensors) -> None:
    """While tracing, makes the symbolic ``tensors`` run (and their checks fail the call) before
    the stateful ops created after this point: an always-true assert node reads them, and
    stateful nodes run in program order.  Eagerly everything has run already."""
    symbolic = [t for t in tensors if isinstance(t, Tensor) and not isinstance(t, EagerTensor)]
    if ctx.graph is not None and symbolic:
        attrs = {"message": "", "labels": ("",) * len(symbolic), "summarize": 0}
        call(assert_op, (convert_to_tensor(True), *symbolic), attrs)


@contextlib.contextmanager
def control_dependencies(control_inputs):
    """``with tf.control_dependencies([...]):``: the given tensors (a check such as
    ``check_numerics``, an assertion) run before the effects written inside the block.
    Operations (None, as tfunc's assertions and assignments return in a function) need
    nothing: tfunc runs every stateful op, in program order."""
    if control_inputs is not None:
        _keep(list(control_inputs))
    yield


def no_op(name=None):
    """Does nothing (TensorFlow's placeholder for a control dependency)."""
    return None


def tuple_(tensors, control_inputs=None, name=None):
    """``tf.tuple``: the same tensors (None entries kept).  While tracing, all of them and
    ``control_inputs`` run (and their checks fail the call) before the stateful ops made after
    it; the tensors themselves are not re-routed, so a reader of one does not wait for the
    others as TensorFlow's identity gates make it.  Eagerly they have all run already."""
    _keep([t for t in [*tensors, *(control_inputs or ())] if t is not None])
    return list(tensors)


def group(*inputs, name=None):
    """Makes ``inputs`` run (in a traced function); returns None, as TensorFlow's op in eager mode."""
    flat = [t for x in inputs for t in (x if isinstance(x, (list, tuple)) else [x])]
    _keep(flat)
    return None
