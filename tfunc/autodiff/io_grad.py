"""``print`` passes no gradient (it has no outputs).  The string ops (``tf.strings``) have no
rule: no float input of theirs reaches a tape (``as_string`` outputs strings, which take no
gradient, and ``to_number`` reads strings)."""

from __future__ import annotations

from .registry import no_gradient

no_gradient("print")
