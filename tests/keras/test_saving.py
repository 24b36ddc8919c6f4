"""``model.save_weights`` / ``model.load_weights``: Keras 3's ``.weights.h5`` layout, both ways.

The fixtures in ``fixtures/`` were written by Keras 3 itself (``fixtures/make_keras_weights.py``),
with Keras's outputs on fixed inputs: Keras's weights must give Keras's outputs here, and the
files tfunc writes must have the same groups and datasets as Keras's.
"""

import os
import re
import sys
import warnings
import zipfile

import h5py
import numpy as np
import pytest

import tfunc as tf
from tfunc import keras
from tfunc.keras import callbacks, layers
from tfunc.keras import saving as saving_module

from .fixtures import keras_models

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
NAMES = list(keras_models.BUILDERS)


def fixture(name):
    return os.path.join(FIXTURES, f"{name}.weights.h5"), dict(np.load(os.path.join(FIXTURES, f"{name}.npz")))


def build(name):
    """The fixture's architecture built with tfunc, called once on the fixture's inputs."""
    _, record = fixture(name)
    model = keras_models.BUILDERS[name](keras, batch_size=len(record["x"]))
    model(record["x"], training=False)
    return model


def outputs(model, x):
    out = model(x, training=False)
    return [o.numpy() for o in (out if isinstance(out, (list, tuple)) else [out])]


def layout(path):
    """``{path: ("group", has name attr) | (shape, dtype kind)}`` of an HDF5 file."""
    out = {}

    def visit(name, obj):
        if isinstance(obj, h5py.Dataset):
            out[name] = (obj.shape, obj.dtype.kind)
        else:
            out[name] = ("group", "name" in obj.attrs)

    with h5py.File(path, "r") as f:
        f.visititems(visit)
    return out


def weights_of(model):
    return [w.copy() for w in model.get_weights()]


def assert_same(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)


# --- Keras -> tfunc ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_weights_saved_by_keras_give_keras_outputs(name):
    path, record = fixture(name)
    model = build(name)
    before = outputs(model, record["x"])
    model.load_weights(path)
    got = outputs(model, record["x"])
    for i, out in enumerate(got):
        assert not np.allclose(before[i], record[f"y{i}"], atol=1e-3)  # the load is what makes them equal
        np.testing.assert_allclose(out, record[f"y{i}"], rtol=1e-5, atol=1e-5)


def test_optimizer_state_saved_by_keras_continues_training_as_keras_does():
    path, record = fixture("mlp")
    for built_first in (False, True):
        model = build("mlp")
        model.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse")
        if built_first:  # slots already made by a step: they are overwritten
            model.train_on_batch(record["batch_x"], record["batch_y"])
        model.load_weights(path)
        assert int(model.optimizer.iterations.numpy()) == int(record["iterations_after_step"]) - 1
        model.train_on_batch(record["batch_x"], record["batch_y"])
        assert int(model.optimizer.iterations.numpy()) == int(record["iterations_after_step"])
        for i, w in enumerate(model.get_weights()):
            np.testing.assert_allclose(w, record[f"after_step_{i}"], rtol=1e-5, atol=1e-6)


def test_a_model_without_optimizer_ignores_the_files_optimizer():
    path, record = fixture("mlp")
    model = build("mlp")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.load_weights(path)
    np.testing.assert_allclose(outputs(model, record["x"])[0], record["y0"], rtol=1e-5, atol=1e-5)


# --- tfunc -> Keras ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_files_written_by_tfunc_have_keras_layout_and_load_back(name, tmp_path):
    keras_path, record = fixture(name)
    model = build(name)
    if name == "mlp":  # Keras's file holds Adam's state after training
        model.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse")
        model.train_on_batch(record["batch_x"], record["batch_y"])
    path = tmp_path / f"{name}.weights.h5"
    model.save_weights(path)
    ours, theirs = layout(path), layout(keras_path)
    assert sorted(ours) == sorted(theirs)
    assert ours == theirs
    vars_groups = [k for k in ours if k == "vars" or k.endswith("/vars")]
    assert vars_groups and all(ours[k] == ("group", True) for k in vars_groups)

    expected = outputs(model, record["x"])
    fresh = build(name)
    fresh.load_weights(path)
    for a, b in zip(outputs(fresh, record["x"]), expected):
        np.testing.assert_array_equal(a, b)


