"""``tfunc.saved_model``: export objects with their functions' optimized graphs, load them back.

``save(obj, export_dir, signatures=...)`` writes the object's variables and every
``tfunc.function`` attached to it (traced for its input signature, plus every trace made so
far) as its optimized graph; ``load(export_dir)`` gives back an object with the same
attributes whose functions run without the original Python code.  The format (a versioned,
checksummed JSON description plus safetensors files; README "Checkpoints and SavedModels")
can also be run with NumPy alone by ``tfunc/portable.py``.
"""

from .load import contains_saved_model, load
from .save import DEFAULT_SERVING_SIGNATURE_DEF_KEY, save
from .save_options import LoadOptions, SaveOptions

SERVING = "serve"
TRAINING = "train"

__all__ = [
    "save",
    "load",
    "contains_saved_model",
    "SaveOptions",
    "LoadOptions",
    "DEFAULT_SERVING_SIGNATURE_DEF_KEY",
    "SERVING",
    "TRAINING",
]
