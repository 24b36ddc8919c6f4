"""Eager tensors: dtype rules, printing, operators, indexing, conversions, interop."""

import numpy as np
import pytest

import tfunc as tf
from tfunc.core.errors import IncompatibleShapesError, InvalidArgumentError

# --- dtypes and conversion ------------------------------------------------------


@pytest.mark.parametrize(
    "value, dtype",
    [
        (1, tf.int32),
        (1.0, tf.float32),
        ("a", tf.string),
        (b"a", tf.string),
        (True, tf.bool),
        ([1, 2], tf.int32),
        ([1, 2.0], tf.float32),
        ([[True], [False]], tf.bool),
        (2**40, tf.int64),
        (np.array([1.0]), tf.float64),
        (np.float16(1), tf.float16),
        (np.array([1], np.uint8), tf.uint8),
    ],
)
def test_dtype_inference_follows_tensorflow(value, dtype):
    assert tf.constant(value).dtype is dtype


def test_dtype_objects():
    assert repr(tf.int32) == "tf.int32" and str(tf.int32) == "<dtype: 'int32'>"
    assert tf.float32.name == "float32" and tf.float32.as_numpy_dtype is np.float32
    assert tf.float64.is_floating and not tf.int32.is_floating
    assert tf.uint8.is_integer and tf.uint8.is_unsigned and not tf.bool.is_integer
    assert tf.as_dtype("float32") is tf.float32 and tf.as_dtype(np.int64) is tf.int64
    assert tf.float32 == "float32" and tf.float32 != tf.float64
    assert tf.as_dtype("complex64") is tf.complex64 and tf.complex128.real_dtype is tf.float64
    with pytest.raises(TypeError, match="complex32"):
        tf.as_dtype("complex32")


def test_constant_with_dtype_refuses_lossy_floats_and_wraps_ints_as_tensorflow():
    assert tf.constant(1, dtype=tf.float32).dtype is tf.float32
    with pytest.raises(TypeError, match="int32"):
        tf.constant(1.5, dtype=tf.int32)
    assert int(tf.constant(300, dtype=tf.uint8)) == 44  # TensorFlow 2.21 wraps Python ints
    with pytest.raises(ValueError, match="out-of-range integer"):
        tf.constant(2**63, dtype=tf.int64)
    assert tf.constant(0, shape=[2, 3]).shape == [2, 3]


def test_binary_ops_never_mix_dtypes():
    with pytest.raises(InvalidArgumentError, match=r"'add'.*float32.*int32|'add'.*int32.*float32"):
        tf.constant(1) + tf.constant(1.0)
    # the same error is a TypeError too (what graph-mode TensorFlow raises)
    with pytest.raises(TypeError, match="float64"):
        tf.constant([1.0]) * tf.constant([2.0], tf.float64)


def test_numpy_operands_are_cast_to_the_tensor_dtype():
    """As TensorFlow 2.21's operators: a NumPy array or scalar is converted with astype."""
    f, i = tf.constant([1.0, 2.0, 3.0]), tf.constant([1, 2, 3])
    for got, dtype, values in [
        (f * np.ones(3), tf.float32, [1.0, 2.0, 3.0]),
        (np.ones(3) * f, tf.float32, [1.0, 2.0, 3.0]),
        (f + np.arange(3), tf.float32, [1.0, 3.0, 5.0]),
        (i + np.int64(2), tf.int32, [3, 4, 5]),
        (i * np.array([1.5, 1.0, 1.0]), tf.int32, [1, 2, 3]),
        (f + np.array([True, False, True]), tf.float32, [2.0, 2.0, 4.0]),
        (tf.maximum(f, np.float64(2.5)), tf.float32, [2.5, 2.5, 3.0]),
        (tf.function(lambda x: x * np.full(3, 2.0))(f), tf.float32, [2.0, 4.0, 6.0]),
    ]:
        assert got.dtype is dtype and got.numpy().tolist() == values
    z = tf.constant([1 + 1j], tf.complex64) * 1j
    assert z.dtype is tf.complex64 and z.numpy().tolist() == [-1 + 1j]


def test_python_scalars_adopt_the_tensor_dtype():
    r = tf.constant(1.0) + 1
    assert r.dtype is tf.float32 and float(r) == 2.0
    assert (2 * tf.constant(3, tf.int64)).dtype is tf.int64
    with pytest.raises(TypeError, match="int32"):
        tf.constant(1) + 1.5


