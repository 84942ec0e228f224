"""What the text tests share: the slices of real corpora in tests/data."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parents[1] / "data"


def load_slice(name: str) -> tuple[list[str], np.ndarray]:
    """Documents and labels of a corpus slice in tests/data (CSV: text, label; lines
    starting with '#' say where it comes from)."""
    with open(DATA / name, encoding="utf-8", newline="") as f:
        rows = list(csv.reader(line for line in f if not line.startswith("#")))
    return [r[0] for r in rows[1:]], np.array([r[1] for r in rows[1:]])
