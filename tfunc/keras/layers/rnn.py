"""Recurrent layers: ``SimpleRNNCell``, ``LSTMCell``, ``GRUCell``, ``RNN``, ``SimpleRNN``, ``LSTM``,
``GRU``.

Weights are laid out as Keras lays them, so ``set_weights`` with a Keras layer's
``get_weights()`` gives the same outputs:

* SimpleRNN: ``kernel (input_dim, units)``, ``recurrent_kernel (units, units)``, ``bias (units,)``;
* LSTM: ``kernel (input_dim, 4 * units)``, ``recurrent_kernel (units, 4 * units)``,
  ``bias (4 * units,)``, gates in the order i, f, c, o;
* GRU: ``kernel (input_dim, 3 * units)``, ``recurrent_kernel (units, 3 * units)``, gates in
  the order z, r, h; ``bias (2, 3 * units)`` (input and recurrent biases) with
  ``reset_after=True`` (Keras's default), ``(3 * units,)`` otherwise.

A layer reads a built-in cell's weights once per sequence and runs the steps on those tensors
(a user's cell, any layer with ``state_size`` and ``call(inputs, states)``, is called at each
step, as Keras calls it): eagerly and for a sequence length known while tracing, as a Python loop over the time
steps; for a length known only at run time, as a graph while-loop.
"""

from __future__ import annotations

import numpy as np

from ...api import array_ops, control_flow_ops, creation_ops, indexing_ops, math_ops, nn_ops, reduction_ops
from ...api.variables import Variable
from ...core import dtypes as D
from ...core import nest
from ...core.context import ctx
from ...core.shapes import TensorShape
from ...eager.convert import convert_to_tensor
from ...eager.tensor import Tensor
from .. import activations as _activations
from .. import initializers as _initializers
from .. import regularizers as _regularizers
from .. import serialization as _serialization
from ..dtypes import keras_dtype
from .base import Layer, refuse_unsupported
from .policy import PolicyLayer


def _check_no_dropout(name, dropout, recurrent_dropout):
    if float(dropout) != 0.0 or float(recurrent_dropout) != 0.0:
        raise ValueError(
            f"tfunc.keras {name} does not support dropout or recurrent_dropout; apply a Dropout layer to the "
            "inputs instead."
        )


def _states_list(cell, states, n):
    if isinstance(states, (Tensor, Variable, np.ndarray)):
        states = [states]
    if not isinstance(states, (list, tuple)) or len(states) != n:
        raise ValueError(f"{type(cell).__name__} {cell.name!r} expects {n} state tensor(s), got {states!r}.")
    return [convert_to_tensor(s.read_value() if isinstance(s, Variable) else s) for s in states]


class _Cell(PolicyLayer):
    """A recurrent cell: ``step(inputs, states, weights)`` on weights read once by the caller."""

    def read_weights(self) -> dict:
        """The cell's weights as tensors in the compute dtype."""
        raise NotImplementedError

    def step(self, inputs, states, weights):
        raise NotImplementedError

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        """Zero states of shape ``(batch_size, units)``."""
        if inputs is not None:
            inputs = convert_to_tensor(inputs)
            batch_size = inputs.shape[0]
            dtype = dtype or inputs.dtype
        if batch_size is None:
            raise ValueError("get_initial_state needs `inputs` or a static `batch_size`.")
        dt = keras_dtype(self.compute_dtype) if dtype is None else keras_dtype(dtype)
        n = len(self.state_size) if isinstance(self.state_size, list) else 1
        return [creation_ops.zeros((int(batch_size), self.units), dtype=dt) for _ in range(n)]

    def compute_output_shape(self, input_shape):
        shape = TensorShape(input_shape)
        return TensorShape(shape.as_list()[:-1] + [self.units])


# --- SimpleRNNCell -------------------------------------------------------------------------


