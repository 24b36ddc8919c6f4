"""Normalization layers: ``BatchNormalization``, ``LayerNormalization``, ``GroupNormalization``,
``RMSNormalization`` and ``UnitNormalization``.

They compute their statistics in float32 when the layer computes in float16 or bfloat16
(mixed precision), as Keras does, and return the compute dtype.
"""

from __future__ import annotations

import warnings

from ...api import array_ops, creation_ops, math_composites, math_ops, nn_ops, reduction_ops
from ...api.variables import Variable
from ...core import distribution
from ...core import dtypes as D
from ...core.shapes import TensorShape
from ...eager.convert import convert_to_tensor
from ...eager.tensor import Tensor
from .. import constraints as _constraints
from .. import initializers as _initializers
from .. import regularizers as _regularizers
from .base import _is_symbolic
from .policy import PolicyLayer

_LOW = (D.float16, D.bfloat16)


def _axes(axis, rank, layer):
    axes = [axis] if isinstance(axis, int) else list(axis)
    out = []
    for a in axes:
        if not -rank <= a < rank:
            raise ValueError(f"Invalid axis {a} for layer {layer!r} with an input of rank {rank}.")
        out.append(a % rank)
    return sorted(set(out))


def _param_shape(shape, axes, rank):
    """The statistics' shape broadcast against the input: the axes' sizes, 1 elsewhere."""
    return [shape[i] if i in axes else 1 for i in range(rank)]


def _synchronized_moments(y, reduce):
    """Keras's ``moments(synchronized=True)``: the sum, the sum of squares and the count over
    ``reduce``, all-reduced over the replicas inside ``strategy.run`` (this replica's alone
    elsewhere), give ``mean = E[y]`` and ``variance = max(E[y^2] - mean^2, 0)``."""
    sums = [
        reduction_ops.reduce_sum(t, reduce, keepdims=True) for t in (y, math_ops.square(y), creation_ops.ones_like(y))
    ]
    entry = distribution.current()
    if entry is not None and entry[1] is not None:  # in a replica context: over every replica
        sums = entry[1].all_reduce("sum", sums)
    total, squares, count = sums
    mean = math_composites.divide_no_nan(total, count)
    variance = math_ops.maximum(math_composites.divide_no_nan(squares, count) - math_ops.square(mean), 0.0)
    return mean, variance


