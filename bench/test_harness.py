"""The measuring instrument itself: timer, worker failure handling, runner, table and JSON."""

from __future__ import annotations

import json

import numpy as np
import pytest

from . import core, report, worker
from .progress import Progress
from .runner import Run, resolve_peers
from .timing import Budget, Case, NotApplicable, feeder, measure

TINY = Budget(seconds=0.01, min_samples=3, warmup=1, target_samples=5, fresh_functions=4, fresh_seconds=1.0)


def test_measure_steady_reports_first_call_and_per_call_stats():
    calls = []

    def call():
        calls.append(1)
        return np.float32(len(calls))

    stats, first, last = measure(Case(call=call, to_numpy=lambda out: [np.array(out)]), TINY)
    assert first[0] == 1 and last[0] == len(calls)
    assert stats["samples"] >= TINY.min_samples
    assert stats["n"] <= len(calls) - 1 - TINY.warmup
    assert 0 < stats["min_us"] <= stats["median_us"]
    assert stats["first_call_us"] > 0 and stats["unit"] == "µs"


def test_measure_respects_max_calls_and_fresh_cases():
    pool = list(range(7))
    seen = []
    case = Case(
        call=feeder(lambda x: seen.append(x) or x, pool),
        to_numpy=lambda out: [np.array(out)],
        max_calls=len(pool),
        check_last=False,
    )
    stats, first, last = measure(case, TINY)
    assert seen == pool[: len(seen)] and len(seen) <= len(pool) and last is None
    made = []
    fresh = Case(prepare=lambda: (made.append(1), lambda: np.float32(3))[1], to_numpy=lambda out: [np.array(out)])
    stats, first, _ = measure(fresh, TINY)
    assert stats["n"] == len(made) and 3 <= len(made) <= TINY.fresh_functions and first[0] == 3


class _FailingFramework:
    def info(self):
        return {"version": "0", "device": "test"}

    def setup(self, wid, inp):
        def call():
            raise AttributeError("module 'tfunc' has no attribute 'GradientTape'")

        return {"eager": Case(call=call, to_numpy=list), "function": NotApplicable("not in this test")}


def test_worker_reports_a_failing_mode_and_goes_on(tmp_path, monkeypatch):
    monkeypatch.setattr(worker, "load_framework", lambda name, backend: _FailingFramework())
    for wid in ("W8", "W9"):
        np.savez(tmp_path / f"{wid}.npz", **core.make_inputs(wid))
    events = []
    spec = {
        "workloads": ["W8", "W9"],
        "inputs_dir": str(tmp_path),
        "outputs_dir": str(tmp_path),
        "budget": TINY.__dict__,
    }
    assert worker.run("tfunc", spec, lambda **ev: events.append(ev)) == 0
    modes = [e for e in events if e["ev"] == "mode"]
    assert [(e["w"], e["mode"], e["status"]) for e in modes] == [
        ("W8", "eager", "failed"),
        ("W8", "function", "n/a"),
        ("W9", "eager", "failed"),
        ("W9", "function", "n/a"),
    ]
    assert "GradientTape" in modes[0]["error"]
    assert events[-1] == {"ev": "bye"}


def test_unknown_peer_is_an_error_and_none_runs_no_peer():
    with pytest.raises(ValueError):
        resolve_peers("tensorflow,caffe")
    assert resolve_peers("none") == ([], {})


def test_run_end_to_end_table_and_json(tmp_path):
    """One real worker process (tfunc, W6 and W9) plus the bare-NumPy row, then the report."""
    with open(tmp_path / "progress.txt", "w", encoding="utf-8") as stream:
        progress = Progress(live=False, stream=stream)
        doc = Run(["W6", "W9"], peers="none", quick=True, progress=progress).execute()
        progress.close()
    for wid in ("W6", "W9"):
        for mode in ("eager", "function"):
            entry = doc["workloads"][wid]["results"]["tfunc"][mode]
            assert entry["status"] == "ok", entry
            assert entry["check"]["ok"], entry["check"]
            assert entry["median_us"] > 0 and entry["n"] >= 1
    assert doc["workloads"]["W6"]["results"]["numpy"]["eager"]["check"]["ok"]
    table = report.format_table(doc)
    assert "W6 20-op chain, 100" in table and "bare NumPy" in table and "✓" in table
    stamped, latest = report.save_json(doc, tmp_path)
    assert (
        json.loads(latest.read_text(encoding="utf-8"))["workloads"]["W9"]["results"]["tfunc"]["function"]["unit"]
        == "µs"
    )
    lines = (tmp_path / "progress.txt").read_text(encoding="utf-8").splitlines()
    assert any("tfunc" in ln and "W9" in ln for ln in lines)


