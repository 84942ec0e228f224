"""``--bad-rows skip``: every command that reads data leaves bad rows out, counts them and
says so at the end; the default stops at the first; training with skip gives the model
trained without those rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nbayes.io.persist import load

from .conftest import HAM, SPAM, assert_error, run, write_csv

BAD_JSON = '{"text": "cut short", "label"'


def _docs() -> list[tuple[str, str]]:
    return [(t, "spam") for t in SPAM] + [(t, "ham") for t in HAM]


@pytest.fixture
def dirty(tmp_path: Path) -> tuple[Path, Path]:
    """A JSON lines file with bad rows, and the same file without them."""
    good = [json.dumps({"text": t, "label": y}) for t, y in _docs()]
    bad = [BAD_JSON, json.dumps({"text": None, "label": "ham"}), json.dumps({"text": "x"})]
    lines = good[:2] + [bad[0]] + good[2:5] + [bad[1]] + good[5:] + [bad[2]]
    dirty = tmp_path / "dirty.jsonl"
    dirty.write_text("\n".join(lines) + "\n", encoding="utf-8")
    clean = tmp_path / "clean.jsonl"
    clean.write_text("\n".join(good) + "\n", encoding="utf-8")
    return dirty, clean


def test_default_stops_at_the_first_bad_row(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, dirty: tuple[Path, Path]
) -> None:
    code, _, err = run(capsys, "train", dirty[0], "-o", tmp_path / "m.nbayes")
    assert_error(code, err, "dirty.jsonl, line 3: invalid JSON")
    assert "Pass --bad-rows skip to skip such rows." in err
    assert not (tmp_path / "m.nbayes").exists()


def test_train_skip_equals_training_without_the_rows(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, dirty: tuple[Path, Path]
) -> None:
    code, _, err = run(capsys, "train", dirty[0], "-o", tmp_path / "s.nbayes", "--bad-rows", "skip")
    assert code == 0, err
    assert err.rstrip().splitlines()[-1] == (
        "Skipped 3 bad rows (dirty.jsonl line 3: invalid JSON; dirty.jsonl line 7: "
        "missing text; dirty.jsonl line 12: no key 'label')."
    )
    # -q hides the notes, not the rows left out
    code, _, err = run(capsys, "train", dirty[0], "-o", tmp_path / "q.nbayes", "--bad-rows",
                       "skip", "-q")  # fmt: skip
    assert code == 0 and err.startswith("Skipped 3 bad rows (dirty.jsonl line 3")
    assert run(capsys, "train", dirty[1], "-o", tmp_path / "c.nbayes")[0] == 0
    outs = []
    for name in ("s.nbayes", "c.nbayes"):
        code, out, err = run(capsys, "predict", tmp_path / name, dirty[1], "--proba")
        assert code == 0, err
        outs.append(out)
    assert outs[0] == outs[1]


def test_eval_update_forget_predict_skip(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, dirty: tuple[Path, Path]
) -> None:
    model = tmp_path / "m.nbayes"
    assert run(capsys, "train", dirty[1], "-o", model)[0] == 0
    code, out, err = run(capsys, "eval", model, dirty[0], "--bad-rows", "skip")
    assert code == 0 and "Skipped 3 bad rows" in err and "(9 examples)" in out
    assert run(capsys, "eval", model, dirty[0])[0] == 1
    code, _, err = run(capsys, "update", model, dirty[0], "--bad-rows", "skip")
    assert code == 0 and "Skipped 3 bad rows" in err, err
    code, _, err = run(capsys, "forget", model, dirty[0], "--bad-rows", "skip")
    assert code == 0 and "Skipped 3 bad rows" in err, err
    # predict names the rows kept by their numbers in the file (and needs no label)
    code, out, err = run(capsys, "predict", model, dirty[0], "--bad-rows", "skip")
    assert code == 0 and "Skipped 2 bad rows" in err
    rows = [line.split(",")[0] for line in out.splitlines()[1:]]
    assert rows == ["0", "1", "3", "4", "5", "7", "8", "9", "10", "11"]


def test_every_row_bad_is_still_an_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(BAD_JSON + "\n" + json.dumps({"text": None, "label": "x"}) + "\n")
    code, _, err = run(capsys, "train", path, "-o", tmp_path / "m.nbayes", "--bad-rows", "skip")
    assert_error(code, err, "No documents: every row was bad. Skipped 2 bad rows")


@pytest.mark.slow
def test_workers_skip_as_this_process(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, dirty: tuple[Path, Path]
) -> None:
    """With --workers the Dask workers skip the rows this process skips: the same note
    (with -q too), the same model file (before: refused)."""
    pytest.importorskip("dask.dataframe")
    pytest.importorskip("distributed")
    note = (
        "Skipped 3 bad rows (dirty.jsonl line 3: invalid JSON; dirty.jsonl line 7: "
        "missing text; dirty.jsonl line 12: no key 'label').\n"
    )
    for name, flags in (("one.nbayes", []), ("dask.nbayes", ["--workers", "2"])):
        code, _, err = run(capsys, "train", dirty[0], "-o", tmp_path / name, "--bad-rows",
                           "skip", "-q", *flags)  # fmt: skip
        assert code == 0 and err == note, err
    assert (tmp_path / "one.nbayes").read_bytes() == (tmp_path / "dask.nbayes").read_bytes()


@pytest.mark.slow
def test_workers_skip_a_tables_rows_as_this_process(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, dirty_table: tuple[Path, Path]
) -> None:
    """A table's bad rows with --workers: the rows this process skips, the same note, the
    same model file (before: refused, with advice to train in this process)."""
    pytest.importorskip("dask.dataframe")
    pytest.importorskip("distributed")
    notes = []
    for name, flags in (("one.nbayes", []), ("dask.nbayes", ["--workers", "2"])):
        code, _, err = run(
            capsys, "train", dirty_table[0], "-o", tmp_path / name, "--model", "gaussian",
            "--label-col", "y", "--bad-rows", "skip", "-q", *flags,
        )  # fmt: skip
        assert code == 0, err
        notes.append(err)
    assert notes[0] == notes[1] and notes[0].startswith(
        "Skipped 3 bad rows (dirty.csv line 6: 4 fields, the header has 3; "
    )
    assert (tmp_path / "one.nbayes").read_bytes() == (tmp_path / "dask.nbayes").read_bytes()


def test_a_tables_bad_row_on_dask_says_to_skip(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Without --bad-rows skip, a bad row's advice is --bad-rows skip, as for text (it was
    to train in this process: the workers could not skip a table's bad rows)."""
    pytest.importorskip("dask.dataframe")
    pytest.importorskip("distributed")
    rows = [[1.0, 2.0, "x"], [1.5, 2.5, "z"], [3.0, 4.0, ""], [2.0, 3.0, "x"]]
    table = write_csv(tmp_path / "t.csv", ["a", "b", "y"], rows)
    flags = ["--model", "gaussian", "--label-col", "y", "--dask-scheduler", "sync", "-q"]
    code, _, err = run(capsys, "train", table, "-o", tmp_path / "m.nbayes", *flags)
    assert_error(
        code, err, "t.csv, row 2 (line 4): missing label. Pass --bad-rows skip to skip such "
        "rows (the workers then read the data as this process would)",
    )  # fmt: skip
    code, _, err = run(capsys, "train", table, "-o", tmp_path / "m.nbayes", *flags,
                       "--bad-rows", "skip")  # fmt: skip
    assert code == 0 and err == "Skipped 1 bad row (t.csv row 2: no label).\n", err


