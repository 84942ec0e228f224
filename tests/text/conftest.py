"""What the text tests share: the slices of real corpora in tests/data, and the settings
and strategies of the tests of the packed vocabulary (a file's terms, looked up)."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

DATA = Path(__file__).resolve().parents[1] / "data"


def load_slice(name: str) -> tuple[list[str], np.ndarray]:
    """Documents and labels of a corpus slice in tests/data (CSV: text, label; lines
    starting with '#' say where it comes from)."""
    with open(DATA / name, encoding="utf-8", newline="") as f:
        rows = list(csv.reader(line for line in f if not line.startswith("#")))
    return [r[0] for r in rows[1:]], np.array([r[1] for r in rows[1:]])


#: hypothesis' settings of the packed-vocabulary tests (their fixtures hold per test)
PACKED_SETTINGS = settings(
    deadline=None,
    database=None,
    max_examples=150,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

#: any str a term may be, lone surrogates included (a str may hold them; files keep them)
ANY_TERM = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=6)
