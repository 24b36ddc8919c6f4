"""``keras.preprocessing.image``: the image file and array helpers of ``keras.utils``, and
``smart_resize`` (which Keras 3.15 exports here only)."""

from ..image_utils import smart_resize
from ..utils import array_to_img, img_to_array, load_img, save_img

__all__ = ["array_to_img", "img_to_array", "load_img", "save_img", "smart_resize"]