@pytest.fixture
def trained_mlp(tmp_path):
    model = build("mlp")
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse")
    _, record = fixture("mlp")
    model.train_on_batch(record["batch_x"], record["batch_y"])
    path = tmp_path / "mlp.weights.h5"
    model.save_weights(path)
    return model, path


def test_datasets_hold_each_object_s_variables_in_keras_order(trained_mlp):
    model, path = trained_mlp
    dense = [layer for layer in model.layers if isinstance(layer, layers.Dense)]
    opt = model.optimizer
    with h5py.File(path, "r") as f:
        assert f["vars"].attrs["name"] == model.name and len(f["vars"]) == 0
        for key, layer in zip(["dense", "dense_1", "dense_2"], dense):
            group = f[f"layers/{key}/vars"]
            assert group.attrs["name"] == layer.name
            np.testing.assert_array_equal(group["0"][()], layer.kernel.numpy())
            np.testing.assert_array_equal(group["1"][()], layer.bias.numpy())
        assert len(f["layers/flatten/vars"]) == 0
        ovars = f["optimizer/vars"]
        assert ovars["0"][()] == 1 and np.isclose(ovars["1"][()], 0.01)
        for i, var in enumerate(model.trainable_weights):  # each variable's m, then its v
            np.testing.assert_array_equal(ovars[str(2 + 2 * i)][()], opt.get_slot(var, "m").numpy())
            np.testing.assert_array_equal(ovars[str(3 + 2 * i)][()], opt.get_slot(var, "v").numpy())


OPTIMIZERS = {
    # name: (make, what Keras 3 lists in `optimizer.variables`: slots of every trainable variable
    # in turn, one group after another; a tuple is a group whose slots alternate per variable)
    "sgd": (lambda: keras.optimizers.SGD(0.1), ["iteration", "learning_rate"]),
    "sgd_momentum": (lambda: keras.optimizers.SGD(0.1, momentum=0.9), ["iteration", "learning_rate", "momentum"]),
    "adam_amsgrad": (
        lambda: keras.optimizers.Adam(amsgrad=True),
        ["iteration", "learning_rate", ("m", "v"), "vhat"],
    ),
    "rmsprop": (
        lambda: keras.optimizers.RMSprop(momentum=0.5, centered=True),
        ["iteration", "learning_rate", "velocity", "momentum", "average_gradient"],
    ),
    "adagrad": (lambda: keras.optimizers.Adagrad(), ["iteration", "learning_rate", "accumulator"]),
    "schedule": (
        lambda: keras.optimizers.Adam(keras.optimizers.schedules.ExponentialDecay(0.1, 10, 0.9)),
        ["iteration", ("m", "v")],
    ),
    "nadam": (lambda: keras.optimizers.Nadam(), ["iteration", "learning_rate", ("momentum", "velocity"), "u_product"]),
    "adamax": (lambda: keras.optimizers.Adamax(), ["iteration", "learning_rate", ("momentum", "norm")]),
    "adadelta": (
        lambda: keras.optimizers.Adadelta(),
        ["iteration", "learning_rate", ("accumulated_grad", "accumulated_delta_var")],
    ),
    "ftrl": (lambda: keras.optimizers.Ftrl(), ["iteration", "learning_rate", ("accumulator", "linear")]),
    "lion": (lambda: keras.optimizers.Lion(), ["iteration", "learning_rate", "momentum"]),
}


def two_dense():
    model = keras.Sequential([keras.Input((3,)), layers.Dense(2), layers.Dense(1)])
    return model


