"""``tf.linalg.lu`` and what TensorFlow's Python composes from it (``lu_solve``,
``lu_reconstruct``, ``lu_matrix_inverse``), and ``tf.linalg.expm`` (Padé approximants with
scaling and squaring, TensorFlow's port of Eigen's algorithm).  The composites are built from
existing ops, so their gradients are those of the ops (TensorFlow registers none for Lu)."""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from ..core import dtypes as D
from ..core.errors import InvalidArgumentError
from ..eager.convert import constant, convert_to_tensor, convert_to_tensor_v2
from ..eager.dispatch import call
from ..ops import linalg as L
from . import math_ops as m
from . import reduction_ops as r
from .array_composites import invert_permutation
from .array_ops import expand_dims, gather, reshape
from .array_ops import shape as shape_of
from .control_flow_ops import cond, while_loop
from .creation_ops import eye, fill, ones, ones_like
from .creation_ops import range as tf_range
from .linalg_ops import band_part, diag, set_diag, solve, triangular_solve
from .nn_ops import matmul

__all__ = ["lu", "lu_solve", "lu_reconstruct", "lu_matrix_inverse", "expm"]

Lu = namedtuple("Lu", ["lu", "p"])


def lu(input, output_idx_type=D.int32, name=None):
    """``Lu(lu, p)``: ``L`` (unit diagonal left out) and ``U`` of each square matrix packed in
    ``lu``, and the row permutation ``p`` with ``input[..., p, :] == L @ U`` (partial pivoting)."""
    idx = D.as_dtype(output_idx_type)
    if idx not in (D.int32, D.int64):
        raise TypeError(f"lu: output_idx_type must be int32 or int64, got {idx.name}.")
    out, p = call(L.lu_op, (convert_to_tensor(input),), {"output_idx_type": idx})
    return Lu(out, p)


def _check_factors(lower_upper, perm):
    """TensorFlow's static checks (``lu_reconstruct_assertions``), ValueErrors."""
    rank, prank = lower_upper.shape.rank, perm.shape.rank
    if rank is not None and rank < 2:
        raise ValueError("Input `lower_upper` must have at least 2 dimensions.")
    if rank is not None and prank is not None and rank != prank + 1:
        raise ValueError("`rank(lower_upper)` must equal `rank(perm) + 1`")
    if rank is not None and None not in lower_upper.shape[-2:] and lower_upper.shape[-2] != lower_upper.shape[-1]:
        raise ValueError("`lower_upper` must be square.")


def _factors(lower_upper, perm):
    lu_ = convert_to_tensor_v2(lower_upper, dtype_hint=D.float32)
    p = convert_to_tensor_v2(perm, dtype_hint=D.int32)
    _check_factors(lu_, p)
    return lu_, p


def _unit_lower(lu_):
    """L: the strictly lower triangle of ``lu`` with ones on the diagonal."""
    return set_diag(band_part(lu_, -1, 0), ones(shape_of(lu_)[:-1], lu_.dtype))


def _gather_rows(x, rows):
    """``x[..., rows[...], :]`` per batch entry (``x``: [..., n, k], ``rows``: [..., n]); the
    batch dimensions broadcast against each other.  ``where`` on an all-true mask broadcasts
    without touching a value."""
    if x.shape.rank == 2 and rows.shape.rank == 1:
        return gather(x, rows, axis=-2)
    x = m.where(ones_like(expand_dims(rows[..., :1], -1), dtype=D.bool), x, x)
    rows = m.where(ones_like(x[..., :1, 0], dtype=D.bool), rows, rows)
    return gather(x, rows, axis=-2, batch_dims=-1)


def lu_solve(lower_upper, perm, rhs, validate_args=False, name=None):
    """``X`` with ``A @ X == rhs``, given ``lu(A)`` (batch dimensions broadcast)."""
    lu_, p = _factors(lower_upper, perm)
    b = convert_to_tensor_v2(rhs, dtype_hint=lu_.dtype)
    if b.shape.rank is not None and b.shape.rank < 2:
        raise ValueError("Input `rhs` must have at least 2 dimensions.")
    if lu_.shape.rank is not None and b.shape.rank is not None and None not in (lu_.shape[-1], b.shape[-2]):
        if lu_.shape[-1] != b.shape[-2]:
            raise ValueError("`lower_upper.shape[-1]` must equal `rhs.shape[-1]`.")
    y = triangular_solve(_unit_lower(lu_), _gather_rows(b, p), lower=True)
    return triangular_solve(lu_, y, lower=False)  # only the upper triangle is read


def _identity(x):
    """The identity matrix of ``x``'s matrix size (which may be known only at run time)."""
    n = x.shape[-1]
    return eye(n, dtype=x.dtype) if n is not None else diag(ones(shape_of(x)[-1:], x.dtype))


def lu_matrix_inverse(lower_upper, perm, validate_args=False, name=None):
    """The inverse of each matrix, given its ``lu``."""
    lu_, p = _factors(lower_upper, perm)
    return lu_solve(lu_, p, _identity(lu_))


def lu_reconstruct(lower_upper, perm, validate_args=False, name=None):
    """The matrices ``lu`` factors: ``L @ U`` with its rows put back in their places."""
    lu_, p = _factors(lower_upper, perm)
    x = matmul(_unit_lower(lu_), band_part(lu_, 0, -1))
    if p.shape.rank == 1:
        out = gather(x, invert_permutation(p), axis=-2)
        out.set_shape(lu_.shape)  # as TensorFlow's (a gather by a run-time vector loses the row count)
        return out
    # one invert_permutation for the whole batch (it refuses what is not a permutation, as the
    # per-matrix ones of TensorFlow's map_fn do): matrix b's rows offset by b * n
    n = shape_of(p)[-1:]
    flat = reshape(p, [-1, n[0]])
    offset = expand_dims(m.cast(tf_range(shape_of(flat)[0]), p.dtype) * m.cast(n[0], p.dtype), -1)
    inverse = reshape(invert_permutation(reshape(flat + offset, [-1])), shape_of(flat)) - offset
    out = gather(x, reshape(inverse, shape_of(p)), axis=-2, batch_dims=-1)
    out.set_shape(lu_.shape)
    return out


