"""The command line as people use it (issue 15, items 9-13; issue 14, items 1 and 11):
standard input, plain-text files, file names, the CLI's own flags in every message, help
that agrees with behaviour, warnings, bounded explanations, no model over the data."""

from __future__ import annotations

import argparse
import csv
import io
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from nbayes.cli import COMMANDS, build_parser, main
from nbayes.io.persist import load

from .conftest import assert_error, assert_usage_error, run, write_csv


def _stdin(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode("utf-8"))))


# ------------------------------------------------------------------ 15.9: inputs


def test_predict_reads_standard_input_one_document_per_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, text_model: Path
) -> None:
    _stdin(monkeypatch, "WIN a free cash prize now\n\nsee you at lunch today\n")
    code, out, err = run(capsys, "predict", text_model, "-")
    assert code == 0, err
    assert out.splitlines() == ["row,prediction", "0,spam", "1,ham"]


def test_predict_reads_a_table_from_standard_input(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, text_model: Path
) -> None:
    _stdin(monkeypatch, "id,body\n1,free cash prize\n2,lunch at home\n")
    code, out, err = run(capsys, "predict", text_model, "-", "--text-col", "body")
    assert code == 0, err
    assert out.splitlines() == ["row,prediction", "0,spam", "1,ham"]
    _stdin(monkeypatch, '{"text": "win a prize"}\n{"text": "meeting tomorrow"}\n')
    code, out, err = run(capsys, "predict", text_model, "-", "--format", "jsonl")
    assert [json.loads(line)["prediction"] for line in out.splitlines()] == ["spam", "ham"]


