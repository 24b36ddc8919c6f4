"""TensorArray elements never written, and ``clear_after_read``, as in TensorFlow 2.21 (the
expected values are TensorFlow's, eagerly and inside tf.function): an element never written
reads as zeros of the element shape; an eager TensorArray's read empties the element."""

import pytest

import tfunc as tf

MODES = ["eager", "function"]


def run(mode, fn, *args):
    return fn(*args) if mode == "eager" else tf.function(fn)(*args)


def _values(r):
    return [t.numpy().tolist() for t in r] if isinstance(r, (list, tuple)) else r.numpy().tolist()


@pytest.mark.parametrize("mode", MODES)
def test_loop_writing_every_other_element_stacks_zeros_between(mode):
    def f(n):
        ta = tf.TensorArray(tf.float32, size=n)
        for i in tf.range(n):
            if i % 2 == 0:
                ta = ta.write(i, tf.cast(i, tf.float32) + 1.0)
        return ta.stack()

    assert _values(run(mode, f, tf.constant(5))) == [1.0, 0.0, 3.0, 0.0, 5.0]


@pytest.mark.parametrize("mode", MODES)
def test_read_gather_concat_of_unwritten_elements_are_zeros(mode):
    def f():
        ta = tf.TensorArray(tf.float32, size=3).write(1, [1.0, 2.0])
        rows = tf.TensorArray(tf.float32, size=3).write(1, [[1.0, 2.0]])
        return ta.gather([0, 1]), ta.stack(), rows.concat(), ta.read(0)

    gathered, stacked, joined, read = run(mode, f)
    assert _values(gathered) == [[0.0, 0.0], [1.0, 2.0]]
    assert _values(stacked) == [[0.0, 0.0], [1.0, 2.0], [0.0, 0.0]]
    assert _values(joined) == [[0.0, 0.0], [1.0, 2.0], [0.0, 0.0]]
    assert _values(read) == [0.0, 0.0]


@pytest.mark.parametrize("mode", MODES)
def test_declared_element_shape_gives_the_zeros_their_shape(mode):
    def f():
        nothing = tf.TensorArray(tf.float32, size=3, element_shape=[2])
        partial = tf.TensorArray(tf.float32, size=3, element_shape=[None]).write(1, [1.0, 2.0])
        return nothing.stack(), nothing.read(0), partial.stack()

    nothing, read, partial = run(mode, f)
    assert nothing.shape == (3, 2) and _values(nothing) == [[0.0, 0.0]] * 3
    assert _values(read) == [0.0, 0.0]
    assert _values(partial) == [[0.0, 0.0], [1.0, 2.0], [0.0, 0.0]]


@pytest.mark.parametrize("mode", MODES)
def test_zeros_of_other_dtypes_and_of_grown_or_scattered_arrays(mode):
    def f():
        ints = tf.TensorArray(tf.int32, size=3).write(2, [1, 2]).stack()
        strings = tf.TensorArray(tf.string, size=2).write(1, "a").stack()
        bools = tf.TensorArray(tf.bool, size=2).write(1, True).stack()
        grown = tf.TensorArray(tf.float32, size=0, dynamic_size=True).write(2, [1.0, 2.0]).stack()
        scattered = tf.TensorArray(tf.float32, size=3).scatter([2], [[1.0, 2.0]]).stack()
        return ints, strings, bools, grown, scattered

    ints, strings, bools, grown, scattered = run(mode, f)
    assert _values(ints) == [[0, 0], [0, 0], [1, 2]]
    assert _values(strings) == [b"", b"a"]
    assert _values(bools) == [False, True]
    assert _values(grown) == [[0.0, 0.0], [0.0, 0.0], [1.0, 2.0]]
    assert _values(scattered) == [[0.0, 0.0], [0.0, 0.0], [1.0, 2.0]]


def test_without_a_known_element_shape_eager_arrays_refuse_unwritten_elements():
    # TensorFlow's eager TensorArray: ValueError (zeros of an unknown shape); with
    # infer_shape=False the writes do not give the element shape
    for f in (
        lambda: tf.TensorArray(tf.float32, size=3).stack(),
        lambda: tf.TensorArray(tf.float32, size=3).read(0),
        lambda: tf.TensorArray(tf.float32, size=3).gather([0]),
        lambda: tf.TensorArray(tf.float32, size=3).concat(),
        lambda: tf.TensorArray(tf.float32, size=3, infer_shape=False).write(1, [1.0, 2.0]).stack(),
        lambda: tf.TensorArray(tf.float32, size=3, infer_shape=False).write(1, [[1.0, 2.0]]).concat(),
    ):
        with pytest.raises(ValueError, match="fully.defined|partially known"):
            f()