def test_table_marks_failures_and_skipped_peers():
    doc = {
        "quick": True,
        "backend": "numpy",
        "device": "CPU",
        "settings": {"budget": TINY.__dict__},
        "machine": {"cpu": "test cpu", "cores": 2, "memory_gib": 1.0},
        "versions": {"python": "3"},
        "frameworks": {
            "tfunc": {"status": "ok", "info": {}},
            "torch": {"status": "skipped", "reason": "skipped (not installed)", "info": {}},
        },
        "workloads": {
            "W8": {
                "title": "MLP train step",
                "results": {
                    "tfunc": {
                        "eager": {"status": "failed", "error": "AttributeError: no GradientTape"},
                        "function": {"status": "failed", "error": "AttributeError: no GradientTape"},
                    }
                },
                "check": {},
            }
        },
    }
    table = report.format_table(doc)
    assert "failed [1]" in table
    assert "[1] tfunc W8 (eager/function): AttributeError: no GradientTape" in table
    assert "torch skipped (not installed)" in table


def test_gpu_only_workloads_run_by_default_only_on_the_gpu_backend():
    assert "W12" not in core.parse_workloads(None, "numpy")
    assert "W12" in core.parse_workloads(None, "cupy") and "W13" in core.parse_workloads(None, "numpy")
    assert core.parse_workloads("w12", "numpy") == ["W12"]  # named: runs anywhere


def test_bandwidth_is_reported_against_the_device_copy():
    run = Run(["W12"], peers="none")
    run.doc["workloads"]["W12"]["results"]["tfunc"] = {
        "eager": {"status": "ok", "median_us": 8000.0},
        "function": {"status": "ok", "median_us": 1000.0},
        "copy": {"status": "ok", "median_us": 800.0},
    }
    run._aggregate_bandwidth()
    bw = run.doc["workloads"]["W12"]["bandwidth"]
    assert bw["GB_per_s"]["tfunc"]["function"] == pytest.approx(2 * 4 * 2**26 / 1000.0 / 1e3)
    assert bw["function_over_copy"] == pytest.approx(0.8)
    assert any("80% of the device's copy bandwidth" in line for line in report._bandwidth_lines(run.doc))


def test_conv_rate_is_reported_against_the_bare_gemm():
    run = Run(["W4"], peers="none", quick=True)
    inp = run.inputs["W4"] = core.make_inputs("W4")
    flops = core.conv_flops(inp["x"].shape, inp["kernel"].shape)
    n, h, w, c = inp["x"].shape
    assert flops == 2 * n * (h - 2) * (w - 2) * 9 * c * inp["kernel"].shape[3]
    run.doc["workloads"]["W4"]["results"] = {
        "tfunc": {"eager": {"status": "ok", "median_us": 4000.0}, "function": {"status": "ok", "median_us": 2000.0}},
        "numpy": {"eager": {"status": "ok", "median_us": 1000.0}},
    }
    run._aggregate_flops()
    fl = run.doc["workloads"]["W4"]["flops"]
    assert fl["GFLOP_per_s"]["tfunc"]["function"] == pytest.approx(flops / 2000.0 / 1e3)
    assert fl["share_of_gemm"] == pytest.approx({"eager": 0.25, "function": 0.5})
    lines = report._flops_lines(run.doc)
    assert any("function 50%" in line for line in lines)


def test_the_bare_gemm_computes_the_convolution():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 7, 6, 3)).astype(np.float32)
    k = rng.standard_normal((3, 2, 3, 4)).astype(np.float32)
    patches = core.im2col_np(x, 3, 2)
    out = (patches @ k.reshape(-1, 4)).reshape(2, 5, 5, 4)
    np.testing.assert_allclose(out, core.conv2d_valid_np(x, k), rtol=1e-5, atol=1e-5)


def test_markdown_summary_lists_tfunc_modes_and_peer_functions():
    run = Run(["W1"], peers="none")
    run.doc["workloads"]["W1"]["results"] = {
        "tfunc": {"eager": {"status": "ok", "median_us": 4.0}, "function": {"status": "ok", "median_us": 2.0}},
        "jax": {"eager": {"status": "ok", "median_us": 9.0}, "function": {"status": "ok", "median_us": 8.0}},
    }
    lines = report.markdown_table(run.doc).splitlines()
    assert lines[0] == "| workload | tfunc eager | tfunc function | eager/fn | jax fn |"
    assert lines[2] == "| W1 a + b, [2,2] | 4.00 µs | 2.00 µs | 2.00x | 8.00 µs |"
