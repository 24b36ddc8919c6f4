"""``keras.preprocessing.sequence``: ``pad_sequences`` (Keras 3 keeps no ``TimeseriesGenerator``)."""

from ..utils import pad_sequences

__all__ = ["pad_sequences"]
