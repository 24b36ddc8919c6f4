"""Keras 3.15's geometric and mixing augmentation layers: ``RandomShear``,
``RandomPerspective``, ``MixUp``, ``CutMix``, ``AugMix`` and ``RandAugment``, and the
``Pipeline`` that chains layers (the conventions are ``image_augmentation.py``'s)."""

from __future__ import annotations

import random

import numpy as np

from ...api import array_ops, creation_ops, math_ops, reduction_ops
from ...api.variables import Variable
from ...core import dtypes as D
from ...eager.convert import convert_to_tensor
from ...eager.tensor import Tensor
from ...tracing.symbolic import SymbolicTensor
from .. import serialization as _serialization
from .base import Layer
from .image_augmentation import (
    AugmentLayer,
    AutoContrast,
    Draws,
    Equalization,
    RandomColorDegeneration,
    RandomPosterization,
    RandomSharpness,
    Replay,
    Solarization,
    _factor_range,
    batch_size,
    box_and_area,
)
from .image_preprocessing import (
    _FILL_MODES,
    RandomBrightness,
    RandomContrast,
    RandomRotation,
    RandomTranslation,
    _affine_transform,
    float_hw,
    homography,
)


def _shear_range(factor, name):
    """RandomShear's factors: a number ``f`` is ``(-f, f)``, each end in [0, 1]."""
    message = (
        "The `factor` argument should be a number (or a list of two numbers) in the range [0, 1.0]. "
        f"Received: {name}={factor}"
    )
    ends = factor if isinstance(factor, (tuple, list)) else [factor]
    if (isinstance(factor, (tuple, list)) and len(factor) != 2) or not all(isinstance(v, (int, float)) for v in ends):
        raise ValueError(message)
    for v in ends:
        if v > 1.0 or v < 0.0:
            raise ValueError(message)
    return tuple(sorted(factor)) if isinstance(factor, (tuple, list)) else (-abs(factor), abs(factor))


def _check_interpolation(interpolation):
    if interpolation not in ("nearest", "bilinear"):
        raise NotImplementedError(f"Unknown `interpolation` {interpolation}. Expected of one ('nearest', 'bilinear').")


class RandomShear(AugmentLayer):
    """Each image sheared about its top-left corner: input ``(x + sx y, y + sy x)``, ``sx`` and
    ``sy`` uniform in the factor ranges with one random sign for both."""

    def __init__(
        self,
        x_factor=0.0,
        y_factor=0.0,
        interpolation="bilinear",
        fill_mode="reflect",
        fill_value=0.0,
        data_format=None,
        seed=None,
        **kwargs,
    ):
        super().__init__(data_format=data_format, **kwargs)
        self.x_factor = _shear_range(x_factor, "x_factor")
        self.y_factor = _shear_range(y_factor, "y_factor")
        if fill_mode not in _FILL_MODES:
            raise NotImplementedError(f"Unknown `fill_mode` {fill_mode}. Expected of one {_FILL_MODES}.")
        _check_interpolation(interpolation)
        self.fill_mode, self.fill_value = fill_mode, fill_value
        self.interpolation = interpolation
        self._seed(seed)

    def _augment(self, x, draws):
        n = batch_size(x)
        sign = math_ops.where(draws.uniform(n) > 0.5, -1.0, 1.0)
        shear_y = draws.uniform(n, *self.y_factor) * sign
        shear_x = draws.uniform(n, *self.x_factor) * sign
        return shear(x, shear_x, shear_y, self.interpolation, self.fill_mode, self.fill_value)

    def get_config(self):
        return self._keys("x_factor", "y_factor", "fill_mode", "interpolation", "seed", "fill_value")


def shear(x, shear_x, shear_y, interpolation, fill_mode, fill_value):
    """Each image of ``x`` read at ``(u + sx v, v + sy u)`` (``[batch]`` factors)."""
    one, zero = creation_ops.ones_like(shear_x), creation_ops.zeros_like(shear_x)
    rows = array_ops.stack([one, shear_x, zero, shear_y, one, zero, zero, zero], axis=1)
    return math_ops.cast(_affine_transform(x, rows, interpolation, fill_mode, fill_value), x.dtype)


