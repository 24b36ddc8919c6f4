"""``tf.strings``: lengths, case, stripping, joining, regular expressions, substrings,
conversions between numbers and strings, and splitting a scalar string.  The ops are in
:mod:`tfunc.ops.strings`; none has a gradient.

Differences from TensorFlow: patterns are Python's ``re`` (RE2's common syntax means the same;
``$`` also matches before a final newline, and Python-only syntax is accepted); a result ending
in a NUL byte is refused (tfunc's strings cannot hold one); ``UTF8_CHAR`` units and the utf-8
case mappings refuse text that is not UTF-8; ``to_number`` reads decimal and ``0x`` integers,
not hexadecimal floats, into float32/64 or int32/64.

The hashing functions give TensorFlow's values exactly (FarmHash's Fingerprint64 and
SipHash-2-4, ported in :mod:`tfunc.ops.strings`).  ``lookup``, ``hashed_cross`` and
``text_tokens`` are not TensorFlow names: they are the host stages of the Keras lookup, hashing
and text layers (a StaticHashTable's find, ``tf.sparse.cross_hashed`` of dense columns, and the
ragged tokens of ``TextVectorization`` padded with ``b""``, as tfunc has no RaggedTensor)."""

from __future__ import annotations

from ..core import dtypes as D
from ..eager.convert import convert_to_tensor
from ..eager.dispatch import call
from ..ops import strings as ops
from ..ops.infer import normalize_axes

_UNITS = ("BYTE", "UTF8_CHAR")


def _text(x, what: str):
    t = convert_to_tensor(x)
    if not t.dtype.is_string:
        raise TypeError(f"{what} takes string tensors, got dtype {t.dtype.name}.")
    return t


def _unit(unit, what: str) -> str:
    if unit not in _UNITS:
        raise ValueError(f"{what}: unit must be 'BYTE' or 'UTF8_CHAR', got {unit!r}.")
    return unit


def _bytes(s) -> bytes:
    return s.encode() if isinstance(s, str) else bytes(s)


def length(input, unit="BYTE", name=None):
    """The length of each string: in bytes, or in UTF-8 characters (``unit='UTF8_CHAR'``)."""
    return call(ops.string_length_op, (_text(input, "strings.length"),), {"unit": _unit(unit, "strings.length")})


def upper(input, encoding="", name=None):
    """Upper case: ASCII letters, or with ``encoding='utf-8'`` every letter of the text."""
    return call(ops.string_upper_op, (_text(input, "strings.upper"),), {"encoding": encoding})


def lower(input, encoding="", name=None):
    """Lower case: ASCII letters, or with ``encoding='utf-8'`` every letter of the text."""
    return call(ops.string_lower_op, (_text(input, "strings.lower"),), {"encoding": encoding})


def strip(input, name=None):
    """Each string without its leading and trailing whitespace."""
    return call(ops.string_strip_op, (_text(input, "strings.strip"),))


def join(inputs, separator="", name=None):
    """The strings of ``inputs`` (a list of tensors, broadcast together) joined element by element."""
    xs = tuple(_text(x, "strings.join") for x in inputs)
    if not xs:
        raise ValueError("strings.join needs at least one input.")
    return call(ops.string_join_op, xs, {"separator": _bytes(separator)})


def reduce_join(inputs, axis=None, keepdims=False, separator="", name=None):
    """The strings joined along ``axis`` (every axis when None), in order."""
    x = _text(inputs, "strings.reduce_join")
    axes = None if axis is None else normalize_axes(axis, x.shape.rank, "strings.reduce_join")
    if axis is not None and axes is None:
        raise ValueError("strings.reduce_join: a negative axis needs an input of known rank.")
    return call(ops.reduce_join_op, (x,), {"axis": axes, "keepdims": bool(keepdims), "separator": _bytes(separator)})


def regex_full_match(input, pattern, name=None):
    """Whether each whole string matches ``pattern`` (Python's ``re`` syntax, which agrees with
    RE2's for the common constructs)."""
    return call(ops.regex_full_match_op, (_text(input, "strings.regex_full_match"),), {"pattern": _bytes(pattern)})


def regex_replace(input, pattern, rewrite, replace_global=True, name=None):
    """``pattern`` replaced by ``rewrite`` (``\\1`` names a group): every match, or the first."""
    attrs = {"pattern": _bytes(pattern), "rewrite": _bytes(rewrite), "replace_global": bool(replace_global)}
    return call(ops.regex_replace_op, (_text(input, "strings.regex_replace"),), attrs)


