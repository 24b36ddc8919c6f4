"""What ``Model.compile`` builds from its ``loss`` and ``metrics`` arguments.

:class:`CompileLoss` resolves the loss of each model output (names, functions or Loss objects;
one loss for every output, a list in output order or a dict by output name), checks that the
labels fit the predictions, and sums the weighted losses. :class:`CompileMetrics` resolves the
metrics of each output (``"accuracy"`` becomes binary, sparse categorical or categorical
accuracy from the shapes of the labels and predictions, as Keras decides) and reports them by
name. Both are built on the first batch, when the shapes are known.
"""

from __future__ import annotations

from ...api import array_ops, math_composites, math_ops, reduction_ops
from ...api.variables import Variable
from ...core import dtypes as D
from ...core import nest
from ...eager.convert import convert_to_tensor
from ...eager.tensor import EagerTensor, Tensor
from .. import losses as losses_module
from .. import metrics as metrics_module
from ..layers import base as base_layer

__all__ = ["CompileLoss", "CompileMetrics", "MetricsList", "get_loss", "get_metric"]


def _name_of(obj) -> str:
    name = getattr(obj, "name", None)
    if isinstance(name, str):
        return name
    name = getattr(obj, "__name__", None)
    if isinstance(name, str):
        return name
    return metrics_module._to_snake_case(type(obj).__name__)


def is_binary_or_sparse_categorical(y_true, y_pred):
    t_rank, p_rank = y_true.shape.rank, y_pred.shape.rank
    t_last = y_true.shape[-1] if t_rank else None
    p_last = y_pred.shape[-1] if p_rank else None
    is_binary = p_last == 1
    is_sparse = (t_rank is not None and p_rank is not None and t_rank < p_rank) or (
        t_last == 1 and p_last is not None and p_last > 1
    )
    return is_binary, is_sparse


# --- losses ----------------------------------------------------------------------------------------


class LossFunctionWrapper(losses_module.Loss):
    """A loss function ``fn(y_true, y_pred)`` (one value per sample) as a Loss object (mean over
    the batch after ``sample_weight``); labels and predictions are first aligned in rank."""

    def __init__(self, fn, name=None, reduction="sum_over_batch_size", **kwargs):
        super().__init__(reduction=reduction, name=name or _name_of(fn))
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true, y_pred):
        return self.fn(y_true, y_pred, **self._fn_kwargs)


_SPARSE_LOSSES = (losses_module.sparse_categorical_crossentropy, losses_module.SparseCategoricalCrossentropy)
_DENSE_LOSSES = (
    losses_module.categorical_crossentropy,
    losses_module.binary_crossentropy,
    losses_module.mean_squared_error,
    losses_module.mean_absolute_error,
    losses_module.CategoricalCrossentropy,
    losses_module.BinaryCrossentropy,
    losses_module.MeanSquaredError,
    losses_module.MeanAbsoluteError,
)
_CATEGORICAL_LOSSES = (losses_module.categorical_crossentropy, losses_module.CategoricalCrossentropy)


def _loss_kind(loss) -> str | None:
    fn = loss.fn if isinstance(loss, LossFunctionWrapper) else loss
    for kind, known in (("sparse", _SPARSE_LOSSES), ("dense", _DENSE_LOSSES)):
        for k in known:
            if fn is k or (isinstance(k, type) and isinstance(fn, k)):
                return kind
    return None


def _is_categorical(loss) -> bool:
    fn = loss.fn if isinstance(loss, LossFunctionWrapper) else loss
    return any(fn is k or (isinstance(k, type) and isinstance(fn, k)) for k in _CATEGORICAL_LOSSES)


def _shape_str(shape) -> str:
    dims = shape.as_list() if shape.rank is not None else None
    if dims is None:
        return "<unknown>"
    return "(" + ", ".join(str(d) for d in dims) + ("," if len(dims) == 1 else "") + ")"


