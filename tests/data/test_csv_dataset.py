"""``tf.data.experimental.CsvDataset`` and ``make_csv_dataset`` against TensorFlow 2.21
(expected values noted from TF runs on the same files)."""

import collections
import gzip

import numpy as np
import pytest

import tfunc as tf

CSV = tf.data.experimental.CsvDataset


def _rows(ds):
    return [tuple(t.numpy().item() if t.dtype != tf.string else t.numpy() for t in e) for e in ds]


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, newline="")
    return str(path)


@pytest.fixture
def people(tmp_path):
    a = _write(tmp_path, "a.csv", 'id,score,name,flag\n1,2.5,ann,1\n2,,bob,0\n3,4,"c,d",1\n')
    b = _write(tmp_path, "b.csv", "id,score,name,flag\n10,1.5,zed,0\n11,3,yo,1\r\n")
    return a, b


def test_records_of_several_files_with_headers(people):
    ds = CSV(list(people), [tf.int32, 0.0, "", tf.constant([], tf.int64)], header=True)
    assert [s.dtype.name for s in ds.element_spec] == ["int32", "float32", "string", "int64"]
    assert ds.cardinality().numpy() == -2
    # TF 2.21
    assert _rows(ds) == [
        (1, 2.5, b"ann", 1),
        (2, 0.0, b"bob", 0),
        (3, 4.0, b"c,d", 1),
        (10, 1.5, b"zed", 0),
        (11, 3.0, b"yo", 1),
    ]


