"""``tfunc.nest``: nested structures, on optree (the pytree library JAX and PyTorch use).

TensorFlow's rules: lists, tuples, namedtuples, every ``Mapping`` and every other
``Sequence`` but strings are structure; mappings (``OrderedDict`` included) flatten in
sorted key order (keys that do not sort are a TypeError) and pack back in their own key
order; ``None`` and every other object is a leaf.  Classes registered with
:func:`register_node` are structure too.  Composite values (a ``TensorArray``) are leaves
unless ``expand_composites=True``, which replaces them by their component tensors
(:func:`register_composite`).

optree opens lists, tuples, namedtuples, dicts, defaultdicts, deques and OrderedDicts
itself.  The other structure types are registered when first met as leaves; an
OrderedDict, which optree always flattens in insertion order, is flattened through a
stand-in that sorts.  Which structures hold one is remembered per treespec, so the
common case costs one optree flatten and two set/dict lookups.

Everything in tfunc that walks a structure (cache keys, function outputs, control-flow
state, datasets) goes through here.
"""

from __future__ import annotations

import collections
import functools
import threading
from collections.abc import Mapping, MappingView, MutableMapping, Sequence
from typing import Any, Callable

import numpy as np
import optree

__all__ = [
    "flatten",
    "flatten_with_spec",
    "flatten_up_to",
    "pack_sequence_as",
    "unflatten",
    "map_structure",
    "assert_same_structure",
    "is_nested",
    "same_skeleton",
    "register_node",
    "register_composite",
    "TreeSpec",
]

NAMESPACE = "tfunc"  # structure
COMPOSITES = "tfunc-composites"  # structure, with composite values expanded
TreeSpec = optree.PyTreeSpec


def _ns(expand_composites: bool) -> str:
    return COMPOSITES if expand_composites else NAMESPACE


_PLAIN: dict[str, Any] = {"none_is_leaf": True, "namespace": NAMESPACE}


def register_node(cls, flatten_fn: Callable, unflatten_fn: Callable) -> None:
    """Makes ``cls`` structure: ``flatten_fn(x) -> (children, aux)``,
    ``unflatten_fn(aux, children) -> x`` (aux must be hashable and comparable)."""
    with _lock:
        if cls in _opened:  # opened on sight as a Mapping or Sequence: this rule replaces that
            for ns in (NAMESPACE, COMPOSITES):
                optree.unregister_pytree_node(cls, namespace=ns)
        _register(cls, flatten_fn, unflatten_fn)


def register_composite(cls) -> None:
    """``cls`` has ``_tf_components() -> list of tensors`` and ``_tf_from_components(list)``:
    with ``expand_composites=True`` its components are the leaves; packing rebuilds the
    value through the instance the structure was taken from."""

    def flatten(x: Any) -> tuple:
        return x._tf_components(), x

    def unflatten(aux: Any, children) -> Any:
        return aux._tf_from_components(list(children))

    optree.register_pytree_node(cls, flatten, unflatten, namespace=COMPOSITES)


# --- the structure types optree does not open itself ----------------------------------------

_lock = threading.Lock()
_LEAF_TYPES: set[type] = {
    int,
    float,
    bool,
    complex,
    str,
    bytes,
    type(None),
    np.ndarray,
}  # grows with each leaf type met
_opened: set = set()  # the types registered here (on sight, or by register_node)
# the types optree opens itself: a leaf only by a caller's ``is_leaf`` (namedtuple classes join)
_optree_nodes: set[type] = {list, tuple, dict, collections.OrderedDict, collections.defaultdict, collections.deque}


def _sorted_keys(mapping) -> list:
    try:
        return sorted(mapping)
    except TypeError:
        raise TypeError(f"nest only supports dicts with sortable keys, got keys {list(mapping)!r}.") from None


def _register(cls, flatten_fn, unflatten_fn) -> None:
    for ns in (NAMESPACE, COMPOSITES):
        optree.register_pytree_node(cls, flatten_fn, unflatten_fn, namespace=ns)
    _opened.add(cls)


def _register_mapping(cls, rebuild: Callable) -> None:
    """Values in sorted key order; ``rebuild(keys in the instance's order, {key: value})``."""

    def flatten_fn(m):
        keys = _sorted_keys(m)
        return [m[k] for k in keys], (tuple(keys), tuple(m)), keys

    def unflatten_fn(aux, children):
        keys, order = aux
        return rebuild(order, dict(zip(keys, children)))

    _register(cls, flatten_fn, unflatten_fn)


def _register_sequence(cls, rebuild: Callable) -> None:
    _register(cls, lambda s: (list(s), None), lambda _, children: rebuild(children))


def mapping_like(cls, order, values: dict):
    """A ``cls`` Mapping holding ``values`` in the key order ``order``, made as TensorFlow's
    ``sequence_like`` makes one: a MutableMapping filled in, another called with the pairs."""
    if issubclass(cls, MutableMapping):
        m = cls()
        for k in order:
            m[k] = values[k]
        return m
    return cls((k, values[k]) for k in order)