def test_a_table_model_reads_standard_input(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    rows = [[str(v), str(v + 0.5), "small" if v < 5 else "large"] for v in range(10)]
    data = write_csv(tmp_path / "t.csv", ["a", "b", "y"], rows)
    out = tmp_path / "g.nbayes"
    assert main(["train", str(data), "-o", str(out), "--model", "gaussian", "--label-col",
                 "y", "-q"]) == 0  # fmt: skip
    _stdin(monkeypatch, "a,b\n0.5,1\n9,9.5\n")
    code, out_text, err = run(capsys, "predict", out, "-")
    assert code == 0, err
    assert out_text.splitlines() == ["row,prediction", "0,small", "1,large"]


def test_plain_text_files_and_folders_are_named_in_predictions(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text_model: Path
) -> None:
    mail = tmp_path / "mail"
    mail.mkdir()
    (mail / "a.txt").write_text("WIN a FREE prize\ncall now", encoding="utf-8")
    (mail / "b.eml").write_text("lunch at home?", encoding="utf-8")
    code, out, err = run(capsys, "predict", text_model, mail / "a.txt")
    assert code == 0, err  # one document: the whole file
    assert out.splitlines() == ["file,prediction", f"{mail / 'a.txt'},spam"]
    code, out, err = run(capsys, "predict", text_model, mail)
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [(Path(r["file"]).name, r["prediction"]) for r in rows] == [
        ("a.txt", "spam"),
        ("b.eml", "ham"),
    ]
    lines = tmp_path / "msgs.txt"
    lines.write_text("free prize now\nsee you at lunch\n", encoding="utf-8")
    code, out, _ = run(capsys, "predict", text_model, lines, "--data-format", "lines")
    assert out.splitlines() == ["row,prediction", "0,spam", "1,ham"]
    code, _, err = run(capsys, "train", lines, "-o", tmp_path / "x.nbayes")
    assert_error(code, err, "no labels")


def test_explain_a_row_of_a_data_file_with_a_text_model(
    capsys: pytest.CaptureFixture[str], text_model: Path, texts_csv: Path
) -> None:
    code, out, err = run(capsys, "explain", text_model, texts_csv, "--row", "5")
    assert code == 0, err
    assert out.startswith("Prediction: ham")  # row 5 is "I'll call you when I get home"
    assert "home" in out and "csv (unknown)" not in out and "sms" not in out
    code, _, err = run(capsys, "explain", text_model, texts_csv, "--row", "99")
    assert_error(code, err, "--row 99 is out of range")
    code, _, err = run(capsys, "explain", text_model, "free prize", "--row", "2")
    assert_error(code, err, "--row applies to a data file")


# --------------------------------------------------- 15.10: the CLI's flags, not Python's

#: keyword arguments of the readers and of the estimators' constructors
_PYTHON_KEYWORDS = re.compile(
    r"(?<![-\w])(text_col|label_col|encoding|format|max_field_chars|chunk_size|delimiter|"
    r"ngram_range|min_df|max_df|alpha|var_smoothing|bandwidth|max_points|n_features)\s*="
)


def _error_paths(tmp_path: Path, text_model: Path, texts_csv: Path) -> list[list[Any]]:
    latin = tmp_path / "latin.csv"
    latin.write_bytes("text,label\ncaf\xe9 cr\xe8me,a\nb,b\n".encode("latin-1"))
    xlsx = tmp_path / "data.xlsx"
    xlsx.write_bytes(b"PK\x03\x04")
    quote = tmp_path / "quote.csv"
    quote.write_text('text,label\n"never closed,spam\n' + "more,ham\n" * 50, encoding="utf-8")
    lines = tmp_path / "l.txt"
    lines.write_text("a\nb\n", encoding="utf-8")
    out = tmp_path / "out.nbayes"
    return [
        ["train", texts_csv, "-o", out, "--text-col", "body"],
        ["train", texts_csv, "-o", out, "--label-col", "category"],
        ["train", latin, "-o", out],  # a warning: not valid utf-8
        ["train", xlsx, "-o", out],
        ["train", quote, "-o", out],
        ["train", quote, "-o", out, "--max-field-chars", "10"],
        ["train", lines, "-o", out],
        ["train", texts_csv, "-o", out, "--alpha", "-1"],
        ["train", texts_csv, "-o", out, "--ngrams", "3-1"],
        ["train", texts_csv, "-o", texts_csv],
        ["predict", text_model, texts_csv, "--text-col", "body"],
        ["predict", text_model, xlsx],
        ["predict", text_model, texts_csv, "--encoding", "no-such-codec"],
        ["eval", text_model, texts_csv, "--label-col", "y"],
        ["update", text_model, texts_csv, "--text-col", "body"],
        ["forget", text_model, quote],
        ["tune", texts_csv, "--alpha", "-1", "--folds", "2"],
        ["tune", texts_csv, "--text-col", "body", "--folds", "2"],
        ["explain", text_model, texts_csv, "--text-col", "body"],
    ]


def test_no_message_names_a_python_keyword_argument(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text_model: Path, texts_csv: Path
) -> None:
    seen = []
    for argv in _error_paths(tmp_path, text_model, texts_csv):
        code, _, err = run(capsys, *argv)
        assert err, argv  # every one of them says something
        seen.append(err)
        assert not _PYTHON_KEYWORDS.search(err), (argv, err)
        assert "Traceback" not in err and "bug in nbayes" not in err, (argv, err)
    text = "".join(seen)
    for flag in ("--text-col", "--label-col", "--encoding", "--data-format",
                 "--max-field-chars", "--alpha", "--ngrams"):  # fmt: skip
        assert flag in text, flag


# ------------------------------------------------------ 15.11: help agrees with behaviour


def _help(capsys: pytest.CaptureFixture[str], command: str) -> str:
    code, out, _ = run(capsys, command, "-h")
    assert code == 0
    return " ".join(out.split())


def test_update_help_and_the_vocabulary_grows(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text_model: Path
) -> None:
    assert "its vocabulary grows" in _help(capsys, "update")
    before = set(load(text_model).get_feature_names_out())
    extra = write_csv(tmp_path / "more.csv", ["text", "label"], [["zanzibar lottery", "spam"]])
    assert main(["update", str(text_model), str(extra), "-q"]) == 0
    assert set(load(text_model).get_feature_names_out()) - before == {"zanzibar", "lottery"}


def test_sample_help_says_the_words_come_in_random_order(
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = _help(capsys, "sample")
    assert "most frequent" not in text and "in random order" in text


def test_forget_help_and_what_forget_accepts(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text_model: Path
) -> None:
    text = _help(capsys, "forget")
    assert "cannot tell whether it learned these very documents" in text
    assert "Data the model never learned is refused" not in text
    # never learned, but within the counts: accepted (as the help says)
    other = write_csv(tmp_path / "other.csv", ["text", "label"], [["free prize", "spam"]])
    code, _, err = run(capsys, "forget", text_model, other)
    assert code == 0, err
    # more of a word than it counted: refused, file unchanged
    content = text_model.read_bytes()
    much = write_csv(tmp_path / "much.csv", ["text", "label"], [["lunch " * 50, "ham"]])
    code, _, err = run(capsys, "forget", text_model, much)
    assert code == 1 and text_model.read_bytes() == content


# ----------------------------------------------------------------- 15.12: warnings, info


def test_one_class_warns_at_train_and_at_forget(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, texts_csv: Path
) -> None:
    one = write_csv(
        tmp_path / "one.csv", ["text", "label"], [["free prize", "spam"], ["cash prize", "spam"]]
    )
    code, _, err = run(capsys, "train", one, "-o", tmp_path / "one.nbayes")
    assert code == 0 and "Warning: " in err and "one class only ('spam')" in err
    path = tmp_path / "two.nbayes"
    assert main(["train", str(texts_csv), "-o", str(path), "-q"]) == 0
    with open(texts_csv, encoding="utf-8", newline="") as f:
        rows = [r for r in csv.reader(f) if r[1] == "ham"]
    ham = write_csv(tmp_path / "ham.csv", ["text", "label"], rows)
    code, _, err = run(capsys, "forget", path, ham)
    assert code == 0 and "one class only ('spam')" in err
    code, _, err = run(capsys, "train", texts_csv, "-o", path)
    assert code == 0 and "Warning" not in err


def test_info_shows_n_features_only_for_hashing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text_model: Path, texts_csv: Path
) -> None:
    code, out, _ = run(capsys, "info", text_model)
    assert code == 0 and "n_features=" not in out and "hashing=False" in out
    hashed = tmp_path / "h.nbayes"
    assert main(["train", str(texts_csv), "-o", str(hashed), "--hashing", "-q"]) == 0
    code, out, _ = run(capsys, "info", hashed)
    assert "n_features=1048576" in out


@pytest.mark.parametrize("ngrams", ["1-1", "1-2"])
def test_a_hashing_model_explains_the_words(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, texts_csv: Path, ngrams: str
) -> None:
    hashed = tmp_path / "h.nbayes"
    assert main(["train", str(texts_csv), "-o", str(hashed), "--hashing", "--ngrams", ngrams,
                 "-q"]) == 0  # fmt: skip
    code, out, _ = run(capsys, "explain", hashed, "WIN a free prize now")
    assert code == 0
    words = out.splitlines()[1]
    assert "(unknown)" not in words.split("win free")[0], out  # every unigram is known
    assert re.search(r"prize \+\d", words) and "bucket" not in out


@pytest.mark.parametrize("hashing", [False, True])
def test_explain_marks_the_absent_words_a_bernoulli_model_weighs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, texts_csv: Path, hashing: bool
) -> None:
    """A Bernoulli model's evidence for a class comes from the words the text lacks too:
    the for/against lists named words that are not in the text as if they were."""
    model = tmp_path / "b.nbayes"
    hashed = ["--hashing"] if hashing else []
    assert main(["train", str(texts_csv), "-o", str(model), "--model", "bernoulli", *hashed,
                 "-q"]) == 0  # fmt: skip
    capsys.readouterr()
    code, out, _ = run(capsys, "explain", model, "lunch", "--top", "3")
    assert code == 0
    lists = [line for line in out.splitlines() if line.startswith(("  for ", "  against "))]
    listed = re.findall(r"([^,:]+?) (\(absent\) )?[+-]\d\.\d\d", " ".join(lists))
    assert listed, out
    for word, absent in listed:
        word = word.strip()
        assert bool(absent) == (word != "lunch"), (word, out)
    code, out, _ = run(capsys, "explain", model.parent / "b.nbayes", "lunch free", "--top", "3")
    assert "free (absent)" not in out and "lunch (absent)" not in out


