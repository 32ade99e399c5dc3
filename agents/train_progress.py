"""How far a training run is toward whichever limit will stop it, its progress bar, and
intervals counted in steps or in time.

A run stops at ``--total-steps`` or at ``--time-limit``, whichever comes first.  A bar
counted in steps alone says "0:10:00 < 14:46:52" on a ten-minute run: it ignores the
limit that will actually end it.  ``RunClock`` projects both limits from the steps taken
so far (steps a second since the run started) and measures progress and time left by the
nearer one; ``RunBar`` draws that with tqdm, naming the limit.  ``Every`` is an interval
(``--eval-every``) in learner steps or in seconds of the run: a short run is never long
enough for a step interval chosen for a long one.
"""
from __future__ import annotations

import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Progress:
    fraction: float         # 0..1 of the way to the limit that will stop the run
    eta: float              # seconds left (inf while no rate is known)
    by: str                 # "steps" or "time": the limit that will stop the run
    steps: int              # steps so far (the model's count, a resumed run's included)
    rate: float             # steps a second in this session


class RunClock:
    """The run's two limits: ``total_steps`` (counted from the model's step count, which a
    resumed run starts at ``start_steps``) and ``time_limit`` seconds (None: none)."""

    def __init__(self, total_steps: int, start_steps: int = 0,
                 time_limit: float | None = None):
        self.total_steps, self.start_steps = int(total_steps), int(start_steps)
        self.time_limit = time_limit

    def at(self, steps: int, elapsed: float) -> Progress:
        """Where the run stands after ``elapsed`` seconds with the model at ``steps``."""
        done = max(0, steps - self.start_steps)
        todo = max(0, self.total_steps - self.start_steps)
        rate = done / elapsed if elapsed > 0 else 0.0
        by_steps = (max(0, self.total_steps - steps) / rate if rate > 0
                    else (0.0 if done >= todo else float("inf")))
        if self.time_limit is not None:
            by_time = max(0.0, self.time_limit - elapsed)
            if by_time <= by_steps:
                return Progress(min(1.0, elapsed / self.time_limit), by_time, "time", steps,
                                rate)
        fraction = min(1.0, done / todo) if todo else 1.0
        return Progress(fraction, by_steps, "steps", steps, rate)


_UNITS = {"s": 1, "m": 60, "h": 3600}


def parse_every(text: str) -> tuple[str, float]:
    """An interval given as learner steps (``500000``) or as time (``90s``, ``5m``,
    ``1.5h``): ``("steps", n)`` or ``("seconds", s)``; ValueError otherwise."""
    t = str(text).strip().lower()
    try:
        if t[-1:] in _UNITS:
            value = float(t[:-1]) * _UNITS[t[-1]]
            if 0 < value < float("inf"):
                return "seconds", value
        elif int(t) >= 1:
            return "steps", int(t)
    except ValueError:
        pass
    raise ValueError(f"{text!r} is neither learner steps (a whole number, e.g. 500000) nor a "
                     f"time (a positive number with s, m or h, e.g. 90s, 5m, 1.5h)")


class Every:
    """An interval from ``parse_every``, started at ``steps`` and time ``now``: ``due``
    says whether it has come round, ``done`` starts the next one (a step interval keeps
    its phase; a time interval counts from when the work it paces ended)."""

    def __init__(self, interval: tuple[str, float], steps: int, now: float):
        self.kind, self.size = interval
        self.next = steps + self.size if self.kind == "steps" else now + self.size

    def due(self, steps: int, now: float) -> bool:
        return (steps if self.kind == "steps" else now) >= self.next

    def done(self, steps: int, now: float) -> None:
        if self.kind == "steps":
            while self.next <= steps:
                self.next += self.size
        else:
            self.next = now + self.size


def clock(seconds: float) -> str:
    """``H:MM:SS`` (``?`` when unknown)."""
    if seconds != seconds or seconds == float("inf"):
        return "?"
    s = int(round(seconds))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


def describe(clk: RunClock, p: Progress, elapsed: float) -> str:
    """The bar's text: elapsed < left, the limit that will stop the run, steps and rate."""
    if p.by == "time" and p.eta <= 0:
        end = f"--time-limit {clock(clk.time_limit)} reached: finishing the rollout"
    elif p.by == "time":
        end = f"stops at --time-limit {clock(clk.time_limit)}"
    else:
        end = f"stops at --total-steps {clk.total_steps:,}"
    return (f"{clock(elapsed)} < {clock(p.eta)} ({end}), {p.steps:,} steps, "
            f"{p.rate:,.0f} steps/s")


class RunBar:
    """A tqdm bar over ``RunClock``: its length is the limit that will stop the run."""

    UNITS = 10_000

    def __init__(self, clk: RunClock, enabled: bool = True, file=None, start=None,
                 desc: str = "training", mininterval: float = 0.5):
        from tqdm import tqdm

        class Bar(tqdm):
            """tqdm with the run's own text in its line (``{run}``)."""
            run = ""

            @property
            def format_dict(self):
                return {**super().format_dict, "run": self.run}

        self.clk = clk
        self.start = time.perf_counter() if start is None else start
        self.mininterval = mininterval
        self._last = -mininterval
        self.bar = Bar(total=self.UNITS, desc=desc, file=file, disable=not enabled,
                       bar_format="{desc}: {percentage:3.0f}%|{bar}| {run}",
                       dynamic_ncols=True)

    def update(self, steps: int, now: float | None = None, force: bool = False) -> Progress:
        now = time.perf_counter() if now is None else now
        elapsed = now - self.start
        p = self.clk.at(steps, elapsed)
        if force or elapsed - self._last >= self.mininterval:
            self._last = elapsed
            self.bar.n = int(p.fraction * self.UNITS)
            self.bar.run = describe(self.clk, p, elapsed)
            self.bar.refresh()
        return p

    def close(self) -> None:
        self.bar.close()


__all__ = ["Every", "Progress", "RunBar", "RunClock", "clock", "describe", "parse_every"]
