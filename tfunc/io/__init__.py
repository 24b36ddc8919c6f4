"""``tfunc.io`` (``tf.io``): files. ``gfile`` is TensorFlow's file API on the local file system
(``exists``, ``glob``, ``makedirs``, ``listdir``, ``walk``, ``GFile``...), and
:func:`read_file` / :func:`write_file` read and write a whole file as a scalar string tensor,
eagerly or inside a ``tfunc.function`` (where they run on every call, in program order);
:func:`decode_csv` parses CSV records."""

from ..api.csv_ops import decode_csv
from . import gfile
from .file_io_ops import read_file, write_file

__all__ = ["decode_csv", "gfile", "read_file", "write_file"]
