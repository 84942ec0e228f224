"""How a message's clues show: ``print`` and IPython's terminal (the lines of ``nbayes
explain``), a notebook's Markdown and HTML. Before, a notebook showed the dataclass's dump
(``Clues(verdict=Verdict(...), clues=[Clue(token=...), ...])``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import nbayes
from nbayes.cli import main
from nbayes.spam import SpamFilter
from nbayes.spam._filter import Clue, Clues, Verdict
from nbayes.spam._view import SHOWN_CLUES

HAM = [
    b"Subject: minutes\n\nthe minutes of the project meeting are attached, see you monday",
    b"Subject: lunch\n\nlunch with the project team on friday, the usual place",
]
SPAM = [
    b"Subject: cheap pills\n\nbuy cheap pills now!! best price guaranteed, click here",
    b"Subject: winner\n\nyou are a winner! claim your prize now, click here to claim",
]
MESSAGE = b"Subject: cheap lunch\n\nclick here for cheap pills, project meeting monday"


@pytest.fixture
def clues() -> Clues:
    return SpamFilter().fit(HAM + SPAM, ["ham", "ham", "spam", "spam"]).clues(MESSAGE)


def test_print_shows_what_nbayes_explain_prints(
    clues: Clues, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = SpamFilter().fit(HAM + SPAM, ["ham", "ham", "spam", "spam"])
    nbayes.save(f, tmp_path / "m.nbayes")
    (tmp_path / "m.eml").write_bytes(MESSAGE)
    assert main(["explain", str(tmp_path / "m.nbayes"), str(tmp_path / "m.eml"), "--top", "0"]) == 0
    assert capsys.readouterr().out == str(clues) + "\n"
    lines = str(clues).splitlines()
    v = clues.verdict
    assert lines[0] == f"{v.verdict} (spamicity {v.spamicity:.6f}, log-odds {v.log_odds:.2f})"
    assert lines[1].startswith(f"{clues.n_used} clues combined (")
    assert "strongest spam clues:" in lines and "strongest ham clues:" in lines
    assert not repr(clues).startswith(lines[0])  # (repr stays the dataclass's)


def test_a_notebook_shows_a_table_per_side(clues: Clues) -> None:
    page = clues._repr_html_()
    assert page.count("<table") == 2 and "strongest spam clues" in page
    used = clues.used()
    for c in used:
        assert f"<code>{c.token}</code>" in page and f"{c.f:.4f}" in page
    # the bar is as long as the clue's distance from 1/2 (80 px at 0 or 1)
    bars = [int(w) for w in re.findall(r"width:(\d+)px", page)]
    assert bars == [round(abs(c.f - 0.5) * 160) for c in _by_side(used)]
    md = clues._repr_markdown_()
    assert md.startswith(f"**{clues.verdict.verdict}** (spamicity ")
    assert md.count("| token | f(w) | ham | spam |") == 2


def _by_side(used: list[Clue]) -> list[Clue]:
    return [c for c in used if c.side == "spam"] + [c for c in used if c.side == "ham"]


def test_tokens_are_escaped_and_long_lists_cut() -> None:
    many = [Clue(f"w{i}", 0.99 - i * 0.001, 0, 3, "spam") for i in range(SHOWN_CLUES + 5)]
    odd = [Clue("<script>a|b&", 0.01, 5, 0, "ham"), Clue("x", 0.5, 1, 1, "unused")]
    clues = Clues(Verdict("unsure", 0.5, 0.0), many + odd, len(many) + 1)
    page = clues._repr_html_()
    assert "<script>" not in page and "&lt;script&gt;a|b&amp;" in page
    assert f"({SHOWN_CLUES} of {len(many)}; <code>clues.used()</code>: all)" in page
    assert page.count("<tr>") == SHOWN_CLUES + 1 + 2  # the rows shown and two heads
    assert r"`<script>a\|b&`" in clues._repr_markdown_()
    assert len(str(clues).splitlines()) == 2 + 2 + len(many) + 1  # every clue in text


def test_top_is_a_count(clues: Clues) -> None:
    assert len(clues.lines(top=1)) < len(clues.lines())
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="top is how many clues of each side"):
            clues.lines(top=bad)  # type: ignore[arg-type]
