"""Runs every framework's worker, one process at a time, and gathers a result document.

The runner imports NumPy only: it writes the shared inputs, starts ``python -m <pkg>.worker``
with this same interpreter for each framework, follows its events, and checks the outputs each
worker saved against float64 references.
"""

from __future__ import annotations

import datetime as _dt
import importlib.metadata
import importlib.util
import json
import os
import platform
import signal
import site
import subprocess
import sys
import tempfile
import threading
from dataclasses import asdict
from pathlib import Path

import numpy as np

from . import core
from .core import FRAMEWORK_LABELS, PEERS
from .fmt import fmt_time
from .progress import Progress
from .timing import FULL_BUDGET, QUICK_BUDGET
from .worker import EVENT_PREFIX

WORKER_TIMEOUT_S = {"quick": 900, "full": 3600}
SCHEMA = "tfunc-bench/1"


# --- environment ------------------------------------------------------------------------------------


def is_installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def resolve_peers(text):
    """``(to_run, skipped)`` for ``--peers``: ``None`` means every installed peer; ``none`` none."""
    if text is None:
        return [p for p in PEERS if is_installed(p)], {}
    text = text.strip().lower()
    if text in ("none", ""):
        return [], {}
    names = list(PEERS) if text == "all" else [t.strip() for t in text.split(",") if t.strip()]
    unknown = [n for n in names if n not in PEERS]
    if unknown:
        raise ValueError(f"unknown peer(s) {', '.join(unknown)}; known: {', '.join(PEERS)}, or none")
    run = [p for p in PEERS if p in names and is_installed(p)]
    skipped = {p: "skipped (not installed)" for p in PEERS if p in names and not is_installed(p)}
    return run, skipped


def _dist_version(name: str):
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def versions() -> dict:
    out = {"python": platform.python_version()}
    for dist in (
        "numpy",
        "tfunc",
        "networkx",
        "tensorflow",
        "keras",
        "jax",
        "jaxlib",
        "torch",
        "cupy-cuda12x",
        "cupy-cuda13x",
        "matplotlib",
    ):
        v = _dist_version(dist)
        if v is not None:
            out[dist] = v
    return out


