"""A PNG of eager vs function time per workload and framework (log scale), with matplotlib."""

from __future__ import annotations

import math
import os
from pathlib import Path

from .core import FRAMEWORK_LABELS, FRAMEWORK_ORDER
from .report import ROW_LABELS, table_rows


def matplotlib_missing():
    """``None`` when matplotlib imports, else the reason it does not."""
    try:
        import matplotlib  # noqa: F401
    except Exception as e:  # noqa: BLE001 - matplotlib missing or broken: no plot, the reason reported
        return f"{type(e).__name__}: {e}"
    return None


def save_plot(doc, path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import LogLocator, NullFormatter

    rows = table_rows(doc)
    ncols = 4
    nrows = max(1, math.ceil(len(rows) / ncols))
    summary_height = 0.5 * len(rows) + 1.5
    fig = plt.figure(figsize=(4.2 * ncols, 3.3 * nrows + summary_height))
    grid = fig.add_gridspec(nrows + 1, ncols, height_ratios=[summary_height / 3.3] + [1.0] * nrows)
    _summary_panel(fig.add_subplot(grid[0, :]), doc, rows)
    axes = [fig.add_subplot(grid[1 + i // ncols, i % ncols]) for i in range(nrows * ncols)]
    colors = {"eager": "#8fb8de", "function": "#1f5f99", "other": "#b0b0b0"}
    for ax in axes[len(rows) :]:
        ax.axis("off")
    for ax, (label, wid, eager_mode, fn_mode) in zip(axes, rows):
        wdoc = doc["workloads"][wid]
        names = [n for n in FRAMEWORK_ORDER if n in wdoc["results"]]
        xs = range(len(names))
        width = 0.38
        values = []
        for i, name in enumerate(names):
            res = wdoc["results"][name]
            modes = [("eager", "eager")] if name == "numpy" else [(eager_mode, "eager"), (fn_mode, "function")]
            for j, (mode, kind) in enumerate(modes):
                entry = res.get(mode)
                offset = 0 if name == "numpy" else (-width / 2 if j == 0 else width / 2)
                if entry and entry.get("status") == "ok":
                    v = entry["median_us"]
                    values.append(v)
                    ax.bar(
                        i + offset,
                        v,
                        width,
                        color=colors["other"] if name == "numpy" else colors[kind],
                        label=kind if (i == 0 or name == "numpy") else None,
                    )
                    headline = wdoc.get("check", {}).get(name, {}).get("headlines", {}).get(mode)
                    if headline:  # W14: the test accuracy the epoch reached, on its bar
                        ax.text(
                            i + offset,
                            v * 1.15,
                            headline.replace("test accuracy ", ""),
                            ha="center",
                            va="bottom",
                            fontsize=6,
                        )
                    low = entry.get("min_us")
                    if low is not None and low < v:  # whisker down to the fastest batch: the spread
                        ax.errorbar(
                            i + offset, v, yerr=[[v - low], [0]], fmt="none", ecolor="#333333", lw=0.8, capsize=2
                        )
                else:
                    word = "n/a" if entry and entry.get("status") == "n/a" else "failed"
                    ax.text(
                        i + offset,
                        0.02,
                        word,
                        rotation=90,
                        ha="center",
                        va="bottom",
                        fontsize=7,
                        transform=ax.get_xaxis_transform(),
                    )
        ax.set_yscale("log")
        if values:
            low, high = min(values) / 3, max(values) * 3
            if high / low < 100:  # at least two decades, so that major ticks show
                mid = (low * high) ** 0.5
                low, high = mid / 10, mid * 10
            ax.set_ylim(low, high)
        ax.yaxis.set_major_locator(LogLocator(base=10))
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_xticks(list(xs))
        ax.set_xticklabels([FRAMEWORK_LABELS[n].replace("bare NumPy", "NumPy") for n in names], fontsize=8)
        title = ROW_LABELS.get(label, f"{wid} {wdoc['title']}")
        if any(c.get("headlines") for c in wdoc.get("check", {}).values()):
            title += " (on the bars: test accuracy)"
        ax.set_title(title, fontsize=9)
        ax.set_ylabel("µs per call (median)", fontsize=8)
        ax.tick_params(axis="y", labelsize=7)
        ax.grid(axis="y", which="major", alpha=0.3)
    handles = [plt.Rectangle((0, 0), 1, 1, color=colors[k]) for k in ("eager", "function", "other")]
    fig.legend(
        handles,
        ["eager (op-by-op)", "function (tf.function / jax.jit / torch.compile)", "bare NumPy"],
        loc="upper center",
        bbox_to_anchor=(0.5, 0.978),
        ncol=3,
        fontsize=9,
        frameon=False,
    )
    mode = "quick" if doc.get("quick") else "full"
    fig.suptitle(
        f"tfunc benchmark · backend {doc.get('backend')} · {mode} run · {doc['machine'].get('cpu')} · "
        "median time per call, log scale (whisker: fastest batch)",
        y=0.995,
        fontsize=11,
    )
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    fig.savefig(tmp, dpi=100, format="png")
    plt.close(fig)
    os.replace(tmp, path)
    return path


PEER_COLORS = {"numpy": "#b0b0b0", "tensorflow": "#ff8f00", "jax": "#5e35b1", "torch": "#ee4c2c"}


def _summary_panel(ax, doc, rows) -> None:
    """One row per table row: every other framework's function-mode median relative to
    tfunc's (bare NumPy: its plain loop), on a log axis with tfunc's line at 1; right of the
    line, tfunc is faster by the printed factor."""
    from matplotlib.ticker import FuncFormatter

    others = [n for n in FRAMEWORK_ORDER if n != "tfunc"]
    ratios: dict[str, list] = {n: [] for n in others}
    labels = []
    for label, wid, _eager_mode, fn_mode in rows:
        results = doc["workloads"][wid]["results"]
        labels.append(ROW_LABELS.get(label, f"{wid} {doc['workloads'][wid]['title']}"))
        base = _median(results.get("tfunc", {}).get(fn_mode))
        for name in others:
            mode = "eager" if name == "numpy" else fn_mode
            other = _median(results.get(name, {}).get(mode))
            ratios[name].append(other / base if base and other else None)
    shown = [n for n in others if any(r is not None for r in ratios[n])]
    height = 0.8 / max(1, len(shown))
    for k, name in enumerate(shown):
        for i, r in enumerate(ratios[name]):
            if r is None:
                continue
            y = i - 0.4 + height * (k + 0.5)
            first = i == _first(ratios[name])
            ax.barh(
                y, r, height, color=PEER_COLORS.get(name, "#888888"), label=FRAMEWORK_LABELS[name] if first else None
            )
            ax.text(
                r,
                y,
                f" {_factor(r)}x " if r >= 1 else f" {_factor(r)}x",
                va="center",
                fontsize=6.5,
                ha="left" if r >= 1 else "right",
            )
    ax.axvline(1.0, color="#1f5f99", lw=2.5, label="tfunc function (= 1)")
    ax.set_xscale("log")
    drawn = [r for n in shown for r in ratios[n] if r is not None] or [1.0]
    ax.set_xlim(min(min(drawn), 1.0) / 5, max(max(drawn), 1.0) * 5)  # room for the printed factors
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}x"))
    ax.set_yticks(range(len(labels)))
    ax.set_yticklabels(labels, fontsize=8)
    ax.set_ylim(len(labels) - 0.5, -0.5)  # the first workload on top
    ax.set_xlabel(
        "framework's function-mode median / tfunc's function-mode median (right of the line: tfunc is faster)",
        fontsize=8,
    )
    ax.set_title("Summary: every framework against tfunc, one row per workload", fontsize=10, fontweight="bold", pad=36)
    ax.grid(axis="x", which="major", alpha=0.3)
    ax.legend(fontsize=8, ncol=len(shown) + 1, loc="lower center", bbox_to_anchor=(0.5, 1.02), frameon=False)


def _factor(r: float) -> str:
    return f"{r:.0f}" if r >= 10 else f"{r:.2g}"


def _median(entry):
    return entry["median_us"] if entry and entry.get("status") == "ok" else None


def _first(values) -> int:
    return next(i for i, v in enumerate(values) if v is not None)
