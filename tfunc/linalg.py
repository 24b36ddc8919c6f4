"""``tfunc.linalg``: matrix products, factorizations, solves, norms and diagonals."""

from .api.array_composites import matvec, tensordot
from .api.creation_ops import eye
from .api.linalg_ops import (
    adjoint,
    band_part,
    cholesky,
    det,
    diag,
    diag_part,
    einsum,
    global_norm,
    inv,
    l2_normalize,
    logdet,
    matrix_transpose,
    norm,
    qr,
    set_diag,
    solve,
    svd,
    trace,
    triangular_solve,
)
from .api.nn_ops import matmul

__all__ = [
    "adjoint",
    "matvec",
    "tensordot",
    "band_part",
    "cholesky",
    "det",
    "diag",
    "diag_part",
    "einsum",
    "eye",
    "global_norm",
    "inv",
    "l2_normalize",
    "logdet",
    "matmul",
    "matrix_transpose",
    "norm",
    "qr",
    "set_diag",
    "solve",
    "svd",
    "trace",
    "triangular_solve",
]
