"""Editing saved files as an attacker would: change the contents, then recompute every
checksum so that only the loader's own checks stand between the file and the program."""

import glob
import hashlib
import json
import os

from tfunc import portable


def _read(path):
    with open(path, "rb") as f:
        whole = json.loads(f.read())
    return whole["format"], whole["body"]


def _write(path, kind, body):
    with open(path, "wb") as f:
        f.write(portable.encode_envelope(kind, body))


def _file_entry(path):
    data = open(path, "rb").read()
    return len(data), hashlib.sha256(data).hexdigest()


def resign_checkpoint(index_path):
    """Makes ``index_path`` agree with its data file again (size, checksums)."""
    kind, body = _read(index_path)
    entry = body.get("data") if isinstance(body, dict) else None
    if isinstance(entry, dict) and isinstance(entry.get("file"), str):
        data = os.path.join(os.path.dirname(index_path), entry["file"])
        if os.path.isfile(data):
            entry["size"], entry["sha256"] = _file_entry(data)
    _write(index_path, kind, body)


def resign(export_dir):
    """Recomputes every size and checksum of a SavedModel after its files were edited."""
    path = os.path.join(export_dir, portable.SAVED_MODEL_FILE)
    kind, body = _read(path)
    if not isinstance(body, dict):
        return
    for index in glob.glob(os.path.join(export_dir, "variables", "*.index")):
        resign_checkpoint(index)
    variables = body.get("variables")
    if isinstance(variables, dict) and isinstance(variables.get("prefix"), str):
        index = os.path.join(export_dir, variables["prefix"] + ".index")  # the index the description names
        if os.path.isfile(index):
            variables["index_sha256"] = hashlib.sha256(open(index, "rb").read()).hexdigest()
    consts = body.get("constants")
    if isinstance(consts, dict) and isinstance(consts.get("file"), str):
        f = os.path.join(export_dir, consts["file"])
        if os.path.isfile(f) and os.path.dirname(os.path.abspath(f)) == os.path.abspath(export_dir):
            consts["size"], consts["sha256"] = _file_entry(f)
    _write(path, kind, body)


def edit_description(export_dir, edit):
    """Applies ``edit(body)`` to saved_model.json and re-signs everything."""
    path = os.path.join(export_dir, portable.SAVED_MODEL_FILE)
    kind, body = _read(path)
    edit(body)
    _write(path, kind, body)
    resign(export_dir)
