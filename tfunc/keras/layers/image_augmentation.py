"""Keras 3.15's colour augmentation layers: ``RandomGrayscale``, ``RandomHue``,
``RandomSaturation``, ``RandomSharpness``, ``RandomPosterization``, ``RandomColorDegeneration``,
``RandomInvert``, ``RandomGaussianBlur``, ``RandomErasing``, ``RandomColorJitter``,
``Solarization``, ``AutoContrast`` and ``Equalization`` (the geometric and mixing ones are in
``image_mixing.py``).

As in Keras, the random layers take ``training`` with a default of True and give the images in
the compute dtype with ``training=False``; ``AutoContrast`` applies at inference too, as
Keras's does. Images are rank 3 or 4, ``channels_last`` or ``channels_first``; each layer's
``_augment`` sees a channels-last batch in the compute dtype. Each layer draws as Keras's: from
its ``keras.random.SeedGenerator(seed)``, in Keras's order and shapes, so a seeded layer
repeats Keras's values where they are TensorFlow's stateless streams (the Philox ones; not
gamma and beta), and draws anew at every call, in a ``tf.function`` or ``Dataset.map`` too.
Keras's dict inputs (labels, bounding boxes, masks) are refused, but for MixUp's and
CutMix's ``{"images", "labels"}``."""

from __future__ import annotations

from ...api import (
    array_composites,
    array_ops,
    creation_ops,
    image_ops,
    math_ops,
    nn_ops,
    reduction_ops,
    segment_ops,
)
from ...core import dtypes as D
from ...eager.convert import convert_to_tensor
from . import keras_random
from .conv_utils import data_format_arg
from .image_preprocessing import (
    RandomBrightness,
    RandomContrast,
    _factor_range,
    float_hw,
    generator_of,
    hold_seed,
    image_hw,
)
from .policy import PolicyLayer
from .regularization import in_training

_EPSILON = 1e-7  # keras.backend.epsilon()

# Keras's luma weights (its rgb_to_grayscale)
_LUMA = (0.2989, 0.5870, 0.1140)


def _value_range(value_range):
    """Keras's ``_set_value_range``: a sorted list of two numbers."""
    if not isinstance(value_range, (tuple, list)) or len(value_range) != 2:
        raise ValueError(
            f"The `value_range` argument should be a list of two numbers. Received: value_range={value_range}"
        )
    return sorted(value_range)


def _rescale(x, source, target):
    """Keras's ``_transform_value_range``: ``x`` moved linearly from ``source`` to ``target``."""
    if source[0] == target[0] and source[1] == target[1]:
        return x
    return (x - source[0]) / (source[1] - source[0]) * (target[1] - target[0]) + target[0]


class Draws:
    """The random numbers of one call, drawn as Keras 3.15's layers draw them: each a
    ``keras.random`` function given a ``SeedGenerator`` (the layer's, or the one of the layer
    that holds it), so each draw takes the generator's next seed. Two layers with one ``seed``
    thus draw alike, and a layer draws anew at every call, in a ``tf.function`` or a
    ``Dataset.map`` too (the generator's state is a variable)."""

    def __init__(self, source):
        """``source``: a ``SeedGenerator``, or the layer whose own one to draw from."""
        self._source = source

    @property
    def generator(self):
        if not isinstance(self._source, keras_random.SeedGenerator):
            self._source = generator_of(self._source)
        return self._source

    def uniform(self, shape, minval=0.0, maxval=1.0, dtype="float32"):
        return keras_random.uniform(shape, minval=minval, maxval=maxval, dtype=dtype, seed=self.generator)

    def randint(self, shape, minval, maxval, dtype="int32"):
        return keras_random.randint(shape, minval, maxval, dtype=dtype, seed=self.generator)

    def normal(self, shape, dtype="float32"):
        return keras_random.normal(shape, dtype=dtype, seed=self.generator)

    def gamma(self, shape, alpha):
        return keras_random.gamma(shape, alpha, seed=self.generator)

    def beta(self, shape, alpha):
        """Beta(alpha, alpha), as Keras's ``random.beta``."""
        return keras_random.beta(shape, alpha, alpha, seed=self.generator)

    def permutation(self, n, dtype=D.int64):
        """A random order of ``range(n)`` (``n`` a shape ``[n]``), Keras's ``shuffle(arange(n))``."""
        order = creation_ops.range(array_ops.reshape(n, []), dtype=dtype)
        return keras_random.shuffle(order, seed=self.generator)


