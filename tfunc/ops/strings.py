"""String ops (``tf.strings``): element by element on NumPy bytes arrays, on the host.

A string tensor is a NumPy ``S`` array (a scalar may arrive as ``bytes``); each kernel applies
a Python function per element (``np.frompyfunc``) and returns a bytes, bool or number array of
the broadcast shape.  Encodings: ``BYTE`` counts bytes, ``UTF8_CHAR`` characters of the UTF-8
text, as TensorFlow's ``unit`` arguments do.
"""

from __future__ import annotations

import re

import numpy as np

from ..core import dtypes as D
from ..core.errors import InvalidArgumentError
from ..core.shapes import broadcast_shapes
from ..core.specs import Spec
from . import sampling as S
from .infer import BOOL, NUMERIC, check_dtype
from .registry import OpDef, register

_STR = {D.string}
_TEXT = np.array([b" H\xc3\xa9llo ", b"ab\tc", b"", b"x1y22"])  # samples: UTF-8, a tab, empty, digits


def _as_bytes(out, shape):
    """An object array of bytes as an ``S`` array of ``shape`` (``S1`` when empty).  NumPy's
    bytes arrays drop trailing NUL bytes, so a result ending in one is refused, not cut."""
    out = np.asarray(out, dtype=object).reshape(shape)
    for b in out.flat:
        if b.endswith(b"\x00"):
            raise InvalidArgumentError(
                f"a string op made {b!r}, which ends in a NUL byte: tfunc's strings cannot hold one."
            )
    return out.astype(bytes) if out.size else np.zeros(shape, "S1")


def _elementwise(fn, *arrays, out_dtype=None):
    """``fn`` on each element of the broadcast ``arrays``: bytes, or ``out_dtype`` values."""
    arrays = [np.asarray(a) for a in arrays]
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    result = np.frompyfunc(fn, len(arrays), 1)(*arrays)
    if out_dtype is None:
        return _as_bytes(result, shape)
    return np.asarray(result, dtype=object).reshape(shape).astype(out_dtype)


def _string_infer(name, out_dtype=D.string, extra=()):
    """Elementwise over string inputs (and ``extra`` numeric positions): the broadcast shape."""

    def infer(specs, attrs):
        for i, s in enumerate(specs):
            if i not in extra:
                check_dtype(name, s, _STR, "input")
        shape = specs[0].shape
        for s in specs[1:]:
            shape = broadcast_shapes(shape, s.shape, name)
        return (Spec(shape, out_dtype),)

    return infer


def _decode(s: bytes, unit: str, what: str) -> str:
    try:
        return s.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidArgumentError(f"{what}: {s!r} is not valid UTF-8 (unit='{unit}').") from None


# --- length, case, strip ----------------------------------------------------------------------


def _length_impl(xp, x, unit):
    if unit == "UTF8_CHAR":
        return _elementwise(lambda s: len(_decode(s, unit, "strings.length")), x, out_dtype=np.int32)
    return _elementwise(len, x, out_dtype=np.int32)


def _case(upper: bool):
    def impl(xp, x, encoding):
        if encoding:  # Unicode case mapping of the UTF-8 text
            change = str.upper if upper else str.lower
            what = "strings.upper" if upper else "strings.lower"
            return _elementwise(lambda s: change(_decode(s, "UTF8_CHAR", what)).encode(), x)
        return _elementwise(bytes.upper if upper else bytes.lower, x)  # ASCII letters only, as TensorFlow

    return impl


def _text_samples(attrs):
    return lambda rng: [S.Sample((_TEXT,), dict(attrs)), S.Sample((np.array(b"AbC"),), dict(attrs), "scalar")]


string_length_op = register(
    OpDef(
        name="string_length",
        infer=_string_infer("strings.length", D.int32),
        impl=_length_impl,
        ref=lambda x, unit: _length_impl(np, x, unit),
        samples=lambda rng: [S.Sample((_TEXT,), {"unit": "BYTE"}), S.Sample((_TEXT,), {"unit": "UTF8_CHAR"})],
        host_only=True,
    )
)
string_upper_op = register(
    OpDef(
        name="string_upper",
        infer=_string_infer("strings.upper"),
        impl=_case(True),
        ref=lambda x, encoding: _case(True)(np, x, encoding),
        samples=_text_samples({"encoding": ""}),
        host_only=True,
    )
)
string_lower_op = register(
    OpDef(
        name="string_lower",
        infer=_string_infer("strings.lower"),
        impl=_case(False),
        ref=lambda x, encoding: _case(False)(np, x, encoding),
        samples=_text_samples({"encoding": "utf-8"}),
        host_only=True,
    )
)
string_strip_op = register(
    OpDef(
        name="string_strip",
        infer=_string_infer("strings.strip"),
        impl=lambda xp, x: _elementwise(bytes.strip, x),
        ref=lambda x: _elementwise(bytes.strip, x),
        samples=_text_samples({}),
        host_only=True,
    )
)


