"""What lowering emits: operators on 0-d host values, NumPy callables bound directly."""

import numpy as np
import pytest

import tfunc as tf


def _loop():
    @tf.function
    def f(x):
        while tf.reduce_sum(x) > 1:
            x = tf.tanh(x)
        return x

    return f


def test_a_loop_condition_on_scalars_is_a_python_comparison():
    f = _loop()
    x = tf.constant([0.125, 0.25, 0.375, 0.5, 0.625])
    source = f.get_concrete_function(x).plan.source
    assert " > " in source  # not a ufunc call: 0-d values compare as NumPy scalars
    want = x.numpy()
    while want.sum() > 1:
        want = np.tanh(want)
    np.testing.assert_array_equal(f(x).numpy(), want)


@pytest.mark.parametrize("op", [tf.greater, tf.less, tf.equal, tf.not_equal, tf.less_equal, tf.greater_equal])
def test_scalar_comparisons_keep_ufunc_semantics_nan_included(op):
    f = tf.function(lambda a, b: op(tf.reduce_sum(a), b))
    for a, b in [([1.0, 2.0], 3.0), ([np.nan], 1.0), ([1.0], np.nan), ([2.0], 2.0)]:
        a, b = np.float32(a), np.float32(b)
        got = f(tf.constant(a), tf.constant(b))
        assert got.dtype is tf.bool and bool(got) == bool(getattr(np, op.__name__)(a.sum(), b))


def test_integer_scalar_arithmetic_stays_a_ufunc():
    # NumPy's integer scalar operators warn on overflow where the ufunc wraps silently.
    f = tf.function(lambda a, b: tf.reduce_sum(a) + b)
    big = np.int32(2**31 - 1)
    with np.errstate(over="raise"):
        assert int(f(tf.constant([big]), tf.constant(np.int32(1)))) == -(2**31)
    assert " + " not in f.get_concrete_function(tf.constant([big]), tf.constant(np.int32(1))).plan.source


def test_full_reductions_bind_numpy_directly_and_agree_with_the_kernel(rng):
    for dt in (np.float32, np.int32, np.float64):
        x = (rng.standard_normal((4, 3)) * 10).astype(dt)
        f = tf.function(lambda t: (tf.reduce_sum(t), tf.reduce_prod(t, axis=1), tf.reduce_sum(t, keepdims=True)))
        s, p, k = f(tf.constant(x))
        assert s.dtype.as_numpy_dtype == dt and s.numpy() == np.add.reduce(x, axis=None, dtype=dt)
        np.testing.assert_array_equal(p.numpy(), np.multiply.reduce(x, axis=1, dtype=dt))
        assert k.shape == (1, 1)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_a_static_split_is_slicing_written_into_the_plan(rng, axis):
    x = rng.standard_normal((6, 9)).astype(np.float32)
    sizes = [2, 0, 4] if axis == 0 else [3, 5, 0, 1]

    def f(t):
        return [p * 2.0 for p in tf.split(t, sizes, axis=axis)]

    static = tf.function(f).get_concrete_function(tf.TensorSpec([6, 9]))
    lead = "" if axis == 0 else ":, "
    bounds = np.cumsum([0] + sizes)
    for start, stop in zip(bounds[:-1], bounds[1:]):
        assert f"[{lead}{start}:{stop}]" in static.plan.source
    unknown = tf.function(f).get_concrete_function(tf.TensorSpec([None, None]))  # the kernel checks sizes
    assert f"[{lead}0:{sizes[0]}]" not in unknown.plan.source
    expected = [p * 2 for p in np.split(x, np.cumsum(sizes)[:-1], axis=axis)]
    for cf in (static, unknown):
        got = cf(tf.constant(x))
        assert [g.shape for g in got] == [e.shape for e in expected]
        for g, e in zip(got, expected):
            np.testing.assert_array_equal(g.numpy(), e)
    with pytest.raises(tf.errors.InvalidArgumentError, match="do not add up"):
        unknown(tf.constant(np.ones((7, 10), np.float32)))


def test_split_views_share_the_input_memory():
    f = tf.function(lambda t: tf.split(t, [1, 2], axis=1))
    cf = f.get_concrete_function(tf.TensorSpec([2, 3], tf.int32))
    source = cf.plan.source
    assert "[:, 0:1], " in source and "[:, 1:3]," in source
    a, b = cf(tf.constant([[1, 2, 3], [4, 5, 6]]))
    assert a.numpy().tolist() == [[1], [4]] and b.numpy().tolist() == [[2, 3], [5, 6]]


