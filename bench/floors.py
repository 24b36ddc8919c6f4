"""The measured floors behind two CPU targets, taken in one process (``python -m bench.floors``).

* **W5** (the 20-op chain on 1e6 float32 against bare NumPy): tfunc's fused kernel with one
  thread and with two, bare NumPy's unfused chain, and how much a second thread speeds up
  *independent* ufunc loops (sin, exp and tanh over 65,536-element blocks, no Python between
  them but the loop).  A fused kernel can split its blocks over two threads no better than
  those loops do, so ``one-thread kernel / loop speed-up / bare NumPy`` is the ratio two
  threads can reach on this machine.
* **W4 forward** (the guide's convolution against TensorFlow's oneDNN): the machine's GEMM
  rate (a 2048x2048 float32 product on one BLAS thread, and tfunc's split over both cores),
  and the two parts of tfunc's convolution kernel, each on one thread: gathering every
  block's patches (im2col) and the blocks' GEMMs.  Split over two cores the kernel can take no
  less than half their sum; the GEMMs alone set half of that.
* **W4 backward** (both gradients of the guide's convolution against its forward): the
  forward and the forward plus both gradients as two tf.functions, interleaved.  The input
  gradient and the filter gradient are each a product of at least the forward's size (the
  input gradient's output is the input's size: 2.02x the forward's FLOPs for both on W4), so
  the backward costs at least twice the forward's product.

* **Pooling** (memory speed): a 2x2 max and average pool of a 64x112x112x64 float32 tensor
  (205 MB, past every cache) as tf.functions, against copying that tensor, the portable
  tap-by-tap kernel's max pool for comparison, and the max pool with its gradient.

Medians of interleaved repetitions; each figure is printed, nothing is asserted.
"""

from __future__ import annotations

import argparse
import statistics
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import core

BLOCK = 1 << 16  # the fused kernels' block (tfunc.ops.host_constants.BLOCK)


def _median_ms(fns: dict, repeats: int) -> dict:
    """Median milliseconds per call of each function, the functions taking turns.  A value may
    be ``(setup, fn)``: ``setup()`` runs untimed before each timed ``fn()``."""
    times: dict = {k: [] for k in fns}
    for _ in range(repeats):
        for k, f in fns.items():
            if isinstance(f, tuple):
                f[0]()
                f = f[1]
            t = time.perf_counter()
            f()
            times[k].append(time.perf_counter() - t)
    return {k: statistics.median(v) * 1e3 for k, v in times.items()}


def _loops(a, out, lo, hi):
    for s in range(lo, hi, BLOCK):
        e = min(s + BLOCK, hi)
        np.sin(a[s:e], out=out[s:e])
        np.exp(a[s:e], out=out[s:e])
        np.tanh(a[s:e], out=out[s:e])