def test_a_multinomial_explanation_marks_nothing_absent(
    capsys: pytest.CaptureFixture[str], text_model: Path
) -> None:
    code, out, _ = run(capsys, "explain", text_model, "WIN a free prize now")
    assert code == 0 and "(absent)" not in out


def test_predict_text_is_plain_and_csv_or_json_on_request(
    capsys: pytest.CaptureFixture[str], text_model: Path
) -> None:
    code, out, _ = run(capsys, "predict", text_model, "--text", "WIN a free prize")
    assert code == 0 and re.fullmatch(r"spam \(P = 0\.\d{4}\)\n", out), out
    code, out, _ = run(capsys, "predict", text_model, "--text", "free prize", "--text", "lunch",
                       "--proba")  # fmt: skip
    first, second = out.splitlines()
    assert first.startswith("spam (P = ") and "; ham 0." in first and "'free prize'" in first
    assert second.startswith("ham (P = ")
    code, out, _ = run(capsys, "predict", text_model, "--text", "free", "--format", "csv")
    assert out.splitlines() == ["row,prediction", "0,spam"]
    code, out, _ = run(capsys, "predict", text_model, "--text", "free", "--format", "jsonl")
    assert json.loads(out) == {"row": 0, "prediction": "spam"}


# ------------------------------------------------------------------- 15.13: --top bounds