def test_incompatible_broadcast_names_shapes_and_op():
    with pytest.raises(IncompatibleShapesError, match=r"'add'.*\(3,\).*\(2,\)"):
        tf.constant([1, 2, 3]) + tf.constant([1, 2])
    with pytest.raises(ValueError):  # also a ValueError, as graph-mode TensorFlow raises
        tf.multiply(tf.ones([2, 3]), tf.ones([4]))


def test_string_tensors_concatenate_on_the_host():
    t = tf.constant("a") + "a"
    assert t.dtype is tf.string and t.numpy() == b"aa"
    assert str(t) == "tf.Tensor(b'aa', shape=(), dtype=string)"
    assert (tf.constant(["x", "yy"]) + "z").numpy().tolist() == [b"xz", b"yyz"]


# --- printing -----------------------------------------------------------------


def test_str_and_repr_match_tensorflow():
    assert str(tf.constant(2)) == "tf.Tensor(2, shape=(), dtype=int32)"
    assert repr(tf.constant(2)) == "<tf.Tensor: shape=(), dtype=int32, numpy=2>"
    assert str(tf.constant(1.1) * 2) == "tf.Tensor(2.2, shape=(), dtype=float32)"
    assert repr(tf.constant(1.0)) == "<tf.Tensor: shape=(), dtype=float32, numpy=1.0>"
    assert str(tf.constant([4, 1])) == "tf.Tensor([4 1], shape=(2,), dtype=int32)"
    assert str(tf.ones([2, 2]) * [[4.0, 6.0]]) == ("tf.Tensor(\n[[4. 6.]\n [4. 6.]], shape=(2, 2), dtype=float32)")
    assert repr(tf.ones([2, 2])) == (
        "<tf.Tensor: shape=(2, 2), dtype=float32, numpy=\narray([[1., 1.],\n       [1., 1.]], dtype=float32)>"
    )
    assert str(tf.constant(True)) == "tf.Tensor(True, shape=(), dtype=bool)"


def test_shape_and_spec_text():
    assert str(tf.TensorShape([None])) == "(None,)" and str(tf.TensorShape(None)) == "<unknown>"
    assert repr(tf.TensorShape([2, None])) == "TensorShape([2, None])"
    assert repr(tf.TensorSpec(shape=[None], dtype=tf.int32)) == "TensorSpec(shape=(None,), dtype=tf.int32, name=None)"
    assert repr(tf.TensorSpec(None, tf.float32)) == "TensorSpec(shape=<unknown>, dtype=tf.float32, name=None)"


def test_tf_print_formats_like_tensorflow(capsys):
    tf.print(tf.constant([0.722364306, 0.10295248]), "and", 3)
    tf.print("Executing with num_steps = ", tf.constant(10))
    tf.print(tf.range(10))
    tf.print(tf.constant([[1, 2], [3, 4]]), tf.constant(True))
    assert capsys.readouterr().err == (  # tf.print writes to stderr, as TensorFlow's
        "[0.722364306 0.10295248] and 3\nExecuting with num_steps =  10\n[0 1 2 ... 7 8 9]\n[[1 2]\n [3 4]] 1\n"
    )


# --- operators ------------------------------------------------------------------

_OPS = [("+", np.add), ("-", np.subtract), ("*", np.multiply), ("//", np.floor_divide), ("%", np.mod), ("**", np.power)]