def sorted_keys(mapping) -> list:
    """The keys of ``mapping`` sorted, as TensorFlow flattens mappings (TypeError if they do not sort)."""
    return _sorted_keys(mapping)


def _open_type(cls) -> bool:
    """Registers ``cls`` as structure when TensorFlow's nest opens it; False for a leaf type.
    Rebuilding follows TensorFlow's ``sequence_like``."""
    if issubclass(cls, Mapping):
        _register_mapping(cls, functools.partial(mapping_like, cls))
    elif issubclass(cls, (MappingView, range)):
        _register_sequence(cls, list)
    elif issubclass(cls, Sequence) and not issubclass(cls, (str, bytes)):
        _register_sequence(cls, cls)
    else:
        return False
    return True


def _open_types(leaves) -> bool:
    """Sorts the new types among ``leaves`` into structure and leaf types; True if any opened."""
    new = set(map(type, leaves)) - _LEAF_TYPES - _opened - _optree_nodes
    if not new:
        return False
    opened = False
    with _lock:
        for cls in new - _opened:
            if optree.is_namedtuple_class(cls) or optree.is_structseq_class(cls):
                _optree_nodes.add(cls)
            elif _open_type(cls):
                opened = True
            else:
                _LEAF_TYPES.add(cls)
    return opened


class _SortedOrderedDict(collections.OrderedDict):
    """Stands for an OrderedDict while it is flattened (optree cannot be told to sort one)."""


_register_mapping(_SortedOrderedDict, lambda order, values: collections.OrderedDict((k, values[k]) for k in order))


def _sort_ordered_dicts(structure, is_leaf=None):
    """``structure`` with each OrderedDict replaced by a :class:`_SortedOrderedDict`."""

    def stop(x) -> bool:
        return type(x) is collections.OrderedDict or (is_leaf is not None and is_leaf(x))

    def swap(x):
        if type(x) is collections.OrderedDict:
            return _SortedOrderedDict((k, _sort_ordered_dicts(v, is_leaf)) for k, v in x.items())
        return x

    return optree.tree_map(swap, structure, is_leaf=stop, **_PLAIN)


def _inspect(spec) -> tuple:
    """(holds an OrderedDict, holds a composite value); TypeError for a dict whose keys do not
    sort (optree would flatten it in an order of its own)."""
    ordered = composite = False
    stack = [spec]
    while stack:
        s = stack.pop()
        t = s.type
        if t is collections.OrderedDict:
            ordered = True
        elif t is dict or t is collections.defaultdict:
            _sorted_keys(s.entries())
        elif hasattr(t, "_tf_components"):
            composite = True
        stack.extend(s.children())
    return ordered, composite


# spec -> whether it holds an OrderedDict; bounded, and without specs that hold (and would
# keep alive) composite values
_holds_ordered: dict = {}


def _flatten(structure, namespace: str, is_leaf=None) -> tuple:
    """(leaves, spec) by TensorFlow's rules."""
    leaves, spec = optree.tree_flatten(structure, is_leaf, none_is_leaf=True, namespace=namespace)
    if _holds_ordered.get(spec) is False and _LEAF_TYPES.issuperset(map(type, leaves)):
        return leaves, spec  # the common case: nothing for optree to learn
    if _open_types(leaves):
        return _flatten(structure, namespace, is_leaf)  # now through the types just opened
    ordered = _holds_ordered.get(spec)
    if ordered is None:
        ordered, composite = _inspect(spec)
        if not composite:
            if len(_holds_ordered) >= 4096:
                _holds_ordered.clear()
            _holds_ordered[spec] = ordered
    if ordered:
        return optree.tree_flatten(
            _sort_ordered_dicts(structure, is_leaf), is_leaf, none_is_leaf=True, namespace=namespace
        )
    return leaves, spec


# --- the API --------------------------------------------------------------------------------


def is_nested(x) -> bool:
    """True for a structure node (a list, tuple, mapping, other sequence but a string, or a
    registered type), False for a leaf."""
    return not optree.tree_is_leaf(x, **_PLAIN) or _open_types((x,))


def flatten(structure, expand_composites=False) -> list:
    """The leaves of ``structure``, mappings in sorted key order."""
    return _flatten(structure, _ns(expand_composites))[0]


def flatten_with_spec(structure, expand_composites=False, is_leaf: Callable | None = None):
    """(leaves, spec): ``unflatten(spec, leaves)`` rebuilds the structure; two specs are equal
    when the structures are (types, lengths, dict keys and their order, composite instances)."""
    return _flatten(structure, _ns(expand_composites), is_leaf)


