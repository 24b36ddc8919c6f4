"""Numbers written as text, read as TensorFlow's kernels read them (StringToNumber, DecodeCSV
and CSVDataset all use absl's ``SimpleAtoi``/``SimpleAtof``).

ASCII whitespace around the number is ignored.  An integer is decimal digits with an optional
sign and must fit its type.  A float follows C's ``strtod``: decimal with an optional exponent
(``.5``, ``5.``, ``1e3``), hexadecimal with an optional binary exponent (``0x10``, ``0x1.8p1``),
``inf``/``infinity`` and ``nan``/``nan(chars)`` in any case; a value too large for the type
becomes infinity.
"""

from __future__ import annotations

import re
from typing import Optional, Union

import numpy as np

__all__ = ["parse_float", "parse_int", "parse_number"]

_DECIMAL = re.compile(rb"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_HEX_FLOAT = re.compile(rb"[+-]?0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)([pP][+-]?\d+)?")
_SPECIAL = re.compile(rb"([+-]?)(inf|infinity|nan(\([0-9A-Za-z_]*\))?)", re.IGNORECASE)
_INT = re.compile(rb"[+-]?\d+")


def parse_float(text: bytes) -> Optional[float]:
    """The value of ``text`` as strtod reads it (whole, spaces aside), or None."""
    t = text.strip()
    if _DECIMAL.fullmatch(t):
        return float(t)
    if _HEX_FLOAT.fullmatch(t):
        return float.fromhex(t.decode("ascii"))
    special = _SPECIAL.fullmatch(t)
    if special:
        sign = -1.0 if special.group(1) == b"-" else 1.0
        return sign * (np.inf if special.group(2)[:1] in b"iI" else np.nan)
    return None


def parse_int(text: bytes, dtype: np.dtype) -> Optional[int]:
    """The value of ``text`` as an integer of ``dtype`` (decimal digits only), or None when it
    is not one or does not fit."""
    t = text.strip()
    if not _INT.fullmatch(t):
        return None
    v = int(t)
    info = np.iinfo(dtype)
    return v if info.min <= v <= info.max else None


def parse_number(text: bytes, dtype: np.dtype) -> Union[int, float, np.floating, None]:
    """``text`` as a number of NumPy ``dtype`` (a float type rounds to it, overflowing to
    infinity), or None when TensorFlow would refuse it."""
    dtype = np.dtype(dtype)
    if dtype.kind != "f":
        return parse_int(text, dtype)
    v = parse_float(text)
    if v is None or dtype == np.float64:
        return v
    with np.errstate(over="ignore"):
        return dtype.type(v)
