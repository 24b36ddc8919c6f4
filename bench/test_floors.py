"""``bench.floors`` runs end to end on small sizes (its figures are measurements: only their
presence and consistency are checked, never their values)."""

import math

from . import floors


def test_w5_floor_measures_every_part_and_derives_the_ratios():
    r = floors.w5_floor(n=3 * floors.BLOCK + 123, repeats=2)  # also checks tfunc against NumPy
    for key in ("bare_numpy", "tfunc_1_thread", "tfunc_2_threads", "loops_1_thread", "loops_2_threads"):
        assert r[key] > 0 and math.isfinite(r[key])
    assert math.isclose(r["loop_speedup"], r["loops_1_thread"] / r["loops_2_threads"])
    assert math.isclose(r["floor_ratio"], r["tfunc_1_thread"] / r["loop_speedup"] / r["bare_numpy"])


def test_w4_backward_times_both_functions():
    r = floors.w4_backward(shape=(1, 9, 9, 3), filters=2, repeats=2)
    assert r["forward"] > 0 and r["with_gradients"] > 0
    assert math.isclose(r["backward_over_forward"], (r["with_gradients"] - r["forward"]) / r["forward"])
    assert math.isclose(r["product_flops_ratio"], (7 * 7 + 9 * 9) / (7 * 7))


def test_w4_forward_times_the_kernels_parts_and_the_square_gemm():
    r = floors.w4_forward(shape=(1, 12, 11, 5), filters=4, square=64, repeats=2)  # checks the conv too
    for key in ("gemm_square_1_thread", "gemm_square_2_threads", "gather_1_thread", "gemms_1_thread", "tfunc_forward"):
        assert r[key] > 0 and math.isfinite(r[key])
    assert math.isclose(r["floor_two_cores"], (r["gather_1_thread"] + r["gemms_1_thread"]) / 2)
    rate = r["GFLOP_per_s"]
    assert math.isclose(r["share_of_square_gemm"], rate["tfunc_forward"] / rate["gemm_square_2_threads"])
    assert math.isclose(rate["gemm_square_1_thread"] * r["gemm_square_1_thread"], 2 * 64**3 / 1e6)


def test_pooling_times_both_pools_against_a_copy():
    r = floors.pooling(shape=(2, 8, 8, 3), repeats=2)
    for key in ("copy", "max_pool", "avg_pool", "portable_max_pool", "max_pool_and_gradient"):
        assert r[key] > 0 and math.isfinite(r[key])
    assert math.isclose(r["max_over_copy"], r["max_pool"] / r["copy"])
