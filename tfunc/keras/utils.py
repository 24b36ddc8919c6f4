"""``tfunc.keras.utils``: :func:`set_random_seed`, :func:`to_categorical`,
:func:`timeseries_dataset_from_array` and :class:`Progbar`, Keras's progress bar."""

from __future__ import annotations

import math
import random
import re
import sys
import time

import numpy as np

from ..api import array_ops, creation_ops, math_ops, random_ops
from ..api.variables import Variable
from ..core import dtypes as D
from ..data import AUTOTUNE, Dataset
from ..eager.convert import convert_to_tensor
from ..eager.tensor import Tensor

__all__ = ["set_random_seed", "to_categorical", "timeseries_dataset_from_array", "Progbar"]


def set_random_seed(seed):
    """Seeds Python's ``random``, NumPy's global generator and tfunc's global seed at once, so
    that weight initialization, dropout and ``fit``'s shuffling repeat from run to run."""
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ValueError(f"Expected `seed` argument to be an integer. Received: seed={seed} (of type {type(seed)})")
    random.seed(seed)
    np.random.seed(seed)
    random_ops.set_seed(seed)


def to_categorical(x, num_classes=None):
    """One-hot encodes integer class labels: ``(n,)`` (or ``(n, 1)``) to ``(n, num_classes)``.

    NumPy input gives a float64 NumPy array (as Keras returns); a tensor gives a float32 tensor.
    ``num_classes`` defaults to ``max(x) + 1``."""
    if isinstance(x, (Tensor, Variable)):
        t = x.read_value() if isinstance(x, Variable) else x
        dims = t.shape.as_list()
        if len(dims) > 1 and dims[-1] == 1:
            t = array_ops.squeeze(t, axis=[-1])
        if num_classes is None:
            num_classes = int(np.max(t.numpy())) + 1
        return array_ops.one_hot(math_ops.cast(t, D.int64), int(num_classes), dtype=D.float32)
    x = np.array(x, dtype="int64")
    input_shape = x.shape
    if input_shape and input_shape[-1] == 1 and len(input_shape) > 1:
        input_shape = tuple(input_shape[:-1])
    x = x.reshape(-1)
    if not num_classes:
        num_classes = int(np.max(x)) + 1 if x.size else 0
    if x.size and (x.min() < 0 or x.max() >= num_classes):
        raise ValueError(
            f"to_categorical: class labels must be in [0, num_classes={num_classes}); got values from "
            f"{int(x.min())} to {int(x.max())}."
        )
    categorical = np.zeros((x.shape[0], num_classes))
    categorical[np.arange(x.shape[0]), x] = 1
    return categorical.reshape(input_shape + (num_classes,))


def _check_index(name, value, length):
    if value < 0:
        raise ValueError(f"`{name}` must be 0 or greater. Received: {name}={value}")
    if value >= length:
        raise ValueError(
            f"`{name}` must be lower than the length of the data. Received: {name}={value}, for data of length {length}"
        )


