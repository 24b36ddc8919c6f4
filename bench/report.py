"""The final table, and the JSON files, from a run's result document."""

from __future__ import annotations

import json
import math
import os
import time
from pathlib import Path

from . import core
from .core import FRAMEWORK_LABELS, FRAMEWORK_ORDER, PEERS
from .fmt import fmt_median_min, fmt_ratio, fmt_time

ROW_LABELS = {"W11": "W11 new shape every call", "W11 rr": "W11 same, reduce_retracing=True"}


def fmt_check(c) -> str:
    if not c:
        return "—"
    mark = "✓" if c["ok"] else "✗"
    if c.get("max_rel_err") is None:
        problems = c.get("problems") or ["not comparable"]
        return f"{mark} {problems[0]}"
    err = c["max_rel_err"]
    return f"{mark} {'0' if err == 0 else f'{err:.1e}'}"


class _Notes:
    """Footnotes for failed / n/a cells: one per distinct message, with where it happened."""

    def __init__(self):
        self.items = []  # [text, {framework: {workload: [modes]}}]

    def ref(self, text: str, where: tuple) -> str:
        name, wid, mode = where
        i = next((k for k, (t, _) in enumerate(self.items) if t == text), None)
        if i is None:
            self.items.append((text, {}))
            i = len(self.items) - 1
        modes = self.items[i][1].setdefault(name, {}).setdefault(wid, [])
        if mode not in modes:
            modes.append(mode)
        return f"[{i + 1}]"

    @staticmethod
    def where(places: dict) -> str:
        return "; ".join(
            f"{name} " + ", ".join(f"{wid} ({'/'.join(modes)})" for wid, modes in wids.items())
            for name, wids in places.items()
        )


def _cell(entry, notes, where, with_min=True):
    """(text, median) of one mode's entry."""
    if entry is None:
        return "—", None
    status = entry.get("status")
    if status == "ok":
        text = fmt_median_min(entry["median_us"], entry["min_us"]) if with_min else fmt_time(entry["median_us"])
        return text, entry["median_us"]
    word = "n/a" if status == "n/a" else "failed"
    return f"{word} {notes.ref(entry.get('error') or entry.get('reason') or status, where)}", None


def table_rows(doc):
    rows = []
    for label, wid, eager_mode, fn_mode in core.TABLE_ROWS:
        if wid in doc["workloads"]:
            rows.append((label, wid, eager_mode, fn_mode))
    return rows