class BatchNormalization(PolicyLayer):
    """Normalizes each feature (along ``axis``) with the batch's mean and variance while
    training, and with the moving averages otherwise:

        training:  y = gamma * (x - mean_b) / sqrt(var_b + epsilon) + beta
                   moving_mean = moving_mean * momentum + mean_b * (1 - momentum)   (same for var)
        inference: y = gamma * (x - moving_mean) / sqrt(moving_variance + epsilon) + beta

    ``gamma`` and ``beta`` are trainable; ``moving_mean`` and ``moving_variance`` are
    non-trainable weights (updated by assignments, so inside a ``tfunc.function`` too).  A layer
    with ``trainable = False`` runs in inference mode, as in Keras.  ``training`` may be a Python
    bool or a boolean tensor.  A Keras mask (one rank less than the inputs) leaves the masked
    positions out of the batch statistics, as in Keras.  With ``synchronized=True`` (and no mask)
    the batch statistics are taken over every replica of a ``tf.distribute`` strategy, as
    Keras's.  Batch renormalization (``renorm=True``) is not supported."""

    supports_masking = True

    def __init__(
        self,
        axis=-1,
        momentum=0.99,
        epsilon=1e-3,
        center=True,
        scale=True,
        beta_initializer="zeros",
        gamma_initializer="ones",
        moving_mean_initializer="zeros",
        moving_variance_initializer="ones",
        beta_regularizer=None,
        gamma_regularizer=None,
        beta_constraint=None,
        gamma_constraint=None,
        renorm=False,
        renorm_clipping=None,
        renorm_momentum=0.99,
        synchronized=False,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.beta_constraint = _constraints.get(beta_constraint)
        self.gamma_constraint = _constraints.get(gamma_constraint)
        self.beta_regularizer = _regularizers.get(beta_regularizer)
        self.gamma_regularizer = _regularizers.get(gamma_regularizer)
        if renorm:
            raise ValueError("tfunc.keras BatchNormalization does not support renorm=True (batch renormalization).")
        self.renorm = renorm
        self.renorm_clipping = renorm_clipping
        self.renorm_momentum = renorm_momentum
        self.synchronized = bool(synchronized)
        self.axis = axis
        self.momentum = float(momentum)
        self.epsilon = float(epsilon)
        self.center = bool(center)
        self.scale = bool(scale)
        self.beta_initializer = _initializers.get(beta_initializer)
        self.gamma_initializer = _initializers.get(gamma_initializer)
        self.moving_mean_initializer = _initializers.get(moving_mean_initializer)
        self.moving_variance_initializer = _initializers.get(moving_variance_initializer)

    def build(self, input_shape):
        shape = TensorShape(input_shape)
        if shape.rank is None:
            raise ValueError(f"BatchNormalization {self.name!r} needs inputs of known rank.")
        self._tfunc_axes = _axes(self.axis, shape.rank, self.name)
        dims = [shape[a] for a in self._tfunc_axes]
        if None in dims:
            raise ValueError(f"BatchNormalization {self.name!r}: axis {self.axis} of {shape} must have a known size.")
        pshape = tuple(dims)
        self.gamma = (
            self.add_weight(
                name="gamma",
                shape=pshape,
                initializer=self.gamma_initializer,
                regularizer=self.gamma_regularizer,
                constraint=self.gamma_constraint,
            )
            if self.scale
            else None
        )
        self.beta = (
            self.add_weight(
                name="beta",
                shape=pshape,
                initializer=self.beta_initializer,
                regularizer=self.beta_regularizer,
                constraint=self.beta_constraint,
            )
            if self.center
            else None
        )
        self.moving_mean = self.add_weight(
            name="moving_mean", shape=pshape, initializer=self.moving_mean_initializer, trainable=False
        )
        self.moving_variance = self.add_weight(
            name="moving_variance", shape=pshape, initializer=self.moving_variance_initializer, trainable=False
        )
        self.built = True

    def _broadcast(self, v, shape, dtype):
        """A weight in ``dtype``, shaped to broadcast against inputs of ``shape``."""
        t = v.read_value()
        t = math_ops.cast(t, dtype) if t.dtype is not dtype else t
        rank = len(shape)
        if self._tfunc_axes == [rank - 1]:
            return t
        return array_ops.reshape(t, _param_shape(shape, self._tfunc_axes, rank))

    def call(self, inputs, training=None, mask=None):
        x = convert_to_tensor(inputs)
        shape = x.shape.as_list()
        rank = len(shape)
        mask = None if mask is None else convert_to_tensor(mask)
        if mask is not None and mask.shape.rank != rank - 1:
            raise ValueError(
                "The mask provided should be one dimension less than the inputs. Received: "
                f"mask.shape={mask.shape}, inputs.shape={x.shape}"
            )
        work = D.float32 if x.dtype in _LOW or not x.dtype.is_floating else x.dtype  # ints: float32, as Keras
        y = math_ops.cast(x, work) if x.dtype is not work else x
        gamma = None if self.gamma is None else self._broadcast(self.gamma, shape, work)
        beta = None if self.beta is None else self._broadcast(self.beta, shape, work)
        moving_mean = self._broadcast(self.moving_mean, shape, work)
        moving_var = self._broadcast(self.moving_variance, shape, work)

        def inference():
            return nn_ops.batch_normalization(y, moving_mean, moving_var, beta, gamma, self.epsilon)

        if isinstance(training, Variable):
            training = training.read_value()
        if isinstance(training, Tensor) and not _is_symbolic(training):
            training = bool(training)
        if not self.trainable or training is None or training is False:
            out = inference()
        else:
            reduce = [i for i in range(rank) if i not in self._tfunc_axes]
            if self.synchronized and mask is None:  # as Keras, a mask's moments stay per replica
                mean, var = _synchronized_moments(y, reduce)
            else:
                mean, var = self._moments(y, reduce, mask)
            trained = nn_ops.batch_normalization(y, mean, var, beta, gamma, self.epsilon)
            pshape = self.moving_mean.shape.as_list()
            flat_mean, flat_var = array_ops.reshape(mean, pshape), array_ops.reshape(var, pshape)
            if training is True:
                self._update(self.moving_mean, flat_mean)
                self._update(self.moving_variance, flat_var)
                out = trained
            else:  # a boolean tensor: both paths, chosen at run time
                self._update(self.moving_mean, flat_mean, training)
                self._update(self.moving_variance, flat_var, training)
                out = math_ops.where(training, trained, inference())
        return math_ops.cast(out, x.dtype) if x.dtype in _LOW else out

    @staticmethod
    def _moments(y, reduce, mask):
        """The batch's mean and variance over ``reduce``; with a mask, of the kept positions only
        (Keras's ``_moments``: sums over the mask, divided by its count plus Keras's epsilon)."""
        if mask is None:
            return nn_ops.moments(y, reduce, keepdims=True)
        # the mask broadcast by `where` against y itself (not broadcast_to y's shape, which a
        # traced call with an unknown batch size does not know)
        keep = array_ops.expand_dims(math_ops.cast(mask, "bool"), -1)
        zeros = creation_ops.zeros_like(y)
        ones = creation_ops.ones_like(y)
        count = reduction_ops.reduce_sum(math_ops.where(keep, ones, zeros), reduce, keepdims=True) + 1e-7
        mean = reduction_ops.reduce_sum(math_ops.where(keep, y, zeros), reduce, keepdims=True) / count
        centered = math_ops.where(keep, y - mean, zeros)
        return mean, reduction_ops.reduce_sum(math_ops.square(centered), reduce, keepdims=True) / count

    def _update(self, var, batch_value, when=None):
        """``var = var * momentum + batch_value * (1 - momentum)`` (only where ``when`` holds)."""
        old = var.read_value()
        new = old * self.momentum + math_ops.cast(batch_value, var.dtype) * (1.0 - self.momentum)
        var.assign(new if when is None else math_ops.where(when, new, old))

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)


