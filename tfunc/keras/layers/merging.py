"""Merging layers: ``Concatenate``, ``Add``, ``Subtract``, ``Multiply``, ``Average``,
``Maximum``, ``Minimum`` (called on a list of tensors)."""

from __future__ import annotations

from ...api import array_ops, math_ops
from ...core.shapes import TensorShape, broadcast_shapes
from ...eager.convert import convert_to_tensor
from .policy import PolicyLayer


def _tensor_list(layer, inputs, minimum=2):
    if not isinstance(inputs, (list, tuple)):
        raise ValueError(
            f"A merge layer should be called on a list of inputs. Received: inputs={inputs!r} (not a list of tensors)"
        )
    if len(inputs) < minimum:
        raise ValueError(
            f"A merge layer should be called on a list of at least {minimum} inputs. Got {len(inputs)} inputs."
        )
    return [convert_to_tensor(x) for x in inputs]


def _sum(xs):
    """The sum of the inputs, broadcasting them against each other as Keras 3's ``Add`` does."""
    out = xs[0]
    for x in xs[1:]:
        out = out + x
    return out


class _Merge(PolicyLayer):
    _minimum = 1  # Keras 3 merges a list of one tensor too (into itself)

    def _merge(self, xs):
        raise NotImplementedError

    def call(self, inputs):
        xs = _tensor_list(self, inputs, self._minimum)
        batches = {x.shape[0] for x in xs if x.shape.rank}
        batches.discard(None)
        if len(batches) > 1:
            raise ValueError(
                "Cannot merge tensors with different batch sizes. "
                f"Received tensors with shapes {[tuple(x.shape.as_list() or ()) for x in xs]}"
            )
        ranks = [x.shape.rank for x in xs]
        if None not in ranks and len(set(ranks)) > 1:
            # as Keras: a lower-rank input gains axes after the batch axis (not in front, where
            # broadcasting would pair its rows with the wrong batch entries)
            top = max(ranks)
            expanded = []
            for x, r in zip(xs, ranks):
                for _ in range(top - r):
                    x = array_ops.expand_dims(x, 1)
                expanded.append(x)
            xs = expanded
        return self._merge(xs)

    def compute_output_shape(self, input_shape):
        shapes = [TensorShape(s) for s in input_shape]
        out = shapes[0]._dims
        for s in shapes[1:]:
            out = broadcast_shapes(out, s._dims, type(self).__name__)
        return TensorShape(out)


class Add(_Merge):
    """The elementwise sum of the inputs (broadcasting as the ops do)."""

    def _merge(self, xs):
        return _sum(xs)


class Subtract(_Merge):
    """``inputs[0] - inputs[1]`` (exactly two inputs)."""

    def _merge(self, xs):
        if len(xs) != 2:
            raise ValueError(f"A `Subtract` layer should be called on exactly 2 inputs. Received: {len(xs)} inputs.")
        return xs[0] - xs[1]


class Multiply(_Merge):
    """The elementwise product of the inputs."""

    def _merge(self, xs):
        out = xs[0]
        for x in xs[1:]:
            out = out * x
        return out


class Average(_Merge):
    """The elementwise mean of the inputs."""

    def _merge(self, xs):
        return math_ops.truediv(_sum(xs), len(xs))  # integers: a float mean, as Keras


class Maximum(_Merge):
    """The elementwise maximum of the inputs."""

    def _merge(self, xs):
        out = xs[0]
        for x in xs[1:]:
            out = math_ops.maximum(out, x)
        return out


class Minimum(_Merge):
    """The elementwise minimum of the inputs."""

    def _merge(self, xs):
        out = xs[0]
        for x in xs[1:]:
            out = math_ops.minimum(out, x)
        return out


class Concatenate(_Merge):
    """Concatenates the inputs along ``axis`` (all other dimensions must match)."""

    _minimum = 1

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = int(axis)

    def _merge(self, xs):
        return array_ops.concat(xs, axis=self.axis)

    def compute_output_shape(self, input_shape):
        shapes = [TensorShape(s).as_list() for s in input_shape]
        out = list(shapes[0])
        axis = self.axis % len(out)
        total = 0
        for s in shapes:
            if s[axis] is None:
                total = None
                break
            total += s[axis]
        out[axis] = total
        return TensorShape(out)


def add(inputs, **kwargs):
    """``Add(**kwargs)(inputs)``."""
    return Add(**kwargs)(inputs)


def concatenate(inputs, axis=-1, **kwargs):
    """``Concatenate(axis=axis, **kwargs)(inputs)``."""
    return Concatenate(axis=axis, **kwargs)(inputs)


def multiply(inputs, **kwargs):
    """``Multiply(**kwargs)(inputs)``."""
    return Multiply(**kwargs)(inputs)


def subtract(inputs, **kwargs):
    """``Subtract(**kwargs)(inputs)``."""
    return Subtract(**kwargs)(inputs)


def average(inputs, **kwargs):
    """``Average(**kwargs)(inputs)``."""
    return Average(**kwargs)(inputs)


def maximum(inputs, **kwargs):
    """``Maximum(**kwargs)(inputs)``."""
    return Maximum(**kwargs)(inputs)


def minimum(inputs, **kwargs):
    """``Minimum(**kwargs)(inputs)``."""
    return Minimum(**kwargs)(inputs)
