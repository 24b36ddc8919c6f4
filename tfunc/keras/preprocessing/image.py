"""``keras.preprocessing.image``: the image file and array helpers of ``keras.utils``."""

from ..utils import array_to_img, img_to_array, load_img, save_img

__all__ = ["array_to_img", "img_to_array", "load_img", "save_img"]