def expected_optimizer_values(model, spec):
    """The optimizer's values in the order Keras 3 lists them (checked against Keras 3.15)."""
    opt = model.optimizer
    out = []
    for item in spec:
        if item == "iteration":
            out.append(opt.iterations.numpy())
        elif item == "learning_rate":
            out.append(opt.learning_rate.numpy())
        elif item == "u_product":  # Nadam's, made after the slots
            out.append(opt.variables[-1].numpy())
        else:
            group = item if isinstance(item, tuple) else (item,)
            for var in model.trainable_weights:
                out.extend(opt.get_slot(var, slot).numpy() for slot in group)
    return out


@pytest.mark.parametrize("kind", sorted(OPTIMIZERS))
def test_optimizer_variables_in_keras_order_and_round_trip(kind, tmp_path, rng):
    make, spec = OPTIMIZERS[kind]
    x = rng.standard_normal((8, 3)).astype(np.float32)
    y = rng.standard_normal((8, 1)).astype(np.float32)
    model = two_dense()
    model.compile(optimizer=make(), loss="mse")
    model.fit(x, y, batch_size=4, epochs=2, verbose=0)
    path = tmp_path / "m.weights.h5"
    model.save_weights(path)
    expected = expected_optimizer_values(model, spec)
    with h5py.File(path, "r") as f:
        group = f["optimizer/vars"]
        assert len(group) == len(expected)
        for i, value in enumerate(expected):
            np.testing.assert_allclose(group[str(i)][()], value, rtol=1e-6)

    # Fresh objects continue exactly where the saved ones stopped.
    other = two_dense()
    other.compile(optimizer=make(), loss="mse")
    other.load_weights(path)
    model.train_on_batch(x, y)
    other.train_on_batch(x, y)
    assert_same(other.get_weights(), model.get_weights())
    assert int(other.optimizer.iterations.numpy()) == int(model.optimizer.iterations.numpy()) == 5


def test_unbuilt_optimizer_writes_iteration_and_learning_rate_as_keras_does(tmp_path):
    model = two_dense()
    model.compile(optimizer=keras.optimizers.SGD(0.25, momentum=0.9), loss="mse")
    path = tmp_path / "m.weights.h5"
    model.save_weights(path)
    with h5py.File(path, "r") as f:
        assert f["optimizer/vars/0"][()] == 0 and f["optimizer/vars/1"][()] == 0.25
        assert len(f["optimizer/vars"]) == 2
    other = two_dense()
    other.compile(optimizer=keras.optimizers.SGD(0.5, momentum=0.9), loss="mse")
    other.load_weights(path)
    assert float(other.optimizer.learning_rate.numpy()) == 0.25


def test_optimizer_whose_variables_do_not_match_is_skipped_with_keras_warning(tmp_path, rng):
    x = rng.standard_normal((4, 3)).astype(np.float32)
    y = rng.standard_normal((4, 1)).astype(np.float32)
    model = two_dense()
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse")
    model.train_on_batch(x, y)
    path = tmp_path / "m.weights.h5"
    model.save_weights(path)
    other = two_dense()
    other.compile(optimizer=keras.optimizers.SGD(0.3), loss="mse")
    other.train_on_batch(x, y)
    with pytest.warns(UserWarning, match="Skipping variable loading for optimizer .* 2 variables whereas .* 10"):
        other.load_weights(path)
    assert_same(other.get_weights(), model.get_weights())  # the layers are loaded all the same
    assert np.isclose(float(other.optimizer.learning_rate.numpy()), 0.3)


def test_loss_scale_optimizer_layout(tmp_path, rng):
    x = rng.standard_normal((4, 3)).astype(np.float32)
    y = rng.standard_normal((4, 1)).astype(np.float32)

    def make():
        model = two_dense()
        model.compile(optimizer=keras.optimizers.LossScaleOptimizer(keras.optimizers.SGD(0.1)), loss="mse")
        return model

    model = make()
    path = tmp_path / "m.weights.h5"
    model.save_weights(path)
    with h5py.File(path, "r") as f:
        assert len(f["optimizer/vars"]) == 4 and "optimizer/inner_optimizer/vars" in f  # as Keras, before a step
    model.train_on_batch(x, y)
    model.save_weights(path)
    with h5py.File(path, "r") as f:
        # Keras: its own iteration and learning rate, step counter, scale, then the inner optimizer's.
        assert len(f["optimizer/vars"]) == 6 and len(f["optimizer/inner_optimizer/vars"]) == 2
        assert f["optimizer/vars/3"][()] == model.optimizer.loss_scale.numpy()
        assert f["optimizer/inner_optimizer/vars/0"][()] == 1
    other = make()
    other.load_weights(path)
    assert int(other.optimizer.iterations.numpy()) == 1
    assert_same(other.get_weights(), model.get_weights())


