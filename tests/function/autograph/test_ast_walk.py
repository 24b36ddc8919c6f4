"""AutoGraph's tree walkers give exactly what the stdlib's give, on real code (the converter's
own source, this package's operators, and a function with every kind of node position)."""

import ast
import copy
import inspect

import pytest

from tfunc.function.autograph import ast_walk, converter, operators


def _trees():
    yield ast.parse(inspect.getsource(converter))
    yield ast.parse(inspect.getsource(operators))
    yield ast.parse("async def f(x, /, y=1, *a, k: int = 2, **kw):\n    return [i async for i in x if (j := i)]\n")


@pytest.mark.parametrize("tree", list(_trees()), ids=["converter", "operators", "async"])
def test_children_and_walk_match_the_stdlib(tree):
    nodes = list(ast.walk(tree))
    assert ast_walk.walk(tree) == nodes  # same nodes, same (breadth-first) order
    for n in nodes:
        assert ast_walk.children(n) == list(ast.iter_child_nodes(n))


@pytest.mark.parametrize("tree", list(_trees()), ids=["converter", "operators", "async"])
def test_fix_missing_locations_matches_the_stdlib(tree):
    for i, n in enumerate(ast.walk(tree)):  # strip positions from every third node, end positions from others
        if i % 3 == 0:
            for a in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
                if hasattr(n, a):
                    delattr(n, a)
        elif i % 3 == 1 and hasattr(n, "end_lineno"):
            n.end_lineno = n.end_col_offset = None
    want, got = copy.deepcopy(tree), copy.deepcopy(tree)
    ast.fix_missing_locations(want)
    assert ast_walk.fix_missing_locations(got) is got
    assert ast.dump(got, include_attributes=True) == ast.dump(want, include_attributes=True)


def test_a_tree_without_positions_compiles_after_the_fix():
    tree = ast.parse("def f(x):\n    for i in range(3):\n        x = x + i\n    return x\n")
    for n in ast.walk(tree):
        for a in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
            if hasattr(n, a):
                delattr(n, a)
    ns: dict = {}
    exec(compile(ast_walk.fix_missing_locations(tree), "<fixed>", "exec"), ns)
    assert ns["f"](1) == 4


# --- every converted node has a position of its own --------------------------------------------

_G = 0


def _branches(x, n):
    if x > 0:
        y = x
    elif x < -1:
        y = -x
    else:
        return x
    while n > 0:
        n -= 1
        if n == 3:
            continue
        if n == 1:
            break
        y = y + 1 if y else y - 1
    else:
        y = 0
    for i in range(n):
        if i > 2 and not y:
            return y
    else:
        y = y or i
    return y


def _statements(x, d, obj):
    global _G
    total = 0

    def inner(a):
        nonlocal total
        total += a
        return [a * k for k in range(2) if k] + list(map(lambda v: v + 1, (a,)))

    with open(__file__) as fh:
        fh.read(1)
    try:
        d["k"] = inner(x)
    except (KeyError, ValueError) as e:
        raise RuntimeError(str(e)) from e
    finally:
        obj.count = x
    assert x is not None, "x"
    z = x
    del z
    _G = {k: v for k, v in d.items()}
    return w if (w := x) else total


_lambda = lambda x, k=2: x * k if x else -x  # noqa: E731 - a lambda is converted as a def of its own


@pytest.mark.parametrize("fn", [_branches, _statements, _lambda])
def test_the_converter_locates_every_node_it_makes(fn, monkeypatch):
    """``convert_function`` compiles without the whole-tree position fix: every pass gives
    the nodes it makes a position (the fix is only a fallback for a node that slipped)."""

    def refuse(_):
        raise AssertionError("a converted node had no position")

    monkeypatch.setattr(converter, "fix_missing_locations", refuse)
    new, tree = converter.convert_function(fn, operators)
    assert callable(new)
    for n in ast.walk(tree):
        if "lineno" in n._attributes:
            assert getattr(n, "lineno", None) is not None and getattr(n, "end_lineno", None) is not None, ast.dump(n)