def check_label_shapes(loss, y_true, y_pred, loss_name) -> None:
    """A ValueError naming the loss and both shapes when the labels cannot be what a built-in
    loss expects: integer class labels for ``sparse_*`` losses, one-hot labels of the predictions'
    shape for categorical crossentropy, shapes that broadcast against the predictions for the
    elementwise losses (mse, mae, binary crossentropy)."""
    kind = _loss_kind(loss)
    t, p = y_true.shape, y_pred.shape
    if kind is None or t.rank is None or p.rank is None:
        return
    td, pd = t.as_list(), p.as_list()

    def clash(a, b):
        return a is not None and b is not None and a != b

    if kind == "sparse":
        if p.rank == 0:
            return
        ok_rank = t.rank == p.rank - 1 or (t.rank == p.rank and td[-1] in (1, None))
        batch_clash = any(clash(a, b) for a, b in zip(td[: p.rank - 1], pd[: p.rank - 1]))
        if ok_rank and not batch_clash:
            return
        hint = ""
        if t.rank == p.rank and td[-1] == pd[-1]:
            hint = (
                " The labels look one-hot encoded: use loss='categorical_crossentropy' for one-hot labels, "
                "or pass integer class indices."
            )
        raise ValueError(
            f"Loss {loss_name!r} expects integer class labels of shape {_shape_str(p[:-1])} (or with a "
            f"trailing 1) for predictions of shape {_shape_str(p)}, but the labels (y_true) have shape "
            f"{_shape_str(t)}.{hint}"
        )
    y_true, y_pred = metrics_module.squeeze_or_expand_to_same_rank(y_true, y_pred)
    t, p = y_true.shape, y_pred.shape
    td, pd = t.as_list(), p.as_list()
    if _is_categorical(loss):
        if t.rank == p.rank and not any(clash(a, b) for a, b in zip(td, pd)):
            return
    else:  # elementwise losses broadcast labels against predictions
        if not any(clash(a, b) and a != 1 and b != 1 for a, b in zip(reversed(td), reversed(pd))):
            return
    hint = ""
    if _is_categorical(loss) and (t.rank < p.rank or (td and td[-1] == 1)):
        hint = (
            " The labels look like integer class indices: use loss='sparse_categorical_crossentropy', or "
            "one-hot encode them with keras.utils.to_categorical."
        )
    raise ValueError(
        f"Loss {loss_name!r} expects labels (y_true) shaped like the predictions (y_pred): "
        f"got labels of shape {_shape_str(t)} and predictions of shape {_shape_str(p)}.{hint}"
    )


def resolve_loss_identifier(identifier):
    """The loss for a name (checked at ``compile`` time), a function or a Loss object; the
    shape-dependent names ``"crossentropy"``/``"ce"`` stay as they are until the first batch."""
    if identifier is None or isinstance(identifier, losses_module.Loss):
        return identifier
    if isinstance(identifier, str):
        if identifier.lower() in ("crossentropy", "ce"):
            return identifier
        losses_module.get(identifier)
        return identifier
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret loss identifier: {identifier!r}")


def get_loss(identifier, y_true, y_pred):
    """A Loss object for ``identifier``; ``"crossentropy"`` picks binary, sparse or categorical
    crossentropy from the shapes, as Keras does."""
    if identifier is None:
        return None
    if isinstance(identifier, str) and identifier.lower() in ("crossentropy", "ce"):
        is_binary, is_sparse = is_binary_or_sparse_categorical(y_true, y_pred)
        if is_binary:
            obj = losses_module.binary_crossentropy
        elif is_sparse:
            obj = losses_module.sparse_categorical_crossentropy
        else:
            obj = losses_module.categorical_crossentropy
    else:
        obj = losses_module.get(identifier)
    if not isinstance(obj, losses_module.Loss):
        name = identifier if isinstance(identifier, str) else _name_of(obj)
        obj = LossFunctionWrapper(obj, name=name)
    return obj


def _flat_outputs(y_pred, output_names):
    """``(names, values)`` of the model outputs in their canonical order."""
    if isinstance(y_pred, dict):
        keys = [k for k in (output_names or []) if k in y_pred] or sorted(y_pred)
        return keys, [y_pred[k] for k in keys]
    if isinstance(y_pred, (list, tuple)):
        names = list(output_names) if output_names and len(output_names) == len(y_pred) else [None] * len(y_pred)
        return names, list(y_pred)
    names = list(output_names) if output_names and len(output_names) == 1 else [None]
    return names, [y_pred]


def _struct(x) -> str:
    return str(nest.map_structure(lambda _: "*", x))


def _flat_targets(y_true, y_pred, names):
    """The labels (or sample weights) for each flattened output, matched by position or name."""
    n = len(names)
    if isinstance(y_true, dict):
        if isinstance(y_pred, dict) or all(name is not None for name in names):
            missing = [k for k in names if k not in y_true]
            if not missing:
                return [y_true[k] for k in names]
        raise ValueError(
            "y_true and y_pred have different structures.\n"
            f"y_true: {_struct(y_true)}\ny_pred: {_struct(y_pred)}\n(outputs: {names})"
        )
    if isinstance(y_true, (list, tuple)) and not (n == 1 and not isinstance(y_pred, (list, tuple, dict))):
        if len(y_true) != n:
            raise ValueError(
                f"y_true and y_pred have different structures.\ny_true: {_struct(y_true)}\ny_pred: {_struct(y_pred)}\n"
            )
        return list(y_true)
    if n == 1:
        return [y_true]
    raise ValueError(
        f"y_true and y_pred have different structures.\ny_true: {_struct(y_true)}\ny_pred: {_struct(y_pred)}\n"
    )