def test_select_and_exclude_columns(people):
    assert _rows(CSV(people[0], [0, 0.0], header=True, select_cols=[0, 1])) == [(1, 2.5), (2, 0.0), (3, 4.0)]
    assert _rows(CSV(people[0], [0, ""], header=True, exclude_cols=[1, 3])) == [(1, b"ann"), (2, b"bob"), (3, b"c,d")]
    with pytest.raises(tf.errors.InvalidArgumentError, match="select_cols should match output size"):
        CSV(people[0], [0, 0.0, "", 0], select_cols=[0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Either select_cols or exclude_cols"):
        CSV(people[0], [0], select_cols=[0], exclude_cols=[1])


def test_a_file_is_one_stream_quoted_fields_span_lines(tmp_path):
    path = _write(tmp_path, "q.csv", '2,"a\nb"\n4,"x""y"\r\n6,c')
    assert _rows(CSV(path, [0, ""])) == [(2, b"a\nb"), (4, b'x"y'), (6, b"c")]
    gz = tmp_path / "c.csv.gz"
    with gzip.open(gz, "wt") as f:
        f.write("1,2\n3,4\n")
    assert _rows(CSV(str(gz), [0, 0], compression_type="GZIP")) == [(1, 2), (3, 4)]


def test_numbers_in_record_defaults_name_dtypes_as_in_tensorflow(tmp_path):
    # TensorFlow compares each default with its DTypes, which equal their enum numbers: 9 is
    # int64, 7 string, 1 (1.0, True) float32, 3 int32; such a column is required.
    path = _write(tmp_path, "t.csv", "1,2,3,4\n")
    ds = CSV(path, [9, 7, 0, 1.0])
    assert [s.dtype.name for s in ds.element_spec] == ["int64", "string", "int32", "float32"]
    assert _rows(ds) == [(1, b"2", 3, 4.0)]
    blanks = _write(tmp_path, "b.csv", ",\n")
    with pytest.raises(tf.errors.InvalidArgumentError, match="Field 0 is required but missing in record!"):
        list(CSV(blanks, [True, 0], select_cols=[0, 1]))
    assert _rows(CSV(blanks, [3.5, 0])) == [(3.5, 0)]


@pytest.mark.parametrize(
    "text, defaults, message",
    [
        ("1,\n2,3\n", [0, 9], "Field 1 is required but missing in record!"),
        ("1\n2,3\n", [0, 0], "Expect 2 fields but have 1 in record"),
        ("2,3\n\n", [0, 0], "Expect 2 fields but have 1 in record"),
        ("2,3,4\n", [0, 0], "Expect 2 fields but have more in record"),
        ('2, "ab"\n', [0, ""], "Unquoted fields cannot have quotes inside"),
        ("2,x\n", [0, 0], "Field 1 in record is not a valid int32: x"),
        ('2,"a\n', [0, ""], "Reached end of file without closing quoted field in record"),
    ],
)
def test_bad_records_raise_tensorflows_errors(tmp_path, text, defaults, message):
    path = _write(tmp_path, "t.csv", text)
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        list(CSV(path, defaults))


def test_ignore_errors_drops_only_the_bad_records(tmp_path):
    path = _write(tmp_path, "t.csv", '1,2\n3,x\n5,6"\n7,8\n9\n10,11\n"a"b,3\n12,13')
    # TF 2.21: [(1, 2), (7, 8), (10, 11)]; after the stray quote of '"a"b' the field reads as
    # quoted up to the end of the file
    assert _rows(CSV(path, [0, 0]).ignore_errors()) == [(1, 2), (7, 8), (10, 11)]
    unclosed = _write(tmp_path, "u.csv", '1,2\n3,x\n"5,6\n7,8\n9\n10,11')
    assert _rows(CSV(unclosed, [0, 0]).ignore_errors()) == [(1, 2)]  # TF 2.21


def test_headers_and_missing_files(tmp_path):
    empty = _write(tmp_path, "e.csv", "")
    with pytest.raises(tf.errors.InvalidArgumentError, match="Can't read header of file"):
        list(CSV(empty, [0], header=True))
    with pytest.raises(tf.errors.NotFoundError):
        list(CSV(str(tmp_path / "missing.csv"), [0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="buffer_size should be positive"):
        CSV(empty, [0], buffer_size=0)


def _batches(ds):
    return [tf.nest.map_structure(lambda t: t.numpy().tolist(), e) for e in ds]


def test_make_csv_dataset_infers_names_and_types(people):
    ds = tf.data.experimental.make_csv_dataset(people[0], batch_size=2, shuffle=False, num_epochs=1)
    spec = ds.element_spec
    assert isinstance(spec, collections.OrderedDict)
    assert {k: (s.dtype.name, s.shape.as_list()) for k, s in spec.items()} == {
        "id": ("int32", [None]),
        "score": ("float32", [None]),
        "name": ("string", [None]),
        "flag": ("int32", [None]),
    }
    assert _batches(ds) == [
        {"id": [1, 2], "score": [2.5, 0.0], "name": [b"ann", b"bob"], "flag": [1, 0]},
        {"id": [3], "score": [4.0], "name": [b"c,d"], "flag": [1]},
    ]


def test_make_csv_dataset_labels_selected_columns_and_epochs(people):
    ds = tf.data.experimental.make_csv_dataset(
        list(people),
        batch_size=3,
        shuffle=False,
        num_epochs=1,
        label_name="flag",
        select_columns=["id", "name", "flag"],
    )
    # TF 2.21: files one after another, the label split off each batch
    assert _batches(ds) == [
        ({"id": [1, 2, 3], "name": [b"ann", b"bob", b"c,d"]}, [1, 0, 1]),
        ({"id": [10, 11], "name": [b"zed", b"yo"]}, [0, 1]),
    ]
    two = tf.data.experimental.make_csv_dataset(
        people[0], batch_size=2, shuffle=False, num_epochs=2, select_columns=[0, 2]
    )
    assert [b["id"] for b in _batches(two)] == [[1, 2], [3, 1], [2, 3]]
    endless = tf.data.experimental.make_csv_dataset(people[0], batch_size=2, shuffle=False)
    assert endless.element_spec["id"].shape.as_list() == [2]  # num_epochs=None: full batches only


def test_make_csv_dataset_type_inference_widens(tmp_path):
    path = _write(tmp_path, "w.csv", "a,b,c,d,e\n1,1,1.5,1,x\n3000000000,2,2,1e40,1\n,nan,3,2,\n")
    ds = tf.data.experimental.make_csv_dataset(path, batch_size=3, shuffle=False, num_epochs=1)
    # TF 2.21 infers int64 (too big for int32), string (NumPy's float32('nan') < inf is False),
    # float32, float64 (1e40 overflows float32) and string
    assert [s.dtype.name for s in ds.element_spec.values()] == ["int64", "string", "float32", "float64", "string"]
    assert _batches(ds)[0]["a"] == [1, 3000000000, 0]


def test_make_csv_dataset_argument_errors(people, tmp_path):
    make = tf.data.experimental.make_csv_dataset
    with pytest.raises(ValueError, match="`label_name` provided must be one of the columns"):
        make(people[0], batch_size=2, label_name="nope")
    with pytest.raises(ValueError, match="Expected `column_names` or `header` arguments"):
        make(people[0], batch_size=2, header=False)
    with pytest.raises(ValueError, match="No files match"):
        make(str(tmp_path / "none*.csv"), batch_size=2)
    ragged = _write(tmp_path, "r.csv", "x,y\n1,\n\n2,3\n")
    with pytest.raises(ValueError, match="CSV row 3 has 0 number of fields. Expected: 2"):
        make(ragged, batch_size=2)
    with pytest.raises(ValueError, match="duplicate column names"):
        make(people[0], batch_size=2, column_names=["a", "a", "b", "c"])


def test_make_csv_dataset_shuffles_with_a_seed(people):
    def ids(seed):
        ds = tf.data.experimental.make_csv_dataset(list(people), batch_size=5, num_epochs=1, shuffle_seed=seed)
        return _batches(ds)[0]["id"]

    first = ids(3)
    assert sorted(first) == [1, 2, 3, 10, 11]
    assert ids(3) == first
    assert np.unique([tuple(ids(s)) for s in range(6)], axis=0).shape[0] > 1
