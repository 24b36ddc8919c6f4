"""``Bidirectional``: a recurrent layer run over the sequence forwards and backwards.

As in Keras, the wrapped layer itself is not used: ``forward_layer`` is a copy of it made from
its config (named ``forward_<name>``) and ``backward_layer`` one with ``go_backwards=True``
(``backward_<name>``) unless given; the weights are the forward layer's, then the backward
layer's, and a weights file holds them under ``backward_layer/...`` and ``forward_layer/...``.
"""

from __future__ import annotations

from ...api import array_composites, array_ops
from .. import serialization as _serialization
from .base import Layer
from .policy import PolicyLayer
from .rnn import _state_count

_MERGE_MODES = ("sum", "mul", "ave", "concat", None)


def _copy(layer, name, **changes):
    """A new layer from ``layer``'s config, renamed (Keras's serialize/deserialize round trip)."""
    config = _serialization.serialize_keras_object(layer)
    config["config"].update(name=name, **changes)
    return _serialization.deserialize_keras_object(config)


def _without_prefix(name: str, prefix: str) -> str:
    return name[len(prefix) :] if name.startswith(prefix) else name


class Bidirectional(PolicyLayer):
    """Runs ``layer`` (an RNN, LSTM, GRU or SimpleRNN) forwards and a copy backwards, merging
    their outputs with ``merge_mode``: ``'concat'`` (the default), ``'sum'``, ``'mul'``, ``'ave'``
    or None (the two outputs, as a tuple). With ``return_sequences`` the backward outputs are
    reversed in time first, so step ``t`` of both belongs to input step ``t``. With
    ``return_state`` the merged output is followed by the forward states, then the backward ones;
    an ``initial_state`` is split the same way (its first half for the forward layer).

    A mask (of the input sequence) reaches both layers; with ``return_sequences`` their outputs
    are zeros at masked steps (Keras sets ``zero_output_for_mask`` on them) and carry the mask."""

    _tfunc_makes_masks = False  # compute_mask only carries or combines the inputs' masks

    def __init__(self, layer, merge_mode="concat", weights=None, backward_layer=None, **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError(
                f"Please initialize `Bidirectional` layer with a `keras.layers.Layer` instance. Received: {layer}"
            )
        if backward_layer is not None and not isinstance(backward_layer, Layer):
            raise ValueError(f"`backward_layer` need to be a `keras.layers.Layer` instance. Received: {backward_layer}")
        if merge_mode not in _MERGE_MODES:
            raise ValueError(
                f"Invalid merge mode. Received: {merge_mode}. "
                'Merge mode should be one of {"sum", "mul", "ave", "concat", None}'
            )
        if weights is not None:
            raise ValueError("tfunc.keras Bidirectional does not take `weights`: call set_weights() once it is built.")
        super().__init__(**kwargs)
        self.forward_layer = _copy(layer, f"forward_{_without_prefix(layer.name, 'forward_')}")
        if backward_layer is None:
            backward_layer = _copy(layer, f"backward_{_without_prefix(layer.name, 'backward_')}", go_backwards=True)
        self.backward_layer = backward_layer
        if self.forward_layer.go_backwards == self.backward_layer.go_backwards:
            raise ValueError(
                "Forward layer and backward layer should have different `go_backwards` value. Received: "
                f"forward_layer.go_backwards {self.forward_layer.go_backwards}, "
                f"backward_layer.go_backwards={self.backward_layer.go_backwards}"
            )
        for attr in ("stateful", "return_sequences", "return_state"):
            forward, backward = getattr(self.forward_layer, attr), getattr(self.backward_layer, attr)
            if forward != backward:
                raise ValueError(
                    "Forward layer and backward layer are expected to have the same value for attribute "
                    f'"{attr}", got "{forward}" for forward layer and "{backward}" for backward layer'
                )
        for inner in (self.forward_layer, self.backward_layer):
            inner.zero_output_for_mask = inner.return_sequences  # as Keras's Bidirectional forces it
        self.merge_mode = merge_mode
        self.supports_masking = True
        self.stateful = layer.stateful
        self.return_sequences = layer.return_sequences
        self.return_state = layer.return_state

    def build(self, input_shape):
        for layer in (self.forward_layer, self.backward_layer):
            if not layer.built:
                layer.build(input_shape)
                layer.built = True
        self.built = True

    def call(self, sequences, initial_state=None, training=None, mask=None):
        forward_state = backward_state = None
        if initial_state is not None:
            half = len(initial_state) // 2
            forward_state, backward_state = list(initial_state[:half]), list(initial_state[half:])
        y = self.forward_layer(sequences, initial_state=forward_state, training=training, mask=mask)
        y_rev = self.backward_layer(sequences, initial_state=backward_state, training=training, mask=mask)
        if self.return_state:
            states = tuple(y[1:]) + tuple(y_rev[1:])
            y, y_rev = y[0], y_rev[0]
        y, y_rev = self._compute(y), self._compute(y_rev)
        if self.return_sequences:
            y_rev = array_composites.reverse(y_rev, [1])
        if self.merge_mode == "concat":
            output = array_ops.concat([y, y_rev], axis=-1)
        elif self.merge_mode == "sum":
            output = y + y_rev
        elif self.merge_mode == "ave":
            output = (y + y_rev) / 2
        elif self.merge_mode == "mul":
            output = y * y_rev
        else:
            output = (y, y_rev)
        if not self.return_state:
            return output
        return (*output, *states) if self.merge_mode is None else (output, *states)

    def compute_mask(self, inputs, mask):
        """Keras's: the input's mask for each output with ``return_sequences`` (none otherwise),
        none for the states."""
        if isinstance(mask, list):
            mask = mask[0]
        if self.return_sequences:
            output_mask = (mask, mask) if self.merge_mode is None else mask
        else:
            output_mask = (None, None) if self.merge_mode is None else None
        if not self.return_state:
            return output_mask
        states = [None] * (2 * _state_count(self.forward_layer.cell))
        return list(output_mask if isinstance(output_mask, tuple) else (output_mask,)) + states

    @property
    def states(self):
        """The forward layer's state variables, then the backward one's (stateful layers only)."""
        if self.forward_layer.states and self.backward_layer.states:
            return tuple(self.forward_layer.states + self.backward_layer.states)
        return None

    def reset_state(self):
        if not self.stateful:
            raise AttributeError("Layer must be stateful.")
        self.forward_layer.reset_state()
        self.backward_layer.reset_state()

    def reset_states(self):
        self.reset_state()

    def get_config(self):
        return {
            **super().get_config(),
            "merge_mode": self.merge_mode,
            "layer": _serialization.serialize_keras_object(self.forward_layer),
            "backward_layer": _serialization.serialize_keras_object(self.backward_layer),
        }

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        for key in ("layer", "backward_layer"):
            if config.get(key) is not None:
                config[key] = _serialization.deserialize_keras_object(config[key], custom_objects)
        return super().from_config(config)
