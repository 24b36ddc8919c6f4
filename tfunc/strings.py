"""``tfunc.strings``: string tensors, element by element (``tf.strings``)."""

from .api.string_ops import (
    as_string,
    join,
    length,
    lower,
    reduce_join,
    regex_full_match,
    regex_replace,
    split,
    strip,
    substr,
    to_hash_bucket_fast,
    to_hash_bucket_strong,
    to_number,
    upper,
)

__all__ = [
    "as_string",
    "join",
    "length",
    "lower",
    "reduce_join",
    "regex_full_match",
    "regex_replace",
    "split",
    "strip",
    "substr",
    "to_hash_bucket_fast",
    "to_hash_bucket_strong",
    "to_number",
    "upper",
]
