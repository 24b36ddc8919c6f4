"""AutoGraph's rules, checked as TensorFlow's own reference tests check them: each function
runs eagerly (plain Python on eager tensors) and as a ``tf.function``, with Python and with
tensor arguments, and both must give the same values; where TensorFlow refuses a program,
the same exception class and wording."""

import itertools

import numpy as np
import pytest

import tfunc as tf


def _value(x):
    if isinstance(x, tf.Tensor):
        return x.numpy().tolist()
    if isinstance(x, (list, tuple)):
        return [_value(v) for v in x]
    if isinstance(x, dict):
        return {k: _value(v) for k, v in x.items()}
    if isinstance(x, np.generic):
        return x.item()
    return x


def matches_eager(fn, *args):
    """Runs ``fn`` eagerly and as a tf.function on the same arguments; returns the value."""
    expected = _value(fn(*args))
    got = _value(tf.function(fn)(*args))
    assert got == expected, f"{fn.__name__}{args}: function gave {got}, eager gave {expected}"
    return got


def as_int(x):
    return tf.constant(x, dtype=tf.int32)


# --- conditionals: variables defined, deleted or set to None in one branch ------------------


def assigns_in_main_only(c):
    if c:
        v = 1
    return v


def assigns_in_else_only(c):
    if c:
        pass
    else:
        v = 2
    return v


def assigns_in_both(c):
    if c:
        v = 1
    else:
        v = 2
    return v


def deletes_in_main(c):
    v = 1
    if c:
        del v
    return v


def deletes_in_both(c):
    v = 1
    if c:
        del v
    else:
        del v
    return v


def sets_none_in_main(c):
    a, b = 0, 1
    if c:
        a = None
        b = 2
    return a, b


def sets_none_in_else(c):
    a, b = 1, 1
    if c:
        pass
    else:
        a = None
        b = 2
    return a, b


def branch_local(c):
    total = 0
    if c:
        step = 1
        total = step + 1
    return total


@pytest.mark.parametrize("c", [True, False])
def test_python_condition_keeps_python_semantics(c):
    assert matches_eager(assigns_in_both, c) == (1 if c else 2)
    assert matches_eager(branch_local, c) == (2 if c else 0)
    if c:
        assert matches_eager(assigns_in_main_only, c) == 1
        assert matches_eager(sets_none_in_main, c) == [None, 2]
    else:
        assert matches_eager(assigns_in_else_only, c) == 2
        assert matches_eager(deletes_in_main, c) == 1
    with pytest.raises(UnboundLocalError, match="'v' is used before assignment"):
        tf.function(assigns_in_else_only if c else assigns_in_main_only)(c)
    with pytest.raises(UnboundLocalError, match="'v'"):
        tf.function(deletes_in_both)(c)


@pytest.mark.parametrize("c", [True, False])
def test_tensor_condition_needs_the_variable_in_both_branches(c):
    c = tf.constant(c)
    assert matches_eager(assigns_in_both, c) in (1, 2)
    assert matches_eager(branch_local, c) in (0, 2)
    with pytest.raises(ValueError, match="'v' must also be initialized in the else branch"):
        tf.function(assigns_in_main_only)(c)
    with pytest.raises(ValueError, match="'v' must also be initialized in the main branch"):
        tf.function(assigns_in_else_only)(c)
    with pytest.raises(ValueError, match="'v' must also be initialized in the main branch"):
        tf.function(deletes_in_main)(c)
    with pytest.raises(ValueError, match="'v' must also be initialized"):
        tf.function(deletes_in_both)(c)
    with pytest.raises(ValueError, match="'a' is None at the end of the main branch"):
        tf.function(sets_none_in_main)(c)
    with pytest.raises(ValueError, match="'a' is None at the end of the else branch"):
        tf.function(sets_none_in_else)(c)


def test_a_variable_set_in_one_branch_but_not_used_after_is_fine():
    @tf.function
    def f(x):
        if x > 0:
            scratch = x * 2  # noqa: F841 - only in this branch, never read afterwards
        return x + 1

    assert int(f(tf.constant(3))) == 4


def sum_of_digits_branches(n1, n2):
    s = 0
    i = 0
    if i < n1:
        s = s * 10 + i
        i += 1
    else:
        s = s * 11 + i
        i += 2
    i = 0
    if i < n2:
        s = s * 10 + i
        i += 1
    return s


