"""``tfunc.dtypes``: the public face of :mod:`tfunc.core.dtypes`."""

from .api.math_composites import saturate_cast
from .core.dtypes import *  # noqa: F403
from .core.dtypes import __all__ as _dtype_names

__all__ = [*_dtype_names, "saturate_cast"]