# --- expm -----------------------------------------------------------------------------------------

# Padé coefficients b[0..k] of degree 3, 5, 7, 9 and 13 (Eigen's MatrixExponential)
_PADE = {
    3: [120.0, 60.0, 12.0],
    5: [30240.0, 15120.0, 3360.0, 420.0, 30.0],
    7: [17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0],
    9: [17643225600.0, 8821612800.0, 2075673600.0, 302702400.0, 30270240.0, 2162160.0, 110880.0, 3960.0, 90.0],
    13: [
        64764752532480000.0,
        32382376266240000.0,
        7771770303897600.0,
        1187353796428800.0,
        129060195264000.0,
        10559470521600.0,
        670442572800.0,
        33522128640.0,
        1323241920.0,
        40840800.0,
        960960.0,
        16380.0,
        182.0,
    ],
}
# (constants are made in the matrix's dtype: a Python float cast from float32 would lose digits)
# per precision: the l1-norm thresholds below which each lower degree is used, the top degree
# (after scaling by 2**-s) and the norm it is accurate up to
_SCHEME = {
    "single": ((4.258730016922831e-001, 1.880152677804762e000), (3, 5, 7), 3.925724783138660),
    "double": (
        (1.495585217958292e-002, 2.539398330063230e-001, 9.504178996162932e-001, 2.097847961257068e000),
        (3, 5, 7, 9, 13),
        5.371920351148152,
    ),
}


def _pade(a, degree, ident):
    """``(U, V)`` of the degree-``degree`` Padé approximant, in TensorFlow's (Eigen's) order of
    operations: ``expm(a) ~ (V - U)^-1 (V + U)``."""
    b = [constant(c, a.dtype) for c in _PADE[degree]]
    a2 = matmul(a, a)
    if degree == 13:
        a4 = matmul(a2, a2)
        a6 = matmul(a4, a2)
        tmp_u = matmul(a6, a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * ident
        tmp_v = b[12] * a6 + b[10] * a4 + b[8] * a2
        v = matmul(a6, tmp_v) + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * ident
        return matmul(a, tmp_u), v
    powers = [ident, a2]  # a^0, a^2, a^4, ... up to a^(degree - 1)
    while len(powers) < (degree + 1) // 2:
        powers.append(matmul(powers[-1], a2))
    # U = a @ (a^(d-1) + sum b[2i+1] a^2i), V = sum b[2i] a^2i, highest powers first
    tmp = powers[-1]
    for i in range(len(powers) - 2, -1, -1):
        tmp = tmp + b[2 * i + 1] * powers[i]
    v = b[degree - 1] * powers[-1]
    for i in range(len(powers) - 2, -1, -1):
        v = v + b[2 * i] * powers[i]
    return matmul(a, tmp), v


def expm(input, name=None):
    """``exp`` of each square matrix: TensorFlow's scaling and squaring, a Padé approximant of
    the degree the matrix's l1 norm calls for (of ``a / 2**s`` at the top degree, then squared
    ``s`` times).  A non-finite norm anywhere in the batch makes every result NaN, as in
    TensorFlow."""
    a = convert_to_tensor(input)
    if a.dtype in (D.float16, D.float32, D.complex64):
        conds, degrees, maxnorm = _SCHEME["single"]
    elif a.dtype in (D.float64, D.complex128):
        conds, degrees, maxnorm = _SCHEME["double"]
    else:
        raise ValueError(f"tf.linalg.expm does not support matrices of type {a.dtype!r}")
    if a.shape.rank is not None:
        if a.shape.rank < 2:
            raise InvalidArgumentError(f"expm: input must be at least rank 2, got shape {a.shape}.")
        if None not in a.shape[-2:] and a.shape[-2] != a.shape[-1]:
            raise InvalidArgumentError(f"expm: input must be square matrices, got shape {a.shape}.")
        if a.shape[-2:] == [0, 0]:
            return a
    l1_norm = r.reduce_max(r.reduce_sum(m.abs(a), axis=-2), axis=-1)[..., None, None]
    real = l1_norm.dtype
    squarings = m.maximum(m.floor(m.log(l1_norm / constant(maxnorm, real)) / m.log(constant(2.0, real))), 0)
    ident = _identity(a)
    scaled = a / m.cast(m.pow(constant(2.0, real), squarings), a.dtype)
    approximants = [_pade(a, d, ident) for d in degrees[:-1]] + [_pade(scaled, degrees[-1], ident)]
    u, v = approximants[-1]
    for c, (ui, vi) in zip(conds[::-1], approximants[-2::-1]):  # the lowest degree that is accurate
        below = m.less(l1_norm, constant(c, real))
        u, v = m.where(below, ui, u), m.where(below, vi, v)
    is_finite = m.is_finite(r.reduce_max(l1_norm))
    result = cond(is_finite, lambda: solve(-u + v, u + v), lambda: fill(shape_of(a), constant(np.nan, a.dtype)))
    max_squarings = r.reduce_max(squarings)

    def body(i, x):
        return i + 1, m.where(m.less(i, squarings), matmul(x, x), x)

    _, result = while_loop(
        lambda i, _: m.logical_and(is_finite, m.less(i, max_squarings)), body, [constant(0.0, real), result]
    )
    return result
