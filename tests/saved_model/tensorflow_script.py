"""Checkpoints and SavedModels as TensorFlow users write them: ``python tensorflow_script.py``
runs it with ``import tfunc as tf`` (tests/saved_model/test_tensorflow_script.py)."""

import os
import tempfile

import numpy as np

import tfunc as tf

workdir = tempfile.mkdtemp()
ckpt_dir = os.path.join(workdir, "tf_ckpts")


def make_model():
    return tf.keras.Sequential([tf.keras.layers.Dense(16, activation="relu"), tf.keras.layers.Dense(1)])


inputs = tf.random.normal([64, 4], seed=1)
labels = tf.reduce_sum(inputs, axis=1, keepdims=True)

model = make_model()
optimizer = tf.keras.optimizers.Adam(0.01)
ckpt = tf.train.Checkpoint(step=tf.Variable(1), optimizer=optimizer, net=model)
manager = tf.train.CheckpointManager(ckpt, ckpt_dir, max_to_keep=2)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


ckpt.restore(manager.latest_checkpoint)
if manager.latest_checkpoint:
    print("Restored from {}".format(manager.latest_checkpoint))
else:
    print("Initializing from scratch.")

for _ in range(30):
    loss = train_step(inputs, labels)
    ckpt.step.assign_add(1)
    if int(ckpt.step) % 10 == 0:
        save_path = manager.save()
        print("Saved checkpoint for step {}: {}".format(int(ckpt.step), save_path))
        print("loss {:1.2f}".format(loss.numpy()))

print("Final checkpoint:", os.path.basename(manager.save()))
assert [os.path.basename(p) for p in manager.checkpoints] == ["ckpt-3", "ckpt-4"], manager.checkpoints

# Fresh objects: restored when the model is built, the optimizer on its first step.
new_model = make_model()
new_optimizer = tf.keras.optimizers.Adam(0.01)
new_ckpt = tf.train.Checkpoint(step=tf.Variable(1), optimizer=new_optimizer, net=new_model)
status = new_ckpt.restore(tf.train.latest_checkpoint(ckpt_dir))
np.testing.assert_allclose(new_model(inputs).numpy(), model(inputs).numpy(), rtol=1e-6)
assert int(new_ckpt.step) == int(ckpt.step) == 31
status.assert_existing_objects_matched()
print("Restored step", int(new_ckpt.step))

# Keras weights: save_weights / load_weights into a model of the same architecture.
weights_path = os.path.join(workdir, "model.weights.h5")
model.save_weights(weights_path)
copy = make_model()
copy.build((None, 4))
copy.load_weights(weights_path)
np.testing.assert_allclose(copy(inputs).numpy(), model(inputs).numpy(), rtol=1e-6)
print("Weights reloaded from", os.path.basename(weights_path))


class Exported(tf.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    @tf.function(input_signature=[tf.TensorSpec(shape=[None, 4], dtype=tf.float32)])
    def serve(self, x):
        return {"prediction": self.net(x), "total": tf.reduce_sum(x, axis=1)}


module = Exported(model)
export_dir = os.path.join(workdir, "exported")
tf.saved_model.save(module, export_dir, signatures=module.serve)
imported = tf.saved_model.load(export_dir)
out = imported.signatures["serving_default"](x=inputs[:3])
np.testing.assert_allclose(out["prediction"].numpy(), model(inputs[:3]).numpy(), rtol=1e-6)
np.testing.assert_allclose(imported.serve(inputs[:3])["total"].numpy(), tf.reduce_sum(inputs[:3], axis=1).numpy())
print("Served outputs:", sorted(out.keys()))

# A damaged checkpoint is refused, and the objects keep their values.
latest = manager.latest_checkpoint
data_file = [f for f in os.listdir(ckpt_dir) if f.startswith(os.path.basename(latest) + ".data")][0]
with open(os.path.join(ckpt_dir, data_file), "r+b") as f:
    f.seek(-4, os.SEEK_END)
    f.write(b"\x00\xff\x00\xff")
before = new_model(inputs).numpy()
try:
    new_ckpt.restore(latest)
except tf.errors.DataLossError as e:
    print("Damaged checkpoint refused:", type(e).__name__)
else:
    raise SystemExit("a damaged checkpoint was restored")
np.testing.assert_array_equal(new_model(inputs).numpy(), before)
