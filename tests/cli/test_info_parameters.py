"""``nbayes info MODEL --parameters`` of a model with many features (a trial's report: 20
newsgroups' 130,107 terms printed nothing for 52 s and made 145 MB before its first line,
every line padded to the longest term): the rows are printed as they are made, the columns
are as wide as a bounded sample says, and --top / --features print some rows only."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import nbayes
from nbayes._families._base import ParameterBlock
from nbayes.cli import main
from nbayes.display import NAME_WIDTH, WIDTH_ROWS

from .conftest import assert_error, run, write_csv

SRC = Path(__file__).resolve().parents[2] / "src"
#: more terms than the text view measures its widths on
N_TERMS = 3 * WIDTH_ROWS
#: a term far longer than the others
LONG = "x" * 300


@pytest.fixture(scope="module")
def many_terms(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A text model of ``N_TERMS`` terms (and one absurdly long one), two classes."""
    folder = tmp_path_factory.mktemp("many")
    rows = [[" ".join(f"w{i:05d}" for i in range(k, N_TERMS, 7)), "ab"[k % 2]] for k in range(7)]
    rows.append([f"w00001 {LONG}", "a"])
    data = write_csv(folder / "many.csv", ["text", "label"], rows)
    model = folder / "many.nbayes"
    assert main(["train", str(data), "-o", str(model), "-q"]) == 0
    return model


class _Head:
    """A standard output read by ``| head -n lines``: the write after them fails as a
    closed pipe does."""

    encoding = "utf-8"

    def __init__(self, lines: int) -> None:
        self.lines, self.text = lines, ""

    def write(self, text: str) -> int:
        if self.text.count("\n") >= self.lines:
            raise BrokenPipeError(32, "Broken pipe")
        self.text += text
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


def test_the_first_lines_come_before_the_table_is_made(
    monkeypatch: pytest.MonkeyPatch, many_terms: Path
) -> None:
    made = []
    estimate = ParameterBlock.estimate

    def counted(self: ParameterBlock, c: int, r: int) -> Any:
        made.append(r)
        return estimate(self, c, r)

    monkeypatch.setattr(ParameterBlock, "estimate", counted)
    head = _Head(5)
    monkeypatch.setattr(sys, "stdout", head)
    assert main(["info", str(many_terms), "--parameters"]) == 0  # `| head -5`: quiet, 0
    lines = head.text.splitlines()
    assert lines[1].startswith("P(y)") and lines[2] == "P(w | y)"
    assert lines[3].split()[0] == "w00000"
    # the widths from a sample of the rows, then the rows printed: not every cell made
    # first (2 classes x N_TERMS; each made once for the widths, again for its line)
    assert len(made) <= 2 * (WIDTH_ROWS + 20) < 2 * N_TERMS


def test_the_columns_are_not_as_wide_as_the_longest_term(
    capsys: pytest.CaptureFixture[str], many_terms: Path
) -> None:
    code, out, _ = run(capsys, "info", many_terms, "--parameters")
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == 3 + N_TERMS + 1  # header, P(y), the block's name, a row per term
    long_row = next(line for line in lines if line.startswith(LONG))  # written whole
    assert len(long_row) > len(LONG)
    rows = [line for line in lines[3:] if not line.startswith(LONG)]
    assert max(len(line) for line in rows) < 100  # the longest term did not widen them
    # the columns line up: each row's second cell starts where the header's second does
    second = lines[0].index("b")
    assert all(line[second - 2 : second] == "  " and line[second] == "(" for line in rows)
    assert lines[0].index("a") <= NAME_WIDTH + 2