class LayerNormalization(PolicyLayer):
    """Normalizes each example over ``axis`` (default the last):
    ``y = gamma * (x - mean) / sqrt(var + epsilon) + beta``; with ``rms_scaling=True``
    (deprecated in Keras 3.15, which warns), Keras's formula ``y = gamma * x / sqrt(var + epsilon)``.
    ``gamma`` and ``beta`` have the shape of the normalized axes."""

    supports_masking = True  # an input's Keras mask passes through, as in Keras

    def __init__(
        self,
        axis=-1,
        epsilon=1e-3,
        center=True,
        scale=True,
        rms_scaling=False,
        beta_initializer="zeros",
        gamma_initializer="ones",
        beta_regularizer=None,
        gamma_regularizer=None,
        beta_constraint=None,
        gamma_constraint=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.beta_constraint = _constraints.get(beta_constraint)
        self.gamma_constraint = _constraints.get(gamma_constraint)
        self.beta_regularizer = _regularizers.get(beta_regularizer)
        self.gamma_regularizer = _regularizers.get(gamma_regularizer)
        # as Keras: a list (or tuple) is kept as a list, and build makes an int a one-item list
        self.axis = list(axis) if isinstance(axis, (list, tuple)) else axis
        self.epsilon = float(epsilon)
        self.center = bool(center)
        self.scale = bool(scale)
        self.rms_scaling = bool(rms_scaling)
        if self.rms_scaling:
            warnings.warn(
                "You passed `rms_scaling=True`, which is deprecated. This argument incorrectly scales the input by "
                "the variance, not the root mean square (as Keras 3.15 computes it).",
                stacklevel=2,
            )
        self.beta_initializer = _initializers.get(beta_initializer)
        self.gamma_initializer = _initializers.get(gamma_initializer)

    def build(self, input_shape):
        shape = TensorShape(input_shape)
        if shape.rank is None:
            raise ValueError(f"LayerNormalization {self.name!r} needs inputs of known rank.")
        self._tfunc_axes = _axes(self.axis, shape.rank, self.name)
        self.axis = sorted(self.axis) if isinstance(self.axis, list) else [self.axis]  # Keras's config after build
        dims = tuple(shape[a] for a in self._tfunc_axes)
        if None in dims:
            raise ValueError(f"LayerNormalization {self.name!r}: axis {self.axis} of {shape} must have a known size.")
        self.gamma = (
            self.add_weight(
                name="gamma",
                shape=dims,
                initializer=self.gamma_initializer,
                regularizer=self.gamma_regularizer,
                constraint=self.gamma_constraint,
            )
            if self.scale
            else None
        )
        self.beta = (
            self.add_weight(
                name="beta",
                shape=dims,
                initializer=self.beta_initializer,
                regularizer=self.beta_regularizer,
                constraint=self.beta_constraint,
            )
            if self.center and not self.rms_scaling
            else None
        )
        self.built = True

    def call(self, inputs):
        x = convert_to_tensor(inputs)
        rank = x.shape.rank
        work = D.float32 if x.dtype in _LOW or not x.dtype.is_floating else x.dtype  # ints: float32, as Keras
        y = math_ops.cast(x, work) if x.dtype is not work else x
        shape = x.shape.as_list()

        def param(w):
            t = math_ops.cast(w.read_value(), work) if w.dtype is not work else w.read_value()
            if self._tfunc_axes == list(range(rank - len(self._tfunc_axes), rank)):
                return t  # trailing axes: broadcasts as it is
            return array_ops.reshape(t, _param_shape(shape, self._tfunc_axes, rank))

        if self.rms_scaling:  # Keras 3.15's (deprecated) formula: scaled by the variance, not the RMS
            _, var = nn_ops.moments(y, self._tfunc_axes, keepdims=True)
            out = y * math_ops.rsqrt(var + self.epsilon)
            if self.gamma is not None:
                out = out * param(self.gamma)
        else:
            mean, var = nn_ops.moments(y, self._tfunc_axes, keepdims=True)
            gamma = None if self.gamma is None else param(self.gamma)
            beta = None if self.beta is None else param(self.beta)
            out = nn_ops.batch_normalization(y, mean, var, beta, gamma, self.epsilon)
        return math_ops.cast(out, x.dtype) if x.dtype in _LOW else out

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)


