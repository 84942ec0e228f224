"""`nbayes predict` and `nbayes explain` of text models: the lean path, same output."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from nbayes import TextClassifier, save
from nbayes.cli import explain as explain_command
from nbayes.cli import main
from nbayes.cli import predict as predict_command
from nbayes.cli._common import load_model
from nbayes.cli._models import load_for_prediction
from nbayes.text.scoring import TextScorer

SRC = Path(__file__).resolve().parents[2] / "src"

MODELS: dict[str, dict[str, Any]] = {
    "multinomial": {},
    "bernoulli_bigrams": {"model": "bernoulli", "ngram_range": (1, 2)},
    "complement_stop": {"model": "complement", "stop_words": "english"},
    "binary_sentiment": {"binary": True, "preprocess": "sentiment"},
    "hashing": {"hashing": True, "n_features": 64},
    "unsmoothed": {"alpha": 0.0},
}
TEXTS = ["WIN a free prize", "see you at lunch", "", "not good, call me 7/10"]


@pytest.fixture(scope="module")
def models(
    tmp_path_factory: pytest.TempPathFactory, spam_ham: tuple[list[str], list[str]]
) -> dict[str, Path]:
    SPAM, HAM = spam_ham
    out = tmp_path_factory.mktemp("models")
    paths = {}
    for name, kw in MODELS.items():
        clf = TextClassifier(**kw).fit(SPAM + HAM, ["spam"] * len(SPAM) + ["ham"] * len(HAM))
        paths[name] = out / f"{name}.nbayes"
        save(clf, paths[name])
    rows = [[t, "x"] for t in SPAM + HAM + TEXTS]
    with open(out / "docs.csv", "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([["text", "label"], *rows])
    with open(out / "docs.jsonl", "w", encoding="utf-8") as f:
        f.writelines(json.dumps({"text": t}) + "\n" for t in SPAM + TEXTS)
    paths["csv"], paths["jsonl"] = out / "docs.csv", out / "docs.jsonl"
    return paths


def _commands(models: dict[str, Path], name: str) -> list[list[str]]:
    m = str(models[name])
    texts = [a for t in TEXTS for a in ("--text", t)]
    return [
        ["predict", m, "--text", TEXTS[0]],
        ["predict", m, *texts, "--proba"],
        ["predict", m, *texts, "--top", "2", "--format", "jsonl"],
        ["predict", m, "--text", TEXTS[1], "--proba", "--format", "jsonl"],
        ["predict", m, str(models["csv"]), "--proba"],
        ["predict", m, str(models["jsonl"]), "--top", "1"],
        ["explain", m, TEXTS[0], "--color", "never"],
        ["explain", m, TEXTS[1], "--color", "always", "--top", "2"],
        ["explain", m, TEXTS[3], "--exact", "--color", "never"],
    ]


def _run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("name", list(MODELS))
def test_output_is_that_of_the_estimator(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    models: dict[str, Path],
    name: str,
) -> None:
    assert isinstance(load_for_prediction(str(models[name])), TextScorer)  # the lean path
    lean = [_run(capsys, argv) for argv in _commands(models, name)]
    # the same commands through the full estimator, as before the lean path existed
    monkeypatch.setattr(predict_command, "_load_model", load_model)
    monkeypatch.setattr(explain_command, "_load_model", load_model)
    full = [_run(capsys, argv) for argv in _commands(models, name)]
    assert lean == full
    assert any(code == 0 and out for code, out, _ in lean)


def test_errors_are_those_of_the_full_load(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    models: dict[str, Path],
    tmp_path: Path,
) -> None:
    broken = tmp_path / "broken.nbayes"
    broken.write_bytes(models["multinomial"].read_bytes()[:-10])
    commands = [
        ["predict", str(broken), "--text", "hi"],
        ["explain", str(broken), "hi"],
        ["predict", str(tmp_path / "absent.nbayes"), "--text", "hi"],
        ["predict", str(models["multinomial"]), str(tmp_path / "absent.csv")],
        ["explain", str(models["complement_stop"]), "hi", "--exact"],
    ]
    lean = [_run(capsys, argv) for argv in commands]
    monkeypatch.setattr(predict_command, "_load_model", load_model)
    monkeypatch.setattr(explain_command, "_load_model", load_model)
    full = [_run(capsys, argv) for argv in commands]
    assert lean == full
    for code, out, err in lean:
        assert code == 1 and not out and err.startswith("Error: ")


def test_every_model_file_is_read_once(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    models: dict[str, Path],
    tmp_path: Path,
    spam_ham: tuple[list[str], list[str]],
) -> None:
    """The lean path asked load_scorer first: for any other model (an NBSVM of a 20NG
    bigram vocabulary: a 409 MB file) the whole file was read and its checksum computed
    twice. Now its header says which load to make, and the arrays are read once."""
    import nbayes.io._modelfile.reading as reading
    from nbayes import NBSVM, MultinomialNB

    spam, ham = spam_ham
    nbsvm = tmp_path / "nbsvm.nbayes"
    save(NBSVM().fit(spam + ham, ["spam"] * len(spam) + ["ham"] * len(ham)), nbsvm)
    table = tmp_path / "table.nbayes"
    save(MultinomialNB().fit([[1, 0], [0, 1]], ["a", "b"]), table)
    full_reads: list[str] = []
    original = reading._read_stream

    def counting(f: Any, size: int, name: str, *args: Any) -> Any:
        if not (args[1:] and args[1]):  # header_only
            full_reads.append(name)
        return original(f, size, name, *args)

    monkeypatch.setattr(reading, "_read_stream", counting)
    for path in (models["multinomial"], models["hashing"], nbsvm):
        full_reads.clear()
        assert _run(capsys, ["predict", str(path), "--text", "WIN a free prize"])[0] == 0
        assert len(full_reads) == 1, (path, full_reads)
    full_reads.clear()
    code, _, err = _run(capsys, ["explain", str(nbsvm), "free prize"])
    assert code == 0 and len(full_reads) == 1, err
    # the header is only a choice: a file damaged past its header is refused as before
    broken = tmp_path / "broken.nbayes"
    data = bytearray(nbsvm.read_bytes())
    data[-40] ^= 0xFF
    broken.write_bytes(bytes(data))
    code, out, err = _run(capsys, ["predict", str(broken), "--text", "hi"])
    assert code == 1 and not out and "checksum" in err, err
    from nbayes.io.persist import model_type

    assert model_type(broken) == "NBSVM" and model_type(table) == "MultinomialNB"
    assert model_type(models["multinomial"]) == "TextClassifier"


def test_model_type_refuses_what_is_not_a_model_file(tmp_path: Path) -> None:
    from nbayes import ModelFileError
    from nbayes.io.persist import model_type

    not_model = tmp_path / "notes.txt"
    not_model.write_text("hello\n", encoding="utf-8")
    with pytest.raises(ModelFileError, match="not an nbayes model file"):
        model_type(not_model)
    with pytest.raises(ModelFileError, match="does not exist"):
        model_type(tmp_path / "absent.nbayes")


def _python(code: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SRC) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )


_IMPORTS = """
import json, sys
from nbayes.cli import main
code = main({argv!r})
heavy = {{"sklearn", "scipy", "pandas", "numba"}}
loaded = sorted({{m.split(".")[0] for m in sys.modules}} & heavy)
print(json.dumps({{"code": code, "loaded": loaded}}))
"""


@pytest.mark.parametrize(
    "argv",
    [
        ["predict", "{model}", "--text", "WIN a free prize"],
        ["predict", "{model}", "--text", "WIN a free prize", "--top", "2", "--format", "jsonl"],
        ["predict", "{model}", "--text", "free", "--text", "lunch today", "--proba"],
        ["predict", "{model}", "{csv}"],
        ["explain", "{model}", "WIN a free prize", "--exact"],
        ["-h"],
        ["predict", "-h"],
    ],
)
def test_predicting_imports_no_scikit_learn_scipy_or_pandas(
    models: dict[str, Path], argv: list[str]
) -> None:
    argv = [a.format(model=models["multinomial"], csv=models["csv"]) for a in argv]
    proc = _python(_IMPORTS.format(argv=argv))
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.splitlines()[-1])
    assert report["code"] == 0, proc.stdout
    loaded = set(report["loaded"])
    # the compiled kernels of this tree may be numba's, and numba imports scipy itself
    if "numba" in loaded:
        loaded.discard("scipy")
    assert not loaded & {"sklearn", "scipy", "pandas"}, report
    if argv[0] == "predict" and len(argv) == 4 and argv[2] == "--text":
        assert "numba" not in loaded  # one document: no compiled kernel at all


def test_the_help_lists_every_command_without_importing_it() -> None:
    code = (
        "import sys\n"
        "from nbayes.cli import COMMANDS, main\n"
        "main(['-h'])\n"
        "print(sorted(m for m in sys.modules if m.startswith('nbayes.cli.')))\n"
    )
    proc = _python(code)
    assert proc.returncode == 0, proc.stderr
    *help_lines, modules = proc.stdout.splitlines()
    assert modules == (
        "['nbayes.cli._common', 'nbayes.cli._interrupt', 'nbayes.cli._parser', 'nbayes.cli._ui']"
    )
    from nbayes.cli import COMMANDS, build_parser

    for command in COMMANDS:
        assert any(line.split()[:1] == [command] for line in help_lines), command
    # the listing equals that of the parser with every command's module imported
    full = build_parser().format_help()
    lean = build_parser(commands=()).format_help()
    assert full == lean