def substr(input, pos, len, unit="BYTE", name=None):
    """``len`` bytes (or characters) of each string from ``pos`` (negative: from the end); a
    ``pos`` past the end is an error."""
    x = _text(input, "strings.substr")
    p, n = convert_to_tensor(pos, dtype_hint=D.int32), convert_to_tensor(len, dtype_hint=D.int32)
    if p.dtype not in (D.int32, D.int64) or n.dtype not in (D.int32, D.int64):
        raise TypeError(f"strings.substr: pos and len must be int32 or int64, got {p.dtype.name} and {n.dtype.name}.")
    return call(ops.substr_op, (x, p, n), {"unit": _unit(unit, "strings.substr")})


def to_number(input, out_type=D.float32, name=None):
    """Each string parsed as a number of ``out_type`` (float32, float64, int32 or int64)."""
    x = _text(input, "strings.to_number")
    return call(ops.string_to_number_op, (x,), {"out_type": D.as_dtype(out_type)})


def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="", name=None):
    """Each number (or bool) as a string, printf's way: floats with six decimals (or
    ``precision``), ``scientific`` or ``shortest``; ``width`` pads on the left with ``fill``."""
    if scientific and shortest:
        raise ValueError("strings.as_string: scientific and shortest cannot both be set.")
    attrs = dict(
        precision=int(precision), scientific=bool(scientific), shortest=bool(shortest), width=int(width), fill=fill
    )
    return call(ops.as_string_op, (convert_to_tensor(input),), attrs)


def split(input, sep=None, maxsplit=-1, name=None):
    """The pieces of a scalar string, split at ``sep`` (runs of whitespace when None), at most
    ``maxsplit`` times.  TensorFlow returns a RaggedTensor for a batch of strings, which tfunc
    does not have: a non-scalar input is refused."""
    x = _text(input, "strings.split")
    if x.shape.rank != 0:
        raise NotImplementedError(
            f"strings.split of a {x.shape.rank}-D tensor makes a RaggedTensor, which tfunc does not have: split "
            "scalar strings (in a map over the batch, say)."
        )
    return call(ops.string_split_op, (x,), {"sep": None if sep is None else _bytes(sep), "maxsplit": int(maxsplit)})


def to_hash_bucket_fast(input, num_buckets, name=None):
    """Each string's FarmHash Fingerprint64 modulo ``num_buckets`` (int64), as TensorFlow."""
    x = _text(input, "strings.to_hash_bucket_fast")
    return call(ops.string_to_hash_bucket_fast_op, (x,), {"num_buckets": int(num_buckets)})


def to_hash_bucket_strong(input, num_buckets, key, name=None):
    """Each string's SipHash-2-4 under ``key`` (two integers) modulo ``num_buckets`` (int64)."""
    x = _text(input, "strings.to_hash_bucket_strong")
    if len(key) != 2:
        raise ValueError(f"strings.to_hash_bucket_strong: key must be two integers, got {key!r}.")
    return call(
        ops.string_to_hash_bucket_strong_op, (x,), {"num_buckets": int(num_buckets), "key": tuple(map(int, key))}
    )


def lookup(table, keys):
    """``table.find`` of each key (an :class:`tfunc.ops.strings.LookupTable`)."""
    return call(ops.lookup_table_find_op, (convert_to_tensor(keys),), {"table": table})


def hashed_cross(inputs, num_buckets):
    """The features of equal-shaped integer or string tensors crossed and hashed into
    ``num_buckets``, as ``tf.sparse.cross_hashed`` of their dense columns."""
    xs = tuple(convert_to_tensor(x) for x in inputs)
    return call(ops.hashed_cross_op, xs, {"num_buckets": int(num_buckets)})


def text_tokens(input, split, ngrams=None, length=None):
    """The tokens of each string (``split``: 'whitespace', 'character', or None for the rows of
    the last axis), then their ``ngrams`` (a tuple of widths), padded with ``b""`` to the longest
    (or padded and cut to ``length``)."""
    x = _text(input, "text_tokens")
    attrs = {"split": split, "ngrams": None if not ngrams else tuple(ngrams), "length": length}
    return call(ops.text_tokens_op, (x,), attrs)
