"""Convolution layers: ``Conv1D``, ``Conv2D``, ``DepthwiseConv2D``, ``Conv2DTranspose`` (channels last)."""

from __future__ import annotations

from ...api import array_ops, indexing_ops, nn_ops
from ...core.shapes import TensorShape
from .. import activations as _activations
from .. import initializers as _initializers
from .. import regularizers as _regularizers
from .base import _ndim_error, _pair, _single, refuse_unsupported
from .conv_utils import output_length, transpose_output_length
from .policy import PolicyLayer

# --- Conv1D, Conv2D ------------------------------------------------------------------------------


class _Conv(PolicyLayer):
    """What Conv1D and Conv2D share: the arguments, the kernel ``(*kernel_size, in_channels,
    filters)`` and bias, and their checks.  Subclasses set the rank, the window-argument parser and
    the paddings they take, and define ``call`` and ``compute_output_shape``."""

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
        name = type(self).__name__
        self.filters = int(filters)
        if self.filters <= 0:
            raise ValueError(
                f"Invalid value for argument `filters`. Expected a strictly positive value. Received filters={filters}."
            )
        if data_format not in (None, "channels_last"):
            raise ValueError(f"tfunc.keras {name} supports data_format='channels_last' only, got {data_format!r}.")
        if int(groups) != 1:
            raise ValueError(f"tfunc.keras {name} supports groups=1 only, got groups={groups}.")
        pad = str(padding).lower()
        if pad not in self._paddings:
            allowed = ", ".join(f"'{p}'" for p in self._paddings)
            raise ValueError(f"The `padding` argument must be one of {allowed}. Received: {padding!r}")
        refuse_unsupported(kernel_constraint=kernel_constraint, bias_constraint=bias_constraint)
        self.kernel_regularizer = _regularizers.get(kernel_regularizer)
        self.bias_regularizer = _regularizers.get(bias_regularizer)
        self.kernel_size = self._window(kernel_size, "kernel_size")
        self.strides = self._window(strides, "strides")
        self.dilation_rate = self._window(dilation_rate, "dilation_rate")
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(
                "`strides > 1` not supported in conjunction with `dilation_rate > 1`. Received: "
                f"strides={self.strides} and dilation_rate={self.dilation_rate}"
            )
        self.padding = pad
        self.data_format = "channels_last"
        self.groups = 1
        self.activation = _activations.get(activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = _initializers.get(kernel_initializer)
        self.bias_initializer = _initializers.get(bias_initializer)

    def build(self, input_shape):
        shape = TensorShape(input_shape)
        if shape.rank is not None and shape.rank != self._rank + 2:
            raise _ndim_error(self, f"ndim={self._rank + 2}", shape)
        channels = shape[-1] if shape.rank is not None else None
        if channels is None:
            raise ValueError(
                f"The channel dimension of the inputs should be defined. The input_shape received is {shape}, "
                "where axis -1 (0-based) is the channel dimension, which found to be `None`."
            )
        self.kernel = self.add_weight(
            name="kernel",
            shape=(*self.kernel_size, channels, self.filters),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
        )
        self.bias = (
            self.add_weight(
                name="bias", shape=(self.filters,), initializer=self.bias_initializer, regularizer=self.bias_regularizer
            )
            if self.use_bias
            else None
        )
        self.built = True

    def _checked_input(self, inputs):
        """``inputs`` of the layer's rank, refusing a window longer than the input (as Keras)."""
        x = self._compute(inputs)
        if x.shape.rank is not None:
            if x.shape.rank != self._rank + 2:
                raise _ndim_error(self, f"ndim={self._rank + 2}", x.shape)
            self.compute_output_shape(x.shape)
        return x

    def _finish(self, out):
        if self.use_bias:
            out = nn_ops.bias_add(out, self._compute(self.bias))
        return self.activation(out)


class Conv2D(_Conv):
    """2-D convolution over NHWC inputs with an HWIO kernel ``(kh, kw, in_channels, filters)``,
    plus a bias (``nn.bias_add``) and an activation."""

    def call(self, inputs):
        x = self._checked_input(inputs)
        out = nn_ops.conv2d(
            x,
            self._compute(self.kernel),
            strides=self.strides,
            padding=self.padding.upper(),
            dilations=self.dilation_rate,
        )
        return self._finish(out)

    def compute_output_shape(self, input_shape):
        shape = TensorShape(input_shape)
        if shape.rank != 4:
            raise ValueError(f"Conv2D expects a 4-D (NHWC) input shape, got {input_shape}.")
        n, h, w, _ = shape.as_list()
        dims = [
            output_length(size, k, s, d, self.padding)
            for size, k, s, d in zip((h, w), self.kernel_size, self.strides, self.dilation_rate)
        ]
        return TensorShape([n] + dims + [self.filters])


Convolution2D = Conv2D


class Conv1D(_Conv):
    """1-D convolution over ``(batch, steps, channels)`` inputs with a kernel
    ``(kernel_size, in_channels, filters)``, plus a bias and an activation. ``padding='causal'``
    pads ``dilation_rate * (kernel_size - 1)`` steps on the left, so an output never sees a later
    step. Computed as a Conv2D over a height of 1."""

    _rank = 1
    _window = staticmethod(_single)
    _paddings = ("valid", "same", "causal")

    def call(self, inputs):
        x = self._checked_input(inputs)
        padding = self.padding.upper()
        if self.padding == "causal":
            x = indexing_ops.pad(x, [[0, 0], [self.dilation_rate[0] * (self.kernel_size[0] - 1), 0], [0, 0]])
            padding = "VALID"
        out = nn_ops.conv2d(
            array_ops.expand_dims(x, 1),
            array_ops.expand_dims(self._compute(self.kernel), 0),
            strides=(1,) + self.strides,
            padding=padding,
            dilations=(1,) + self.dilation_rate,
        )
        return self._finish(array_ops.squeeze(out, axis=1))

    def compute_output_shape(self, input_shape):
        n, steps, _ = TensorShape(input_shape).as_list()
        padding = "same" if self.padding == "causal" else self.padding  # causal: ceil(steps / stride), as 'same'
        length = output_length(steps, self.kernel_size[0], self.strides[0], self.dilation_rate[0], padding)
        return TensorShape([n, length, self.filters])


Convolution1D = Conv1D


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
    channels): ``depthwise_kernel`` ``(kh, kw, in_channels, depth_multiplier)``, ``bias``
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
        refuse_unsupported(depthwise_constraint=depthwise_constraint, bias_constraint=bias_constraint)
        self.depthwise_regularizer = _regularizers.get(depthwise_regularizer)
        self.bias_regularizer = _regularizers.get(bias_regularizer)
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
        self.depthwise_kernel = self.add_weight(
            name="depthwise_kernel",
            shape=(kh, kw, channels, self.depth_multiplier),
            initializer=self.depthwise_initializer,
            regularizer=self.depthwise_regularizer,
        )
        self.bias = (
            self.add_weight(
                name="bias",
                shape=(channels * self.depth_multiplier,),
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
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
            self._compute(self.depthwise_kernel),
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


# --- Conv2DTranspose --------------------------------------------------------------------------------


class Conv2DTranspose(PolicyLayer):
    """The transpose of a 2-D convolution (a "deconvolution"): ``kernel``
    ``(kh, kw, filters, in_channels)``, ``bias`` ``(filters,)``; the output size per axis is
    ``size * stride`` ('same') or ``size * stride + max(kernel - stride, 0)`` ('valid'), or
    Keras's formula with ``output_padding``."""

    _tfunc_config_lists_activity_regularizer = True

    def __init__(
        self,
        filters,
        kernel_size,
        strides=(1, 1),
        padding="valid",
        output_padding=None,
        data_format=None,
        dilation_rate=(1, 1),
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
        refuse_unsupported(kernel_constraint=kernel_constraint, bias_constraint=bias_constraint)
        self.kernel_regularizer = _regularizers.get(kernel_regularizer)
        self.bias_regularizer = _regularizers.get(bias_regularizer)
        if data_format not in (None, "channels_last"):
            raise ValueError(
                f"tfunc.keras Conv2DTranspose supports data_format='channels_last' only, got {data_format!r}."
            )
        self.filters = int(filters)
        if self.filters <= 0:
            raise ValueError(
                f"Invalid value for argument `filters`. Expected a strictly positive value. Received {filters}."
            )
        self.kernel_size = _pair(kernel_size, "kernel_size")
        self.strides = _pair(strides, "strides")
        self.dilation_rate = _pair(dilation_rate, "dilation_rate")
        self.padding = _padding_arg(padding)
        if output_padding is None:
            self.output_padding = None
        else:
            op = (output_padding, output_padding) if isinstance(output_padding, int) else tuple(output_padding)
            self.output_padding = tuple(int(v) for v in op)
            for p, s in zip(self.output_padding, self.strides):
                if p >= s:
                    raise ValueError(
                        f"Strides {self.strides} must be greater than output padding {self.output_padding}."
                    )
        self.data_format = "channels_last"
        self.activation = _activations.get(activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = _initializers.get(kernel_initializer)
        self.bias_initializer = _initializers.get(bias_initializer)

    def build(self, input_shape):
        channels = _channels(self, input_shape)
        kh, kw = self.kernel_size
        self.kernel = self.add_weight(
            name="kernel",
            shape=(kh, kw, self.filters, channels),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
        )
        self.bias = (
            self.add_weight(
                name="bias", shape=(self.filters,), initializer=self.bias_initializer, regularizer=self.bias_regularizer
            )
            if self.use_bias
            else None
        )
        self.built = True

    def _out_hw(self, h, w):
        pads = self.output_padding or (None, None)
        return [
            transpose_output_length(size, k, s, d, self.padding, p)
            for size, k, s, d, p in zip((h, w), self.kernel_size, self.strides, self.dilation_rate, pads)
        ]

    def call(self, inputs):
        x = self._compute(inputs)
        if x.shape.rank is not None and x.shape.rank != 4:
            raise _ndim_error(self, "ndim=4", x.shape)
        n, h, w, _ = x.shape.as_list()
        if None in (h, w):
            raise ValueError(
                f"Conv2DTranspose {self.name!r} needs a static height and width (got {x.shape}); give the "
                "function an input_signature with known sizes."
            )
        oh, ow = self._out_hw(h, w)
        out = nn_ops.conv2d_transpose(
            x,
            self._compute(self.kernel),
            output_shape=[array_ops.shape(x)[0] if n is None else n, oh, ow, self.filters],
            strides=self.strides,
            padding=self.padding.upper(),
            dilations=self.dilation_rate,
        )
        if self.use_bias:
            out = nn_ops.bias_add(out, self._compute(self.bias))
        return self.activation(out)

    def compute_output_shape(self, input_shape):
        n, h, w, _ = TensorShape(input_shape).as_list()
        return TensorShape([n] + self._out_hw(h, w) + [self.filters])


Convolution2DTranspose = Conv2DTranspose
