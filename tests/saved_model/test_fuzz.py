"""Fuzzing the loaders with real saved files.

* Raw damage (truncations, flipped bytes) of every file of a SavedModel and a checkpoint
  must always be detected: a clean error naming the file, never a wrong result.
* Edits an attacker makes with the checksums recomputed (any value of the JSON description
  or of a safetensors header replaced, removed or retyped) must load or fail cleanly:
  only the loaders' own exception classes, never an arbitrary one from deep inside.
"""

import copy
import fnmatch
import glob
import json
import os
import shutil
import tempfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tfunc as tf
from tfunc import portable

from .helpers import resign, resign_checkpoint

FUZZ = settings(deadline=None, suppress_health_check=list(HealthCheck), derandomize=True, database=None)


class Rich(tf.Module):
    """Dense layers, control flow, fused groups, string and scalar constants, structured
    inputs and outputs: much for a decoder to get wrong."""

    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(4, activation="tanh")
        self.scale = tf.Variable([1.0, 2.0, 3.0, 4.0])
        self.table = {"steps": tf.Variable(3), "names": [tf.Variable(["a", "b"])]}

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    def __call__(self, x):
        y = self.dense(x) * self.scale
        if tf.reduce_sum(y) > 0.0:
            y = tf.nn.relu(y) + 1.0
        else:
            y = tf.abs(y)
        i = tf.constant(0)
        while i < self.table["steps"]:
            y = y * 0.5 + tf.cast(i, tf.float32)
            i += 1
        return {"y": y, "top": tf.argmax(y, axis=1), "label": self.table["names"][0][0] + tf.constant("!")}

    @tf.function
    def pair(self, inputs, flag=True):
        a = inputs["a"] * 2.0
        return (a + inputs["b"], [a[:1], tf.reshape(a, [-1])]) if flag else a


@pytest.fixture(scope="module")
def originals(tmp_path_factory):
    d = tmp_path_factory.mktemp("fuzz")
    rich = Rich()
    rich.pair({"a": tf.constant([1.0, 2.0]), "b": tf.constant(3.0)})
    tf.saved_model.save(rich, str(d / "sm"))
    ckpt = tf.train.Checkpoint(model=rich, step=tf.Variable(5))
    manager = tf.train.CheckpointManager(ckpt, str(d / "ck"), max_to_keep=2)
    manager.save()
    files = {}
    for path in sorted(glob.glob(str(d / "**" / "*"), recursive=True)):
        if os.path.isfile(path):
            files[os.path.relpath(path, d)] = open(path, "rb").read()
    return d, files


def _copy(d):
    work = tempfile.mkdtemp(prefix="fuzz-")
    shutil.copytree(d, work, dirs_exist_ok=True)
    return work


def _load_checkpoint(root):
    prefix = tf.train.latest_checkpoint(os.path.join(root, "ck"))
    if prefix is None:
        raise tf.errors.DataLossError(None, None, "no checkpoint recorded")
    target = tf.train.Checkpoint(model=Rich(), step=tf.Variable(0))
    target.restore(prefix).expect_partial()


def _clean_tfunc_error(e, root):
    if isinstance(e, (tf.errors.DataLossError, tf.errors.NotFoundError)):
        return root in str(e) or "no checkpoint" in str(e)
    # a self-consistent file that does not fit the live objects (restore): named, before any change
    return isinstance(e, (ValueError, tf.errors.InvalidArgumentError)) and root in str(e)


def _check_all_loaders(root, damaged=None):
    """Loads the SavedModel with tfunc and with the NumPy loader, and restores the checkpoint;
    every failure must be clean; ``damaged`` (``sm/...`` or ``ck/...``): the file whose raw
    damage must be detected by the loaders that read it."""
    sm_must_fail = bool(damaged) and damaged.startswith("sm/")
    ck_must_fail = bool(damaged) and damaged.startswith("ck/")
    loaders = [(lambda: tf.saved_model.load(os.path.join(root, "sm")), sm_must_fail)]
    loaders.append((lambda: _load_checkpoint(root), ck_must_fail))
    for load, must_fail in loaders:
        try:
            load()
        except Exception as e:  # noqa: BLE001 - the point: classify whatever comes out
            assert _clean_tfunc_error(e, root), f"unclean {type(e).__name__}: {e}"
        else:
            assert not must_fail, f"damage to {damaged} went unnoticed"
    try:
        portable.load(os.path.join(root, "sm"))
    except portable.FormatError as e:
        assert root in str(e)
    except FileNotFoundError:
        assert sm_must_fail
    else:
        assert not sm_must_fail, f"damage to {damaged} went unnoticed by the NumPy loader"


def _damaged(originals, name, data):
    d, _ = originals
    root = _copy(d)
    with open(os.path.join(root, name), "wb") as f:
        f.write(data)
    return root


FILES = st.sampled_from(
    [
        "sm/saved_model.json",
        "sm/variables/variables-*.index",
        "sm/variables/*.data-*",
        "sm/constants-*",
        "ck/ckpt-1.index",
    ]
    + ["ck/ckpt-1.data-*", "ck/checkpoint"]
)


def _pick(files, pattern):
    (name,) = [n for n in files if fnmatch.fnmatch(n, pattern)]
    return name


@settings(FUZZ, max_examples=100)
@given(pattern=FILES, cut=st.floats(0.0, 0.9999))
def test_truncations_are_detected(originals, pattern, cut):
    _, files = originals
    name = _pick(files, pattern)
    data = files[name]
    root = _damaged(originals, name, data[: int(len(data) * cut)])
    try:
        _check_all_loaders(root, damaged=name)
    finally:
        shutil.rmtree(root)