@pytest.mark.parametrize("sym, ref", _OPS)
def test_arithmetic_operators_and_reflections(sym, ref, rng):
    a = rng.integers(1, 5, size=(3, 4)).astype(np.float32)
    b = rng.integers(1, 5, size=(4,)).astype(np.float32)
    names = {"ta": tf.constant(a), "tb": tf.constant(b)}
    expected = ref(a, b)
    np.testing.assert_allclose(eval(f"ta {sym} tb", names).numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(eval(f"ta {sym} 2.0", names).numpy(), ref(a, np.float32(2.0)), rtol=1e-6)
    np.testing.assert_allclose(eval(f"2.0 {sym} ta", names).numpy(), ref(np.float32(2.0), a), rtol=1e-6)


def test_true_division_of_integers_gives_floats_like_tensorflow():
    r = tf.constant([1, 2]) / tf.constant([2, 4])
    assert r.dtype is tf.float64 and r.numpy().tolist() == [0.5, 0.5]
    assert (tf.constant([1], tf.int16) / tf.constant([2], tf.int16)).dtype is tf.float32


def test_matmul_comparison_unary_and_logic_operators():
    a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    assert (a @ a).numpy().tolist() == [[7.0, 10.0], [15.0, 22.0]]
    assert (-a).numpy().tolist() == [[-1, -2], [-3, -4]] and abs(-a).numpy().tolist() == a.numpy().tolist()
    assert (a > 2).dtype is tf.bool and (a >= 2).numpy().tolist() == [[False, True], [True, True]]
    assert (a == 2).numpy().tolist() == [[False, True], [False, False]] and (a != 2).numpy().sum() == 3
    assert (a == None) is False  # noqa: E711
    t, f = tf.constant([True, False]), tf.constant([True, True])
    assert (t & f).numpy().tolist() == [True, False] and (t | f).numpy().tolist() == [True, True]
    assert (t ^ f).numpy().tolist() == [False, True] and (~t).numpy().tolist() == [False, True]
    i = tf.constant([6, 3])
    assert (i & 5).numpy().tolist() == [4, 1] and (~i).numpy().tolist() == [-7, -4]


def test_tensors_are_unhashable_and_have_refs():
    t = tf.constant(1)
    with pytest.raises(TypeError, match="unhashable"):
        hash(t)
    assert {t.ref(): 1}[t.ref()] == 1 and t.ref().deref() is t


# --- indexing --------------------------------------------------------------------


@pytest.mark.parametrize(
    "key",
    [
        1,
        -1,
        slice(None, None, -1),
        (slice(1, None, 2), -1),
        (Ellipsis, slice(None, None, -2)),
        (None, 0, slice(-3, -1)),
        (slice(None), None, Ellipsis, 2),
        (slice(10, 20),),
        (Ellipsis,),
        (slice(None, None, 3), slice(None, None, -1), 0),
    ],
)
def test_getitem_matches_numpy(key, rng):
    a = rng.standard_normal((4, 5, 6)).astype(np.float32)
    np.testing.assert_array_equal(tf.constant(a)[key].numpy(), a[key])


def test_getitem_with_scalar_tensor_indices():
    a = np.arange(12).reshape(3, 4).astype(np.int32)
    t = tf.constant(a)
    assert t[tf.constant(2)].numpy().tolist() == a[2].tolist()
    assert t[1, tf.constant(-1)].numpy() == a[1, -1]
    assert t[:, tf.constant(1) :].numpy().tolist() == a[:, 1:].tolist()


def test_getitem_errors():
    t = tf.constant([1, 2, 3])
    with pytest.raises(InvalidArgumentError, match="out of bounds"):
        t[5]
    with pytest.raises(InvalidArgumentError, match="rank"):  # TF reads a list key as t[0, 1]: too many indices
        t[[0, 1]]
    with pytest.raises(TypeError, match="valid indices"):
        t[tf.constant([0, 1])]


# --- Python conversions and NumPy interop ---------------------------------------------


def test_python_scalar_conversions():
    assert int(tf.constant(3)) == 3 and float(tf.constant(2.5)) == 2.5 and bool(tf.constant(0)) is False
    assert len(tf.zeros([4, 2])) == 4 and [1, 2, 3][tf.constant(1)] == 2
    with pytest.raises(ValueError, match="ambiguous"):
        bool(tf.constant([1, 2]))
    with pytest.raises(TypeError, match="single-element"):
        int(tf.constant([1, 2]))
    with pytest.raises(TypeError, match="len"):
        len(tf.constant(1))
    assert [x.numpy().tolist() for x in tf.constant([[1, 2], [3, 4]])] == [[1, 2], [3, 4]]


def test_numpy_interop_and_dlpack():
    t = tf.constant([[1.0, 2.0]])
    assert np.asarray(t).dtype == np.float32 and np.asarray(t).tolist() == [[1.0, 2.0]]
    r = np.ones(2, np.float32) + tf.constant([1.0, 2.0])  # NumPy defers to the tensor
    assert isinstance(r, tf.Tensor) and r.numpy().tolist() == [2.0, 3.0]
    shared = np.from_dlpack(t)
    assert shared.tolist() == [[1.0, 2.0]]
    back = tf.from_dlpack(np.arange(3, dtype=np.int64))
    assert back.dtype is tf.int64 and back.numpy().tolist() == [0, 1, 2]
    with pytest.raises(TypeError, match="__dlpack__"):
        tf.from_dlpack([1, 2])


def test_shape_and_ndim():
    t = tf.zeros([2, 3])
    assert t.shape == [2, 3] and t.shape.as_list() == [2, 3] and t.ndim == 2 and t.shape.rank == 2
    assert isinstance(t.shape, tf.TensorShape)


# --- TensorShape / TensorSpec -------------------------------------------------------------


def test_tensor_shape_semantics():
    s = tf.TensorShape([None, 3])
    assert s.rank == 2 and not s.is_fully_defined() and s.is_compatible_with([5, 3])
    assert not s.is_compatible_with([5, 4]) and not s.is_compatible_with([3])
    u = tf.TensorShape(None)
    assert u.rank is None and u.is_compatible_with([1, 2, 3])
    with pytest.raises(ValueError):
        u.as_list()
    assert tf.TensorShape([1, 2]).most_specific_compatible_shape([1, 3]) == tf.TensorShape([1, None])
    assert tf.TensorShape([1, 2]).most_specific_compatible_shape([1, 2, 3]).rank is None
    assert tf.TensorShape([1, 2]).is_subtype_of(tf.TensorShape([None, None]))
    assert tf.TensorShape([4, 2]).num_elements() == 8 and s.num_elements() is None


def test_tensor_spec():
    spec = tf.TensorSpec(shape=[None], dtype=tf.int32)
    assert spec.is_compatible_with(tf.constant([1, 2]))
    assert not spec.is_compatible_with(tf.constant([[1]])) and not spec.is_compatible_with(tf.constant([1.0]))
    assert tf.TensorSpec.from_tensor(tf.constant([1.0, 2.0])) == tf.TensorSpec([2], tf.float32)
    assert tf.TensorSpec([2], tf.float32, name="x").name == "x"


# --- random -------------------------------------------------------------------------------


def test_random_seeds_follow_tensorflow_rules():
    tf.random.set_seed(7)
    a1, a2 = tf.random.uniform([3]), tf.random.uniform([3])
    tf.random.set_seed(7)
    b1, b2 = tf.random.uniform([3]), tf.random.uniform([3])
    assert a1.numpy().tolist() == b1.numpy().tolist() and a2.numpy().tolist() == b2.numpy().tolist()
    assert a1.numpy().tolist() != a2.numpy().tolist()
    tf.random.set_seed(7)
    s1, s2 = tf.random.normal([4], seed=3), tf.random.normal([4], seed=3)
    assert s1.numpy().tolist() != s2.numpy().tolist()  # one stream continues
    tf.random.set_seed(7)
    assert tf.random.normal([4], seed=3).numpy().tolist() == s1.numpy().tolist()
    u = tf.random.uniform([1000], 2.0, 5.0)
    assert 2.0 <= float(tf.reduce_min(u)) and float(tf.reduce_max(u)) < 5.0
    i = tf.random.uniform([100], 0, 10, dtype=tf.int32)
    assert i.dtype is tf.int32 and 0 <= int(tf.reduce_min(i)) and int(tf.reduce_max(i)) < 10


def test_matmul_operator_casts_a_numpy_operand():
    for got in (tf.ones([1, 2]) @ np.ones((2, 1)), np.ones((1, 2)) @ tf.ones([2, 1])):
        assert got.dtype is tf.float32 and got.numpy().tolist() == [[2.0]]


def test_tensors_and_variables_copy_the_numpy_arrays_they_are_made_from():
    buf = np.zeros(2, np.float32)
    made = []
    for i in range(3):
        buf[:] = i
        made.append(tf.constant(buf))
    assert [t.numpy().tolist() for t in made] == [[0, 0], [1, 1], [2, 2]]
    a = np.zeros(2, np.float32)
    v, c, r = tf.Variable(a), tf.convert_to_tensor(a), tf.reshape(a, [2, 1])
    w = tf.Variable([1.0, 1.0])
    w.assign(a)
    traced = tf.function(tf.identity)(a)
    a[0] = 5
    for t in (v, c, r, w, traced):
        assert np.asarray(t.numpy()).ravel().tolist() == [0.0, 0.0]
