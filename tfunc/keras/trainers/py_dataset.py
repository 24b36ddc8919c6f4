"""Keras's ``PyDataset`` (``keras.utils.PyDataset``, also ``Sequence``): batches produced by
index.  ``fit``/``evaluate``/``predict`` read it through
:class:`~tfunc.keras.trainers.data_adapters.PyDatasetAdapter`, which calls the epoch hooks and
reshuffles the batch order as Keras does."""

from __future__ import annotations

import itertools

__all__ = ["PyDataset", "Sequence"]


class PyDataset:
    """A subclass defines ``__getitem__(index)`` (one batch: ``x``, ``(x, y)`` or ``(x, y,
    sample_weight)``) and ``__len__`` (the number of batches) or a ``num_batches`` property (None:
    endless), and may define ``on_epoch_begin``/``on_epoch_end``.

    With ``workers > 1`` up to ``max_queue_size`` batches are loaded ahead by that many threads
    and handed on in index order, so training sees the same batches as with one worker.
    ``use_multiprocessing=True`` runs the workers as threads too (tfunc has no worker processes):
    the results are Keras's for a ``__getitem__`` whose effects stay inside the batch it returns."""

    def __init__(self, workers=1, use_multiprocessing=False, max_queue_size=10):
        self._workers = workers
        self._use_multiprocessing = use_multiprocessing
        self._max_queue_size = max_queue_size

    # (subclasses often skip ``super().__init__()``: the defaults stand in)
    @property
    def workers(self):
        return getattr(self, "_workers", 1)

    @property
    def use_multiprocessing(self):
        return getattr(self, "_use_multiprocessing", False)

    @property
    def max_queue_size(self):
        return getattr(self, "_max_queue_size", 10)

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must implement __getitem__(index).")

    @property
    def num_batches(self):
        """``len(self)`` where the subclass defines ``__len__``; None would mean endless."""
        if hasattr(self, "__len__"):
            return len(self)
        raise NotImplementedError(
            f"{type(self).__name__} must implement __len__() or the num_batches property (None: endless)."
        )

    def on_epoch_begin(self):
        pass

    def on_epoch_end(self):
        pass

    def __iter__(self):
        """The batches in order (forever if ``num_batches`` is None); no epoch hooks run, as in Keras."""
        try:
            count = self.num_batches
        except NotImplementedError:
            count = None
        for index in itertools.count() if count is None else range(count):
            yield self[index]


Sequence = PyDataset  # Keras 3's alias