class RandomPerspective(AugmentLayer):
    """With probability ``p`` (uniform in the factor range), each image warped so that its
    corners move by up to ``scale / 2`` of their coordinates (constant ``fill_value`` outside)."""

    def __init__(
        self, factor=1.0, scale=1.0, interpolation="bilinear", fill_value=0.0, seed=None, data_format=None, **kwargs
    ):
        super().__init__(data_format=data_format, **kwargs)
        self.factor = _factor_range(factor, (0, 1))
        self.scale = scale
        self.fill_value = fill_value
        self.interpolation = interpolation
        self._seed(seed)
        if scale < 0.0 or scale > 1.0:
            raise ValueError(f"The `scale` argument should be a number in the range [0,1]. Received: scale={scale}")
        _check_interpolation(interpolation)

    def _augment(self, x, draws):
        n = batch_size(x)
        probability = draws.uniform(n, *self.factor)
        apply = draws.uniform(n) < probability
        moves = draws.uniform(array_ops.concat([n, [4, 2]], 0), -0.5 * self.scale, 0.5 * self.scale, dtype=x.dtype)
        start = _corners(x) * creation_ops.ones_like(moves)
        warped = perspective(x, start, start + start * moves, self.interpolation, self.fill_value)
        return math_ops.where(array_ops.reshape(apply, [-1, 1, 1, 1]), warped, x)

    def get_config(self):
        return self._keys("factor", "scale", "interpolation", "fill_value", "seed")


def _corners(x):
    """The ``(x, y)`` corners of the images of ``x``, ``[1, 4, 2]`` float32 (Keras's start points)."""
    h, w = float_hw(x)
    if isinstance(h, int) and isinstance(w, int):
        return convert_to_tensor(np.array([[[0, 0], [w - 1, 0], [0, h - 1], [w - 1, h - 1]]], np.float32))
    h, w = math_ops.cast(h, D.float32), math_ops.cast(w, D.float32)
    zero = creation_ops.zeros_like(h)
    return array_ops.reshape(array_ops.stack([zero, zero, w - 1, zero, zero, h - 1, w - 1, h - 1]), [1, 4, 2])


def perspective(x, start, end, interpolation, fill_value):
    """Keras's ``perspective_transform`` of channels-last batch ``x``: each image warped so
    that its ``start`` corners (``[batch, 4, 2]``, ``(x, y)``) move to ``end`` (constant fill)."""
    transform = homography(start, end)
    return math_ops.cast(_affine_transform(x, transform, interpolation, "constant", fill_value), x.dtype)


def _when_training(training, fn, values):
    """``fn(*values)`` in training, ``values`` otherwise (``training`` as ``in_training`` reads it)."""
    if training is None:
        return values
    if isinstance(training, Variable):
        training = training.read_value()
    if isinstance(training, SymbolicTensor):
        return tuple(math_ops.where(training, o, v) for o, v in zip(fn(*values), values))
    if isinstance(training, Tensor):
        training = bool(training)
    return fn(*values) if training else values


class _MixLayer(AugmentLayer):
    """Images, or Keras's ``{"images": ..., "labels": ...}`` whose one-hot labels are mixed in
    the same proportions as the images."""

    def call(self, inputs, training=True):
        if not isinstance(inputs, dict):
            return super().call(inputs, training=training)
        extra = set(inputs) - {"images", "labels"}
        if extra:
            raise ValueError(
                f"tfunc's {type(self).__name__} takes a dict of 'images' and 'labels' only, "
                f"got the keys {sorted(extra)}."
            )
        images = self._float(self._images(inputs["images"]))
        if "labels" not in inputs:
            return {"images": super().call(images, training=training)}
        labels = math_ops.cast(convert_to_tensor(inputs["labels"]), self.compute_dtype)
        if images.shape.rank != 4:
            raise ValueError(f"tfunc's {type(self).__name__} mixes labels of a batch of images (rank 4) only.")
        images, labels = _when_training(training, self._mix_both, (images, labels))
        return {"images": images, "labels": labels}

    def _augment(self, x, draws):
        return self._mix(x, draws)[0]

    def _mix_both(self, images, labels):
        first = self.data_format == "channels_first"
        x = array_ops.transpose(images, (0, 2, 3, 1)) if first else images
        x, weight, order = self._mix(x, Draws(self))
        weight = array_ops.reshape(weight, [-1, 1])
        labels = weight * labels + (1.0 - weight) * array_ops.gather(labels, order)
        return (array_ops.transpose(x, (0, 3, 1, 2)) if first else x), labels