class GroupNormalization(PolicyLayer):
    """Normalizes each example over groups of channels (Wu & He, 2018): the ``axis`` channels
    are split into ``groups`` groups (``-1``: one channel each), each normalized over its channels
    and all non-batch axes, then scaled by ``gamma`` and shifted by ``beta`` (per channel)."""

    supports_masking = True

    def __init__(
        self,
        groups=32,
        axis=-1,
        epsilon=1e-3,
        center=True,
        scale=True,
        beta_initializer="zeros",
        gamma_initializer="ones",
        beta_regularizer=None,
        gamma_regularizer=None,
        beta_constraint=None,
        gamma_constraint=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.beta_constraint = _constraints.get(beta_constraint)
        self.gamma_constraint = _constraints.get(gamma_constraint)
        self.groups = groups
        self.axis = axis
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        self.beta_initializer = _initializers.get(beta_initializer)
        self.gamma_initializer = _initializers.get(gamma_initializer)
        self.beta_regularizer = _regularizers.get(beta_regularizer)
        self.gamma_regularizer = _regularizers.get(gamma_regularizer)

    def build(self, input_shape):
        shape = TensorShape(input_shape)
        dim = shape[self.axis]
        if dim is None:
            raise ValueError(
                f"Axis {self.axis} of input tensor should have a defined dimension but the layer received an "
                f"input with shape {shape}."
            )
        if self.groups == -1:
            self.groups = dim
        if dim < self.groups:
            raise ValueError(f"Number of groups ({self.groups}) cannot be more than the number of channels ({dim}).")
        if dim % self.groups != 0:
            raise ValueError(f"Number of groups ({self.groups}) must be a multiple of the number of channels ({dim}).")
        self.gamma = (
            self.add_weight(
                shape=(dim,),
                name="gamma",
                initializer=self.gamma_initializer,
                regularizer=self.gamma_regularizer,
                constraint=self.gamma_constraint,
            )
            if self.scale
            else None
        )
        self.beta = (
            self.add_weight(
                shape=(dim,),
                name="beta",
                initializer=self.beta_initializer,
                regularizer=self.beta_regularizer,
                constraint=self.beta_constraint,
            )
            if self.center
            else None
        )
        self.built = True

    def call(self, inputs):
        x = convert_to_tensor(inputs)
        rank = x.shape.rank
        axis = self.axis % rank
        dims = x.shape.as_list()
        run_time = array_ops.shape(x)
        # (..., groups, channels // groups, ...) in place of the channel axis
        group_shape = [-1] + [d if d is not None else run_time[i] for i, d in enumerate(dims)][1:]
        group_shape[axis] = dims[axis] // self.groups
        group_shape.insert(axis, self.groups)
        if any(isinstance(d, Tensor) for d in group_shape):
            group_shape = array_ops.stack(group_shape)
        work = D.float32 if x.dtype in _LOW or not x.dtype.is_floating else x.dtype  # as Keras: at least float32
        grouped = array_ops.reshape(math_ops.cast(x, work) if x.dtype is not work else x, group_shape)
        reduce = [i for i in range(1, rank + 1) if i != axis]  # every axis but the batch's and the groups'
        mean, var = nn_ops.moments(grouped, reduce, keepdims=True)
        broadcast = [1] * (rank + 1)
        broadcast[axis], broadcast[axis + 1] = self.groups, dims[axis] // self.groups
        inv = math_ops.rsqrt(var + self.epsilon)
        if self.gamma is not None:
            inv = inv * array_ops.reshape(math_ops.cast(self.gamma.read_value(), work), broadcast)
        shift = -mean * inv
        if self.beta is not None:
            shift = shift + array_ops.reshape(math_ops.cast(self.beta.read_value(), work), broadcast)
        # back to the input's shape, keeping its static sizes (-1 for the batch when only it is unknown)
        out_shape = [-1] + dims[1:] if None not in dims[1:] else run_time
        out = array_ops.reshape(grouped * inv + shift, out_shape)
        return math_ops.cast(out, self._tfunc_compute) if out.dtype is not self._tfunc_compute else out

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)


