"""Gradient rules of the elementwise math ops (``tfunc.ops.math``).

A binary op's input gradient is summed back to the input's shape (``sum_to_like``) where the
op broadcast it.
"""

from __future__ import annotations

import math

from ..api.array_ops import sum_to_like
from ..api.creation_ops import ones_like, zeros_like
from ..api.indexed_slices import map_rows
from ..api.math_ops import (
    cast,
    cos,
    cosh,
    digamma,
    exp,
    floor,
    log,
    minimum,
    multiply_no_nan,
    polygamma,
    pow,
    relu_grad,
    rsqrt,
    sigmoid,
    sign,
    sin,
    sinh,
    sqrt_grad,
    trigamma,
    where,
    zeta,
)
from .registry import no_gradient, register_gradient

# Piecewise constant, integer-, or boolean-valued: no gradient flows to their inputs.
no_gradient(
    "floor",
    "ceil",
    "round",
    "floordiv",
    "equal",
    "not_equal",
    "loose_equal",
    "loose_not_equal",
    "less",
    "less_equal",
    "greater",
    "greater_equal",
    "logical_and",
    "logical_or",
    "logical_xor",
    "logical_not",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "invert",
    "left_shift",
    "right_shift",
    "truncatediv",
    "where_indices",
)


# --- unary -------------------------------------------------------------------


@register_gradient("negative")
def _negative_grad(op, dy):
    return [-dy]


@register_gradient("abs")
def _abs_grad(op, dy):
    """Returns dy * sign(x)."""
    return [dy * sign(op.inputs[0])]


@register_gradient("sign")
def _sign_grad(op, dy):
    """Returns zeros (sign is piecewise constant), shaped and typed like x."""
    return [zeros_like(op.inputs[0])]


@register_gradient("exp")
def _exp_grad(op, dy):
    """Returns dy * exp(x), reusing the output."""
    return [dy * op.outputs[0]]


@register_gradient("log")
def _log_grad(op, dy):
    return [dy / op.inputs[0]]


@register_gradient("log1p")
def _log1p_grad(op, dy):
    return [dy / (1 + op.inputs[0])]


@register_gradient("expm1")
def _expm1_grad(op, dy):
    """Returns dy * exp(x) = dy * (expm1(x) + 1)."""
    return [dy * (op.outputs[0] + 1)]


@register_gradient("sqrt")
def _sqrt_grad(op, dy):
    """Returns dy * 0.5 / sqrt(x) (0 where dy is 0), from the output."""
    return [sqrt_grad(op.outputs[0], dy)]


@register_gradient("square")
def _square_grad(op, dy):
    return [dy * (2 * op.inputs[0])]


@register_gradient("sin")
def _sin_grad(op, dy):
    return [dy * cos(op.inputs[0])]


@register_gradient("cos")
def _cos_grad(op, dy):
    return [-dy * sin(op.inputs[0])]


@register_gradient("tan")
def _tan_grad(op, dy):
    """Returns dy * (1 + tan(x) ** 2)."""
    return [dy * (1 + op.outputs[0] * op.outputs[0])]


@register_gradient("asin")
def _asin_grad(op, dy):
    """Returns dy / sqrt(1 - x**2)."""
    x = op.inputs[0]
    return [dy * rsqrt(1 - x * x)]


@register_gradient("acos")
def _acos_grad(op, dy):
    """Returns -dy / sqrt(1 - x**2)."""
    x = op.inputs[0]
    return [-dy * rsqrt(1 - x * x)]


@register_gradient("atan")
def _atan_grad(op, dy):
    """Returns dy / (1 + x**2)."""
    x = op.inputs[0]
    return [dy / (1 + x * x)]


@register_gradient("sinh")
def _sinh_grad(op, dy):
    """Returns dy * cosh(x)."""
    return [dy * cosh(op.inputs[0])]


@register_gradient("cosh")
def _cosh_grad(op, dy):
    """Returns dy * sinh(x)."""
    return [dy * sinh(op.inputs[0])]


