"""``tfunc.data.Iterator``: steps through a dataset's elements eagerly."""

from __future__ import annotations

from ..api.dataset_ops import get_next, variant_tensor
from ..core.context import ctx, init_scope
from ..core.errors import OutOfRangeError
from ..function.autograph.operators import stage_dataset_loop
from ..function.trace_type import RuntimeValueType
from .symbolic import SymbolicIterator, count_traced_pull

__all__ = ["Iterator"]


class Iterator:
    """An iterator over a :class:`~tfunc.data.Dataset` (``iter(dataset)``).

    Each element is a nested structure of eager tensors matching
    ``element_spec``.  ``next()`` raises ``StopIteration`` at the end;
    ``get_next()`` raises ``tfunc.errors.OutOfRangeError``, as TensorFlow does.
    Elements are computed eagerly even while a function is being traced.
    """

    def __init__(self, dataset):
        self._dataset = dataset
        with init_scope():
            self._elements = dataset._elements()

    @property
    def element_spec(self):
        return self._dataset.element_spec

    def __iter__(self):
        return self

    def __next__(self):
        if ctx.graph is not None:  # inside a traced function: pull the element at run time
            count_traced_pull(self)
            return get_next(variant_tensor(self), self.element_spec)
        with init_scope():
            return next(self._elements)

    def _ag_staged_for(self, extra_test, body, get_state, set_state, names, opts):
        """``for x in iterator`` in a converted function, on an iterator made outside it: one
        loop node that pulls the remaining elements from this iterator at run time."""
        return stage_dataset_loop(
            variant_tensor(self), self.element_spec, extra_test, body, get_state, set_state, names, opts
        )

    def _tf_runtime_type(self):
        """Passed to a tfunc.function, an iterator is a run-time input typed by its element_spec."""
        return RuntimeValueType("Iterator", self.element_spec, SymbolicIterator)

    def get_next(self, name=None):
        try:
            return self.__next__()
        except StopIteration:
            raise OutOfRangeError(None, None, "End of sequence") from None

    def __repr__(self) -> str:
        return f"<tfunc.data.Iterator element_spec={self._dataset.element_spec!r}>"