def test_inside_a_function_the_first_written_element_gives_the_shape():
    # TensorFlow's TensorList: the zeros take the shape of a written element; with none
    # written and no element shape, InvalidArgumentError
    @tf.function
    def f():
        ta = tf.TensorArray(tf.float32, size=3, infer_shape=False).write(1, [1.0, 2.0])
        rows = tf.TensorArray(tf.float32, size=3, infer_shape=False).write(1, [[1.0, 2.0]])
        return ta.stack(), ta.read(0), rows.concat()

    stacked, read, joined = f()
    assert _values(stacked) == [[0.0, 0.0], [1.0, 2.0], [0.0, 0.0]]
    assert _values(read) == [0.0, 0.0]
    assert _values(joined) == [[0.0, 0.0], [1.0, 2.0], [0.0, 0.0]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="fully.defined|partially known"):
        tf.function(lambda: tf.TensorArray(tf.float32, size=3).stack())()


@pytest.mark.parametrize("clear", [None, True])
def test_eager_read_twice_raises_unless_clear_after_read_is_false(clear):
    ta = tf.TensorArray(tf.float32, size=2, clear_after_read=clear).write(0, 1.0)
    assert float(ta.read(0)) == 1.0
    with pytest.raises(tf.errors.InvalidArgumentError, match="twice because it was cleared"):
        ta.read(0)
    hole = tf.TensorArray(tf.float32, size=2, element_shape=[], clear_after_read=clear).write(1, 1.0)
    assert float(hole.read(0)) == 0.0
    with pytest.raises(tf.errors.InvalidArgumentError, match="twice because it was cleared"):
        hole.read(0)


def test_eager_read_empties_the_element_gather_and_stack_do_not():
    ta = tf.TensorArray(tf.float32, size=2).write(0, 1.0).write(1, 2.0)
    assert _values(ta.gather([0])) == [1.0] and _values(ta.gather([0])) == [1.0]
    assert _values(ta.stack()) == [1.0, 2.0] and _values(ta.stack()) == [1.0, 2.0]
    assert float(ta.read(0)) == 1.0
    assert _values(ta.stack()) == [0.0, 2.0]  # the element read is empty now
    assert float(ta.write(0, 3.0).read(0)) == 3.0  # written again, it reads again


@pytest.mark.parametrize("mode", MODES)
def test_reads_of_an_array_that_keeps_its_elements(mode):
    def f():
        kept = tf.TensorArray(tf.float32, size=2, clear_after_read=False).write(0, 1.0)
        return kept.read(0), kept.read(0), kept.stack()

    assert _values(run(mode, f)) == [1.0, 1.0, [1.0, 0.0]]


def test_reads_inside_a_function_never_empty_elements():
    # (TensorFlow's TensorList: clear_after_read has no effect there)
    @tf.function
    def f():
        ta = tf.TensorArray(tf.float32, size=2, clear_after_read=True).write(0, 1.0)
        return ta.read(0), ta.read(0), ta.stack()

    assert _values(f()) == [1.0, 1.0, [1.0, 0.0]]


def test_traced_concat_of_elements_of_different_lengths_refuses_holes():
    # TensorFlow's TensorListConcat: an unwritten element takes the leading dimension all the
    # written ones share; when they differ it has no length (InvalidArgumentError).  Eagerly the
    # unknown element shape already refuses it (ValueError)
    def ragged():
        ta = tf.TensorArray(tf.float32, size=3, infer_shape=False)
        return ta.write(0, [1.0, 2.0]).write(2, [3.0]).concat()

    def ragged_rows():
        ta = tf.TensorArray(tf.float32, size=3, infer_shape=False, element_shape=[None, 2])
        return ta.write(0, [[1.0, 2.0]]).write(2, [[3.0, 4.0], [5.0, 6.0]]).concat()

    def nothing_written():
        return tf.TensorArray(tf.float32, size=2, element_shape=[None, 2]).concat()

    for f in (ragged, ragged_rows, nothing_written):
        with pytest.raises(tf.errors.InvalidArgumentError, match="uninitialized tensor at index [01]"):
            tf.function(f)()
        with pytest.raises(ValueError, match="fully.defined|partially known"):
            f()


def test_traced_concat_fills_holes_when_the_written_elements_share_their_length():
    @tf.function
    def f():
        ta = tf.TensorArray(tf.float32, size=3, infer_shape=False)
        same = ta.write(0, [1.0, 2.0]).write(2, [3.0, 4.0]).concat()
        rows = tf.TensorArray(tf.float32, size=3, infer_shape=False).write(0, [[1.0]]).write(1, [[2.0]])
        full = tf.TensorArray(tf.float32, size=2, infer_shape=False).write(0, [1.0, 2.0]).write(1, [3.0])
        return same, rows.concat(), full.concat()

    same, rows, full = f()
    assert _values(same) == [1.0, 2.0, 0.0, 0.0, 3.0, 4.0]
    assert _values(rows) == [[1.0], [2.0], [0.0]]
    assert _values(full) == [1.0, 2.0, 3.0]  # no hole: lengths may differ
