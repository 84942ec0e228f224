"""``nbayes train --model gaussian|categorical|mixed --workers N --bad-rows skip`` and
``fit_source(<estimator of a table>, ..., bad_rows="skip")``: the workers skip the rows one
process skips (a CSV line with more fields than the header, a JSON line that is not an
object, a row without a label, a cell that is not a number), in files cut into several
blocks, with the same note, and the model file is byte for byte the one of one process,
its columns typed as one process types each whole file. Before, the command line refused
``--bad-rows skip`` with ``--workers`` for tables, and ``fit_source`` refused
``bad_rows="skip"`` for estimators of a table.

(A Gaussian's moments merged from partitions equal those of one fit to the last bits only,
as ``nbd.fit`` documents: its files are compared byte for byte where the workers read one
partition, a gzip file; counts and categories merge exactly, in any number of blocks.)"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

from nbayes import GaussianNB  # noqa: E402
from nbayes import distributed as nbd  # noqa: E402
from nbayes.cli import main  # noqa: E402
from nbayes.distributed._bad_rows import read_blocks  # noqa: E402
from nbayes.exceptions import SkippedRowsWarning  # noqa: E402
from nbayes.io import read_table  # noqa: E402
from nbayes.io.persist import load  # noqa: E402
from nbayes.text.classifier import TextClassifier  # noqa: E402

#: small blocks: the bad rows fall in different partitions of a file
BLOCK = 3_000
N = 1200


@pytest.fixture(autouse=True)
def _small_blocks(monkeypatch: Any, tmp_path: Path) -> None:
    from nbayes.distributed import _read

    monkeypatch.setattr(_read, "_AUTO_BLOCKSIZE", BLOCK)
    monkeypatch.chdir(tmp_path)


def _table(model: str, seed: int = 0, n: int = N) -> pd.DataFrame:
    """Numbers, words (categorical), or words, counts and flags (mixed); labels 0 and 1."""
    rng = np.random.default_rng(seed)
    t = pd.DataFrame(rng.normal(size=(n, 3)).round(3), columns=["a", "b", "c"])
    if model == "categorical":
        codes = rng.integers(0, 5, size=(n, 3)).astype(str)
        t = pd.DataFrame(codes, columns=["a", "b", "c"]).radd("v")
    if model == "mixed":
        t = pd.DataFrame({
            "a": rng.choice(["red", "blue", "green"], n), "b": rng.integers(0, 30, n),
            "c": rng.choice([True, False], n),
        })  # fmt: skip
    t["y"] = rng.integers(0, 2, n)
    return t


def _write(path: Path, lines: list[str]) -> Path:
    data = ("\n".join(lines) + "\n").encode()
    path.write_bytes(gzip.compress(data) if path.suffix == ".gz" else data)
    return path


def _dirty_csv(path: Path, t: pd.DataFrame, model: str) -> Path:
    lines = t.to_csv(index=False).splitlines()
    lines[40] += ",extra"  # more fields than the header
    lines[500] = ",".join(lines[500].split(",")[:-1]) + ","  # no label
    if model == "gaussian":
        lines[900] = "oops," + lines[900].split(",", 1)[1]  # not a number
    if model == "mixed":  # the types of a column follow from the rows of every block:
        cells = [line.split(",") for line in lines]
        cells[1000][1] = "many"  # a word among the counts of a later block: words
        cells[200][2] = ""  # a flag missing: flags and missing values (objects)
        lines = [",".join(c) for c in cells]
    return _write(path, lines)


def _dirty_jsonl(path: Path, t: pd.DataFrame, model: str) -> Path:
    lines = t.to_json(orient="records", lines=True).splitlines()
    lines[40] = '{"a": 1.0, "b"'  # invalid JSON
    lines[300] = "[1, 2]"  # not an object
    # no label: the labels of the file are floats in one process (0.0 and 1.0)
    lines[700] = json.dumps({**json.loads(lines[700]), "y": None})
    if model == "gaussian":
        lines[1100] = json.dumps({**json.loads(lines[1100]), "c": "oops"})
    if model == "mixed":
        lines[200] = json.dumps({**json.loads(lines[200]), "c": None})
    return _write(path, lines)


@pytest.mark.parametrize("model", ["gaussian", "categorical", "mixed"])
@pytest.mark.parametrize("fmt", ["csv", "jsonl", "csv.gz", "jsonl.gz"])
def test_the_rows_and_the_model_file_of_one_process(
    model: str, fmt: str, capsys: Any, tmp_path: Path
) -> None:
    t = _table(model)
    path = tmp_path / f"d.{fmt}"
    (_dirty_jsonl if fmt.startswith("jsonl") else _dirty_csv)(path, t, model)
    blocks = read_blocks(str(path), "text", "y", {})
    assert len(blocks.raws) == 1 if fmt.endswith(".gz") else len(blocks.raws) >= 4
    errs, files = [], []
    for name, dask in (("one.nbayes", []), ("dask.nbayes", ["--dask-scheduler", "sync"])):
        code = main(["train", path.name, "-o", name, "--model", model, "--label-col", "y",
                     "--bad-rows", "skip", "-q", *dask])  # fmt: skip
        err = capsys.readouterr().err
        assert code == 0, err
        errs.append(err)
        files.append(Path(name).read_bytes())
    assert errs[0] == errs[1] and errs[0].startswith("Skipped ")
    if model != "gaussian" or fmt.endswith(".gz"):
        assert files[0] == files[1]
    else:
        _same_gaussian(load("one.nbayes"), load("dask.nbayes"))
    if fmt == "csv":
        named = {"gaussian": "d.csv row 898: 'oops' is not a number (column 'a')"}
        first = "Skipped 3 bad rows" if model == "gaussian" else "Skipped 2 bad rows"
        assert errs[0].startswith(
            f"{first} (d.csv line 41: 5 fields, the header has 4; d.csv row 498: no label"
        ), errs[0]
        assert named.get(model, "") in errs[0]
    if fmt == "jsonl":
        assert errs[0].startswith(
            "Skipped 4 bad rows (d.jsonl line 41: invalid JSON; d.jsonl line 301: not a JSON "
            "object; d.jsonl row 698: no label"
            if model == "gaussian"
            else "Skipped 3 bad rows (d.jsonl line 41: invalid JSON; d.jsonl line 301: not a "
            "JSON object; d.jsonl row 698: no label)."
        ), errs[0]
        assert load("dask.nbayes").classes_.tolist() == [0.0, 1.0]  # (as one process)


@pytest.mark.slow
def test_on_a_local_cluster(capsys: Any, tmp_path: Path) -> None:
    """--workers: the first read, for the columns' types, runs on the cluster too."""
    _dirty_jsonl(tmp_path / "d.jsonl", _table("mixed"), "mixed")
    errs, files = [], []
    for name, dask in (("one.nbayes", []), ("dask.nbayes", ["--workers", "2"])):
        code = main(["train", "d.jsonl", "-o", name, "--model", "mixed", "--label-col", "y",
                     "--bad-rows", "skip", "-q", *dask])  # fmt: skip
        errs.append(capsys.readouterr().err)
        assert code == 0, errs[-1]
        files.append(Path(name).read_bytes())
    assert errs[0] == errs[1] and files[0] == files[1]