def nested_branches(n1, n2):
    i, total = 0, 0
    if i < n1:
        j, s = 0, 0
        if j < n2:
            s = s * 10 + i * j
            j += 1
        else:
            s = s * 13 + i * j
        total = total * 1000 + s
        i += 1
    else:
        total = -1
    return total


@pytest.mark.parametrize("n1, t1, n2, t2", list(itertools.product((0, 1), (int, as_int), (0, 1), (int, as_int))))
def test_successive_and_nested_conditionals(n1, t1, n2, t2):
    matches_eager(sum_of_digits_branches, t1(n1), t2(n2))
    matches_eager(nested_branches, t1(n1), t2(n2))


def test_branches_may_give_different_shapes():
    @tf.function
    def pick(c):
        if c:
            y = tf.zeros([2])
        else:
            y = tf.ones([3])
        return y

    assert pick(tf.constant(True)).numpy().tolist() == [0.0, 0.0]
    assert pick(tf.constant(False)).numpy().tolist() == [1.0, 1.0, 1.0]
    assert pick.get_concrete_function(tf.constant(True)).outputs[0].shape.as_list() == [None]

    @tf.function
    def ranks(c):
        if c:
            y = tf.zeros([2, 2])
        else:
            y = tf.zeros([3])
        return y

    assert ranks(tf.constant(True)).shape == (2, 2)
    assert ranks(tf.constant(False)).shape == (3,)
    assert ranks.get_concrete_function(tf.constant(True)).outputs[0].shape.rank is None


# --- returns ------------------------------------------------------------------------------------


def return_or_fall_through(x):
    if x > 0:
        tf.print("positive", x)
        return x
    return x * x


def return_depends_on_local(c):
    t = tf.constant(1)
    if c:
        return t
    t = tf.stack([t, t])
    return tf.reduce_sum(t)


def possibly_no_return(x):
    if x > 0:
        if x < 5:
            return x
    else:
        return x * x * x


def returns_in_every_branch(x):
    if x > 0:
        if x < 5:
            return x
        else:
            return x * x
    else:
        return x * x * x


def returns_inside_try(x):
    try:
        if x > 0:
            return 1
        return 0
    finally:
        x = x + 1


def _raises():
    raise ValueError("no value")


def return_that_raises_is_caught(c):
    if c:
        return 2
    try:
        return _raises()
    except ValueError:
        pass
    return 1


@pytest.mark.parametrize("n, kind", list(itertools.product((-1, 0, 3, 6), (int, as_int))))
def test_early_returns(n, kind):
    matches_eager(return_or_fall_through, kind(n))
    matches_eager(returns_in_every_branch, kind(n))
    matches_eager(returns_inside_try, kind(n))
    matches_eager(return_depends_on_local, kind(n) > 0)
    matches_eager(return_that_raises_is_caught, kind(n) > 0)


@pytest.mark.parametrize("n", [0, 3, 5])
def test_return_in_one_branch_only(n):
    matches_eager(possibly_no_return, n)  # Python condition: Python semantics
    with pytest.raises(ValueError, match="else branch must also have a return statement"):
        tf.function(possibly_no_return)(tf.constant(n))


def nested_return_then_default(c1, c2):
    if c1:
        if c2:
            return 1
    return 2


@pytest.mark.parametrize("c1, c2", list(itertools.product((True, False), (True, False))))
def test_nested_possibly_undefined_return(c1, c2):
    matches_eager(nested_return_then_default, c1, c2)
    with pytest.raises(ValueError, match="must also have a return statement"):
        tf.function(nested_return_then_default)(tf.constant(c1), tf.constant(c2))


# --- items and attributes in control flow ------------------------------------------------------


def dict_item_in_both(a):
    x = {"a": a}
    if x["a"] > 0:
        x["b"] = 1
    else:
        x["b"] = -1
    return x


def list_item_in_both(a):
    x = [a, 0]
    if x[0] > 0:
        x[1] = 1
    else:
        x[1] = -1
    return x


def new_key_in_main(a):
    x = {"a": a}
    if x["a"] > 0:
        x["b"] = 1
    return x


def new_key_in_else(a):
    x = {"a": a}
    if x["a"] > 0:
        pass
    else:
        x["b"] = 1
    return x


def new_nested_key(a):
    x = {"a": {"a": a}}
    if x["a"]["a"] > 0:
        x["a"]["b"] = 1
    return x


def missing_parent_key(a):
    x = {"a": {"a": a}}
    if x["a"]["a"] > 0:
        x["b"]["a"] = 1
    return x


