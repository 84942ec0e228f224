"""The command line for a blackboard or a paper: ``nbayes explain --exact --format
latex|markdown`` and ``nbayes info --parameters``, on the course notes' match reviews."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from nbayes.cli import main

from .conftest import assert_error, assert_usage_error, run, write_csv

REVIEWS = [
    ["keeper was sharp and composed", "positive"],
    ["match was composed", "positive"],
    ["brilliant match", "positive"],
    ["match was not sharp", "negative"],
    ["match was not composed", "negative"],
]


@pytest.fixture
def reviews_model(tmp_path: Path) -> Path:
    """The notes' binary model, unsmoothed (maximum likelihood)."""
    data = write_csv(tmp_path / "reviews.csv", ["text", "label"], REVIEWS)
    out = tmp_path / "reviews.nbayes"
    argv = ["train", str(data), "-o", str(out), "--model", "bernoulli", "--alpha", "0", "-q"]
    assert main(argv) == 0
    return out


def test_info_parameters_prints_the_notes_table(
    capsys: pytest.CaptureFixture[str], reviews_model: Path
) -> None:
    code, out, _ = run(capsys, "info", reviews_model, "--parameters")
    assert code == 0
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines()[3:]}
    assert out.splitlines()[1].split() == ["P(y)", "2/5", "3/5"]
    # the vocabulary in the model's (sorted) order; negative, positive
    assert rows == {
        "and": ["0/2", "1/3"], "brilliant": ["0/2", "1/3"], "composed": ["1/2", "2/3"],
        "keeper": ["0/2", "1/3"], "match": ["2/2", "2/3"], "not": ["2/2", "0/3"],
        "sharp": ["1/2", "1/3"], "was": ["2/2", "2/3"],
    }  # fmt: skip
    code, out, _ = run(capsys, "info", reviews_model, "--parameters", "--format", "latex")
    assert code == 0 and out.startswith("$$\n\\begin{array}{lcc}")
    assert r"\text{not} & \frac{2}{2} & \frac{0}{3} \\" in out
    code, out, _ = run(capsys, "info", reviews_model, "--parameters", "--format", "markdown")
    assert "| keeper | 0/2 | 1/3 |" in out
    code, out, _ = run(capsys, "info", reviews_model, "--parameters", "--decimals")
    assert "0.3333" in out and "1/3" not in out


def test_explain_exact_names_an_absent_word_s_factor_as_the_notes_do(
    capsys: pytest.CaptureFixture[str], reviews_model: Path
) -> None:
    # the legend said "P(not | negative) = 0/2" where the table above says 2/2: the
    # factor of a word the review lacks is 1 - P(w | c), as the notes write it
    code, out, _ = run(capsys, "explain", reviews_model, "match was sharp", "--exact")
    legend = out.split("\nwhere\n")[1]
    assert "P(not absent | negative) = 1 - 2/2 = 0/2" in legend
    assert "P(not absent | positive) = 1 - 0/3 = 3/3" in legend
    assert "P(match | negative) = 2/2" in legend and "P(not | negative)" not in legend
    # the undecidable review: the zero that wipes out "negative" (was, absent) is listed
    code, out, _ = run(capsys, "explain", reviews_model, "not sharp match", "--exact")
    legend = out.split("\nwhere\n")[1]
    assert "cannot decide" in out and "P(was absent | negative) = 1 - 2/2 = 0/2" in legend
    assert "P(not | positive) = 0/3" in legend


def test_info_format_needs_parameters(
    capsys: pytest.CaptureFixture[str], reviews_model: Path
) -> None:
    code, _, err = run(capsys, "info", reviews_model, "--format", "latex")
    assert_error(code, err, "--format applies to --parameters")
    code, _, err = run(capsys, "info", reviews_model, "--parameters", "--format", "html")
    assert_usage_error(code, err, "--format")


def test_explain_exact_latex_and_markdown(
    capsys: pytest.CaptureFixture[str], reviews_model: Path
) -> None:
    code, out, _ = run(
        capsys, "explain", reviews_model, "match was sharp", "--exact", "--format", "latex"
    )
    assert code == 0 and out.startswith("$$\n\\begin{aligned}")
    positive = next(line for line in out.splitlines() if line.startswith(r"P(\text{positive})\,"))
    # the vocabulary in the model's order: and brilliant composed keeper match not sharp was
    shown = re.findall(r"\\frac\{(\d+)\}\{(\d+)\}", positive)
    assert [f"{a}/{b}" for a, b in shown] == [
        "3/5", "2/3", "2/3", "1/3", "2/3", "2/3", "3/3", "1/3", "2/3", "32/3645",
    ]  # fmt: skip
    assert r"\approx 0.00878" in positive and r"\text{Decision: } \text{positive}" in out
    code, out, _ = run(
        capsys, "explain", reviews_model, "not sharp match", "--exact", "--format", "markdown"
    )
    assert code == 0 and out.startswith("**Cannot decide.**")
    assert "the classifier cannot decide" in out
    code, out, _ = run(capsys, "explain", reviews_model, "not sharp match", "--exact")
    assert "cannot decide" in out and "Exact derivation:" in out  # text, as before


def test_explain_markdown_without_exact_is_the_evidence_table(
    capsys: pytest.CaptureFixture[str], reviews_model: Path
) -> None:
    code, out, _ = run(capsys, "explain", reviews_model, "match was sharp", "--format", "markdown")
    assert code == 0
    assert out.startswith("**Prediction: positive**")
    assert "| class | feature | evidence |" in out


def test_explain_latex_needs_exact(capsys: pytest.CaptureFixture[str], reviews_model: Path) -> None:
    code, _, err = run(capsys, "explain", reviews_model, "match was sharp", "--format", "latex")
    assert_error(code, err, "--format latex prints the exact derivation: add --exact")


def test_info_parameters_of_a_kernel_model_says_it_has_none(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = write_csv(
        tmp_path / "t.csv",
        ["a", "b", "label"],
        [[1.0, 2.0, "x"], [1.5, 2.5, "x"], [3.0, 1.0, "y"], [3.5, 0.5, "y"]],
    )
    out = tmp_path / "k.nbayes"
    assert main(["train", str(data), "-o", str(out), "--model", "kernel", "--label-col", "label",
                 "-q"]) == 0  # fmt: skip
    capsys.readouterr()
    code, _, err = run(capsys, "info", out, "--parameters")
    assert_error(code, err, "kde densities have no parameter table")


def test_explain_exact_of_a_long_document_does_not_reduce_its_fractions(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 100,000 words took 21 s in the command line (0.1 s in the library): it reduced the
    # exact posterior's fractions (500,000 digits) only to print P to four decimals
    data = write_csv(tmp_path / "m.csv", ["text", "label"], [
        ["free prize win now", "spam"], ["lunch today at noon", "ham"],
        ["win a free prize", "spam"], ["meeting at noon today", "ham"],
    ])  # fmt: skip
    model = tmp_path / "m.nbayes"
    assert main(["train", str(data), "-o", str(model), "-q"]) == 0
    document = tmp_path / "long.txt"
    document.write_text(" ".join(["free prize lunch today"] * 5000))
    import nbayes.explain

    def reduced(products: object) -> None:
        raise AssertionError("the exact posterior was reduced")

    monkeypatch.setattr(nbayes.explain, "exact_posterior", reduced)
    code, out, _ = run(capsys, "explain", model, document, "--exact")
    assert code == 0 and "an exact fraction not reduced here" in out
    assert out.startswith("Prediction: ")