class SimpleRNNCell(_Cell):
    """One step of a Keras SimpleRNN: ``h_new = activation(inputs @ kernel + bias + h @
    recurrent_kernel)``. ``cell(inputs, h)`` returns ``(h_new, h_new)``; ``cell(inputs, [h])``
    returns ``(h_new, [h_new])``."""

    def __init__(
        self,
        units,
        activation="tanh",
        use_bias=True,
        kernel_initializer="glorot_uniform",
        recurrent_initializer="orthogonal",
        bias_initializer="zeros",
        kernel_regularizer=None,
        recurrent_regularizer=None,
        bias_regularizer=None,
        kernel_constraint=None,
        recurrent_constraint=None,
        bias_constraint=None,
        dropout=0.0,
        recurrent_dropout=0.0,
        seed=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        units = int(units)
        if units <= 0:
            raise ValueError(
                f"Received an invalid value for argument `units`, expected a positive integer, got {units}."
            )
        refuse_unsupported(
            kernel_constraint=kernel_constraint,
            recurrent_constraint=recurrent_constraint,
            bias_constraint=bias_constraint,
        )
        _check_no_dropout("SimpleRNNCell", dropout, recurrent_dropout)
        self.units = units
        self.activation = _activations.get(activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = _initializers.get(kernel_initializer)
        self.recurrent_initializer = _initializers.get(recurrent_initializer)
        self.bias_initializer = _initializers.get(bias_initializer)
        self.kernel_regularizer = _regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = _regularizers.get(recurrent_regularizer)
        self.bias_regularizer = _regularizers.get(bias_regularizer)
        self.dropout = 0.0
        self.recurrent_dropout = 0.0
        self.state_size = units
        self.output_size = units

    def build(self, input_shape):
        shape = TensorShape(input_shape)
        input_dim = shape[-1] if shape.rank is not None else None
        if input_dim is None:
            raise ValueError(f"SimpleRNNCell {self.name!r} needs a defined last input dimension, got {shape}.")
        u = self.units
        self.kernel = self.add_weight(
            name="kernel",
            shape=(input_dim, u),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
        )
        self.recurrent_kernel = self.add_weight(
            name="recurrent_kernel",
            shape=(u, u),
            initializer=self.recurrent_initializer,
            regularizer=self.recurrent_regularizer,
        )
        self.bias = (
            self.add_weight(
                name="bias", shape=(u,), initializer=self.bias_initializer, regularizer=self.bias_regularizer
            )
            if self.use_bias
            else None
        )
        self.built = True

    def read_weights(self):
        return {
            "kernel": self._compute(self.kernel),
            "recurrent_kernel": self._compute(self.recurrent_kernel),
            "bias": self._compute(self.bias) if self.use_bias else None,
        }

    def step(self, inputs, states, weights):
        (h_tm1,) = states
        h = nn_ops.matmul(inputs, weights["kernel"])
        if weights["bias"] is not None:
            h = nn_ops.bias_add(h, weights["bias"])
        h = self.activation(h + nn_ops.matmul(h_tm1, weights["recurrent_kernel"]))
        return h, [h]

    def call(self, inputs, states, training=None):
        nested = isinstance(states, (list, tuple))
        (h_tm1,) = _states_list(self, states, 1)
        h, new = self.step(self._compute(inputs), [self._compute(h_tm1)], self.read_weights())
        return h, (new if nested else h)


# --- LSTMCell ------------------------------------------------------------------------------


class LSTMCell(_Cell):
    """One step of a Keras LSTM.

    ``cell(inputs, [h, c])`` returns ``(h_new, [h_new, c_new])`` with, for
    ``z = inputs @ kernel + h @ recurrent_kernel + bias`` split in four along the last axis
    (gate order i, f, c, o)::

        i = recurrent_activation(z_i); f = recurrent_activation(z_f); o = recurrent_activation(z_o)
        c_new = f * c + i * activation(z_c);  h_new = o * activation(c_new)

    ``kernel``: ``(input_dim, 4*units)``; ``recurrent_kernel``: ``(units, 4*units)`` (orthogonal by
    default); ``bias``: ``(4*units,)``, with the forget-gate part set to 1 when ``unit_forget_bias``.
    """

    def __init__(
        self,
        units,
        activation="tanh",
        recurrent_activation="sigmoid",
        use_bias=True,
        kernel_initializer="glorot_uniform",
        recurrent_initializer="orthogonal",
        bias_initializer="zeros",
        unit_forget_bias=True,
        kernel_regularizer=None,
        recurrent_regularizer=None,
        bias_regularizer=None,
        kernel_constraint=None,
        recurrent_constraint=None,
        bias_constraint=None,
        dropout=0.0,
        recurrent_dropout=0.0,
        **kwargs,
    ):
        kwargs.pop("implementation", None)
        super().__init__(**kwargs)
        units = int(units)
        if units <= 0:
            raise ValueError(
                f"Received an invalid value for argument `units`, expected a positive integer, got {units}."
            )
        refuse_unsupported(
            kernel_constraint=kernel_constraint,
            recurrent_constraint=recurrent_constraint,
            bias_constraint=bias_constraint,
        )
        self.kernel_regularizer = _regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = _regularizers.get(recurrent_regularizer)
        self.bias_regularizer = _regularizers.get(bias_regularizer)
        _check_no_dropout("LSTMCell", dropout, recurrent_dropout)
        self.units = units
        self.activation = _activations.get(activation)
        self.recurrent_activation = _activations.get(recurrent_activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = _initializers.get(kernel_initializer)
        self.recurrent_initializer = _initializers.get(recurrent_initializer)
        self.bias_initializer = _initializers.get(bias_initializer)
        self.unit_forget_bias = bool(unit_forget_bias)
        self.dropout = 0.0
        self.recurrent_dropout = 0.0
        self.state_size = [units, units]
        self.output_size = units

    def build(self, input_shape):
        shape = TensorShape(input_shape)
        input_dim = shape[-1] if shape.rank is not None else None
        if input_dim is None:
            raise ValueError(f"LSTMCell {self.name!r} needs a defined last input dimension, got {shape}.")
        u = self.units
        self.kernel = self.add_weight(
            name="kernel",
            shape=(input_dim, 4 * u),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
        )
        self.recurrent_kernel = self.add_weight(
            name="recurrent_kernel",
            shape=(u, 4 * u),
            initializer=self.recurrent_initializer,
            regularizer=self.recurrent_regularizer,
        )
        if self.use_bias:
            if self.unit_forget_bias:
                base = self.bias_initializer

                def bias_initializer(shape, dtype=None, **kwargs):
                    return array_ops.concat(
                        [base((u,), dtype=dtype), creation_ops.ones((u,), dtype=dtype), base((2 * u,), dtype=dtype)],
                        axis=0,
                    )
            else:
                bias_initializer = self.bias_initializer
            self.bias = self.add_weight(
                name="bias", shape=(4 * u,), initializer=bias_initializer, regularizer=self.bias_regularizer
            )
        else:
            self.bias = None
        self.built = True

    def read_weights(self):
        return {
            "kernel": self._compute(self.kernel),
            "recurrent_kernel": self._compute(self.recurrent_kernel),
            "bias": self._compute(self.bias) if self.use_bias else None,
        }

    def step(self, inputs, states, weights):
        h_tm1, c_tm1 = states
        z = nn_ops.matmul(inputs, weights["kernel"]) + nn_ops.matmul(h_tm1, weights["recurrent_kernel"])
        if weights["bias"] is not None:
            z = nn_ops.bias_add(z, weights["bias"])
        z_i, z_f, z_c, z_o = array_ops.split(z, 4, axis=-1)
        i = self.recurrent_activation(z_i)
        f = self.recurrent_activation(z_f)
        c = f * c_tm1 + i * self.activation(z_c)
        o = self.recurrent_activation(z_o)
        h = o * self.activation(c)
        return h, [h, c]

    def call(self, inputs, states, training=None):
        if (
            isinstance(states, (Tensor, Variable, np.ndarray))
            or not isinstance(states, (list, tuple))
            or len(states) != 2
        ):
            raise ValueError(f"LSTMCell {self.name!r} expects states=[h, c] (a list of 2 tensors), got {states!r}.")
        h_tm1, c_tm1 = (self._compute(s) for s in _states_list(self, states, 2))
        return self.step(self._compute(inputs), [h_tm1, c_tm1], self.read_weights())


# --- GRUCell -------------------------------------------------------------------------------


class GRUCell(_Cell):
    """One step of a Keras GRU (gate order z, r, h)::

        x_z, x_r, x_h = split(inputs @ kernel + input_bias)
        r_z, r_r, r_h = split(h @ recurrent_kernel + recurrent_bias)      (reset_after=True)
        z = recurrent_activation(x_z + r_z); r = recurrent_activation(x_r + r_r)
        hh = activation(x_h + r * r_h)                                     (reset_after=True)
        hh = activation(x_h + (r * h) @ recurrent_kernel[:, 2u:])          (reset_after=False)
        h_new = z * h + (1 - z) * hh

    ``bias`` is ``(2, 3*units)`` (input bias, recurrent bias) with ``reset_after`` and
    ``(3*units,)`` (input bias only) without.  ``cell(inputs, h)`` returns ``(h_new, h_new)``;
    ``cell(inputs, [h])`` returns ``(h_new, [h_new])``.
    """

    def __init__(
        self,
        units,
        activation="tanh",
        recurrent_activation="sigmoid",
        use_bias=True,
        kernel_initializer="glorot_uniform",
        recurrent_initializer="orthogonal",
        bias_initializer="zeros",
        kernel_regularizer=None,
        recurrent_regularizer=None,
        bias_regularizer=None,
        kernel_constraint=None,
        recurrent_constraint=None,
        bias_constraint=None,
        dropout=0.0,
        recurrent_dropout=0.0,
        reset_after=True,
        seed=None,
        **kwargs,
    ):
        kwargs.pop("implementation", None)
        super().__init__(**kwargs)
        units = int(units)
        if units <= 0:
            raise ValueError(
                f"Received an invalid value for argument `units`, expected a positive integer, got {units}."
            )
        refuse_unsupported(
            kernel_constraint=kernel_constraint,
            recurrent_constraint=recurrent_constraint,
            bias_constraint=bias_constraint,
        )
        self.kernel_regularizer = _regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = _regularizers.get(recurrent_regularizer)
        self.bias_regularizer = _regularizers.get(bias_regularizer)
        _check_no_dropout("GRUCell", dropout, recurrent_dropout)
        self.units = units
        self.activation = _activations.get(activation)
        self.recurrent_activation = _activations.get(recurrent_activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = _initializers.get(kernel_initializer)
        self.recurrent_initializer = _initializers.get(recurrent_initializer)
        self.bias_initializer = _initializers.get(bias_initializer)
        self.reset_after = bool(reset_after)
        self.dropout = 0.0
        self.recurrent_dropout = 0.0
        self.state_size = units
        self.output_size = units

    def build(self, input_shape):
        shape = TensorShape(input_shape)
        input_dim = shape[-1] if shape.rank is not None else None
        if input_dim is None:
            raise ValueError(f"GRUCell {self.name!r} needs a defined last input dimension, got {shape}.")
        u = self.units
        self.kernel = self.add_weight(
            name="kernel",
            shape=(input_dim, 3 * u),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
        )
        self.recurrent_kernel = self.add_weight(
            name="recurrent_kernel",
            shape=(u, 3 * u),
            initializer=self.recurrent_initializer,
            regularizer=self.recurrent_regularizer,
        )
        if self.use_bias:
            shape = (2, 3 * u) if self.reset_after else (3 * u,)
            self.bias = self.add_weight(
                name="bias", shape=shape, initializer=self.bias_initializer, regularizer=self.bias_regularizer
            )
        else:
            self.bias = None
        self.built = True

    def read_weights(self):
        w = {
            "kernel": self._compute(self.kernel),
            "recurrent_kernel": self._compute(self.recurrent_kernel),
            "input_bias": None,
            "recurrent_bias": None,
        }
        if self.use_bias:
            bias = self._compute(self.bias)
            if self.reset_after:
                w["input_bias"], w["recurrent_bias"] = bias[0], bias[1]
            else:
                w["input_bias"] = bias
        return w

    def step(self, inputs, states, weights):
        (h_tm1,) = states
        u = self.units
        x = nn_ops.matmul(inputs, weights["kernel"])
        if weights["input_bias"] is not None:
            x = nn_ops.bias_add(x, weights["input_bias"])
        x_z, x_r, x_h = array_ops.split(x, 3, axis=-1)
        rk = weights["recurrent_kernel"]
        if self.reset_after:
            inner = nn_ops.matmul(h_tm1, rk)
            if weights["recurrent_bias"] is not None:
                inner = nn_ops.bias_add(inner, weights["recurrent_bias"])
            r_z, r_r, r_h = array_ops.split(inner, 3, axis=-1)
        else:
            inner = nn_ops.matmul(h_tm1, rk[:, : 2 * u])
            r_z, r_r = array_ops.split(inner, 2, axis=-1)
        z = self.recurrent_activation(x_z + r_z)
        r = self.recurrent_activation(x_r + r_r)
        if self.reset_after:
            hh = self.activation(x_h + r * r_h)
        else:
            hh = self.activation(x_h + nn_ops.matmul(r * h_tm1, rk[:, 2 * u :]))
        h = z * h_tm1 + (1.0 - z) * hh
        return h, [h]

    def call(self, inputs, states, training=None):
        nested = isinstance(states, (list, tuple))
        (h_tm1,) = _states_list(self, states, 1)
        h, new = self.step(self._compute(inputs), [self._compute(h_tm1)], self.read_weights())
        return h, (new if nested else h)


# --- RNN, LSTM, GRU ----------------------------------------------------------------------------


def _state_sizes(cell) -> list:
    """A cell's ``state_size`` as a list (one int per state tensor), as Keras's RNN keeps it."""
    size = cell.state_size
    return [int(size)] if isinstance(size, (int, np.integer)) else [int(d) for d in size]


class RNN(PolicyLayer):
    """Runs ``cell`` over the time axis of ``(batch, time, features)`` inputs.

    ``cell``: a built-in cell, or a user's layer with ``state_size`` (an int, or a list of ints,
    one per state) and ``call(inputs, states)`` returning ``(output, new_states)``, called with
    the states as a list, as Keras calls it; its ``get_initial_state(batch_size=...)`` is used if
    it has one, zeros otherwise.

    Returns the last output, or every output ``(batch, time, output_size)`` with
    ``return_sequences``; with ``return_state`` also the final states (``output, h, c`` for an
    LSTM cell, ``output, h`` for a GRU cell).  ``go_backwards`` runs the sequence in reverse (and
    returns the outputs in the order they were computed, as Keras does).  ``initial_state`` (a
    call argument) replaces the zero states.

    A ``mask`` (batch, time) (given, or attached to the inputs by ``Embedding(mask_zero=True)``
    or ``Masking``) skips steps, as Keras does: a masked step keeps the states and outputs the
    previous step's output (zeros with ``zero_output_for_mask``); with ``return_sequences`` the
    mask passes on to the outputs.
    """

    _tfunc_makes_masks = False  # compute_mask only carries or combines the inputs' masks

    def __init__(
        self,
        cell,
        return_sequences=False,
        return_state=False,
        go_backwards=False,
        stateful=False,
        unroll=False,
        zero_output_for_mask=False,
        **kwargs,
    ):
        if isinstance(cell, (list, tuple)):
            raise ValueError("tfunc.keras RNN takes one cell: stacking cells (RNN([cell, ...])) is not supported.")
        if not callable(getattr(cell, "call", None)):
            raise ValueError(f"Argument `cell` should have a `call` method. Received: cell={cell}")
        if getattr(cell, "state_size", None) is None:
            raise ValueError(
                "The RNN cell should have a `state_size` attribute (single integer or list of integers, one "
                f"integer per RNN state). Received: cell={cell}"
            )
        if stateful:
            raise ValueError("tfunc.keras recurrent layers do not support stateful=True.")
        if "time_major" in kwargs and kwargs.pop("time_major"):
            raise ValueError("tfunc.keras recurrent layers take (batch, time, features) inputs (time_major=False).")
        super().__init__(**kwargs)
        self.cell = cell
        self.return_sequences = bool(return_sequences)
        self.return_state = bool(return_state)
        self.go_backwards = bool(go_backwards)
        self.stateful = False
        self.unroll = bool(unroll)
        self.zero_output_for_mask = bool(zero_output_for_mask)
        self.supports_masking = True

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """Keras's RNN config holds its cell's config (LSTM, GRU and SimpleRNN hold none)."""
        if "cell" in config:
            config = dict(config, cell=_serialization.deserialize_keras_object(config["cell"], custom_objects))
        return super().from_config(config)

    @property
    def units(self):
        return self.cell.units

    @property
    def _output_size(self) -> int:
        """The size of each step's output (``output_size``, else the first state's, as Keras)."""
        size = getattr(self.cell, "output_size", None)
        return _state_sizes(self.cell)[0] if size is None else int(size)

    def build(self, input_shape):
        shape = TensorShape(input_shape)
        if shape.rank is not None and shape.rank != 3:
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: expected ndim=3, found '
                f"ndim={shape.rank}. Full shape received: {tuple(shape.as_list())}"
            )
        if isinstance(self.cell, Layer) and not self.cell.built:
            self.cell.build(TensorShape([shape[0], shape[2]]))
            self.cell.built = True
        self.built = True

    def _zeros(self, x, size):
        """Zeros shaped (batch, size), for a batch known only at run time too."""
        batch = x.shape[0]
        if batch is not None:
            return creation_ops.zeros((batch, size), dtype=x.dtype)
        return nn_ops.matmul(x[:, 0, :], creation_ops.zeros((x.shape[2], size), dtype=x.dtype))

    def _initial_states(self, x):
        make = getattr(self.cell, "get_initial_state", None)
        if make is None or isinstance(self.cell, _Cell):
            return [self._zeros(x, d) for d in _state_sizes(self.cell)]
        batch = x.shape[0] if x.shape[0] is not None else array_ops.shape(x)[0]
        states = make(batch_size=batch)
        return [self._compute(s) for s in (states if isinstance(states, (list, tuple)) else [states])]

    def _step_fn(self):
        """``step(x_t, states) -> (output, new_states)``: a built-in cell's step on its weights read
        once; a user's cell called at each step, its new states made a list."""
        if isinstance(self.cell, _Cell):
            weights = self.cell.read_weights()
            return lambda xt, states: self.cell.step(xt, states, weights)

        def step(xt, states):
            out, new = self.cell(xt, list(states))
            return out, list(new) if isinstance(new, (list, tuple)) else [new]

        return step

    def call(self, inputs, initial_state=None, training=None, mask=None):
        x = self._compute(inputs)
        if x.shape.rank != 3:
            raise ValueError(
                f"{type(self).__name__} {self.name!r} expects (batch, time, features) inputs, got {x.shape}."
            )
        states = (
            self._initial_states(x)
            if initial_state is None
            else [self._compute(s) for s in _states_list(self.cell, initial_state, len(_state_sizes(self.cell)))]
        )
        step = self._step_fn()
        if mask is not None:
            step = self._masked(step)
            mask = math_ops.cast(mask, D.bool)
        steps = x.shape[1]
        if steps is not None or ctx.graph is None:
            outputs, states = self._unrolled(x, mask, states, step)
        else:
            outputs, states = self._looped(x, mask, states, step)
        if not self.return_state:
            return outputs
        return (outputs, *states)

    def _masked(self, step):
        """``step`` for a masked sequence: ``(x_t, mask_t, states, previous output)``, where a
        masked row keeps its states and repeats the previous output (zeros, with
        ``zero_output_for_mask``), as Keras's ``rnn`` loop does."""

        def masked_step(xt, mt, states, previous):
            out, new = step(xt, states)
            keep = array_ops.expand_dims(mt, -1)
            new = [math_ops.where(keep, n, s) for n, s in zip(new, states)]
            fill = creation_ops.zeros_like(out) if self.zero_output_for_mask else previous
            return math_ops.where(keep, out, fill), new

        return masked_step

    def _unrolled(self, x, mask, states, step):
        """A Python loop over the time steps (eager code, and lengths known while tracing)."""
        xs = array_ops.unstack(x, axis=1)
        ms = [None] * len(xs) if mask is None else array_ops.unstack(mask, axis=1)
        if self.go_backwards:
            xs, ms = xs[::-1], ms[::-1]
        outs = []
        out = None
        previous = None if mask is None else self._zeros(x, self._output_size)
        for xt, mt in zip(xs, ms):
            if mt is None:
                out, states = step(xt, states)
            else:
                out, states = step(xt, mt, states, previous)
                previous = out
            outs.append(out)
        if out is None:
            raise ValueError(f"{type(self).__name__} {self.name!r} got a sequence of length 0.")
        if self.return_sequences:
            return array_ops.stack(outs, axis=1), states
        return out, states

    def _looped(self, x, mask, states, step):
        """A graph while-loop for a length known only at run time; with ``return_sequences``
        the step outputs go into a time-major buffer."""
        xs = array_ops.transpose(x, [1, 0, 2])
        ms = None if mask is None else array_ops.transpose(mask, [1, 0])
        if self.go_backwards:
            xs = xs[::-1]
            ms = None if ms is None else ms[::-1]
        steps = array_ops.shape(xs)[0]
        n = len(states)
        keep = self.return_sequences
        # The last output is carried for a masked sequence (a masked step repeats it) and for a
        # user's cell (a built-in cell's output is its first state).
        carry_last = mask is not None or (not keep and not isinstance(self.cell, _Cell))

        def cond(t, *rest):
            return t < steps

        def body(t, *rest):
            if ms is None:
                out, new = step(array_ops.gather(xs, t), list(rest[:n]))
            else:
                out, new = step(array_ops.gather(xs, t), array_ops.gather(ms, t), list(rest[:n]), rest[n])
            result = [t + 1, *new] + ([out] if carry_last else [])
            if keep:
                buf = indexing_ops.tensor_scatter_nd_update(rest[-1], array_ops.reshape(t, [1, 1]), out[None])
                result.append(buf)
            return tuple(result)

        init = [convert_to_tensor(0), *states]
        # (time, batch, output) zeros: summed, the first "last output"; the buffer of all outputs
        if carry_last or keep:
            zeros = nn_ops.matmul(xs, creation_ops.zeros((x.shape[2], self._output_size), dtype=x.dtype))
        if carry_last:
            init.append(reduction_ops.reduce_sum(zeros, axis=0))
        if keep:
            init.append(zeros)
        result = control_flow_ops.while_loop(cond, body, tuple(init))
        final = list(result[1 : 1 + n])
        if keep:
            return array_ops.transpose(result[-1], [1, 0, 2]), final
        return (result[1 + n] if carry_last else final[0]), final

    def compute_mask(self, inputs, mask):
        """The outputs' mask: the input's with ``return_sequences``, else none; states have none."""
        mask = nest.flatten(mask)[0] if isinstance(mask, (list, tuple)) else mask
        output_mask = mask if self.return_sequences else None
        if self.return_state:
            return [output_mask] + [None] * len(_state_sizes(self.cell))
        return output_mask

    def compute_output_shape(self, input_shape):
        n, t, _ = TensorShape(input_shape).as_list()
        size = self._output_size
        return TensorShape([n, t, size] if self.return_sequences else [n, size])


class SimpleRNN(RNN):
    """A fully connected RNN whose output is fed back as its input (an :class:`RNN` of a
    :class:`SimpleRNNCell`); its weights are the cell's ``kernel``, ``recurrent_kernel`` and
    ``bias``, as in Keras."""

    _tfunc_config_lists_activity_regularizer = True

    def __init__(
        self,
        units,
        activation="tanh",
        use_bias=True,
        kernel_initializer="glorot_uniform",
        recurrent_initializer="orthogonal",
        bias_initializer="zeros",
        kernel_regularizer=None,
        recurrent_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        kernel_constraint=None,
        recurrent_constraint=None,
        bias_constraint=None,
        dropout=0.0,
        recurrent_dropout=0.0,
        return_sequences=False,
        return_state=False,
        go_backwards=False,
        stateful=False,
        unroll=False,
        zero_output_for_mask=False,
        seed=None,
        **kwargs,
    ):
        cell = SimpleRNNCell(
            units,
            activation=activation,
            use_bias=use_bias,
            kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer,
            bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer,
            recurrent_regularizer=recurrent_regularizer,
            bias_regularizer=bias_regularizer,
            kernel_constraint=kernel_constraint,
            recurrent_constraint=recurrent_constraint,
            bias_constraint=bias_constraint,
            dropout=dropout,
            recurrent_dropout=recurrent_dropout,
            dtype=kwargs.get("dtype"),
        )
        super().__init__(
            cell,
            return_sequences=return_sequences,
            return_state=return_state,
            go_backwards=go_backwards,
            stateful=stateful,
            unroll=unroll,
            zero_output_for_mask=zero_output_for_mask,
            activity_regularizer=activity_regularizer,
            **kwargs,
        )


class LSTM(RNN):
    """Long short-term memory over a sequence (an :class:`RNN` of an :class:`LSTMCell`); its
    weights are the cell's ``kernel``, ``recurrent_kernel`` and ``bias``, as in Keras."""

    _tfunc_config_lists_activity_regularizer = True
    _tfunc_config_skip = frozenset({"use_cudnn"})  # not in Keras's config either

    def __init__(
        self,
        units,
        activation="tanh",
        recurrent_activation="sigmoid",
        use_bias=True,
        kernel_initializer="glorot_uniform",
        recurrent_initializer="orthogonal",
        bias_initializer="zeros",
        unit_forget_bias=True,
        kernel_regularizer=None,
        recurrent_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        kernel_constraint=None,
        recurrent_constraint=None,
        bias_constraint=None,
        dropout=0.0,
        recurrent_dropout=0.0,
        seed=None,
        return_sequences=False,
        return_state=False,
        go_backwards=False,
        stateful=False,
        unroll=False,
        zero_output_for_mask=False,
        use_cudnn="auto",
        **kwargs,
    ):
        cell = LSTMCell(
            units,
            activation=activation,
            recurrent_activation=recurrent_activation,
            use_bias=use_bias,
            kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer,
            bias_initializer=bias_initializer,
            unit_forget_bias=unit_forget_bias,
            kernel_regularizer=kernel_regularizer,
            recurrent_regularizer=recurrent_regularizer,
            bias_regularizer=bias_regularizer,
            kernel_constraint=kernel_constraint,
            recurrent_constraint=recurrent_constraint,
            bias_constraint=bias_constraint,
            dropout=dropout,
            recurrent_dropout=recurrent_dropout,
            dtype=kwargs.get("dtype"),
        )
        super().__init__(
            cell,
            return_sequences=return_sequences,
            return_state=return_state,
            go_backwards=go_backwards,
            stateful=stateful,
            unroll=unroll,
            zero_output_for_mask=zero_output_for_mask,
            activity_regularizer=activity_regularizer,
            **kwargs,
        )


class GRU(RNN):
    """Gated recurrent unit over a sequence (an :class:`RNN` of a :class:`GRUCell`); its weights
    are the cell's ``kernel``, ``recurrent_kernel`` and ``bias``, as in Keras."""

    _tfunc_config_lists_activity_regularizer = True
    _tfunc_config_skip = frozenset({"use_cudnn"})  # not in Keras's config either

    def __init__(
        self,
        units,
        activation="tanh",
        recurrent_activation="sigmoid",
        use_bias=True,
        kernel_initializer="glorot_uniform",
        recurrent_initializer="orthogonal",
        bias_initializer="zeros",
        kernel_regularizer=None,
        recurrent_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        kernel_constraint=None,
        recurrent_constraint=None,
        bias_constraint=None,
        dropout=0.0,
        recurrent_dropout=0.0,
        seed=None,
        return_sequences=False,
        return_state=False,
        go_backwards=False,
        stateful=False,
        unroll=False,
        zero_output_for_mask=False,
        reset_after=True,
        use_cudnn="auto",
        **kwargs,
    ):
        cell = GRUCell(
            units,
            activation=activation,
            recurrent_activation=recurrent_activation,
            use_bias=use_bias,
            kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer,
            bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer,
            recurrent_regularizer=recurrent_regularizer,
            bias_regularizer=bias_regularizer,
            kernel_constraint=kernel_constraint,
            recurrent_constraint=recurrent_constraint,
            bias_constraint=bias_constraint,
            dropout=dropout,
            recurrent_dropout=recurrent_dropout,
            reset_after=reset_after,
            dtype=kwargs.get("dtype"),
        )
        super().__init__(
            cell,
            return_sequences=return_sequences,
            return_state=return_state,
            go_backwards=go_backwards,
            stateful=stateful,
            unroll=unroll,
            zero_output_for_mask=zero_output_for_mask,
            activity_regularizer=activity_regularizer,
            **kwargs,
        )