# --- structure: nesting, sharing, modules -------------------------------------------------------


def test_shared_layer_is_saved_once_under_its_first_path(tmp_path):
    class Twice(keras.Model):
        def __init__(self):
            super().__init__()
            self.a = layers.Dense(2)
            self.b = self.a
            self.more = [self.a, layers.Dense(2)]

        def call(self, x):
            return self.more[1](self.b(self.a(x[:, :2])))

    model = Twice()
    model(np.ones((1, 2), np.float32))
    path = tmp_path / "t.weights.h5"
    model.save_weights(path)
    # As Keras writes it: `a` first; the model's `layers` property (sorted before `more`) holds the
    # other Dense, numbered after the shared one; `b` and `more` add nothing.
    assert sorted(k for k in layout(path) if k.endswith("/vars")) == ["a/vars", "layers/dense_1/vars"]


def test_operator_layers_of_a_functional_model_get_no_group(tmp_path):
    inputs = keras.Input((3,))
    outputs = layers.Dense(2)(inputs) * 2.0 + 1.0
    model = keras.Model(inputs, outputs)
    path = tmp_path / "f.weights.h5"
    model.save_weights(path)
    assert sorted(k for k in layout(path) if k.count("/") == 1) == ["layers/dense", "layers/input_layer"]


def test_modules_inside_a_model_are_saved(tmp_path):
    class Block(tf.Module):
        def __init__(self):
            super().__init__()
            self.scale = tf.Variable(2.0)

    class Net(keras.Model):
        def __init__(self):
            super().__init__()
            self.block = Block()
            self.dense = layers.Dense(2)

        def call(self, x):
            return self.dense(x) * self.block.scale

    model = Net()
    model(np.ones((1, 3), np.float32))
    model.block.scale.assign(5.0)
    path = tmp_path / "n.weights.h5"
    model.save_weights(path)
    assert layout(path)["block/vars/0"] == ((), "f")
    other = Net()
    other(np.ones((1, 3), np.float32))
    other.load_weights(path)
    assert float(other.block.scale.numpy()) == 5.0


def test_lists_inside_lists_are_containers_as_in_keras(tmp_path):
    class Grouped(layers.Layer):
        def __init__(self):
            super().__init__()
            self.groups = [[layers.Dense(2)], layers.Dense(2), ({"k": layers.Dense(2)},)]

        def call(self, x):
            return self.groups[0][0](x) + self.groups[1](x) + self.groups[2][0]["k"](x)

    class Net(keras.Model):
        def __init__(self):
            super().__init__()
            self.inner = Grouped()

        def call(self, x):
            return self.inner(x)

    model = Net()
    model(np.ones((1, 3), np.float32))
    path = tmp_path / "g.weights.h5"
    model.save_weights(path)
    kernels = sorted(k for k in layout(path) if k.endswith("vars/0"))
    # As Keras 3.15 writes it (its nested-container walk).
    assert kernels == [
        "inner/groups/container/dense/vars/0",
        "inner/groups/container_1/container/dense/vars/0",
        "inner/groups/dense/vars/0",
    ]
    other = Net()
    other(np.ones((1, 3), np.float32))
    other.load_weights(path)
    assert_same(other.get_weights(), model.get_weights())


