"""CLI tests of mixed and kernel models, ``tune``, ``plot`` and training on Dask."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from nbayes.cli import main
from nbayes.io.persist import load

from .conftest import HAM, SPAM, assert_error, assert_usage_error, run, write_csv

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def table_csv(tmp_path: Path) -> Path:
    rng = np.random.default_rng(0)
    rows = []
    for i in range(24):
        young = i % 2 == 0
        age = "" if i == 5 else f"{rng.normal(25 if young else 60, 4):.1f}"
        city = rng.choice(["paris", "lyon"] if young else ["nice", "lyon"])
        note = " ".join(rng.choice(["free", "online", "games", "now"] if young else
                                   ["paper", "garden", "daily", "walk"], 4))  # fmt: skip
        rows.append([age, city, note, "young" if young else "old"])
    return write_csv(tmp_path / "people.csv", ["age", "city", "note", "y"], rows)


@pytest.fixture
def mixed_model(tmp_path: Path, table_csv: Path) -> Path:
    out = tmp_path / "people.nbayes"
    code = main(["train", str(table_csv), "-o", str(out), "--label-col", "y", "--model", "mixed",
                 "--columns", "age=kde", "-q"])  # fmt: skip
    assert code == 0
    return out


@pytest.fixture
def sms_csv(tmp_path: Path) -> Path:
    rows = [[t, "spam"] for t in SPAM * 3] + [[t, "ham"] for t in HAM * 3]
    return write_csv(tmp_path / "sms.csv", ["text", "label"], rows)


# --------------------------------------------------------------------------- mixed/kernel


def test_train_mixed_and_use_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, table_csv: Path, mixed_model: Path
) -> None:
    model = load(mixed_model)
    assert model.families_ == {"age": "kde", "city": "categorical", "note": "text"}
    code, out, err = run(capsys, "info", mixed_model)
    assert code == 0
    assert "model: MixedNB" in out and "columns: 3 (family, why)" in out
    assert "age   kde" in out and "given in columns=" in out and "note  text" in out
    code, out, _ = run(capsys, "predict", mixed_model, table_csv, "--label-col", "y")
    assert code == 0 and out.splitlines()[0] == "row,prediction"
    code, out, _ = run(capsys, "eval", mixed_model, table_csv, "--label-col", "y", "--json")
    assert code == 0 and json.loads(out)["accuracy"] > 0.9
    code, out, _ = run(capsys, "sample", mixed_model, "-n", "3", "--seed", "0")
    assert code == 0 and out.splitlines()[0] == "label,age,city,note"
    code, out, _ = run(capsys, "explain", mixed_model, table_csv, "--label-col", "y", "--row", "1")
    assert code == 0 and "posterior" in out
    code, _, err = run(capsys, "update", mixed_model, table_csv, "--label-col", "y")
    assert code == 0 and "old 24, young 24" in err
    code, _, err = run(capsys, "forget", mixed_model, table_csv, "--label-col", "y")
    assert code == 0 and "old 12, young 12" in err


def test_train_mixed_infers_families(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, table_csv: Path
) -> None:
    out = tmp_path / "m.nbayes"
    code, _, err = run(capsys, "train", table_csv, "-o", out, "--label-col", "y", "--model",
                       "mixed", "--alpha", "0.5")  # fmt: skip
    assert code == 0
    assert "Column families: age: gaussian, city: categorical, note: text" in err
    assert load(out).alpha == 0.5


def test_update_refuses_data_that_would_change_a_column_family(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # codes 0-5, then a 60: all the rows are counts, not the categories the model has
    first = write_csv(tmp_path / "a.csv", ["n", "y"],
                      [[str(i % 6), "ab"[i % 2]] for i in range(12)])  # fmt: skip
    later = write_csv(tmp_path / "b.csv", ["n", "y"], [["60", "a"], ["1", "b"]])
    model = tmp_path / "m.nbayes"
    assert main(["train", str(first), "-o", str(model), "--label-col", "y", "--model", "mixed",
                 "-q"]) == 0  # fmt: skip
    before = model.read_bytes()
    code, _, err = run(capsys, "update", model, later, "--label-col", "y")
    assert_error(code, err, "'n' poisson, not categorical")
    assert "Nothing was changed" in err and "--columns n=poisson" in err
    assert model.read_bytes() == before
    # named, the families take any such rows
    assert main(["train", str(first), "-o", str(model), "--label-col", "y", "--model", "mixed",
                 "--columns", "n=poisson", "-q"]) == 0  # fmt: skip
    code, _, err = run(capsys, "update", model, later, "--label-col", "y")
    assert code == 0 and "a 7, b 7" in err


def test_table_errors_name_the_file_and_row(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # "Input X contains NaN in column(s) 'b'" and "Row 9 has no label" named neither the
    # file nor, with several files, which one (a data engineer's trial)
    import pandas as pd

    ok = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "b": [0.5, 1.5, 2.5, 3.5], "y": list("xyxy")})
    ok.to_parquet(tmp_path / "ok.parquet")
    holes = ok.copy()
    holes.loc[2, "b"] = None
    holes.to_parquet(tmp_path / "holes.parquet")
    unlabelled = ok.copy().astype({"y": object})
    unlabelled.loc[3, "y"] = None
    unlabelled.to_parquet(tmp_path / "unlabelled.parquet")
    out = tmp_path / "m.nbayes"
    for data, said in [
        ("holes.parquet", "holes.parquet, row 2, column 'b': is empty (a missing value). "),
        ("unlabelled.parquet", "unlabelled.parquet, row 3: no label (column 'y'). Fill it, or "
                               "pass --bad-rows skip"),
    ]:  # fmt: skip
        code, _, err = run(capsys, "train", tmp_path / "ok.parquet", tmp_path / data, "-o", out,
                           "--model", "gaussian", "--label-col", "y")  # fmt: skip
        assert_error(code, err, f"{tmp_path / said}")
    code, _, err = run(capsys, "train", tmp_path / "ok.parquet", tmp_path / "holes.parquet",
                       "-o", out, "--model", "gaussian", "--label-col", "y", "--bad-rows",
                       "skip")  # fmt: skip
    assert code == 0 and "Skipped 1 bad row" in err and "a missing value (column 'b')" in err
    assert load(out).class_count_.sum() == 7


def test_train_mixed_parquet(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, table_csv: Path
) -> None:
    import pandas as pd

    path = tmp_path / "people.parquet"
    pd.read_csv(table_csv).to_parquet(path)
    out = tmp_path / "p.nbayes"
    code, _, _ = run(capsys, "train", path, "-o", out, "--label-col", "y", "--model", "mixed")
    assert code == 0 and load(out).families_["note"] == "text"


def test_train_kernel(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rows = [[f"{v:.2f}", f"{v * 2:.2f}", "a" if v < 5 else "b"] for v in np.linspace(0, 10, 30)]
    data = write_csv(tmp_path / "k.csv", ["u", "v", "label"], rows)
    out = tmp_path / "k.nbayes"
    code, _, err = run(capsys, "train", data, "-o", out, "--model", "kernel", "--max-points", "8",
                       "--bandwidth", "silverman")  # fmt: skip
    assert code == 0 and "Trained KernelNB on 30 rows, 2 features" in err
    model = load(out)
    assert model.bandwidth == "silverman" and model.max_points == 8
    code, out_text, _ = run(capsys, "info", out)
    assert "stored points: 12 (u 6, v 6)" in out_text
    assert "binned: u (bin width 2), v (bin width 4)" in out_text
    code, out_text, _ = run(capsys, "eval", out, data, "--json")
    assert code == 0 and json.loads(out_text)["accuracy"] > 0.9


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        (["--columns", "age"], "--columns must look like"),
        (["--columns", "age=lognormal"], "unknown family 'lognormal'"),
        (["--columns", "age=kde,age=gaussian"], "twice"),
        (["--columns", "height=kde"], "height"),
        (["--bandwidth", "wide"], "--bandwidth must be"),
        (["--max-points", "5"], "--max-points applies to --model kernel"),
        (["--binary"], "text models only"),
    ],
)
def test_mixed_option_errors(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, table_csv: Path, extra: list[str],
    fragment: str,
) -> None:  # fmt: skip
    code, _, err = run(capsys, "train", table_csv, "-o", tmp_path / "m.nbayes", "--label-col", "y",
                       "--model", "mixed", *extra)  # fmt: skip
    assert_error(code, err, fragment)


def test_table_options_refused_for_text(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, sms_csv: Path
) -> None:
    code, _, err = run(capsys, "train", sms_csv, "-o", tmp_path / "m", "--columns", "a=kde")
    assert_error(code, err, "--columns applies to table models")
    code, _, err = run(capsys, "train", sms_csv, "-o", tmp_path / "m", "--model", "kernel",
                       "--alpha", "1")  # fmt: skip
    assert_error(code, err, "--alpha does not apply to --model kernel")


# ----------------------------------------------------------------------------------- tune


def test_tune_text_table_and_save(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, sms_csv: Path
) -> None:
    best = tmp_path / "best.nbayes"
    code, out, err = run(capsys, "tune", sms_csv, "--folds", "3", "--alpha", "0.1,1",
                         "--ngrams", "1-1,1-2", "--min-df", "1,2", "--save", best)  # fmt: skip
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "3-fold cross-validation on 27 examples (accuracy):"
    assert lines[1].split() == ["setting", "mean", "accuracy", "std", "rank"]
    assert len(lines) == 2 + 8 + 1 and lines[-1].startswith("best: alpha=")
    assert "alpha=1, min_df=2, ngram_range=1-2" in out
    model = load(best)
    assert type(model).__name__ == "TextClassifier" and f"saved to {best}" in err


def test_tune_json_matches_nbsearchcv(capsys: pytest.CaptureFixture[str], sms_csv: Path) -> None:
    from sklearn.model_selection import StratifiedKFold

    from nbayes.io.readers import read_texts
    from nbayes.model_selection import NBSearchCV
    from nbayes.text import TextClassifier

    code, out, _ = run(capsys, "tune", sms_csv, "--folds", "3", "--alpha", "0.1,1", "--binary",
                       "--model", "bernoulli", "--scoring", "f1_macro", "--json")  # fmt: skip
    assert code == 0
    result = json.loads(out)
    assert result["scoring"] == "f1_macro" and result["saved"] is None
    assert [r["params"] for r in result["results"]] == [{"alpha": 0.1}, {"alpha": 1.0}]
    texts, labels = [], []
    for chunk in read_texts([str(sms_csv)], "text", "label"):
        texts += chunk.texts
        labels += chunk.labels
    search = NBSearchCV(
        TextClassifier(model="bernoulli", binary=True), {"alpha": [0.1, 1.0]},
        cv=StratifiedKFold(3, shuffle=True, random_state=0), scoring="f1_macro",
    ).fit(texts, np.asarray(labels))  # fmt: skip
    assert [r["mean"] for r in result["results"]] == search.cv_results_["mean_test_score"].tolist()
    assert result["best_params"] == search.best_params_


def test_tune_tables(capsys: pytest.CaptureFixture[str], tmp_path: Path, table_csv: Path) -> None:
    code, out, err = run(capsys, "tune", table_csv, "--model", "mixed", "--label-col", "y",
                         "--folds", "3", "--alpha", "0.5,1", "--bandwidth", "scott,2",
                         "--columns", "age=kde", "--save", tmp_path / "t.nbayes")  # fmt: skip
    assert code == 0, err
    assert "alpha=0.5, bandwidth=2" in out and "best:" in out
    assert load(tmp_path / "t.nbayes").families_["age"] == "kde"
    rows = [[f"{v:.2f}", "a" if v < 5 else "b"] for v in np.linspace(0, 10, 20)]
    data = write_csv(tmp_path / "g.csv", ["x", "label"], rows)
    code, out, _ = run(capsys, "tune", data, "--model", "gaussian", "--folds", "4",
                       "--var-smoothing", "1e-9,0.1", "--json")  # fmt: skip
    assert code == 0 and len(json.loads(out)["results"]) == 2


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--alpha", "x"], "comma-separated numbers"),
        (["--alpha", "-1"], ">= 0"),
        (["--folds", "50"], "smallest class"),
        (["--scoring", "bogus"], "Unknown --scoring"),
        (["--ngrams", "3-1"], "--ngrams"),
        (["--min-df", "0"], "--min-df"),
        (["--bandwidth", "scott"], "applies to table models"),
        (["--model", "gaussian", "--alpha", "1"], "does not apply"),
        (["--c", "1"], "--c applies to --model nbsvm only"),
        (["--model", "nbsvm", "--c", "-1"], "--c must be a number > 0"),
        (["--model", "nbsvm", "--beta", "2"], "--beta must be"),
        (["--model", "nbsvm", "--binary"], "--binary does not apply to --model nbsvm"),
    ],
)
def test_tune_errors(
    capsys: pytest.CaptureFixture[str], sms_csv: Path, argv: list[str], fragment: str
) -> None:
    code, _, err = run(capsys, "tune", sms_csv, *argv)
    assert_error(code, err, fragment)


def test_tune_folds_below_two_is_a_bad_argument(
    capsys: pytest.CaptureFixture[str], sms_csv: Path
) -> None:
    code, _, err = run(capsys, "tune", sms_csv, "--folds", "1")
    assert_usage_error(code, err, "argument --folds: must be >= 2")


def test_tune_bad_arguments_exit_2(capsys: pytest.CaptureFixture[str], sms_csv: Path) -> None:
    assert run(capsys, "tune", sms_csv, "--folds", "two")[0] == 2
    assert run(capsys, "plot", "m.nbayes", "-o", "x.png")[0] == 2  # --column or --confusion
    assert run(capsys, "train", sms_csv, "-o", "m", "--workers", "2", "--dask-scheduler",
               "tcp://x:1")[0] == 2  # fmt: skip


# ----------------------------------------------------------------------------------- plot


def test_plot_column_and_confusion(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, table_csv: Path, mixed_model: Path
) -> None:
    pytest.importorskip("matplotlib")
    for column in ("age", "city", "note"):
        png = tmp_path / f"{column}.png"
        code, _, err = run(capsys, "plot", mixed_model, "--column", column, "-o", png)
        assert code == 0, err
        assert png.read_bytes()[:8] == PNG
    svg = tmp_path / "cm.svg"
    code, _, err = run(capsys, "plot", mixed_model, "--confusion", table_csv, "--label-col", "y",
                       "-o", svg, "--normalize")  # fmt: skip
    assert code == 0 and "confusion matrix" in err
    assert b"<svg" in svg.read_bytes()[:1000]


def test_plot_text_confusion_and_errors(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, sms_csv: Path, mixed_model: Path
) -> None:
    pytest.importorskip("matplotlib")
    text_model = tmp_path / "sms.nbayes"
    assert main(["train", str(sms_csv), "-o", str(text_model), "-q"]) == 0
    png = tmp_path / "cm.png"
    code, _, _ = run(capsys, "plot", text_model, "--confusion", sms_csv, "-o", png)
    assert code == 0 and png.read_bytes()[:8] == PNG
    code, _, err = run(capsys, "plot", text_model, "--column", "free", "-o", png)
    assert_error(code, err, "--column draws a column of a table model")
    code, _, err = run(capsys, "plot", mixed_model, "--column", "height", "-o", png)
    assert_error(code, err, "no column 'height'")
    code, _, err = run(capsys, "plot", mixed_model, "--column", "age", "-o", tmp_path / "x.bmpx")
    assert_error(code, err, "Cannot write")
    code, _, err = run(capsys, "plot", mixed_model, "--column", "age", "-o", "/no/such/dir/a.png")
    assert_error(code, err, "does not exist")


# ----------------------------------------------------------------------------------- dask


def test_dask_missing_is_one_error_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, sms_csv: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.setitem(sys.modules, "distributed", None)
    code, _, err = run(capsys, "train", sms_csv, "-o", tmp_path / "m", "--workers", "2")
    assert_error(code, err, "pip install 'nbayes[dask]'")


def test_dask_local_scheduler_equals_one_process(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, sms_csv: Path, table_csv: Path
) -> None:
    pytest.importorskip("distributed")
    plain, dist = tmp_path / "plain.nbayes", tmp_path / "dask.nbayes"
    assert main(["train", str(sms_csv), "-o", str(plain), "-q"]) == 0
    code, _, err = run(capsys, "train", sms_csv, "-o", dist, "--dask-scheduler", "sync")
    assert code == 0, err
    a, b = load(plain), load(dist)
    assert list(a.get_feature_names_out()) == list(b.get_feature_names_out())
    np.testing.assert_array_equal(a._stats.counts.feature_count, b._stats.counts.feature_count)
    # byte for byte: the classes were stored as objects (pandas' strings), not as str
    assert plain.read_bytes() == dist.read_bytes()
    code, _, err = run(capsys, "train", table_csv, "-o", dist, "--label-col", "y", "--model",
                       "gaussian", "--dask-scheduler", "sync", "-q")  # fmt: skip
    assert_error(code, err, "could not convert string to float: 'lyon'")
    code, _, err = run(capsys, "train", tmp_path / "none*.csv", "-o", dist, "--dask-scheduler",
                       "sync")  # fmt: skip
    assert_error(code, err, "No such file")
    code, _, err = run(capsys, "train", sms_csv, "-o", dist, "--workers", "0")
    assert_usage_error(code, err, "argument --workers: must be >= 1")


@pytest.mark.slow
def test_dask_workers_local_cluster(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, table_csv: Path
) -> None:
    pytest.importorskip("distributed")
    out = tmp_path / "d.nbayes"
    code, _, err = run(capsys, "train", table_csv, "-o", out, "--label-col", "y", "--model",
                       "mixed", "--workers", "2")  # fmt: skip
    assert code == 0, err
    assert "local cluster of 2 workers" in err
    import pandas as pd

    from nbayes.mixed import MixedNB

    df = pd.read_csv(table_csv)
    ref = MixedNB().fit(df.drop(columns=["y"]), df["y"])
    got: Any = load(out)
    assert got.families_ == ref.families_
    np.testing.assert_allclose(
        got.predict_joint_log_proba(df.drop(columns=["y"])),
        ref.predict_joint_log_proba(df.drop(columns=["y"])), rtol=1e-12,
    )  # fmt: skip


def test_tune_nbsvm_and_save(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, sms_csv: Path
) -> None:
    """--model nbsvm tunes NBSVM (C, beta, alpha) by NBSearchCV and saves the best one."""
    best = tmp_path / "svm.nbayes"
    code, out, err = run(capsys, "tune", sms_csv, "--model", "nbsvm", "--folds", "3",
                         "--c", "0.1,1", "--beta", "0.25,1", "--save", best)  # fmt: skip
    assert code == 0, err
    assert len(out.splitlines()) == 2 + 4 + 1 and "C=0.1, beta=0.25" in out
    model = load(best)
    assert type(model).__name__ == "NBSVM"
    assert (model.C, model.beta) in {(c, b) for c in (0.1, 1.0) for b in (0.25, 1.0)}


def test_train_takes_every_setting_tune_searches(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, sms_csv: Path
) -> None:
    """What ``tune`` finds best, ``train`` can train: ``--var-smoothing`` (gaussian, mixed),
    ``--c`` and ``--beta`` (nbsvm); the file is the one ``tune --save`` writes of that one
    setting (a user's trial: tune searched flags train did not have)."""
    rows = [[f"{v:.2f}", "a" if v < 5 else "b"] for v in np.linspace(0, 10, 20)]
    data = write_csv(tmp_path / "g.csv", ["x", "label"], rows)
    tuned, trained = tmp_path / "tuned.nbayes", tmp_path / "trained.nbayes"
    assert run(capsys, "tune", data, "--model", "gaussian", "--folds", "4",
               "--var-smoothing", "0.5", "--save", tuned)[0] == 0  # fmt: skip
    code, _, err = run(capsys, "train", data, "--model", "gaussian", "--var-smoothing", "0.5",
                       "-o", trained)  # fmt: skip
    assert code == 0, err
    assert tuned.read_bytes() == trained.read_bytes()
    assert load(trained).var_smoothing == 0.5
    mixed = tmp_path / "mixed.nbayes"
    assert run(capsys, "train", data, "--model", "mixed", "--var-smoothing", "0.25",
               "-o", mixed)[0] == 0  # fmt: skip
    assert load(mixed).var_smoothing == 0.25
    svm = tmp_path / "svm.nbayes"
    code, _, err = run(capsys, "train", sms_csv, "--model", "nbsvm", "--c", "0.5",
                       "--beta", "0.75", "-o", svm)  # fmt: skip
    assert code == 0, err
    model: Any = load(svm)
    assert (model.C, model.beta) == (0.5, 0.75)


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--model", "gaussian", "--input", "table", "--var-smoothing", "-1"],
         "--var-smoothing must be a number >= 0; got -1.0"),
        (["--model", "poisson", "--input", "table", "--var-smoothing", "1"],
         "--var-smoothing applies to --model gaussian and mixed only"),
        (["--var-smoothing", "1"], "--var-smoothing applies to table models (gaussian, mixed)"),
        (["--c", "1"], "--c applies to --model nbsvm only"),
        (["--model", "gaussian", "--input", "table", "--beta", "1"],
         "--beta applies to --model nbsvm only"),
        (["--model", "nbsvm", "--c", "0"], "--c must be a number > 0; got 0.0"),
        (["--model", "nbsvm", "--beta", "2"], "--beta must be a number from 0 to 1"),
        (["--model", "spam", "--c", "1"], "--c does not apply to --model spam"),
    ],
)  # fmt: skip
def test_train_setting_flags_errors(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, sms_csv: Path, argv: list[str],
    fragment: str,
) -> None:  # fmt: skip
    numbers = write_csv(tmp_path / "n.csv", ["x", "label"], [["1", "a"], ["2", "b"]])
    data = numbers if "table" in argv else sms_csv
    code, _, err = run(capsys, "train", data, "-o", tmp_path / "m.nbayes", *argv)
    assert_error(code, err, fragment)
    assert not (tmp_path / "m.nbayes").exists()