@pytest.mark.parametrize("a, kind", list(itertools.product((0, 1), (int, as_int))))
def test_items_assigned_in_branches(a, kind):
    assert matches_eager(dict_item_in_both, kind(a))["b"] == (1 if a else -1)
    assert matches_eager(list_item_in_both, kind(a))[1] == (1 if a else -1)
    if kind is int:
        matches_eager(new_key_in_main, a)
        matches_eager(new_key_in_else, a)
        matches_eager(new_nested_key, a)
    with pytest.raises(KeyError, match="'b'"):
        tf.function(missing_parent_key)(kind(1))


@pytest.mark.parametrize("a", [0, 1])
def test_a_key_created_in_one_branch_only(a):
    with pytest.raises(ValueError, match=r"'x\['b'\]' must also be initialized in the else branch"):
        tf.function(new_key_in_main)(tf.constant(a))
    with pytest.raises(ValueError, match=r"'x\['b'\]' must also be initialized in the main branch"):
        tf.function(new_key_in_else)(tf.constant(a))
    with pytest.raises(ValueError, match=r"'x\['a'\]\['b'\]' must also be initialized in the else branch"):
        tf.function(new_nested_key)(tf.constant(a))


def count_in_dict(x, a, b):
    y = {"a": a, "b": b}
    while x > 0:
        x -= 1
        y["a"] += 1
    return y


def state_in_list(a, b):
    y = [a, b]
    while y[1] <= 10:
        y[0] += 1
        y[1] *= 2
    return y


def sum_into_item(n, a):
    y = {"a": a}
    for i in range(n):
        y["a"] += i
    return y


def key_created_in_loop(n, x):
    y = {}
    for i in range(n):
        x -= i
        y["a"] = x
    return y


@pytest.mark.parametrize("n, kind", list(itertools.product((0, 1, 2, 5), (int, as_int))))
def test_items_as_loop_variables(n, kind):
    assert matches_eager(count_in_dict, kind(n), 3, 0)["a"] == 3 + n
    matches_eager(state_in_list, 0, kind(n + 1))
    assert matches_eager(sum_into_item, kind(n), 1)["a"] == 1 + sum(range(n))
    if n:
        matches_eager(key_created_in_loop, kind(n), 0)


def test_a_key_a_loop_creates_needs_one_iteration():
    f = tf.function(key_created_in_loop)
    assert int(f(tf.constant(2), 0)["a"]) == -1
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"loop must iterate at least once to initialize y\['a'\]"):
        f(tf.constant(0), 0)


def test_attributes_as_state():
    class Counter:
        def __init__(self):
            self.n = tf.constant(0)

    @tf.function
    def count(limit):
        c = Counter()
        while c.n < limit:
            c.n += 1
        if c.n > 3:
            c.n = c.n * 10
        return c.n

    assert int(count(tf.constant(5))) == 50
    assert int(count(tf.constant(2))) == 2


# --- loops: variables they create, iterates, illegal forms ------------------------------------


def while_creates(n):
    i = 0
    while i < n:
        i = n + 1
        j = i + 1
    return i, j


def for_creates_iterate(items):
    for item in items:  # noqa: B007 - the iterate is read after the loop
        pass
    return item


def last_square(items):
    for v in items:
        sq = v * v
    return sq


def creates_nested(n):
    i = 0
    while i < n:
        v = {"a": tf.zeros([1, 2]), "b": tf.ones([2])}
        i += 1
    return v["a"], v["b"]


def creates_dynamic_shape(n):
    i = 0
    while i < n:
        v = tf.range(i)
        i += 1
    return v


@pytest.mark.parametrize("n, kind", list(itertools.product((1, 2), (int, as_int))))
def test_loop_created_variables_after_one_iteration(n, kind):
    matches_eager(while_creates, kind(n))
    matches_eager(creates_nested, kind(n))
    matches_eager(creates_dynamic_shape, kind(n))
    items = list(range(1, n + 2)) if kind is int else tf.constant(list(range(1, n + 2)))
    matches_eager(for_creates_iterate, items)
    matches_eager(last_square, items)


