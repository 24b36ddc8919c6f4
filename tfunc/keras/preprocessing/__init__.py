"""``keras.preprocessing``: Keras 3's namespace of the data utilities it keeps from Keras 2
(``image``, ``sequence`` and the dataset makers), the same functions as ``keras.utils``'s."""

from ..utils import image_dataset_from_directory, text_dataset_from_directory, timeseries_dataset_from_array
from . import image, sequence

__all__ = [
    "image",
    "sequence",
    "image_dataset_from_directory",
    "text_dataset_from_directory",
    "timeseries_dataset_from_array",
]