class Replay(keras_random.SeedGenerator):
    """A stand-in generator that gives ``seeds`` (taken from a real one) in turn: RandAugment
    applies a sublayer with the same draws wherever its operation is picked, as Keras draws each
    sublayer's transformation once per call."""

    def __init__(self, seeds):  # no state variable: nothing to advance
        self._tfunc_seeds = iter(seeds)

    def next(self, ordered=True):
        return next(self._tfunc_seeds)


def batch_size(x):
    """The batch size of channels-last batch ``x`` as a shape tensor ``[n]``."""
    return array_ops.shape(x)[:1]


def per_image(n, rest=(1, 1, 1)):
    """The shape ``[n, *rest]``."""
    return array_ops.concat([n, convert_to_tensor(list(rest), D.int32)], 0)


class AugmentLayer(PolicyLayer):
    """Keras's BaseImagePreprocessingLayer: rank-3 or 4 images in either ``data_format``,
    augmented by ``_augment`` (a channels-last batch in the compute dtype) in training."""

    # Keras applies AutoContrast whatever ``training`` says
    _ALWAYS = False
    # integer images, as Keras gives them back: "float" (in the compute dtype), "inference" (as
    # they are with ``training=False``, in the compute dtype in training) or "keep" (their dtype)
    _INTEGERS = "float"

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = data_format_arg(data_format)

    def _seed(self, seed):
        """Keras's ``seed`` and its ``generator``: the ``SeedGenerator`` every call draws from."""
        hold_seed(self, seed)

    def call(self, inputs, training=True):
        x = self._images(inputs)
        if self._ALWAYS:
            return self._apply(self._float(x))
        if self._INTEGERS == "float" or (
            self._INTEGERS == "inference" and not isinstance(training, (bool, type(None)))
        ):
            x = self._float(x)  # a tensor ``training`` may pick at run time: both sides one dtype
        if self._INTEGERS == "keep":
            return in_training(x, training, lambda y: math_ops.cast(self._apply(self._float(y)), y.dtype))
        return in_training(x, training, lambda y: self._apply(self._float(y)))

    def _float(self, x):
        """``x`` in the compute dtype."""
        return x if x.dtype.name == self.compute_dtype else math_ops.cast(x, self.compute_dtype)

    def _images(self, inputs):
        if isinstance(inputs, dict):
            raise ValueError(
                f"tfunc's {type(self).__name__} takes images only, not Keras's dict of images, labels, "
                "bounding boxes or segmentation masks."
            )
        x = convert_to_tensor(inputs)
        if x.shape.rank not in (3, 4):
            raise ValueError(
                "Expected image tensor to have rank 3 (single image) or 4 (batch of images). "
                f"Received: data.shape={x.shape}"
            )
        return x if x.dtype.is_integer else self._float(x)

    def _apply(self, x, generator=None):
        """``_augment`` of ``x`` as a channels-last batch, returned in ``x``'s layout; the draws
        from ``generator`` (a layer holding this one passes its own, as Keras) or the layer's."""
        single = x.shape.rank == 3
        batch = array_ops.expand_dims(x, 0) if single else x
        first = self.data_format == "channels_first"
        if first:
            batch = array_ops.transpose(batch, (0, 2, 3, 1))
        out = self._augment(batch, Draws(generator or self))
        if first:
            out = array_ops.transpose(out, (0, 3, 1, 2))
        return array_ops.squeeze(out, [0]) if single else out

    def _keys(self, *names):
        """Keras's config: the base keys, ``data_format`` and ``names`` (attributes)."""
        return {**super().get_config(), "data_format": self.data_format, **{n: getattr(self, n) for n in names}}

    def compute_output_shape(self, input_shape):
        return input_shape


def grayscale(x):
    """Keras's ``rgb_to_grayscale`` of channels-last ``x``: one channel (one passes through)."""
    if x.shape[-1] == 1:
        return x
    if x.shape[-1] != 3:
        raise ValueError(
            "Invalid channel size: expected 3 (RGB) or 1 (Grayscale). "
            f"Received input with shape: images.shape={x.shape}"
        )
    gray = array_composites.tensordot(x, convert_to_tensor(_LUMA, x.dtype), axes=(-1, -1))
    return array_ops.expand_dims(gray, -1)


