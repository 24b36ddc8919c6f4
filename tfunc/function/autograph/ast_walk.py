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


def fix_missing_locations(node):
    """``ast.fix_missing_locations``: a node without a position takes its parent's."""
    stack = [(node, 1, 0, 1, 0)]
    while stack:
        n, lineno, col, end_lineno, end_col = stack.pop()
        attrs = n._attributes
        if "lineno" in attrs:
            if not hasattr(n, "lineno"):
                n.lineno = lineno
            else:
                lineno = n.lineno
            if "end_lineno" in attrs:
                if getattr(n, "end_lineno", None) is None:
                    n.end_lineno = end_lineno
                else:
                    end_lineno = n.end_lineno
            if "col_offset" in attrs:
                if not hasattr(n, "col_offset"):
                    n.col_offset = col
                else:
                    col = n.col_offset
            if "end_col_offset" in attrs:
                if getattr(n, "end_col_offset", None) is None:
                    n.end_col_offset = end_col
                else:
                    end_col = n.end_col_offset
        stack.extend((c, lineno, col, end_lineno, end_col) for c in reversed(children(n)))
    return node
