"""``nbayes train FILES --model mixed|categorical|gaussian --workers N``: several table
files on Dask, read as one process reads them, with its model file and its errors.

* Strings are of pandas' own type: dask made them pyarrow's (missing: NA), and a MixedNB's
  file said "string" where one process's says "str" (pandas 3).

(The files are compared byte for byte: their columns are counts and categories, which merge
exactly; ``--dask-scheduler sync`` runs the workers' code in this process.)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

from nbayes.cli import main  # noqa: E402

SYNC = ["--dask-scheduler", "sync"]


@pytest.fixture(autouse=True)
def _here(monkeypatch: Any, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)


def _one_and_dask(
    files: list[str], capsys: Any, *args: str, codes: tuple[int, int] = (0, 0)
) -> tuple[list[str], list[bytes | None]]:
    """Train in this process and on Dask: their stderr and model files (None if none)."""
    errs, out = [], []
    for name, dask in (("one.nbayes", []), ("dask.nbayes", SYNC)):
        code = main(["train", *files, "-o", name, "--label-col", "y", "-q", *args, *dask])
        errs.append(capsys.readouterr().err)
        assert code == codes[len(out)], errs[-1]
        out.append(Path(name).read_bytes() if code == 0 else None)
    return errs, out


def _codes_and_words(seed: int, n: int, codes: list[int], words: list[str]) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"c": rng.choice(codes, n), "s": rng.choice(words, n),
                         "y": rng.integers(0, 2, n)})  # fmt: skip


def test_strings_are_of_the_type_pandas_reads(capsys: Any) -> None:
    pytest.importorskip("pyarrow")
    table = _codes_and_words(0, 60, [0, 1, 2], ["a", "b c"])
    table.to_csv("t.csv", index=False)
    table.to_parquet("t.parquet")
    for name in ("t.csv", "t.parquet"):
        errs, files = _one_and_dask([name], capsys, "--model", "mixed")
        assert errs[0] == errs[1] and files[0] == files[1], name