# --- joining -----------------------------------------------------------------------------------


def _join_infer(specs, attrs):
    """TensorFlow's StringJoin: the inputs have one shape, or are scalars (no other broadcasting)."""
    known = {s.shape for s in specs if s.shape not in ((), None) and None not in s.shape}
    if len(known) > 1:
        raise InvalidArgumentError(f"strings.join: input shapes do not match: {sorted(known)}.")
    return _string_infer("strings.join")(specs, attrs)


def _join_impl(xp, *xs, separator):
    return _elementwise(lambda *parts: separator.join(parts), *xs)


string_join_op = register(
    OpDef(
        name="string_join",
        infer=_join_infer,
        impl=_join_impl,
        ref=lambda *xs, separator: _join_impl(np, *xs, separator=separator),
        samples=lambda rng: [
            S.Sample((_TEXT, np.array(b"!")), {"separator": b"-"}),
            S.Sample((np.array([[b"a", b"b"]]), np.array([[b"c", b"d"]])), {"separator": b""}, "matrices"),
        ],
        host_only=True,
    )
)


def _reduce_join_infer(specs, attrs):
    s = specs[0]
    check_dtype("strings.reduce_join", s, _STR, "inputs")
    axes, keep = attrs["axis"], attrs["keepdims"]
    if s.shape is None:
        return (Spec(None, D.string),)
    axes = range(len(s.shape)) if axes is None else axes
    shape = tuple(1 if i in axes else d for i, d in enumerate(s.shape) if keep or i not in axes)
    return (Spec(shape, D.string),)


def _reduce_join_impl(xp, x, axis, keepdims, separator):
    x = np.asarray(x)
    axes = tuple(range(x.ndim)) if axis is None else axis
    rest = [i for i in range(x.ndim) if i not in axes]
    kept = [x.shape[i] for i in rest]
    joined_len = int(np.prod([x.shape[i] for i in axes]))
    rows = np.transpose(x, rest + list(axes)).reshape(int(np.prod(kept)), joined_len)  # one row per output
    out = _as_bytes([separator.join(row.tolist()) for row in rows], kept)
    if keepdims:
        out = out.reshape([1 if i in axes else d for i, d in enumerate(x.shape)])
    return out


reduce_join_op = register(
    OpDef(
        name="reduce_join",
        infer=_reduce_join_infer,
        impl=_reduce_join_impl,
        ref=lambda x, **a: _reduce_join_impl(np, x, **a),
        samples=lambda rng: [
            S.Sample((np.array([[b"a", b"b"], [b"c", b"d"]]),), dict(axis=(1,), keepdims=False, separator=b",")),
            S.Sample((np.array([[b"a", b"b"], [b"c", b"d"]]),), dict(axis=(0,), keepdims=True, separator=b"")),
            S.Sample((np.array([[b"a", b"b"], [b"c", b"d"]]),), dict(axis=None, keepdims=False, separator=b"")),
            S.Sample((np.zeros((2, 0), "S1"),), dict(axis=(1,), keepdims=False, separator=b"+"), "empty rows"),
        ],
        host_only=True,
    )
)


# --- regular expressions -------------------------------------------------------------------------


def _compiled(pattern: bytes, what: str):
    """The pattern over text (as RE2 reads UTF-8, ``.`` is one character), and over bytes for
    strings that are not UTF-8."""
    try:
        return re.compile(pattern.decode("utf-8")), re.compile(pattern)
    except (re.error, UnicodeDecodeError) as e:
        raise InvalidArgumentError(f"{what}: invalid pattern {pattern!r}: {e}") from None


def _on_text(fn, s: bytes, text_rx, bytes_rx):
    try:
        return fn(text_rx, s.decode("utf-8"))
    except UnicodeDecodeError:
        return fn(bytes_rx, s)


def _full_match_impl(xp, x, pattern):
    rx = _compiled(pattern, "strings.regex_full_match")
    return _elementwise(lambda s: _on_text(lambda r, t: r.fullmatch(t) is not None, s, *rx), x, out_dtype=bool)