def test_small_static_products_bind_numpy_dot(rng):
    from tfunc.backend.numpy.kernels import specialized
    from tfunc.core.specs import Spec

    def S(shape, dtype=tf.float32):  # what lowering passes: shape tuples
        return Spec(tuple(shape), dtype)

    small = [S([3, 4]), S([4, 5])]
    assert specialized("matmul", {"transpose_a": False, "transpose_b": False}, small) is np.dot
    assert specialized("matmul", {}, [S([3, 4], tf.complex64), S([4, 5], tf.complex64)]) is np.matmul
    assert specialized("matmul", {}, [S([3, 4], tf.float16), S([4, 5], tf.float16)]) is np.matmul
    assert specialized("matmul", {"transpose_a": True, "transpose_b": False}, small) is None
    assert specialized("matmul", {}, [S([None, 4]), S([4, 5])]) is None
    assert specialized("matmul", {}, [S([2, 3, 4]), S([4, 5])]) is None  # batched: the wrapper
    assert specialized("matmul", {}, [S([3, 4], tf.int32), S([4, 5], tf.int32)]) is None
    assert specialized("matmul", {}, [S([3, 4], tf.bfloat16), S([4, 5], tf.bfloat16)]) is None
    assert specialized("matmul", {}, [S([3000, 3000]), S([3000, 3000])]) is None  # split over both cores

    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in ((3, 4), (4, 5), (5,)))

    @tf.function
    def dense(x, w, b):
        return tf.tanh(tf.matmul(x, w) + b), tf.matmul(x, w, transpose_b=False)

    y, p = dense(tf.constant(x), tf.constant(w), tf.constant(b))
    np.testing.assert_allclose(y.numpy(), np.tanh(x @ w + b), rtol=1e-6)
    np.testing.assert_allclose(p.numpy(), x @ w, rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.float16])
def test_small_products_agree_bit_for_bit_eager_and_traced(rng, dtype):
    # eager runs the matmul kernel, a plan binds np.dot (np.matmul for float16) straight:
    # both must give the same bits, whatever the operands' layout
    def draw(*shape):
        x = rng.standard_normal(shape)
        if np.dtype(dtype).kind == "c":
            x = x + 1j * rng.standard_normal(shape)
        return x.astype(dtype)

    cases = [
        (draw(3, 4), draw(4, 5), {}),
        (draw(1, 7), draw(7, 6), {}),
        (draw(6, 7), draw(7, 1), {}),
        (draw(3, 1), draw(1, 4), {}),  # an outer product
        (draw(0, 4), draw(4, 3), {}),
        (draw(3, 0), draw(0, 2), {}),
        (draw(4, 3), draw(4, 5), {"transpose_a": True}),
        (draw(3, 4), draw(5, 4), {"transpose_b": True}),
        (draw(5, 8)[:, ::2], draw(4, 1), {}),  # strided: copied for BLAS
    ]
    for a, b, kw in cases:
        eager = tf.matmul(tf.constant(a), tf.constant(b), **kw).numpy()
        traced = tf.function(lambda x, y, kw=kw: tf.matmul(x, y, **kw))(tf.constant(a), tf.constant(b)).numpy()
        assert eager.dtype == dtype and eager.shape == traced.shape
        assert np.array_equal(eager, traced), (a.shape, b.shape, kw)
        if a.flags.c_contiguous:  # (a strided operand is copied for BLAS in 2-D, not in a batch)
            batched = tf.matmul(tf.constant(a[None]), tf.constant(b[None]), **kw).numpy()[0]
            assert np.array_equal(eager, batched), (a.shape, b.shape, kw)  # a 2-D product is a batch of one
        want = np.matmul(a.T if kw.get("transpose_a") else a, b.T if kw.get("transpose_b") else b)
        np.testing.assert_allclose(eager, want, rtol=1e-2 if dtype == np.float16 else 1e-5, atol=1e-5)


