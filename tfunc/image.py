"""``tfunc.image``: resizing images (NHWC)."""

from .api.image_ops import ResizeMethod, adjust_contrast, resize

__all__ = ["ResizeMethod", "adjust_contrast", "resize"]