def test_bfloat16_weights_are_stored_as_keras_stores_them(tmp_path):
    layer = layers.Dense(2, dtype="bfloat16")
    model = keras.Sequential([keras.Input((3,)), layer])
    path = tmp_path / "b.weights.h5"
    model.save_weights(path)
    with h5py.File(path, "r") as f:
        ds = f["layers/dense/vars/0"]
        assert ds.dtype.kind == "V" and ds.dtype.itemsize == 2 and ds.attrs["dtype"] == "bfloat16"
    other = keras.Sequential([keras.Input((3,)), layers.Dense(2, dtype="bfloat16")])
    other.load_weights(path)
    assert_same(other.get_weights(), model.get_weights())


def test_weights_inside_a_keras_archive_load(tmp_path):
    path, record = fixture("cnn")
    archive = tmp_path / "model.keras"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("config.json", "{}")
        z.write(path, "model.weights.h5")
    model = build("cnn")
    model.load_weights(archive)
    np.testing.assert_allclose(outputs(model, record["x"])[0], record["y0"], rtol=1e-5, atol=1e-5)
    with zipfile.ZipFile(tmp_path / "empty.keras", "w") as z:
        z.writestr("config.json", "{}")
    with pytest.raises(ValueError, match="holds no `model.weights.h5`"):
        model.load_weights(tmp_path / "empty.keras")


# --- errors -------------------------------------------------------------------------------------


def test_wrong_architecture_names_the_layer_and_shapes_and_leaves_the_model_unchanged(tmp_path):
    path, record = fixture("mlp")
    model = keras.Sequential([keras.Input((6,)), layers.Dense(16), layers.Flatten(), layers.Dense(5), layers.Dense(3)])
    before = weights_of(model)
    with pytest.raises(ValueError) as info:
        model.load_weights(path)
    message = str(info.value)
    assert "A total of 2 objects could not be loaded" in message and "mlp.weights.h5" in message
    assert "Layer 'dense_" in message and "'layers/dense_1'" in message
    assert "(16, 5)" in message and "(16, 8)" in message  # the model's shape and the file's
    assert "left unchanged" in message
    assert_same(model.get_weights(), before)  # not even the matching first layer was assigned


def test_missing_layer_is_an_error_naming_it(tmp_path):
    path, _ = fixture("mlp")
    model = keras.Sequential(
        [
            keras.Input((6,)),
            layers.Dense(16),
            layers.Flatten(),
            layers.Dense(8),
            layers.Dense(3),
            layers.Dense(3),
        ]
    )
    before = weights_of(model)
    with pytest.raises(ValueError, match=r"'layers/dense_3'.*expected 2 variables .* \[\(3, 3\), \(3,\)\].*no group"):
        model.load_weights(path)
    assert_same(model.get_weights(), before)


def test_extra_groups_in_the_file_are_ignored_as_keras_does(tmp_path):
    path, record = fixture("mlp")
    smaller = keras.Sequential([keras.Input((6,)), layers.Dense(16, activation="relu")])
    smaller.load_weights(path)
    with h5py.File(path, "r") as f:
        np.testing.assert_array_equal(smaller.layers[0].kernel.numpy(), f["layers/dense/vars/0"][()])


def test_skip_mismatch_loads_the_rest_with_a_warning(tmp_path):
    path, _ = fixture("mlp")
    model = keras.Sequential([keras.Input((6,)), layers.Dense(16), layers.Flatten(), layers.Dense(5), layers.Dense(3)])
    before = weights_of(model)
    with pytest.warns(UserWarning, match="skipped \\(skip_mismatch=True\\)"):
        model.load_weights(path, skip_mismatch=True)
    with h5py.File(path, "r") as f:
        np.testing.assert_array_equal(model.layers[0].kernel.numpy(), f["layers/dense/vars/0"][()])
    assert_same(model.layers[2].get_weights(), before[2:4])  # the mismatched layers are untouched
    assert_same(model.layers[3].get_weights(), before[4:6])


