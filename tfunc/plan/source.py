"""Compiling generated Python source, once per distinct text.

Plans and fused CPU kernels are generated as source whose kernels, constants
and shapes are bound as default arguments, never written into the text.  So a
retrace on a new input shape usually produces the very same text, and its
code object is reused instead of compiled again (compiling a 20-step kernel
costs about 0.2 ms, a tenth of a retrace).  Each text gets one file name,
registered with ``linecache`` so tracebacks show the generated lines.
"""

from __future__ import annotations

import hashlib
import itertools
import linecache
import re
import threading
import weakref

_ids = itertools.count()
_compiled: dict = {}  # source -> (code object, file name)
# generated file name -> {line number: step index}: errors inside a fused kernel name the member op
LINE_STEPS: dict = {}
_MAX_ENTRIES = 4096  # a bound on memory for programs that generate endless distinct functions
_holders: dict = {}  # source -> how many live functions run its code (``hold``)
_lock = threading.Lock()


def identifier(text: str) -> str:
    """An ASCII identifier fragment made from any user string (a function or node name).

    Characters outside ``[A-Za-z0-9_]`` become ``_``; when any was replaced, a digest of the
    original text keeps different names apart (``f²`` and ``f³`` differ).  Python would
    NFKC-normalise non-ASCII identifiers (``ﬁx`` becomes ``fix``) and rejects others (``f²``),
    so user text never reaches generated source unchanged."""
    clean = re.sub(r"\W", "_", text, flags=re.ASCII)
    if clean != text or not clean:
        clean += "_" + hashlib.blake2s(text.encode("utf-8", "surrogatepass"), digest_size=4).hexdigest()
    return clean


def compile_source(source: str, label: str, kind: str, line_steps: dict | None = None):
    """(code, filename) for ``source``; ``kind`` and ``label`` name the file (``<tfunc-kind-N:label>``).
    ``line_steps`` maps source lines to the steps of a fused group they run."""
    hit = _compiled.get(source)
    if hit is not None:
        return hit
    filename = f"<tfunc-{kind}-{next(_ids)}:{label}>"
    if line_steps:
        LINE_STEPS[filename] = line_steps
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    entry = (compile(source, filename, "exec"), filename)
    if len(_compiled) >= _MAX_ENTRIES:  # forget the oldest text (a function still using it keeps working)
        _, old_filename = _compiled.pop(next(iter(_compiled)))
        linecache.cache.pop(old_filename, None)
        LINE_STEPS.pop(old_filename, None)
    _compiled[source] = entry
    return entry


def hold(source: str, owner) -> None:
    """Keeps ``source``'s compiled entry (code, ``linecache`` lines, ``LINE_STEPS``) while
    ``owner`` (the function made from it) lives; when the last holder is gone, all three are
    released, so a dropped trace or function leaves nothing behind."""
    with _lock:
        _holders[source] = _holders.get(source, 0) + 1
    weakref.finalize(owner, _release, source)


def _release(source: str) -> None:
    with _lock:
        n = _holders.get(source, 0) - 1
        if n > 0:
            _holders[source] = n
            return
        _holders.pop(source, None)
        entry = _compiled.pop(source, None)
    if entry is not None:
        linecache.cache.pop(entry[1], None)
        LINE_STEPS.pop(entry[1], None)
