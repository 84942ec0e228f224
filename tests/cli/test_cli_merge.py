"""``nbayes merge``: models of parts of the data add up to the model of all of it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from nbayes.io.persist import load

from .conftest import assert_error, run, write_csv

ROWS = [
    ["win a free prize now", "spam"],
    ["free cash call now", "spam"],
    ["claim your free ringtone", "spam"],
    ["lunch at noon today", "ham"],
    ["see you at home tonight", "ham"],
    ["milk on the way home", "ham"],
    ["meeting moved to friday", "ham"],
    ["urgent you won cash", "spam"],
]


@pytest.fixture
def parts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Path]:
    """Models of the first and last rows, and of all of them."""
    out = {}
    for name, rows in (("a", ROWS[:4]), ("b", ROWS[4:]), ("all", ROWS)):
        data = write_csv(tmp_path / f"{name}.csv", ["text", "label"], rows)
        out[name] = tmp_path / f"{name}.nbayes"
        assert run(capsys, "train", data, "-o", out[name], "-q")[0] == 0
    return out


def test_merged_parts_are_the_model_of_all_the_data(
    capsys: pytest.CaptureFixture[str], parts: dict[str, Path], tmp_path: Path
) -> None:
    merged = tmp_path / "merged.nbayes"
    code, _, err = run(capsys, "merge", parts["a"], parts["b"], "-o", merged)
    assert code == 0 and f"Merged 2 models into {merged}: ham 4, spam 4." in err
    assert merged.read_bytes() == parts["all"].read_bytes()  # the same counts, the same file
    # merged into one of them: its lock held from reading to writing
    code, _, _ = run(capsys, "merge", parts["a"], parts["b"], "-o", parts["a"])
    assert code == 0 and parts["a"].read_bytes() == parts["all"].read_bytes()


def test_table_models_and_spam_filters_merge_too(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = np.where(X[:, 0] > 0, "up", "down")
    paths = []
    for name, rows in (("a", slice(0, 25)), ("b", slice(25, 40)), ("all", slice(0, 40))):
        table = [[*map(float, x), label] for x, label in zip(X[rows], y[rows], strict=True)]
        data = write_csv(tmp_path / f"{name}.csv", ["x0", "x1", "x2", "label"], table)
        paths.append(tmp_path / f"g{name}.nbayes")
        code, _, err = run(capsys, "train", data, "-o", paths[-1], "--model", "gaussian", "-q")
        assert code == 0, err
    assert run(capsys, "merge", paths[0], paths[1], "-o", tmp_path / "g.nbayes")[0] == 0
    got, want = load(tmp_path / "g.nbayes"), load(paths[2])
    import pandas as pd

    frame = pd.DataFrame(X, columns=["x0", "x1", "x2"])
    np.testing.assert_allclose(got.predict_proba(frame), want.predict_proba(frame), rtol=1e-9)
    texts = {"ham": "lunch at noon with the team", "spam": "win cash now, claim the prize"}
    mail = {}
    for name, numbers in (("a", range(3)), ("b", range(3, 6)), ("all", range(6))):
        for label, words in texts.items():
            folder = tmp_path / f"mail_{name}" / label
            folder.mkdir(parents=True)
            for i in numbers:
                (folder / f"{i}.eml").write_text(f"Subject: note {i}\n\n{words} {i}\n")
        mail[name] = tmp_path / f"{name}.nbayes"
        code, _, err = run(capsys, "train", tmp_path / f"mail_{name}", "-o", mail[name],
                           "--model", "spam", "-q")  # fmt: skip
        assert code == 0, err
    both = tmp_path / "both.nbayes"
    code, _, err = run(capsys, "merge", mail["a"], mail["b"], "-o", both)
    assert code == 0 and "ham 6, spam 6" in err
    probe = [f"Subject: x\n\n{words} 9\n".encode() for words in texts.values()]
    np.testing.assert_array_equal(load(both).spamicity(probe), load(mail["all"]).spamicity(probe))


def test_what_cannot_be_merged_is_said_in_one_line(
    capsys: pytest.CaptureFixture[str], parts: dict[str, Path], tmp_path: Path
) -> None:
    a, b, out = parts["a"], parts["b"], tmp_path / "out.nbayes"
    assert_error(*run(capsys, "merge", a, "-o", out)[::2], "Give two or more MODELs")
    twice = Path(os.path.relpath(a))
    assert_error(*run(capsys, "merge", a, twice, "-o", out)[::2], "is given twice")
    assert_error(*run(capsys, "merge", a, tmp_path / "no.nbayes", "-o", out)[::2],
                 "No model file")  # fmt: skip
    data = write_csv(tmp_path / "bin.csv", ["text", "label"], ROWS)
    binary = tmp_path / "bin.nbayes"
    assert run(capsys, "train", data, "-o", binary, "--binary", "-q")[0] == 0
    code, _, err = run(capsys, "merge", a, binary, "-o", out)
    assert_error(code, err, f"Cannot merge {binary} with {a}: they were trained with different "
                            "settings (binary=True vs False)")  # fmt: skip
    other = tmp_path / "other.txt"
    other.write_text("notes")
    assert_error(*run(capsys, "merge", a, b, "-o", other)[::2], "pass --force")
    assert not out.exists() and other.read_text() == "notes"


def test_merging_into_a_served_model_is_refused(
    capsys: pytest.CaptureFixture[str], parts: dict[str, Path], served_here: Any
) -> None:
    before = parts["a"].read_bytes()
    with served_here(parts["a"], "http://127.0.0.1:8124"):
        code, _, err = run(capsys, "merge", parts["a"], parts["b"], "-o", parts["a"])
    assert_error(code, err, "is served by nbayes serve")
    assert "/update" in err and parts["a"].read_bytes() == before


def test_mixed_parts_of_other_families_are_told_the_flag(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Parts whose rows give a column other families: the advice names `--columns` (it gave
    Python's columns={...}, a fuzz); another kind of model is said without an article."""
    rng = np.random.default_rng(0)
    models = []
    for name, top in (("a", 3), ("b", 60)):  # codes 0-3 (categorical), counts to 60 (poisson)
        xs, ks = rng.random(40).tolist(), rng.integers(0, top + 1, 40).tolist()
        rows = [[round(x, 3), k, "ab"[i % 2]]
                for i, (x, k) in enumerate(zip(xs, ks, strict=True))]  # fmt: skip
        data = write_csv(tmp_path / f"{name}.csv", ["x", "k", "y"], rows)
        models.append(tmp_path / f"{name}.nbayes")
        code, _, err = run(capsys, "train", data, "-o", models[-1], "--model", "mixed",
                           "--label-col", "y", "-q")  # fmt: skip
        assert code == 0, err
    code, _, err = run(capsys, "merge", *models, "-o", tmp_path / "m.nbayes")
    assert_error(code, err, "--columns k=poisson")
    assert "columns={" not in err
