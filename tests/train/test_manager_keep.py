"""CheckpointManager's max_to_keep, checked against TensorFlow 2.21."""

import os

import pytest

import tfunc as tf


@pytest.mark.parametrize("keep", [0, -1])
def test_max_to_keep_must_be_positive_or_none(tmp_path, keep):
    with pytest.raises(ValueError, match="positive integer or `None`"):
        tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable(1.0)), str(tmp_path), max_to_keep=keep)


def test_max_to_keep_none_keeps_all_and_one_keeps_newest(tmp_path):
    v = tf.Variable(1.0)
    every = tf.train.CheckpointManager(tf.train.Checkpoint(v=v), str(tmp_path / "all"), max_to_keep=None)
    newest = tf.train.CheckpointManager(tf.train.Checkpoint(v=v), str(tmp_path / "one"), max_to_keep=1)

    @tf.function
    def step():
        v.assign_add(1.0)

    for _ in range(3):
        step()
        every.save()
        newest.save()
    assert [os.path.basename(p) for p in every.checkpoints] == ["ckpt-1", "ckpt-2", "ckpt-3"]
    assert sorted(f for f in os.listdir(tmp_path / "one") if f.endswith(".index")) == ["ckpt-3.index"]
    v.assign(0.0)
    tf.train.Checkpoint(v=v).restore(every.checkpoints[0])
    assert float(v) == 2.0