def _python_rewrite(rewrite: bytes) -> bytes:
    """RE2's rewrite in Python's syntax: ``\\0`` is the whole match (``\\g<0>``), ``\\1`` a group."""
    return re.sub(rb"\\(\\|\d)", lambda m: b"\\\\" if m.group(1) == b"\\" else rb"\g<" + m.group(1) + b">", rewrite)


def _replace_impl(xp, x, pattern, rewrite, replace_global):
    rx = _compiled(pattern, "strings.regex_replace")
    count = 0 if replace_global else 1
    template = _python_rewrite(rewrite)

    def replace(r, t):
        out = r.sub(template.decode("utf-8") if isinstance(t, str) else template, t, count=count)
        return out.encode("utf-8") if isinstance(out, str) else out

    return _elementwise(lambda s: _on_text(replace, s, *rx), x)


regex_full_match_op = register(
    OpDef(
        name="regex_full_match",
        infer=_string_infer("strings.regex_full_match", D.bool),
        impl=_full_match_impl,
        ref=lambda x, pattern: _full_match_impl(np, x, pattern),
        samples=_text_samples({"pattern": rb"[a-z]+\d*"}),
        host_only=True,
    )
)
regex_replace_op = register(
    OpDef(
        name="regex_replace",
        infer=_string_infer("strings.regex_replace"),
        impl=_replace_impl,
        ref=lambda x, **a: _replace_impl(np, x, **a),
        samples=lambda rng: [
            S.Sample((_TEXT,), dict(pattern=rb"(\d)", rewrite=rb"<\1>", replace_global=True)),
            S.Sample((_TEXT,), dict(pattern=rb"\d", rewrite=b"#", replace_global=False)),
        ],
        host_only=True,
    )
)


# --- substrings ----------------------------------------------------------------------------------


def _substr_impl(xp, x, pos, length, unit):
    def piece(s, p, n):
        text = _decode(s, unit, "strings.substr") if unit == "UTF8_CHAR" else s
        p, n = int(p), int(n)
        start = p + len(text) if p < 0 else p
        if not 0 <= start <= len(text):
            raise InvalidArgumentError(f"pos {p} out of range for string {s!r} of length {len(text)} (unit='{unit}').")
        out = text[start : start + max(n, 0)]
        return out.encode() if unit == "UTF8_CHAR" else out

    return _elementwise(piece, x, pos, length)


substr_op = register(
    OpDef(
        name="substr",
        infer=_string_infer("strings.substr", extra=(1, 2)),
        impl=_substr_impl,
        ref=lambda x, p, n, unit: _substr_impl(np, x, p, n, unit),
        samples=lambda rng: [
            S.Sample((np.array([b"hello", b"world"]), np.array(1, np.int32), np.array(3, np.int32)), {"unit": "BYTE"}),
            S.Sample((np.array(b"hello"), np.array(-3, np.int32), np.array(2, np.int32)), {"unit": "BYTE"}),
            S.Sample((_TEXT[:1], np.array(2, np.int32), np.array(3, np.int32)), {"unit": "UTF8_CHAR"}),
        ],
        host_only=True,
    )
)


# --- numbers <-> strings ---------------------------------------------------------------------------

_FLOAT = re.compile(rb"[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?|inf(inity)?|nan)", re.IGNORECASE)
_HEX = re.compile(rb"[+-]?0[xX][0-9a-fA-F]+")
_INT = re.compile(rb"[+-]?\d+")


def _to_number_impl(xp, x, out_type):
    """TensorFlow's StringToNumber: surrounding spaces are allowed; floats also take ``inf``,
    ``nan`` and hexadecimal; an integer must fit its type."""
    dt = np.dtype(out_type._np)

    def parse(s):
        t = s.strip()
        if dt.kind == "f":
            if _FLOAT.fullmatch(t):
                return float(t)
            if _HEX.fullmatch(t):
                return float(int(t, 16))
        elif _INT.fullmatch(t):
            v = int(t)
            info = np.iinfo(dt)
            if info.min <= v <= info.max:
                return v
        raise InvalidArgumentError(f"StringToNumberOp could not correctly convert string: {s.decode(errors='replace')}")

    return _elementwise(parse, x, out_dtype=dt)


