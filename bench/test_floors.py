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