def _per_output(spec, names, what):
    """Spreads ``spec`` (one value for all outputs, a list in output order, or a dict by name)
    over the outputs."""
    n = len(names)
    if isinstance(spec, dict):
        if n == 1 and names[0] is None and len(spec) == 1:
            return list(spec.values())
        unknown = [k for k in spec if k not in names]
        if unknown:
            raise ValueError(f"Expected keys {names} in {what} dict, but found {what}.keys()={list(spec)}")
        return [spec.get(k) for k in names]
    if isinstance(spec, (list, tuple)):
        if n == 1 and len(spec) == 1:
            return list(spec)
        if len(spec) != n:
            raise ValueError(
                f"For a model with {n} output(s), when providing the `{what}` argument as a list, it should "
                f"have as many entries as the model has outputs. Received: {what}={spec} of length {len(spec)}."
            )
        return list(spec)
    return [spec] * n


class CompileLoss:
    """The total loss of a compiled model: ``sum(weight_i * loss_i(y_true_i, y_pred_i))``."""

    def __init__(self, loss, loss_weights=None, output_names=None):
        if loss_weights is not None and not isinstance(loss_weights, (list, tuple, dict, float, int)):
            raise ValueError(
                "Expected `loss_weights` argument to be a float (single output case) or a list, tuple, or "
                f"dict (multiple output case). Received instead: loss_weights={loss_weights} of type "
                f"{type(loss_weights)}"
            )
        for ident in nest.flatten(loss) if isinstance(loss, (list, tuple, dict)) else [loss]:
            resolve_loss_identifier(ident)
        self._user_loss = loss
        self._user_loss_weights = loss_weights
        self.output_names = output_names
        self.built = False
        self._flat_losses: list = []  # (output index, Loss, weight, name)
        self.metrics: list = []

    def build(self, y_true, y_pred):
        names, preds = _flat_outputs(y_pred, self.output_names)
        trues = _flat_targets(y_true, y_pred, names)
        losses = _per_output(self._user_loss, names, "loss")
        weights = (
            [None] * len(names)
            if self._user_loss_weights is None
            else _per_output(self._user_loss_weights, names, "loss_weights")
        )
        self._flat_losses = []
        for i, (name, ident, weight, yt, yp) in enumerate(zip(names, losses, weights, trues, preds)):
            if ident is None:
                continue
            obj = get_loss(ident, _tensor_like(yt), _tensor_like(yp))
            label = name if name is not None else (obj.name or _name_of(obj))
            self._flat_losses.append((i, obj, weight, label))
        if not self._flat_losses:
            raise ValueError("No loss to compute: every output's loss is None.")
        if len(self._flat_losses) > 1:
            self.metrics = [metrics_module.Mean(name=f"{label}_loss") for _, _, _, label in self._flat_losses]
        self.built = True

    def __call__(self, y_true, y_pred, sample_weight=None):
        if not self.built:
            self.build(y_true, y_pred)
        names, preds = _flat_outputs(y_pred, self.output_names)
        trues = _flat_targets(y_true, y_pred, names)
        weights = None
        if sample_weight is not None:
            weights = (
                _flat_targets(sample_weight, y_pred, names)
                if isinstance(sample_weight, (list, tuple, dict))
                else [sample_weight] * len(names)
            )
        total = None
        for k, (i, loss, weight, label) in enumerate(self._flat_losses):
            yt, yp = _tensor_like(trues[i]), _tensor_like(preds[i])
            if yt is None:
                raise ValueError(
                    f"The model was compiled with a loss for output {label!r}, but no labels (y) were given for it."
                )
            check_label_shapes(loss, yt, yp, loss.name or label)
            sw = None if weights is None else weights[i]
            mask = _prediction_mask(yp)
            if mask is not None:  # Keras's Loss.__call__ weighs the samples by the prediction's mask
                sw = _apply_mask(sw, mask, yp.dtype, loss.reduction)
            if _loss_kind(loss) == "dense" or isinstance(loss, LossFunctionWrapper):
                yt, yp = metrics_module.squeeze_or_expand_to_same_rank(yt, yp)
            value = loss(yt, yp, sw)
            value = math_ops.cast(value, D.float32) if value.dtype is not D.float32 else value
            if self.metrics:
                # Keras weighs a batch's value by its static batch size, which its traced steps
                # never know (tf.data's batch dimension is None): traced, a per-output loss is
                # the plain mean of the batches' values; run eagerly, the batch-weighted mean
                batch = yp.shape[0] if isinstance(yp, EagerTensor) and yp.shape.rank else None
                self.metrics[k].update_state(value, sample_weight=batch)
            if weight is not None:
                value = value * float(weight)
            total = value if total is None else total + value
        return total


