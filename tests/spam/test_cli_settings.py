"""A spam filter's settings on the command line, after training: ``nbayes update MODEL
--preset/--combining/--ham-cutoff/--spam-cutoff`` changes them in the file (its counts
untouched), ``nbayes filter`` and ``nbayes eval`` take the cutoffs for one run
(bogofilter's ``-o``), and never save them; ``nbayes info MODEL --token T`` answers
about a token (bogoutil's ``-w``)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

import nbayes
from nbayes.cli.filter import _quick
from nbayes.spam import SpamFilter

from .conftest import run

SPAM = b"Subject: offer win\n\ncheap cash offer pills now"
HAM = b"Subject: minutes\n\nproject meeting notes"


@pytest.fixture
def model(saved: Path, tmp_path: Path) -> Path:
    path = tmp_path / "spam.nbayes"
    shutil.copyfile(saved, path)
    return path


def spamicity(path: Path, raw: bytes) -> float:
    return float(nbayes.load(path).classify([raw])[0].spamicity)


def test_update_changes_a_spam_filters_settings_and_keeps_its_counts(
    model: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    before = nbayes.load(model)
    code, _, err = run(capsys, monkeypatch, "update", model, "--spam-cutoff", "0.99",
                       "--combining", "mean")  # fmt: skip
    assert code == 0, err
    assert (
        "settings: preset nbayes, combining mean, ham <= 0.4 (the preset's), spam >= 0.99 "
        "(its own) (were: preset nbayes, combining chi2, ham <= 0.4 (the preset's), spam >= "
        "0.9 (the preset's))"
    ) in err
    after = nbayes.load(model)
    assert (after.spam_cutoff, after.combining, after.ham_cutoff) == (0.99, "mean", None)
    assert after.table_.n_ham == before.table_.n_ham
    assert after.table_.n_spam == before.table_.n_spam
    assert sorted(after.table_.rows()) == sorted(before.table_.rows())
    # the verdicts are those of a filter given these settings
    expected = SpamFilter(combining="mean", spam_cutoff=0.99).fit(
        [
            b"Subject: minutes\n\nproject meeting notes",
            b"Subject: build\n\nbuild failed",
            b"Subject: win\n\ncheap pills now",
            b"Subject: offer\n\ncheap cash offer",
        ],
        ["ham", "ham", "spam", "spam"],
    )  # fmt: skip (the conftest's `saved`)
    assert after.classify([SPAM]) == expected.classify([SPAM])
    code, out, _ = run(capsys, monkeypatch, "filter", model, stdin=SPAM)
    v = expected.classify([SPAM])[0]
    assert out == f"{v.verdict} {v.spamicity:.6f}\n"


def test_a_preset_brings_its_cutoffs_except_those_set_on_the_model(
    model: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert run(capsys, monkeypatch, "update", model, "--spam-cutoff", "0.95")[0] == 0
    code, _, err = run(capsys, monkeypatch, "update", model, "--preset", "bogofilter")
    assert code == 0, err
    assert "preset bogofilter, combining chi2, ham <= 0.45 (the preset's), spam >= 0.95 (its" in err
    f = nbayes.load(model)
    assert (f.preset, f.ham_cutoff, f.spam_cutoff) == ("bogofilter", None, 0.95)
    assert f.effective_params_.s == 0.0178  # the preset's scoring too


def test_update_keeps_the_registrations_pending_in_the_log(
    model: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert run(capsys, monkeypatch, "filter", model, "--register", "spam", stdin=SPAM)[0] == 0
    assert model.with_name(model.name + ".pending").exists()
    assert run(capsys, monkeypatch, "update", model, "--ham-cutoff", "0.1")[0] == 0
    f = nbayes.load(model)
    assert (f.table_.n_ham, f.table_.n_spam, f.ham_cutoff) == (2, 3, 0.1)


def test_update_refuses_cutoffs_that_cross_and_leaves_the_file(
    model: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = model.read_bytes()
    code, _, err = run(capsys, monkeypatch, "update", model, "--spam-cutoff", "0.3")
    assert code == 1
    assert "--spam-cutoff (0.3) is below the nbayes preset's ham cutoff (0.4)" in err
    assert "give --ham-cutoff too" in err
    code, _, err = run(capsys, monkeypatch, "update", model, "--ham-cutoff", "0.8",
                       "--spam-cutoff", "0.7")  # fmt: skip
    assert "--ham-cutoff (0.8) is above --spam-cutoff (0.7)" in err
    run(capsys, monkeypatch, "update", model, "--spam-cutoff", "0.95")
    code, _, err = run(capsys, monkeypatch, "update", model, "--ham-cutoff", "0.97")
    assert f"--ham-cutoff (0.97) is above {model}'s spam cutoff (0.95)" in err
    assert nbayes.load(model).ham_cutoff is None
    code, _, err = run(capsys, monkeypatch, "update", model)
    assert code == 1 and "Nothing to do: give DATA to learn" in err
    assert "--spam-cutoff" in err
    model.write_bytes(data)
    # a cutoff the preset's value is the model's own from then on (a preset that changes
    # leaves it); `preset` gives it back to the preset, and then nothing changes
    code, _, err = run(capsys, monkeypatch, "update", model, "--spam-cutoff", "0.9")
    assert code == 0 and "spam >= 0.9 (its own)" in err
    assert nbayes.load(model).spam_cutoff == 0.9
    code, _, err = run(capsys, monkeypatch, "update", model, "--spam-cutoff", "preset")
    assert code == 0 and "spam >= 0.9 (the preset's)" in err
    data = model.read_bytes()
    code, _, err = run(capsys, monkeypatch, "update", model, "--spam-cutoff", "preset")
    assert code == 0 and "left unchanged" in err
    assert model.read_bytes() == data
    # every digit counts: 0.9999991 is not the 0.999999 a six-digit display shows
    assert run(capsys, monkeypatch, "update", model, "--spam-cutoff", "0.999999")[0] == 0
    code, _, err = run(capsys, monkeypatch, "update", model, "--spam-cutoff", "0.9999991")
    assert code == 0 and "spam >= 0.9999991 (its own)" in err
    assert nbayes.load(model).spam_cutoff == 0.9999991
    # a preset whose cutoff crosses the model's own is named as the preset's, not a flag's
    run(capsys, monkeypatch, "update", model, "--spam-cutoff", "0.42")
    code, _, err = run(capsys, monkeypatch, "update", model, "--preset", "bogofilter")
    assert code == 1
    assert f"the bogofilter preset's ham cutoff (0.45) is above {model}'s spam cutoff (0.42)" in err
    assert "give --ham-cutoff or --spam-cutoff too" in err


def test_settings_flags_refused_for_other_models(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "d.csv"
    data.write_text("text,label\ncheap pills,spam\nmeeting notes,ham\n")
    path = tmp_path / "t.nbayes"
    assert run(capsys, monkeypatch, "train", data, "-o", path)[0] == 0
    code, _, err = run(capsys, monkeypatch, "update", path, "--preset", "bogofilter")
    assert code == 1
    assert f"--preset applies to spam filters, and {path} is not one" in err
    code, _, err = run(capsys, monkeypatch, "eval", path, data, "--spam-cutoff", "0.5")
    assert code == 1 and "--spam-cutoff applies to spam filters" in err
    # forget still needs its DATA
    code, _, err = run(capsys, monkeypatch, "forget", path)
    assert code == 2 and "DATA" in err


def test_filter_takes_cutoffs_for_one_run_and_never_saves_them(
    model: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = model.read_bytes()
    p = spamicity(model, SPAM)
    assert 0.9 <= p < 1.0
    code, out, _ = run(capsys, monkeypatch, "filter", model, stdin=SPAM)
    assert (code, out.split()[0]) == (0, "spam")
    above = f"{(p + 1) / 2:.12f}"
    for argv in (["--spam-cutoff", above], [f"--spam-cutoff={above}"],
                 ["-q", "--spam-cutoff", above]):  # fmt: skip
        code, out, err = run(capsys, monkeypatch, "filter", model, *argv, stdin=SPAM)
        assert (code, out) == (2, f"unsure {p:.6f}\n"), err
    # argparse's path (a flag the delivery's parser does not read) takes them alike
    mail = model.parent / "m.eml"
    mail.write_bytes(SPAM)
    code, out, _ = run(capsys, monkeypatch, "filter", model, mail, "--jobs", "1",
                       "--spam-cutoff", above)  # fmt: skip
    assert out.split()[0] == "unsure"
    code, out, _ = run(capsys, monkeypatch, "filter", model, "--ham-cutoff", above,
                       "--spam-cutoff", "1", stdin=SPAM)  # fmt: skip
    assert (code, out.split()[0]) == (1, "ham")
    # --update learns by this run's verdict (unsure: nothing), both ways it loads MODEL
    code, out, err = run(capsys, monkeypatch, "filter", model, "--update",
                         "--spam-cutoff", above, stdin=SPAM)  # fmt: skip
    assert (code, out.split()[0]) == (2, "unsure") and "Learnt 0 of 1" in err
    code, out, err = run(capsys, monkeypatch, "filter", model, "--update", mail,
                         "--spam-cutoff", above)  # fmt: skip
    assert out.split()[0] == "unsure" and "Learnt 0 of 1" in err
    assert model.read_bytes() == data
    code, out, err = run(capsys, monkeypatch, "filter", model, "--update", mail,
                         "--spam-cutoff", "0.5")  # fmt: skip
    assert out.split()[0] == "spam" and "Learnt 1 of 1" in err
    f = nbayes.load(model)
    assert (f.table_.n_spam, f.ham_cutoff, f.spam_cutoff) == (3, None, None)


def test_filter_refuses_cutoffs_that_cross_or_give_no_verdict(
    model: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = run(capsys, monkeypatch, "filter", model, "--ham-cutoff", "0.95",
                         stdin=SPAM)  # fmt: skip
    assert (code, out) == (3, "")
    assert f"--ham-cutoff (0.95) is above {model}'s spam cutoff (0.9)" in err
    code, _, err = run(capsys, monkeypatch, "filter", model, "--spam-cutoff", "2", stdin=SPAM)
    assert code == 3 and "--spam-cutoff: must be from 0 to 1; got 2" in err
    code, _, err = run(capsys, monkeypatch, "filter", model, "--register", "spam",
                       "--spam-cutoff", "0.5", stdin=SPAM)  # fmt: skip
    assert code == 3 and "--spam-cutoff sets this run's verdicts" in err
    assert "nbayes update MODEL --spam-cutoff P" in err
    assert not model.with_name(model.name + ".pending").exists()


def test_the_delivery_parser_reads_the_cutoffs_as_argparse_would() -> None:
    args = _quick(["m.nbayes", "--spam-cutoff", "0.95", "--ham-cutoff=0.1", "-q"])
    assert (args.model, args.spam_cutoff, args.ham_cutoff, args.quiet) == (
        "m.nbayes", 0.95, 0.1, True,
    )  # fmt: skip
    assert _quick(["m.nbayes"]).spam_cutoff is None
    twice = ["m", "--spam-cutoff", "0.9", "--spam-cutoff", "1"]
    for argv in (["m", "--spam-cutoff"], ["m", "--spam-cutoff", "x"],
                 ["m", "--spam-cutoff=1.5"], twice):  # fmt: skip
        assert _quick(argv) is None  # argparse's


def test_eval_at_other_cutoffs(
    model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    root = tmp_path / "mail"
    for label, raw in (("ham", HAM), ("spam", SPAM)):
        (root / label).mkdir(parents=True)
        (root / label / "1.eml").write_bytes(raw)
    code, out, _ = run(capsys, monkeypatch, "eval", model, root)
    assert "spam caught (verdict spam): 1 " in out
    code, out, _ = run(capsys, monkeypatch, "eval", model, root, "--spam-cutoff", "1")
    assert code == 0
    assert "spam caught (verdict spam): 0 " in out and "unsure:                     1 " in out
    code, _, err = run(capsys, monkeypatch, "eval", model, root, "--ham-cutoff", "0.95")
    assert code == 1 and "above" in err


def test_info_answers_about_tokens(
    model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    f = nbayes.load(model)
    g, b = f.table_.counts("cheap")
    assert (g, b) == (0, 2)
    p = f.effective_params_
    from nbayes.spam import robinson_f

    fw = robinson_f(g, b, f.table_.n_ham, f.table_.n_spam, p.s, p.x, p.smoothing)
    code, out, _ = run(capsys, monkeypatch, "info", model, "--token", "cheap", "--token",
                       "win", "--token", "nowhere")  # fmt: skip
    assert code == 0
    assert f"cheap: 0 ham, 2 spam; f(w) {fw:.4f}: a spam clue" in out
    # "win" is a token of the subject only: named as it is written
    assert "win: in no message the model learnt (f(w) 0.5: not a clue); tokens that end " in out
    assert "subject:win (0/1)" in out
    assert "nowhere: in no message the model learnt (f(w) 0.5: not a clue)\n" in out
    assert "strongest tokens" not in out
    data = tmp_path / "d.csv"
    data.write_text("text,label\ncheap pills,spam\nmeeting notes,ham\n")
    text = tmp_path / "t.nbayes"
    assert run(capsys, monkeypatch, "train", data, "-o", text)[0] == 0
    code, out, err = run(capsys, monkeypatch, "info", text, "--token", "cheap")
    assert (code, out) == (1, "") and "is not one: `nbayes explain" in err


def test_eval_names_the_spam_cutoff_of_a_ham_loss_and_it_gives_what_it_said(
    model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    import json
    import re

    words = ["cheap", "pills", "offer", "cash", "win", "meeting", "notes", "build", "project"]
    root = tmp_path / "mail"
    for label in ("ham", "spam"):
        (root / label).mkdir(parents=True)
    for i in range(40):  # mail whose scores overlap: some ham scores above some spam
        label = "spam" if i % 3 == 0 else "ham"
        body = " ".join(words[(i * 7 + k) % len(words)] for k in range(3 + i % 4))
        (root / label / f"{i}.eml").write_bytes(f"Subject: n{i}\n\n{body}\n".encode())
    code, out, _ = run(capsys, monkeypatch, "eval", model, root)
    assert code == 0
    rows = re.findall(
        r"  ([\d.]+) %: --spam-cutoff (\S+) catches ([\d.]+) % of the spam, loses ([\d.]+) %", out
    )
    assert [r[0] for r in rows] == ["0.1", "0.5", "1"]
    for _, cutoff, caught, lost in rows:  # the cutoff printed gives the figures printed
        code, again, _ = run(capsys, monkeypatch, "eval", model, root, "--spam-cutoff", cutoff,
                             "--ham-cutoff", "0")  # fmt: skip
        assert f"({caught} % of spam)" in again.split("spam caught")[1].split("\n")[0]
        assert f"({lost} % of ham)" in again.split("ham lost")[1].split("\n")[0]
    code, out, _ = run(capsys, monkeypatch, "eval", model, root, "--json")
    cut = json.loads(out)["spam_cutoffs"]
    assert [c["ham_loss"] for c in cut] == [0.001, 0.005, 0.01]
    assert str(cut[0]["spam_cutoff"]) == rows[0][1]


def test_a_broken_model_file_is_named_as_broken_not_as_no_spam_filter(
    model: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    model.write_bytes(model.read_bytes()[:200])  # (an interrupted copy)
    for argv in (("update", model, "--spam-cutoff", "0.95"), ("info", model, "--token", "x")):
        code, _, err = run(capsys, monkeypatch, *argv)
        assert code == 1 and "truncated" in err and "not one" not in err


def test_settings_of_a_served_model_are_refused_with_what_to_do(
    model: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    served_here: Any,
) -> None:  # fmt: skip
    """The server has no request that changes settings: the advice is to stop it (the
    refusal of an update of mail sends that to /update instead)."""
    import os

    url = "http://127.0.0.1:8124"
    before = model.read_bytes()
    with served_here(model, url):  # this process plays the server
        code, _, err = run(capsys, monkeypatch, "update", model, "--spam-cutoff", "0.95")
    assert code == 1 and f"is served by nbayes serve (pid {os.getpid()}) on {url}" in err
    assert "stop the server, run this again, then start it" in err and "/update" not in err
    assert model.read_bytes() == before


def test_a_message_the_tokenizer_reads_as_empty_is_not_registered(
    model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """White space of Unicode's (a lone FS control character, Latin-1's no-break space):
    no token, as the tokenizer reads them; --register refused them only when they were
    blank bytes, and learnt a message of no token."""
    from nbayes.mail import is_empty

    before = model.read_bytes()
    for raw in (b"\x1c\n", b"\xa0 \n\x85"):
        assert is_empty(raw) and nbayes.load(model).tokenize(raw) == frozenset()
        code, _, err = run(capsys, monkeypatch, "filter", model, "--register", "spam", stdin=raw)
        assert code == 3 and "empty message" in err
        mail = tmp_path / "odd.eml"
        mail.write_bytes(raw)
        code, _, err = run(capsys, monkeypatch, "filter", model, "--register", "spam", mail)
        assert code == 3 and "odd.eml is empty" in err
    assert model.read_bytes() == before
    assert not model.with_name(model.name + ".pending").exists()


def test_info_answers_tokens_in_the_order_asked_with_a_hint_of_case(
    model: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = run(capsys, monkeypatch, "info", model, "--token", "nowhere", "--token",
                       "CHEAP", "--token", "cheap")  # fmt: skip
    lines = [line for line in out.splitlines() if line.split(":")[0] in ("nowhere", "CHEAP",
             "cheap")]  # fmt: skip
    assert [line.split(":")[0] for line in lines] == ["nowhere", "CHEAP", "cheap"]
    assert "the tokenizer lower-cases words: ask 'cheap'" in lines[1]
    code, out, err = run(capsys, monkeypatch, "info", model, "--token", "")
    assert (code, out) == (1, "") and "--token takes a token" in err
