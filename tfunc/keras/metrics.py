"""``tfunc.keras.metrics``: stateful metrics, as Keras 3 defines them.

A metric keeps its state in non-trainable ``tfunc.Variable`` objects and changes it only with
``assign``/``assign_add``, so ``update_state``, ``result`` and ``reset_state`` run eagerly and
inside a ``tfunc.function`` alike (the variables are created at construction, lifted out of any
trace). ``metric(y_true, y_pred)`` updates the state and returns the result.

* reductions: :class:`Mean`, :class:`Sum`, :class:`MeanMetricWrapper` (the mean of a per-sample
  function);
* accuracies: :class:`Accuracy`, :class:`BinaryAccuracy`, :class:`CategoricalAccuracy`,
  :class:`SparseCategoricalAccuracy`, :class:`TopKCategoricalAccuracy`,
  :class:`SparseTopKCategoricalAccuracy`;
* regression and probabilistic: :class:`MeanSquaredError`, :class:`MeanAbsoluteError`,
  :class:`CategoricalCrossentropy`, :class:`SparseCategoricalCrossentropy`,
  :class:`BinaryCrossentropy`;
* confusion-matrix metrics: :class:`Precision`, :class:`Recall`, :class:`AUC`.

:func:`get` resolves names the way ``Model.compile`` needs them (``"mse"``, ``"auc"``,
``"SparseCategoricalAccuracy"``); ``"accuracy"`` is resolved by ``compile`` from the shapes of
the labels and predictions.
"""

from __future__ import annotations

import numpy as np

from ..api import array_ops, creation_ops, math_ops, reduction_ops
from ..api.variables import Variable
from ..core import dtypes as D
from ..core.context import init_scope
from ..eager.convert import convert_to_tensor
from . import initializers as _initializers
from . import losses as _losses
from .dtypes import keras_dtype
from .layers.base import _to_snake_case, unique_layer_name

__all__ = [
    "Metric",
    "Mean",
    "Sum",
    "MeanMetricWrapper",
    "Accuracy",
    "BinaryAccuracy",
    "CategoricalAccuracy",
    "SparseCategoricalAccuracy",
    "TopKCategoricalAccuracy",
    "SparseTopKCategoricalAccuracy",
    "MeanSquaredError",
    "MeanAbsoluteError",
    "MeanAbsolutePercentageError",
    "RootMeanSquaredError",
    "CategoricalCrossentropy",
    "SparseCategoricalCrossentropy",
    "BinaryCrossentropy",
    "Precision",
    "Recall",
    "AUC",
    "accuracy",
    "binary_accuracy",
    "categorical_accuracy",
    "sparse_categorical_accuracy",
    "top_k_categorical_accuracy",
    "sparse_top_k_categorical_accuracy",
    "mean_squared_error",
    "mean_absolute_error",
    "mse",
    "mae",
    "mean_absolute_percentage_error",
    "mape",
    "categorical_crossentropy",
    "sparse_categorical_crossentropy",
    "binary_crossentropy",
    "MeanSquaredLogarithmicError",
    "LogCoshError",
    "Hinge",
    "SquaredHinge",
    "CategoricalHinge",
    "KLDivergence",
    "Poisson",
    "CosineSimilarity",
    "mean_squared_logarithmic_error",
    "msle",
    "log_cosh",
    "huber",
    "hinge",
    "squared_hinge",
    "categorical_hinge",
    "kl_divergence",
    "poisson",
    "cosine_similarity",
    "get",
    "serialize",
    "deserialize",
]

NEG_INF = -1e10


# --- shape helpers (Keras's rules) ------------------------------------------------------------


def _tensor(x, dtype=None):
    t = convert_to_tensor(x.read_value() if isinstance(x, Variable) else x)
    if dtype is not None and t.dtype is not keras_dtype(dtype):
        t = math_ops.cast(t, dtype)
    return t


# Keras's rule for lining up labels and predictions (and values and sample weights).
squeeze_or_expand_to_same_rank = _losses.squeeze_or_expand_to_same_rank


def _div_no_nan(a, b):
    """``a / b``, and 0 where ``b`` is 0."""
    nonzero = math_ops.not_equal(b, 0.0)
    return math_ops.where(nonzero, a / math_ops.where(nonzero, b, math_ops.cast(1.0, b.dtype)), 0.0 * a)


def _reduce_to_samplewise_values(values, sample_weight, reduce_fn, dtype):
    """Weights ``values`` by ``sample_weight`` (aligned as Keras aligns them) and reduces every
    axis but the first; returns ``(values, sample_weight)``."""
    values = _tensor(values, dtype)
    if sample_weight is not None:
        sample_weight = _tensor(sample_weight, dtype)
        values, sample_weight = squeeze_or_expand_to_same_rank(values, sample_weight)
        wn, vn = sample_weight.shape.rank, values.shape.rank
        if vn > wn:
            values = reduce_fn(values, axis=list(range(wn, vn)))
        sample_weight = array_ops.broadcast_to_like(sample_weight, values)
        values = values * sample_weight
        if wn > 1:
            sample_weight = reduce_fn(sample_weight, axis=list(range(1, wn)))
    vn = values.shape.rank
    if vn > 1:
        values = reduce_fn(values, axis=list(range(1, vn)))
    return values, sample_weight


# --- the base class ------------------------------------------------------------------------------


