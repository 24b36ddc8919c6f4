"""Variable updates: values read before an update keep their values (copy-on-write),
and an update nothing else can see happens in the variable's own buffer."""

import numpy as np
import pytest

import tfunc as tf


def _address(v):
    return v._value._value.__array_interface__["data"][0]


@pytest.mark.parametrize("update, sign", [("assign_sub", -1.0), ("assign_add", 1.0)])
def test_reads_keep_their_values_across_in_place_updates(update, sign):
    v = tf.Variable(np.zeros(500, np.float32))
    before = _address(v)
    getattr(v, update)(tf.ones(500))
    assert _address(v) == before  # no one else saw the buffer: updated in place
    read, as_array = v.read_value(), v.numpy()
    getattr(v, update)(tf.ones(500))
    assert read.numpy()[0] == as_array[0] == sign  # earlier reads are unchanged ...
    assert v.numpy()[0] == 2 * sign  # ... the variable moved on
    view = tf.reshape(v.read_value(), [20, 25])
    getattr(v, update)(tf.ones(500))
    assert view.numpy()[0, 0] == 2 * sign


def test_in_place_updates_inside_functions():
    v = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3))

    @tf.function
    def step(d):
        old = v.read_value()
        v.assign_sub(d)
        return old, v.read_value() * 1.0

    old, new = step(tf.ones([2, 3]))
    np.testing.assert_array_equal(old.numpy(), np.arange(6).reshape(2, 3))
    np.testing.assert_array_equal(new.numpy(), np.arange(6).reshape(2, 3) - 1)
    v.assign_add(tf.ones([2, 3]))
    np.testing.assert_array_equal(v.numpy(), np.arange(6).reshape(2, 3))
    with pytest.raises(ValueError, match="shape"):
        v.assign_add(tf.constant([1.0, 1.0, 1.0]))  # TensorFlow does not broadcast deltas either
    np.testing.assert_array_equal(old.numpy(), np.arange(6).reshape(2, 3))


def test_a_variable_over_a_users_array_never_writes_into_it():
    base = np.ones(8, np.float32)
    v = tf.Variable(base)
    v.assign_sub(tf.ones(8))
    np.testing.assert_array_equal(base, np.ones(8))
    np.testing.assert_array_equal(v.numpy(), np.zeros(8))


def test_a_read_taken_while_another_thread_updates_never_changes():
    """The refcount check and the in-place write happen under the variable's lock, and so do
    reads: a reader gets either the old buffer (and the writer then copies) or the new one."""
    import threading

    n = 1_000_000
    v = tf.Variable(np.zeros(n, np.float32))
    one = tf.ones([n])
    stop = threading.Event()

    def writer():
        while not stop.is_set():
            v.assign_add(one)

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        changed = 0
        for _ in range(100):
            t = v.read_value()
            first, last = t.numpy()[0], t.numpy()[-1]
            changed += first != last or t.numpy()[0] != first
    finally:
        stop.set()
        thread.join()
    assert changed == 0


def test_memory_imported_through_dlpack_is_never_updated_in_place():
    outside = np.zeros(6, np.float32)
    v = tf.Variable(tf.from_dlpack(outside))
    v.assign_add(tf.ones([6]))
    v.assign_add(tf.ones([6]))
    np.testing.assert_array_equal(outside, np.zeros(6))
    np.testing.assert_array_equal(v.numpy(), np.full(6, 2.0))


def test_assign_returns_the_variable():
    a = tf.Variable([2.0, 3.0])
    r = a.assign([1, 2])
    assert repr(r) == "<tf.Variable 'UnreadVariable' shape=(2,) dtype=float32, numpy=array([1., 2.], dtype=float32)>"
    assert r.numpy().tolist() == [1.0, 2.0] and (r + 1).numpy().tolist() == [2.0, 3.0]
    assert a.assign_add([1.0, 1.0]).assign_sub([0.5, 0.5]).numpy().tolist() == [1.5, 2.5]
    assert a.assign([0.0, 0.0], read_value=False) is None

    @tf.function
    def f(v):
        return v.assign(v * 2) + 1.0

    assert f(a).numpy().tolist() == [1.0, 1.0]


def test_a_shape_converts_to_a_tensor():
    v = tf.Variable(tf.zeros([2, 3]))
    assert int(tf.reduce_prod(v.shape)) == 6
    assert tf.convert_to_tensor(v.shape).numpy().tolist() == [2, 3]
    with pytest.raises(ValueError, match="partially known TensorShape"):
        tf.convert_to_tensor(tf.TensorShape([None, 3]))


def test_variable_scatter_nd_methods():
    v = tf.Variable([1.0, 2.0, 3.0, 4.0])
    v.scatter_nd_update([[1], [3]], [10.0, 30.0])
    assert v.numpy().tolist() == [1.0, 10.0, 3.0, 30.0]
    v.scatter_nd_add([[0], [0]], [1.0, 1.0])  # repeated indices add up
    assert v.numpy().tolist() == [3.0, 10.0, 3.0, 30.0]
    tf.function(lambda: v.scatter_nd_sub([[2]], [3.0]))()
    assert v.numpy().tolist() == [3.0, 10.0, 0.0, 30.0]
    m = tf.Variable(tf.zeros([2, 2]))
    m.scatter_nd_update([[1, 0]], [5.0])
    assert m.numpy().tolist() == [[0.0, 0.0], [5.0, 0.0]]