@pytest.mark.parametrize(
    ("broken", "fragment"),
    [
        ("dask", "need Dask: pip install 'nbayes[dask]'"),  # not installed
        ("dask.dataframe", "installed but does not import here (pyarrow requires NumPy 2.0"),
    ],
)
def test_train_on_dask_says_whether_dask_is_missing_or_broken(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    table_csv: Path,
    tmp_path: Path,
    broken: str,
    fragment: str,
) -> None:
    # numpy 1.26 with pyarrow 25: Dask was installed, and the CLI said to install it
    import builtins

    real = builtins.__import__

    def refusing(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == broken and broken == "dask":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        if name == broken:
            raise ImportError("pyarrow requires NumPy 2.0 or newer, found 1.26.4")
        return real(name, *args, **kwargs)

    for name in [m for m in sys.modules if m == "dask" or m.startswith("dask.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(builtins, "__import__", refusing)
    code = main(["train", str(table_csv), "-o", str(tmp_path / "m.nbayes"), "--workers", "2"])
    assert_error(code, capsys.readouterr().err, fragment)


def test_a_json_lines_table_s_line_that_is_no_object_is_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A line [1, 2] or 5 in a JSON-lines table gave pandas' words ("'int' object is not
    iterable"); the text reader named the line (a fuzz)."""
    table = tmp_path / "t.jsonl"
    table.write_text('{"a": 1, "b": 2, "y": "x"}\n[1, 2]\n{"a": 3, "b": 4, "y": "z"}\n')
    code, _, err = run(capsys, "train", table, "-o", tmp_path / "m.nbayes", "--model", "gaussian",
                       "--label-col", "y")  # fmt: skip
    assert_error(code, err, "t.jsonl, line 2: expected a JSON object, got list. Pass --bad-rows "
                            "skip")  # fmt: skip


def test_data_format_names_a_table_s_format(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """--data-format was ignored for tables (read by their extension, standard input as
    CSV): it names the format of a file of another extension; one it cannot read is said."""
    table = tmp_path / "t.txt"
    table.write_text('{"a": 1, "b": 2, "y": "x"}\n{"a": 3, "b": 4, "y": "z"}\n')
    out = tmp_path / "m.nbayes"
    code, _, err = run(capsys, "train", table, "-o", out, "--model", "gaussian", "--label-col",
                       "y", "--data-format", "jsonl")  # fmt: skip
    assert code == 0, err
    code, _, err = run(capsys, "train", table, "-o", out, "--model", "gaussian", "--label-col",
                       "y", "--data-format", "lines")  # fmt: skip
    assert_error(code, err, "--data-format lines is not a table's")


def test_sampled_counts_are_written_as_integers(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A Poisson model's (and a mixed model's count column's) samples were written 7.0: a
    round trip through `nbayes train --model mixed` read the column as gaussian (a fuzz)."""
    data = write_csv(tmp_path / "p.csv", ["a", "b", "y"], [[1, 2, "x"], [3, 0, "z"], [0, 5, "z"]])
    model = tmp_path / "p.nbayes"
    assert run(capsys, "train", data, "-o", model, "--model", "poisson", "--label-col", "y",
               "-q")[0] == 0  # fmt: skip
    code, out, _ = run(capsys, "sample", model, "-n", "5", "--seed", "0")
    assert code == 0 and "." not in out.split("\n", 1)[1]
    mixed = write_csv(tmp_path / "m.csv", ["x", "k", "y"],
                      [[0.5, 3, "a"], [1.5, 7, "b"], [0.7, 2, "a"], [2.5, 9, "b"]])  # fmt: skip
    assert run(capsys, "train", mixed, "-o", tmp_path / "m.nbayes", "--model", "mixed",
               "--label-col", "y", "-q")[0] == 0  # fmt: skip
    code, out, _ = run(capsys, "sample", tmp_path / "m.nbayes", "-n", "4", "--format", "jsonl")
    assert code == 0 and all(type(json.loads(line)["k"]) is int for line in out.splitlines())
