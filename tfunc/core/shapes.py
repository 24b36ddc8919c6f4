"""Static shapes: :class:`TensorShape` (public) and tuple helpers (internal).

Internally a shape is a tuple of ints with ``None`` for unknown dimensions, or
``None`` for an unknown rank.  ``TensorShape`` wraps that for users and follows
``tf.TensorShape``: ``str`` is ``(None, 3)`` or ``<unknown>``, ``repr`` is
``TensorShape([None, 3])``.
"""

from __future__ import annotations

import numbers
from typing import Optional, Tuple

from .errors import IncompatibleShapesError

__all__ = [
    "TensorShape",
    "as_shape",
    "broadcast_shapes",
    "check_no_negative_dims",
    "shape_is_subtype",
    "shape_common_supertype",
    "shapes_compatible",
    "num_elements",
]

Shape = Optional[Tuple[Optional[int], ...]]


def _dim(d) -> Optional[int]:
    if d is None:
        return None
    if hasattr(d, "value") and not isinstance(d, int):  # Dimension-like
        d = d.value
        if d is None:
            return None
    try:
        i = int(d)
    except (TypeError, ValueError):
        raise TypeError(f"Dimension value must be an int or None, got {d!r}.") from None
    if i != d:
        raise TypeError(f"Dimension value must be an integer, got {d!r}.")
    if i < 0:
        if i == -1:
            return None  # an op's shape argument (reshape(x, [-1])): unknown
        raise ValueError(f"Dimension {i} must be >= 0.")
    return i


def check_no_negative_dims(dims) -> None:
    """ValueError for a -1 among ``dims`` (the list or tuple a TensorShape or TensorSpec is
    made from), which :func:`to_tuple` would read as unknown."""
    if not isinstance(dims, (list, tuple)) and hasattr(dims, "tolist"):  # a NumPy array of sizes
        dims = dims.tolist()
    if isinstance(dims, (list, tuple)):
        for d in dims:  # NumPy integers too (numbers.Integral)
            if isinstance(d, numbers.Integral) and not isinstance(d, bool) and d < 0:
                raise ValueError(f"Dimension {int(d)} must be >= 0")


def to_tuple(shape) -> Shape:
    """Normalizes ``shape`` (TensorShape, list, tuple, int, None) to the internal form."""
    if shape is None:
        return None
    if isinstance(shape, TensorShape):
        return shape._dims
    if isinstance(shape, int):
        return (_dim(shape),)
    if hasattr(shape, "numpy") and hasattr(shape, "dtype"):  # a tensor of dims
        shape = shape.numpy().tolist()
        if isinstance(shape, int):
            return (_dim(shape),)
    try:
        return tuple(_dim(d) for d in shape)
    except TypeError:
        raise TypeError(f"Cannot convert {shape!r} to a shape.") from None


def num_elements(shape: Shape) -> Optional[int]:
    if shape is None or None in shape:
        return None
    n = 1
    for d in shape:
        n *= int(d)  # type: ignore[arg-type]  # no None left: checked above
    return n


def broadcast_shapes(a: Shape, b: Shape, op: str = "op") -> Shape:
    """NumPy broadcasting of static shapes; unknown dims stay unknown unless implied."""
    if a is None or b is None:
        return None
    if a == b:
        return a
    if not b:  # a scalar operand (x + 1.0): the other shape as it is
        return a
    if not a:
        return b
    la, lb = len(a), len(b)
    n = max(la, lb)
    out = []
    for i in range(n):
        da = a[la - n + i] if la - n + i >= 0 else 1
        db = b[lb - n + i] if lb - n + i >= 0 else 1
        if da == db:
            out.append(da)
        elif da == 1:
            out.append(db)
        elif db == 1:
            out.append(da)
        elif da is None:
            out.append(db)
        elif db is None:
            out.append(da)
        else:
            raise IncompatibleShapesError(
                f"Incompatible shapes for broadcasting in '{op}': {format_shape(a)} and "
                f"{format_shape(b)} (dimension {i - n} is {da} vs {db})."
            )
    return tuple(out)


def shapes_compatible(a: Shape, b: Shape) -> bool:
    if a is None or b is None:
        return True
    if len(a) != len(b):
        return False
    return all(x is None or y is None or x == y for x, y in zip(a, b))


def shape_is_subtype(a: Shape, b: Shape) -> bool:
    """True if every shape described by ``a`` is described by ``b``."""
    if b is None:
        return True
    if a is None or len(a) != len(b):
        return False
    return all(y is None or x == y for x, y in zip(a, b))


def shape_common_supertype(a: Shape, b: Shape) -> Shape:
    if a is None or b is None or len(a) != len(b):
        return None
    return tuple(x if x == y else None for x, y in zip(a, b))


def format_shape(shape: Shape) -> str:
    if shape is None:
        return "<unknown>"
    if len(shape) == 1:
        return f"({shape[0]},)"
    return "(" + ", ".join("None" if d is None else str(d) for d in shape) + ")"


