"""Process-wide options that lower layers read: optimizer pass switches and whether
functions run eagerly.  ``tfunc.config`` is their public face."""

from __future__ import annotations

__all__ = ["optimizer", "OptimizerOptions", "run_functions_eagerly", "function_cache"]


class OptimizerOptions:
    """Graph optimizer switches; names follow TensorFlow's Grappler options where they exist."""

    DEFAULTS = {
        "constant_folding": True,
        "arithmetic_simplification": True,
        "common_subexpression_elimination": True,
        "dead_code_elimination": True,
        "elementwise_fusion": True,
        "scoped_allocator_optimization": True,  # combine independent all-reduces (tf.distribute)
        "cuda_graph_capture": True,  # GPU plans: replay static-shape segments as CUDA graphs
        "debug_verify": False,  # run graph/verify.py after every pass
        "disable_meta_optimizer": False,  # turns every pass off
    }

    def __init__(self):
        self._options = dict(self.DEFAULTS)
        self.version = 0  # bumped on change; traced plans remember what they used
        self._snapshot: tuple | None = None  # (version, switches) for snapshot()

    def set_experimental_options(self, options: dict) -> None:
        unknown = set(options) - set(self.DEFAULTS)
        if unknown:
            raise ValueError(f"Unknown optimizer options {sorted(unknown)}; known: {sorted(self.DEFAULTS)}.")
        self._options.update({k: bool(v) for k, v in options.items()})
        self.version += 1

    def get_experimental_options(self) -> dict:
        return dict(self._options)

    def snapshot(self) -> dict:
        """The current switches, as a dict shared until they change (a trace keeps it, to
        re-run the optimizer as it ran when its optimized graph is asked for later).
        Treat it as read-only."""
        snap = self._snapshot
        if snap is None or snap[0] != self.version:
            snap = self._snapshot = (self.version, dict(self._options))
        return snap[1]

    def enabled(self, name: str) -> bool:
        return switch_enabled(self._options, name)


def switch_enabled(options: dict, name: str) -> bool:
    """Whether pass ``name`` runs under the switches ``options``."""
    return not options["disable_meta_optimizer"] and options[name]


optimizer = OptimizerOptions()


class run_functions_eagerly:
    """``value``: every ``tfunc.function`` runs its Python function directly (debugging)."""

    value = False


class function_cache:
    """``size``: the most concrete functions one ``tfunc.function`` keeps; past it the least
    recently used one is dropped (and traced again if its arguments come back).  ``None``:
    no limit.  ``tfunc.config.experimental.set_function_cache_size`` sets it."""

    DEFAULT = 128
    size: int | None = DEFAULT
