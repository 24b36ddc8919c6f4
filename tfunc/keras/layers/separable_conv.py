"""Depthwise-separable convolution layers: ``SeparableConv1D``, ``SeparableConv2D`` (a depthwise
convolution, then a 1x1 convolution mixing its channels) and ``DepthwiseConv1D``.

All run as 2-D ops over NHWC data: a 1-D input ``(batch, steps, channels)`` becomes a height-1
image and its kernels gain a leading 1, and ``channels_first`` inputs are transposed to
channels-last and back (as Keras's TensorFlow backend does on CPU)."""

from __future__ import annotations

from ...api import array_ops, nn_composites, nn_ops
from ...core.shapes import TensorShape
from .. import activations as _activations
from .. import constraints as _constraints
from .. import initializers as _initializers
from .. import regularizers as _regularizers
from .base import _ndim_error
from .conv_utils import data_format_arg, output_length
from .policy import PolicyLayer
from .reshaping import _positive_ints


class _DepthwiseBase(PolicyLayer):
    """What the separable and depthwise layers share: window arguments of the layer's rank,
    padding, data format, and running a 2-D op on channels-last data."""

    _rank = 2
    _tfunc_config_lists_activity_regularizer = True

    def _window_arguments(self, kernel_size, strides, padding, data_format, dilation_rate, depth_multiplier):
        self.kernel_size = _positive_ints(kernel_size, self._rank, "kernel_size")
        self.strides = _positive_ints(strides, self._rank, "strides")
        self.dilation_rate = _positive_ints(dilation_rate, self._rank, "dilation_rate")
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(
                f"tfunc.keras {type(self).__name__} does not support `strides > 1` together with "
                f"`dilation_rate > 1`. Received: strides={self.strides}, dilation_rate={self.dilation_rate}"
            )
        self.padding = str(padding).lower()
        if self.padding not in ("valid", "same"):
            raise ValueError(f"The `padding` argument must be one of 'valid', 'same'. Received: {padding!r}")
        self.data_format = data_format_arg(data_format)
        self.depth_multiplier = int(depth_multiplier)
        if self.depth_multiplier <= 0:
            raise ValueError(
                "Invalid value for argument `depth_multiplier`. Expected a strictly positive value. "
                f"Received depth_multiplier={depth_multiplier}."
            )

    def _channels(self, input_shape):
        shape = TensorShape(input_shape)
        if shape.rank != self._rank + 2:
            raise _ndim_error(self, f"ndim={self._rank + 2}", shape)
        channels = shape[1] if self.data_format == "channels_first" else shape[-1]
        if channels is None:
            raise ValueError(f"The channel dimension of the inputs of {self.name!r} should be defined, got {shape}.")
        return channels

    def _output_shape(self, input_shape, channels_out):
        dims = TensorShape(input_shape).as_list()
        spatial = dims[2:] if self.data_format == "channels_first" else dims[1:-1]
        out = [
            output_length(size, k, s, d, self.padding)
            for size, k, s, d in zip(spatial, self.kernel_size, self.strides, self.dilation_rate)
        ]
        if self.data_format == "channels_first":
            return TensorShape([dims[0], channels_out] + out)
        return TensorShape([dims[0]] + out + [channels_out])

    def _as_nhwc(self, inputs):
        """``inputs`` (checked against the layer's rank and window) as an NHWC tensor."""
        x = self._compute(inputs)
        self.compute_output_shape(x.shape)  # checks the rank; refuses a window longer than the input
        if self.data_format == "channels_first":
            x = array_ops.transpose(x, [0] + list(range(2, self._rank + 2)) + [1])
        return array_ops.expand_dims(x, 1) if self._rank == 1 else x

    def _kernel_2d(self, weight):
        kernel = self._compute(weight)
        return array_ops.expand_dims(kernel, 0) if self._rank == 1 else kernel

    def _attrs_2d(self):
        """strides, padding and dilations of the 2-D op (a height of 1 for a 1-D layer)."""
        pad = (1,) if self._rank == 1 else ()
        return {"strides": pad + self.strides, "padding": self.padding.upper(), "dilations": pad + self.dilation_rate}

    def _finish(self, out):
        """Bias and activation on the NHWC result, then back to the layer's rank and format."""
        if self.use_bias:
            out = nn_ops.bias_add(out, self._compute(self.bias))
        out = self.activation(out)
        if self._rank == 1:
            out = array_ops.squeeze(out, axis=1)
        if self.data_format == "channels_first":
            out = array_ops.transpose(out, [0, self._rank + 1] + list(range(1, self._rank + 1)))
        return out


