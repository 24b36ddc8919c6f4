"""``tfunc.dtypes``: the public face of :mod:`tfunc.core.dtypes`, with the ops TensorFlow also
files there (``tf.dtypes.cast``, ``tf.dtypes.complex``, ``tf.dtypes.saturate_cast``)."""

from .api.math_composites import saturate_cast
from .api.math_ops import cast, complex  # noqa: A004 - the public name is tf.dtypes.complex
from .core.dtypes import *  # noqa: F403
from .core.dtypes import __all__ as _dtype_names

__all__ = [*_dtype_names, "cast", "complex", "saturate_cast"]