def test_a_small_table_prints_as_before(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data = write_csv(tmp_path / "r.csv", ["text", "label"], [
        ["keeper was sharp", "positive"], ["match was not sharp", "negative"],
    ])  # fmt: skip
    model = tmp_path / "r.nbayes"
    assert main(["train", str(data), "-o", str(model), "--model", "bernoulli", "-q"]) == 0
    table = nbayes.load(model).parameter_table()
    for fmt, whole in (("text", table.to_text()), ("markdown", table.to_markdown()),
                       ("latex", table.to_latex())):  # fmt: skip
        assert "\n".join(table.lines(fmt)) == whole
        code, out, _ = run(capsys, "info", model, "--parameters", "--format", fmt)
        assert code == 0 and out == whole + "\n"
    # every column as wide as its widest cell, as before
    assert table.to_text().splitlines()[:4] == [
        "        negative                 positive",
        "P(y)    1/2                      1/2",
        "P(x_j = 1 | y)",
        "keeper  (0 + 1)/(1 + 2·1) = 1/3  (1 + 1)/(1 + 2·1) = 2/3",
    ]


def test_top_prints_the_rows_of_the_most_informative_features(
    capsys: pytest.CaptureFixture[str], text_model: Path
) -> None:
    best = [f for f, _, _ in nbayes.load(text_model).most_informative_features(3)]
    code, out, _ = run(capsys, "info", text_model, "--parameters", "--top", "3")
    assert code == 0
    lines = out.splitlines()
    assert lines[1].startswith("P(y)") and lines[2] == "P(w | y)"
    assert [line.split()[0] for line in lines[3:]] == best
    code, out, _ = run(capsys, "info", text_model, "--parameters", "--top", "0")
    assert code == 0 and out.splitlines()[1].startswith("P(y)") and len(out.splitlines()) == 2
    code, out, _ = run(capsys, "info", text_model, "--parameters", "--top", "2", "--format",
                       "markdown")  # fmt: skip
    assert code == 0 and len(out.splitlines()) == 4 + 2
    code, out, _ = run(capsys, "info", text_model, "--top", "2")  # as before: per class
    assert code == 0 and "most informative features per class (top 2" in out


def test_features_prints_the_rows_named(
    capsys: pytest.CaptureFixture[str], text_model: Path
) -> None:
    code, out, _ = run(
        capsys, "info", text_model, "--parameters", "--features", "prize,lunch", "--features",
        "win", "--decimals",
    )  # fmt: skip
    assert code == 0
    rows = out.splitlines()[3:]
    assert [line.split()[0] for line in rows] == ["prize", "lunch", "win"]
    assert "/" not in "".join(rows)
    code, _, err = run(capsys, "info", text_model, "--parameters", "--features", "prize,Nowhere")
    assert_error(code, err, "'Nowhere'")
    assert "lower-cases" in err
    code, _, err = run(capsys, "info", text_model, "--features", "prize")
    assert_error(code, err, "--features applies to --parameters")
    code, _, err = run(capsys, "info", text_model, "--parameters", "--features", "prize",
                       "--top", "3")  # fmt: skip
    assert_error(code, err, "give one of them")


def test_the_parameters_of_a_text_model_import_no_scikit_learn(text_model: Path) -> None:
    """A text model's table is its scorer's: no estimator, no scikit-learn to import (1.5 s
    of a loaded machine before the first line)."""
    code = (
        "import json, sys\nfrom nbayes.cli import main\n"
        f"code = main(['info', {str(text_model)!r}, '--parameters'])\n"
        "print(json.dumps([code, sorted({m.split('.')[0] for m in sys.modules} & "
        "{'sklearn', 'scipy', 'pandas'})]))"
    )
    env = dict(os.environ, PYTHONPATH=str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=120)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.splitlines()[-1]) == [0, []]
    assert nbayes.load(text_model).parameter_table().to_text() in proc.stdout


def test_a_reader_that_stops_early_ends_the_command_quietly(many_terms: Path) -> None:
    """``nbayes info MODEL --parameters | head -1``: exit 0, nothing on stderr (no
    "BrokenPipeError" from Python)."""
    env = dict(os.environ, PYTHONPATH=str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    with subprocess.Popen(
        [sys.executable, "-m", "nbayes", "info", str(many_terms), "--parameters"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
    ) as proc:  # fmt: skip
        assert proc.stdout is not None and proc.stderr is not None
        first = proc.stdout.readline()
        proc.stdout.close()
        err = proc.stderr.read()
        assert proc.wait(timeout=120) == 0
    assert first.split() == [b"a", b"b"] and err == b""