@register_gradient("asinh")
def _asinh_grad(op, dy):
    """Returns dy / cosh(asinh(x)) = dy / sqrt(x**2 + 1)."""
    return [dy / cosh(op.outputs[0])]


@register_gradient("atanh")
def _atanh_grad(op, dy):
    """Returns dy / (1 - x**2)."""
    x = op.inputs[0]
    return [dy / (1 - x * x)]


@register_gradient("atan2")
def _atan2_grad(op, dy):
    """atan2(y, x): returns dy * x / (x**2 + y**2) for y and -dy * y / (x**2 + y**2) for x,
    each reduced to its input's shape."""
    y, x = op.inputs
    scale = dy / (x * x + y * y)
    return [sum_to_like(scale * x, y), sum_to_like(-scale * y, x)]


@register_gradient("erf")
def _erf_grad(op, dy):
    """Returns dy * 2 / sqrt(pi) * exp(-x**2)."""
    x = op.inputs[0]
    return [dy * (2 / math.sqrt(math.pi)) * exp(-(x * x))]


@register_gradient("erfc")
def _erfc_grad(op, dy):
    """Returns -dy * 2 / sqrt(pi) * exp(-x**2)."""
    x = op.inputs[0]
    return [dy * (-2 / math.sqrt(math.pi)) * exp(-(x * x))]


@register_gradient("lgamma")
def _lgamma_grad(op, dy):
    """Returns dy * digamma(x)."""
    return [dy * digamma(op.inputs[0])]


@register_gradient("digamma")
def _digamma_grad(op, dy):
    """Returns dy * trigamma(x) (TensorFlow's polygamma(1, x))."""
    return [dy * trigamma(op.inputs[0])]


@register_gradient("trigamma")
def _trigamma_grad(op, dy):
    """Returns dy * polygamma(2, x), so that digamma is differentiable again."""
    x = op.inputs[0]
    return [dy * polygamma(cast(2, x.dtype), x)]


@register_gradient("zeta", inputs=(1,))
def _zeta_grad(op, dy):
    """zeta(x, q): None for x (TensorFlow has no derivative in x), -x * zeta(x + 1, q) * dy for q,
    reduced to q's shape."""
    x, q = op.inputs
    return [None, sum_to_like(-x * zeta(x + 1, q) * dy, q)]


@register_gradient("polygamma", inputs=(1,))
def _polygamma_grad(op, dy):
    """polygamma(a, x): None for the order a, polygamma(a + 1, x) * dy for x, reduced to x's shape."""
    a, x = op.inputs
    return [None, sum_to_like(polygamma(a + 1, x) * dy, x)]


@register_gradient("erfinv")
def _erfinv_grad(op, dy):
    """Returns dy * sqrt(pi) / 2 * exp(erfinv(x)**2), from the output."""
    y = op.outputs[0]
    return [dy * (math.sqrt(math.pi) / 2) * exp(y * y)]


@register_gradient("ndtri")
def _ndtri_grad(op, dy):
    """Returns dy * sqrt(2 pi) * exp(ndtri(x)**2 / 2), from the output."""
    y = op.outputs[0]
    return [dy * math.sqrt(2 * math.pi) * exp(y * y / 2)]


@register_gradient("acosh")
def _acosh_grad(op, dy):
    """Returns dy / sinh(acosh(x)) = dy / sqrt(x**2 - 1), from the output."""
    return [dy / sinh(op.outputs[0])]


@register_gradient("tanh")
def _tanh_grad(op, dy):
    """Returns dy * (1 - tanh(x) ** 2)."""
    return [dy * (1 - op.outputs[0] * op.outputs[0])]


@register_gradient("reciprocal")
def _reciprocal_grad(op, dy):
    """Returns -dy / x ** 2 = -dy * y ** 2."""
    return [-dy * op.outputs[0] * op.outputs[0]]


@register_gradient("rsqrt")
def _rsqrt_grad(op, dy):
    """Returns -0.5 * dy * x ** -1.5 = dy * -0.5 * y ** 3."""
    return [dy * -0.5 * op.outputs[0] * op.outputs[0] * op.outputs[0]]


