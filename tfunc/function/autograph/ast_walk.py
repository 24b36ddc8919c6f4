"""``ast``'s tree walkers without their per-node generator layers.

AutoGraph walks each function's tree a dozen times (scopes, liveness, locations); with the
stdlib's ``iter_child_nodes`` (a generator over ``iter_fields``, another generator) those walks
were most of a conversion.  These give the same nodes in the same order
(``tests/function/autograph/test_ast_walk.py`` compares them with the stdlib's on real code).
"""

from __future__ import annotations

import ast

_AST = ast.AST


def children(node) -> list:
    """``list(ast.iter_child_nodes(node))``."""
    out = []
    for name in node._fields:
        v = getattr(node, name, None)
        if isinstance(v, _AST):
            out.append(v)
        elif v.__class__ is list:
            for x in v:
                if isinstance(x, _AST):
                    out.append(x)
    return out


def walk(node) -> list:
    """``list(ast.walk(node))``: ``node`` and every node below it, breadth first."""
    out = [node]
    i = 0
    while i < len(out):
        out.extend(children(out[i]))
        i += 1
    return out


_POSITION = ("lineno", "col_offset", "end_lineno", "end_col_offset")


def fix_missing_locations(node):
    """``ast.fix_missing_locations``: a node without a position takes its parent's, and a node
    with one passes it on to its children."""
    stack = [(node, (1, 0, 1, 0))]
    while stack:
        n, inherited = stack.pop()
        if "lineno" in n._attributes:
            own = []
            for name, value in zip(_POSITION, inherited):
                current = getattr(n, name, None)
                if current is None:
                    setattr(n, name, value)
                    current = value
                own.append(current)
            inherited = tuple(own)
        stack.extend((c, inherited) for c in reversed(children(n)))
    return node
