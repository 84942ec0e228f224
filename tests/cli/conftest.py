"""What the command-line tests share: a tiny corpus, running ``main`` in-process, checking
its one-line errors, writing CSV files."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pytest

from nbayes.cli import main

#: A tiny SMS-like corpus: every test that needs "some spam and some ham" uses it.
SPAM = (
    "WIN a FREE prize now, call to claim your cash",
    "Free entry: win money, txt WIN to 80086",
    "URGENT! You have won a cash prize, call now",
    "Claim your free ringtone, reply WIN",
)
HAM = (
    "Are we still meeting for lunch today?",
    "I'll call you when I get home",
    "Can you pick up some milk on the way home",
    "See you at the meeting tomorrow",
    "Lunch was great, thanks for today",
)


@pytest.fixture(scope="session")
def spam_ham() -> tuple[list[str], list[str]]:
    """``(spam, ham)``: lists of short messages of the two classes."""
    return list(SPAM), list(HAM)


def write_csv(path: Path, header: list[str], rows: list[list[Any]]) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: Any) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def assert_error(code: int, err: str, fragment: str) -> None:
    assert code == 1
    assert err.startswith("Error: ") and fragment in err, err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err


def assert_usage_error(code: int, err: str, fragment: str) -> None:
    """Bad arguments: one ``Error: ...`` line naming the flag, exit status 2."""
    assert code == 2, (code, err)
    assert err.startswith("Error: ") and fragment in err, err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err


@pytest.fixture
def texts_csv(tmp_path: Path, spam_ham: tuple[list[str], list[str]]) -> Path:
    spam, ham = spam_ham
    rows = [[t, "spam"] for t in spam] + [[t, "ham"] for t in ham]
    return write_csv(tmp_path / "sms.csv", ["text", "label"], rows)


@pytest.fixture
def text_model(tmp_path: Path, texts_csv: Path) -> Path:
    out = tmp_path / "spam.nbayes"
    assert main(["train", str(texts_csv), "-o", str(out), "-q"]) == 0
    return out