def format_table(doc) -> str:
    notes = _Notes()
    header = [
        "workload",
        "framework",
        "eager median (min)",
        "function median (min)",
        "eager/fn",
        "fn 1st call",
        "tfunc-fn/this-fn",
        "check",
    ]
    body = []  # list of rows (lists of str) or None for a separator
    for label, wid, eager_mode, fn_mode in table_rows(doc):
        wdoc = doc["workloads"][wid]
        results = wdoc["results"]
        tfunc_fn = results.get("tfunc", {}).get(fn_mode)
        tfunc_fn_median = tfunc_fn["median_us"] if tfunc_fn and tfunc_fn.get("status") == "ok" else None
        title = ROW_LABELS.get(label, f"{wid} {wdoc['title']}")
        first = True
        for name in FRAMEWORK_ORDER:
            if name not in results:
                continue
            res = results[name]
            fw_label = FRAMEWORK_LABELS[name]
            if name == "numpy":
                eager_txt, eager_med = _cell(res.get("eager"), notes, (fw_label, wid, "eager"))
                row = [
                    title if first else "",
                    FRAMEWORK_LABELS[name],
                    eager_txt,
                    "—",
                    "—",
                    "—",
                    fmt_ratio(tfunc_fn_median, eager_med),
                    fmt_check(wdoc.get("check", {}).get(name)),
                ]
            else:
                eager_txt, eager_med = _cell(res.get(eager_mode), notes, (fw_label, wid, "eager"))
                fn_entry = res.get(fn_mode)
                fn_txt, fn_med = _cell(fn_entry, notes, (fw_label, wid, core.MODE_LABELS[fn_mode]))
                first_call = (
                    fmt_time(fn_entry.get("first_call_us")) if fn_entry and fn_entry.get("status") == "ok" else "—"
                )
                vs = "" if name == "tfunc" else fmt_ratio(tfunc_fn_median, fn_med)
                row = [
                    title if first else "",
                    FRAMEWORK_LABELS[name],
                    eager_txt,
                    fn_txt,
                    fmt_ratio(eager_med, fn_med),
                    first_call,
                    vs,
                    fmt_check(wdoc.get("check", {}).get(name)),
                ]
            body.append(row)
            first = False
        body.append(None)
    if body and body[-1] is None:
        body.pop()
    if all(row is not None for row in body[::2]) and all(row is None for row in body[1::2]):
        body = [row for row in body if row is not None]  # one row per workload: no blank lines needed

    widths = [len(h) for h in header]
    for row in body:
        if row:
            widths = [max(w, len(c)) for w, c in zip(widths, row)]
    right = {2, 3, 4, 5, 6}

    def line(cells):
        out = []
        for i, (c, w) in enumerate(zip(cells, widths)):
            out.append(c.rjust(w) if i in right else c.ljust(w))
        return "  ".join(out).rstrip()

    lines = _heading(doc)
    lines.append("")
    lines.append(line(header))
    lines.append("  ".join("-" * w for w in widths))
    for row in body:
        lines.append("" if row is None else line(row))
    bandwidth = _bandwidth_lines(doc) + _flops_lines(doc) + _headline_lines(doc)
    if bandwidth:
        lines.append("")
        lines.extend(bandwidth)
    lines.append("")
    lines.extend(_legend(doc))
    if notes.items:
        lines.append("")
        lines.append("Notes:")
        for i, (text, places) in enumerate(notes.items, start=1):
            lines.append(f"  [{i}] {notes.where(places)}: {text}")
    for name, fw in doc["frameworks"].items():
        if fw.get("status") in ("failed", "partial") and fw.get("log_tail"):
            lines.append("")
            lines.append(f"Last lines of the {FRAMEWORK_LABELS[name]} worker's log:")
            lines.extend("  " + t for t in fw["log_tail"].splitlines())
    return "\n".join(lines)


def markdown_table(doc) -> str:
    """A compact Markdown summary of a result document (the README's table): per workload,
    tfunc eager and function medians and their ratio, then each peer's function median."""
    peers = [p for p in PEERS if any(p in w["results"] for w in doc["workloads"].values())]
    head = ["workload", "tfunc eager", "tfunc function", "eager/fn"] + [f"{p} fn" for p in peers]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for label, wid, eager_mode, fn_mode in table_rows(doc):
        wdoc = doc["workloads"][wid]
        res = wdoc["results"]

        def median(name, mode, res=res):
            e = res.get(name, {}).get(mode)
            return e["median_us"] if e and e.get("status") == "ok" else None

        eager, fn = median("tfunc", eager_mode), median("tfunc", fn_mode)
        row = [ROW_LABELS.get(label, f"{wid} {wdoc['title']}"), fmt_time(eager), fmt_time(fn), fmt_ratio(eager, fn)]
        row += [fmt_time(median(p, fn_mode)) for p in peers]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def _headline_lines(doc) -> list:
    """Results printed beside the times (W14: the test accuracy each framework's epoch reached)."""
    lines = []
    for wid, wdoc in doc["workloads"].items():
        parts = []
        for name, c in wdoc.get("check", {}).items():
            for mode, text in c.get("headlines", {}).items():
                parts.append(f"{FRAMEWORK_LABELS[name]} {core.MODE_LABELS.get(mode, mode)}: {text}")
        if parts:
            lines.append(f"{wid} {wdoc['title']}: " + "; ".join(parts))
    return lines


def _flops_lines(doc) -> list:
    """W4's arithmetic rate per framework and mode, and tfunc's share of the bare GEMM's."""
    lines = []
    for wid, wdoc in doc["workloads"].items():
        fl = wdoc.get("flops")
        if not fl or not fl["GFLOP_per_s"]:
            continue
        lines.append(f"{wid} arithmetic rate ({fl['flops_per_call'] / 1e9:.2f} GFLOP per call), GFLOP/s:")
        for name, modes in fl["GFLOP_per_s"].items():
            if name == "numpy":
                lines.append(f"  bare NumPy GEMM of the same product, patches laid out: {modes['eager']:.1f}")
                continue
            parts = [f"{core.MODE_LABELS.get(m, m)} {v:.1f}" for m, v in modes.items()]
            lines.append(f"  {FRAMEWORK_LABELS[name]}: " + ", ".join(parts))
        share = fl.get("share_of_gemm", {})
        if share:
            parts = [f"{core.MODE_LABELS.get(m, m)} {100 * v:.0f}%" for m, v in share.items()]
            lines.append("  tfunc's share of that GEMM's rate: " + ", ".join(parts))
    return lines