class RMSNormalization(PolicyLayer):
    """Root-mean-square normalization (Zhang & Sennrich, 2019):
    ``x * rsqrt(mean(x ** 2, axis) + epsilon) * scale``, computed in at least float32."""

    def __init__(self, axis=-1, epsilon=1e-6, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis
        self.epsilon = epsilon

    def build(self, input_shape):
        shape = TensorShape(input_shape)
        # Keras keeps the axes as a sorted list once built (its config then writes [-1])
        self.axis = sorted(self.axis) if isinstance(self.axis, (list, tuple)) else [self.axis]
        self.scale = self.add_weight(name="scale", shape=tuple(shape[a] for a in self.axis), initializer="ones")
        self.built = True

    def call(self, inputs):
        x = convert_to_tensor(inputs)
        work = D.float32 if x.dtype in _LOW or not x.dtype.is_floating else x.dtype
        y = math_ops.cast(x, work) if x.dtype is not work else x
        rrms = math_ops.rsqrt(
            reduction_ops.reduce_mean(math_ops.square(y), axis=self.axis, keepdims=True) + self.epsilon
        )
        scale = math_ops.cast(self.scale.read_value(), work)
        rank = x.shape.rank
        axes = sorted(a % rank for a in self.axis)
        if axes != list(range(rank - len(axes), rank)):  # not trailing: the scale's axes in place
            scale = array_ops.reshape(scale, _param_shape(x.shape.as_list(), axes, rank))
        out = y * rrms * scale
        return math_ops.cast(out, x.dtype) if out.dtype is not x.dtype else out

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)


class UnitNormalization(PolicyLayer):
    """Scales each example to unit L2 norm over ``axis``: ``x * min(rsqrt(sum(x ** 2)), 1e12)``
    (an all-zero slice stays zero)."""

    supports_masking = True

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        if isinstance(axis, (list, tuple)):
            self.axis = list(axis)
        elif isinstance(axis, int):
            self.axis = axis
        else:
            raise TypeError(
                f"Invalid value for `axis` argument: expected an int or a list/tuple of ints. Received: axis={axis}"
            )

    def call(self, inputs):
        x = convert_to_tensor(inputs)
        inv_norm = math_ops.rsqrt(reduction_ops.reduce_sum(math_ops.square(x), axis=self.axis, keepdims=True))
        return x * math_ops.minimum(inv_norm, 1e12)

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)
