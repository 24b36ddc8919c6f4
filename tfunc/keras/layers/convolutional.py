"""Convolution layers: ``Conv1D``, ``Conv2D``, ``Conv3D`` (with ``groups``), ``DepthwiseConv2D``,
``Conv1DTranspose``, ``Conv2DTranspose`` and ``Conv3DTranspose``; channels last or (but for
DepthwiseConv2D) channels first, which is transposed to channels last and back."""

from __future__ import annotations

from ...api import array_ops, indexing_ops, nn_composites, nn_ops
from ...core.shapes import TensorShape
from .. import activations as _activations
from .. import constraints as _constraints
from .. import initializers as _initializers
from .. import regularizers as _regularizers
from .base import _ndim_error, _pair, _single
from .conv_utils import (
    data_format_arg,
    from_channels_last,
    join_shape,
    output_length,
    split_shape,
    to_channels_last,
    transpose_output_length,
    triple,
)
from .policy import PolicyLayer

# --- Conv1D, Conv2D, Conv3D ---------------------------------------------------------------------


def _convolve(rank):
    """The channels-last convolution of ``rank`` spatial axes: ``fn(x, kernel, strides, padding,
    dilations=...)``."""
    return {1: nn_composites.conv1d, 2: nn_ops.conv2d, 3: nn_ops.conv3d}[rank]


def _input_channels(layer, shape):
    """The channels of an input shape in the layer's data format, checked to be known."""
    shape = TensorShape(shape)
    if shape.rank is not None and shape.rank != layer._rank + 2:
        raise _ndim_error(layer, f"ndim={layer._rank + 2}", shape)
    axis = -1 if layer.data_format == "channels_last" else 1
    channels = shape[axis] if shape.rank is not None else None
    if channels is None:
        raise ValueError(
            f"The channel dimension of the inputs should be defined. The input_shape received is {shape}, "
            f"where axis {axis} (0-based) is the channel dimension, which found to be `None`."
        )
    return channels


def _check_strides_dilation(strides, dilation_rate):
    """Keras's rule for convolutions and their transposes (not the separable or depthwise ones)."""
    if max(strides) > 1 and max(dilation_rate) > 1:
        raise ValueError(
            "`strides > 1` not supported in conjunction with `dilation_rate > 1`. Received: "
            f"strides={strides} and dilation_rate={dilation_rate}"
        )


