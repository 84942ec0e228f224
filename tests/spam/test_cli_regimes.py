"""How a spam filter learns and is chosen from the command line: ``nbayes train --model
spam --regime on-error|exhaustion`` and ``nbayes update MODEL MAILDATA --regime ...`` learn
what :meth:`SpamFilter.train` learns from the classes taken alternately (bogominitrain.pl's
order); ``nbayes tune MAILDATA --model spam`` compares presets and combinings as
:func:`nbayes.spam.compare_settings` does; both refuse what would not mean anything."""

from __future__ import annotations

from pathlib import Path

import pytest

import nbayes
from nbayes.cli import main
from nbayes.cli._spam import interleaved
from nbayes.mail import iter_classes
from nbayes.spam import SpamFilter

WORDS_HAM = ["meeting", "report", "lunch", "review", "patch", "notes", "budget", "team"]
WORDS_SPAM = ["free", "cash", "prize", "pills", "winner", "offer", "cheap", "click"]


def mail(subject: str, words: list[str]) -> bytes:
    return f"From: a@example.com\nSubject: {subject}\n\n{' '.join(words)}\n".encode()


@pytest.fixture
def maildata(tmp_path: Path) -> Path:
    root = tmp_path / "mail"
    for label, words in (("ham", WORDS_HAM), ("spam", WORDS_SPAM)):
        (root / label).mkdir(parents=True)
        n = 12 if label == "ham" else 7
        for i in range(n):
            chosen = [words[(i + k) % len(words)] for k in range(4)] + [f"w{label}{i}"]
            (root / label / f"{i:02}.eml").write_bytes(mail(f"{label} {i}", chosen))
    return root


def expected(
    root: Path, regime: str, max_rounds: int = 10, preset: str = "nbayes"
) -> tuple[SpamFilter, list[int]]:
    pairs = interleaved([(m.data, label) for m, label in iter_classes(str(root), ("ham", "spam"))])
    f = SpamFilter(preset=preset)
    rounds = f.train([m for m, _ in pairs], [lab for _, lab in pairs], regime=regime,
                     max_rounds=max_rounds)  # fmt: skip
    return f, rounds


def rows(f: SpamFilter) -> list[tuple[str, int, int]]:
    return sorted(f.table_.rows())