def test_paths_models_and_files_that_cannot_be_used(tmp_path):
    model = two_dense()
    with pytest.raises(ValueError, match="must end in `.weights.h5`"):
        model.save_weights(tmp_path / "w.h5")
    with pytest.raises(ValueError, match="File format not supported"):
        model.load_weights(tmp_path / "w.ckpt")
    with pytest.raises(FileNotFoundError, match="missing.weights.h5"):
        model.load_weights(tmp_path / "missing.weights.h5")
    unbuilt = keras.Sequential([layers.Dense(2)])
    with pytest.raises(ValueError, match="has not yet been built"):
        unbuilt.save_weights(tmp_path / "u.weights.h5")
    path, _ = fixture("mlp")
    with pytest.raises(ValueError, match="has not yet been built"):
        unbuilt.load_weights(path)
    not_h5 = tmp_path / "text.weights.h5"
    not_h5.write_text("not an HDF5 file")
    with pytest.raises(OSError, match="text.weights.h5.*not an HDF5 file"):
        model.load_weights(not_h5)
    legacy = tmp_path / "legacy.weights.h5"
    with h5py.File(legacy, "w") as f:
        f.attrs["layer_names"] = [b"dense"]
    with pytest.raises(ValueError, match="legacy Keras 2"):
        model.load_weights(legacy)


def hostile(tmp_path, edit):
    model = two_dense()
    path = tmp_path / "h.weights.h5"
    model.save_weights(path)
    with h5py.File(path, "a") as f:
        edit(f)
    other = two_dense()
    before = weights_of(other)
    return other, path, before


@pytest.mark.parametrize(
    "edit, message",
    [
        (
            lambda f: (f.__delitem__("layers/dense"), f.__setitem__("layers/dense", h5py.SoftLink("/layers/dense_1"))),
            "SoftLink; links are not allowed",
        ),
        (
            lambda f: f["layers/dense_1/vars"].__setitem__("2", h5py.ExternalLink("other.h5", "/x")),
            "ExternalLink; links are not allowed",
        ),
        (
            lambda f: (
                f["layers/dense/vars"].__delitem__("1"),
                f["layers/dense/vars"].create_dataset("1", data=np.array([b"ab", b"cd"])),
            ),
            re.escape("holds |S2, not numbers"),
        ),
        (
            lambda f: (
                f["layers/dense/vars"].__delitem__("0"),
                f["layers/dense/vars"].create_dataset("0", shape=(3, 2), dtype="f4", external=[("ext.bin", 0, 24)]),
            ),
            "keeps its data outside the file",
        ),
        (
            lambda f: (f["layers/dense/vars"].__delitem__("0"), f["layers/dense/vars"].create_group("0")),
            "is a Group, expected a dataset",
        ),
        (
            lambda f: (
                f["layers/dense/vars"].__delitem__("0"),
                f["layers/dense/vars"].create_dataset("0", shape=(10**6, 10**6), dtype="f4", chunks=(1, 1)),
            ),
            r"variable 0 \('(\w+/)?dense_\d+/kernel'\) has shape \(3, 2\) in the model, but the file holds shape "
            r"\(1000000, 1000000\)",
        ),
    ],
    ids=["soft-link", "external-link", "strings", "external-storage", "group-for-dataset", "shape-bomb"],
)
def test_hostile_files_are_refused_before_anything_is_assigned(tmp_path, edit, message):
    other, path, before = hostile(tmp_path, edit)
    with pytest.raises(ValueError, match=message):
        other.load_weights(path)
    assert_same(other.get_weights(), before)


def test_damaged_files_raise_clean_errors_and_leave_the_model_unchanged(tmp_path):
    path, record = fixture("cnn")
    data = open(path, "rb").read()
    model = build("cnn")
    before = weights_of(model)
    rng = np.random.default_rng(0)
    damaged = tmp_path / "damaged.weights.h5"
    failures = 0
    for trial in range(80):
        blob = bytearray(data)
        if trial % 2:
            blob = blob[: int(rng.integers(0, len(blob)))]
        else:
            for _ in range(int(rng.integers(1, 8))):
                blob[int(rng.integers(0, len(blob)))] ^= 1 << int(rng.integers(0, 8))
        damaged.write_bytes(bytes(blob))
        try:
            model.load_weights(damaged)
        except (ValueError, OSError) as e:
            failures += 1
            assert "damaged.weights.h5" in str(e) or "could not be loaded" in str(e)
            assert_same(model.get_weights(), before)
        else:
            before = weights_of(model)  # a flip inside the data itself (HDF5 keeps no checksums of it)
    assert failures >= 40  # every truncation, at least


