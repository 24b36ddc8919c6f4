"""``print`` passes no gradient (it has no outputs), nor do the string ops (``tf.strings``)."""

from __future__ import annotations

from .registry import no_gradient

no_gradient("print")
no_gradient(
    "string_length",
    "string_upper",
    "string_lower",
    "string_strip",
    "string_join",
    "reduce_join",
    "regex_full_match",
    "regex_replace",
    "substr",
    "string_to_number",
    "as_string",
    "string_split",
)