def test_loop_created_variables_when_the_loop_does_not_run():
    with pytest.raises(UnboundLocalError, match="used before assignment"):
        tf.function(while_creates)(0)
    with pytest.raises(UnboundLocalError, match="used before assignment"):
        tf.function(for_creates_iterate)([])
    for fn, arg in [
        (while_creates, tf.constant(0)),
        (for_creates_iterate, tf.constant([], dtype=tf.int32)),
        (creates_nested, tf.constant(0)),
        (creates_dynamic_shape, tf.constant(0)),
    ]:
        with pytest.raises(tf.errors.InvalidArgumentError, match="loop must iterate at least once"):
            tf.function(fn)(arg)


def test_loop_local_variables_need_no_iteration():
    def local_only(items):
        s = 0
        for v in items:
            w = v + 2
            s = s * 10 + w
        return s

    for items in ([], [1], [1, 2]):
        matches_eager(local_only, items)
        matches_eager(local_only, tf.constant(items, dtype=tf.int32))


def iterate_after_range(n):
    s = 0
    for i in tf.range(n):
        s = s * 10 + i
    return i, s


def reuses_iterate(n):
    i = 7
    s = 0
    for i in tf.range(n):
        i = 3 * i + 1
        s = s * 10 + i
    return i, s


def test_the_iterate_of_a_range_is_visible_after_the_loop():
    f = tf.function(iterate_after_range)
    assert _value(f(3)) == [2, 12]
    assert _value(f(tf.constant(2))) == [1, 1]
    assert _value(f(0)) == [0, 0]  # the iterate of an empty range is its start
    assert _value(f(tf.constant(0))) == [0, 0]
    for n in (0, 1, 2):
        matches_eager(reuses_iterate, n)
        matches_eager(reuses_iterate, tf.constant(n))


def read_before_set(n):
    for i in tf.range(n):
        if i == 0:
            a = 1
        else:
            a = a + 1  # noqa: F821 - reads the previous iteration's value
    return a


def test_a_loop_variable_read_before_it_is_set():
    with pytest.raises(ValueError, match="'a' must be defined before the loop"):
        tf.function(read_before_set)(tf.constant(2))


def for_with_else(items):
    s = 0
    for c in items:
        s += c
    else:
        s = -1
    return s


def while_with_else(x):
    s = 0
    while x > 0:
        x -= 1
        s += x
    else:
        s = -100
    return s


def test_loop_else_clauses():
    assert matches_eager(for_with_else, [1, 2]) == -1  # a Python loop runs as Python
    with pytest.raises(NotImplementedError, match="for/else statement not yet supported"):
        tf.function(for_with_else)(tf.constant([1, 2]))
    with pytest.raises(NotImplementedError, match="for/else statement not yet supported"):
        tf.function(for_with_else)(tf.data.Dataset.from_tensor_slices([1, 2]))
    with pytest.raises(NotImplementedError, match="while/else statement not yet supported"):
        tf.function(while_with_else)(tf.constant(3))


def tensor_break_in_python_for(items):
    s = 0
    for c in items:
        if tf.greater(c % 2, 0):
            break
        s += c
    return s


def tensor_return_in_python_for(items):
    s = 0
    for c in items:
        if tf.greater(c % 2, 0):
            return s
        else:
            return s
    return s


def tensor_break_in_python_while(x):
    s = 0
    while x > 0:
        x -= 1
        if tf.greater(x % 2, 0):
            break
        s += x
    return s


def python_while_turns_tensor():
    n = tf.constant(0)
    keep_going = True
    while keep_going:
        keep_going = tf.constant(True)
    return n


@pytest.mark.parametrize("items", [[1], [1, 2], [1, 2, 3]])
def test_tensor_control_flow_inside_python_loops(items):
    for fn in (tensor_break_in_python_for, tensor_return_in_python_for):
        with pytest.raises(NotImplementedError, match="not supported in Python for"):
            tf.function(fn)(items)
    with pytest.raises(NotImplementedError, match="condition of while loop started as non-Tensor, then changed"):
        tf.function(tensor_break_in_python_while)(len(items))
    with pytest.raises(NotImplementedError, match="condition of while loop started as non-Tensor, then changed"):
        tf.function(python_while_turns_tensor)()


# --- loop variables that change type -------------------------------------------------------------


def changes_dtype_in_while():
    n = tf.constant(0, dtype=tf.int32)
    while tf.constant(True):
        n = tf.constant(0, dtype=tf.float32)
        break
    return n


def changes_dtype_in_for(items):
    n = tf.constant(0, dtype=tf.int32)
    for _ in items:
        n = tf.constant(0, dtype=tf.float32)
    return n


