"""The machine a benchmark ran on (the figures are only comparable on the same one)."""

from __future__ import annotations

import os
import platform
from pathlib import Path


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo, or "?"."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "?"


def machine(*extra: str) -> str:
    """One line: cores, CPU, Python, ``extra`` (e.g. library versions), load average."""
    parts = [f"nproc {os.cpu_count()}", f"CPU {cpu_model()}",
             f"Python {platform.python_version()}", *extra,
             f"load average {os.getloadavg()[0]:.2f}"]  # fmt: skip
    return ", ".join(parts)