@settings(FUZZ, max_examples=200)
@given(pattern=FILES, flips=st.lists(st.tuples(st.floats(0.0, 0.9999), st.integers(1, 255)), min_size=1, max_size=4))
def test_flipped_bytes_are_detected(originals, pattern, flips):
    _, files = originals
    name = _pick(files, pattern)
    data = bytearray(files[name])
    for where, mask in flips:
        data[int(len(data) * where)] ^= mask
    changed = bytes(data) != files[name]
    root = _damaged(originals, name, bytes(data))
    try:
        _check_all_loaders(root, damaged=name if changed else None)
    finally:
        shutil.rmtree(root)


# --- edits with checksums recomputed -------------------------------------------------------------

WORDS = [
    "../escape",
    "/etc/passwd",
    "__class__",
    "__call__",
    "_tfunc_x",
    "float64",
    "int32",
    "string",
    "variant",
    "bfloat16",
    "matmul",
    "py_function",
    "fused_elementwise",
    "while_loop",
    "os.system",
    "SAME",
    "in",
    "s",
    "",
    "x",
]
KEYS = ["op", "name", "inputs", "outputs", "attrs", "spec", "dtype", "shape", "tensor", "graph", "variable"]
KEYS += ["dict", "float", "slot", "list", "tuple", "literal", "key", "scalar", "kind", "children", "slots", "file"]
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-3, 12)
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False, width=32)
    | st.sampled_from(WORDS)
    | st.sampled_from(KEYS)
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(KEYS + WORDS), inner, max_size=3),
    max_leaves=8,
)


def _paths(obj, prefix=()):
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _paths(v, prefix + (i,))


def _mutate(body, draw_index, action, value):
    paths = list(_paths(body))
    path = paths[draw_index % len(paths)]
    body = copy.deepcopy(body)
    if not path:
        return value if action == "replace" else body
    parent = body
    for p in path[:-1]:
        parent = parent[p]
    last = path[-1]
    if action == "delete":
        del parent[last]
    elif action == "duplicate" and isinstance(parent, list):
        parent.insert(last, copy.deepcopy(parent[last]))
    else:
        parent[last] = value
    return body


def _rewrite_json(root, name, mutate):
    path = os.path.join(root, name)
    whole = json.loads(open(path, "rb").read())
    body = mutate(whole["body"])
    with open(path, "wb") as f:
        f.write(portable.encode_envelope(whole["format"], body))


def _rewrite_header(root, name, mutate):
    path = os.path.join(root, name)
    raw = open(path, "rb").read()
    n = int.from_bytes(raw[:8], "little")
    header = mutate(json.loads(raw[8 : 8 + n]))
    text = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(len(text).to_bytes(8, "little") + text + raw[8 + n :])


EDITS = st.tuples(st.integers(0, 10**6), st.sampled_from(["replace", "replace", "delete", "duplicate"]), VALUES)


@settings(FUZZ, max_examples=250)
@given(edits=st.lists(EDITS, min_size=1, max_size=3))
def test_edited_saved_model_description(originals, edits):
    d, _ = originals
    root = _copy(d)
    try:
        for i, a, v in edits:
            _rewrite_json(root, "sm/saved_model.json", lambda b, i=i, a=a, v=v: _mutate(b, i, a, v))
        resign(os.path.join(root, "sm"))
        _check_all_loaders(root)
    finally:
        shutil.rmtree(root)


@settings(FUZZ, max_examples=150)
@given(target=st.sampled_from(["sm", "ck"]), edits=st.lists(EDITS, min_size=1, max_size=3))
def test_edited_checkpoint_index(originals, target, edits):
    d, files = originals
    root = _copy(d)
    try:
        name = _pick(files, "sm/variables/variables-*.index" if target == "sm" else "ck/ckpt-1.index")
        for i, a, v in edits:
            _rewrite_json(root, name, lambda b, i=i, a=a, v=v: _mutate(b, i, a, v))
        resign_checkpoint(os.path.join(root, name))
        if target == "sm":
            resign(os.path.join(root, "sm"))
        _check_all_loaders(root)
    finally:
        shutil.rmtree(root)


@settings(FUZZ, max_examples=120)
@given(
    pattern=st.sampled_from(["sm/variables/*.data-*", "ck/ckpt-1.data-*"]),
    edits=st.lists(EDITS, min_size=1, max_size=2),
)
def test_edited_tensor_headers(originals, pattern, edits):
    d, files = originals
    root = _copy(d)
    try:
        name = _pick(files, pattern)
        for i, a, v in edits:
            _rewrite_header(root, name, lambda h, i=i, a=a, v=v: _mutate(h, i, a, v))
        if pattern.startswith("sm"):
            resign(os.path.join(root, "sm"))
        else:
            resign_checkpoint(os.path.join(root, "ck", "ckpt-1.index"))
        _check_all_loaders(root)
    finally:
        shutil.rmtree(root)


def test_the_originals_load(originals):
    d, _ = originals
    loaded = tf.saved_model.load(str(d / "sm"))
    out = loaded(np.ones((2, 3), np.float32))
    assert out["label"].numpy() == b"a!"
    m = portable.load(d / "sm")
    np.testing.assert_allclose(m(np.ones((2, 3), np.float32))["y"], out["y"].numpy(), rtol=1e-6)
    assert m.pair({"a": np.array([1.0, 2.0], np.float32), "b": np.float32(3.0)})[1][1].tolist() == [2.0, 4.0]
