"""Cutoffs for a target ham loss, by count-subtraction cross-validation.

The filter is trained once on every message; each fold is then scored by that filter
minus the fold's own counts (exact: unlearning subtracts what learning added), as
:mod:`nbayes.model_selection` scores its folds ("totals minus the fold"). The spam cutoff
catches the spam that a cutoff sending at most ``ham_loss`` of the held-out ham to spam can
catch, the ham cutoff calls ham the ham that one letting at most ``spam_passed`` of the
held-out spam through can; each sits midway (in log-odds) between the last message it keeps
on its side and the first it does not, so that it spends no more of its budget than those
verdicts need. Between them lies the unsure band.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from nbayes.spam._combining import logit
from nbayes.spam._filter import MessageLike, SpamFilter
from nbayes.spam._report import ham_thresholds

__all__ = [
    "CutoffAtHamLoss",
    "CutoffChoice",
    "choose_cutoffs",
    "cutoffs_of_scores",
    "spam_cutoffs_at_ham_loss",
]


@dataclass(frozen=True)
class CutoffChoice:
    """Cutoffs chosen by :func:`choose_cutoffs`, and what cross-validation expects of them.

    Attributes
    ----------
    ham_cutoff, spam_cutoff : float
    ham_lost, spam_passed, unsure : float
        Shares of the held-out ham sent to spam, of the held-out spam let through as ham,
        and of all held-out messages left unsure, at these cutoffs.
    """

    ham_cutoff: float
    spam_cutoff: float
    ham_lost: float
    spam_passed: float
    unsure: float

    def apply(self, spam_filter: SpamFilter) -> SpamFilter:
        """Set these cutoffs on ``spam_filter`` (its ``set_params``)."""
        return spam_filter.set_params(ham_cutoff=self.ham_cutoff, spam_cutoff=self.spam_cutoff)


def _probability(z: float) -> float:
    """The sigmoid of ``z``, to a few ulps (0.0 and 1.0 at the ends, no overflow)."""
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def _cutoff_above(z: float) -> float:
    """The least cutoff whose log-odds (as a verdict compares them: :func:`logit`) is
    above ``z``; 1.0 beyond what a cutoff below 1.0 expresses. (The sigmoid of the next
    float above ``z`` is not it: the round trip through ``logit`` loses a few ulps.)

    >>> z = 1.1803378356750316
    >>> logit(_probability(math.nextafter(z, math.inf))) > z, logit(_cutoff_above(z)) > z
    (False, True)
    """
    p = _probability(z)  # (a few ulps from the answer: logit is monotone)
    while p < 1.0 and logit(p) <= z:
        p = math.nextafter(p, 1.0)
    while p > 0.0 and logit(q := math.nextafter(p, 0.0)) > z:
        p = q
    return p


def _cutoff_below(z: float) -> float:
    """The greatest cutoff whose log-odds is below ``z``; 0.0 below what a cutoff above
    0.0 expresses (:func:`_cutoff_above` mirrored).

    >>> b = _cutoff_below(-100.0)
    >>> logit(b) < -100.0 <= logit(math.nextafter(b, 1.0)), b > 0.0
    (True, True)
    """
    p = _probability(z)
    while p > 0.0 and logit(p) >= z:
        p = math.nextafter(p, 0.0)
    while p < 1.0 and logit(q := math.nextafter(p, 1.0)) < z:
        p = q
    return p


def choose_cutoffs(
    spam_filter: SpamFilter,
    messages: Iterable[MessageLike],
    labels: Iterable[str],
    *,
    ham_loss: float = 0.001,
    spam_passed: float = 0.05,
    cv: int = 5,
    random_state: int | None = 0,
) -> CutoffChoice:
    """Choose ``ham_cutoff`` and ``spam_cutoff`` for ``spam_filter``'s settings.

    Parameters
    ----------
    spam_filter : SpamFilter
        Its hyperparameters are used (it is not changed: see :meth:`CutoffChoice.apply`).
    messages, labels
        Labelled mail, at least ``cv`` messages of each class.
    ham_loss : float in [0, 1)
        The share of ham that may be classified spam.
    spam_passed : float in [0, 1)
        The share of spam that may be classified ham.
    cv : int >= 2
        Folds (stratified, shuffled with ``random_state``).

    Examples
    --------
    >>> ham = [f"Subject: notes {i}\\n\\nminutes of meeting {i} attached".encode()
    ...        for i in range(10)]
    >>> spam = [f"Subject: offer {i}\\n\\ncheap pills offer {i} click now".encode()
    ...         for i in range(10)]
    >>> choice = choose_cutoffs(SpamFilter(), ham + spam, ["ham"] * 10 + ["spam"] * 10)
    >>> choice.ham_lost, choice.spam_passed
    (0.0, 0.0)
    """
    from nbayes.spam._compare import compare_settings  # (it reads this module's folds)

    if ham_loss is None:  # (compare_settings reads None as "no cutoffs to choose")
        raise ValueError(f"ham_loss must be a share in [0, 1); got {ham_loss!r}")
    scores, _ = compare_settings(
        spam_filter, messages, labels, [{}], cv=cv, random_state=random_state,
        ham_loss=ham_loss, spam_passed=spam_passed,
    )  # fmt: skip
    assert scores[0].cutoffs is not None
    return scores[0].cutoffs


def _cutoff_between(low: float, high: float) -> float | None:
    """A cutoff whose log-odds lies in ``(low, high]``, midway if a cutoff expresses it;
    else the greatest cutoff below 1, or the least above ``low``, if one lies there; else
    None (near 1, cutoffs are too coarse to part some log-odds). A spam cutoff there
    calls spam what scores above ``low``, and no more.

    >>> round(logit(_cutoff_between(1.0, 3.0)), 12), _cutoff_between(2.0, 400.0) < 1.0
    (2.0, True)
    """
    if math.isfinite(low) and math.isfinite(high):
        cut = _cutoff_above(low + (high - low) / 2)
        if logit(cut) <= high:
            return cut
    for cut in (math.nextafter(1.0, 0.0), _cutoff_above(low)):
        if low < logit(cut) <= high:
            return cut
    return None


def _spam_cutoff(ham: Sequence[float], spam: Sequence[float], threshold: float) -> float:
    """A spam cutoff that catches the spam above ``threshold`` (a ham's score: the
    (k+1)-th highest for a loss of at most k ham), midway between the lowest of them and
    the highest ham below that spam, so that the ham between are not lost for no spam.
    With no spam above ``threshold``: above every ham. Where no cutoff parts them: the
    least above ``threshold``."""
    caught = [z for z in spam if z > threshold]
    if not caught:
        return _cutoff_above(max(ham))
    lowest = min(caught)
    cut = _cutoff_between(max(z for z in ham if z < lowest), lowest)
    return _cutoff_above(threshold) if cut is None else cut


def _cutoff_under(low: float, high: float) -> float | None:
    """A cutoff whose log-odds lies in ``[low, high)``, or None: :func:`_cutoff_between`
    mirrored (a ham cutoff there calls ham what scores below ``high``, and no more).

    >>> round(logit(_cutoff_under(-3.0, -1.0)), 12), _cutoff_under(-900.0, -2.0) > 0.0
    (-2.0, True)
    """
    if math.isfinite(low) and math.isfinite(high):
        cut = _cutoff_below(low + (high - low) / 2)
        if logit(cut) >= low:
            return cut
    for cut in (math.nextafter(0.0, 1.0), _cutoff_below(high)):
        if low <= logit(cut) < high:
            return cut
    return None


def _ham_cutoff(ham: Sequence[float], spam: Sequence[float], k: int) -> float:
    """The ham cutoff that lets at most ``k`` spam through (``spam`` lowest first), the
    mirror of :func:`_spam_cutoff`: midway between the highest ham below the (k+1)-th
    lowest spam and the lowest spam above that ham. Below every spam if no ham is below
    the (k+1)-th; where no cutoff parts them, the greatest below the (k+1)-th spam."""
    kept = [z for z in ham if z < spam[k]]
    if not kept:
        return _cutoff_below(spam[0])
    highest = max(kept)
    cut = _cutoff_under(highest, min(z for z in spam if z > highest))
    return _cutoff_below(spam[k]) if cut is None else cut


def cutoffs_of_scores(
    ham_scores: Sequence[float], spam_scores: Sequence[float], ham_loss: float,
    spam_passed: float,
) -> CutoffChoice:  # fmt: skip
    """The cutoffs of held-out log-odds (``choose_cutoffs``' and ``compare_settings``'):
    the spam cutoff catches the spam above the (k+1)-th highest ham, k = floor(ham_loss *
    n_ham), the ham cutoff calls ham the ham below the (k+1)-th lowest spam (ties go
    against the filter), each midway between those verdicts' last message and the next
    (:func:`_spam_cutoff`), the ham cutoff at most the spam cutoff; and the shares they
    give on these scores.

    >>> c = cutoffs_of_scores([4.0, 3.0, -1.0, -2.0], [5.0, 6.0, 0.0], 0.25, 0.0)
    >>> round(logit(c.spam_cutoff), 12), round(logit(c.ham_cutoff), 12), c.ham_lost
    (4.5, -0.5, 0.0)
    """
    ham = sorted(ham_scores, reverse=True)
    spam = sorted(spam_scores)
    k_ham = int(math.floor(ham_loss * len(ham) + 1e-9))
    k_spam = int(math.floor(spam_passed * len(spam) + 1e-9))
    spam_cut = _spam_cutoff(ham, spam, ham[k_ham])
    ham_cut = min(_ham_cutoff(ham, spam, k_spam), spam_cut)
    lo_ham, lo_spam = logit(ham_cut), logit(spam_cut)
    lost = sum(z >= lo_spam for z in ham)
    passed = sum(z <= lo_ham and z < lo_spam for z in spam)  # (a verdict asks spam first)
    unsure = sum(lo_ham < z < lo_spam for z in ham + spam)
    return CutoffChoice(
        ham_cut, spam_cut, lost / len(ham), passed / len(spam), unsure / (len(ham) + len(spam))
    )


@dataclass(frozen=True)
class CutoffAtHamLoss:
    """A spam cutoff for a ham-loss share (:func:`spam_cutoffs_at_ham_loss`), and what
    its verdicts give on the mail it was chosen on."""

    ham_loss: float
    spam_cutoff: float
    ham_lost: float
    spam_caught: float


def spam_cutoffs_at_ham_loss(
    log_odds: Sequence[float],
    labels: Sequence[str],
    shares: Sequence[float] = (0.001, 0.005, 0.01),
    *,
    names: tuple[str, str] = ("ham", "spam"),
) -> list[CutoffAtHamLoss]:
    """Per ham-loss share, a ``spam_cutoff`` whose spam verdicts catch all the spam that
    losing at most that share of the ham of scored mail can catch (the messages' log-odds,
    as :class:`Verdict` has them), midway between the lowest of that spam and the highest
    ham below it (so it loses no ham the spam does not need), and the shares of ham lost
    and spam caught there, counted as the verdicts compare (``log_odds >=
    logit(spam_cutoff)``); on mail not learnt, it tells where to set the cutoff for a ham
    loss. ValueError without both classes.

    >>> [(c.spam_cutoff > 0.5, c.ham_lost, c.spam_caught) for c in spam_cutoffs_at_ham_loss(
    ...     [5.0, 1.0, 0.0, 3.0, 2.0, 0.5], ["spam", "ham", "ham", "spam", "spam", "spam"],
    ...     shares=(0.0, 0.5))]
    [(True, 0.0, 0.75), (True, 0.5, 1.0)]
    """
    ham, spam, thresholds = ham_thresholds(log_odds, labels, shares, names=names)
    out = []
    for share, threshold in zip(shares, thresholds, strict=True):
        cut = _spam_cutoff(ham, spam, threshold)
        lo = logit(cut)
        out.append(
            CutoffAtHamLoss(
                share,
                cut,
                sum(z >= lo for z in ham) / len(ham),
                sum(z >= lo for z in spam) / len(spam),
            )
        )
    return out


def _stratified_folds(flags: list[bool], cv: int, random_state: Any) -> list[list[int]]:
    rng = random.Random(random_state)
    folds: list[list[int]] = [[] for _ in range(cv)]
    for cls in (False, True):
        rows = [i for i, f in enumerate(flags) if f is cls]
        rng.shuffle(rows)
        for j, i in enumerate(rows):
            folds[j % cv].append(i)
    return [sorted(f) for f in folds]
