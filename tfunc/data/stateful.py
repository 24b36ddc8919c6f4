"""Transformations that carry something from one element to the next: ``scan``,
``take_while`` and ``unique``."""

from __future__ import annotations

from ..core import dtypes as _dtypes
from ..core import nest
from ..core.context import init_scope
from ..function.function import Function, function
from .dataset import (
    UNKNOWN_CARDINALITY,
    _as_structure,
    _callable,
    _check_same_types,
    _holds,
    _spec_of,
    _to_tensors,
    _UnaryDataset,
    register_kind,
)

__all__ = ["ScanDataset", "TakeWhileDataset", "UniqueDataset"]


@register_kind("scan")
class ScanDataset(_UnaryDataset):
    """``scan_func(state, element) -> (new_state, output)``; the outputs are the elements."""

    def __init__(self, input_dataset, initial_state, scan_func):
        super().__init__(input_dataset)
        with init_scope():
            self._initial = _to_tensors(initial_state)
        self._func = _callable(scan_func, "scan_func")

    def _step(self, state, element):
        result = _as_structure(self._func(state, element))
        if not (isinstance(result, tuple) and len(result) == 2):
            raise TypeError(f"`scan_func` must return a pair (new_state, output_element), got {result!r}.")
        new_state, output = (_to_tensors(_as_structure(r)) for r in result)
        _check_same_types(state, new_state)
        return new_state, output

    def _elements(self):
        state = self._initial
        for element in self._input._elements():
            state, output = self._step(state, element)
            yield output

    def _compute_spec(self):
        try:
            fn = self._func if isinstance(self._func, Function) else function(self._func)
            outputs = fn.get_concrete_function(_spec_of(self._initial), self._input.element_spec).structured_outputs
            return _spec_of(_as_structure(_as_structure(outputs)[1]))
        except Exception:  # any failure to trace: the function may still run eagerly
            for element in self._input._elements():
                return _spec_of(self._step(self._initial, element)[1])
            raise


@register_kind("take_while")
class TakeWhileDataset(_UnaryDataset):
    def __init__(self, input_dataset, predicate):
        super().__init__(input_dataset)
        self._predicate = _callable(predicate, "predicate")

    def _elements(self):
        for element in self._input._elements():
            if not _holds(self._predicate, element):
                return
            yield element

    def _cardinality(self):
        return UNKNOWN_CARDINALITY


_UNIQUE_DTYPES = (_dtypes.int32, _dtypes.int64, _dtypes.string)


@register_kind("unique")
class UniqueDataset(_UnaryDataset):
    """Each distinct element once, in order of first appearance."""

    def __init__(self, input_dataset):
        super().__init__(input_dataset)
        spec = input_dataset.element_spec
        flat = nest.flatten(spec)
        if len(flat) != 1 or flat[0].dtype not in _UNIQUE_DTYPES:
            raise TypeError(
                f"Dataset.unique() needs elements of one component of dtype int32, int64 or string, got {spec!r}."
            )

    def _elements(self):
        seen = set()
        for element in self._input._elements():
            value = element._value
            data = tuple(value.ravel().tolist()) if element.dtype.is_string else value.tobytes()
            key = (value.shape, data)
            if key not in seen:
                seen.add(key)
                yield element

    def _cardinality(self):
        return UNKNOWN_CARDINALITY