def changes_shape(items):
    t = tf.constant([1])
    for _ in items:
        t = tf.constant([1, 1])
    return t


def changes_structure_in_while():
    s = {"a": tf.constant(0)}
    while tf.constant(True):
        s = tf.constant(7.0)
    return s


def grows_list(items):
    s = [tf.constant(0)]
    for _ in items:
        s = s + [tf.constant(0)]
    return s


def violates_invariant(items):
    t = tf.constant([1])
    for _ in items:
        tf.autograph.experimental.set_loop_options(shape_invariants=[(t, tf.TensorShape([1]))])
        t = tf.zeros([2], tf.int32)
    return t


@pytest.mark.parametrize(
    "make",
    [
        lambda v: tf.constant(v),
        lambda v: tf.range(len(v)),
        lambda v: tf.data.Dataset.from_tensor_slices(v),
        lambda v: iter(tf.data.Dataset.from_tensor_slices(v)),
    ],
)
def test_loop_variables_keep_dtype_and_structure(make):
    items = [1, 2, 3]
    with pytest.raises(TypeError, match="'n' has dtype int32 before the loop, but dtype float32 after"):
        tf.function(changes_dtype_in_for)(make(items))
    with pytest.raises(TypeError, match="'s' does not have the same nested structure"):
        tf.function(grows_list)(make(items))


def test_loop_variable_errors():
    with pytest.raises(TypeError, match="'n' has dtype int32 before the loop, but dtype float32 after"):
        tf.function(changes_dtype_in_while)()
    with pytest.raises(TypeError, match="'s' does not have the same nested structure"):
        tf.function(changes_structure_in_while)()
    for items in (tf.constant([1, 2, 3]), tf.range(3)):
        with pytest.raises(ValueError, match=r"'t' has shape \(1,\) before the loop, but shape \(2,\) after"):
            tf.function(changes_shape)(items)
        with pytest.raises(ValueError, match=r"'t' has shape \(2,\) after one iteration, which does not conform"):
            tf.function(violates_invariant)(items)


def growing_vector(n):
    v = tf.constant([0, 0])
    i = 0
    while i < n:
        tf.autograph.experimental.set_loop_options(shape_invariants=[(v, tf.TensorShape([None]))])
        v = tf.concat((v, [i]), 0)
        i += 1
    return v


def growing_rows(items):
    m = tf.constant([[0]])
    for i in items:
        tf.autograph.experimental.set_loop_options(shape_invariants=[(m, tf.TensorShape([None, 1]))])
        m = tf.concat((m, [[i]]), 0)
    return m


def grows_inside_if(n):
    v = tf.constant([0, 0])
    i = 0
    if n > 1:
        while i < n:
            tf.autograph.experimental.set_loop_options(shape_invariants=[(v, tf.TensorShape([None]))])
            v = tf.concat((v, [i]), 0)
            i += 1
            if i > 3:
                break
    else:
        v = tf.constant([1, 2, 3])
    return v


@pytest.mark.parametrize("n, kind", list(itertools.product((0, 1, 2, 5), (int, as_int))))
def test_shape_invariants_let_loop_variables_grow(n, kind):
    matches_eager(growing_vector, kind(n))
    matches_eager(grows_inside_if, kind(n))
    matches_eager(growing_rows, range(n))
    matches_eager(growing_rows, tf.range(n))


# --- nesting, logical expressions, calls, lambdas --------------------------------------------------


def nested_loops_with_tensor_array(n1, n2):
    i = 0
    out = tf.TensorArray(tf.int32, size=0, dynamic_size=True, element_shape=())
    while i < n1:
        j, s = 0, 0
        while j < n2:
            s = s * 10 + i * j
            j += 1
        out = out.write(i, s)
        i += 1
    return out.stack()


def rows_to_numbers(m):
    out = tf.TensorArray(tf.int32, size=0, dynamic_size=True, element_shape=())
    for row in m:
        s = 0
        for d in row:
            s = s * 10 + d
        out = out.write(out.size(), s)
    return out.stack()


def break_and_continue_inner(m):
    s = 0
    for row in m:
        for c in row:
            if c % 2 > 0:
                break
            else:
                continue
            s += c
    return s


def dependent_inner_while(a, b):
    r = 1
    while a > 0:
        r += 1
        tmp = b
        while tmp > 0:
            a -= 1
            tmp -= 1
        a -= 1
    return r


