"""Fixtures of the spam filter's tests."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

import nbayes
from nbayes.cli import main
from nbayes.spam import SpamFilter


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small spam filter's model file (two ham, two spam), to copy before changing."""
    ham = [b"Subject: minutes\n\nproject meeting notes", b"Subject: build\n\nbuild failed"]
    spam = [b"Subject: win\n\ncheap pills now", b"Subject: offer\n\ncheap cash offer"]
    f = SpamFilter().fit(ham + spam, ["ham", "ham", "spam", "spam"])
    path = tmp_path_factory.mktemp("model") / "spam.nbayes"
    nbayes.save(f, path)
    return path


def run(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    *argv: object,
    stdin: bytes = b"",
) -> tuple[int, str, str]:
    """``nbayes ARGV`` in this process, ``stdin`` on its standard input: the exit status,
    standard output and standard error."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err