class _SeparableConv(_DepthwiseBase):
    """A depthwise convolution (``depthwise_kernel`` ``(*kernel_size, in_channels,
    depth_multiplier)``), a pointwise one (``pointwise_kernel`` ``(1, ..., in_channels *
    depth_multiplier, filters)``), plus ``bias`` ``(filters,)`` and an activation."""

    def __init__(
        self,
        filters,
        kernel_size,
        strides=1,
        padding="valid",
        data_format=None,
        dilation_rate=1,
        depth_multiplier=1,
        activation=None,
        use_bias=True,
        depthwise_initializer="glorot_uniform",
        pointwise_initializer="glorot_uniform",
        bias_initializer="zeros",
        depthwise_regularizer=None,
        pointwise_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        depthwise_constraint=None,
        pointwise_constraint=None,
        bias_constraint=None,
        **kwargs,
    ):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.filters = int(filters)
        if self.filters <= 0:
            raise ValueError(
                f"Invalid value for argument `filters`. Expected a strictly positive value. Received filters={filters}."
            )
        self._window_arguments(kernel_size, strides, padding, data_format, dilation_rate, depth_multiplier)
        self.activation = _activations.get(activation)
        self.use_bias = bool(use_bias)
        self.depthwise_initializer = _initializers.get(depthwise_initializer)
        self.pointwise_initializer = _initializers.get(pointwise_initializer)
        self.bias_initializer = _initializers.get(bias_initializer)
        self.depthwise_regularizer = _regularizers.get(depthwise_regularizer)
        self.pointwise_regularizer = _regularizers.get(pointwise_regularizer)
        self.bias_regularizer = _regularizers.get(bias_regularizer)
        self.depthwise_constraint = _constraints.get(depthwise_constraint)
        self.pointwise_constraint = _constraints.get(pointwise_constraint)
        self.bias_constraint = _constraints.get(bias_constraint)

    def build(self, input_shape):
        channels = self._channels(input_shape)
        self.compute_output_shape(input_shape)
        self.depthwise_kernel = self.add_weight(
            name="depthwise_kernel",
            shape=(*self.kernel_size, channels, self.depth_multiplier),
            initializer=self.depthwise_initializer,
            regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint,
        )
        self.pointwise_kernel = self.add_weight(
            name="pointwise_kernel",
            shape=(1,) * self._rank + (channels * self.depth_multiplier, self.filters),
            initializer=self.pointwise_initializer,
            regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint,
        )
        self.bias = (
            self.add_weight(
                name="bias",
                shape=(self.filters,),
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )
            if self.use_bias
            else None
        )
        self.built = True

    def call(self, inputs):
        out = nn_composites.separable_conv2d(
            self._as_nhwc(inputs),
            self._kernel_2d(self.depthwise_kernel),
            self._kernel_2d(self.pointwise_kernel),
            **self._attrs_2d(),
        )
        return self._finish(out)

    def compute_output_shape(self, input_shape):
        self._channels(input_shape)
        return self._output_shape(input_shape, self.filters)


class SeparableConv1D(_SeparableConv):
    """Depthwise-separable 1-D convolution over ``(batch, steps, channels)`` inputs."""

    _rank = 1


class SeparableConv2D(_SeparableConv):
    """Depthwise-separable 2-D convolution over images."""


SeparableConvolution1D = SeparableConv1D
SeparableConvolution2D = SeparableConv2D


class DepthwiseConv1D(_DepthwiseBase):
    """Convolves each channel of ``(batch, steps, channels)`` inputs with its own
    ``depth_multiplier`` filters: ``kernel`` ``(kernel_size, channels, depth_multiplier)`` (Keras
    3 names it ``kernel``), ``bias`` ``(channels * depth_multiplier,)``."""

    _rank = 1

    def __init__(
        self,
        kernel_size,
        strides=1,
        padding="valid",
        depth_multiplier=1,
        data_format=None,
        dilation_rate=1,
        activation=None,
        use_bias=True,
        depthwise_initializer="glorot_uniform",
        bias_initializer="zeros",
        depthwise_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        depthwise_constraint=None,
        bias_constraint=None,
        **kwargs,
    ):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self._window_arguments(kernel_size, strides, padding, data_format, dilation_rate, depth_multiplier)
        self.activation = _activations.get(activation)
        self.use_bias = bool(use_bias)
        self.depthwise_initializer = _initializers.get(depthwise_initializer)
        self.bias_initializer = _initializers.get(bias_initializer)
        self.depthwise_regularizer = _regularizers.get(depthwise_regularizer)
        self.bias_regularizer = _regularizers.get(bias_regularizer)
        self.depthwise_constraint = _constraints.get(depthwise_constraint)
        self.bias_constraint = _constraints.get(bias_constraint)

    def build(self, input_shape):
        channels = self._channels(input_shape)
        self.compute_output_shape(input_shape)
        self.kernel = self.add_weight(
            name="kernel",
            shape=(*self.kernel_size, channels, self.depth_multiplier),
            initializer=self.depthwise_initializer,
            regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint,
        )
        self.bias = (
            self.add_weight(
                name="bias",
                shape=(channels * self.depth_multiplier,),
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )
            if self.use_bias
            else None
        )
        self.built = True

    def call(self, inputs):
        out = nn_ops.depthwise_conv2d(self._as_nhwc(inputs), self._kernel_2d(self.kernel), **self._attrs_2d())
        return self._finish(out)

    def compute_output_shape(self, input_shape):
        channels = self._channels(input_shape)
        return self._output_shape(input_shape, channels * self.depth_multiplier)
