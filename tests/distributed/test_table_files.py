"""``nbayes train FILES --model mixed|categorical|gaussian --workers N``: several table
files on Dask, read as one process reads them, with its model file and its errors.

* Strings are of pandas' own type: dask made them pyarrow's (missing: NA), and a MixedNB's
  file said "string" where one process's says "str" (pandas 3).
* A MixedNB merged from partitions gives its columns the families and reasons one process
  infers from all the rows (it kept the first partition's: "median 0 words" of a block
  without a value, where one process says 1); a column that all the rows would give
  another family (codes 0-9 in one file, 1-10 in another: 11 values, counts) is refused
  with the flag that fixes it (the model was silently another).
* A table's CSV (or Parquet) files of other columns, or in another order, are refused as one process
  refuses them, in its words (the workers read each file with its own header); the cells
  of an untyped table (gaussian, categorical) are strings, as one process reads them.
* Parquet files' columns are of the dtypes of pandas' concat of the files, as one process
  reads them (int32 and int64: int64; a column of nulls in one file and strings or integers
  in another: objects; a categorical column and strings: objects), with or without
  ``--bad-rows skip``, for more files than dask reads one by one too; a categorical model's
  cells are strings, as one process's.
* A bad row of more Parquet files than dask reads one by one (256) is named by its file and
  row, as for fewer (it was "Bad data in partition 270, row 3").

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
from nbayes.io.persist import load  # noqa: E402

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


# ------------------------------------------------------------------ 1. families' reasons
@pytest.mark.parametrize("skip", [[], ["--bad-rows", "skip"]])
def test_a_merged_mixed_model_says_why_as_one_process(skip: list[str], capsys: Any) -> None:
    """The first file: 3 codes, strings of 2 words; the second: 4 other codes, strings of
    1 word. Before, the merged model said "3 distinct values" and "median 2 words"."""
    _codes_and_words(0, 50, [0, 1, 2], ["a b", "c d"]).to_csv("p0.csv", index=False)
    _codes_and_words(1, 200, [3, 4, 5, 6], ["a", "c", "e"]).to_csv("p1.csv", index=False)
    errs, files = _one_and_dask(["p0.csv", "p1.csv"], capsys, "--model", "mixed", *skip)
    assert errs[0] == errs[1] and files[0] == files[1]
    assert load("dask.nbayes").family_reasons_ == {
        "c": "non-negative integers with 7 distinct values (<= 10), none above 10: codes",
        "s": "short strings (median 1 words)",
    }


def test_a_column_without_a_value_in_the_first_file(capsys: Any) -> None:
    """A column of strings missing from every row of the first Parquet file: its merged
    model said "median 0 words"."""
    pytest.importorskip("pyarrow")
    first = _codes_and_words(0, 40, [0, 1], ["a"])
    first["s"] = None
    first.to_parquet("p0.parquet")
    _codes_and_words(1, 40, [0, 1], ["u", "v w"]).to_parquet("p1.parquet")
    for skip in ([], ["--bad-rows", "skip"]):
        errs, files = _one_and_dask(["p0.parquet", "p1.parquet"], capsys, "--model", "mixed",
                                    *skip)  # fmt: skip
        assert errs[0] == errs[1] and files[0] == files[1], skip
        assert load("dask.nbayes").family_reasons_["s"] == "short strings (median 1 words)"


def test_a_column_all_rows_give_another_family_is_refused(capsys: Any) -> None:
    """Codes 0-9 in one file, 1-10 in the other: each partition infers categorical, one
    process (11 values) poisson. The Dask model was categorical, without a word."""
    rng = np.random.default_rng(0)
    for i in range(2):
        pd.DataFrame({"c": np.arange(50) % 10 + i,
                      "y": rng.integers(0, 2, 50)}).to_csv(f"p{i}.csv", index=False)  # fmt: skip
    errs, files = _one_and_dask(["p0.csv", "p1.csv"], capsys, "--model", "mixed", codes=(0, 1))
    assert load("one.nbayes").families_ == {"c": "poisson"} and files[1] is None
    assert errs[1].startswith(
        "Error: The workers' partitions read columns as other families than all the rows "
        "together ('c': categorical in each, poisson in all)"
    ), errs[1]
    assert "--columns c=poisson" in errs[1] and "columns={" not in errs[1]
    # as advised
    errs, files = _one_and_dask(["p0.csv", "p1.csv"], capsys, "--model", "mixed", "--columns",
                                "c=poisson")  # fmt: skip
    assert files[0] == files[1]


# ------------------------------------------------------------------ 2. the files' columns
def _numbers(seed: int, n: int = 30) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"a": rng.integers(0, 3, n), "b": rng.integers(0, 3, n),
                         "y": rng.integers(0, 2, n)})  # fmt: skip


@pytest.mark.parametrize("model", ["gaussian", "categorical", "mixed"])
@pytest.mark.parametrize("skip", [[], ["--bad-rows", "skip"]])
@pytest.mark.parametrize(
    ("columns", "said"),
    [
        (["b", "a", "y"], "its column 'b' is the 1st, in 'p0.csv' the 2nd"),
        (["a", "y", "b"], "its column 'y' is the 2nd, in 'p0.csv' the 3rd"),
        ({"b": "B"}, "its column 'B' is not in 'p0.csv', and it has no column 'b' (of 'p0.csv')"),
    ],
)
def test_files_of_other_columns_are_refused_as_one_process_refuses_them(
    model: str, skip: list[str], columns: Any, said: str, capsys: Any
) -> None:
    """Before, the workers of an untyped table (gaussian, categorical; and any table
    without --bad-rows skip) read each file with its own header: columns in another order
    or of other names stopped at the merge ("The models of partitions 0 and 1 do not
    merge"), and the labels in another column trained a model one process refuses."""
    _numbers(0).to_csv("p0.csv", index=False)
    other = _numbers(1)
    other = other.rename(columns=columns) if isinstance(columns, dict) else other[columns]
    other.to_csv("p1.csv", index=False)
    errs, _ = _one_and_dask(["p0.csv", "p1.csv"], capsys, "--model", model, *skip, codes=(1, 1))
    assert errs[0] == errs[1], errs
    assert errs[1] == (
        f"Error: The table 'p1.csv' has the columns {list(other.columns)}, but 'p0.csv' has "
        f"['a', 'b', 'y']: {said}; every table must have the same columns, in the same order "
        "(one table of all their rows): write 'p1.csv' with the columns of 'p0.csv', in their "
        "order, or train on the tables of each layout apart.\n"
    )


def test_fit_source_checks_the_columns_of_untyped_csv_files() -> None:
    from nbayes import GaussianNB
    from nbayes import distributed as nbd

    _numbers(0).to_csv("p0.csv", index=False)
    _numbers(1)[["a", "y", "b"]].to_csv("p1.csv", index=False)
    for rows in ({}, {"bad_rows": "skip", "table_rows": nbd.TableRows(typed=False)}):
        with pytest.raises(ValueError, match=r"'p1.csv' has the columns \['a', 'y', 'b'\]"):
            nbd.fit_source(GaussianNB(), ["p0.csv", "p1.csv"], label_col="y",
                           scheduler="sync", **rows)  # fmt: skip


@pytest.mark.parametrize("model", ["gaussian", "categorical"])
def test_untyped_files_are_strings_as_one_process_reads_them(model: str, capsys: Any) -> None:
    """Whole numbers in one file, decimal ones in another: every cell a string, as one
    process reads an untyped table (categories "1" and "1.0"). Before, dask typed each
    file and refused them ("other types in different blocks"), and the categories of a
    categorical model were numbers, where one process's are strings."""
    _numbers(0).to_csv("p0.csv", index=False)
    _numbers(1).astype({"a": float}).to_csv("p1.csv", index=False)
    errs, files = _one_and_dask(["p0.csv", "p1.csv"], capsys, "--model", model)
    assert errs[0] == errs[1] == ""
    one, dist = load("one.nbayes"), load("dask.nbayes")
    if model == "categorical":
        assert files[0] == files[1]
        assert dist.categories_[0].tolist() == ["0", "0.0", "1", "1.0", "2", "2.0"]
    else:  # (Gaussian moments merged from partitions: equal to the last bits)
        np.testing.assert_allclose(dist.theta_, one.theta_, rtol=1e-12)


# ------------------------------------------------------------------ 3. Parquet files' types
def _parquet_pair(case: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(5)
    n = 40

    def label() -> Any:
        return rng.integers(0, 2, n)

    if case == "int32 and int64":
        return (pd.DataFrame({"a": rng.integers(0, 5, n).astype("int32"), "y": label()}),
                pd.DataFrame({"a": rng.integers(0, 5, n), "y": label()}))  # fmt: skip
    if case == "float32 and float64":  # (categories: the strings of float64s)
        return (pd.DataFrame({"a": rng.normal(size=n).astype("float32"), "y": label()}),
                pd.DataFrame({"a": rng.normal(size=n), "y": label()}))  # fmt: skip
    words = pd.Series(rng.choice(["u", "v w"], n))
    if case == "strings and nulls":  # (a column of None: Parquet's null type)
        return (pd.DataFrame({"s": words, "y": label()}),
                pd.DataFrame({"s": [None] * n, "y": label()}))  # fmt: skip
    if case == "strings and NaN":  # (an object column of NaN: null too)
        nan = pd.Series([np.nan] * n, dtype=object)
        return pd.DataFrame({"s": words, "y": label()}), pd.DataFrame({"s": nan, "y": label()})
    return (pd.DataFrame({"a": rng.integers(0, 5, n), "y": label()}),  # integers and nulls
            pd.DataFrame({"a": [None] * n, "y": label()}))  # fmt: skip


@pytest.mark.parametrize(
    "case",
    ["int32 and int64", "float32 and float64", "strings and nulls", "strings and NaN",
     "integers and nulls"],
)  # fmt: skip
@pytest.mark.parametrize("first", [0, 1])
def test_parquet_files_are_cast_as_pandas_concatenates_them(
    case: str, first: int, capsys: Any
) -> None:
    """Before, skipping bad rows, the workers kept a file's int32 (one process: int64),
    its float32 (categories '-0.017742237', where one process's are the float64's
    '-0.017742237076163292'), and made integers with a file of nulls floats (one process:
    objects, the integers' codes); a column of nulls in the first file said "median 0
    words" (1, of all the rows)."""
    pytest.importorskip("pyarrow")
    frames = _parquet_pair(case)
    for i, frame in enumerate(frames[first:] + frames[:first]):
        frame.to_parquet(f"p{i}.parquet")
    files = ["p0.parquet", "p1.parquet"]
    missing = case.endswith(("nulls", "NaN"))
    for skip in ([], ["--bad-rows", "skip"]):
        if case != "float32 and float64":  # (Gaussian moments: equal to the last bits)
            errs, out = _one_and_dask(files, capsys, "--model", "mixed", *skip)
            assert errs[0] == errs[1] and out[0] == out[1], skip
    if not missing:  # (categories: no missing value)
        for skip in ([], ["--bad-rows", "skip"]):
            errs, out = _one_and_dask(files, capsys, "--model", "categorical", *skip)
            assert errs[0] == errs[1] and out[0] == out[1], skip


def _mixed_pair(case: str, seed: int = 7, n: int = 30) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Two files of a column ``c`` of other dtypes (``case``: "first and second")."""
    rng = np.random.default_rng(seed)

    def column(kind: str) -> Any:
        return {
            "int32": lambda: rng.integers(0, 3, n).astype("int32"),
            "int64": lambda: rng.integers(0, 3, n),
            "uint8": lambda: rng.integers(0, 3, n).astype("uint8"),
            "bool": lambda: rng.integers(0, 2, n).astype(bool),
            "strings": lambda: rng.choice(["u", "v w"], n).astype(object),
            "categorical": lambda: pd.Categorical(rng.choice(["u", "v"], n)),
            "nulls": lambda: np.array([None] * n, dtype=object),
            "a null": lambda: pd.array([None, *rng.integers(0, 3, n - 1)], dtype="Int64"),
        }[kind]()

    first, second = case.split(" and ")
    return tuple(  # type: ignore[return-value]
        pd.DataFrame({"c": column(kind), "y": rng.choice(["a", "b"], n).astype(object)})
        for kind in (first, second)
    )


@pytest.mark.parametrize(
    "case", ["int64 and int64", "int32 and int64", "bool and int64", "strings and int64"]
)
def test_a_categorical_model_of_parquet_files_learns_strings_without_skipping(
    case: str, capsys: Any
) -> None:
    """Before, without --bad-rows skip, the workers learnt the categories as stored
    (np.int64(0), where one process learns '0'): the model files differed, each refused
    the other's inputs, and strings in one file and integers in another did not merge."""
    pytest.importorskip("pyarrow")
    for i, frame in enumerate(_mixed_pair(case)):
        frame.to_parquet(f"p{i}.parquet")
    errs, out = _one_and_dask(["p0.parquet", "p1.parquet"], capsys, "--model", "categorical")
    assert errs[0] == errs[1] == "" and out[0] == out[1], errs
    assert all(isinstance(c, str) for c in load("dask.nbayes").categories_[0])


@pytest.mark.parametrize("model", ["mixed", "categorical"])
def test_a_categorical_column_and_strings_train_as_in_one_process(model: str, capsys: Any) -> None:
    """A pandas categorical column in one Parquet file and strings in another: it was
    "unexpected RuntimeError: Failed to generate metadata for Concat(...) (this is a bug in
    nbayes ...)"; one process joins them as objects."""
    pytest.importorskip("pyarrow")
    for i, frame in enumerate(_mixed_pair("categorical and strings")):
        frame.to_parquet(f"p{i}.parquet")
    for skip in ([], ["--bad-rows", "skip"]):
        errs, out = _one_and_dask(["p0.parquet", "p1.parquet"], capsys, "--model", model, *skip)
        assert errs[0] == errs[1] == "" and out[0] == out[1], (skip, errs)


def test_parquet_files_of_other_columns_are_refused_as_one_process_refuses_them(
    capsys: Any,
) -> None:
    """Before, dask joined Parquet files of other columns (the cells of a column missing
    from a file missing), or their models did not merge."""
    pytest.importorskip("pyarrow")
    _numbers(0).to_parquet("p0.parquet")
    _numbers(1)[["b", "a", "y"]].to_parquet("p1.parquet")
    for skip in ([], ["--bad-rows", "skip"]):
        errs, _ = _one_and_dask(["p0.parquet", "p1.parquet"], capsys, "--model", "mixed",
                                *skip, codes=(1, 1))  # fmt: skip
        assert errs[0] == errs[1] and "its column 'b' is the 1st" in errs[1], errs


# ------------------------------------------------------------------ 4. many Parquet files
@pytest.fixture
def few_read_one_by_one(monkeypatch: Any) -> int:
    """Parquet files read one by one by dask up to 2 (256): 3 files are "many"."""
    from nbayes.distributed import _read

    monkeypatch.setattr(_read, "_PARQUET_FILES", 2)
    return 3


def test_a_bad_row_of_many_parquet_files_is_named_by_its_file_and_row(
    few_read_one_by_one: int, capsys: Any
) -> None:
    """It was "Bad data in partition 2, row 7 (index 7)" beyond 256 files."""
    pytest.importorskip("pyarrow")
    from nbayes import distributed as nbd
    from nbayes.text.classifier import TextClassifier

    rng = np.random.default_rng(0)
    for i in range(few_read_one_by_one):
        docs = pd.DataFrame({"text": [" ".join(rng.choice(["free", "lunch", "win"], 3))
                                      for _ in range(20)],
                             "label": rng.choice(["ham", "spam"], 20).astype(object)})  # fmt: skip
        if i == 2:
            docs.loc[7, "label"] = None
        docs.to_parquet(f"p{i}.parquet")
    frame = nbd.read("p*.parquet")
    assert frame.npartitions == few_read_one_by_one
    with pytest.raises(nbd.PartitionError) as info:
        nbd.fit(TextClassifier(), frame, label_col="label", scheduler="sync")
    assert (info.value.source, info.value.source_row) == ("p2.parquet", 7)
    assert str(info.value).startswith("p2.parquet, row 7: missing label")
    files = [f"p{i}.parquet" for i in range(few_read_one_by_one)]
    errs, _ = _one_and_dask(files, capsys, "--label-col", "label", codes=(1, 1))
    assert errs[1].startswith("Error: p2.parquet, row 7: missing label"), errs


def test_many_parquet_files_train_the_model_of_one_process(
    few_read_one_by_one: int, capsys: Any
) -> None:
    """A file a partition, each read by pandas as one process reads it."""
    pytest.importorskip("pyarrow")
    for i in range(few_read_one_by_one):
        _codes_and_words(i, 30, [0, 1, 2], ["a", "b c"]).to_parquet(f"p{i}.parquet")
    files = [f"p{i}.parquet" for i in range(few_read_one_by_one)]
    for model in ("mixed", "categorical --bad-rows skip"):
        errs, out = _one_and_dask(files, capsys, "--model", *model.split())
        assert errs[0] == errs[1] and out[0] == out[1], model


@pytest.mark.parametrize(
    "case",
    ["int32 and int64", "uint8 and int64", "bool and int64", "categorical and strings",
     "int64 and nulls", "int64 and a null", "strings and int64"],
)  # fmt: skip
def test_many_parquet_files_are_cast_as_pandas_concatenates_them(
    case: str, few_read_one_by_one: int, capsys: Any
) -> None:
    """A file a partition, without --bad-rows skip: each kept its own dtypes (one process:
    those of pandas' concat of the files), so a MixedNB's file said int32 where one
    process's says int64, or the partitions were refused (bool and int64: "different
    families"); a categorical model learnt numbers."""
    pytest.importorskip("pyarrow")
    first, second = _mixed_pair(case)
    for i, frame in enumerate([first, second, first][:few_read_one_by_one]):
        frame.to_parquet(f"p{i}.parquet")
    files = [f"p{i}.parquet" for i in range(few_read_one_by_one)]
    models = ["mixed", "categorical"]
    if "null" in case:  # (categories: no missing value)
        models = ["mixed"]
    elif case == "strings and int64":  # (a MixedNB refuses words and numbers in a column)
        models = ["categorical"]
    for model in models:
        errs, out = _one_and_dask(files, capsys, "--model", model)
        assert errs[0] == errs[1] == "" and out[0] == out[1], (model, errs)


def test_a_label_column_the_files_lack_is_said_with_the_flag(capsys: Any) -> None:
    """It was "unexpected KeyError: No label column 'y' ... (this is a bug in nbayes ...)"."""
    pytest.importorskip("pyarrow")
    _numbers(0).rename(columns={"y": "label"}).to_parquet("p0.parquet")
    errs, _ = _one_and_dask(["p0.parquet"], capsys, "--model", "mixed", codes=(1, 1))
    assert errs[1] == (
        "Error: No label column 'y': the columns are ['a', 'b', 'label']. Pass --label-col "
        "NAME to choose.\n"
    ), errs
