"""Run-time checks: ``check_numerics`` and the check AutoGraph puts on variables a loop
creates (the loop must have run at least once before they are read).

Both pass their input through unchanged and raise ``InvalidArgumentError`` when the check
fails.  ``check_numerics`` is stateful, as TensorFlow's: used as a statement (its result
unread) it still runs.  The loop check is pure: it runs exactly when its value is read.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.specs import Spec
from . import sampling as S
from .registry import OpDef, register


def _check_numerics_infer(specs, attrs):
    (s,) = specs
    if not s.dtype.is_floating:
        raise TypeError(
            f"Value passed to parameter 'tensor' has DataType {s.dtype.name} not in list of allowed values: "
            "bfloat16, float16, float32, float64"
        )
    return (s,)


def _check_numerics_impl(xp, x, message):
    finite = xp.isfinite(x)
    if not bool(finite.all()):
        kinds = []
        if bool(xp.isnan(x).any()):
            kinds.append("NaN")
        if bool(xp.isinf(x).any()):
            kinds.append("Inf")
        raise InvalidArgumentError(f"{message} : Tensor had {' and '.join(kinds)} values")
    return x


def _check_numerics_samples(rng):
    return [
        S.Sample((rng.standard_normal((3, 4)).astype(np.float32),), {"message": "x"}),
        S.Sample((np.array(1.5, np.float64),), {"message": "scalar"}),
        S.Sample((np.zeros((0, 2), np.float32),), {"message": "empty"}),
    ]


check_numerics_op = register(
    OpDef(
        name="check_numerics",
        kind="other",
        infer=_check_numerics_infer,
        impl=_check_numerics_impl,
        host_sync=True,
        stateful=True,
        ref=lambda x, message: x,
        samples=_check_numerics_samples,
    )
)


def _loop_init_check_impl(xp, iterated, value, message):
    if not bool(iterated):
        raise InvalidArgumentError(message)
    return value


def _loop_init_check_samples(rng):
    return [
        S.Sample((np.array(True), rng.standard_normal((2, 3)).astype(np.float32)), {"message": "m"}),
        S.Sample((np.array(True), np.array(4, np.int32)), {"message": "m"}),
    ]


loop_init_check_op = register(
    OpDef(
        name="loop_init_check",
        kind="other",
        infer=lambda specs, attrs: (Spec(specs[1].shape, specs[1].dtype),),
        impl=_loop_init_check_impl,
        host_sync=True,
        ref=lambda iterated, value, message: value,
        samples=_loop_init_check_samples,
    )
)


# --- assertions -------------------------------------------------------------------------------


def _assert_infer(specs, attrs):
    cond = specs[0]
    if not cond.dtype.is_bool or cond.rank not in (0, None):
        raise InvalidArgumentError(f"Assert: the condition must be a boolean scalar, got {cond}.")
    return ()


def _summary(a, summarize):
    flat = np.asarray(a.get() if hasattr(a, "get") else a).reshape(-1)
    shown = flat[:summarize].tolist()
    return f"{shown}{'...' if flat.size > summarize else ''}"


def assertion_text(message, labels, shown) -> str:
    """TensorFlow's layout: the message, then each data tensor, named by its label if any."""
    parts = [f"{label} = {v}" if label else v for label, v in zip(labels, shown)]
    return "assertion failed: " + " ".join(p for p in [message, ", ".join(parts)] if p)


def _assert_impl(xp, condition, *data, message, labels, summarize):
    """Raises InvalidArgumentError with ``message`` and the first ``summarize`` entries of each
    ``data`` tensor when ``condition`` is false."""
    if not bool(condition):
        raise InvalidArgumentError(assertion_text(message, labels, [_summary(d, summarize) for d in data]))
    return ()


# An assertion runs whether or not anything reads it (stateful: kept, in program order among
# the function's other effects); a failing one fails the call that runs it.
assert_op = register(
    OpDef(
        name="assert",
        kind="io",
        infer=_assert_infer,
        impl=_assert_impl,
        num_outputs=0,
        stateful=True,
        host_sync=True,
        tf_name="Assert",
    )
)
