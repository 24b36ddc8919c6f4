"""A worker that goes wrong (run by ``mpiexec -n 2``): worker 1 raises, dies or stalls while
worker 0 trains; worker 0 must stop with a clear error, never wait forever.

    python failure.py raise|exit|stall TIMEOUT_SECONDS
"""

import os
import sys
import time

import numpy as np

import tfunc as tf

case, timeout = sys.argv[1], float(sys.argv[2])
options = tf.distribute.experimental.CommunicationOptions(timeout_seconds=timeout)
strategy = tf.distribute.MultiWorkerMirroredStrategy(communication_options=options)
rank = strategy.cluster_resolver.task_id

with strategy.scope():
    w = tf.Variable(np.ones((4, 2), np.float32))


@tf.function
def step(x):
    def replica_fn(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.matmul(x, w))
        (g,) = tape.gradient(loss, [w])
        return tf.distribute.get_replica_context().all_reduce("sum", g)

    return strategy.run(replica_fn, args=(x,))


step(tf.ones((3, 4)))  # one good step on both workers
print(f"worker {rank}: first step done", flush=True)
if rank == 1:
    if case == "raise":
        raise ValueError("worker 1 broke")
    if case == "exit":
        os._exit(3)
    if case == "stall":
        time.sleep(3600)
step(tf.ones((3, 4)))
print(f"worker {rank}: second step done", flush=True)