class _Conv(PolicyLayer):
    """What Conv1D, Conv2D and Conv3D share: the arguments, the kernel ``(*kernel_size,
    in_channels / groups, filters)`` and bias, their checks, and the call: the input made
    channels-last, convolved (each of the ``groups`` channel groups with its own slice of the
    filters, as Keras), the bias and activation applied, and the channels put back.  Subclasses
    set the rank, the window-argument parser and the paddings they take."""

    _rank = 2
    _window = staticmethod(_pair)
    _paddings = ("valid", "same")

    _tfunc_config_lists_activity_regularizer = True

    def __init__(
        self,
        filters,
        kernel_size,
        strides=1,
        padding="valid",
        data_format=None,
        dilation_rate=1,
        groups=1,
        activation=None,
        use_bias=True,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        kernel_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        kernel_constraint=None,
        bias_constraint=None,
        **kwargs,
    ):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.filters = int(filters)
        if self.filters <= 0:
            raise ValueError(
                f"Invalid value for argument `filters`. Expected a strictly positive value. Received filters={filters}."
            )
        self.groups = int(groups)
        if self.groups <= 0 or self.filters % self.groups:
            raise ValueError(
                "The number of filters must be evenly divisible by the number of groups. "
                f"Received: groups={groups}, filters={filters}."
            )
        pad = str(padding).lower()
        if pad not in self._paddings:
            allowed = ", ".join(f"'{p}'" for p in self._paddings)
            raise ValueError(f"The `padding` argument must be one of {allowed}. Received: {padding!r}")
        self.kernel_regularizer = _regularizers.get(kernel_regularizer)
        self.bias_regularizer = _regularizers.get(bias_regularizer)
        self.kernel_constraint = _constraints.get(kernel_constraint)
        self.bias_constraint = _constraints.get(bias_constraint)
        self.kernel_size = self._window(kernel_size, "kernel_size")
        self.strides = self._window(strides, "strides")
        self.dilation_rate = self._window(dilation_rate, "dilation_rate")
        _check_strides_dilation(self.strides, self.dilation_rate)
        self.padding = pad
        self.data_format = data_format_arg(data_format)
        self.activation = _activations.get(activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = _initializers.get(kernel_initializer)
        self.bias_initializer = _initializers.get(bias_initializer)

    def build(self, input_shape):
        channels = _input_channels(self, input_shape)
        if channels % self.groups:
            raise ValueError(
                "The number of input channels must be evenly divisible by the number of groups. Received "
                f"groups={self.groups}, but the input has {channels} channels (full input shape is "
                f"{tuple(TensorShape(input_shape).as_list())})."
            )
        self.kernel = self.add_weight(
            name="kernel",
            shape=(*self.kernel_size, channels // self.groups, self.filters),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
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
        x = self._compute(inputs)
        if x.shape.rank is not None:
            if x.shape.rank != self._rank + 2:
                raise _ndim_error(self, f"ndim={self._rank + 2}", x.shape)
            self.compute_output_shape(x.shape)  # refuses a window longer than the input, as Keras
        x = to_channels_last(x, self.data_format, self._rank)
        padding = self.padding.upper()
        if self.padding == "causal":  # dilation * (kernel - 1) steps on the left: no output sees a later step
            x = indexing_ops.pad(x, [[0, 0], [self.dilation_rate[0] * (self.kernel_size[0] - 1), 0], [0, 0]])
            padding = "VALID"
        kernel = self._compute(self.kernel)
        conv = _convolve(self._rank)
        if self.groups == 1:
            out = conv(x, kernel, self.strides, padding, dilations=self.dilation_rate)
        else:
            pairs = zip(array_ops.split(x, self.groups, axis=-1), array_ops.split(kernel, self.groups, axis=-1))
            parts = [conv(xg, kg, self.strides, padding, dilations=self.dilation_rate) for xg, kg in pairs]
            out = array_ops.concat(parts, axis=-1)
        return self._finish(out)

    def _finish(self, out):
        """The bias and activation of a channels-last result, then the layer's data format."""
        if self.use_bias:
            out = nn_ops.bias_add(out, self._compute(self.bias))
        return from_channels_last(self.activation(out), self.data_format, self._rank)

    def compute_output_shape(self, input_shape):
        shape = TensorShape(input_shape)
        if shape.rank != self._rank + 2:
            raise ValueError(f"{type(self).__name__} expects a {self._rank + 2}-D input shape, got {input_shape}.")
        n, sizes, _ = split_shape(shape.as_list(), self.data_format)
        padding = "same" if self.padding == "causal" else self.padding  # causal: ceil(steps / stride), as 'same'
        dims = [
            output_length(size, k, s, d, padding)
            for size, k, s, d in zip(sizes, self.kernel_size, self.strides, self.dilation_rate)
        ]
        return TensorShape(join_shape(n, dims, self.filters, self.data_format))


class Conv2D(_Conv):
    """2-D convolution over ``(batch, h, w, channels)`` inputs (or channels first) with a kernel
    ``(kh, kw, in_channels / groups, filters)``, plus a bias (``nn.bias_add``) and an activation."""


class Conv1D(_Conv):
    """1-D convolution over ``(batch, steps, channels)`` inputs (or channels first) with a
    kernel ``(kernel_size, in_channels / groups, filters)``, plus a bias and an activation.
    ``padding='causal'`` pads ``dilation_rate * (kernel_size - 1)`` steps on the left, so an
    output never sees a later step."""

    _rank = 1
    _window = staticmethod(_single)
    _paddings = ("valid", "same", "causal")


class Conv3D(_Conv):
    """3-D convolution over ``(batch, d, h, w, channels)`` inputs (or channels first) with a
    kernel ``(kd, kh, kw, in_channels / groups, filters)``, plus a bias and an activation."""

    _rank = 3
    _window = staticmethod(triple)


Convolution1D = Conv1D
Convolution2D = Conv2D
Convolution3D = Conv3D


def _padding_arg(padding):
    pad = str(padding).lower()
    if pad not in ("valid", "same"):
        raise ValueError(f"The `padding` argument must be one of 'valid', 'same'. Received: {padding!r}")
    return pad


def _channels(layer, shape):
    shape = TensorShape(shape)
    if shape.rank is not None and shape.rank != 4:
        raise _ndim_error(layer, "ndim=4", shape)
    channels = shape[-1] if shape.rank is not None else None
    if channels is None:
        raise ValueError(
            f"The channel dimension of the inputs should be defined. The input_shape received is {shape}, "
            "where axis -1 (0-based) is the channel dimension, which found to be `None`."
        )
    return channels


# --- DepthwiseConv2D -------------------------------------------------------------------------------


class DepthwiseConv2D(PolicyLayer):
    """Convolves each input channel with its own ``depth_multiplier`` filters (no mixing across
    channels): ``kernel`` ``(kh, kw, in_channels, depth_multiplier)`` (Keras 3's name), ``bias``
    ``(in_channels * depth_multiplier,)``."""

    _tfunc_config_lists_activity_regularizer = True

    def __init__(
        self,
        kernel_size,
        strides=(1, 1),
        padding="valid",
        depth_multiplier=1,
        data_format=None,
        dilation_rate=(1, 1),
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
        self.depthwise_regularizer = _regularizers.get(depthwise_regularizer)
        self.bias_regularizer = _regularizers.get(bias_regularizer)
        self.depthwise_constraint = _constraints.get(depthwise_constraint)
        self.bias_constraint = _constraints.get(bias_constraint)
        if data_format not in (None, "channels_last"):
            raise ValueError(
                f"tfunc.keras DepthwiseConv2D supports data_format='channels_last' only, got {data_format!r}."
            )
        self.kernel_size = _pair(kernel_size, "kernel_size")
        self.strides = _pair(strides, "strides")
        self.dilation_rate = _pair(dilation_rate, "dilation_rate")
        self.padding = _padding_arg(padding)
        self.depth_multiplier = int(depth_multiplier)
        if self.depth_multiplier <= 0:
            raise ValueError(f"depth_multiplier must be a positive integer, got {depth_multiplier}.")
        self.data_format = "channels_last"
        self.activation = _activations.get(activation)
        self.use_bias = bool(use_bias)
        self.depthwise_initializer = _initializers.get(depthwise_initializer)
        self.bias_initializer = _initializers.get(bias_initializer)

    def build(self, input_shape):
        channels = _channels(self, input_shape)
        kh, kw = self.kernel_size
        self.kernel = self.add_weight(
            name="kernel",
            shape=(kh, kw, channels, self.depth_multiplier),
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
        x = self._compute(inputs)
        if x.shape.rank is not None and x.shape.rank != 4:
            raise _ndim_error(self, "ndim=4", x.shape)
        if x.shape.rank is not None:
            self.compute_output_shape(x.shape)  # refuses a window longer than the input, as Keras
        out = nn_ops.depthwise_conv2d(
            x,
            self._compute(self.kernel),
            strides=self.strides,
            padding=self.padding.upper(),
            dilations=self.dilation_rate,
        )
        if self.use_bias:
            out = nn_ops.bias_add(out, self._compute(self.bias))
        return self.activation(out)

    def compute_output_shape(self, input_shape):
        n, h, w, c = TensorShape(input_shape).as_list()
        dims = [
            output_length(size, k, s, d, self.padding)
            for size, k, s, d in zip((h, w), self.kernel_size, self.strides, self.dilation_rate)
        ]
        return TensorShape([n] + dims + [None if c is None else c * self.depth_multiplier])


# --- Conv1DTranspose, Conv2DTranspose, Conv3DTranspose ---------------------------------------------


class _ConvTranspose(PolicyLayer):
    """The transpose of a convolution (a "deconvolution"): ``kernel`` ``(*kernel_size, filters,
    in_channels)``, ``bias`` ``(filters,)``; the output size per axis is ``size * stride``
    ('same') or ``size * stride + max(kernel - stride, 0)`` ('valid'), or Keras's formula with
    ``output_padding``.  Subclasses set the rank and the window-argument parser."""

    _rank = 2
    _window = staticmethod(_pair)

    _tfunc_config_lists_activity_regularizer = True

    def __init__(
        self,
        filters,
        kernel_size,
        strides=1,
        padding="valid",
        output_padding=None,
        data_format=None,
        dilation_rate=1,
        activation=None,
        use_bias=True,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        kernel_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        kernel_constraint=None,
        bias_constraint=None,
        **kwargs,
    ):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.kernel_regularizer = _regularizers.get(kernel_regularizer)
        self.bias_regularizer = _regularizers.get(bias_regularizer)
        self.kernel_constraint = _constraints.get(kernel_constraint)
        self.bias_constraint = _constraints.get(bias_constraint)
        self.filters = int(filters)
        if self.filters <= 0:
            raise ValueError(
                f"Invalid value for argument `filters`. Expected a strictly positive value. Received {filters}."
            )
        self.kernel_size = self._window(kernel_size, "kernel_size")
        self.strides = self._window(strides, "strides")
        self.dilation_rate = self._window(dilation_rate, "dilation_rate")
        _check_strides_dilation(self.strides, self.dilation_rate)
        self.padding = _padding_arg(padding)
        if output_padding is None:
            self.output_padding = None
        else:
            op = (output_padding,) * self._rank if isinstance(output_padding, int) else tuple(output_padding)
            self.output_padding = tuple(int(v) for v in op)
            for p, s in zip(self.output_padding, self.strides):
                if p >= s:
                    raise ValueError(
                        f"Strides {self.strides} must be greater than output padding {self.output_padding}."
                    )
        self.data_format = data_format_arg(data_format)
        self.activation = _activations.get(activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = _initializers.get(kernel_initializer)
        self.bias_initializer = _initializers.get(bias_initializer)

    def build(self, input_shape):
        channels = _input_channels(self, input_shape)
        self.kernel = self.add_weight(
            name="kernel",
            shape=(*self.kernel_size, self.filters, channels),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
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

    def _out_sizes(self, sizes):
        pads = self.output_padding or (None,) * self._rank
        return [
            transpose_output_length(size, k, s, d, self.padding, p)
            for size, k, s, d, p in zip(sizes, self.kernel_size, self.strides, self.dilation_rate, pads)
        ]

    _finish = _Conv._finish

    def call(self, inputs):
        x = self._compute(inputs)
        if x.shape.rank is not None and x.shape.rank != self._rank + 2:
            raise _ndim_error(self, f"ndim={self._rank + 2}", x.shape)
        x = to_channels_last(x, self.data_format, self._rank)
        n, *sizes, _ = x.shape.as_list()
        # a size known only at run time (Input((None, None, C))) enters the output shape as a tensor
        sizes = [array_ops.shape(x)[1 + i] if size is None else size for i, size in enumerate(sizes)]
        transpose = {1: nn_composites.conv1d_transpose, 2: nn_ops.conv2d_transpose, 3: nn_ops.conv3d_transpose}
        out = transpose[self._rank](
            x,
            self._compute(self.kernel),
            [array_ops.shape(x)[0] if n is None else n, *self._out_sizes(sizes), self.filters],
            self.strides,
            self.padding.upper(),
            dilations=self.dilation_rate,
        )
        return self._finish(out)

    def compute_output_shape(self, input_shape):
        n, sizes, _ = split_shape(TensorShape(input_shape).as_list(), self.data_format)
        return TensorShape(join_shape(n, self._out_sizes(sizes), self.filters, self.data_format))


class Conv2DTranspose(_ConvTranspose):
    """The transpose of a 2-D convolution: ``kernel`` ``(kh, kw, filters, in_channels)``."""


class Conv1DTranspose(_ConvTranspose):
    """The transpose of a 1-D convolution: ``kernel`` ``(kernel_size, filters, in_channels)``."""

    _rank = 1
    _window = staticmethod(_single)


class Conv3DTranspose(_ConvTranspose):
    """The transpose of a 3-D convolution: ``kernel`` ``(kd, kh, kw, filters, in_channels)``."""

    _rank = 3
    _window = staticmethod(triple)

    def __init__(
        self,
        filters,
        kernel_size,
        strides=(1, 1, 1),
        padding="valid",
        data_format=None,
        output_padding=None,
        dilation_rate=(1, 1, 1),
        activation=None,
        use_bias=True,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        kernel_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        kernel_constraint=None,
        bias_constraint=None,
        **kwargs,
    ):
        # Keras 3 puts data_format before output_padding here (and after it for 1-D and 2-D)
        super().__init__(
            filters,
            kernel_size,
            strides=strides,
            padding=padding,
            output_padding=output_padding,
            data_format=data_format,
            dilation_rate=dilation_rate,
            activation=activation,
            use_bias=use_bias,
            kernel_initializer=kernel_initializer,
            bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer,
            bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer,
            kernel_constraint=kernel_constraint,
            bias_constraint=bias_constraint,
            **kwargs,
        )


Convolution1DTranspose = Conv1DTranspose
Convolution2DTranspose = Conv2DTranspose
Convolution3DTranspose = Conv3DTranspose
