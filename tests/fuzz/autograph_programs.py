"""Random AutoGraph programs: Python source run as plain Python and through ``tf.function``.

A program is a function of two integers ``n`` and ``m`` over four integer variables
``a b c d`` (all set first, values kept small by ``% 97``), with nested ``if``/``elif``/
``else``, ``for`` loops over ``range`` (a Python range, or a tensor range when the bound is a
tensor), ``while`` loops counting up to a bound, ``break``, ``continue`` and ``return``, and
conditions mixing Python and tensor values (``and``/``or``/``not``).  Through
``tf.function`` each of ``n`` and ``m`` is a tensor or a Python int, so a statement becomes
graph control flow or stays Python at trace time, as AutoGraph decides.

Programs stay within what TensorFlow's AutoGraph accepts (its reference, "Limitations"):
a ``break`` or ``return`` inside a Python loop depends on Python values only, and so does
a ``break`` after a tensor-dependent ``continue`` there (TensorFlow raises otherwise); a
Python ``while`` loop's condition stays Python; variables read after a tensor statement
are set before it; a ``return`` sits only at the top level of the function: one in a branch
of a tensor ``if`` needs one on the other path ("the else branch must also have a return
statement"), and one in a loop leaves the return value undefined on the paths where it did
not run, which the tensor ``if`` guarding the code after the loop refuses alike.  One construct TensorFlow
accepts and these programs use on purpose: reading a ``for`` loop's target after a tensor
loop that set it.
"""

from __future__ import annotations

import dataclasses
from collections import Counter

STATS: Counter = Counter()

VARS = ("a", "b", "c", "d")
MOD = 97


@dataclasses.dataclass
class Scope:
    loop: str | None = None  # None outside loops; "tensor" or "python": the innermost loop's kind
    python_loops: int = 0  # enclosing Python loops
    tensor_loops: int = 0  # enclosing tensor loops
    tensor_if_in_loop: bool = False  # a tensor-dependent if between here and the innermost loop
    index: str | None = None  # the innermost Python loop's index (a Python int)
    indices: tuple = ()  # every loop index in scope
    depth: int = 0
    flags: dict = dataclasses.field(default_factory=dict)  # the innermost loop's, shared by its body
    in_if: bool = False  # inside a branch of an if (a return there needs one on every path in TensorFlow)