def test_a_vector_sum_binds_the_bare_reduce_and_keeps_the_dtype(rng):
    from tfunc.backend.numpy.kernels import specialized
    from tfunc.core.specs import Spec

    def S(shape, dtype=tf.float32):  # what lowering passes: shape tuples (None: unknown)
        return Spec(None if shape is None else tuple(shape), dtype)

    full = {"axis": None, "keepdims": False}
    assert specialized("reduce_sum", full, [S([5])]) == np.add.reduce
    assert specialized("reduce_sum", {"axis": (0,), "keepdims": False}, [S([5], tf.float64)]) == np.add.reduce
    for spec in (S([5], tf.int32), S([5], tf.float16), S([2, 3]), S([None, 3]), S(None)):
        assert specialized("reduce_sum", full, [spec]) != np.add.reduce
    assert specialized("reduce_sum", {"axis": None, "keepdims": True}, [S([5])]) != np.add.reduce
    for dt in (np.float32, np.float64, np.int32, np.float16):
        x = (rng.standard_normal(7) * 4).astype(dt)
        s, p = tf.function(lambda t: (tf.reduce_sum(t), tf.reduce_prod(t)))(tf.constant(x))
        assert s.dtype.as_numpy_dtype == dt and p.dtype.as_numpy_dtype == dt
        np.testing.assert_array_equal(s.numpy(), np.add.reduce(x, dtype=dt))
        np.testing.assert_array_equal(p.numpy(), np.multiply.reduce(x, dtype=dt))
    f = _loop()
    np.testing.assert_allclose(
        f(tf.constant([0.5, 0.75], tf.float32)).numpy(), np.tanh(np.tanh([0.5, 0.75])), rtol=1e-6
    )


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.float16, np.int32])
def test_fused_sigmoid_and_division_agree_with_numpy(rng, dt):
    # float division binds np.true_divide, float16 keeps the impl, integers divide into
    # floats as TensorFlow's truediv does; sigmoid runs inside the fused kernel
    x = (rng.standard_normal((3, 50)) * 3).astype(dt)
    if dt is np.int32:
        f = tf.function(lambda t: (t * 2 + 1) / (t * t + 1))
        expected = ((x * 2 + 1) / (x * x + 1)).astype(np.float64)
        got = f(tf.constant(x))
        assert got.dtype == tf.float64
        np.testing.assert_allclose(got.numpy(), expected)
        return
    f = tf.function(lambda t: tf.sigmoid(t * 0.5 + 0.25) / 3.0 - t)
    wide = x.astype(np.float64)
    expected = 1 / (1 + np.exp(-(wide * 0.5 + 0.25))) / 3.0 - wide
    got = f(tf.constant(x))
    assert got.dtype.as_numpy_dtype == dt
    np.testing.assert_allclose(got.numpy(), expected, rtol=2e-3 if dt is np.float16 else 1e-5, atol=1e-3)
    ops = [n.op for n in f.get_concrete_function(tf.constant(x)).optimized_graph.nodes()]
    assert "fused_elementwise" in ops and "sigmoid" not in ops


def test_impl_constants_are_read_only_zero_d_arrays_of_the_operand_dtype(rng):
    # relu/relu6/sigmoid/elu/softplus take their constants as cached 0-d arrays of the
    # operand's dtype on NumPy (no scalar conversion per call; maximum keeps its vector loop)
    import ml_dtypes

    from tfunc.ops import math as m

    for dt in (np.float16, ml_dtypes.bfloat16, np.float32, np.float64, np.int8, np.uint8, np.int64):
        x = np.zeros(3, dt)
        half, zero = m._HALF.of(np, x), m._ZERO.of(np, x)
        assert zero.shape == () and zero.dtype == x.dtype and not zero.flags.writeable
        assert zero is m._ZERO.of(np, x)  # cached per dtype
        assert half.dtype == x.dtype
        with pytest.raises(ValueError):
            zero[()] = 1
    assert type(m._ZERO.of(None, np.zeros(2, np.float32))) is np.float32  # another array module: a scalar

    # an op writing into its out= buffer never reaches the shared constant
    for dt in (np.float32, np.float16, np.float64):
        x = (rng.standard_normal(257) * 4).astype(dt)
        x[:3] = (np.inf, -np.inf, np.nan)

        @tf.function
        def acts(t):
            return tf.nn.relu(t), tf.nn.relu6(t * 2.0), tf.sigmoid(t) * 3.0, tf.nn.elu(t), tf.nn.softplus(t)

        eager = [
            a.numpy() for a in (tf.nn.relu(x), tf.nn.relu6(x * 2), tf.sigmoid(x) * 3, tf.nn.elu(x), tf.nn.softplus(x))
        ]
        for _ in range(2):
            for got, want in zip(acts(tf.constant(x)), eager):
                assert got.dtype.as_numpy_dtype == dt
                np.testing.assert_array_equal(got.numpy(), want)
        wide = x.astype(np.float64)
        np.testing.assert_array_equal(eager[0], np.maximum(wide, 0).astype(dt))
        tol = 3e-3 if dt is np.float16 else 1e-6  # 0.5 tanh(x/2) + 0.5: absolute, not relative, accuracy near 0
        np.testing.assert_allclose(eager[2], 3 / (1 + np.exp(-wide)), rtol=tol, atol=tol)
        assert m._ZERO[np.dtype(dt)][()] == 0 and m._HALF[np.dtype(dt)][()] == 0.5 and m._SIX[np.dtype(dt)][()] == 6


def test_a_split_part_no_one_reads_is_not_sliced(rng):
    """The LSTM pattern: four gates of which one is unread here (the others are returned or
    read); the plan slices only those three, and they equal NumPy's split."""
    x = rng.standard_normal((5, 12)).astype(np.float32)

    def f(t):
        i, g, c, o = tf.split(t, 4, axis=1)
        return i * 2.0, o, tf.tanh(c)

    cf = tf.function(f).get_concrete_function(tf.TensorSpec([5, 12]))
    source = cf.plan.source
    assert "[:, 0:3]" in source and "[:, 6:9]" in source and "[:, 9:12]" in source
    assert "[:, 3:6]" not in source
    want = np.split(x, 4, axis=1)
    got = cf(tf.constant(x))
    np.testing.assert_array_equal(got[0].numpy(), want[0] * 2)
    np.testing.assert_array_equal(got[1].numpy(), want[3])
    np.testing.assert_allclose(got[2].numpy(), np.tanh(want[2]), rtol=1e-6)


