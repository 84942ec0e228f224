"""What a new user meets in the first hour (issue 28): the commands' start-up cost (no
scikit-learn, scipy or pandas for a text model) and the small traps of the command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

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