def timeseries_dataset_from_array(
    data,
    targets,
    sequence_length,
    sequence_stride=1,
    sampling_rate=1,
    batch_size=128,
    shuffle=False,
    seed=None,
    start_index=None,
    end_index=None,
):
    """A dataset of sliding windows over ``data`` (a NumPy array or tensor, time first), as Keras's.

    Window ``i`` starts at ``start_index + i * sequence_stride`` and holds ``sequence_length`` steps
    ``sampling_rate`` apart, all before ``end_index``; ``targets[start_index + i * sequence_stride]``
    comes with it (``(window, target)`` elements) unless ``targets`` is None. Elements are batched
    by ``batch_size`` (None: single windows). ``shuffle`` shuffles the window starts with NumPy's
    ``RandomState(seed)`` (the set of windows is Keras's; their order is not TensorFlow's shuffle).
    Windows are gathered lazily, one element at a time, so long series are not copied whole."""
    length = len(data)
    if start_index:
        _check_index("start_index", start_index, length)
    if end_index:
        if start_index and end_index <= start_index:
            raise ValueError(
                f"`end_index` must be higher than `start_index`. Received: start_index={start_index}, and "
                f"end_index={end_index} "
            )
        _check_index("end_index", end_index, length)
        if end_index <= 0:
            raise ValueError(f"`end_index` must be higher than 0. Received: end_index={end_index}")
    for name, value in (("sampling_rate", sampling_rate), ("sequence_stride", sequence_stride)):
        if value <= 0:
            raise ValueError(f"`{name}` must be higher than 0. Received: {name}={value}")
        if value >= length:
            raise ValueError(
                f"`{name}` must be lower than the length of the data. Received: {name}={value}, for data of "
                f"length {length}"
            )
    start_index = start_index or 0
    end_index = length if end_index is None else end_index
    num_seqs = end_index - start_index - (sequence_length - 1) * sampling_rate
    if targets is not None:
        num_seqs = min(num_seqs, len(targets))
    starts = np.arange(0, num_seqs, sequence_stride, dtype="int32")
    if shuffle:
        if seed is None:
            seed = np.random.randint(1e6)
        np.random.RandomState(seed).shuffle(starts)
    steps = convert_to_tensor(data[start_index:end_index])
    span = int(sequence_length) * int(sampling_rate)

    def window(start):
        return array_ops.gather(steps, creation_ops.range(start, start + span, int(sampling_rate)))

    dataset = Dataset.from_tensor_slices(starts)
    if targets is None:
        dataset = dataset.map(window)
    else:
        target_steps = convert_to_tensor(targets[start_index:end_index])
        dataset = dataset.map(lambda start: (window(start), array_ops.gather(target_steps, start)))
    dataset = dataset.prefetch(AUTOTUNE)
    if batch_size is not None:
        if shuffle:
            dataset = dataset.shuffle(buffer_size=batch_size * 8, seed=seed)  # within nearby windows, as Keras
        return dataset.batch(batch_size)
    return dataset.shuffle(buffer_size=1024, seed=seed) if shuffle else dataset


# --- the progress bar ----------------------------------------------------------------------------

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _is_dynamic_display() -> bool:
    """A terminal (or a notebook): the bar redraws in place; elsewhere it prints plain lines."""
    return (hasattr(sys.stdout, "isatty") and sys.stdout.isatty()) or "ipykernel" in sys.modules


def print_msg(message, line_break=True):
    """Writes ``message`` to stdout; escape codes (bold, colours) are dropped when stdout is not a
    terminal."""
    message = str(message)
    if not _is_dynamic_display():
        message = _ANSI.sub("", message)
    sys.stdout.write(message + "\n" if line_break else message)
    sys.stdout.flush()


def _format_time(time_per_unit, unit_name):
    if time_per_unit >= 1 or time_per_unit == 0:
        return f" {time_per_unit:.0f}s/{unit_name}"
    if time_per_unit >= 1e-3:
        return f" {time_per_unit * 1000.0:.0f}ms/{unit_name}"
    return f" {time_per_unit * 1000000.0:.0f}us/{unit_name}"


