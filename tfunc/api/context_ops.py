"""``tf.executing_eagerly`` and ``tf.name_scope``."""

from __future__ import annotations

import re
import threading

from ..core.context import ctx

__all__ = ["executing_eagerly", "name_scope"]

_VALID = re.compile(r"^[A-Za-z0-9_.\-/>]*$")
_scopes = threading.local()


def executing_eagerly() -> bool:
    """True outside a function being traced (and in functions run eagerly)."""
    return ctx.graph is None


class name_scope:
    """``with tf.name_scope("block") as scope:``: ``scope`` is the full scope name ending in
    "/" (nested scopes join).  tfunc names its graph nodes by op, so the scope only names."""

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
        outer = stack[-1] if stack else ""
        scope = (outer + self._name + "/") if self._name else ""
        stack.append(scope)
        return scope

    def __exit__(self, *exc) -> None:
        _scopes.stack.pop()