@pytest.mark.parametrize("n1, n2, kind", list(itertools.product((0, 1, 2), (0, 1, 2), (int, as_int))))
def test_nested_loops(n1, n2, kind):
    matches_eager(nested_loops_with_tensor_array, kind(n1), kind(n2))
    matches_eager(dependent_inner_while, kind(n1 + 1), kind(n2))
    m = [[d + 1 for d in range(n2)] for _ in range(n1)]
    if n1:
        matches_eager(rows_to_numbers, tf.constant(m, dtype=tf.int32))
        matches_eager(break_and_continue_inner, tf.constant(m, dtype=tf.int32))
        matches_eager(rows_to_numbers, tf.data.Dataset.from_tensor_slices(tf.constant(m, dtype=tf.int32)))


def ors_with_callable(x, y, z):
    z1 = lambda: z  # noqa: E731
    return x or y or z1()


def mixed_logic(x, y, z):
    return x or y or z and y and z


def ordered(x, y, z):
    return x < y and y < z


@pytest.mark.parametrize("args", list(itertools.product((False, True), repeat=3)))
def test_logical_expressions(args):
    for fn in (ors_with_callable, mixed_logic):
        matches_eager(fn, *args)
        matches_eager(fn, *[tf.constant(a) for a in args])


@pytest.mark.parametrize("args", list(itertools.permutations((1, 2, 3))))
def test_chained_comparisons(args):
    matches_eager(ordered, *args)
    matches_eager(ordered, *[tf.constant(a) for a in args])


def cube(x):
    return x * x * x


def affine(x):
    return -1 * x + 11


def pick_fn(n):
    if n == 1:
        return cube
    return affine


def through_factory(x):
    f = pick_fn(1)
    a = f(x)
    f = pick_fn(2)
    return a + f(x)


def through_parameter(f, x):
    return f(x=x)


def through_library(x):
    f = tf.identity
    return f(x)


def inline_lambda(x):
    square_or_negate = lambda v: v * v if v > 0 else -v  # noqa: E731
    return square_or_negate(x)


def external_lambda(x, fn):
    return fn(x)


@pytest.mark.parametrize("kind", [int, as_int])
def test_calls_to_user_functions_and_lambdas(kind):
    matches_eager(through_factory, kind(2))
    matches_eager(through_parameter, cube, kind(2))
    matches_eager(through_library, kind(2))
    for v in (-3, 2):
        matches_eager(inline_lambda, kind(v))
        matches_eager(external_lambda, kind(v), lambda x: x * x if x > 0 else -x)


def test_converted_lambda_stages_a_conditional():
    @tf.function
    def f(x):
        g = lambda v: v if v > 0 else -v  # noqa: E731
        return g(x)

    assert int(f(tf.constant(-4))) == 4
    assert "cond" in [n.op for n in f.get_concrete_function(tf.constant(1)).graph.as_graph_def().node]


@tf.function
def _countdown(n):  # at module level: the name is looked up in the module's globals
    if n > 0:
        return _countdown(n - 1)
    return n


def test_recursive_function_gives_a_recursion_error():
    with pytest.raises(RecursionError, match="called itself"):
        _countdown(tf.constant(3))  # once a KeyError for the name, from the converted code

    @tf.function
    def countdown(n):
        if n > 0:
            return countdown(n - 1)
        return n

    with pytest.raises(RecursionError):
        countdown(tf.constant(3))

    @tf.function
    def fact(n):  # Python recursion on Python values is fine
        return 1 if n <= 1 else n * fact(n - 1)

    assert int(fact(5)) == 120


def test_to_code_has_tensorflows_form():
    def simple_relu(x):
        if tf.greater(x, 0):
            return x
        else:
            return 0

    code = tf.autograph.to_code(simple_relu)
    assert code.startswith("def tf__simple_relu(x):\n")
    assert "with ag__.FunctionScope('simple_relu', 'fscope', ag__.ConversionOptions(recursive=True" in code
    for piece in (
        "do_return = False",
        "retval_ = ag__.UndefinedReturnValue()",
        "def get_state():",
        "def set_state(vars_):",
        "nonlocal do_return, retval_",
        "def if_body():",
        "def else_body():",
        "ag__.if_stmt(ag__.converted_call(ag__.ld(tf).greater, (ag__.ld(x), 0), None, fscope), if_body, "
        "else_body, get_state, set_state, ('do_return', 'retval_'), 2)",
        "return fscope.ret(retval_, do_return)",
    ):
        assert piece in code, piece
