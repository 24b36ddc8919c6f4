"""keras.utils.text_dataset_from_directory and image_dataset_from_directory against what TF 2.21 /
Keras 3.15 gave on the same directories (the trees are made here, file by file as they were
made for TF). The order of a shuffled dataset is left out: it comes from tf.data's seeded
shuffle; the indexing shuffle (NumPy's) and the validation split are Keras's exactly."""

import numpy as np
import pytest

import tfunc as tf

utils = tf.keras.utils
CLASSES = (("cats", 5), ("dogs", 4), ("zebra", 3))


@pytest.fixture
def text_dir(tmp_path):
    for name, count in CLASSES:
        (tmp_path / name).mkdir()
        for i in range(count):
            (tmp_path / name / f"{i}.txt").write_text(f"{name} text number {i} " + "x" * i)
    (tmp_path / "cats" / "notes.md").write_text("not a .txt file")
    return str(tmp_path)


def _texts(ds):
    return [([bytes(t) for t in x.numpy()], y.numpy().tolist()) for x, y in ds]


def test_text_labels_inferred_categorical_and_cut_to_max_length(text_dir):
    ds = utils.text_dataset_from_directory(
        text_dir, batch_size=3, shuffle=False, label_mode="categorical", max_length=6, verbose=False
    )
    assert ds.class_names == ["cats", "dogs", "zebra"]
    # TF 2.21's first two batches
    first, second = _texts(ds)[:2]
    assert first == ([b"cats t"] * 3, [[1.0, 0.0, 0.0]] * 3)
    assert second == ([b"cats t", b"cats t", b"dogs t"], [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    assert ds.element_spec[0].dtype == tf.string and ds.element_spec[1].shape.as_list() == [None, 3]


def test_text_validation_split_takes_keras_files(text_dir, capsys):
    train, val = utils.text_dataset_from_directory(text_dir, batch_size=2, seed=5, validation_split=0.3, subset="both")
    printed = capsys.readouterr().out
    assert "Found 12 files belonging to 3 classes." in printed and "Using 9 files for training." in printed
    # TF 2.21: the validation files, in order (not shuffled), and the training ones as a set
    assert _texts(val) == [
        ([b"zebra text number 1 x", b"dogs text number 1 x"], [2, 1]),
        ([b"cats text number 3 xxx"], [0]),
    ]
    names = sorted(t for x, _ in _texts(train) for t in x)
    assert len(names) == 9 and b"cats text number 3 xxx" not in names


def test_text_binary_labels_given_class_names_and_label_lists(text_dir):
    ds = utils.text_dataset_from_directory(
        text_dir,
        batch_size=2,
        seed=5,
        validation_split=0.3,
        subset="validation",
        class_names=["zebra", "cats"],
        label_mode="binary",
        verbose=False,
    )
    # TF 2.21: 8 files of 2 classes, the last 2 for validation, labels [[1.], [1.]]
    assert _texts(ds) == [([b"cats text number 0 ", b"cats text number 3 xxx"], [[1.0], [1.0]])]
    listed = utils.text_dataset_from_directory(
        text_dir, batch_size=2, shuffle=False, labels=[0, 1, 0, 1, 1, 0, 0, 1, 1, 1, 0, 0], verbose=False
    )
    assert listed.class_names == ["0", "1"]
    assert _texts(listed)[0] == ([b"cats text number 0 ", b"cats text number 1 x"], [0, 1])
    alone = utils.text_dataset_from_directory(text_dir, batch_size=None, labels=None, shuffle=False, verbose=False)
    assert [bytes(t.numpy()) for t in alone][:2] == [b"cats text number 0 ", b"cats text number 1 x"]


def test_text_seeded_shuffle_repeats_and_keeps_every_file(text_dir):
    runs = [
        [
            bytes(t)
            for x, _ in utils.text_dataset_from_directory(text_dir, batch_size=4, seed=3, verbose=False)
            for t in x.numpy()
        ]
        for _ in range(2)
    ]
    assert runs[0] == runs[1] and len(set(runs[0])) == 12


def test_directory_argument_errors_are_keras_ones(text_dir):
    with pytest.raises(ValueError, match="you must provide a `seed` argument"):
        utils.text_dataset_from_directory(text_dir, validation_split=0.2, subset="training")
    with pytest.raises(ValueError, match="there must be exactly 2 class_names"):
        utils.text_dataset_from_directory(text_dir, label_mode="binary", verbose=False)
    with pytest.raises(ValueError, match="did not match the names of the subdirectories"):
        utils.text_dataset_from_directory(text_dir, class_names=["birds"], verbose=False)


@pytest.fixture
def image_dir(tmp_path):
    image = pytest.importorskip("PIL.Image")
    rng = np.random.RandomState(0)
    for name, count in CLASSES:
        (tmp_path / name / "sub").mkdir(parents=True)
        for i in range(count):
            h, w = rng.randint(5, 12), rng.randint(5, 12)
            image.fromarray(rng.randint(0, 256, (h, w, 3)).astype("uint8")).save(tmp_path / name / f"{i}.png")
        image.fromarray(rng.randint(0, 256, (6, 9, 4)).astype("uint8")).save(tmp_path / name / "sub" / "a.png")
        image.fromarray(rng.randint(0, 256, (7, 5, 3)).astype("uint8")).save(tmp_path / name / "b.bmp")
    return str(tmp_path)


def _sums(ds):
    return [
        (x.shape.as_list(), x.dtype, round(float(np.asarray(x.numpy(), np.float64).sum()), 2), y.numpy().tolist())
        for x, y in ds
    ]


def test_images_decoded_resized_and_labelled_as_keras(image_dir):
    ds = utils.image_dataset_from_directory(image_dir, batch_size=4, image_size=(6, 7), seed=2, verbose=False)
    assert ds.class_names == ["cats", "dogs", "zebra"]
    assert ds.element_spec[0].shape.as_list() == [None, 6, 7, 3] and ds.element_spec[1].dtype == tf.int32
    # TF 2.21's file order after the seeded indexing shuffle
    assert [p[len(image_dir) :] for p in ds.file_paths[:3]] == ["/dogs/2.png", "/cats/4.png", "/zebra/b.bmp"]
    cropped = utils.image_dataset_from_directory(
        image_dir,
        batch_size=5,
        image_size=8,
        shuffle=False,
        crop_to_aspect_ratio=True,
        interpolation="nearest",
        verbose=False,
    )
    # TF 2.21: sums 119296, 124356, 119439 (nearest keeps uint8)
    assert [(s[0], s[1], s[2], s[3]) for s in _sums(cropped)[:3]] == [
        ([5, 8, 8, 3], tf.uint8, 119296.0, [0, 0, 0, 0, 0]),
        ([5, 8, 8, 3], tf.uint8, 124356.0, [0, 0, 1, 1, 1]),
        ([5, 8, 8, 3], tf.uint8, 119439.0, [1, 1, 1, 2, 2]),
    ]


def test_images_padded_to_aspect_ratio_in_rgba(image_dir):
    ds = utils.image_dataset_from_directory(
        image_dir,
        batch_size=5,
        image_size=(4, 8),
        shuffle=False,
        pad_to_aspect_ratio=True,
        color_mode="rgba",
        verbose=False,
    )
    got = _sums(ds)[:3]
    # TF 2.21: sums 43391.13, 47565.3, 44338.34
    np.testing.assert_allclose([g[2] for g in got], [43391.13, 47565.3, 44338.34], rtol=1e-5)
    assert got[0][0] == [5, 4, 8, 4]


def test_images_without_pillow_raise_a_clear_import_error(image_dir, monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "PIL", None)  # Pillow is optional: as if not installed
    with pytest.raises(ImportError, match="needs Pillow"):
        utils.image_dataset_from_directory(image_dir, verbose=False)


def test_load_img_save_img_and_array_to_img_as_keras(tmp_path):
    image = pytest.importorskip("PIL.Image")
    path = tmp_path / "a.png"
    image.fromarray(np.random.RandomState(1).randint(0, 256, (9, 11, 3)).astype("uint8")).save(path)
    cases = [
        ({}, "RGB", (11, 9), 37497.0),  # TF 2.21 / Keras 3.15's modes, sizes and sums
        ({"color_mode": "grayscale"}, "L", (11, 9), 12630.0),
        ({"color_mode": "rgba", "target_size": (5, 7)}, "RGBA", (7, 5), 21898.0),
        ({"target_size": (4, 4), "keep_aspect_ratio": True, "interpolation": "bilinear"}, "RGB", (4, 4), 6029.0),
        ({"target_size": (6, 3), "interpolation": "lanczos"}, "RGB", (3, 6), 6829.0),
    ]
    for kwargs, mode, size, total in cases:
        img = utils.load_img(str(path), **kwargs)
        assert (img.mode, img.size, float(utils.img_to_array(img).sum())) == (mode, size, total)
    x = np.random.RandomState(0).uniform(-3, 5, (4, 5, 3)).astype("float32")
    assert int(np.asarray(utils.array_to_img(x)).sum()) == 7824  # TF 2.21 (scaled to [0, 255])
    assert int(np.asarray(utils.array_to_img(x.transpose(2, 0, 1), data_format="channels_first")).sum()) == 7824
    assert int(np.asarray(utils.array_to_img(np.abs(x) * 40, scale=False)).sum()) == 4999
    assert utils.array_to_img(np.full((2, 2, 1), 300.0), scale=False).mode == "I"
    utils.save_img(str(tmp_path / "s.png"), x)
    assert int(np.asarray(utils.load_img(str(tmp_path / "s.png"))).sum()) == 7824
