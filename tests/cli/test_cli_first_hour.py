"""What a new user meets in the first hour (issue 28): the commands' start-up cost (no
scikit-learn, scipy or pandas for a text model) and the small traps of the command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nbayes.cli import main

from .conftest import assert_error, run, write_csv

SRC = Path(__file__).resolve().parents[2] / "src"

_IMPORTS = """
import json, sys
from nbayes.cli import main
code = main({argv!r})
heavy = {{"sklearn", "scipy", "pandas", "numba"}}
loaded = sorted({{m.split(".")[0] for m in sys.modules}} & heavy)
print(json.dumps({{"code": code, "loaded": loaded}}))
"""


def _heavy_imports(argv: list[str]) -> set[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SRC) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run(
        [sys.executable, "-c", _IMPORTS.format(argv=argv)],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.splitlines()[-1])
    assert report["code"] == 0, (proc.stdout, proc.stderr)
    loaded = set(report["loaded"])
    if "numba" in loaded:  # compiled kernels built with numba import scipy themselves
        loaded.discard("scipy")
    return loaded & {"sklearn", "scipy", "pandas"}


#: the text settings of the command line: hashing x n-grams x binary x the models
TEXT_SETTINGS = [
    [], ["--model", "bernoulli", "--ngrams", "1-2"], ["--model", "complement", "--min-df", "1"],
    ["--hashing"], ["--hashing", "--binary", "--model", "bernoulli"], ["--stop-words", "english"],
    ["--class-prior", "spam=0.3,ham=0.7"], ["--hashing", "--ngrams", "2"],
    ["--hashing", "--ngrams", "2-2", "--binary"],
    ["--hashing", "--ngrams", "1-3", "--model", "complement", "--stop-words", "english"],
    ["--hashing", "--ngrams", "1-2", "--model", "bernoulli", "--binary"],
    ["--ngrams", "2-3", "--binary", "--model", "complement"],
]  # fmt: skip


@pytest.mark.parametrize("command", ["info", "eval", "predict", "explain"])
def test_reading_a_text_model_imports_no_scikit_learn_scipy_or_pandas(
    text_model: Path, texts_csv: Path, command: str
) -> None:
    argv = {
        "info": ["info", str(text_model)],
        "eval": ["eval", str(text_model), str(texts_csv)],
        "predict": ["predict", str(text_model), str(texts_csv)],
        "explain": ["explain", str(text_model), "free prize", "--exact"],
    }[command]
    assert _heavy_imports(argv) == set()


@pytest.mark.parametrize(
    "flags", [s for s in TEXT_SETTINGS if "--hashing" in s and "--ngrams" in s], ids=repr
)
def test_reading_a_hashed_ngram_model_imports_no_scikit_learn_scipy_or_pandas(
    tmp_path: Path, texts_csv: Path, flags: list[str]
) -> None:
    # its words are hashed as they are counted: scikit-learn's MurmurHash, in numpy
    model = tmp_path / "hashed.nbayes"
    assert main(["train", str(texts_csv), "-o", str(model), "-q", *flags]) == 0
    for argv in (["info", str(model)], ["eval", str(model), str(texts_csv)],
                 ["predict", str(model), str(texts_csv)],
                 ["explain", str(model), "free prize now",
                  *([] if "complement" in flags else ["--exact"])]):  # fmt: skip
        assert _heavy_imports(argv) == set(), argv


@pytest.mark.parametrize("flags", TEXT_SETTINGS, ids=repr)
def test_training_a_text_model_imports_no_scikit_learn_scipy_or_pandas(
    tmp_path: Path, texts_csv: Path, flags: list[str]
) -> None:
    out = tmp_path / "trained.nbayes"
    assert _heavy_imports(["train", str(texts_csv), "-o", str(out), "-q", *flags]) == set()
    assert out.exists()


@pytest.mark.parametrize(
    "flags",
    [[], ["--hashing", "--model", "bernoulli"], ["--hashing", "--ngrams", "1-2"],
     ["--hashing", "--ngrams", "2-3", "--binary", "--model", "complement"]],
    ids=repr,
)  # fmt: skip
def test_updating_and_forgetting_a_text_model_import_no_scikit_learn_scipy_or_pandas(
    tmp_path: Path, texts_csv: Path, flags: list[str]
) -> None:
    model = tmp_path / "m.nbayes"
    assert _heavy_imports(["train", str(texts_csv), "-o", str(model), "-q", *flags]) == set()
    trained = model.read_bytes()
    assert _heavy_imports(["update", str(model), str(texts_csv), "-q"]) == set()
    assert model.read_bytes() != trained
    assert _heavy_imports(["forget", str(model), str(texts_csv), "-q"]) == set()
    assert model.read_bytes() == trained


# ------------------------------------------------------------------ trap 4: eval labels


def test_eval_refuses_data_whose_labels_the_model_does_not_know(
    capsys: pytest.CaptureFixture[str], text_model: Path, tmp_path: Path
) -> None:
    data = write_csv(tmp_path / "other.csv", ["text", "label"],
                     [["free prize", "bad"], ["lunch today", "good"]])  # fmt: skip
    code, out, err = run(capsys, "eval", text_model, data)
    assert_error(code, err, "None of the labels in the data is a class of the model")
    assert "'bad', 'good'" in err and "'ham', 'spam'" in err and "--label-col" in err
    assert not out


def test_eval_warns_of_labels_only_some_examples_have(
    capsys: pytest.CaptureFixture[str], text_model: Path, tmp_path: Path
) -> None:
    rows = [["free prize", "spam"], ["lunch today", "ham"], ["hello", "eggs"]]
    data = write_csv(tmp_path / "mixed.csv", ["text", "label"], rows)
    code, out, err = run(capsys, "eval", text_model, data)
    assert code == 0 and "accuracy" in out
    assert "Warning: 1 of 3 examples have labels the model does not know ('eggs'" in err


# ----------------------------------------------------------------- trap 5: small things


def test_demo_hints_at_no_flag_it_does_not_have(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "demo", "--color", "never")
    assert code == 0 and "more words" in out  # the spam message is longer than 20 words
    assert "--top" not in out


def test_explain_says_which_top_lists_every_word(
    capsys: pytest.CaptureFixture[str], text_model: Path
) -> None:
    text = " ".join(f"w{i}" for i in range(30))
    code, out, _ = run(capsys, "explain", text_model, text, "--top", "5", "--color", "never")
    assert code == 0 and "... (10 more words; --top 8 lists them all)" in out
    code, out, _ = run(capsys, "explain", text_model, text, "--top", "8", "--color", "never")
    assert "more word" not in out and "w29 (unknown)" in out


def test_help_lists_every_kind_of_plot(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "-h")
    assert code == 0
    for flag in ("--column", "--words", "--confusion", "--reliability"):
        assert flag in out, flag


@pytest.mark.parametrize("command", ["train", "info", "eval"])
def test_an_unknown_flag_points_to_the_commands_help(
    capsys: pytest.CaptureFixture[str], text_model: Path, texts_csv: Path, command: str
) -> None:
    argv = {"train": ["train", texts_csv, "-o", "x.nbayes"], "info": ["info", text_model],
            "eval": ["eval", text_model, texts_csv]}[command]  # fmt: skip
    code, _, err = run(capsys, *argv, "--bogus")
    assert code == 2
    assert err == f"Error: unrecognized arguments: --bogus (see `nbayes {command} -h`).\n"
    code, _, err = run(capsys, "--bogus")
    assert code == 2 and "(see `nbayes -h`)" in err


def test_a_table_given_to_a_text_model_suggests_input_table(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    table = write_csv(tmp_path / "t.csv", ["a", "b", "label"],
                      [[1, 0, "x"], [0, 1, "y"], [1, 1, "x"]])  # fmt: skip
    out_path = tmp_path / "b.nbayes"
    code, _, err = run(capsys, "train", table, "-o", out_path, "--model", "bernoulli")
    assert_error(code, err, "--text-col NAME")
    assert "pass --input table (--model bernoulli reads documents unless told)" in err
    args = ("train", table, "-o", out_path, "--model", "bernoulli", "--input", "table", "-q")
    assert run(capsys, *args)[0] == 0


def test_labelled_data_on_stdin_without_a_header_names_standard_input(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, text_model: Path
) -> None:
    import io

    raw = io.BytesIO(b"free money,spam\n")
    raw.name = "<stdin>"  # type: ignore[attr-defined]  # as sys.stdin's
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(raw))
    code, _, err = run(capsys, "update", text_model, "-")
    assert_error(code, err, "Standard input is plain text (one document per line)")
    assert "Stream(" not in err and "itertools" not in err


def test_explain_exact_of_a_gaussian_model_speaks_of_the_flag(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    table = write_csv(tmp_path / "g.csv", ["a", "label"],
                      [[0.1, "x"], [0.3, "x"], [2.0, "y"], [2.4, "y"]])  # fmt: skip
    model = tmp_path / "g.nbayes"
    assert run(capsys, "train", table, "-o", model, "--model", "gaussian", "-q")[0] == 0
    code, _, err = run(capsys, "explain", model, table, "--exact")
    assert_error(code, err, "--exact is available for discrete models")
    assert "exact=" not in err and "Leave out --exact" in err


def test_explain_of_unknown_words_says_there_is_no_evidence(
    capsys: pytest.CaptureFixture[str], text_model: Path, tmp_path: Path
) -> None:
    code, out, _ = run(capsys, "explain", text_model, "xyzzy plugh", "--exact")
    assert code == 0
    assert "No word of the text is known to the model: no evidence" in out
    assert "class prior alone" in out  # 5 ham, 4 spam: not a tie
    assert "where" not in out.split()  # no factor to list: no empty "where"
    balanced = tmp_path / "balanced.nbayes"
    data = write_csv(tmp_path / "b.csv", ["text", "label"],
                     [["free prize", "spam"], ["lunch today", "ham"]])  # fmt: skip
    assert run(capsys, "train", data, "-o", balanced, "-q")[0] == 0
    code, out, _ = run(capsys, "explain", balanced, "xyzzy")
    assert "a tie (every class has P = 0.5000" in out


def test_train_class_prior(
    capsys: pytest.CaptureFixture[str], texts_csv: Path, tmp_path: Path
) -> None:
    model = tmp_path / "m.nbayes"
    code, _, err = run(capsys, "train", texts_csv, "-o", model, "--class-prior", "spam=0.9,ham=0.1")
    assert code == 0, err
    code, out, _ = run(capsys, "predict", model, "--text", "xyzzy", "--proba")
    assert out.strip() == "spam (P = 0.9000; ham 0.1000)"
    code, _, err = run(capsys, "train", texts_csv, "-o", model, "--class-prior", "spam=0.9")
    assert_error(code, err, "--class-prior names spam; the data's classes are ham, spam")
    code, _, err = run(capsys, "train", texts_csv, "-o", model, "--class-prior", "spam=.5,ham=.6")
    assert_error(code, err, "--class-prior must sum to 1; got 1.1")
    code, _, err = run(capsys, "train", texts_csv, "-o", model, "--class-prior", "spam")
    assert_error(code, err, "--class-prior must look like spam=0.2,ham=0.8")


@pytest.mark.parametrize(
    ("flag", "expected"), [("2", (1, 2)), ("1-2", (1, 2)), ("2-2", (2, 2)), ("3", (1, 3))]
)
def test_ngrams_n_means_up_to_n(flag: str, expected: tuple[int, int]) -> None:
    from nbayes.cli.train import parse_ngrams

    assert parse_ngrams(flag) == expected


def test_tune_shows_binary_in_its_table(
    capsys: pytest.CaptureFixture[str], texts_csv: Path
) -> None:
    code, out, _ = run(capsys, "tune", texts_csv, "--alpha", "0.5,1", "--binary", "--folds", "2")
    assert code == 0
    assert "every setting with binary=True" in out.splitlines()[0]
    assert out.splitlines()[-1].startswith("best: alpha=")
    assert ", binary=True (mean" in out.splitlines()[-1]
    code, out, _ = run(capsys, "tune", texts_csv, "--binary", "--folds", "2", "--json")
    assert json.loads(out)["fixed_params"] == {"binary": True}


def test_plot_log_applies_to_column_only(
    capsys: pytest.CaptureFixture[str], text_model: Path, tmp_path: Path
) -> None:
    pytest.importorskip("matplotlib")
    out = tmp_path / "x.png"
    code, _, err = run(capsys, "plot", text_model, "--words", "--log", "-o", out)
    assert_error(code, err, "--log applies to --column only.")
    table = write_csv(tmp_path / "t.csv", ["n", "label"],
                      [[1, "a"], [30, "a"], [500, "b"], [7000, "b"]])  # fmt: skip
    model = tmp_path / "k.nbayes"
    assert run(capsys, "train", table, "-o", model, "--model", "kernel", "-q")[0] == 0
    code, _, err = run(capsys, "plot", model, "--column", "n", "--log", "-o", out, "-q")
    assert code == 0 and out.stat().st_size > 0, err