def _same_gaussian(one: Any, dist: Any) -> None:
    np.testing.assert_array_equal(one.classes_, dist.classes_)
    np.testing.assert_array_equal(one.class_count_, dist.class_count_)
    np.testing.assert_allclose(dist.theta_, one.theta_, rtol=1e-12)
    np.testing.assert_allclose(dist.var_, one.var_, rtol=1e-12)


def test_several_files(capsys: Any, tmp_path: Path) -> None:
    """A glob of files: the bad rows named in each, in the order of one process."""
    for i in range(3):
        t = _table("gaussian", seed=i, n=1000)
        _dirty_csv(tmp_path / f"p{i}.csv", t, "gaussian")
    errs, models = [], []
    for name, dask in (("one.nbayes", []), ("dask.nbayes", ["--dask-scheduler", "sync"])):
        code = main(["train", "p0.csv", "p1.csv", "p2.csv", "-o", name, "--model", "gaussian",
                     "--label-col", "y", "--bad-rows", "skip", *dask])  # fmt: skip
        err = capsys.readouterr().err
        assert code == 0, err
        errs.append(err.splitlines()[-1])
        models.append(load(name))
    assert errs[0] == errs[1] and errs[0].startswith(
        "Skipped 9 bad rows (p0.csv line 41: 5 fields, the header has 4; p1.csv line 41: "
    ), errs
    _same_gaussian(*models)


