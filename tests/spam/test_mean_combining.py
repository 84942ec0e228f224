"""``SpamFilter(combining="mean")``: twice the clues' mean log-odds, less the bias of few
clues, shrunk while the filter is young; the same on every path (raw mail or token sets,
a large table, a saved file, ``nbayes filter``, a merge)."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import nbayes
from nbayes.spam import SpamFilter, mean_log_odds

HAM = [
    b"Subject: minutes\n\nproject meeting notes for the build team",
    b"Subject: build\n\nthe build failed again, see the meeting notes",
    b"Subject: lunch\n\nlunch with the team after the project meeting",
    b"Subject: review\n\nplease review the build script before lunch",
]
SPAM = [
    b"Subject: win\n\ncheap pills now, win cash now",
    b"Subject: offer\n\ncheap cash offer, click now to win",
    b"Subject: pills\n\nbuy cheap pills, free offer now",
]
PROBE = b"Subject: cash\n\ncheap offer for the project team: win pills now"


def _filter(**params: object) -> SpamFilter:
    return SpamFilter(combining="mean", **params).fit(HAM + SPAM, ["ham"] * 4 + ["spam"] * 3)


def _by_hand(f: SpamFilter, message: bytes) -> float:
    """The log-odds from the clues' f(w) as ``clues`` lists them, by the formula."""
    used = f.clues(message).used()
    k = len(used)
    z = 2 * math.fsum(math.log(c.f / (1 - c.f)) for c in used) / k - 8.0 / k
    n_ham, n_spam = f.class_count_
    every = (n_ham + n_spam) / (n_ham + n_spam + 30)
    seen = n_ham if z > 0 else n_spam
    return z * max(seen / (seen + 10), every)


def test_the_log_odds_are_the_formula() -> None:
    f = _filter()
    got = f.classify([PROBE])[0]
    assert got.log_odds == pytest.approx(_by_hand(f, PROBE), abs=1e-9)
    assert got.spamicity == pytest.approx(1 / (1 + math.exp(-got.log_odds)), rel=1e-12)
    chi2 = SpamFilter().fit(HAM + SPAM, ["ham"] * 4 + ["spam"] * 3)
    assert chi2.classify([PROBE])[0].log_odds != pytest.approx(got.log_odds, abs=1e-3)


def test_a_young_filter_trusts_a_side_once_it_knows_the_other_class() -> None:
    """Three spam and no ham learnt: every token is "never in ham", which means little
    yet. The spam-leaning score is shrunk by max(0 / 10, 3 / 33)."""
    f = SpamFilter(combining="mean").fit(SPAM, ["spam"] * 3)
    clues = f.clues(PROBE)
    k = clues.n_used
    z = 2 * math.fsum(math.log(c.f / (1 - c.f)) for c in clues.used()) / k - 8.0 / k
    assert z > 0
    assert clues.verdict.log_odds == pytest.approx(z * 3 / 33, rel=1e-12)
    text = "\n".join(clues.lines())
    assert f"combined by their mean: 2 x the mean of ln(f / (1 - f)) = {z + 8 / k:.2f}" in text
    assert "then x 0.091 (0 ham and 3 spam learnt" in text
    assert mean_log_odds(0.0, 0.0, 0, 8.0, 0, 3) == 0.0  # no clues: 1/2


def test_every_clue_unless_a_cap_is_set() -> None:
    assert _filter().effective_params_.max_clues is None
    assert (
        SpamFilter().fit(HAM + SPAM, ["ham"] * 4 + ["spam"] * 3).effective_params_.max_clues == 150
    )
    capped = _filter(max_clues=2)
    assert capped.clues(PROBE).n_used == 2
    assert capped.classify([PROBE])[0].log_odds == pytest.approx(_by_hand(capped, PROBE), abs=1e-9)


def test_the_same_on_every_path(tmp_path: Path) -> None:
    f = _filter()
    messages = [PROBE, *HAM, *SPAM, b"Subject: hello\n\nnothing known here"]
    want = f.spamicity(messages)
    assert np.array_equal(f.spamicity([f.tokenize(m) for m in messages]), want)
    path = tmp_path / "mean.nbayes"
    nbayes.save(f, path)
    loaded = nbayes.load(path)
    assert loaded.combining == "mean" and np.array_equal(loaded.spamicity(messages), want)
    files = []
    for i, m in enumerate(messages):
        files.append(tmp_path / f"{i}.eml")
        files[-1].write_bytes(m)
    out = subprocess.run(  # the lean path of a delivery: no estimator loaded
        [sys.executable, "-m", "nbayes", "filter", str(path), *map(str, files)],
        capture_output=True, text=True, check=True, timeout=120,
    ).stdout  # fmt: skip
    printed = [float(line.split()[1]) for line in out.splitlines()]
    assert printed == [float(f"{s:.6f}") for s in want]
    # a merge of two halves scores as one filter of everything (the sums are fsum's)
    a = SpamFilter(combining="mean").fit(HAM[:2] + SPAM[:1], ["ham", "ham", "spam"])
    b = SpamFilter(combining="mean").fit(HAM[2:] + SPAM[1:], ["ham", "ham", "spam", "spam"])
    assert np.array_equal(a.merge(b).spamicity(messages), want)


def test_a_large_table_is_combined_by_the_mean_too() -> None:
    """Past 32,768 tokens a filter scores raw mail in the compiled text kernel, which
    combines Fisher's way: a mean filter must not go there."""
    big = frozenset(f"filler{i}" for i in range(33_000))
    f = _filter()
    f.partial_fit([big], ["ham"])
    assert len(f.table_.row_tokens) >= SpamFilter._INDEXED_ROWS
    raw = f.spamicity([PROBE])[0]
    assert raw == f.spamicity([f.tokenize(PROBE)])[0]
    assert f.classify([PROBE])[0].log_odds == pytest.approx(_by_hand(f, PROBE), abs=1e-9)


def test_an_unknown_combining_names_the_three() -> None:
    with pytest.raises(ValueError, match="must be 'chi2', 'mean' or 'naive_bayes'. Got 'avg'"):
        SpamFilter(combining="avg").fit(HAM + SPAM, ["ham"] * 4 + ["spam"] * 3)