class Progbar:
    """Keras's progress bar: ``update(current, values)`` after each step.

    ``verbose=1`` draws ``step/target``, a 20-character bar, the ETA (the elapsed time once
    finished), the time per step and the running value of each metric; on a terminal (or in a
    notebook) the line is redrawn in place at most every ``interval`` seconds; elsewhere (a log
    file, a pipe) only the final line is printed, as plain text. ``verbose=2`` prints one line
    when the target is reached. Values of names in ``stateful_metrics`` are shown as given; other
    values are averaged over the steps."""

    def __init__(
        self,
        target,
        width=20,
        verbose=1,
        interval=0.05,
        stateful_metrics=None,
        stateless_metrics=None,
        unit_name="step",
    ):
        if stateful_metrics is not None and stateless_metrics is not None:
            raise ValueError("Only one of `stateful_metrics` and `stateless_metrics` may be provided.")
        self.target = target
        self.width = width
        self.verbose = verbose
        self.interval = interval
        self.unit_name = unit_name
        if stateless_metrics is not None:
            self.stateful_metrics = None
            self.stateless_metrics = set(stateless_metrics)
        else:
            self.stateful_metrics = set(stateful_metrics or ())
            self.stateless_metrics = None
        self._dynamic_display = _is_dynamic_display()
        self._seen_so_far = 0
        self._values: dict = {}
        self._values_order: list = []
        self._start = time.time()
        self._last_update = 0.0
        self._time_after_first_step = None
        self._prev_total_width = 0

    def _is_stateless(self, name) -> bool:
        if self.stateful_metrics is not None:
            return name not in self.stateful_metrics
        return name in self.stateless_metrics

    def update(self, current, values=None, finalize=None):
        """Moves the bar to step ``current``; ``values``: ``[(name, value), ...]``."""
        if finalize is None:
            finalize = False if self.target is None else current >= self.target
        for k, v in values or []:
            if k not in self._values_order:
                self._values_order.append(k)
            if self._is_stateless(k):
                if finalize:
                    self._values[k] = [v, 1]
                else:
                    base = max(current - self._seen_so_far, 1)
                    if k not in self._values:
                        self._values[k] = [v * base, base]
                    else:
                        self._values[k][0] += v * base
                        self._values[k][1] += base
            else:
                self._values[k] = [v, 1]
        self._seen_so_far = current

        now = time.time()
        time_per_unit = self._estimate_step_duration(current, now)
        if self.verbose == 1:
            if not finalize and (now - self._last_update < self.interval or not self._dynamic_display):
                return
            message = ("\b" * self._prev_total_width + "\r") if self._dynamic_display else ""
            special = 0
            if self.target is not None and self.target > 0:
                digits = int(math.log10(self.target)) + 1
                bar = f"\x1b[1m{current:{digits}d}/{self.target}\x1b[0m "
                special += 8
                prog_width = int(self.width * float(current) / self.target)
                if prog_width > 0:
                    bar += f"\x1b[32m{'━' * prog_width}\x1b[0m"
                    special += 9
                bar += f"\x1b[37m{'━' * (self.width - prog_width)}\x1b[0m"
                special += 9
            else:
                bar = f"{current:7d}/Unknown"
            message += bar
            if self.target is not None and self.target > 0 and not finalize:
                eta = time_per_unit * (self.target - current)
                if eta > 3600:
                    eta_format = f"{int(eta // 3600)}:{int((eta % 3600) // 60):02d}:{int(eta % 60):02d}"
                elif eta > 60:
                    eta_format = f"{int(eta // 60)}:{int(eta % 60):02d}"
                else:
                    eta_format = f"{int(eta)}s"
                info = f" \x1b[1m{eta_format}\x1b[0m"
            else:
                info = f" \x1b[1m{now - self._start:.0f}s\x1b[0m"
            special += 8
            info += _format_time(time_per_unit, self.unit_name)
            for k in self._values_order:
                info += f" - {k}:"
                total, count = self._values[k]
                avg = float(np.mean(total)) / max(1, count)
                info += f" {avg:.4f}" if abs(avg) > 1e-3 else f" {avg:.4e}"
            message += info
            total_width = len(bar) + len(info) - special
            if self._prev_total_width > total_width:
                message += " " * (self._prev_total_width - total_width)
            if finalize:
                message += "\n"
            print_msg(message, line_break=False)
            self._prev_total_width = total_width
        elif self.verbose == 2:
            if finalize and self.target is not None and self.target > 0:
                digits = int(math.log10(self.target)) + 1
                info = f"{current:{digits}d}/{self.target} - {now - self._start:.0f}s"
                info += f" -{_format_time(time_per_unit, self.unit_name)}"
                for k in self._values_order:
                    info += f" - {k}:"
                    total, count = self._values[k]
                    avg = float(np.mean(total)) / max(1, count)
                    info += f" {avg:.4f}" if avg > 1e-3 else f" {avg:.4e}"
                print_msg(info + "\n", line_break=False)
        self._last_update = now

    def add(self, n, values=None):
        self.update(self._seen_so_far + n, values)

    def _estimate_step_duration(self, current, now):
        """Seconds per step, leaving out the first step (tracing, warm-up) once there are more."""
        if not current:
            return 0
        if self._time_after_first_step is not None and current > 1:
            time_per_unit = (now - self._time_after_first_step) / (current - 1)
        else:
            time_per_unit = (now - self._start) / current
        if current == 1:
            self._time_after_first_step = now
        return time_per_unit
