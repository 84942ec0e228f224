"""A/B rounds of one worker: the same ``python -c WORKER ARGS`` run by two interpreters in
turn (the baseline's and the change's), each run printing its timings as one JSON line
last. Interleaving spreads the machine's noise over both sides."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
from typing import Any

__all__ = ["interleaved", "median", "print_ratios"]


def interleaved(pythons: dict[str, str], argv: list[str], rounds: int) -> dict[str, list[dict]]:
    """``{key: [the JSON of each round]}`` for ``pythons`` (key -> interpreter), each round
    running ``python *argv`` once per interpreter, in order; PYTHONPATH is left out, so each
    interpreter imports its own installed nbayes."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    got: dict[str, list[dict]] = {key: [] for key in pythons}
    for _ in range(rounds):
        for key, python in pythons.items():
            out = subprocess.run(
                [python, *argv], capture_output=True, text=True, env=env, check=True
            )
            got[key].append(json.loads(out.stdout.strip().splitlines()[-1]))
    return got


def median(runs: list[dict[str, Any]], name: str) -> float:
    """The median over the rounds of the timing ``name``."""
    return statistics.median(r[name] for r in runs)


def print_ratios(
    got: dict[str, list[dict]],
    names: Any,
    *,
    scale: float = 1e6,
    unit: str = "µs",
    width: int = 22,
    digits: int = 1,
) -> None:
    """A table of each timing's median on both sides (times ``scale``, in ``unit``) and
    their ratio b/a; a timing a side did not measure (None) is left out."""
    print(f"{'':<{width}}{'a ' + unit:>10}{'b ' + unit:>10}{'b/a':>8}")
    for name in names:
        if got["a"][0][name] is None:
            continue
        a, b = median(got["a"], name) * scale, median(got["b"], name) * scale
        print(f"{name:<{width}}{a:>10.{digits}f}{b:>10.{digits}f}{b / a:>8.3f}")