def _kernel_source(cf):
    """The source of the one fused kernel a plan calls."""
    (kernel,) = [v for v in cf.plan.fn.__defaults__ if getattr(v, "source", None)]
    return kernel.source


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_0d_float_arithmetic_works_on_numpy_scalars_and_keeps_ufunc_results(dtype):
    """On 0-d inputs, ``a + 1`` (one op: a plan line) and ``(a + 1) * b - a`` (a fused group) are
    Python operators on the inputs' scalars ``a[()]``: an operator on a 0-d array, like a ufunc
    call, costs about ten times more.  The results are the ufunc's, in the inputs' dtype,
    whether an input is a 0-d array or a NumPy scalar (an earlier output fed back)."""
    one = tf.function(lambda a: a + 1.0)
    group = tf.function(lambda a, b: (a + 1.0) * b - a)
    spec = tf.TensorSpec([], tf.as_dtype(dtype))
    assert "[()]" in one.get_concrete_function(spec).plan.source
    kernel = _kernel_source(group.get_concrete_function(spec, spec))
    assert "[()]" in kernel and " + " in kernel and " * " in kernel and " - " in kernel

    def ufuncs(a, b):
        return np.subtract(np.multiply(np.add(a, dtype(1.0)), b), a)

    for a, b in [(1.5, 2.0), (np.inf, 0.5), (np.nan, 1.0), (-3.25, np.finfo(dtype).max)]:
        a, b = np.asarray(a, dtype), np.asarray(b, dtype)
        with np.errstate(all="ignore"):
            got, want = group(tf.constant(a), tf.constant(b)), ufuncs(a, b)
            again = group(got, tf.constant(b))  # a NumPy scalar as the input
            plus = one(got)
            want_again, want_plus = ufuncs(want, b), np.add(want, dtype(1.0))
        for t, w in ((got, want), (again, want_again), (plus, want_plus)):
            assert t.dtype.as_numpy_dtype == dtype
            np.testing.assert_array_equal(t.numpy(), w)


def test_0d_integer_groups_keep_ufunc_calls_that_wrap():
    """Integer operators on NumPy scalars warn on overflow where the ufunc wraps silently: a
    0-d integer group keeps its ufunc calls (comparisons may be operators)."""
    f = tf.function(lambda a, b: (a + b) * b)
    spec = tf.TensorSpec([], tf.int32)
    assert " + " not in _kernel_source(f.get_concrete_function(spec, spec))
    big = np.int32(2**31 - 1)
    with np.errstate(over="raise"):
        got = f(tf.constant(big), tf.constant(np.int32(1)))
    assert int(got) == -(2**31)


def test_bfloat16_scalars_keep_ufunc_calls_that_report_floating_point_errors():
    """ml_dtypes' scalar operators never check the floating-point status: bfloat16 stays on
    ufunc calls, so np.errstate's "raise" raises in a function as it does eagerly."""
    bf = tf.bfloat16.as_numpy_dtype
    one, zero, nan = (tf.constant(np.array(v, bf)) for v in (1.0, 0.0, np.nan))
    cases = [(lambda a, b: a / b, zero), (lambda a, b: (a + b) / b, zero), (lambda a, b: a < b, nan)]
    for fn, b in cases:
        f = tf.function(fn)
        cf = f.get_concrete_function(one, b)
        kernels = [v.source for v in cf.plan.fn.__defaults__ if getattr(v, "source", None)]
        assert "[()]" not in cf.plan.source + "".join(kernels)
        with np.errstate(all="raise"):
            with pytest.raises(tf.errors.InvalidArgumentError):
                fn(one, b)  # eagerly
            with pytest.raises(tf.errors.InvalidArgumentError):
                f(one, b)


def test_a_0d_group_gives_non_operator_steps_their_inputs_as_given():
    """Only operator steps read an input's scalar: a cast of a 0-d input in the same group
    returns what the cast returns eagerly (a 0-d array), not a NumPy scalar."""
    f = tf.function(lambda a, b: (tf.cast(a, tf.float64), tf.cast(a, tf.float64) * b))
    a, b = tf.constant(np.float32(1.5)), tf.constant(np.float64(2.0))
    cast, product = f(a, b)
    assert type(cast.numpy()) is type(tf.cast(a, tf.float64).numpy())
    assert float(product) == 3.0 and product.dtype is tf.float64