def w5_floor(n: int = core.Sizes.chain_large, repeats: int = 15) -> dict:
    from .fw_tfunc import Framework  # the benchmark's own chains: tfunc's ops and bare NumPy's

    framework = Framework()
    tf = framework.tf
    x = np.random.default_rng(0).uniform(-1.0, 1.0, n).astype(np.float32)
    fn = tf.function(core.make_chain(framework.chain_ops()))
    tx = tf.constant(x)
    bare = core.make_chain(core.NumpyOps)
    np.testing.assert_allclose(fn(tx).numpy(), bare(x), rtol=1e-4, atol=1e-5)
    setting = tf.config.threading.get_intra_op_parallelism_threads()
    threads = tf.config.threading.set_intra_op_parallelism_threads
    out, out2 = np.empty_like(x), np.empty_like(x)
    mid = (n // 2 // BLOCK + 1) * BLOCK
    pool = ThreadPoolExecutor(1)

    def loops_two():
        f = pool.submit(_loops, x, out2, mid, n)
        _loops(x, out, 0, mid)
        f.result()

    try:
        ms = _median_ms(
            {
                "bare_numpy": lambda: bare(x),
                "tfunc_1_thread": (lambda: threads(1), lambda: fn(tx)),
                "tfunc_2_threads": (lambda: threads(2), lambda: fn(tx)),
                "loops_1_thread": lambda: _loops(x, out, 0, n),
                "loops_2_threads": loops_two,
            },
            repeats,
        )
    finally:
        threads(setting)
        pool.shutdown()
    speedup = ms["loops_1_thread"] / ms["loops_2_threads"]
    ms["loop_speedup"] = speedup
    ms["floor_ratio"] = ms["tfunc_1_thread"] / speedup / ms["bare_numpy"]
    ms["tfunc_ratio"] = ms["tfunc_2_threads"] / ms["bare_numpy"]
    return ms


def w4_forward(shape=core.Sizes.conv, filters: int = core.Sizes.conv_filters, square: int = 2048, repeats=5) -> dict:
    import tfunc as tf
    from tfunc.backend.numpy import conv  # the kernel's own blocking and gather
    from tfunc.ops.conv import geometry

    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32)
    k = (rng.standard_normal((3, 3, shape[-1], filters)) * 0.05).astype(np.float32)
    g = geometry(x.shape, k.shape, (1, 1), "VALID", (1, 1))
    blocks, most = conv._blocks(g, x.itemsize)
    k2 = k.reshape(-1, filters)
    cols = np.empty((most, k2.shape[0]), np.float32)
    out = np.empty((g.n, g.oh, g.ow, g.oc), np.float32)

    windows = conv._windows(x, g)

    def gather():
        for n0, n1, r0, r1 in blocks:
            conv._patches(x, g, n0, n1, r0, r1, cols[: (n1 - n0) * (r1 - r0) * g.ow], windows)

    def gemms():  # every block's product on one thread (the patches of the last block gathered)
        for n0, n1, r0, r1 in blocks:
            m = (n1 - n0) * (r1 - r0) * g.ow
            np.dot(cols[:m], k2, out=out[n0:n1, r0:r1].reshape(m, g.oc))

    a, b = (rng.standard_normal((square, square)).astype(np.float32) for _ in range(2))
    ta, tb, tx, tk = tf.constant(a), tf.constant(b), tf.constant(x), tf.constant(k)
    product = tf.function(lambda p, q: tf.matmul(p, q))  # large: split over both cores
    convolve = tf.function(lambda p, q: tf.nn.conv2d(p, q, 1, "VALID"))
    np.testing.assert_allclose(convolve(tx, tk).numpy()[0, 0, 0], (x[0, :3, :3].reshape(-1) @ k2), rtol=1e-3)
    product(ta, tb)
    ms = _median_ms(
        {
            # tfunc keeps BLAS on one thread (its helper thread takes the second core)
            "gemm_square_1_thread": lambda: np.dot(a, b),
            "gemm_square_2_threads": lambda: product(ta, tb),
            "gather_1_thread": gather,
            "gemms_1_thread": gemms,
            "tfunc_forward": lambda: convolve(tx, tk),
        },
        repeats,
    )
    flops, square_flops = core.conv_flops(x.shape, k.shape), 2.0 * square**3
    rate = {key: flops / ms[key] / 1e6 for key in ("gemms_1_thread", "tfunc_forward")}
    rate.update({key: square_flops / ms[key] / 1e6 for key in ("gemm_square_1_thread", "gemm_square_2_threads")})
    ms["GFLOP_per_s"] = rate
    ms["floor_two_cores"] = (ms["gather_1_thread"] + ms["gemms_1_thread"]) / 2
    ms["gemm_floor_two_cores"] = ms["gemms_1_thread"] / 2
    ms["share_of_square_gemm"] = rate["tfunc_forward"] / rate["gemm_square_2_threads"]
    return ms


def w4_backward(shape=core.Sizes.conv, filters: int = core.Sizes.conv_filters, repeats: int = 12) -> dict:
    import tfunc as tf

    rng = np.random.default_rng(0)
    x = tf.constant(rng.standard_normal(shape).astype(np.float32))
    k = tf.constant((rng.standard_normal((3, 3, shape[-1], filters)) * 0.05).astype(np.float32))
    b = tf.constant(rng.uniform(-0.1, 0.1, filters).astype(np.float32))

    @tf.function
    def forward(x, k, b):
        return tf.nn.bias_add(tf.nn.conv2d(x, k, 1, "VALID"), b)

    @tf.function
    def forward_and_gradients(x, k, b):
        with tf.GradientTape() as tape:
            tape.watch([x, k])
            loss = tf.reduce_sum(tf.nn.bias_add(tf.nn.conv2d(x, k, 1, "VALID"), b))
        return [loss] + tape.gradient(loss, [x, k])

    forward(x, k, b)
    forward_and_gradients(x, k, b)
    ms = _median_ms(
        {"forward": lambda: forward(x, k, b), "with_gradients": lambda: forward_and_gradients(x, k, b)}, repeats
    )
    ms["backward_over_forward"] = (ms["with_gradients"] - ms["forward"]) / ms["forward"]
    # the two gradient products as GEMMs, over the forward's: the filter gradient's equals the
    # forward's; the input gradient is a convolution of dy padded by the kernel's reach, with an
    # output the size of the input
    n, h, w, c = shape
    oh, ow = h - 2, w - 2
    ms["product_flops_ratio"] = (oh * ow + h * w) / (oh * ow)
    return ms