class Generator:
    """Draws a program with ``choose(n) -> int in [0, n)`` (hypothesis draws them)."""

    def __init__(self, choose, tensor_params: tuple, max_statements: int = 14, max_depth: int = 3):
        self.choose = choose
        self.tensor = dict(zip(("n", "m"), tensor_params))  # which parameters are tensors
        self.budget = max_statements
        self.max_depth = max_depth
        self.lines: list = []
        self._ids = 0

    def pick(self, options):
        return options[self.choose(len(options))] if len(options) > 1 else options[0]

    def chance(self, one_in):
        return self.choose(one_in) == 0

    def fresh(self, prefix):
        self._ids += 1
        return f"{prefix}{self._ids}"

    # --- expressions ---
    def atom(self, scope, python_only=False):
        options = [str(self.choose(10))]
        if python_only:
            options += [p for p in ("n", "m") if not self.tensor[p]]
            if scope.index is not None:
                options.append(scope.index)
        else:
            options += list(VARS) + ["n", "m"] + list(scope.indices)
        return self.pick(options)

    def expr(self, scope, python_only=False, depth=0):
        if depth >= 2 or self.chance(3):
            return self.atom(scope, python_only)
        op = self.pick(["+", "-", "*", "//", "%"])
        left = self.expr(scope, python_only, depth + 1)
        if op in ("//", "%"):
            return f"({left} {op} {1 + self.choose(5)})"  # positive constant divisors: no ZeroDivisionError
        return f"({left} {op} {self.expr(scope, python_only, depth + 1)})"

    def cond(self, scope, python_only=False, depth=0):
        if depth < 1 and self.chance(4):
            how = self.pick(["and", "or", "not"])
            if how == "not":
                return f"not ({self.cond(scope, python_only, depth + 1)})"
            return f"({self.cond(scope, python_only, depth + 1)}) {how} ({self.cond(scope, python_only, depth + 1)})"
        cmp = self.pick(["<", "<=", ">", ">=", "==", "!="])
        return f"{self.expr(scope, python_only, 1)} {cmp} {self.expr(scope, python_only, 1)}"

    def is_python(self, text, scope) -> bool:
        """Whether an expression of ``atom``s reads only Python values (by its names)."""
        names = set("".join(ch if ch.isalnum() else " " for ch in text).split())
        tensors = set(VARS) | {p for p in ("n", "m") if self.tensor[p]}
        tensors |= {i for i in scope.indices if i != scope.index and i in self._tensor_indices}
        return not (names & tensors)

    _tensor_indices: set = set()

    # --- statements ---
    def emit(self, indent, text):
        self.lines.append("    " * indent + text)

    def block(self, indent, scope, min_statements=1):
        n = min_statements + self.choose(3)
        for _ in range(n):
            if self.budget <= 0:
                break
            self.statement(indent, scope)
        if self.lines[-1].strip().endswith(":"):
            self.emit(indent, "pass")

    def statement(self, indent, scope):
        self.budget -= 1
        kinds = ["assign", "assign", "assign"]
        if scope.depth < self.max_depth:
            kinds += ["if", "for", "while"]
        if scope.loop is not None:
            kinds += ["break", "continue"]
        kinds.append("return")
        kind = self.pick(kinds)
        getattr(self, "_" + kind)(indent, scope)

    def _assign(self, indent, scope):
        v = self.pick(VARS)
        if self.chance(3):
            self.emit(indent, f"{v} = ({v} + {self.expr(scope)}) % {MOD}")
        else:
            self.emit(indent, f"{v} = {self.expr(scope)} % {MOD}")
        STATS["assignments"] += 1

    def _if(self, indent, scope):
        c = self.cond(scope)
        tensor_if = not self.is_python(c, scope)
        inner = dataclasses.replace(
            scope,
            depth=scope.depth + 1,
            in_if=True,
            tensor_if_in_loop=scope.tensor_if_in_loop or (tensor_if and bool(scope.loop)),
        )
        self.emit(indent, f"if {c}:")
        self.block(indent + 1, inner)
        STATS["if (tensor condition)" if tensor_if else "if (Python condition)"] += 1
        if self.chance(3):
            c2 = self.cond(scope)
            t2 = not self.is_python(c2, scope)
            inner2 = dataclasses.replace(inner, tensor_if_in_loop=inner.tensor_if_in_loop or (t2 and bool(scope.loop)))
            self.emit(indent, f"elif {c2}:")
            self.block(indent + 1, inner2)
            STATS["elif"] += 1
        if self.chance(2):
            self.emit(indent, "else:")
            self.block(indent + 1, inner)

    def _bound(self, scope):
        """(bound expression, whether the loop over it is a tensor loop)."""
        options = [(str(self.choose(5)), False), ("n", self.tensor["n"]), ("m", self.tensor["m"])]
        options.append(("(n + 1)", self.tensor["n"]))
        return self.pick(options)

    def _for(self, indent, scope):
        bound, tensor_loop = self._bound(scope)
        target = self.fresh("i")
        use_after = False
        if self.chance(3):
            bound, tensor_loop = self.pick([("RANGE_T(n + 1)", True), ("RANGE_T(m + 1)", True)]), True
            bound = bound[0]
            use_after = self.chance(2)  # the loop runs at least once: its target is set after it
            header = f"for {target} in {bound}:"
        else:
            if tensor_loop and self.chance(2):
                bound = f"{bound} + 1"
                use_after = self.chance(2)
            header = f"for {target} in range({bound}):"
        if tensor_loop:
            Generator._tensor_indices = self._tensor_indices | {target}
        inner = Scope(
            loop="tensor" if tensor_loop else "python",
            python_loops=scope.python_loops + (0 if tensor_loop else 1),
            tensor_loops=scope.tensor_loops + (1 if tensor_loop else 0),
            tensor_if_in_loop=False,
            index=None if tensor_loop else target,
            indices=scope.indices + (target,),
            depth=scope.depth + 1,
            in_if=scope.in_if,
        )
        self.emit(indent, header)
        self.block(indent + 1, inner)
        STATS["for (tensor)" if tensor_loop else "for (Python)"] += 1
        if use_after and not scope.tensor_loops:
            # inside another tensor loop the target becomes that loop's variable, undefined
            # when it starts: TensorFlow refuses the program if that loop runs zero times
            v = self.pick(VARS)
            self.emit(indent, f"{v} = ({v} + {target}) % {MOD}")
            STATS["loop target read after a tensor loop" if tensor_loop else "loop target read after the loop"] += 1

    def _while(self, indent, scope):
        bound, tensor_loop = self._bound(scope)
        w = self.fresh("w")
        self.emit(indent, f"{w} = 0")
        test = f"{w} < {bound}"
        if tensor_loop and self.chance(2):
            test = f"{test} and ({self.cond(scope)})"
        self.emit(indent, f"while {test}:")
        self.emit(indent + 1, f"{w} += 1")  # first, so a continue cannot skip it
        inner = Scope(
            loop="tensor" if tensor_loop else "python",
            python_loops=scope.python_loops + (0 if tensor_loop else 1),
            tensor_loops=scope.tensor_loops + (1 if tensor_loop else 0),
            tensor_if_in_loop=False,
            index=None if tensor_loop else w,
            indices=scope.indices,
            depth=scope.depth + 1,
            in_if=scope.in_if,
        )
        self.block(indent + 1, inner)
        STATS["while (tensor)" if tensor_loop else "while (Python)"] += 1

    def _guard(self, scope):
        """A condition a break in this loop may depend on (Python only in a Python loop)."""
        python_only = scope.loop == "python"
        return self.cond(scope, python_only=python_only)

    def _break(self, indent, scope):
        if scope.loop == "python" and (scope.tensor_if_in_loop or scope.flags.get("tensor continue")):
            return self._assign(indent, scope)  # TensorFlow rejects a tensor-dependent break here
        c = self._guard(scope)
        if not self.is_python(c, scope):
            scope.flags["tensor continue"] = True  # a tensor-dependent break ends the iteration alike
        self.emit(indent, f"if {c}:")
        self.emit(indent + 1, "break")
        STATS["break"] += 1

    def _continue(self, indent, scope):
        c = self.cond(scope)
        if not self.is_python(c, scope) or scope.tensor_if_in_loop:
            # what follows in this iteration runs under a tensor condition: a later break in a
            # Python loop would depend on it, which TensorFlow refuses
            scope.flags["tensor continue"] = True
        self.emit(indent, f"if {c}:")
        self.emit(indent + 1, "continue")
        STATS["continue"] += 1

    def _return(self, indent, scope):
        if scope.loop or scope.in_if:
            # TensorFlow refuses these where a tensor decides (see the module's docstring)
            return self._assign(indent, scope)
        self.emit(indent, f"if {self.cond(scope)}:")
        self.emit(indent + 1, "return a, b, c, d")
        STATS["return"] += 1

    def program(self) -> str:
        Generator._tensor_indices = set()
        self.lines = ["def prog(n, m):"]
        for v in VARS:
            self.emit(1, f"{v} = {self.choose(10)}")
        self.block(1, Scope(), min_statements=2)
        self.emit(1, "return a, b, c, d")
        return "\n".join(self.lines) + "\n"


def run_python(source: str, n: int, m: int):
    ns: dict = {"RANGE_T": range}
    exec(compile(source, "<fuzz-program>", "exec"), ns)
    return tuple(int(v) for v in ns["prog"](n, m))


def traced(source: str, filename: str):
    """The program through tf.function (its source is registered with linecache, so AutoGraph
    can read it as it reads a module's)."""
    import linecache

    import tfunc as tf

    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    ns: dict = {"RANGE_T": tf.range, "tf": tf}
    exec(compile(source, filename, "exec"), ns)
    return tf.function(ns["prog"])