def _tensor_like(x):
    """Labels and predictions as tensors (NumPy arrays and Python lists are converted)."""
    if x is None or isinstance(x, Tensor):
        return x
    if isinstance(x, Variable):
        return x.read_value()
    return convert_to_tensor(x)


# --- metrics ---------------------------------------------------------------------------------------


def resolve_metric_identifier(identifier) -> None:
    """Checks a metric identifier at ``compile`` time (names are looked up now)."""
    if identifier is None or isinstance(identifier, metrics_module.Metric):
        return
    if isinstance(identifier, str):
        if identifier.lower() in ("accuracy", "acc", "crossentropy", "ce"):
            return
        metrics_module.get(identifier)
        return
    if callable(identifier):
        return
    raise ValueError(f"Could not interpret metric identifier: {identifier}")


def get_metric(identifier, y_true, y_pred):
    """A Metric for ``identifier``, named as Keras names it (the string given, or the object's
    name)."""
    if identifier is None:
        return None
    if isinstance(identifier, str) and identifier.lower() in ("accuracy", "acc"):
        is_binary, is_sparse = is_binary_or_sparse_categorical(y_true, y_pred)
        if is_binary:
            obj = metrics_module.BinaryAccuracy(name=identifier)
        elif is_sparse:
            obj = metrics_module.SparseCategoricalAccuracy(name=identifier)
        else:
            obj = metrics_module.CategoricalAccuracy(name=identifier)
    elif isinstance(identifier, str) and identifier.lower() in ("crossentropy", "ce"):
        is_binary, is_sparse = is_binary_or_sparse_categorical(y_true, y_pred)
        if is_binary:
            obj = metrics_module.binary_crossentropy
        elif is_sparse:
            obj = metrics_module.sparse_categorical_crossentropy
        else:
            obj = metrics_module.categorical_crossentropy
    else:
        obj = metrics_module.get(identifier)
    name = identifier if isinstance(identifier, str) else _name_of(obj)
    if not isinstance(obj, metrics_module.Metric):
        obj = metrics_module.MeanMetricWrapper(obj, name=name)
    obj.name = name
    return obj


def _prediction_mask(y_pred):
    """The Keras mask a prediction carries (``Embedding(mask_zero=True)`` or ``Masking``
    upstream, with ``return_sequences``), or None; one truth test when no mask exists."""
    return base_layer.get_keras_mask(y_pred) if base_layer._masks else None


def _apply_mask(sample_weight, mask, dtype, reduction):
    """Keras's ``apply_mask``: the prediction's mask folded into the sample weights. For a mean
    reduction the kept entries weigh ``total / kept``, so the mean runs over the kept ones only."""
    if reduction in (losses_module.Reduction.MEAN, losses_module.Reduction.SUM_OVER_BATCH_SIZE, "auto"):
        total = math_ops.cast(array_ops.size(mask), dtype)
        kept = reduction_ops.reduce_sum(math_ops.cast(mask, dtype))
        weight = math_composites.divide_no_nan(total, kept)
        float_mask = math_ops.where(math_ops.cast(mask, D.bool), weight, math_ops.cast(0.0, dtype))
    else:
        float_mask = math_ops.cast(mask, dtype)
    if sample_weight is None:
        return float_mask
    sample_weight = math_ops.cast(convert_to_tensor(sample_weight), dtype)
    float_mask, sample_weight = losses_module.squeeze_or_expand_to_same_rank(float_mask, sample_weight)
    return sample_weight * float_mask


class MetricsList(metrics_module.Metric):
    """The metrics of one output."""

    def __init__(self, metrics, name="metrics_list", output_name=None):
        super().__init__(name=name)
        self.metrics = metrics
        self.output_name = output_name

    @property
    def variables(self):
        return [v for m in self.metrics for v in m.variables]

    def update_state(self, y_true, y_pred, sample_weight=None):
        mask = _prediction_mask(y_pred)
        for m in self.metrics:
            weight = sample_weight
            if mask is not None and isinstance(m, metrics_module.MeanMetricWrapper):
                weight = _apply_mask(sample_weight, mask, m.dtype, "sum")  # as Keras's MeanMetricWrapper
            m.update_state(y_true, y_pred, sample_weight=weight)

    def reset_state(self):
        for m in self.metrics:
            m.reset_state()

    def result(self):
        return {m.name: m.result() for m in self.metrics}


