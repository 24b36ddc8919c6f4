"""``tf.io.decode_csv`` against TensorFlow 2.21's DecodeCSV (values noted from TF runs)."""

import numpy as np
import pytest

import tfunc as tf


def _values(outs):
    return [(t.dtype.name, t.numpy().tolist()) for t in outs]


def test_columns_take_their_defaults_types_quotes_and_spaces():
    recs = tf.constant(['1,2.5,"a,b",x', "3,,c,", ' 4 , 1e3 ,"q""t",'])
    out = tf.io.decode_csv(recs, [[0], [0.0], [""], ["d"]])
    # TF 2.21: [1, 3, 4], [2.5, 0.0, 1000.0], [b'a,b', b'c', b'q"t'], [b'x', b'd', b'd']
    assert _values(out) == [
        ("int32", [1, 3, 4]),
        ("float32", [2.5, 0.0, 1000.0]),
        ("string", [b"a,b", b"c", b'q"t']),
        ("string", [b"x", b"d", b"d"]),
    ]


def test_shapes_follow_the_records():
    out = tf.io.decode_csv([["1,2"], ["3,4"]], [[0.0], [tf.constant(0, tf.int64)]])
    assert [t.shape.as_list() for t in out] == [[2, 1], [2, 1]]
    assert _values(out) == [("float32", [[1.0], [3.0]]), ("int64", [[2], [4]])]
    scalar = tf.io.decode_csv("1,2", [[0], [0]])
    assert [t.shape.rank for t in scalar] == [0, 0]
    empty = tf.io.decode_csv(tf.constant([], tf.string), [[0], [0.0]])
    assert [(t.dtype.name, t.shape.as_list()) for t in empty] == [("int32", [0]), ("float32", [0])]


def test_na_value_select_cols_and_delimiters():
    assert _values(tf.io.decode_csv(["1,NA"], [[0], [7]], na_value="NA")) == [("int32", [1]), ("int32", [7])]
    # a quoted field equal to na_value is NA too (TF: b'z')
    assert _values(tf.io.decode_csv(['x,"NA"'], [[""], ["z"]], na_value="NA"))[1] == ("string", [b"z"])
    assert _values(tf.io.decode_csv(["1,2,3"], [[0], [0]], select_cols=[0, 2])) == [("int32", [1]), ("int32", [3])]
    assert _values(tf.io.decode_csv(["1;2"], [[0], [0]], field_delim=";"))[1] == ("int32", [2])
    # without quote handling a quote is a character like any other
    out = tf.io.decode_csv(['2,"3'], [[0], [""]], use_quote_delim=False)
    assert _values(out)[1] == ("string", [b'"3'])


@pytest.mark.parametrize(
    "records, defaults, kwargs, message",
    [
        (
            ["1,,c,"],
            [[0], tf.constant([], tf.float32), [""], ["d"]],
            {},
            "Field 1 is required but missing in record 0!",
        ),
        (["1,2,3"], [[0], [0]], {}, "Expect 2 fields but have 3 in record 0"),
        (["1,2"], [[0], [0], [0]], {}, "Expect 3 fields but have 2 in record 0"),
        ([""], [[0]], {}, "Expect 1 fields but have 0 in record 0"),
        (["1.5,2"], [[0], [0]], {}, "Field 0 in record 0 is not a valid int32: 1.5"),
        (["99999999999,1"], [[0], [0]], {}, "not a valid int32: 99999999999"),
        (["1,abc"], [[0], [5.0]], {}, "Field 1 in record 0 is not a valid float: abc"),
        (["1,  "], [[0], [5]], {}, "not a valid int32"),  # spaces only: not empty, not a number
        (['a"b,2'], [[""], [0.0]], {}, "Unquoted fields cannot have quotes/CRLFs inside"),
        (["1,2\r"], [[0], [""]], {}, "Unquoted fields cannot have quotes/CRLFs inside"),
        (['"ab"c,2'], [[""], [0.0]], {}, "Quote inside a string has to be escaped by another quote"),
        (["1,2"], [[0, 1], [0.0]], {}, "There should only be 1 default per field but field 0 has 2"),
        (["1,2"], [[0.0], [0.0]], {"field_delim": ";;"}, "field_delim should be only 1 char"),
        (["1,2"], [[True], [0.0]], {}, "bool"),
    ],
)
def test_bad_records_and_arguments_raise_tensorflows_errors(records, defaults, kwargs, message):
    with pytest.raises(tf.errors.InvalidArgumentError, match=message.replace(".", r"\.")):
        tf.io.decode_csv(records, defaults, **kwargs)


def test_select_cols_must_increase_and_match():
    with pytest.raises(ValueError, match="strictly increasing"):
        tf.io.decode_csv(["1,2"], [[0], [0.0]], select_cols=[1, 0])
    with pytest.raises(ValueError, match="do not match"):
        tf.io.decode_csv(["x,1,2"], [[""], [0]], select_cols=[0])
    with pytest.raises(ValueError, match="dtype int32"):
        tf.io.decode_csv(["1,2"], [tf.int32, [0]])


def test_numbers_read_as_strtod_does():
    fields = ["0x10", ".5", "5.", "+1", "inf", "Infinity", "-NaN", " 1", "0X1p3", "0x1.8p1", "nan(abc)", "1e40"]
    out = tf.io.decode_csv([",".join(fields)], [[0.0]] * len(fields))
    got = [t.numpy()[0] for t in out]
    # TF 2.21: 16, 0.5, 5, 1, inf, inf, nan, 1, 8, 3, nan, inf (float32 overflow)
    np.testing.assert_array_equal(got, [16, 0.5, 5, 1, np.inf, np.inf, np.nan, 1, 8, 3, np.nan, np.inf])
    for bad in ["1e", "1_000", "1d", "infinit", "0x", "."]:
        with pytest.raises(tf.errors.InvalidArgumentError):
            tf.io.decode_csv([bad], [[0.0]])
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.io.decode_csv(["0x10"], [[0]])  # integers are decimal only


def test_strings_to_number_reads_hexadecimal_floats_and_nan_payloads():
    # TF 2.21's StringToNumber: 3.0, 16.5, -0.25, nan
    got = tf.strings.to_number(["0x1.8p1", "0x10.8", "-0x1p-2", "nan(1)"]).numpy()
    np.testing.assert_array_equal(got, [3.0, 16.5, -0.25, np.nan])


def test_inside_a_function_it_parses_on_every_call():
    f = tf.function(lambda r: tf.io.decode_csv(r, [[0], [0.0]]))
    assert _values(f(tf.constant(["1,2", "3,4"]))) == [("int32", [1, 3]), ("float32", [2.0, 4.0])]
    assert _values(f(tf.constant(["5,6", "7,8"]))) == [("int32", [5, 7]), ("float32", [6.0, 8.0])]