def _to_number_infer(specs, attrs):
    check_dtype("strings.to_number", specs[0], _STR, "string_tensor")
    if attrs["out_type"] not in (D.float32, D.float64, D.int32, D.int64):
        raise TypeError(
            f"strings.to_number: out_type must be float32, float64, int32 or int64, got {attrs['out_type']!r}."
        )
    return (Spec(specs[0].shape, attrs["out_type"]),)


string_to_number_op = register(
    OpDef(
        name="string_to_number",
        infer=_to_number_infer,
        impl=_to_number_impl,
        ref=lambda x, out_type: _to_number_impl(np, x, out_type),
        samples=lambda rng: [
            S.Sample((np.array([b"1.5", b"-2e3", b" 3", b"inf", b"0x10"]),), {"out_type": D.float32}),
            S.Sample((np.array([b"7", b"-3"]),), {"out_type": D.int64}),
        ],
        host_only=True,
        host_sync=True,
    )
)


def _as_string_impl(xp, x, precision, scientific, shortest, width, fill):
    """printf's conversions, as TensorFlow's AsString: ``%f`` (six decimals) for floats unless
    ``scientific`` (``%e``) or ``shortest`` (``%g``), ``%d`` for integers, true/false for
    bools; ``width`` pads on the left with ``fill``."""
    x = np.asarray(x)
    if x.dtype.kind == "S":  # strings pass through
        return x
    flags = fill + (str(width) if width >= 0 else "")  # fill is printf's flag: ' ', '0', '-' or '+'
    if x.dtype.kind == "b":  # TensorFlow ignores the width and fill of bools
        return _elementwise(lambda v: b"true" if v else b"false", x)
    if x.dtype.kind in "iu":
        return _elementwise(lambda v: (("%" + flags + "d") % v).encode(), x)
    conv = "g" if shortest else "e" if scientific else "f"
    digits = f".{precision}" if precision >= 0 else ""
    fmt = "%" + flags + digits + conv
    if x.dtype.kind == "c":
        return _elementwise(lambda v: f"({fmt % v.real},{fmt % v.imag})".encode(), x)
    return _elementwise(lambda v: (fmt % v).encode(), x)


def _as_string_infer(specs, attrs):
    check_dtype("strings.as_string", specs[0], NUMERIC | BOOL | {D.complex64, D.complex128, D.string}, "input")
    if attrs["fill"] not in ("", " ", "0", "-", "+"):
        raise InvalidArgumentError(
            f"strings.as_string: fill must be one of '', ' ', '0', '-', '+', got {attrs['fill']!r}."
        )
    return (Spec(specs[0].shape, D.string),)


_AS_STRING = dict(precision=-1, scientific=False, shortest=False, width=-1, fill="")
as_string_op = register(
    OpDef(
        name="as_string",
        infer=_as_string_infer,
        impl=_as_string_impl,
        ref=lambda x, **a: _as_string_impl(np, x, **a),
        samples=lambda rng: [
            S.Sample((np.array([3.5, -1.25e-7, 1e10], np.float32),), dict(_AS_STRING)),
            S.Sample((np.array([3, -12], np.int32),), dict(_AS_STRING, width=4, fill="0")),
            S.Sample((np.array([True, False]),), dict(_AS_STRING)),
            S.Sample((np.array([3.14159], np.float64),), dict(_AS_STRING, precision=2)),
            S.Sample((np.array([31.4159, 0.1], np.float32),), dict(_AS_STRING, shortest=True)),
        ],
        host_only=True,
    )
)


# --- splitting a scalar -------------------------------------------------------------------------


def _split_impl(xp, x, sep, maxsplit):
    s = np.asarray(x).item()
    parts = s.split(sep or None, maxsplit)  # no separator, or an empty one: runs of whitespace
    return _as_bytes(parts, (len(parts),))


def _split_infer(specs, attrs):
    check_dtype("strings.split", specs[0], _STR, "input")
    return (Spec((None,), D.string),)


string_split_op = register(
    OpDef(
        name="string_split",
        infer=_split_infer,
        impl=_split_impl,
        ref=lambda x, sep, maxsplit: _split_impl(np, x, sep, maxsplit),
        samples=lambda rng: [
            S.Sample((np.array(b"a b  c"),), dict(sep=None, maxsplit=-1)),
            S.Sample((np.array(b"a,b,,c"),), dict(sep=b",", maxsplit=-1)),
            S.Sample((np.array(b"a,b,c"),), dict(sep=b",", maxsplit=1)),
        ],
        host_only=True,
    )
)