class CompileMetrics(metrics_module.Metric):
    """The ``metrics`` and ``weighted_metrics`` of ``compile``: a metric whose result is a dict of
    metric name to value (prefixed by the output name for models with several outputs)."""

    def __init__(self, metrics, weighted_metrics, output_names=None):
        super().__init__(name="compile_metrics")
        for arg, value in (("metrics", metrics), ("weighted_metrics", weighted_metrics)):
            if value and not isinstance(value, (list, tuple, dict)):
                raise ValueError(
                    f"Expected `{arg}` argument to be a list, tuple, or dict. Received instead: {arg}={value} of "
                    f"type {type(value)}"
                )
            for ident in nest.flatten(value) if value else []:
                resolve_metric_identifier(ident)
        self._user_metrics = metrics
        self._user_weighted_metrics = weighted_metrics
        self.output_names = output_names
        self.built = False
        self._flat_metrics: list = []
        self._flat_weighted_metrics: list = []

    @property
    def metrics(self) -> list:
        if not self.built:
            return []
        return [m for mls in self._flat_metrics + self._flat_weighted_metrics if mls for m in mls.metrics]

    @property
    def variables(self) -> list:
        return [v for m in self.metrics for v in m.variables]

    def _build_set(self, spec, names, trues, preds, argument_name):
        n = len(names)
        if not spec:
            return [None] * n
        if n == 1:
            entries = nest.flatten(spec) if isinstance(spec, dict) else list(spec)
            return [MetricsList([get_metric(m, trues[0], preds[0]) for m in entries if m is not None])]
        per = _per_output(spec, names, argument_name)
        out = []
        for name, entry, yt, yp in zip(names, per, trues, preds):
            if entry is None:
                out.append(None)
                continue
            entries = entry if isinstance(entry, (list, tuple)) else [entry]
            out.append(MetricsList([get_metric(m, yt, yp) for m in entries if m is not None], output_name=name))
        return out

    def build(self, y_true, y_pred):
        names, preds = _flat_outputs(y_pred, self.output_names)
        trues = [_tensor_like(t) for t in _flat_targets(y_true, y_pred, names)]
        preds = [_tensor_like(p) for p in preds]
        self._flat_metrics = self._build_set(self._user_metrics, names, trues, preds, "metrics")
        self._flat_weighted_metrics = self._build_set(
            self._user_weighted_metrics, names, trues, preds, "weighted_metrics"
        )
        self.built = True

    def update_state(self, y_true, y_pred, sample_weight=None):
        if not self.built:
            self.build(y_true, y_pred)
        names, preds = _flat_outputs(y_pred, self.output_names)
        trues = _flat_targets(y_true, y_pred, names)
        for mls, yt, yp in zip(self._flat_metrics, trues, preds):
            if mls:
                mls.update_state(yt, yp)
        if sample_weight is None:
            weights = [None] * len(names)
        elif isinstance(sample_weight, (list, tuple, dict)):
            weights = _flat_targets(sample_weight, y_pred, names)
        else:
            weights = [sample_weight] * len(names)
        for mls, yt, yp, sw in zip(self._flat_weighted_metrics, trues, preds, weights):
            if mls:
                mls.update_state(yt, yp, sw)

    def reset_state(self):
        for m in self.metrics:
            m.reset_state()

    def result(self):
        if not self.built:
            raise ValueError("Cannot get result() since the metric has not yet been built.")
        results: dict = {}
        counters: dict = {}
        for mls in self._flat_metrics:
            if not mls:
                continue
            for m in mls.metrics:
                name = f"{mls.output_name}_{m.name}" if mls.output_name else m.name
                if name in counters:
                    counters[name] += 1
                    name = f"{name}_{counters[name] - 1}"
                else:
                    counters[name] = 1
                results[name] = m.result()
        for mls in self._flat_weighted_metrics:
            if not mls:
                continue
            for m in mls.metrics:
                name = f"{mls.output_name}_{m.name}" if mls.output_name else m.name
                if name in counters:
                    name = f"weighted_{m.name}"
                    if mls.output_name:
                        name = f"{mls.output_name}_{name}"
                    if name in counters:
                        counters[name] += 1
                        name = f"{name}_{counters[name] - 1}"
                    else:
                        counters[name] = 1
                else:
                    counters[name] = 1
                results[name] = m.result()
        return results