class Metric:
    """Base class: state in variables made with :meth:`add_variable`; subclasses define
    ``update_state(...)`` and ``result()``.

    Metrics are not layers: their variables are not model weights (``model.weights``), they are
    listed by ``model.metrics_variables``.
    """

    def __init__(self, dtype=None, name=None):
        self.name = name if name is not None else unique_layer_name(_to_snake_case(type(self).__name__))
        if not isinstance(self.name, str):
            raise TypeError(f"Metric name must be a string, got {self.name!r}.")
        self._dtype = D.float32 if dtype is None else keras_dtype(dtype)
        self._variables: list = []

    @property
    def dtype(self):
        return self._dtype

    @property
    def variables(self) -> list:
        """The state variables, in creation order."""
        return list(self._variables)

    def add_variable(self, shape, initializer, dtype=None, aggregation="sum", name=None):
        """Creates a non-trainable state variable (outside any function being traced)."""
        shape = tuple(int(d) for d in shape)
        dt = self._dtype if dtype is None else keras_dtype(dtype)
        init = _initializers.get(initializer if initializer is not None else "zeros")
        with init_scope():
            value = convert_to_tensor(init(shape, dtype=dt), dtype=dt)
            var = Variable(value, trainable=False, name=f"{self.name}/{name or 'variable'}", dtype=dt)
        self._variables.append(var)
        return var

    def add_weight(self, name=None, shape=(), initializer="zeros", dtype=None, aggregation="sum"):
        """``add_variable`` with the argument order of Keras 2's ``add_weight``."""
        return self.add_variable(shape, initializer, dtype=dtype, aggregation=aggregation, name=name)

    def update_state(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must implement update_state().")

    def result(self):
        raise NotImplementedError(f"{type(self).__name__} must implement result().")

    def reset_state(self):
        """Sets every state variable back to zero."""
        for v in self.variables:
            v.assign(creation_ops.zeros(v.shape.as_list(), dtype=v.dtype))

    def reset_states(self):
        """Keras 2's name for :meth:`reset_state`."""
        self.reset_state()

    def __call__(self, *args, **kwargs):
        """``update_state(*args, **kwargs)``, then the result."""
        self.update_state(*args, **kwargs)
        return self.result()

    def get_config(self) -> dict:
        return {"name": self.name, "dtype": self._dtype.name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name}>"


# --- reductions ------------------------------------------------------------------------------------


class Sum(Metric):
    """The (weighted) sum of the values seen: ``Sum()([1, 3, 5, 7]) == 16``."""

    def __init__(self, name="sum", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable((), "zeros", name="total")

    def update_state(self, values, sample_weight=None):
        values, _ = _reduce_to_samplewise_values(values, sample_weight, reduction_ops.reduce_sum, self._dtype)
        self.total.assign_add(reduction_ops.reduce_sum(values))

    def result(self):
        return self.total.read_value()


class Mean(Metric):
    """The (weighted) mean of the values seen: ``total / count``, where ``count`` is the number of
    samples (or the sum of the sample weights)."""

    def __init__(self, name="mean", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable((), "zeros", name="total")
        self.count = self.add_variable((), "zeros", name="count")

    def update_state(self, values, sample_weight=None):
        if isinstance(sample_weight, (int, float)) and not isinstance(sample_weight, bool):
            v = _tensor(values, self._dtype)
            if v.shape.rank == 0:
                self.total.assign_add(v * float(sample_weight))
                self.count.assign_add(convert_to_tensor(float(sample_weight), dtype=self._dtype))
                return
        values, sample_weight = _reduce_to_samplewise_values(
            values, sample_weight, reduction_ops.reduce_mean, self._dtype
        )
        self.total.assign_add(reduction_ops.reduce_sum(values))
        if sample_weight is not None:
            n = reduction_ops.reduce_sum(sample_weight)
        elif values.shape.rank:
            n = math_ops.cast(array_ops.shape(values)[0], self._dtype)
        else:
            n = convert_to_tensor(1.0, dtype=self._dtype)
        self.count.assign_add(n)

    def result(self):
        return _div_no_nan(self.total.read_value(), self.count.read_value())


class MeanMetricWrapper(Mean):
    """The mean of ``fn(y_true, y_pred, **kwargs)`` over the samples seen."""

    def __init__(self, fn, name=None, dtype=None, **kwargs):
        super().__init__(name=name if name is not None else getattr(fn, "__name__", "mean"), dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs
        if fn in _LOSS_FUNCTIONS:
            self._direction = "down"
        elif fn in _ACCURACY_FUNCTIONS:  # as Keras' accuracy classes: callbacks in mode "auto" maximize them
            self._direction = "up"

    def update_state(self, y_true, y_pred, sample_weight=None):
        values = self._fn(y_true, y_pred, **self._fn_kwargs)
        return super().update_state(values, sample_weight=sample_weight)

    def get_config(self):
        return dict(super().get_config(), **self._fn_kwargs)


# --- metric functions (one value per sample) ------------------------------------------------------


def accuracy(y_true, y_pred):
    """1.0 where ``y_true == y_pred``, 0.0 elsewhere: one value per element, as in Keras 3 (the
    :class:`Accuracy` metric averages over the other axes of each sample)."""
    y_pred = _tensor(y_pred)
    y_true = _tensor(y_true, y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    return math_ops.cast(math_ops.equal(y_true, y_pred), D.float32)


def binary_accuracy(y_true, y_pred, threshold=0.5):
    """1.0 where ``y_pred > threshold`` equals ``y_true``, 0.0 elsewhere: one value per element,
    as in Keras 3."""
    y_true = _tensor(y_true)
    y_pred = _tensor(y_pred)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    y_pred = math_ops.cast(math_ops.greater(y_pred, math_ops.cast(threshold, y_pred.dtype)), y_true.dtype)
    return math_ops.cast(math_ops.equal(y_true, y_pred), D.float32)


def categorical_accuracy(y_true, y_pred):
    """1.0 where ``argmax(y_true) == argmax(y_pred)`` (one-hot labels)."""
    y_true = reduction_ops.argmax(_tensor(y_true), axis=-1)
    y_pred = _tensor(y_pred)
    reshape_to = None
    if y_true.shape.rank is not None and y_true.shape.rank == y_pred.shape.rank:
        reshape_to = array_ops.shape(y_true)
        y_true = array_ops.squeeze(y_true, axis=[-1])
    y_pred = math_ops.cast(reduction_ops.argmax(y_pred, axis=-1), y_true.dtype)
    matches = math_ops.cast(math_ops.equal(y_true, y_pred), D.float32)
    return array_ops.reshape(matches, reshape_to) if reshape_to is not None else matches


def sparse_categorical_accuracy(y_true, y_pred):
    """1.0 where the integer label ``y_true`` equals ``argmax(y_pred)``; labels of shape ``(n,)``
    or ``(n, 1)``."""
    y_pred = _tensor(y_pred)
    y_true = _tensor(y_true)
    reshape_to = None
    if y_true.shape.rank is not None and y_true.shape.rank == y_pred.shape.rank and y_true.shape[-1] == 1:
        reshape_to = array_ops.shape(y_true)
        y_true = array_ops.squeeze(y_true, axis=[-1])
    y_pred = reduction_ops.argmax(y_pred, axis=-1)
    if y_pred.dtype is not y_true.dtype:
        y_pred = math_ops.cast(y_pred, y_true.dtype)
    matches = math_ops.cast(math_ops.equal(y_true, y_pred), D.float32)
    if reshape_to is not None:
        matches = array_ops.reshape(matches, reshape_to)
    if matches.shape.rank is not None and matches.shape.rank > 1 and matches.shape[-1] == 1:
        matches = array_ops.squeeze(matches, axis=[-1])
    return matches


def _in_top_k(targets, predictions, k):
    """``tf.math.in_top_k``: whether the target class is among the ``k`` largest predictions
    (classes tied with the k-th largest count as in the top k)."""
    depth = predictions.shape[-1]
    if depth is None:
        raise ValueError("top-k accuracy needs a known number of classes (the last axis of y_pred).")
    hot = math_ops.cast(array_ops.one_hot(math_ops.cast(targets, D.int32), depth, dtype=D.int32), D.bool)
    low = convert_to_tensor(np.finfo(predictions.dtype.as_numpy_dtype).min, dtype=predictions.dtype)
    target_value = reduction_ops.reduce_max(math_ops.where(hot, predictions, low), axis=-1, keepdims=True)
    above = reduction_ops.reduce_sum(math_ops.cast(math_ops.greater(predictions, target_value), D.int32), axis=-1)
    return math_ops.less(above, k)


def _top_k_matches(labels, y_pred, k):
    y_pred = _tensor(y_pred)
    if not y_pred.dtype.is_floating:
        y_pred = math_ops.cast(y_pred, D.float32)
    reshape_to = None
    if y_pred.shape.rank is not None and y_pred.shape.rank > 2:
        y_pred = array_ops.reshape(y_pred, [-1, y_pred.shape[-1]])
    if labels.shape.rank is not None and labels.shape.rank > 1:
        reshape_to = array_ops.shape(labels)
        labels = array_ops.reshape(labels, [-1])
    matches = math_ops.cast(_in_top_k(labels, y_pred, k), D.float32)
    return array_ops.reshape(matches, reshape_to) if reshape_to is not None else matches


def top_k_categorical_accuracy(y_true, y_pred, k=5):
    """1.0 where the one-hot label's class is among the top ``k`` predictions."""
    return _top_k_matches(reduction_ops.argmax(_tensor(y_true), axis=-1), y_pred, k)


def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5):
    """1.0 where the integer label is among the top ``k`` predictions."""
    y_true = _tensor(y_true)
    y_pred = _tensor(y_pred)
    if y_true.shape.rank is not None and y_true.shape.rank == y_pred.shape.rank and y_true.shape[-1] == 1:
        y_true = array_ops.squeeze(y_true, axis=[-1])
    return _top_k_matches(y_true, y_pred, k)


def _aligned(fn):
    """A loss function of ``tfunc.keras.losses`` applied after aligning the ranks of labels and
    predictions (as Keras 3's loss functions do)."""

    def aligned(y_true, y_pred, **kwargs):
        y_pred = _tensor(y_pred)
        y_true = _tensor(y_true)
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        return fn(y_true, y_pred, **kwargs)

    aligned.__name__ = fn.__name__
    aligned.__doc__ = fn.__doc__
    return aligned


mean_squared_error = mse = _aligned(_losses.mean_squared_error)
mean_absolute_error = mae = _aligned(_losses.mean_absolute_error)
mean_absolute_percentage_error = mape = _aligned(_losses.mean_absolute_percentage_error)
categorical_crossentropy = _aligned(_losses.categorical_crossentropy)
binary_crossentropy = _aligned(_losses.binary_crossentropy)
sparse_categorical_crossentropy = _losses.sparse_categorical_crossentropy
# as Keras: these line up the ranks themselves (msle, log_cosh, huber) or not at all (the hinges,
# kl_divergence, poisson: their metric classes broadcast (n,) labels against (n, 1) predictions)
mean_squared_logarithmic_error = msle = _losses.mean_squared_logarithmic_error
log_cosh = _losses.log_cosh
huber = _losses.huber
hinge = _losses.hinge
squared_hinge = _losses.squared_hinge
categorical_hinge = _losses.categorical_hinge
kl_divergence = _losses.kl_divergence
poisson = _losses.poisson


def cosine_similarity(y_true, y_pred, axis=-1):
    """``sum(l2_normalize(y_true) * l2_normalize(y_pred), axis)``: the negative of the loss
    :func:`tfunc.keras.losses.cosine_similarity` (1 for vectors pointing the same way)."""
    return -_losses.cosine_similarity(y_true, y_pred, axis=axis)


_LOSS_FUNCTIONS = (
    mean_squared_error,
    mean_absolute_error,
    mean_absolute_percentage_error,
    categorical_crossentropy,
    binary_crossentropy,
    sparse_categorical_crossentropy,
    mean_squared_logarithmic_error,
    log_cosh,
    huber,
    hinge,
    squared_hinge,
    categorical_hinge,
    kl_divergence,
    poisson,
)

_ACCURACY_FUNCTIONS = (
    accuracy,
    binary_accuracy,
    categorical_accuracy,
    sparse_categorical_accuracy,
    top_k_categorical_accuracy,
    sparse_top_k_categorical_accuracy,
)


# --- wrapper classes ------------------------------------------------------------------------------


class Accuracy(MeanMetricWrapper):
    """How often predictions equal labels."""

    def __init__(self, name="accuracy", dtype=None):
        super().__init__(accuracy, name=name, dtype=dtype)
        self._direction = "up"


class BinaryAccuracy(MeanMetricWrapper):
    """How often ``y_pred > threshold`` matches the binary labels."""

    def __init__(self, name="binary_accuracy", dtype=None, threshold=0.5):
        # any threshold, as in Keras 3 (0.0 for logits)
        super().__init__(binary_accuracy, name=name, dtype=dtype, threshold=threshold)
        self.threshold = threshold
        self._direction = "up"


class CategoricalAccuracy(MeanMetricWrapper):
    """How often ``argmax(y_pred)`` matches one-hot labels."""

    def __init__(self, name="categorical_accuracy", dtype=None):
        super().__init__(categorical_accuracy, name=name, dtype=dtype)
        self._direction = "up"


class SparseCategoricalAccuracy(MeanMetricWrapper):
    """How often ``argmax(y_pred)`` matches integer labels."""

    def __init__(self, name="sparse_categorical_accuracy", dtype=None):
        super().__init__(sparse_categorical_accuracy, name=name, dtype=dtype)
        self._direction = "up"


class TopKCategoricalAccuracy(MeanMetricWrapper):
    """How often the one-hot target is among the top ``k`` predictions."""

    def __init__(self, k=5, name="top_k_categorical_accuracy", dtype=None):
        super().__init__(top_k_categorical_accuracy, name=name, dtype=dtype, k=k)
        self.k = k
        self._direction = "up"


class SparseTopKCategoricalAccuracy(MeanMetricWrapper):
    """How often the integer target is among the top ``k`` predictions."""

    def __init__(self, k=5, name="sparse_top_k_categorical_accuracy", dtype=None):
        super().__init__(sparse_top_k_categorical_accuracy, name=name, dtype=dtype, k=k)
        self.k = k
        self._direction = "up"


class MeanSquaredError(MeanMetricWrapper):
    """The mean of ``mean(square(y_true - y_pred), axis=-1)``."""

    def __init__(self, name="mean_squared_error", dtype=None):
        super().__init__(mean_squared_error, name=name, dtype=dtype)
        self._direction = "down"


class MeanAbsoluteError(MeanMetricWrapper):
    """The mean of ``mean(abs(y_true - y_pred), axis=-1)``."""

    def __init__(self, name="mean_absolute_error", dtype=None):
        super().__init__(mean_absolute_error, name=name, dtype=dtype)
        self._direction = "down"


class MeanAbsolutePercentageError(MeanMetricWrapper):
    """The mean of :func:`mean_absolute_percentage_error`."""

    def __init__(self, name="mean_absolute_percentage_error", dtype=None):
        super().__init__(mean_absolute_percentage_error, name=name, dtype=dtype)
        self._direction = "down"


class RootMeanSquaredError(Mean):
    """``sqrt`` of the (weighted) mean of ``square(y_pred - y_true)`` over every element seen."""

    def __init__(self, name="root_mean_squared_error", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self._direction = "down"

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = _tensor(y_true, self._dtype)
        y_pred = _tensor(y_pred, self._dtype)
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        return super().update_state(math_ops.square(y_pred - y_true), sample_weight=sample_weight)

    def result(self):
        return math_ops.sqrt(super().result())


class CategoricalCrossentropy(MeanMetricWrapper):
    """The mean categorical crossentropy (one-hot labels)."""

    def __init__(self, name="categorical_crossentropy", dtype=None, from_logits=False, label_smoothing=0, axis=-1):
        super().__init__(
            categorical_crossentropy,
            name=name,
            dtype=dtype,
            from_logits=from_logits,
            label_smoothing=label_smoothing,
            axis=axis,
        )
        self._direction = "down"


class SparseCategoricalCrossentropy(MeanMetricWrapper):
    """The mean crossentropy with integer labels."""

    def __init__(self, name="sparse_categorical_crossentropy", dtype=None, from_logits=False, axis=-1):
        super().__init__(sparse_categorical_crossentropy, name=name, dtype=dtype, from_logits=from_logits, axis=axis)
        self._direction = "down"


class BinaryCrossentropy(MeanMetricWrapper):
    """The mean binary crossentropy."""

    def __init__(self, name="binary_crossentropy", dtype=None, from_logits=False, label_smoothing=0):
        super().__init__(
            binary_crossentropy, name=name, dtype=dtype, from_logits=from_logits, label_smoothing=label_smoothing
        )
        self._direction = "down"


class _LossMetric(MeanMetricWrapper):
    """The mean of the loss function ``_fn`` (to be minimized); its config is the name and the
    dtype only, as Keras 3.15 writes it."""

    _fn = None

    def __init__(self, name, dtype=None, **kwargs):
        super().__init__(type(self)._fn, name=name, dtype=dtype, **kwargs)
        self._direction = "down"

    def get_config(self):
        return Metric.get_config(self)


class MeanSquaredLogarithmicError(_LossMetric):
    """The mean of :func:`mean_squared_logarithmic_error`."""

    _fn = staticmethod(mean_squared_logarithmic_error)

    def __init__(self, name="mean_squared_logarithmic_error", dtype=None):
        super().__init__(name=name, dtype=dtype)


class LogCoshError(_LossMetric):
    """The mean of :func:`log_cosh`, the logarithm of the hyperbolic cosine of the error."""

    _fn = staticmethod(log_cosh)

    def __init__(self, name="logcosh", dtype=None):
        super().__init__(name=name, dtype=dtype)


class Hinge(_LossMetric):
    """The mean of :func:`hinge`."""

    _fn = staticmethod(hinge)

    def __init__(self, name="hinge", dtype=None):
        super().__init__(name=name, dtype=dtype)


class SquaredHinge(_LossMetric):
    """The mean of :func:`squared_hinge`."""

    _fn = staticmethod(squared_hinge)

    def __init__(self, name="squared_hinge", dtype=None):
        super().__init__(name=name, dtype=dtype)


class CategoricalHinge(_LossMetric):
    """The mean of :func:`categorical_hinge`."""

    _fn = staticmethod(categorical_hinge)

    def __init__(self, name="categorical_hinge", dtype=None):
        super().__init__(name=name, dtype=dtype)


class KLDivergence(_LossMetric):
    """The mean of :func:`kl_divergence`."""

    _fn = staticmethod(kl_divergence)

    def __init__(self, name="kl_divergence", dtype=None):
        super().__init__(name=name, dtype=dtype)


class Poisson(_LossMetric):
    """The mean of :func:`poisson`."""

    _fn = staticmethod(poisson)

    def __init__(self, name="poisson", dtype=None):
        super().__init__(name=name, dtype=dtype)


class CosineSimilarity(_LossMetric):
    """The mean of :func:`cosine_similarity` (to be maximized); ``axis`` is not in the config,
    as in Keras 3.15."""

    _fn = staticmethod(cosine_similarity)

    def __init__(self, name="cosine_similarity", dtype=None, axis=-1):
        super().__init__(name=name, dtype=dtype, axis=axis)
        self._direction = "up"


# --- confusion-matrix metrics -----------------------------------------------------------------------


def _parse_thresholds(thresholds, default):
    if thresholds is None:
        return [float(default)]
    values = [thresholds] if isinstance(thresholds, (int, float)) else list(thresholds)
    bad = [t for t in values if t is None or t < 0 or t > 1]
    if bad:
        raise ValueError(f"Threshold values must be in [0, 1]. Received: {bad}")
    return [float(t) for t in values]


def _filter_top_k(x, k):
    """Keeps the ``k`` largest values of the last axis (ties go to the lower index, as
    ``tf.math.top_k`` picks them) and sets the others to ``NEG_INF``."""
    n = x.shape[-1]
    if n is None:
        raise ValueError("top_k needs a known size of the last axis of y_pred.")
    xi, xj = array_ops.expand_dims(x, -1), array_ops.expand_dims(x, -2)  # [..., i, j]
    earlier = convert_to_tensor(np.tril(np.ones((n, n), dtype=bool), -1))  # j < i
    ahead = math_ops.logical_or(math_ops.greater(xj, xi), math_ops.logical_and(math_ops.equal(xj, xi), earlier))
    rank = reduction_ops.reduce_sum(math_ops.cast(ahead, D.int32), axis=-1)
    return math_ops.where(math_ops.less(rank, k), x, NEG_INF)


def _evenly_distributed(thresholds) -> bool:
    """Keras's ``is_evenly_distributed_thresholds``: at least 3 thresholds, ``i / (n - 1)``."""
    n = len(thresholds)
    if n < 3:
        return False
    even = np.arange(n, dtype=np.float32) / (n - 1)
    return bool(np.allclose(thresholds, even, atol=1e-7))


def _update_confusion_matrix(
    variables,
    y_true,
    y_pred,
    thresholds,
    top_k=None,
    class_id=None,
    sample_weight=None,
    multi_label=False,
    label_weights=None,
):
    """Adds the (weighted) counts of true/false positives/negatives at each threshold to the
    variables in ``variables`` (keys ``"tp"``, ``"fp"``, ``"tn"``, ``"fn"``); a prediction is
    positive where ``y_pred > threshold``. Without ``multi_label`` every label/prediction pair is
    one data point; with it each label (last axis) is counted separately."""
    dtype = next(iter(variables.values())).dtype
    y_true = _tensor(y_true, dtype)
    y_pred = _tensor(y_pred, dtype)
    y_pred, y_true = squeeze_or_expand_to_same_rank(y_pred, y_true)
    if sample_weight is not None:
        sample_weight = array_ops.expand_dims(_tensor(sample_weight, dtype), -1)
        _, sample_weight = squeeze_or_expand_to_same_rank(y_true, sample_weight, expand_rank_1=False)
    if top_k is not None:
        y_pred = _filter_top_k(y_pred, top_k)
    if class_id is not None:
        if y_pred.shape.rank == 1:
            raise ValueError(
                "When class_id is provided, y_pred must be a 2D array with shape (num_samples, num_classes), "
                f"found shape: {y_pred.shape}"
            )
        axis = y_pred.shape.rank - 1
        y_true = array_ops.gather(y_true, [class_id], axis=axis)
        y_pred = array_ops.gather(y_pred, [class_id], axis=axis)
    labels = math_ops.cast(math_ops.not_equal(y_true, 0.0), dtype)
    weights = None
    if sample_weight is not None:
        weights = array_ops.broadcast_to_like(sample_weight, y_pred)
    if label_weights is not None and not multi_label:
        lw = array_ops.broadcast_to_like(_tensor(label_weights, dtype), y_pred)
        weights = lw if weights is None else weights * lw
    thr = convert_to_tensor(np.asarray(thresholds, dtype=dtype.as_numpy_dtype))
    if multi_label:
        preds = array_ops.expand_dims(y_pred, 0)  # (1, N, L)
        labels = array_ops.expand_dims(labels, 0)
        thr = array_ops.reshape(thr, [-1, 1, 1])
        if weights is not None:
            weights = array_ops.expand_dims(weights, 0)
    else:
        preds = array_ops.reshape(y_pred, [1, -1])  # (1, M)
        labels = array_ops.reshape(labels, [1, -1])
        thr = array_ops.reshape(thr, [-1, 1])
        if weights is not None:
            weights = array_ops.reshape(weights, [1, -1])
    positive = math_ops.cast(math_ops.greater(preds, thr), dtype)  # (T, ...)
    negative = 1.0 - positive
    neg_labels = 1.0 - labels
    if weights is not None:
        labels = labels * weights
        neg_labels = neg_labels * weights
    pairs = {"tp": (labels, positive), "fp": (neg_labels, positive), "tn": (neg_labels, negative)}
    pairs["fn"] = (labels, negative)
    for key, var in variables.items():
        lab, pred = pairs[key]
        var.assign_add(reduction_ops.reduce_sum(lab * pred, axis=1))


class _ThresholdRatio(Metric):
    """``true_positives / (true_positives + <other count>)`` at each threshold (a scalar for one
    threshold): Precision counts false positives, Recall false negatives.  ``top_k`` counts only
    the k highest predictions of each sample as positive; ``class_id`` restricts the metric to
    one class."""

    _other = ""  # the count beside the true positives: "false_positives" or "false_negatives"
    _other_key = ""  # its key for _update_confusion_matrix: "fp" or "fn"

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self._direction = "up"
        self.init_thresholds = thresholds
        self.top_k = top_k
        self.class_id = class_id
        self.thresholds = _parse_thresholds(thresholds, 0.5 if top_k is None else NEG_INF)
        n = len(self.thresholds)
        self.true_positives = self.add_variable((n,), "zeros", name="true_positives")
        setattr(self, self._other, self.add_variable((n,), "zeros", name=self._other))

    def update_state(self, y_true, y_pred, sample_weight=None):
        _update_confusion_matrix(
            {"tp": self.true_positives, self._other_key: getattr(self, self._other)},
            y_true,
            y_pred,
            self.thresholds,
            top_k=self.top_k,
            class_id=self.class_id,
            sample_weight=sample_weight,
        )

    def result(self):
        tp = self.true_positives.read_value()
        out = _div_no_nan(tp, tp + getattr(self, self._other).read_value())
        return out[0] if len(self.thresholds) == 1 else out

    def get_config(self):
        return dict(super().get_config(), thresholds=self.init_thresholds, top_k=self.top_k, class_id=self.class_id)


class Precision(_ThresholdRatio):
    """``true_positives / (true_positives + false_positives)`` at each threshold (a scalar for
    one threshold). ``top_k`` counts only the k highest predictions of each sample as positive;
    ``class_id`` restricts the metric to one class."""

    _other, _other_key = "false_positives", "fp"


class Recall(_ThresholdRatio):
    """``true_positives / (true_positives + false_negatives)`` at each threshold (a scalar for one
    threshold); ``top_k`` and ``class_id`` as for :class:`Precision`."""

    _other, _other_key = "false_negatives", "fn"


class AUC(Metric):
    """Area under the ROC curve (``curve="ROC"``) or the precision-recall curve (``"PR"``),
    approximated with a Riemann sum over ``num_thresholds`` thresholds spread evenly over
    ``[0, 1]`` (plus ``-epsilon`` and ``1 + epsilon``), as Keras computes it.

    ``summation_method``: ``"interpolation"`` (trapezoids for ROC; Davis & Goadrich's
    interpolation for PR), ``"minoring"`` or ``"majoring"``. With ``multi_label=True`` the AUC of
    each label (last axis) is computed and averaged (weighted by ``label_weights``).
    ``from_logits=True`` applies a sigmoid to the predictions first."""

    def __init__(
        self,
        num_thresholds=200,
        curve="ROC",
        summation_method="interpolation",
        name=None,
        dtype=None,
        thresholds=None,
        multi_label=False,
        num_labels=None,
        label_weights=None,
        from_logits=False,
    ):
        super().__init__(name=name, dtype=dtype)
        self._direction = "up"
        curve_key = str(curve).upper()
        if curve_key not in ("ROC", "PR"):
            raise ValueError(f'Invalid AUC curve value: "{curve}". Expected values are ["PR", "ROC"]')
        method = str(summation_method).lower()
        if method not in ("interpolation", "majoring", "minoring"):
            raise ValueError(
                f'Invalid AUC summation method value: "{summation_method}". Expected values are '
                '["interpolation", "majoring", "minoring"]'
            )
        self.curve = curve_key
        self.summation_method = method
        self._init_from_thresholds = thresholds is not None
        if thresholds is not None:
            inner = sorted(_parse_thresholds(thresholds, 0.5))
            self.num_thresholds = len(inner) + 2
        else:
            if num_thresholds <= 1:
                raise ValueError(
                    f"Argument `num_thresholds` must be an integer > 1. Received: num_thresholds={num_thresholds}"
                )
            self.num_thresholds = int(num_thresholds)
            inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        eps = 1e-7
        self._thresholds = np.array([0.0 - eps] + inner + [1.0 + eps])
        # Keras buckets the predictions (clipped to [0, 1]) when the thresholds are evenly spread
        self._thresholds_distributed_evenly = thresholds is None or _evenly_distributed([0.0] + inner + [1.0])
        self.multi_label = bool(multi_label)
        self.num_labels = num_labels
        if label_weights is not None:
            lw = np.asarray(label_weights, dtype=self._dtype.as_numpy_dtype)
            if (lw < 0).any():
                raise ValueError("All values of `label_weights` must be non-negative.")
            self.label_weights = lw
        else:
            self.label_weights = None
        self._from_logits = bool(from_logits)
        self._built = False
        if self.multi_label:
            if num_labels:
                self._build(int(num_labels))
        else:
            if num_labels:
                raise ValueError("`num_labels` is needed only when `multi_label` is True.")
            self._build(None)

    @property
    def thresholds(self) -> list:
        return list(self._thresholds)

    def _build(self, num_labels):
        shape = (self.num_thresholds,) if num_labels is None else (self.num_thresholds, num_labels)
        self._num_labels = num_labels
        self.true_positives = self.add_variable(shape, "zeros", name="true_positives")
        self.false_positives = self.add_variable(shape, "zeros", name="false_positives")
        self.true_negatives = self.add_variable(shape, "zeros", name="true_negatives")
        self.false_negatives = self.add_variable(shape, "zeros", name="false_negatives")
        self._built = True

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred = _tensor(y_pred)
        if not self._built:
            if y_pred.shape.rank != 2 or y_pred.shape[1] is None:
                raise ValueError(
                    "`y_pred` must have rank 2 (and a known number of labels) when `multi_label=True`. "
                    f"Full shape received for `y_pred`: {y_pred.shape}"
                )
            self._build(int(y_pred.shape[1]))
        if self._from_logits:
            y_pred = math_ops.sigmoid(math_ops.cast(y_pred, self._dtype))
        if self._thresholds_distributed_evenly:  # as Keras does before bucketing
            y_pred = math_ops.clip_by_value(math_ops.cast(y_pred, self._dtype), 0.0, 1.0)
        _update_confusion_matrix(
            {
                "tp": self.true_positives,
                "tn": self.true_negatives,
                "fp": self.false_positives,
                "fn": self.false_negatives,
            },
            y_true,
            y_pred,
            self._thresholds,
            sample_weight=sample_weight,
            multi_label=self.multi_label,
            label_weights=None if self.multi_label else self.label_weights,
        )

    def _label_average(self, by_label):
        if self.label_weights is None:
            return reduction_ops.reduce_mean(by_label)
        lw = convert_to_tensor(self.label_weights)
        return _div_no_nan(reduction_ops.reduce_sum(by_label * lw), reduction_ops.reduce_sum(lw))

    def _interpolate_pr_auc(self, tp, fp, fn):
        n = self.num_thresholds
        dtp = tp[: n - 1] - tp[1:]
        p = tp + fp
        dp = p[: n - 1] - p[1:]
        prec_slope = _div_no_nan(dtp, math_ops.maximum(dp, 0.0))
        intercept = tp[1:] - prec_slope * p[1:]
        both = math_ops.logical_and(math_ops.greater(p[: n - 1], 0.0), math_ops.greater(p[1:], 0.0))
        safe_p_ratio = math_ops.where(
            both, _div_no_nan(p[: n - 1], math_ops.maximum(p[1:], 0.0)), creation_ops.ones_like(p[1:])
        )
        increment = _div_no_nan(
            prec_slope * (dtp + intercept * math_ops.log(safe_p_ratio)), math_ops.maximum(tp[1:] + fn[1:], 0.0)
        )
        if self.multi_label:
            return self._label_average(reduction_ops.reduce_sum(increment, axis=0))
        return reduction_ops.reduce_sum(increment)

    def result(self):
        tp = self.true_positives.read_value()
        fp = self.false_positives.read_value()
        tn = self.true_negatives.read_value()
        fn = self.false_negatives.read_value()
        if self.curve == "PR" and self.summation_method == "interpolation":
            return self._interpolate_pr_auc(tp, fp, fn)
        recall = _div_no_nan(tp, tp + fn)
        if self.curve == "ROC":
            x, y = _div_no_nan(fp, fp + tn), recall
        else:
            x, y = recall, _div_no_nan(tp, tp + fp)
        n = self.num_thresholds
        if self.summation_method == "interpolation":
            heights = (y[: n - 1] + y[1:]) / 2.0
        elif self.summation_method == "minoring":
            heights = math_ops.minimum(y[: n - 1], y[1:])
        else:
            heights = math_ops.maximum(y[: n - 1], y[1:])
        terms = (x[: n - 1] - x[1:]) * heights
        if self.multi_label:
            return self._label_average(reduction_ops.reduce_sum(terms, axis=0))
        return reduction_ops.reduce_sum(terms)

    def reset_state(self):
        if self._built:
            super().reset_state()

    def get_config(self):
        config = dict(
            super().get_config(),
            num_thresholds=self.num_thresholds,
            curve=self.curve,
            summation_method=self.summation_method,
            multi_label=self.multi_label,
            num_labels=self.num_labels,
            label_weights=None if self.label_weights is None else self.label_weights.tolist(),
            from_logits=self._from_logits,
        )
        if self._init_from_thresholds:
            config["thresholds"] = self.thresholds[1:-1]
        return config


# --- lookup ----------------------------------------------------------------------------------------

_CLASSES = (
    Mean,
    Sum,
    Accuracy,
    BinaryAccuracy,
    CategoricalAccuracy,
    SparseCategoricalAccuracy,
    TopKCategoricalAccuracy,
    SparseTopKCategoricalAccuracy,
    MeanSquaredError,
    MeanAbsoluteError,
    MeanAbsolutePercentageError,
    RootMeanSquaredError,
    CategoricalCrossentropy,
    SparseCategoricalCrossentropy,
    BinaryCrossentropy,
    MeanSquaredLogarithmicError,
    LogCoshError,
    Hinge,
    SquaredHinge,
    CategoricalHinge,
    KLDivergence,
    Poisson,
    CosineSimilarity,
    Precision,
    Recall,
    AUC,
)
_FUNCTIONS = {
    "accuracy": accuracy,
    "binary_accuracy": binary_accuracy,
    "categorical_accuracy": categorical_accuracy,
    "sparse_categorical_accuracy": sparse_categorical_accuracy,
    "top_k_categorical_accuracy": top_k_categorical_accuracy,
    "sparse_top_k_categorical_accuracy": sparse_top_k_categorical_accuracy,
    "mean_squared_error": mean_squared_error,
    "mse": mean_squared_error,
    "MSE": mean_squared_error,
    "mean_absolute_error": mean_absolute_error,
    "mae": mean_absolute_error,
    "MAE": mean_absolute_error,
    "mean_absolute_percentage_error": mean_absolute_percentage_error,
    "mape": mean_absolute_percentage_error,
    "MAPE": mean_absolute_percentage_error,
    "categorical_crossentropy": categorical_crossentropy,
    "sparse_categorical_crossentropy": sparse_categorical_crossentropy,
    "binary_crossentropy": binary_crossentropy,
}
_BY_CLASS_NAME = {c.__name__: c for c in _CLASSES}
_BY_SNAKE_NAME = {_to_snake_case(c.__name__): c for c in _CLASSES}
_BY_SNAKE_NAME.update(msle=MeanSquaredLogarithmicError, MSLE=MeanSquaredLogarithmicError)  # Keras's aliases


def get(identifier):
    """A metric from a name, a config dict, a Metric, or a callable ``fn(y_true, y_pred)``.

    Function names (``"mse"``, ``"binary_accuracy"``) give the function; class names in either
    spelling (``"AUC"``/``"auc"``, ``"Precision"``/``"precision"``) give a new instance."""
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        fn = _FUNCTIONS.get(identifier)
        if fn is not None:
            return fn
        cls = _BY_CLASS_NAME.get(identifier) or _BY_SNAKE_NAME.get(identifier)
        if cls is not None:
            return cls()
        raise ValueError(f"Could not interpret metric identifier: {identifier}")
    if isinstance(identifier, type) and issubclass(identifier, Metric):
        return identifier()
    if isinstance(identifier, Metric) or callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret metric identifier: {identifier}")


def serialize(metric) -> dict:
    """``{"class_name": ..., "config": ...}`` of a Metric."""
    return {"class_name": type(metric).__name__, "config": metric.get_config()}


def deserialize(config):
    """A Metric from :func:`serialize`'s output."""
    cls = _BY_CLASS_NAME.get(config.get("class_name"))
    if cls is None:
        raise ValueError(f"Could not interpret metric identifier: {config!r}")
    return cls.from_config(config.get("config", {}))
