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