def test_bad_rows_flag_on_every_data_command(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("train", "predict", "eval", "explain", "update", "forget", "tune", "plot"):
        code, out, _ = run(capsys, command, "-h")
        assert code == 0 and "--bad-rows MODE" in out, command


@pytest.fixture
def dirty_table(tmp_path: Path) -> tuple[Path, Path]:
    rows = [[1.0, 2.5, "a"], [1.2, 2.0, "a"], [3.1, 0.5, "b"], [2.9, 0.7, "b"], [1.1, 2.2, "a"]]
    clean = write_csv(tmp_path / "clean.csv", ["x", "z", "y"], rows)
    dirty = tmp_path / "dirty.csv"
    lines = clean.read_text().splitlines()
    lines[2:2] = ["1.5,n/a,a", "2.0,1.0,"]  # a cell that is not a number; no label
    lines.insert(5, "3.0,0.6,b,extra")  # too many fields
    dirty.write_text("\n".join(lines) + "\n")
    return dirty, clean


def test_table_models_skip(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, dirty_table: tuple[Path, Path]
) -> None:
    dirty, clean = dirty_table
    flags = ["--model", "gaussian", "--label-col", "y"]
    code, _, err = run(capsys, "train", dirty, "-o", tmp_path / "e.nbayes", *flags)
    assert_error(code, err, "")
    code, _, err = run(
        capsys, "train", dirty, "-o", tmp_path / "s.nbayes", *flags, "--bad-rows", "skip"
    )
    assert code == 0, err
    assert "Skipped 3 bad rows (dirty.csv line 6: 4 fields, the header has 3; " in err
    assert "'n/a' is not a number (column 'z')" in err and "row 2: no label" in err
    assert run(capsys, "train", clean, "-o", tmp_path / "c.nbayes", *flags)[0] == 0
    outs = [
        run(capsys, "predict", tmp_path / m, clean, "--proba")[1] for m in ("s.nbayes", "c.nbayes")
    ]
    assert outs[0] == outs[1] and outs[0].count("\n") == 6
    code, out, err = run(capsys, "eval", tmp_path / "s.nbayes", dirty, "--label-col", "y",
                         "--bad-rows", "skip")  # fmt: skip
    assert code == 0 and "(5 examples)" in out and "Skipped 3 bad rows" in err
    # the label column inferred (no --label-col): its rows without a label are left out
    # after the others, and named by their rows in the file all the same (they were named
    # by their positions among the rows kept: "row 1" for row 2)
    code, out, err2 = run(capsys, "eval", tmp_path / "s.nbayes", dirty, "--bad-rows", "skip")
    assert code == 0 and "(5 examples)" in out
    assert err2.splitlines()[-1] == err.splitlines()[-1], err2


def test_mixed_skip_infers_types_from_the_rows_kept(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    rows = [[1, "red", "a"], [2, "blue", "a"], [7, "red", "b"], [8, "blue", "b"]]
    clean = write_csv(tmp_path / "clean.csv", ["n", "c", "y"], rows)
    dirty = tmp_path / "dirty.csv"
    lines = clean.read_text().splitlines()
    dirty.write_text("\n".join([*lines[:3], "", "5,red,", *lines[3:]]) + "\n")
    flags = ["--model", "mixed", "--label-col", "y"]
    code, _, err = run(capsys, "train", dirty, "-o", tmp_path / "s.nbayes", *flags,
                       "--bad-rows", "skip")  # fmt: skip
    assert code == 0 and "Skipped 1 bad row (dirty.csv row 2: no label)." in err, err
    code, _, err2 = run(capsys, "train", clean, "-o", tmp_path / "c.nbayes", *flags)
    families = [line for line in (err, err2) for line in line.splitlines() if "families" in line]
    assert families[0] == families[1]
    outs = [
        run(capsys, "predict", tmp_path / m, clean, "--proba")[1] for m in ("s.nbayes", "c.nbayes")
    ]
    assert outs[0] == outs[1]
    # categories that were numbers (1, 2, 7, 8): a cell that is not a number is a bad row;
    # without --bad-rows skip, an error naming it (it was "'<' not supported between
    # instances of 'int' and 'str'", from deep in numpy)
    rows = [[1, "red"], [2, "blue"], ["oops", "red"], [8, "blue"], ["", "red"]]
    odd = write_csv(tmp_path / "odd.csv", ["n", "c"], rows)
    code, _, err = run(capsys, "predict", tmp_path / "c.nbayes", odd)
    assert_error(code, err, "Column 'n' holds 'oops' (str), but its categories learnt are int")
    code, out, err = run(capsys, "predict", tmp_path / "c.nbayes", odd, "--bad-rows", "skip")
    assert (
        code == 0
        and "Skipped 1 bad row (odd.csv row 2: 'oops' is not a number (column 'n'))" in err
    )
    assert [line.split(",")[0] for line in out.splitlines()[1:]] == ["0", "1", "3", "4"]
    # a flag (True/False) column read as text because of a missing or bad cell: its True
    # and False are no bad rows (they were all "not a number": a review)
    rows = [[True, 1.5, "a"], [False, 2.5, "b"], [True, 1.0, "a"], [False, 3.0, "b"]]
    flags = write_csv(tmp_path / "flags.csv", ["f", "x", "y"], rows)
    assert run(capsys, "train", flags, "-o", tmp_path / "f.nbayes", "--model", "mixed",
               "--label-col", "y", "-q")[0] == 0  # fmt: skip
    odd = write_csv(tmp_path / "odd_flags.csv", ["f", "x"],
                    [[True, 1.5], ["", 2.5], ["oops", 2.0], ["false", 1.0]])  # fmt: skip
    code, out, err = run(capsys, "predict", tmp_path / "f.nbayes", odd, "--bad-rows", "skip")
    assert code == 0 and "Skipped 1 bad row (odd_flags.csv row 2: 'oops'" in err, err
    assert [line.split(",")[0] for line in out.splitlines()[1:]] == ["0", "1", "3"]


def test_a_label_that_is_a_list_or_an_object_is_a_bad_row(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A JSON-lines label [1, 2] or {"x": 1} (one class a row): a bad row naming the line,
    skipped with --bad-rows skip; `update` crashed ("a bug in nbayes") on list labels."""
    good = tmp_path / "good.jsonl"
    good.write_text('{"text": "free money", "label": 1}\n{"text": "lunch now", "label": 2}\n')
    model = tmp_path / "m.nbayes"
    assert run(capsys, "train", good, "-o", model, "-q")[0] == 0
    lists = tmp_path / "lists.jsonl"
    lists.write_text('{"text": "free money", "label": [1, 2]}\n{"text": "lunch", "label": 2}\n')
    code, _, err = run(capsys, "update", model, lists)
    assert_error(code, err, "lists.jsonl, row 0 (line 1): the label must be one string, number "
                            "or boolean; got a list, [1, 2]. Pass --bad-rows skip")  # fmt: skip
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text('{"text": "free cash", "label": "x"}\n{"text": "cc", "label": {"k": 1}}\n'
                     '{"text": "lunch now", "label": "y"}\n')  # fmt: skip
    assert_error(*run(capsys, "train", mixed, "-o", tmp_path / "x.nbayes")[::2], "got an object")
    code, _, err = run(capsys, "train", mixed, "-o", tmp_path / "x.nbayes", "--bad-rows", "skip")
    assert code == 0 and "label not one value" in err


def test_labels_read_in_the_type_of_an_integer_model(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A CSV's "2.0" is the integer class 2 (a spreadsheet writes it so); "1.5" is refused
    naming the label (the message held int()'s error where the label goes, a fuzz)."""
    good = tmp_path / "good.jsonl"
    good.write_text('{"text": "free money", "label": 1}\n{"text": "lunch now", "label": 2}\n')
    model = tmp_path / "m.nbayes"
    assert run(capsys, "train", good, "-o", model, "-q")[0] == 0
    floats = write_csv(tmp_path / "f.csv", ["text", "label"], [["free cash", "1.0"],
                                                              ["lunch", "2.0"]])  # fmt: skip
    code, _, err = run(capsys, "update", model, floats)
    assert code == 0 and "now has: 1 2, 2 2." in err
    half = write_csv(tmp_path / "h.csv", ["text", "label"], [["free cash", "1.5"]])
    code, _, err = run(capsys, "eval", model, half)
    assert_error(code, err, "The label '1.5' does not fit the model's classes [1, 2] (integers)")


def test_update_with_its_arguments_the_other_way_round(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text_model: Path, texts_csv: Path
) -> None:
    """`nbayes update DATA MODEL` said "pass --force", which update does not take; an
    empty MODEL is said to be empty, as `info` says it."""
    before = text_model.read_bytes()
    code, _, err = run(capsys, "update", texts_csv, text_model)
    assert_error(code, err, "the model comes first (`nbayes update MODEL DATA`)")
    assert text_model.read_bytes() == before and "--force" not in err
    empty = tmp_path / "empty.nbayes"
    empty.write_bytes(b"")
    assert_error(*run(capsys, "forget", empty, texts_csv)[::2], "file is empty (0 bytes)")


def test_workers_name_a_bad_row_among_a_file_s_first_rows(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Dask samples a file's first rows before the workers read it: a bad row there gave
    pandas' words through Dask, without the file or --bad-rows (a fuzz). Now one process's
    words, which name them."""
    pytest.importorskip("dask.dataframe")
    pytest.importorskip("distributed")
    data = tmp_path / "bad.csv"
    data.write_text("text,label\nfree money now,spam\nlunch today,ham\nfree,cash,x,spam\n"
                    "see you,ham\nwin now,spam\n")  # fmt: skip
    code, _, err = run(capsys, "train", data, "-o", tmp_path / "m.nbayes", "--workers", "1", "-q")
    assert_error(code, err, "bad.csv, row 2 (line 4): 4 field(s), but the header has 2")
    assert "--bad-rows skip" in err and "read_csv method" not in err


def test_a_table_s_row_of_more_fields_names_its_line_and_the_flag(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A table model's CSV with a row wider than its header said pandas' words ("Error
    tokenizing data. C error: Expected 3 fields in line 4, saw 4"), without --bad-rows;
    with --workers, through Dask ("An error occurred while calling the read_csv method").
    Now the text reader's words, naming the file, the line and the flag."""
    data = tmp_path / "t.csv"
    data.write_text("a,b,label\n1,2,x\n3,4,y\n5,6,7,x\n1,2,y\n")
    said = "t.csv, line 4: 4 fields, but the header has 3; check the quoting and the delimiter"
    out = tmp_path / "m.nbayes"
    code, _, err = run(capsys, "train", data, "--model", "gaussian", "-o", out)
    assert_error(code, err, said)
    assert err.startswith(f"Error: {data}, line 4") and "--bad-rows skip" in err
    code, _, err = run(capsys, "train", data, "--model", "gaussian", "-o", out,
                       "--bad-rows", "skip")  # fmt: skip
    assert code == 0 and load(out).class_count_.tolist() == [1, 2]
    out.unlink()
    pytest.importorskip("dask.dataframe")
    pytest.importorskip("distributed")
    code, _, err = run(capsys, "train", data, "--model", "gaussian", "-o", out,
                       "--workers", "1", "-q")  # fmt: skip
    assert_error(code, err, said)
    assert "--bad-rows skip" in err and "read_csv method" not in err and not out.exists()