def test_explain_top_bounds_the_output_of_a_long_document(
    capsys: pytest.CaptureFixture[str], text_model: Path
) -> None:
    words = [f"word{i}" for i in range(2000)] + ["free", "prize", "lunch", "home"]
    text = " ".join(words)
    for extra in ([], ["--exact"]):
        code, out, _ = run(capsys, "explain", text_model, text, "--top", "3", "-q", *extra)
        assert code == 0
        assert max(len(line) for line in out.splitlines()) < 1500, extra
        assert len(out) < 4000, (extra, len(out))
        assert "(1,992 more words; --top 501 lists them all)" in out
    code, out, _ = run(capsys, "explain", text_model, "free prize", "--top", "3")
    assert "more words" not in out and "free +" in out and "prize +" in out


# ------------------------------------------------------ 14.1: no model over the data


def test_a_model_is_never_written_over_the_data(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, texts_csv: Path, text_model: Path
) -> None:
    data = texts_csv.read_bytes()
    code, _, err = run(capsys, "train", texts_csv, "-o", texts_csv)
    assert_error(code, err, "Refusing to write the model over the input data")
    code, _, err = run(capsys, "train", texts_csv, "-o", texts_csv, "--force")
    assert_error(code, err, "over the input data")
    link = tmp_path / "link.nbayes"
    link.symlink_to(texts_csv)
    code, _, err = run(capsys, "train", texts_csv, "-o", link)
    assert_error(code, err, "over the input data")
    code, _, err = run(capsys, "train", str(tmp_path / "*.csv"), "-o", texts_csv)
    assert_error(code, err, "over the input data")
    code, _, err = run(capsys, "tune", texts_csv, "--folds", "2", "--save", texts_csv)
    assert_error(code, err, "choose another --save")
    code, _, err = run(capsys, "update", text_model, text_model)
    assert_error(code, err, "over the input data")
    assert texts_csv.read_bytes() == data


def test_a_model_replaces_a_model_not_another_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, texts_csv: Path, text_model: Path
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes", encoding="utf-8")
    code, _, err = run(capsys, "train", texts_csv, "-o", notes)
    assert_error(code, err, "is not an nbayes model file")
    assert notes.read_text(encoding="utf-8") == "my notes"
    code, _, err = run(capsys, "demo", "-o", notes)
    assert_error(code, err, "--force")
    code, _, err = run(capsys, "train", texts_csv, "-o", notes, "--force", "-q")
    assert code == 0 and load(notes).predict(["free prize"]).tolist() == ["spam"]
    code, _, err = run(capsys, "train", texts_csv, "-o", text_model, "-q")  # a model: replaced
    assert code == 0, err
    folder = tmp_path / "mail" / "spam"
    folder.mkdir(parents=True)
    (folder / "1.txt").write_text("win", encoding="utf-8")
    code, _, err = run(capsys, "train", tmp_path / "mail", "-o", folder / "m.nbayes")
    assert_error(code, err, "inside the data folder")
    code, _, err = run(capsys, "train", texts_csv, "-o", tmp_path)
    assert_error(code, err, "is a folder")


# ------------------------------------------------------ 14.11: every numeric flag


def _numeric_flags() -> list[tuple[str, str]]:
    found = []
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for command in COMMANDS:
        for action in sub.choices[command]._actions:
            kind = getattr(action.type, "__name__", "")
            if (
                action.type in (int, float)
                or kind.startswith("whole number")
                or (kind == "fraction_type")
            ):
                found.append((command, action.option_strings[-1]))
    return found