@register_gradient("sigmoid")
def _sigmoid_grad(op, dy):
    """Returns dy * y * (1 - y)."""
    return [dy * op.outputs[0] * (1 - op.outputs[0])]


@register_gradient("relu")
def _relu_grad(op, dy):
    """Returns dy where y > 0, else 0."""
    return [relu_grad(dy, op.outputs[0])]


@register_gradient("relu6")
def _relu6_grad(op, dy):
    """Returns dy where 0 < x < 6, else 0: relu_grad(relu_grad(dy, x), 6 - x), whose own
    gradient with respect to x is zeros (TensorFlow's Relu6Grad gradient), not None."""
    x = op.inputs[0]
    return [relu_grad(relu_grad(dy, x), 6 - x)]


@register_gradient("elu")
def _elu_grad(op, dy):
    """Returns dy where x > 0, else dy * exp(x) = dy * (y + 1): dy * (min(0, y) + 1).  Its own
    gradient with respect to y is dy * ddy where y < 0 and zero elsewhere, 0 included (the tie
    of ``minimum`` goes to the 0), as TensorFlow's EluGrad gradient."""
    return [dy * (minimum(0.0, op.outputs[0]) + 1)]


@register_gradient("softplus")
def _softplus_grad(op, dy):
    return [dy * sigmoid(op.inputs[0])]


# --- binary arithmetic -----------------------------------------------------------


@register_gradient("add")
def _add_grad(op, dy):
    return [sum_to_like(dy, op.inputs[0]), sum_to_like(dy, op.inputs[1])]


@register_gradient("subtract")
def _subtract_grad(op, dy):
    return [sum_to_like(dy, op.inputs[0]), sum_to_like(-dy, op.inputs[1])]


@register_gradient("multiply")
def _multiply_grad(op, dy):
    """Returns (dy * y, dy * x)."""
    return [sum_to_like(dy * op.inputs[1], op.inputs[0]), sum_to_like(dy * op.inputs[0], op.inputs[1])]


@register_gradient("divide")
def _divide_grad(op, dy):
    """Returns (dy / y, -dy * x / y ** 2)."""
    return [
        sum_to_like(dy / op.inputs[1], op.inputs[0]),
        sum_to_like(-dy * op.inputs[0] / (op.inputs[1] * op.inputs[1]), op.inputs[1]),
    ]


@register_gradient("floormod")
def _floormod_grad(op, dy):
    """x mod y = x - floor(x / y) * y: returns (dy, -dy * floor(x / y))."""
    return [sum_to_like(dy, op.inputs[0]), sum_to_like(-dy * floor(op.inputs[0] / op.inputs[1]), op.inputs[1])]


@register_gradient("sqrt_grad")
def _sqrt_grad_grad(op, dz):
    """z = 0.5 * dy / y: returns (-z / y, 0.5 / y) times dz."""
    return [
        sum_to_like(-dz * op.outputs[0] / op.inputs[0], op.inputs[0]),
        sum_to_like(dz * 0.5 / op.inputs[0], op.inputs[1]),
    ]


@register_gradient("pow")
def _pow_grad(op, dy):
    """Returns (dy * y * x ** (y - 1), dy * z * log(x)), each 0 where it is undefined."""
    x, y = op.inputs
    z = op.outputs[0]
    # y * x**(y - 1), with the exponent-0 case 0 everywhere (also at x = 0, where
    # 0 * 0**-1 would be NaN): the derivative of the constant x**0 = 1.
    nonzero = y != 0
    safe_y = where(nonzero, y, ones_like(y))
    dx = dy * where(nonzero, safe_y * pow(x, safe_y - 1), zeros_like(z))
    safe_log = log(where(x > 0, x, ones_like(x)))
    dyy = dy * z * where(x > 0, safe_log, zeros_like(x))
    return [sum_to_like(dx, x), sum_to_like(dyy, y)]


@register_gradient("maximum")
def _maximum_grad(op, dy):
    """dy goes to x where x >= y, else to y."""
    x, y = op.inputs
    m = x >= y
    z = zeros_like(dy)
    return [sum_to_like(where(m, dy, z), x), sum_to_like(where(m, z, dy), y)]