class TensorShape:
    """The static shape of a tensor: possibly unknown rank or unknown dimensions."""

    __slots__ = ("_dims",)

    def __init__(self, dims=None):
        """``dims``: a list or tuple of ints and Nones, a TensorShape, an int, or None (unknown
        rank).  A -1 is refused, as TensorFlow refuses it (only op shape arguments such as
        ``reshape(x, [-1])`` read it as unknown)."""
        self._dims = to_tuple(dims)
        if self._dims is not None and None in self._dims:
            check_no_negative_dims(dims)

    @classmethod
    def _from_tuple(cls, dims: Shape) -> "TensorShape":
        s = object.__new__(cls)
        s._dims = dims
        return s

    # --- queries -------------------------------------------------------
    @property
    def rank(self) -> Optional[int]:
        return None if self._dims is None else len(self._dims)

    ndims = rank

    @property
    def dims(self):
        return None if self._dims is None else list(self._dims)

    def as_list(self):
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def is_fully_defined(self) -> bool:
        return self._dims is not None and None not in self._dims

    def num_elements(self) -> Optional[int]:
        return num_elements(self._dims)

    def is_compatible_with(self, other) -> bool:
        return shapes_compatible(self._dims, as_shape(other)._dims)

    def assert_is_compatible_with(self, other) -> None:
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {as_shape(other)} are incompatible")

    def is_subtype_of(self, other) -> bool:
        return shape_is_subtype(self._dims, as_shape(other)._dims)

    def most_specific_common_supertype(self, others) -> "TensorShape":
        dims = self._dims
        for o in others:
            dims = shape_common_supertype(dims, as_shape(o)._dims)
        return TensorShape._from_tuple(dims)

    def most_specific_compatible_shape(self, other) -> "TensorShape":
        return self.most_specific_common_supertype([other])

    def merge_with(self, other) -> "TensorShape":
        o = as_shape(other)._dims
        if self._dims is None:
            return TensorShape._from_tuple(o)
        if o is None:
            return self
        if not shapes_compatible(self._dims, o):
            raise ValueError(f"Shapes {self} and {format_shape(o)} are not compatible")
        return TensorShape._from_tuple(tuple(x if x is not None else y for x, y in zip(self._dims, o)))

    def with_rank(self, rank: int) -> "TensorShape":
        if self._dims is None:
            return TensorShape._from_tuple((None,) * rank)
        if len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")
        return self

    def with_rank_at_least(self, rank: int) -> "TensorShape":
        """Itself, if its rank is unknown or at least ``rank``; else ValueError."""
        if self._dims is not None and len(self._dims) < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def with_rank_at_most(self, rank: int) -> "TensorShape":
        """Itself, if its rank is unknown or at most ``rank``; else ValueError."""
        if self._dims is not None and len(self._dims) > rank:
            raise ValueError(f"Shape {self} must have rank at most {rank}")
        return self

    def assert_has_rank(self, rank: int) -> None:
        """ValueError unless the rank is unknown or ``rank``."""
        if self._dims is not None and len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")

    def assert_same_rank(self, other) -> None:
        """ValueError if both ranks are known and differ."""
        o = as_shape(other)
        if self._dims is not None and o._dims is not None and len(self._dims) != len(o._dims):
            raise ValueError(f"Shapes {self} and {o} must have the same rank")

    def assert_is_fully_defined(self) -> None:
        """ValueError unless every dimension is known."""
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    def concatenate(self, other) -> "TensorShape":
        o = as_shape(other)._dims
        if self._dims is None or o is None:
            return TensorShape(None)
        return TensorShape._from_tuple(self._dims + o)

    def __add__(self, other) -> "TensorShape":
        """``shape + [units]``: :meth:`concatenate`, as TensorFlow's."""
        return self.concatenate(other)

    def __radd__(self, other) -> "TensorShape":
        """``[batch] + shape``: the other shape concatenated with this one."""
        return as_shape(other).concatenate(self)

    # --- python protocol -------------------------------------------------
    def __len__(self) -> int:
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key):
        if self._dims is None:
            if isinstance(key, slice):
                return TensorShape(None)
            return None
        if isinstance(key, slice):
            return TensorShape._from_tuple(self._dims[key])
        return self._dims[key]

    def __bool__(self) -> bool:
        return self._dims is not None

    def __eq__(self, other) -> bool:
        try:
            o = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._dims == o._dims

    def __ne__(self, other) -> bool:
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __hash__(self) -> int:
        return hash(self._dims)

    def __str__(self) -> str:
        return format_shape(self._dims)

    def __repr__(self) -> str:
        if self._dims is None:
            return "TensorShape(None)"
        return "TensorShape([" + ", ".join("None" if d is None else str(d) for d in self._dims) + "])"

    def __reduce__(self):
        return (TensorShape, (self.dims,))


def as_shape(shape) -> TensorShape:
    if isinstance(shape, TensorShape):
        return shape
    return TensorShape(shape)


def unknown_shape(rank: Optional[int] = None) -> TensorShape:
    return TensorShape(None if rank is None else [None] * rank)