def machine_info() -> dict:
    cpu = None
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    memory = None
    try:
        with open("/proc/meminfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    memory = int(line.split()[1]) * 1024
                    break
    except OSError:
        try:
            memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (ValueError, OSError, AttributeError):
            memory = None
    return {
        "cpu": cpu or platform.processor() or platform.machine(),
        "cores": os.cpu_count(),
        "memory_bytes": memory,
        "memory_gib": round(memory / 2**30, 1) if memory else None,
        "platform": platform.platform(),
        "machine": platform.machine(),
    }


def _child_env(name: str, backend) -> dict:
    env = dict(os.environ)
    pkg_parent = str(Path(__file__).resolve().parent.parent)
    site_dirs = set(site.getsitepackages()) | {site.getusersitepackages()}
    if pkg_parent not in site_dirs:
        env["PYTHONPATH"] = os.pathsep.join(
            [pkg_parent] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
        )
    if name == "tfunc" and backend:
        env["TFUNC_BACKEND"] = backend
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # TensorFlow's C++ log noise only
    return env


def _tail(path: str, lines: int = 8) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return ""
    return "\n".join(text.strip().splitlines()[-lines:])


# --- the run --------------------------------------------------------------------------------------------


class Run:
    def __init__(self, workloads, peers=None, backend=None, quick=False, progress=None):
        self.workloads = list(workloads)
        self.peers, self.skipped = resolve_peers(peers)
        self.backend = backend
        self.quick = quick
        self.budget = QUICK_BUDGET if quick else FULL_BUDGET
        self.progress = progress or Progress()
        self.inputs = {}
        self._refs = {}
        frameworks = ["tfunc"]
        if any(w in core.BARE_NUMPY_WORKLOADS for w in self.workloads):
            frameworks.append("numpy")
        self.frameworks = frameworks + self.peers
        self.doc = {
            "schema": SCHEMA,
            "created": _dt.datetime.now().astimezone().isoformat(timespec="seconds"),
            "command": " ".join(["python", "-m", __package__] + sys.argv[1:]),
            "quick": quick,
            "backend": backend,
            "device": None,
            "machine": machine_info(),
            "versions": versions(),
            "settings": {
                "seed": core.SEED,
                "budget": asdict(self.budget),
                "unit": "µs",
                "max_rel_err": "max|out - ref| / max|ref| against a float64 NumPy reference",
            },
            "frameworks": {},
            "workloads": {},
        }
        for name, reason in self.skipped.items():
            self.doc["frameworks"][name] = {"status": "skipped", "reason": reason, "info": {}}
        for wid in self.workloads:
            w = core.WORKLOADS[wid]
            self.doc["workloads"][wid] = {
                "title": w.title,
                "description": w.description,
                "tolerance": w.tol,
                "modes": list(w.modes),
                "results": {},
            }

    # --- inputs and references ---
    def reference(self, wid):
        if wid not in self._refs:
            self._refs[wid] = core.reference(wid, self.inputs[wid])
        return self._refs[wid]

    def _write_inputs(self, folder: str) -> None:
        iterations = core.w7_iterations_float32()
        if iterations != core.W7_ITERATIONS:
            raise AssertionError(
                f"W7's input runs {iterations} loop iterations in float32, expected {core.W7_ITERATIONS}"
            )
        for wid in self.workloads:
            self.inputs[wid] = core.make_inputs(wid)
            np.savez(os.path.join(folder, f"{wid}.npz"), **self.inputs[wid])

    def _check(self, wid, path) -> dict:
        with np.load(path) as data:
            first = [data[f"first_{i}"] for i in range(sum(k.startswith("first_") for k in data.files))]
            n_last = sum(k.startswith("last_") for k in data.files)
            last = [data[f"last_{i}"] for i in range(n_last)] if n_last else None
        ref, inp = self.reference(wid), self.inputs[wid]
        err, problem = core.check(wid, first, ref, inp)
        if last is not None and problem is None:
            err_last, problem_last = core.check(wid, last, ref, inp)
            err = max(err, err_last)
            if problem_last:
                problem = "last call: " + problem_last
        ok = problem is None and core.check_ok(wid, err)
        return {
            "ok": ok,
            "max_rel_err": None if not np.isfinite(err) else err,
            "tolerance": core.WORKLOADS[wid].tol,
            "problem": problem,
            "checked": "first and last call" if last is not None else "first call",
            "headline": core.headline(wid, first),
        }

    # --- one framework ---
    def _run_framework(self, name: str, tmp: str) -> None:
        label = FRAMEWORK_LABELS[name]
        workloads = [w for w in self.workloads if name != "numpy" or w in core.BARE_NUMPY_WORKLOADS]
        out_dir = os.path.join(tmp, "outputs")
        os.makedirs(out_dir, exist_ok=True)
        spec = {
            "workloads": workloads,
            "quick": self.quick,
            "backend": self.backend,
            "inputs_dir": os.path.join(tmp, "inputs"),
            "outputs_dir": out_dir,
            "budget": asdict(self.budget),
        }
        spec_path = os.path.join(tmp, f"spec-{name}.json")
        with open(spec_path, "w", encoding="utf-8") as f:
            json.dump(spec, f)
        log_path = os.path.join(tmp, f"worker-{name}.log")
        fw_doc = self.doc["frameworks"][name] = {"status": "running", "reason": None, "info": {}}
        done = set()
        self.progress.status(f"{label} [{self.frameworks.index(name) + 1}/{len(self.frameworks)}]: starting")
        cmd = [sys.executable, "-m", f"{__package__}.worker", name, spec_path]
        timeout = WORKER_TIMEOUT_S["quick" if self.quick else "full"]
        timed_out = threading.Event()
        with open(log_path, "w", encoding="utf-8") as log:
            proc = subprocess.Popen(
                cmd,
                stdout=subprocess.PIPE,
                stderr=log,
                stdin=subprocess.DEVNULL,
                env=_child_env(name, self.backend),
                text=True,
                encoding="utf-8",
                errors="replace",
            )

            def kill():
                timed_out.set()
                proc.kill()

            timer = threading.Timer(timeout, kill)
            timer.daemon = True
            timer.start()
            try:
                for line in proc.stdout:
                    if line.startswith(EVENT_PREFIX):
                        self._event(name, json.loads(line[len(EVENT_PREFIX) :]), done, workloads)
                rc = proc.wait()
            except BaseException:
                proc.kill()
                proc.wait()
                raise
            finally:
                timer.cancel()
        if fw_doc["status"] == "running":
            fw_doc["status"] = "ok"
        missing = [w for w in workloads if w not in done]
        if missing and fw_doc["status"] != "failed":
            if timed_out.is_set():
                why = f"worker timed out after {timeout} s"
            elif rc is not None and rc < 0:
                try:
                    why = f"worker killed by {signal.Signals(-rc).name}"
                except ValueError:
                    why = f"worker killed by signal {-rc}"
            else:
                why = f"worker exited with code {rc}"
            tail = _tail(log_path, 3)
            reason = why + (f": {tail.splitlines()[-1]}" if tail else "")
            for wid in missing:
                res = self.doc["workloads"][wid]["results"].setdefault(name, {})
                for mode in core.WORKLOADS[wid].modes:
                    res.setdefault(mode, {"status": "failed", "error": reason})
                self.progress.finished(f"{label:<11} {wid:<4} failed: {reason}")
            fw_doc["status"] = "partial" if done else "failed"
            fw_doc["reason"] = reason
            fw_doc["log_tail"] = _tail(log_path, 20)

    def _event(self, name, ev, done, workloads):
        label = f"{FRAMEWORK_LABELS[name]} [{self.frameworks.index(name) + 1}/{len(self.frameworks)}]"
        kind = ev.get("ev")
        fw_doc = self.doc["frameworks"][name]
        if kind == "hello":
            fw_doc["info"] = ev.get("info", {})
            if name == "tfunc":
                self.doc["device"] = fw_doc["info"].get("device")
                self.doc["backend"] = fw_doc["info"].get("backend", self.backend)
        elif kind == "fatal":
            fw_doc["status"] = "failed"
            fw_doc["reason"] = ev.get("error")
            error = f"{FRAMEWORK_LABELS[name]} could not start: {ev.get('error')}"
            for wid in workloads:
                res = self.doc["workloads"][wid]["results"].setdefault(name, {})
                for mode in core.WORKLOADS[wid].modes:
                    res[mode] = {"status": "failed", "error": error}
                done.add(wid)
            self.progress.finished(f"{FRAMEWORK_LABELS[name]:<11} failed to start: {ev.get('error')}")
        elif kind == "workload_start":
            self.progress.status(
                f"{label}: {ev['w']} {core.WORKLOADS[ev['w']].title} ({workloads.index(ev['w']) + 1}/{len(workloads)})"
            )
        elif kind == "mode_start":
            self.progress.status(
                f"{label}: {ev['w']} {core.WORKLOADS[ev['w']].title} · {ev['mode']} "
                f"({workloads.index(ev['w']) + 1}/{len(workloads)})"
            )
        elif kind == "mode":
            wid, mode = ev["w"], ev["mode"]
            entry = {"status": ev["status"], "note": ev.get("note") or None}
            if ev["status"] == "ok":
                entry.update(ev["stats"])
                if mode not in core.WORKLOADS[wid].unchecked:  # W12's copy is a yardstick, not a result
                    try:
                        entry["check"] = self._check(wid, ev["outputs"])
                    except Exception as e:  # noqa: BLE001 - unreadable outputs are a failed check, not a crash
                        entry["check"] = {"ok": False, "max_rel_err": None, "problem": f"{type(e).__name__}: {e}"}
            elif ev["status"] == "n/a":
                entry["reason"] = ev.get("error")
            else:
                entry["error"] = ev.get("error")
            self.doc["workloads"][wid]["results"].setdefault(name, {})[mode] = entry
        elif kind == "workload_done":
            wid = ev["w"]
            done.add(wid)
            self.progress.finished(self._summary(name, wid))

    def _summary(self, name, wid) -> str:
        label = FRAMEWORK_LABELS[name]
        res = self.doc["workloads"][wid]["results"].get(name, {})
        parts = []
        for mode in core.WORKLOADS[wid].modes:
            m = res.get(mode)
            if m is None:
                continue
            if m["status"] == "ok":
                c = m.get("check", {})
                mark = "✓" if c.get("ok") else "✗"
                parts.append(f"{mode} {fmt_time(m['median_us'])} {mark}")
            elif m["status"] == "n/a":
                continue
            else:
                parts.append(f"{mode} failed ({m.get('error')})")
        return f"{label:<11} {wid:<4} {core.WORKLOADS[wid].title:<22} " + "  ".join(parts)

    def execute(self) -> dict:
        with tempfile.TemporaryDirectory(prefix="tfunc-bench-") as tmp:
            os.makedirs(os.path.join(tmp, "inputs"))
            self.progress.status("generating inputs")
            self._write_inputs(os.path.join(tmp, "inputs"))
            # The float64 references are computed now, not at the first check: a check runs
            # while the worker goes on timing its next mode, and W4's reference (seconds of
            # multi-threaded BLAS) would take the cores from that measurement.
            self.progress.status("computing the float64 references")
            for wid in self.workloads:
                self.reference(wid)
            for name in self.frameworks:
                self._run_framework(name, tmp)
        self._aggregate_checks()
        self._aggregate_bandwidth()
        self._aggregate_flops()
        if self.doc["backend"] is None:
            self.doc["backend"] = self.backend or "unknown"
        return self.doc

    def _aggregate_bandwidth(self):
        """GB/s of every timed mode of a workload with a byte count (W12), and the function
        mode's fraction of the device copy's bandwidth."""
        for wid, wdoc in self.doc["workloads"].items():
            nbytes = core.WORKLOADS[wid].bytes_per_call
            if not nbytes:
                continue
            bw = wdoc["bandwidth"] = {"bytes_per_call": nbytes, "GB_per_s": {}}
            for name, modes in wdoc["results"].items():
                for mode, entry in modes.items():
                    if entry.get("status") == "ok":
                        bw["GB_per_s"].setdefault(name, {})[mode] = nbytes / entry["median_us"] / 1e3
            tfunc = bw["GB_per_s"].get("tfunc", {})
            if "function" in tfunc and "copy" in tfunc:
                bw["function_over_copy"] = tfunc["function"] / tfunc["copy"]

    def _aggregate_flops(self):
        """W4: GFLOP/s of every timed mode, and tfunc's as a share of bare NumPy's GEMM of the
        same product (the machine's BLAS rate on it)."""
        wdoc, inp = self.doc["workloads"].get("W4"), self.inputs.get("W4")
        if wdoc is None or inp is None:
            return
        flops = core.conv_flops(inp["x"].shape, inp["kernel"].shape)
        rates: dict = {}
        for name, modes in wdoc["results"].items():
            for mode, entry in modes.items():
                if entry.get("status") == "ok":
                    rates.setdefault(name, {})[mode] = flops / entry["median_us"] / 1e3
        wdoc["flops"] = {"flops_per_call": flops, "GFLOP_per_s": rates}
        gemm = rates.get("numpy", {}).get("eager")
        if gemm:
            wdoc["flops"]["share_of_gemm"] = {mode: r / gemm for mode, r in rates.get("tfunc", {}).items()}

    def _aggregate_checks(self):
        for wdoc in self.doc["workloads"].values():
            wdoc["check"] = {}
            for name, modes in wdoc["results"].items():
                checks = [m["check"] for m in modes.values() if m.get("status") == "ok" and "check" in m]
                if not checks:
                    continue
                errs = [c["max_rel_err"] for c in checks]
                wdoc["check"][name] = {
                    "ok": all(c["ok"] for c in checks),
                    "max_rel_err": None if any(e is None for e in errs) else max(errs),
                    "problems": [c["problem"] for c in checks if c.get("problem")],
                }
                headlines = {m: e["check"]["headline"] for m, e in modes.items() if e.get("check", {}).get("headline")}
                if headlines:
                    wdoc["check"][name]["headlines"] = headlines
