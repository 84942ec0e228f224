"""Named settings of the Robinson-Fisher scoring and of the verdicts' cutoffs.

* ``"bogofilter"``: bogofilter 1.2.5's defaults (``robs=0.0178``, ``robx=0.52``,
  ``min_dev=0.375``, every clue, ``ham_cutoff=0.45``, ``spam_cutoff=0.99``);
* ``"spambayes"``: SpamBayes 1.1's (``unknown_word_strength=0.45``,
  ``unknown_word_prob=0.5``, ``minimum_prob_strength=0.1``, ``max_discriminators=150``,
  ``ham_cutoff=0.20``, ``spam_cutoff=0.90``);
* ``"nbayes"`` (the default): chosen by measurement on the SpamAssassin public corpus,
  designed on the first 60 % of its messages and checked on the rest (BENCHMARKS.md,
  "Spam filter"), and on the SMS spam collection; ``tail_weight=0.07`` decides the
  messages whose clues are overwhelming both ways (where Fisher's indicator is 1/2) by
  the ratio of the chi-square tails (:func:`~nbayes.spam.fisher_log_scores`), and
  ``min_dev=0.2`` leaves out the clues within 0.2 of 1/2, whose many small tilts then
  only move that ratio about (the two together, 2026-12-07: unsure 378 -> 263 in
  ``index.tsv`` order, bogofilter 577; before, ``tail_weight=0.003``, ``min_dev=0.1``;
  BENCHMARKS.md), and ``same_counts_min=10`` counts once the
  clues of tokens seen in the same numbers of ham and spam messages (in both classes, 10
  or more in all: a mailing list's footer, a phrase and its bigrams are one piece of
  evidence, not ten), and ``ham_bias=8`` lowers the log-odds of a message of k clues by
  8 / k (a verdict of spam on one or two clues needs them strong: chosen on the first 60 %
  of the SMS collection, where texts have few clues), and ``tile_bigrams=True`` drops a
  bigram clue that shares a word with a stronger bigram clue (SpamBayes' tiling of its
  experimental bigrams: "buy cheap", "cheap pills" and "pills now" are one phrase, not
  three independent clues; measured on random orders of the corpus and on the SMS
  collection, BENCHMARKS.md).
  The other two presets combine as their programs do (``tail_weight=0``,
  ``same_counts_min=0``, ``ham_bias=0``, no tiling).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PRESETS", "Preset"]


@dataclass(frozen=True, kw_only=True)
class Preset:
    """Scoring parameters (see :mod:`nbayes.spam._combining`) and cutoffs; a preset names
    what differs from Robinson's unbiased prior (x = 1/2), raw counts (no smoothing), 150
    clues, Fisher's indicator alone (no tail ratio, no bias) and every clue counted (none
    merged by their counts, no bigram dropped by tiling)."""

    s: float
    min_dev: float
    ham_cutoff: float
    spam_cutoff: float
    x: float = 0.5
    smoothing: float = 0.0
    max_clues: int | None = 150
    tail_weight: float = 0.0
    same_counts_min: int = 0
    ham_bias: float = 0.0
    tile_bigrams: bool = False


PRESETS: dict[str, Preset] = {
    "nbayes": Preset(
        s=0.1,
        min_dev=0.2,
        ham_cutoff=0.4,
        spam_cutoff=0.9,
        smoothing=1.0,
        tail_weight=0.07,
        same_counts_min=10,
        ham_bias=8.0,
        tile_bigrams=True,
    ),
    "bogofilter": Preset(
        s=0.0178, min_dev=0.375, ham_cutoff=0.45, spam_cutoff=0.99, x=0.52, max_clues=None
    ),
    "spambayes": Preset(s=0.45, min_dev=0.1, ham_cutoff=0.2, spam_cutoff=0.9),
}
"""Preset name -> its settings."""
