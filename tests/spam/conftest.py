"""Fixtures of the spam filter's tests."""

from __future__ import annotations

from pathlib import Path

import pytest

import nbayes
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