class MixUp(_MixLayer):
    """Each image ``w x + (1 - w) x'`` with ``x'`` another image of the batch (a random
    permutation) and ``w ~ Beta(alpha, alpha)``."""

    _INTEGERS = "inference"

    def __init__(self, alpha=0.2, data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.alpha = alpha
        self._seed(seed)

    def _mix(self, x, draws):
        n = batch_size(x)
        order = draws.permutation(n)
        weight = math_ops.cast(draws.beta(n, self.alpha), x.dtype)
        w = array_ops.reshape(weight, [-1, 1, 1, 1])
        return w * x + (1.0 - w) * array_ops.gather(x, order), weight, order

    def get_config(self):
        return self._keys("alpha", "seed")


class CutMix(_MixLayer):
    """A random box of each image (of area ``1 - w`` of it, ``w ~ Beta(a, a)`` with ``a``
    uniform in the factor range) replaced by the same box of another image of the batch; labels
    mixed by the area kept. Single images come back unchanged, as Keras's."""

    def __init__(self, factor=1.0, seed=None, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.factor = _factor_range(factor, (0, 1))
        self._seed(seed)

    def call(self, inputs, training=True):
        images = inputs["images"] if isinstance(inputs, dict) else inputs
        if getattr(images, "ndim", None) == 3 or getattr(getattr(images, "shape", None), "rank", None) == 3:
            training = False  # Keras mixes nothing in a single image
        return super().call(inputs, training=training)

    def _mix(self, x, draws):
        n = batch_size(x)
        alpha = draws.uniform([], *self.factor, dtype=x.dtype) + 1e-6
        ratio = math_ops.cast(math_ops.sqrt(1.0 - draws.beta(n, alpha)), x.dtype)
        inside, area = box_and_area(draws, x, ratio, ratio)
        order = draws.permutation(n, dtype=D.int32)
        h, w = float_hw(x)
        # Keras's weight: the box's real-valued area (from its corners), not its pixel count
        kept = 1.0 - area / (w * h)
        return math_ops.where(inside, array_ops.gather(x, order), x), kept, order

    def get_config(self):
        return self._keys("factor", "seed")


def _step(layer, x, draws):
    """One augmentation of sublayer ``layer`` on a channels-last batch, drawing from the
    generator of ``draws`` (the holding layer's, as Keras)."""
    if isinstance(layer, AugmentLayer):
        return layer._augment(x, draws)
    if isinstance(layer, (RandomBrightness, RandomContrast)):
        return layer._adjust(x, draws.generator)
    return layer._move(x, draws.generator)  # RandomTranslation, RandomRotation


# the seeds one call of each of RandAugment's operations takes from its generator, as Keras's
_DRAW_COUNTS = {
    "RandomShear": 3,
    "RandomTranslation": 2,
    "Solarization": 2,
    "AutoContrast": 0,
    "Equalization": 0,
}


def _draw_count(layer):
    """How many seeds one call of ``layer`` draws (RandomPosterization: none for a fixed depth)."""
    if isinstance(layer, RandomPosterization):
        return int(layer.factor[0] != layer.factor[1])
    return _DRAW_COUNTS.get(type(layer).__name__, 1)


def _augmenters(names, factor, value_range, interpolation, seed, dtype):
    """Keras's sublayers of AugMix and RandAugment, by name (made in Keras's order, so that
    their automatic names follow Keras's), channels-last."""
    common = {"seed": seed, "dtype": dtype}
    makers = {
        "random_shear": lambda: RandomShear(factor, factor, interpolation=interpolation, **common),
        "random_translation": lambda: RandomTranslation(factor, factor, interpolation=interpolation, **common),
        "random_rotation": lambda: RandomRotation(factor, interpolation=interpolation, **common),
        "solarization": lambda: Solarization(factor, factor, value_range=value_range, **common),
        "random_posterization": lambda: RandomPosterization(
            max(1, int(8 * factor[1])), value_range=value_range, **common
        ),
        "auto_contrast": lambda: AutoContrast(value_range=value_range, dtype=dtype),
        "equalization": lambda: Equalization(value_range=value_range, dtype=dtype),
        "random_brightness": lambda: RandomBrightness(factor, value_range=value_range, **common),
        "random_color_degeneration": lambda: RandomColorDegeneration(factor, value_range=value_range, **common),
        "random_contrast": lambda: RandomContrast(factor, value_range=value_range, **common),
        "random_sharpness": lambda: RandomSharpness(factor, value_range=value_range, **common),
    }
    made = {name: make() for name, make in makers.items() if name in names}
    return {name: made[name] for name in names}


# Keras's operations: AugMix's (its first 7 without all_ops) and RandAugment's, in their orders
_AUG_MIX_OPS = (
    "random_shear",
    "random_translation",
    "random_rotation",
    "random_posterization",
    "solarization",
    "auto_contrast",
    "equalization",
    "random_brightness",
    "random_color_degeneration",
    "random_contrast",
    "random_sharpness",
)
_RAND_AUGMENT_OPS = (
    "random_shear",
    "random_translation",
    "random_rotation",
    "random_brightness",
    "random_color_degeneration",
    "random_contrast",
    "random_sharpness",
    "random_posterization",
    "solarization",
    "auto_contrast",
    "equalization",
)


class AugMix(AugmentLayer):
    """``w x + (1 - w) sum_i m_i chain_i(x)``, clipped to ``value_range``: ``num_chains`` chains
    of up to ``chain_depth`` operations (each picked at random, or none, when the call is traced,
    as Keras picks them in Python), ``m`` from Dirichlet(alpha) and ``w`` from Beta(alpha, alpha)."""

    def __init__(
        self,
        value_range=(0, 255),
        num_chains=3,
        chain_depth=3,
        factor=0.3,
        alpha=1.0,
        all_ops=True,
        interpolation="bilinear",
        seed=None,
        data_format=None,
        **kwargs,
    ):
        super().__init__(data_format=data_format, **kwargs)
        self.value_range = value_range
        self.num_chains, self.chain_depth = num_chains, chain_depth
        self.factor = _factor_range(factor, (0, 1))
        self.alpha, self.all_ops = alpha, all_ops
        self.interpolation = interpolation
        self._seed(seed)
        names = _AUG_MIX_OPS if all_ops else _AUG_MIX_OPS[:7]
        self._tfunc_ops = _augmenters(names, self.factor, value_range, interpolation, seed, self.dtype_policy)

    def _augment(self, x, draws):
        gammas = draws.gamma([self.num_chains], self.alpha)
        mixing = math_ops.cast(gammas / reduction_ops.reduce_sum(gammas), x.dtype)
        weight = math_ops.cast(draws.beta([], self.alpha), x.dtype)
        names = list(self._tfunc_ops) + [None]
        mixed = creation_ops.zeros_like(x)
        for i in range(self.num_chains):
            chain = x
            for name in (random.choice(names) for _ in range(self.chain_depth)):
                if name is not None:
                    chain = _step(self._tfunc_ops[name], chain, draws)
            mixed = mixed + chain * mixing[i]
        return math_ops.clip_by_value(weight * x + (1 - weight) * mixed, self.value_range[0], self.value_range[1])

    def get_config(self):
        return self._keys(
            "value_range", "num_chains", "chain_depth", "factor", "alpha", "all_ops", "interpolation", "seed"
        )


class RandAugment(AugmentLayer):
    """``num_ops`` operations in turn, each one of 11 picked at random per call for the whole
    batch, at the strength of ``factor``; as Keras, each operation's parameters are drawn once
    per call (all 11, in turn, after the picks) and reused wherever it is picked."""

    def __init__(
        self,
        value_range=(0, 255),
        num_ops=2,
        factor=0.5,
        interpolation="bilinear",
        seed=None,
        data_format=None,
        **kwargs,
    ):
        super().__init__(data_format=data_format, **kwargs)
        self.value_range = value_range
        self.num_ops = num_ops
        self.factor = _factor_range(factor, (0, 1))
        self.interpolation = interpolation
        self._seed(seed)
        self._tfunc_ops = _augmenters(
            _RAND_AUGMENT_OPS, self.factor, value_range, interpolation, seed, self.dtype_policy
        )

    def _augment(self, x, draws):
        picks = draws.randint([self.num_ops], 0, len(self._tfunc_ops))
        layers = list(self._tfunc_ops.values())
        seeds = [[draws.generator.next() for _ in range(_draw_count(layer))] for layer in layers]
        for i in range(self.num_ops):
            for k, layer in enumerate(layers):
                x = math_ops.where(math_ops.equal(picks[i], k), _step(layer, x, Draws(Replay(seeds[k]))), x)
        return x

    def get_config(self):
        return self._keys("value_range", "num_ops", "factor", "interpolation", "seed")


class Pipeline(Layer):
    """``layers`` applied in turn."""

    def __init__(self, layers, name=None):
        super().__init__(name=name)
        self._pipeline_layers = list(layers)

    @property
    def layers(self):
        return self._pipeline_layers

    def call(self, inputs, training=True):
        # each layer gets ``training`` if its call takes it, and the mask its inputs carry
        for layer in self._pipeline_layers:
            inputs = layer(inputs, training=training)
        return inputs

    def compute_output_shape(self, input_shape):
        for layer in self._pipeline_layers:
            input_shape = layer.compute_output_shape(input_shape)
        return input_shape

    @classmethod
    def from_config(cls, config):
        layers = config.get("layers")
        if not isinstance(layers, (list, tuple)):
            raise ValueError(
                "`Pipeline` config must contain a `layers` key mapping to a list of serialized layers. "
                f"Received config with layers={layers}."
            )
        layers = [_serialization.deserialize_keras_object(c) for c in layers]
        return cls(layers=layers, name=config.get("name"))

    def get_config(self):
        return {
            "layers": [_serialization.serialize_keras_object(layer) for layer in self._pipeline_layers],
            "name": self.name,
        }