def test_an_interrupted_save_keeps_the_previous_file(tmp_path, monkeypatch):
    model = two_dense()
    path = tmp_path / "keep.weights.h5"
    model.save_weights(path)
    good = path.read_bytes()
    plain = tmp_path / "plain"
    plain.write_text("")
    assert path.stat().st_mode == plain.stat().st_mode  # the usual permissions, despite the rename
    plain.unlink()
    real = saving_module._variable_target

    def failing(v):
        target = real(v)
        if "dense_" in v.path and v.path.endswith("bias"):
            target.read = lambda: (_ for _ in ()).throw(KeyboardInterrupt())
        return target

    monkeypatch.setattr(saving_module, "_variable_target", failing)
    with pytest.raises(KeyboardInterrupt):
        model.save_weights(path)
    assert path.read_bytes() == good and sorted(p.name for p in tmp_path.iterdir()) == ["keep.weights.h5"]


def test_without_h5py_a_clear_import_error(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "h5py", None)
    with pytest.raises(ImportError, match=r"needs h5py: install it with `pip install 'tfunc\[h5\]'`"):
        two_dense().save_weights(tmp_path / "x.weights.h5")


# --- ModelCheckpoint ------------------------------------------------------------------------------


def test_model_checkpoint_writes_keras_weights_files(tmp_path, rng):
    x = rng.standard_normal((16, 3)).astype(np.float32)
    y = rng.standard_normal((16, 1)).astype(np.float32)
    model = two_dense()
    model.compile(optimizer="adam", loss="mse")
    template = str(tmp_path / "ckpt-{epoch}.weights.h5")
    model.fit(
        x, y, batch_size=8, epochs=2, verbose=0, callbacks=[callbacks.ModelCheckpoint(template, save_weights_only=True)]
    )
    for epoch in (1, 2):
        keys = layout(tmp_path / f"ckpt-{epoch}.weights.h5")
        assert keys["layers/dense/vars/0"] == ((3, 2), "f") and keys["layers/dense_1/vars/1"] == ((1,), "f")
        assert keys["optimizer/vars/0"] == ((), "i")
    with h5py.File(tmp_path / "ckpt-2.weights.h5", "r") as f:
        assert f["optimizer/vars/0"][()] == 4  # two epochs of two batches
    restored = two_dense()
    restored.compile(optimizer="adam", loss="mse")
    restored.load_weights(tmp_path / "ckpt-2.weights.h5")
    assert_same(restored.get_weights(), model.get_weights())
    assert int(restored.optimizer.iterations.numpy()) == 4


def test_a_nadam_inside_a_loss_scale_optimizer_is_laid_out_as_keras_does(tmp_path):
    # Keras 3.15 lists no u_product for a Nadam a LossScaleOptimizer wraps: 6 inner variables, and
    # the wrapper's 4 before them (its iteration, learning rate, step counter and scale)
    model = keras.Sequential([keras.Input((3,)), layers.Dense(2)])
    opt = keras.optimizers.LossScaleOptimizer(keras.optimizers.Nadam(0.05))
    model.compile(optimizer=opt, loss="mse")
    model.train_on_batch(np.ones((4, 3), np.float32), np.zeros((4, 2), np.float32))
    path = tmp_path / "m.weights.h5"
    model.save_weights(path)
    with h5py.File(path, "r") as f:
        assert len(f["optimizer/inner_optimizer/vars"]) == 6 and len(f["optimizer/vars"]) == 10
    other = keras.Sequential([keras.Input((3,)), layers.Dense(2)])
    other.compile(optimizer=keras.optimizers.LossScaleOptimizer(keras.optimizers.Nadam(0.05)), loss="mse")
    other.load_weights(path)
    assert int(other.optimizer.iterations.numpy()) == 1