def test_train_on_error_learns_what_the_library_does(
    maildata: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "m.nbayes"
    assert main(["train", str(maildata), "-o", str(out), "--model", "spam",
                 "--regime", "on-error"]) == 0  # fmt: skip
    err = capsys.readouterr().err
    f, rounds = expected(maildata, "on_error")
    assert 0 < rounds[0] < 19  # (some are called right before they are learnt)
    assert f"Learnt {rounds[0]} of 19 messages on error" in err
    got = nbayes.load(out)
    assert rows(got) == rows(f)
    assert (got.table_.n_ham, got.table_.n_spam) == (f.table_.n_ham, f.table_.n_spam)


def test_train_to_exhaustion_and_its_rounds(
    maildata: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "m.nbayes"
    assert main(["train", str(maildata), "-o", str(out), "--model", "spam",
                 "--regime", "exhaustion", "--preset", "spambayes"]) == 0  # fmt: skip
    err = capsys.readouterr().err
    f, rounds = expected(maildata, "exhaustion", preset="spambayes")
    assert rounds[-1] == 0 and len(rounds) > 1
    assert f"in {len(rounds)} passes on error (per pass: " in err
    assert "the last learnt none" in err
    assert rows(nbayes.load(out)) == rows(f)
    assert main(["train", str(maildata), "-o", str(out), "--force", "--model", "spam",
                 "--regime", "exhaustion", "--max-rounds", "3"]) == 0  # fmt: skip
    err = capsys.readouterr().err
    f, rounds = expected(maildata, "exhaustion", max_rounds=3)
    assert "stopped at --max-rounds 3: the last pass still learnt some" in err
    assert "in 3 passes on error" in err and "the filter counts" in err
    assert "Trained SpamFilter on" not in err  # (a message learnt again counts again)
    assert rows(nbayes.load(out)) == rows(f)


def test_update_learns_new_mail_on_error(
    maildata: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "m.nbayes"
    start = SpamFilter().fit([mail("s", ["meeting", "notes"]), mail("t", ["cash", "prize"])],
                             ["ham", "spam"])  # fmt: skip
    nbayes.save(start, out)
    assert main(["update", str(out), str(maildata), "--regime", "on-error"]) == 0
    err = capsys.readouterr().err
    pairs = interleaved([(m.data, lab) for m, lab in iter_classes(str(maildata), ("ham", "spam"))])
    rounds = start.train([m for m, _ in pairs], [lab for _, lab in pairs], regime="on_error")
    assert f"Learnt {rounds[0]} of 19 messages on error" in err
    assert f"now has {start.table_.n_ham} ham and {start.table_.n_spam} spam" in err
    assert rows(nbayes.load(out)) == rows(start)


def test_what_learning_on_error_refuses(
    maildata: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "m.nbayes"
    base = ["train", str(maildata), "-o", str(out), "--model", "spam"]
    assert main([*base, "--max-rounds", "3"]) == 1
    assert "--max-rounds applies with --regime exhaustion" in capsys.readouterr().err
    assert main([*base, "--regime", "on-error", "--jobs", "2"]) == 1
    assert "--jobs counts mail on several processes with --regime all" in (capsys.readouterr().err)
    assert main([*base, "--regime", "on-error", "--ham-loss", "0.01"]) == 1
    err = capsys.readouterr().err
    assert "--ham-loss chooses cutoffs by cross-validation" in err and "--regime all" in err
    assert not out.exists()
    data = tmp_path / "d.csv"
    data.write_text("text,label\ncheap pills,spam\nmeeting notes,ham\n")
    text = tmp_path / "t.nbayes"
    assert main(["train", str(data), "-o", str(text), "--regime", "on-error"]) == 1
    assert "--regime applies to --model spam" in capsys.readouterr().err
    assert main(["train", str(data), "-o", str(text)]) == 0
    capsys.readouterr()
    assert main(["update", str(text), str(data), "--regime", "on-error"]) == 1
    assert f"--regime applies to spam filters, and {text} is not one" in capsys.readouterr().err
    assert main([*base]) == 0
    capsys.readouterr()
    assert main(["update", str(out), "--regime", "on-error"]) == 1
    assert "--regime says how DATA is learnt" in capsys.readouterr().err
    assert main(["update", str(out), str(maildata), "--regime", "all", "--max-rounds", "2"]) == 1
    assert "--max-rounds applies with --regime exhaustion" in capsys.readouterr().err


def test_tune_compares_presets_and_combinings_on_the_mail(
    maildata: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from nbayes.spam import compare_settings

    out = tmp_path / "best.nbayes"
    assert main(["tune", str(maildata), "--model", "spam", "--folds", "3",
                 "--combining", "chi2,mean", "--json", "--save", str(out)]) == 0  # fmt: skip
    got = json.loads(capsys.readouterr().out)
    pairs = [(m.data, lab) for m, lab in iter_classes(str(maildata), ("ham", "spam"))]
    grid = [{"preset": p, "combining": c} for p in ("nbayes", "bogofilter", "spambayes")
            for c in ("chi2", "mean")]  # fmt: skip
    scores, _ = compare_settings(SpamFilter(), [m for m, _ in pairs], [lab for _, lab in pairs],
                                 grid, cv=3)  # fmt: skip
    assert [r["params"] for r in got["results"]] == grid
    assert [r["spam_caught"] for r in got["results"]] == [list(s.caught) for s in scores]
    best = min(range(len(grid)), key=lambda j: tuple(-c for c in scores[j].caught))
    assert got["best_params"] == grid[best]
    assert min(r["rank"] for r in got["results"]) == 1
    saved = nbayes.load(out)  # the best setting, trained on all the mail
    assert (saved.preset, saved.combining) == (grid[best]["preset"], grid[best]["combining"])
    assert rows(saved) == rows(SpamFilter().fit([m for m, _ in pairs], [lab for _, lab in pairs]))
    assert main(["tune", str(maildata), "--model", "spam", "--folds", "3",
                 "--preset", "nbayes"]) == 0  # fmt: skip
    text = capsys.readouterr().out
    assert "3-fold cross-validation on 19 messages (12 ham, 7 spam)" in text
    assert "--preset nbayes --combining mean" in text and "best: --preset nbayes" in text


def test_what_tune_refuses_for_spam(maildata: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["tune", str(maildata), "--model", "spam"]
    for extra, said in (
        (["--alpha", "1"], "--alpha does not apply to --model spam"),
        (["--scoring", "f1"], "--scoring does not apply to --model spam"),
        (["--preset", "nbayes,foo"], "--preset takes names among nbayes, bogofilter, spambayes"),
        (["--combining", "fisher"], "--combining takes names among chi2, mean, naive_bayes"),
        (["--folds", "8"], "needs at least 8 messages of each class; got 12 ham and 7 spam: give "
                           "fewer --folds"),
    ):  # fmt: skip
        assert main([*base, *extra]) == 1
        assert said in capsys.readouterr().err
    assert main(["tune", str(maildata), "--preset", "nbayes"]) == 1
    assert "--preset applies to --model spam" in capsys.readouterr().err


def test_tune_chooses_each_settings_cutoffs_for_a_ham_loss(
    maildata: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from nbayes.spam import choose_cutoffs

    out = tmp_path / "best.nbayes"
    assert main(["tune", str(maildata), "--model", "spam", "--folds", "3", "--preset",
                 "spambayes", "--combining", "chi2", "--ham-loss", "0.1", "--spam-passed", "0.2",
                 "--json", "--save", str(out)]) == 0  # fmt: skip
    got = json.loads(capsys.readouterr().out)["results"][0]
    pairs = [(m.data, lab) for m, lab in iter_classes(str(maildata), ("ham", "spam"))]
    # the cutoffs choose_cutoffs chooses on the same folds
    messages, labels = [m for m, _ in pairs], [lab for _, lab in pairs]
    want = choose_cutoffs(SpamFilter(preset="spambayes"), messages, labels, ham_loss=0.1,
                          spam_passed=0.2, cv=3)  # fmt: skip
    assert got["cutoffs"] == want.__dict__
    saved = nbayes.load(out)
    assert (saved.ham_cutoff, saved.spam_cutoff) == (want.ham_cutoff, want.spam_cutoff)
    at = got["at_cutoffs"]
    assert at["ham_lost"] / at["n_ham"] == pytest.approx(want.ham_lost)
    assert main(["tune", str(maildata), "--model", "spam", "--spam-passed", "0.1"]) == 1
    assert "--spam-passed applies with --ham-loss" in capsys.readouterr().err
    assert main(["tune", str(maildata), "--ham-loss", "0.1"]) == 1
    assert "--ham-loss applies to --model spam" in capsys.readouterr().err


def test_empty_files_are_left_out_of_training_with_a_warning(
    maildata: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (maildata / "ham" / "zz-empty.eml").write_bytes(b"")
    (maildata / "spam" / "zz-blank.eml").write_bytes(b" \n\t\n")
    out = tmp_path / "m.nbayes"
    assert main(["train", str(maildata), "-o", str(out), "--model", "spam"]) == 0
    err = capsys.readouterr().err
    assert "2 empty message(s) left out (nothing but white space" in err
    assert "zz-empty.eml" in err
    f = nbayes.load(out)
    assert (f.table_.n_ham, f.table_.n_spam) == (12, 7)


def test_tune_ranks_by_the_ham_loss_asked_and_warns_of_a_cutoff_of_one(
    maildata: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    import dataclasses
    import json

    import nbayes.spam
    from nbayes.spam._cutoffs import cutoffs_of_scores

    assert main(["tune", str(maildata), "--model", "spam", "--folds", "3", "--ham-loss",
                 "0.2", "--json"]) == 0  # fmt: skip
    got = json.loads(capsys.readouterr().out)
    assert got["shares"] == [0.001, 0.005, 0.01, 0.2] and got["ham_loss"] == 0.2
    keys = [r["spam_caught"][3:] + r["spam_caught"][:3] for r in got["results"]]
    assert [r["rank"] for r in got["results"]] == [1 + sum(o > k for o in keys) for k in keys]
    # ham scored beyond what a cutoff below 1 tells (spamicity 1): the cutoff is 1, said
    assert cutoffs_of_scores([50.0, 1.0, 0.0], [60.0, 2.0], 0.0, 0.05).spam_cutoff == 1.0
    real = nbayes.spam.compare_settings

    def at_one(*args: object, **kwargs: object) -> object:
        scores, fitted = real(*args, **kwargs)  # type: ignore[arg-type]
        cut = [dataclasses.replace(s, cutoffs=dataclasses.replace(s.cutoffs, spam_cutoff=1.0))
               for s in scores]  # fmt: skip
        return cut, fitted

    monkeypatch.setattr(nbayes.spam, "compare_settings", at_one)
    assert main(["tune", str(maildata), "--model", "spam", "--folds", "3", "--ham-loss",
                 "0.01"]) == 0  # fmt: skip
    err = capsys.readouterr().err
    assert "no spam cutoff below 1 loses at most 1.00% of the held-out ham" in err
    assert "no message will be called spam" in err