def test_parquet_files(capsys: Any, tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    for i in range(2):
        t = _table("categorical", seed=i, n=200).astype({"y": object})
        t.loc[50 + i, "y"] = None
        t.to_parquet(tmp_path / f"p{i}.parquet")
    errs, files = [], []
    for name, dask in (("one.nbayes", []), ("dask.nbayes", ["--dask-scheduler", "sync"])):
        code = main(["train", "p0.parquet", "p1.parquet", "-o", name, "--model",
                     "categorical", "--label-col", "y", "--bad-rows", "skip", "-q",
                     *dask])  # fmt: skip
        errs.append(capsys.readouterr().err)
        assert code == 0, errs[-1]
        files.append(Path(name).read_bytes())
    note = "Skipped 2 bad rows (p0.parquet row 50: no label; p1.parquet row 51: no label).\n"
    assert errs[0] == errs[1] == note
    assert files[0] == files[1]


def test_every_row_bad_is_the_error_of_one_process(capsys: Any, tmp_path: Path) -> None:
    lines = ["a,b,y"] + [f"{i},x{i}," for i in range(2000)]  # no labels
    _write(tmp_path / "bad.csv", lines)
    errs = []
    for dask in ([], ["--dask-scheduler", "sync"]):
        code = main(["train", "bad.csv", "-o", "m.nbayes", "--model", "gaussian",
                     "--label-col", "y", "--bad-rows", "skip", *dask])  # fmt: skip
        errs.append(capsys.readouterr().err.splitlines()[-1])
        assert code == 1
    error = "Error: No rows left: every row is bad. Skipped 2,000 bad rows (bad.csv row 0:"
    assert errs[0] == errs[1] and errs[0].startswith(error), errs


# ------------------------------------------------------------------ Python
def test_fit_source_skips_a_tables_rows_without_a_label(tmp_path: Path) -> None:
    """By default (TableRows()): the lines read_table cannot read, the rows without a
    label; the columns typed as pandas types the whole file."""
    t = _table("gaussian")
    path = _dirty_csv(tmp_path / "d.csv", t, "categorical")
    found: list[Any] = []
    dist = nbd.fit_source(GaussianNB(), str(path), label_col="y", scheduler="sync",
                          bad_rows="skip", on_bad_row=found.append, blocksize=BLOCK)  # fmt: skip
    assert [str(b) for b in found] == [
        "d.csv line 41: 5 fields, the header has 4", "d.csv row 498: no label",
    ]  # fmt: skip
    rows = pd.read_csv(path, on_bad_lines="skip").dropna(subset=["y"])
    single = GaussianNB().fit(rows.drop(columns="y"), rows["y"])
    np.testing.assert_array_equal(dist.classes_, single.classes_)
    np.testing.assert_allclose(dist.theta_, single.theta_, rtol=1e-12)
    assert single.classes_.tolist() == [0.0, 1.0]  # (a missing label: floats, in every block)


def test_table_rows_is_for_tables_that_skip(tmp_path: Path) -> None:
    path = _write(tmp_path / "d.csv", ["text,label", "free money,spam"])
    with pytest.raises(ValueError, match=r"table_rows applies with bad_rows='skip' to "
                       "estimators of a table"):  # fmt: skip
        nbd.fit_source(TextClassifier(), str(path), scheduler="sync", bad_rows="skip",
                       table_rows=nbd.TableRows())  # fmt: skip


# ------------------------------------------------------------------ columns across blocks
def _one_and_dask(files: list[str], model: str, capsys: Any) -> tuple[list[str], list[bytes]]:
    """Train in this process and on Dask (the sync scheduler): the notes and model files."""
    errs, out = [], []
    for name, dask in (("one.nbayes", []), ("dask.nbayes", ["--dask-scheduler", "sync"])):
        code = main(["train", *files, "-o", name, "--model", model, "--label-col", "y",
                     "--bad-rows", "skip", "-q", *dask])  # fmt: skip
        errs.append(capsys.readouterr().err)
        assert code == 0, errs[-1]
        out.append(Path(name).read_bytes())
    return errs, out


@pytest.mark.parametrize("model", ["gaussian", "categorical", "mixed"])
def test_json_lines_whose_keys_come_in_another_order(
    model: str, capsys: Any, tmp_path: Path
) -> None:
    """Later rows with the keys in another order: the columns of one process (the order
    of the first row), in every block. Before, the workers' models had the features in
    another order, and did not merge."""
    lines = _table(model).to_json(orient="records", lines=True).splitlines()
    for i in range(700, N):
        row = json.loads(lines[i])
        lines[i] = json.dumps({k: row[k] for k in reversed(row)})
    lines[40], lines[300] = '{"a": 1.0, "b"', "[1, 2]"
    _write(tmp_path / "d.jsonl", lines)
    assert len(read_blocks("d.jsonl", "text", "y", {}).raws) >= 4
    errs, files = _one_and_dask(["d.jsonl"], model, capsys)
    assert errs[0] == errs[1] and errs[0].startswith("Skipped 2 bad rows"), errs
    assert load("one.nbayes").feature_names_in_.tolist() == ["a", "b", "c"]
    if model == "gaussian":
        _same_gaussian(load("one.nbayes"), load("dask.nbayes"))
    else:
        assert files[0] == files[1]


@pytest.mark.parametrize("model", ["gaussian", "categorical", "mixed"])
def test_json_lines_with_a_key_only_in_later_rows(model: str, capsys: Any, tmp_path: Path) -> None:
    """A key only in the last rows (and a row without the label's key in the first
    block): one process's column, missing in the earlier rows, of the type of the whole
    file (mixed: integers and missing cells, floats), in every block. Before, the workers'
    models had other columns (mixed: "different columns or families")."""
    lines = _table(model).to_json(orient="records", lines=True).splitlines()
    for i in range(1000, N):
        value = f"w{i % 3}" if model == "categorical" else i % 3
        lines[i] = json.dumps({**json.loads(lines[i]), "d": value})
    lines[5] = json.dumps({k: v for k, v in json.loads(lines[5]).items() if k != "y"})
    lines[40] = "{bad"
    _write(tmp_path / "d.jsonl", lines)
    assert len(read_blocks("d.jsonl", "text", "y", {}).raws) >= 4
    if model == "gaussian":  # a numeric model's missing cells are bad rows: skipped alike
        errs, files = _one_and_dask(["d.jsonl"], model, capsys)
        assert errs[0] == errs[1] and errs[0].startswith("Skipped 1,00"), errs
        assert "a missing value (column 'd')" in errs[0]
        _same_gaussian(load("one.nbayes"), load("dask.nbayes"))
        assert load("one.nbayes").class_count_.sum() < N - 999  # (the rows without "d")
        return
    if model != "mixed":  # (missing cells: refused either way; on Dask, a file's row named)
        errs = []
        for dask in ([], ["--dask-scheduler", "sync"]):
            code = main(["train", "d.jsonl", "-o", "m.nbayes", "--model", model,
                         "--label-col", "y", "--bad-rows", "skip", *dask])  # fmt: skip
            errs.append(capsys.readouterr().err.splitlines()[-1])
            assert code == 1
        reason = errs[0].removeprefix("Error: ")
        assert "NaN" in reason and re.fullmatch(
            rf"Error: d\.jsonl, row (\d+): {re.escape(reason)} Clean the data first\.", errs[1]
        ), errs  # (before: "Bad data in partition 9, row 0: ...")
        assert int(re.findall(r"row (\d+)", errs[1])[0]) < 999  # (a row without "d")
        return
    errs, files = _one_and_dask(["d.jsonl"], model, capsys)
    assert (
        errs[0]
        == errs[1]
        == ("Skipped 2 bad rows (d.jsonl line 41: invalid JSON; d.jsonl row 5: no label).\n")
    ), errs
    one, dist = load("one.nbayes"), load("dask.nbayes")
    assert one.feature_names_in_.tolist() == dist.feature_names_in_.tolist() == list("abcd")
    # (d's Gaussian moments, merged from blocks: equal to the last bits)
    assert dist.families_ == one.families_ and one.families_["d"] == "gaussian"
    assert dist.family_reasons_ == one.family_reasons_
    with pytest.warns(SkippedRowsWarning):
        X = read_table(tmp_path / "d.jsonl", "jsonl", bad_rows="skip").drop(columns="y")
    np.testing.assert_allclose(dist.predict_proba(X), one.predict_proba(X), rtol=1e-12)


def test_files_of_other_columns_are_refused_as_one_process_refuses_them(
    capsys: Any, tmp_path: Path
) -> None:
    _write(tmp_path / "p0.jsonl", [json.dumps({"a": 1, "y": 0})] * 3)
    _write(tmp_path / "p1.jsonl", [json.dumps({"b": 1, "y": 0})] * 3)
    errs = []
    for dask in ([], ["--dask-scheduler", "sync"]):
        code = main(["train", "p0.jsonl", "p1.jsonl", "-o", "m.nbayes", "--model", "mixed",
                     "--label-col", "y", "--bad-rows", "skip", *dask])  # fmt: skip
        errs.append(capsys.readouterr().err.splitlines()[-1])
        assert code == 1
    assert errs[0] == errs[1] and "every table must have the same columns" in errs[0], errs


# ------------------------------------------------------------------ Parquet files' types
@pytest.mark.parametrize("model", ["categorical", "mixed"])
def test_parquet_files_of_other_types_are_concatenated_as_pandas_does(
    model: str, capsys: Any, tmp_path: Path
) -> None:
    """Integers in one file, decimal numbers in another (and labels of integers, of
    floats with a missing one): the types of pandas' concat (floats), in every file.
    Before, the workers kept each file's own (categorical: int classes, where one
    process has floats; mixed: the models did not merge)."""
    pytest.importorskip("pyarrow")
    rng = np.random.default_rng(3)
    n = 100
    t1 = pd.DataFrame({"a": rng.integers(0, 9, n), "b": rng.choice(["u", "v"], n),
                       "y": rng.integers(0, 2, n)})  # fmt: skip
    t2 = pd.DataFrame({"a": rng.integers(0, 9, n) + 0.5, "b": rng.choice(["u", "v"], n),
                       "y": rng.integers(0, 2, n).astype(float)})  # fmt: skip
    t2.loc[5, "y"] = None
    t1.to_parquet(tmp_path / "p1.parquet")
    t2.to_parquet(tmp_path / "p2.parquet")
    errs, files = _one_and_dask(["p1.parquet", "p2.parquet"], model, capsys)
    assert errs[0] == errs[1] == "Skipped 1 bad row (p2.parquet row 5: no label).\n", errs
    one, dist = load("one.nbayes"), load("dask.nbayes")
    assert dist.classes_.tolist() == [0.0, 1.0] and dist.classes_.dtype == np.float64
    if model == "categorical":
        assert files[0] == files[1]
    else:  # (a's Gaussian moments, merged from two files: equal to the last bits)
        assert dist.families_ == one.families_ == {"a": "gaussian", "b": "categorical"}
        X = pd.concat([t1, t2]).drop(columns="y")
        np.testing.assert_allclose(dist.predict_proba(X), one.predict_proba(X), rtol=1e-12)


def test_partitions_of_other_families_are_told_the_cli_flag(capsys: Any) -> None:
    # a column of numbers in the first blocks and words in the last: each partition infers
    # its own families, and the merge's advice named MixedNB's Python argument, columns={...}
    rng = np.random.default_rng(3)
    size = rng.choice(["small", "large"], N).astype(object)
    size[: N // 2] = rng.integers(0, 9, N // 2).astype(str)
    t = pd.DataFrame({"a": rng.normal(size=N).round(3), "size": size, "y": rng.integers(0, 2, N)})
    t.to_csv("f.csv", index=False)
    code = main(["train", "f.csv", "--label", "y", "--model", "mixed", "-o", "m.nbm",
                 "--workers", "2"])  # fmt: skip
    err = capsys.readouterr().err
    assert code != 0 and "columns={" not in err and "dtype={" not in err
    assert "size (int64 in one block, str in another)" in err
    assert "--bad-rows skip" in err and "without --workers" in err
    # as advised: the workers type the columns from the whole file, as one process does
    assert main(["train", "f.csv", "--label", "y", "--model", "mixed", "-o", "one.nbm"]) == 0
    assert main(["train", "f.csv", "--label", "y", "--model", "mixed", "-o", "m.nbm",
                 "--workers", "2", "--bad-rows", "skip"]) == 0  # fmt: skip
    one, two = load("one.nbm"), load("m.nbm")
    assert one.families_ == two.families_ and (one.class_count_ == two.class_count_).all()


def test_partition_models_of_other_families_are_told_the_cli_flag() -> None:
    from nbayes.cli.train import _families_disagree
    from nbayes.exceptions import ColumnFamiliesError

    exc = ColumnFamiliesError("...", {"a": "gaussian", "n": "poisson"},
                              {"a": "gaussian", "n": "categorical"})  # fmt: skip
    said = _families_disagree(exc)
    assert "'n': poisson in one, categorical in another" in said
    assert "--columns n=poisson" in said and "columns={" not in said


def test_json_lines_of_keys_in_another_order_are_told_the_cli_flag(capsys: Any) -> None:
    # dask's own words named its metadata; --bad-rows skip reads such a file on the workers
    rows = [{"a": i / 7, "b": i % 5, "y": i % 2} for i in range(600)]
    lines = [json.dumps(r if i < 300 else {"b": r["b"], "a": r["a"], "y": r["y"]})
             for i, r in enumerate(rows)]  # fmt: skip
    _write(Path("k.jsonl"), lines)
    argv = ["train", "k.jsonl", "--label", "y", "--model", "gaussian", "-o", "k.nbm",
            "--workers", "2"]  # fmt: skip
    assert main(argv) != 0
    err = capsys.readouterr().err
    assert "in another order" in err and "['b', 'a', 'y']" in err and "metadata" not in err
    assert "--bad-rows skip" in err and "without --workers" in err
    assert main([*argv, "--bad-rows", "skip"]) == 0


def test_a_dask_fit_of_a_table_closes_as_one_process_does(capsys: Any) -> None:
    # the Dask run said "1200 rows" and no column families
    _table("mixed").to_csv("m.csv", index=False)
    base = ["train", "m.csv", "--label", "y", "--model", "mixed"]
    assert main([*base, "-o", "one.nbm"]) == 0
    one = capsys.readouterr().err
    assert main([*base, "-o", "two.nbm", "--workers", "2"]) == 0
    two = capsys.readouterr().err
    for said in (f"on {N:,} rows, 3 features", "Column families: a: categorical"):
        assert said in one and said in two