def pooling(shape=(64, 112, 112, 64), repeats: int = 7) -> dict:
    import tfunc as tf
    from tfunc.ops import pooling as portable

    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    tx = tf.constant(x)
    max_pool = tf.function(lambda t: tf.nn.max_pool2d(t, 2, 2, "VALID"))
    avg_pool = tf.function(lambda t: tf.nn.avg_pool2d(t, 2, 2, "VALID"))
    np.testing.assert_array_equal(max_pool(tx).numpy(), portable._max_pool_impl(np, x, (2, 2), (2, 2), "VALID"))
    avg_pool(tx)

    @tf.function
    def max_pool_gradient(t):
        with tf.GradientTape() as tape:
            tape.watch(t)
            y = tf.nn.max_pool2d(t, 2, 2, "VALID")
        return tape.gradient(y, t)

    max_pool_gradient(tx)
    ms = _median_ms(
        {
            "copy": x.copy,
            "max_pool": lambda: max_pool(tx),
            "avg_pool": lambda: avg_pool(tx),
            "portable_max_pool": lambda: portable._max_pool_impl(np, x, (2, 2), (2, 2), "VALID"),
            "max_pool_and_gradient": lambda: max_pool_gradient(tx),
        },
        repeats,
    )
    ms["megabytes"] = x.nbytes / 1e6
    ms["max_over_copy"] = ms["max_pool"] / ms["copy"]
    ms["avg_over_copy"] = ms["avg_pool"] / ms["copy"]
    return ms


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="python -m bench.floors", description=__doc__.split("\n\n")[0])
    p.add_argument("--only", choices=["w5", "w4fwd", "w4", "pool"], help="one of the measurements")
    args = p.parse_args(argv)
    if args.only in (None, "w5"):
        r = w5_floor()
        print(
            "W5 (ms, medians): bare NumPy {bare_numpy:.2f}; tfunc kernel 1 thread {tfunc_1_thread:.2f}, "
            "2 threads {tfunc_2_threads:.2f}; independent sin/exp/tanh loops 1 thread {loops_1_thread:.2f}, "
            "2 threads {loops_2_threads:.2f} (speed-up {loop_speedup:.2f}x)".format(**r)
        )
        print(
            "W5 ratio to bare NumPy: tfunc {tfunc_ratio:.3f}x; floor at the loops' speed-up {floor_ratio:.3f}x".format(
                **r
            )
        )
    if args.only in (None, "w4fwd"):
        r = w4_forward()
        rate = r["GFLOP_per_s"]
        print(
            "GEMM rate (2048x2048 float32, GFLOP/s): one thread {:.1f}, tfunc on two {:.1f}".format(
                rate["gemm_square_1_thread"], rate["gemm_square_2_threads"]
            )
        )
        print(
            "W4 forward (ms, medians): one thread: gather {gather_1_thread:.1f}, GEMMs {gemms_1_thread:.1f} "
            "({gemm:.1f} GFLOP/s); tfunc on two {tfunc_forward:.1f} ({conv:.1f} GFLOP/s, {share:.0%} of the square "
            "GEMM's rate); two-core floor {floor_two_cores:.1f}, GEMMs alone {gemm_floor_two_cores:.1f}".format(
                gemm=rate["gemms_1_thread"], conv=rate["tfunc_forward"], share=r["share_of_square_gemm"], **r
            )
        )
    if args.only in (None, "w4"):
        r = w4_backward()
        print(
            "W4 (ms, medians): forward {forward:.1f}, forward and both gradients {with_gradients:.1f}; "
            "backward / forward {backward_over_forward:.2f}x (the gradients' two products: "
            "{product_flops_ratio:.3f}x the forward's FLOPs)".format(**r)
        )
    if args.only in (None, "pool"):
        r = pooling()
        print(
            "Pooling 2x2 of {megabytes:.0f} MB float32 (ms, medians): copy {copy:.1f}; max {max_pool:.1f} "
            "({max_over_copy:.2f}x the copy), average {avg_pool:.1f} ({avg_over_copy:.2f}x); "
            "portable tap-by-tap max {portable_max_pool:.1f}; max and its gradient {max_pool_and_gradient:.1f}".format(
                **r
            )
        )


if __name__ == "__main__":
    main()