@register_gradient("minimum")
def _minimum_grad(op, dy):
    """dy goes to x where x <= y, else to y."""
    x, y = op.inputs
    m = x <= y
    z = zeros_like(dy)
    return [sum_to_like(where(m, dy, z), x), sum_to_like(where(m, z, dy), y)]


@register_gradient("multiply_no_nan")
def _multiply_no_nan_grad(op, dy):
    """TensorFlow's MulNoNan gradient: multiply_no_nan(dy, y) for x, multiply_no_nan(x, dy) for
    y, so y's gradient is x * dy even where y is 0 (a zeroed weight still learns)."""
    x, y = op.inputs
    return [sum_to_like(multiply_no_nan(dy, y), x), sum_to_like(multiply_no_nan(x, dy), y)]


@register_gradient("squared_difference")
def _squared_difference_grad(op, dy):
    """Returns (2 * dy * (x - y), -2 * dy * (x - y))."""
    return [
        sum_to_like(dy * 2 * (op.inputs[0] - op.inputs[1]), op.inputs[0]),
        sum_to_like(dy * -2 * (op.inputs[0] - op.inputs[1]), op.inputs[1]),
    ]


@register_gradient("relu_grad")
def _relu_grad_grad(op, ddy):
    """relu_grad is linear in dy and piecewise constant in y: returns (relu_grad(ddy, y),
    zeros), as TensorFlow (so relu's second derivative is zeros, not None)."""
    return [
        sum_to_like(relu_grad(ddy, op.inputs[1]), op.inputs[0]),
        zeros_like(op.inputs[1]) if op.needs(1) else None,
    ]


# --- where, clip, cast -------------------------------------------------------------


@register_gradient("where")
def _where_grad(op, dy):
    """dy goes to x where the condition holds, else to y; none to the condition."""
    c, x, y = op.inputs
    z = zeros_like(dy)
    return [None, sum_to_like(where(c, dy, z), x), sum_to_like(where(c, z, dy), y)]


@register_gradient("clip_by_value")
def _clip_grad(op, dy):
    """The gradients of ``maximum(minimum(t, max), min)``, ties going to ``t`` as in
    TensorFlow's minimum/maximum gradients."""
    x, lo, hi = op.inputs
    z = zeros_like(dy)
    m = minimum(x, hi)
    low = m < lo
    return [
        where((x <= hi) & ~low, dy, z),
        sum_to_like(where(low, dy, z), lo),
        sum_to_like(where((x > hi) & ~low, dy, z), hi),
    ]


@register_gradient("cast", slices=True)
def _cast_grad(op, dy):
    """Returns dy cast back to x's dtype between float dtypes (an IndexedSlices' rows, as
    TensorFlow's: a mixed-precision embedding keeps its sparse gradient); none otherwise."""
    src = op.inputs[0].dtype
    if src.is_floating and op.attrs["dtype"].is_floating:
        return [map_rows(dy, lambda x: cast(x, src))]
    return [None]


@register_gradient("nextafter")
def _nextafter_grad(op, dy):
    """TensorFlow's: (dy, zeros), the result moving with x1 by one step toward x2."""
    x1, x2 = op.inputs
    return [sum_to_like(dy, x1), zeros_like(x2) if op.needs(1) else None]


# --- float classification and complex parts ----------------------------------------------------
# Complex tensors carry no gradients (the tape watches floating tensors only), so these rules
# are reached with real inputs, where real(x) = conj(x) = x and imag(x) = 0.

no_gradient("is_nan", "is_inf", "is_finite", "angle")


@register_gradient("real")
def _real_grad(op, dy):
    """Returns dy (real(x) is x for real x)."""
    return [dy]


@register_gradient("imag")
def _imag_grad(op, dy):
    """Returns zeros (imag(x) is 0 for real x)."""
    return [zeros_like(op.inputs[0])]


@register_gradient("conj")
def _conj_grad(op, dy):
    """Returns dy (conj(x) is x for real x)."""
    return [dy]