def unflatten(spec: TreeSpec, leaves):
    return optree.tree_unflatten(spec, leaves)


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """``structure`` with its leaves replaced, in order, by ``flat_sequence`` (a list, tuple or
    other non-mapping sequence)."""
    if type(flat_sequence) is not list and (isinstance(flat_sequence, Mapping) or not is_nested(flat_sequence)):
        raise TypeError(
            f"Attempted to pack value:\n  {flat_sequence!r}\ninto a structure, but found incompatible type "
            f"`{type(flat_sequence)}` instead."
        )
    spec = _flatten(structure, _ns(expand_composites))[1]
    flat = list(flat_sequence)
    if len(flat) != spec.num_leaves:
        raise ValueError(
            f"Could not pack sequence. Structure had {spec.num_leaves} atoms, but flat_sequence had "
            f"{len(flat)} items. Structure: {structure!r}, flat_sequence: {flat!r}."
        )
    return optree.tree_unflatten(spec, flat)


def map_structure(func: Callable, *structures, check_types=True, expand_composites=False) -> Any:
    """``func`` over the leaves of ``structures`` (the same structure, see
    :func:`assert_same_structure`), packed as the first one."""
    if not structures:
        raise ValueError("Must provide at least one structure")
    ns = _ns(expand_composites)
    flats = [_flatten(s, ns) for s in structures]
    spec = flats[0][1]
    for s, (_, other) in zip(structures[1:], flats[1:]):
        if other != spec:
            _raise_if_different(structures[0], s, spec, other, check_types)
    return optree.tree_unflatten(spec, [func(*xs) for xs in zip(*(leaves for leaves, _ in flats))])


def assert_same_structure(a, b, check_types=True, expand_composites=False) -> None:
    """TensorFlow's rules: the same nesting and lengths (ValueError otherwise); with
    ``check_types`` also the same node types (TypeError) and mapping keys (ValueError), where
    any two mappings, any two lists and two namedtuples of one name and fields count as one."""
    ns = _ns(expand_composites)
    sa, sb = _flatten(a, ns)[1], _flatten(b, ns)[1]
    if sa != sb:
        _raise_if_different(a, b, sa, sb, check_types)


def same_skeleton(a, b, expand_composites=True, check_types=True) -> bool:
    """Same structure up to which composite instances sit at the composite positions."""
    ns = _ns(expand_composites)
    sa, sb = _flatten(a, ns)[1], _flatten(b, ns)[1]
    return sa == sb or _difference(sa, sb, check_types) is None


def _raise_if_different(a, b, sa, sb, check_types) -> None:
    diff = _difference(sa, sb, check_types)
    if diff is not None:
        error, detail = diff
        raise error(
            f"The two structures don't have the same nested structure.\n\nFirst structure: {a!r}\n\n"
            f"Second structure: {b!r}\n\nMore specifically: {detail}"
        )


def _kind(t):
    """What ``check_types`` compares of a node type."""
    if issubclass(t, list):
        return list
    if issubclass(t, Mapping):
        return Mapping
    if issubclass(t, tuple) and hasattr(t, "_fields"):
        return ("namedtuple", t.__name__, tuple(t._fields))
    return t


def _difference(sa, sb, check_types) -> tuple | None:
    """(exception type, message) for where two specs differ by TensorFlow's rules, or None."""
    if sa.is_leaf() or sb.is_leaf():
        if sa.is_leaf() and sb.is_leaf():
            return None
        nested, leaf = (sa, sb) if sb.is_leaf() else (sb, sa)
        return ValueError, f"{nested} is nested but {leaf} is not."
    if check_types:
        if _kind(sa.type) != _kind(sb.type):
            return TypeError, f"{sa} has type {sa.type.__name__}, while {sb} has type {sb.type.__name__}."
        if _kind(sa.type) is Mapping and list(sa.entries()) != list(sb.entries()):
            return ValueError, f"The two dictionaries don't have the same set of keys: {sa} and {sb}."
    if sa.num_children != sb.num_children:
        return ValueError, f"{sa} and {sb} don't have the same number of elements."
    for ca, cb in zip(sa.children(), sb.children()):
        diff = _difference(ca, cb, check_types)
        if diff is not None:
            return diff
    return None


def flatten_up_to(shallow, deep) -> list:
    """The parts of ``deep`` at the leaves of ``shallow`` (deeper structure stays whole);
    a list may stand for a tuple and the reverse.  ValueError if the structures differ."""
    spec = _flatten(shallow, NAMESPACE)[1]
    _flatten(deep, NAMESPACE)  # opens the structure types in ``deep``
    sorted_deep = _sort_ordered_dicts(deep)  # as ``shallow``'s OrderedDicts are in ``spec``
    try:
        return spec.flatten_up_to(sorted_deep)
    except (ValueError, TypeError):
        pass
    try:
        return _flatten(_tuples(shallow), NAMESPACE)[1].flatten_up_to(_tuples(sorted_deep))
    except (ValueError, TypeError):
        raise ValueError(f"The structure of {deep!r} does not match {shallow!r}.") from None


def _tuples(x):
    if type(x) is list or type(x) is tuple:
        return tuple(_tuples(v) for v in x)
    if type(x) is dict or type(x) is _SortedOrderedDict:
        return type(x)((k, _tuples(v)) for k, v in x.items())
    return x