def _bandwidth_lines(doc) -> list:
    lines = []
    for wid, wdoc in doc["workloads"].items():
        bw = wdoc.get("bandwidth")
        if not bw or not bw["GB_per_s"]:
            continue
        lines.append(
            f"{wid} bandwidth (reading the input and writing the result once: "
            f"{bw['bytes_per_call'] / 1e6:.0f} MB per call), GB/s:"
        )
        for name, modes in bw["GB_per_s"].items():
            parts = [f"{core.MODE_LABELS.get(m, m)} {v:.1f}" for m, v in modes.items()]
            lines.append(f"  {FRAMEWORK_LABELS[name]}: " + ", ".join(parts))
        if "function_over_copy" in bw:
            lines.append(
                f"  tfunc function mode reaches {100 * bw['function_over_copy']:.0f}% of the device's copy bandwidth"
            )
    return lines


def _heading(doc) -> list:
    m, v = doc["machine"], doc["versions"]
    mode = "quick run" if doc.get("quick") else "full run"
    lines = [f"tfunc benchmark · backend {doc.get('backend')} ({doc.get('device') or 'device unknown'}) · {mode}"]
    mem = f", {m['memory_gib']} GiB" if m.get("memory_gib") else ""
    sw = " · ".join(f"{k} {v[k]}" for k in ("python", "numpy", "tfunc", "networkx") if k in v)
    lines.append(f"machine: {m.get('cpu')}, {m.get('cores')} cores{mem} · {sw}")
    peers = []
    for name in PEERS:
        fw = doc["frameworks"].get(name)
        if fw is None:
            continue
        if fw["status"] == "skipped":
            peers.append(f"{name} {fw['reason']}")
        elif fw["status"] == "failed":
            peers.append(f"{name} failed ({fw.get('reason')})")
        else:
            info = fw.get("info", {})
            peers.append(f"{name} {info.get('version', '?')} [{info.get('device', '?')}]")
    lines.append("peers: " + ("; ".join(peers) if peers else "none"))
    return lines


def _legend(doc) -> list:
    budget = doc["settings"]["budget"]
    return [
        f"Times per call: median (min) over batches filling ~{budget['seconds']} s per mode, after the first call",
        "  and a warm-up. W10's function column: first calls of new functions (trace + optimize + compile +",
        f"  run), up to {budget['fresh_functions']} functions. fn 1st call: the function mode's first call.",
        "eager/fn: eager median / function median (above 1: function mode is faster).",
        "tfunc-fn/this-fn: tfunc's function median / this framework's function median (bare NumPy: its",
        "  time); below 1: tfunc is faster.",
        "check: ✓/✗ and the largest relative error max|out - ref| / max|ref| over the framework's modes,",
        "  against a float64 NumPy reference (W8: the loss and the weight updates of the first step).",
        "Modes: tfunc, tensorflow: eager / tf.function; jax: op-by-op / jax.jit (W7: lax.while_loop);",
        "  torch: eager / torch.compile. W11 rr: reduce_retracing=True (torch: torch.compile(dynamic=True);",
        "  JAX has no counterpart).",
    ]


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _clean(obj):
    """JSON without NaN/Infinity."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    return obj


def save_json(doc, out_dir) -> tuple:
    """Writes ``<timestamp>-<backend>.json`` and ``latest-<backend>.json``; returns both paths."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    backend = doc.get("backend") or "unknown"
    text = json.dumps(_clean(doc), indent=1, ensure_ascii=False) + "\n"
    stamped = out_dir / f"{time.strftime('%Y%m%d-%H%M%S')}-{backend}.json"
    latest = out_dir / f"latest-{backend}.json"
    _atomic_write(stamped, text)
    _atomic_write(latest, text)
    return stamped, latest