def gaussian_blur(x, kernel_size, sigma):
    """Keras's ``gaussian_blur`` (its TensorFlow backend): each channel of channels-last ``x``
    convolved ('SAME', zero padding) with the normalized Gaussian of ``kernel_size`` and
    ``sigma`` (height, width)."""

    def kernel1d(size, s):
        t = creation_ops.range(size, dtype=x.dtype) - (size - 1) / 2
        k = math_ops.exp(-0.5 * (t / s) ** 2)
        return k / reduction_ops.reduce_sum(k)

    kernel = array_composites.tensordot(kernel1d(kernel_size[1], sigma[1]), kernel1d(kernel_size[0], sigma[0]), axes=0)
    kernel = array_ops.tile(array_ops.reshape(kernel, (kernel_size[0], kernel_size[1], 1, 1)), [1, 1, x.shape[-1], 1])
    return nn_ops.depthwise_conv2d(x, kernel, strides=[1, 1, 1, 1], padding="SAME")


class RandomGrayscale(AugmentLayer):
    """Each image turned to grey (kept as 3 equal channels) with probability ``factor``."""

    _INTEGERS = "keep"

    def __init__(self, factor=0.5, data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        if factor < 0 or factor > 1:
            raise ValueError(f"`factor` should be between 0 and 1. Received: factor={factor}")
        self.factor = factor
        self._seed(seed)

    def _augment(self, x, draws):
        apply = draws.uniform(batch_size(x)) < self.factor
        gray = grayscale(x)
        return math_ops.where(array_ops.reshape(apply, [-1, 1, 1, 1]), gray, x)

    def get_config(self):  # Keras writes no seed
        return self._keys("factor")


class RandomHue(AugmentLayer):
    """Each image's hue turned by ``±f / 2`` of a full turn, ``f`` uniform in the factor range
    (in [0, 1]) and the sign a coin."""

    _INTEGERS = "inference"

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.factor = _factor_range(factor, (0, 1))
        self.value_range = value_range
        self._seed(seed)

    def _augment(self, x, draws):
        n = batch_size(x)
        sign = math_ops.where(draws.uniform(n) > 0.5, -1.0, 1.0)
        delta = math_ops.cast(sign * draws.uniform(n, *self.factor) * 0.5, x.dtype)
        return hue_shift(x, array_ops.reshape(delta, [-1, 1, 1]), self.value_range)

    def get_config(self):
        return self._keys("factor", "value_range", "seed")


def hue_shift(x, delta, value_range):
    """``x``'s hue plus ``delta`` (wrapped into [0, 1]), in and out of ``value_range``."""
    hsv = image_ops.rgb_to_hsv(_rescale(x, value_range, (0, 1)))
    h = hsv[..., 0] + delta
    h = math_ops.where(h > 1.0, h - 1.0, h)
    h = math_ops.where(h < 0.0, h + 1.0, h)
    rgb = image_ops.hsv_to_rgb(array_ops.stack([h, hsv[..., 1], hsv[..., 2]], axis=-1))
    return _rescale(math_ops.clip_by_value(rgb, 0.0, 1.0), (0, 1), value_range)


class RandomSaturation(AugmentLayer):
    """Each image's saturation times ``f / (1 - f)``, ``f`` uniform in the factor range (Keras
    reads it in [-1, 1]), clipped to ``value_range`` (the HSV of the images as given, as Keras)."""

    _INTEGERS = "inference"

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.factor = _factor_range(factor, (-1, 1))
        self.value_range = _value_range(value_range)
        self._seed(seed)

    def _augment(self, x, draws):
        f = draws.uniform(batch_size(x), *self.factor)
        f = math_ops.cast(f / (1 - f + _EPSILON), x.dtype)
        return saturate(x, array_ops.reshape(f, [-1, 1, 1]), self.value_range)

    def get_config(self):
        return self._keys("factor", "value_range", "seed")


def saturate(x, factor, value_range):
    hsv = image_ops.rgb_to_hsv(x)
    s = math_ops.clip_by_value(hsv[..., 1] * factor, *value_range)
    return image_ops.hsv_to_rgb(array_ops.stack([hsv[..., 0], s, hsv[..., 2]], axis=-1))


class RandomSharpness(AugmentLayer):
    """Each image moved from its 3x3 smoothing (``[[1 1 1] [1 5 1] [1 1 1]] / 13``, zero padded)
    by ``2 f``, ``f`` uniform in the factor range (in [0, 1]; 0.5 leaves it), clipped to
    ``value_range``."""

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.factor = _factor_range(factor, (0, 1))
        self.value_range = _value_range(value_range)
        self._seed(seed)

    def _augment(self, x, draws):
        f = draws.uniform(batch_size(x), *self.factor)
        return sharpen(x, array_ops.reshape(math_ops.cast(f * 2, x.dtype), [-1, 1, 1, 1]), self.value_range)

    def get_config(self):
        return self._keys("factor", "value_range", "seed")


def sharpen(x, sharpness, value_range):
    a, b = 1.0 / 13.0, 5.0 / 13.0
    kernel = convert_to_tensor([[a, a, a], [a, b, a], [a, a, a]], x.dtype)
    kernel = array_ops.tile(array_ops.reshape(kernel, (3, 3, 1, 1)), [1, 1, x.shape[-1], 1])
    smooth = nn_ops.depthwise_conv2d(x, kernel, strides=[1, 1, 1, 1], padding="SAME")
    return math_ops.clip_by_value(x + (1.0 - sharpness) * (smooth - x), *value_range)


class RandomPosterization(AugmentLayer):
    """Each image cut to ``b`` bits per channel (in [0, 255]), ``b`` a random integer in
    ``[low, high)`` of the factor range in [1, 8] (``high`` if they are equal)."""

    _INTEGERS = "inference"

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.factor = _factor_range(factor, (1, 8))
        self.value_range = _value_range(value_range)
        self._seed(seed)

    def _augment(self, x, draws):
        low, high = self.factor
        n = batch_size(x)
        if low != high:
            bits = math_ops.cast(draws.randint(n, int(low), int(high), dtype="uint8"), D.int32)
        else:
            bits = creation_ops.fill(n, int(low))
        shift = math_ops.cast(array_ops.reshape(8 - bits, [-1, 1, 1, 1]), x.dtype)
        return posterize(x, shift, self.value_range)

    def get_config(self):
        return self._keys("factor", "value_range", "seed")


def posterize(x, shift, value_range):
    """The low ``shift`` bits of the uint8 values cleared (``(v >> s) << s`` in floats: exact)."""
    v = math_ops.cast(math_ops.cast(_rescale(x, value_range, (0, 255)), D.uint8), x.dtype)
    step = math_ops.pow(convert_to_tensor(2.0, x.dtype), shift)
    return _rescale(math_ops.floor(v / step) * step, (0, 255), value_range)


class RandomColorDegeneration(AugmentLayer):
    """Each image moved towards its greyscale by ``f``, uniform in the factor range (Keras
    reads it in [-1, 1]), clipped to ``value_range``."""

    _INTEGERS = "inference"

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.factor = _factor_range(factor, (-1, 1))
        self.value_range = _value_range(value_range)
        self._seed(seed)

    def _augment(self, x, draws):
        f = math_ops.cast(draws.uniform(per_image(batch_size(x)), *self.factor), x.dtype)
        return degenerate(x, f, self.value_range)

    def get_config(self):
        return self._keys("factor", "value_range", "seed")


def degenerate(x, factor, value_range):
    if x.shape[-1] is not None and x.shape[-1] != 3:
        raise ValueError(f"Input images must have 3 channels, but received images with {x.shape[-1]} channels.")
    return math_ops.clip_by_value(x + factor * (grayscale(x) - x), *value_range)


class RandomInvert(AugmentLayer):
    """Each image replaced by ``value_range[1] - x`` with probability ``p``, itself uniform in
    the factor range (in [0, 1])."""

    _INTEGERS = "inference"

    def __init__(self, factor=1.0, value_range=(0, 255), seed=None, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.factor = _factor_range(factor, (0, 1))
        self.value_range = value_range
        self._seed(seed)

    def _augment(self, x, draws):
        n = batch_size(x)
        probability = draws.uniform(n, *self.factor)
        apply = draws.uniform(n) < probability
        return math_ops.where(array_ops.reshape(apply, [-1, 1, 1, 1]), self.value_range[1] - x, x)

    def get_config(self):
        return self._keys("factor", "value_range", "seed")


class RandomGaussianBlur(AugmentLayer):
    """Each image blurred with probability ``p`` (uniform in the factor range), by a Gaussian
    of ``kernel_size`` (odd) and one ``sigma`` pair per call, then clipped to ``value_range``."""

    def __init__(
        self, factor=1.0, kernel_size=3, sigma=1.0, value_range=(0, 255), data_format=None, seed=None, **kwargs
    ):
        super().__init__(data_format=data_format, **kwargs)
        self.factor = _factor_range(factor, (0, 1))
        self.kernel_size = _odd_pair(kernel_size, "kernel_size")
        self.sigma = _named_range(sigma, "sigma", (0, 1))
        self.value_range = value_range
        self._seed(seed)

    def _augment(self, x, draws):
        n = batch_size(x)
        probability = draws.uniform(n, *self.factor)
        apply = draws.uniform(n) < probability
        sigma = draws.uniform([2], *self.sigma, dtype=x.dtype) + 1e-6
        blurred = gaussian_blur(x, self.kernel_size, sigma)
        x = math_ops.where(array_ops.reshape(apply, [-1, 1, 1, 1]), blurred, x)
        return math_ops.clip_by_value(x, self.value_range[0], self.value_range[1])

    def get_config(self):
        return self._keys("factor", "kernel_size", "sigma", "value_range", "seed")


def _odd_pair(value, name):
    """Keras's ``_set_kernel_size``: a pair of odd numbers (a number is both)."""
    if isinstance(value, (tuple, list)):
        if len(value) != 2:
            raise ValueError(
                f"The `{name}` argument should be a number (or a list of two numbers) Received: {name}={value}"
            )
        pair = tuple(value)
    elif isinstance(value, (int, float)):
        pair = (value, value)
    else:
        raise ValueError(f"{name} must be an odd number. Received: {name}={value}")
    if pair[0] % 2 == 0 or pair[1] % 2 == 0:
        raise ValueError(f"{name} must be an odd number. Received: {name}={value}")
    return pair


def _named_range(value, name, bounds):
    """Keras's ``_set_factor_by_name``: ``_set_factor``'s rule with ``name`` in the message."""
    try:
        return _factor_range(value, bounds)
    except ValueError:
        raise ValueError(
            f"The `{name}` argument should be a number (or a list of two numbers) in the range "
            f"[{bounds[0]}, {bounds[1]}]. Received: factor={value}"
        ) from None


class RandomErasing(AugmentLayer):
    """With probability ``p`` (uniform in the factor range), a random box of each image (its
    sides ``sqrt`` of draws in ``scale`` times the image's) filled with ``fill_value`` (Gaussian
    noise times ``value_range[1]`` when None), clipped to ``value_range``."""

    def __init__(
        self,
        factor=1.0,
        scale=(0.02, 0.33),
        fill_value=None,
        value_range=(0, 255),
        seed=None,
        data_format=None,
        **kwargs,
    ):
        super().__init__(data_format=data_format, **kwargs)
        self.factor = _factor_range(factor, (0, 1))
        self.scale = _named_range(scale, "scale", (0, 1))
        ok = fill_value is None or isinstance(fill_value, (int, float))
        if not ok and not (isinstance(fill_value, (tuple, list)) and len(fill_value) == 3):  # Keras: at call time
            raise ValueError("The `fill_value` argument should be a number (or a list of three numbers) ")
        self.fill_value = fill_value
        self.value_range = value_range
        self._seed(seed)

    def _augment(self, x, draws):
        n = batch_size(x)
        sides = math_ops.sqrt(draws.uniform(array_ops.concat([n, [2]], 0), *self.scale, dtype=x.dtype))
        inside = box_mask(draws, x, sides[:, 0], sides[:, 1])
        probability = draws.uniform(n, *self.factor)
        apply = draws.uniform(n) < probability
        if self.fill_value is None:
            fill = draws.normal(array_ops.shape(x), dtype=x.dtype) * self.value_range[1]
        else:
            fill = convert_to_tensor(self.fill_value, x.dtype)
        fill = math_ops.clip_by_value(fill, self.value_range[0], self.value_range[1])
        apply = math_ops.logical_and(inside, array_ops.reshape(apply, [-1, 1, 1, 1]))
        return math_ops.where(apply, fill, x)

    def get_config(self):
        return self._keys("factor", "scale", "fill_value", "value_range", "seed")


def box_mask(draws, x, width_ratio, height_ratio):
    """Keras's random box of each image (``[n, h, w, 1]``, True inside): sides ``ratio`` times
    the image's, its corner uniform where it fits."""
    return box_and_area(draws, x, width_ratio, height_ratio)[0]


def box_and_area(draws, x, width_ratio, height_ratio):
    """:func:`box_mask` and each box's real-valued area ``[n]``, from its corners as Keras
    computes it (``(x1 - x0) * (y1 - y0)``, which float32 rounds differently from the sides)."""
    h, w = float_hw(x)
    n = batch_size(x)
    x0, x1 = _span(draws, n, w, width_ratio, x.dtype)
    y0, y1 = _span(draws, n, h, height_ratio, x.dtype)
    height, width = image_hw(x)
    gx = array_ops.reshape(math_ops.cast(creation_ops.range(width), x.dtype), [1, 1, -1, 1])
    gy = array_ops.reshape(math_ops.cast(creation_ops.range(height), x.dtype), [1, -1, 1, 1])
    area = array_ops.reshape((x1 - x0) * (y1 - y0), [-1])
    return (gx >= x0) & (gx < x1) & (gy >= y0) & (gy < y1), area


def _span(draws, n, length, ratio, dtype):
    size = ratio * length
    start = draws.uniform(n, dtype=dtype) * (length - size)
    return array_ops.reshape(start, [-1, 1, 1, 1]), array_ops.reshape(start + size, [-1, 1, 1, 1])


class RandomColorJitter(AugmentLayer):
    """RandomBrightness, RandomContrast, RandomSaturation and RandomHue in turn, each made from
    its factor (skipped where None), ``value_range`` and ``seed``."""

    _INTEGERS = "inference"

    def __init__(
        self,
        value_range=(0, 255),
        brightness_factor=None,
        contrast_factor=None,
        saturation_factor=None,
        hue_factor=None,
        seed=None,
        data_format=None,
        **kwargs,
    ):
        super().__init__(data_format=data_format, **kwargs)
        self.value_range = value_range
        self.brightness_factor, self.contrast_factor = brightness_factor, contrast_factor
        self.saturation_factor, self.hue_factor = saturation_factor, hue_factor
        self._seed(seed)
        parts = (
            (brightness_factor, RandomBrightness),
            (contrast_factor, RandomContrast),
            (saturation_factor, RandomSaturation),
            (hue_factor, RandomHue),
        )
        # private attributes: the parts are no sublayers of the saved model (Keras's neither)
        self._tfunc_steps = [
            make(factor=f, value_range=value_range, seed=seed, dtype=self.dtype_policy)
            for f, make in parts
            if f is not None
        ]

    def _augment(self, x, draws):
        # each part draws from this layer's generator, as Keras's
        for step in self._tfunc_steps:
            x = step._augment(x, draws) if isinstance(step, AugmentLayer) else step._adjust(x, draws.generator)
        return x

    def get_config(self):
        return self._keys(
            "value_range", "brightness_factor", "contrast_factor", "saturation_factor", "hue_factor", "seed"
        )


def _named_pair(value, name):
    """Solarization's factors: a number ``f`` is ``(0, f)``, each end in [0, 1]."""
    message = (
        "The `addition_factor` and `threshold_factor` arguments should be a number (or a list of two numbers) "
        "in the range [0, 1]. "
    )
    if isinstance(value, (tuple, list)):
        if len(value) != 2:
            raise ValueError(message + f"Received: {name}={value}")
        ends = sorted(value)
    elif isinstance(value, (int, float)):
        ends = [0, value]
    else:
        raise ValueError(message + f"Received: {name}={value}")
    for v in value if isinstance(value, (tuple, list)) else [value]:
        if v > 1.0 or v < 0:
            raise ValueError(message + f"Received: input_number={v}")
    return tuple(ends)


class Solarization(AugmentLayer):
    """In [0, 255]: each image plus ``a`` (uniform in ``[low, high * 255]`` of
    ``addition_factor``), clipped, and inverted (``255 - x``) where not below ``t`` (likewise
    from ``threshold_factor``)."""

    def __init__(self, addition_factor=0.0, threshold_factor=0.0, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(**kwargs)
        self._seed(seed)
        self.addition_factor = _named_pair(addition_factor, "addition_factor")
        self.threshold_factor = _named_pair(threshold_factor, "threshold_factor")
        self.value_range = _value_range(value_range)

    def _augment(self, x, draws):
        shape = per_image(batch_size(x))
        add = draws.uniform(shape, self.addition_factor[0], self.addition_factor[1] * 255, dtype=x.dtype)
        threshold = draws.uniform(shape, self.threshold_factor[0], self.threshold_factor[1] * 255, dtype=x.dtype)
        return solarize(x, add, threshold, self.value_range)

    def get_config(self):
        return self._keys("value_range", "addition_factor", "threshold_factor", "seed")


def solarize(x, add, threshold, value_range):
    y = math_ops.clip_by_value(_rescale(x, value_range, (0, 255)) + add, 0, 255)
    return _rescale(math_ops.where(y < threshold, y, 255 - y), (0, 255), value_range)


class AutoContrast(AugmentLayer):
    """Each image and channel stretched linearly to fill ``value_range`` (left as it is where
    constant), in training and at inference, as Keras."""

    _ALWAYS = True

    def __init__(self, value_range=(0, 255), **kwargs):
        super().__init__(**kwargs)
        self.value_range = _value_range(value_range)

    def _augment(self, x, draws):
        y = _rescale(x, self.value_range, (0, 255))
        # Keras reduces axes 1 and 2 of the images as given: channels and height when
        # channels_first (axes 3 and 1 here)
        axes = [1, 2] if self.data_format == "channels_last" else [1, 3]
        low = reduction_ops.reduce_min(y, axis=axes, keepdims=True)
        high = reduction_ops.reduce_max(y, axis=axes, keepdims=True)
        scale = 255.0 / (high - low)
        y = math_ops.clip_by_value(y * scale - low * scale, 0.0, 255.0)
        y = _rescale(y, (0, 255), self.value_range)
        return math_ops.where(math_ops.is_nan(y), x, y)

    def get_config(self):
        return self._keys("value_range")


class Equalization(AugmentLayer):
    """Histogram equalization of each channel (its histogram of ``bins`` over the whole batch,
    in [0, 255]); a channel with one level is left. The identity with ``training=False``."""

    _INTEGERS = "inference"

    def __init__(self, value_range=(0, 255), bins=256, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.bins = bins
        self.value_range = _value_range(value_range)

    def _augment(self, x, draws):
        channels = [self._equalize(c) for c in array_ops.unstack(x, axis=-1)]
        return array_ops.stack(channels, axis=-1)

    def _equalize(self, channel):
        bins = self.bins
        channel = _scale_values(channel, self.value_range, (0, 255))
        # Keras's histogram: bin int((v - 0) * (bins - 1) / 255), in float32
        scaled = math_ops.cast(channel, D.float32) * (bins - 1) / 255.0
        index = math_ops.clip_by_value(math_ops.cast(scaled, D.int32), 0, bins - 1)
        hist = segment_ops.bincount(array_ops.reshape(index, [-1]), minlength=bins, maxlength=bins)
        cdf = reduction_ops.cumsum(hist)
        # the first nonzero cdf value (the cdf does not decrease)
        cdf_min = reduction_ops.reduce_min(math_ops.where(cdf > 0, cdf, cdf[-1]))
        denominator = cdf[-1] - cdf_min
        denominator = math_ops.where(math_ops.equal(denominator, 0), 1, denominator)
        table = math_ops.cast((cdf - cdf_min) * 255, D.float32) / math_ops.cast(denominator, D.float32)
        table = math_ops.cast(math_ops.clip_by_value(math_ops.round(table), 0, 255), channel.dtype)
        lookup = math_ops.cast(math_ops.clip_by_value(channel / 255.0 * (bins - 1), 0, bins - 1), D.int32)
        levels = reduction_ops.reduce_sum(math_ops.cast(hist > 0, D.int32))
        equalized = math_ops.where(levels <= 1, channel, array_ops.gather(table, lookup))
        return _scale_values(equalized, (0, 255), self.value_range)

    def get_config(self):
        return self._keys("bins", "value_range")


def _scale_values(x, source, target):
    """Equalization's own linear map (Keras's ``_scale_values``: its rounding, always applied)."""
    scale = (target[1] - target[0]) / (source[1] - source[0])
    return x * scale + (target[0] - source[0] * scale)