def test_every_numeric_flag_is_checked() -> None:
    """No flag of any command takes a plain int or float: each has a range."""
    flags = _numeric_flags()
    assert ("explain", "--top") in flags and ("sample", "-n") in flags
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    plain = [
        (command, action.option_strings)
        for command in COMMANDS
        for action in sub.choices[command]._actions
        if action.type in (int, float)
        # hyperparameters: the estimator checks them (and the error names the flag)
        and action.option_strings[-1]
        not in ("--alpha", "--max-points", "--var-smoothing", "--c", "--beta")
    ]
    assert not plain, plain


@pytest.mark.parametrize(
    "argv",
    [
        ["info", "{model}", "--top", "-3"],
        ["explain", "{model}", "free", "--top", "-1"],
        ["explain", "{model}", "{data}", "--row", "-1"],
        ["predict", "{model}", "--text", "free", "--top", "-2"],
        ["predict", "{model}", "{data}", "--max-field-chars", "-5"],
        ["sample", "{model}", "-n", "-2"],
        ["sample", "{model}", "--seed", "-1"],
        ["demo", "--seed", "-1"],
        ["demo", "--test-size", "-0.5"],
        ["train", "{data}", "-o", "{out}", "--workers", "-1"],
        ["tune", "{data}", "--folds", "-1"],
        ["eval", "{model}", "{data}", "--max-field-chars", "0"],
        ["serve", "{model}", "--port", "-1"],
        ["serve", "{model}", "--port", "70000"],
        ["serve", "{model}", "--workers", "0"],
        ["serve", "{model}", "--fold-every", "-1"],
        ["serve", "{model}", "--fold-seconds", "-1"],
        ["plot", "{model}", "--dpi", "0"],
        ["plot", "{model}", "--words", "--top", "0"],
        ["plot", "{model}", "--reliability", "{data}", "--bins", "0"],
    ],
)
def test_negative_numbers_are_refused_with_the_flag_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text_model: Path, texts_csv: Path,
    argv: list[str],
) -> None:  # fmt: skip
    args = [a.format(model=text_model, data=texts_csv, out=tmp_path / "o.nbayes") for a in argv]
    code, _, err = run(capsys, *args)
    flag = [a for a in argv if a.startswith("-") and a[1:2].isalpha() or a.startswith("--")][-1]
    assert_usage_error(code, err, f"argument {flag}")


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["train", "{data}", "-o", "{out}", "--alpha", "-1"], "--alpha must be"),
        (["tune", "{data}", "--folds", "2", "--alpha", "-1"], "--alpha"),
        (["tune", "{data}", "--folds", "2", "--min-df", "-1"], "--min-df"),
    ],
)
def test_hyperparameter_flags_are_refused_by_the_estimator_with_the_flag_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, texts_csv: Path, argv: list[str],
    fragment: str,
) -> None:  # fmt: skip
    args = [a.format(data=texts_csv, out=tmp_path / "o.nbayes") for a in argv]
    code, _, err = run(capsys, *args)
    assert code in (1, 2) and fragment in err and len(err.strip().splitlines()) == 1, err


def test_a_command_s_options_before_its_name_are_its_own(
    capsys: pytest.CaptureFixture[str], text_model: Path
) -> None:
    """``nbayes -q predict ...`` and bogofilter's habit of flags first (``nbayes
    --spam-cutoff 0.95 filter MODEL``) were refused ("unrecognized arguments: -q",
    "invalid choice: '0.95'"), a delivery's filter with status 2, its "unsure"."""
    assert run(capsys, "predict", text_model, "--text", "free cash prize", "-q") == run(
        capsys, "-q", "predict", text_model, "--text", "free cash prize"
    )
    code, out, err = run(capsys, "--top", "0", "info", text_model)
    assert code == 0 and out.startswith(f"file: {text_model}"), err
    # errors are still the command's, with its status (filter: 3, never its "unsure")
    assert main(["--spam-cutoff", "1.5", "filter", str(text_model)]) == 3
    assert "--spam-cutoff: must be from 0 to 1" in capsys.readouterr().err
    assert main(["--bogus", "info", str(text_model)]) == 2
    assert "unrecognized arguments: --bogus (see `nbayes info -h`)" in capsys.readouterr().err
    assert main(["--version", "info"]) == 0  # the top-level's own options stay its own
    assert capsys.readouterr().out.startswith("nbayes ")
