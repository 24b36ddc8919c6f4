"""Datasets read from files: ``TextLineDataset`` and ``Dataset.list_files``."""

from __future__ import annotations

import glob
import gzip
import io
import sys
import zlib

import numpy as np

from ..core import dtypes as _dtypes
from ..core.errors import InvalidArgumentError, NotFoundError
from ..core.specs import TensorSpec
from ..eager.convert import convert_to_tensor
from ..eager.tensor import EagerTensor
from .dataset import UNKNOWN_CARDINALITY, Dataset, _TensorSliceDataset, register_kind

__all__ = ["TextLineDataset", "list_files"]


def _names(filenames, what: str) -> list:
    """File names from a string, a list of them, a string tensor or a dataset of strings."""
    if isinstance(filenames, Dataset):
        items = [t.numpy() for t in filenames._elements()]
    else:
        t = convert_to_tensor(filenames)
        if not t.dtype.is_string or t.shape.rank not in (0, 1):
            raise TypeError(f"{what}: `filenames` must be a string or a list of strings, got {filenames!r}.")
        items = np.atleast_1d(t.numpy()).tolist()
    return [n.decode() if isinstance(n, bytes) else str(n) for n in items]


_DECOMPRESS = {"": None, "GZIP": "gzip", "ZLIB": "zlib"}


class TextLineDataset(Dataset):
    """``tf.data.TextLineDataset``: the lines of text files, one string each, without
    their line ending (``\\n`` or ``\\r\\n``); files read one after another."""

    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None):
        self._files = _names(filenames, "TextLineDataset")
        kind = "" if compression_type is None else str(compression_type).upper()
        if kind not in _DECOMPRESS:
            raise InvalidArgumentError(
                None, None, f"Unsupported compression_type {compression_type!r}: use '', 'GZIP' or 'ZLIB'."
            )
        self._compression = kind

    def _read(self, path: str) -> bytes:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            raise NotFoundError(None, None, f"{path}; No such file or directory") from None
        if self._compression == "GZIP":
            return gzip.decompress(data)
        if self._compression == "ZLIB":
            return zlib.decompress(data)
        return data

    def _elements(self):
        for path in self._files:
            for line in io.BytesIO(self._read(path)):
                if line.endswith(b"\n"):
                    line = line[:-1]
                line = line.replace(b"\r", b"")  # TensorFlow's line reader drops every carriage return
                yield EagerTensor._make(np.asarray(line, dtype=np.bytes_), _dtypes.string)

    def _compute_spec(self):
        return TensorSpec((), _dtypes.string)

    def _cardinality(self):
        return UNKNOWN_CARDINALITY


# TensorFlow's matching includes names starting with a dot (glob skips them unless asked, 3.11+)
_HIDDEN = {"include_hidden": True} if sys.version_info >= (3, 11) else {}


@register_kind("list_files")
def list_files(file_pattern, shuffle=None, seed=None, name=None) -> Dataset:
    """``tf.data.Dataset.list_files``: the files matching the glob pattern(s), as
    strings, sorted, then shuffled unless ``shuffle=False``; an error if none match."""
    patterns = _names(file_pattern, "Dataset.list_files()")
    found = sorted({p for pattern in patterns for p in glob.glob(pattern, **_HIDDEN)})
    if not found:
        raise InvalidArgumentError(None, None, f"No files matched pattern: {', '.join(patterns)}")
    ds: Dataset = _TensorSliceDataset(np.array([p.encode() for p in found], dtype=np.bytes_))
    if shuffle is None or shuffle:
        ds = ds.shuffle(len(found), seed=seed)
    return ds
