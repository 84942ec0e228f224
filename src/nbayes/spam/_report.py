"""How a spam filter did on labelled mail: verdict counts and spam caught at a ham loss.

:func:`verdict_report` counts the verdicts per true class (what ``nbayes eval`` prints for
a spam model); :func:`caught_at_ham_loss` is the issue's accuracy measure: the share of spam
caught by a threshold on the score that loses at most a given share of ham (ties count
against the filter: spam caught are those scoring strictly above the (k+1)-th highest ham
score, k = floor(share * n_ham)).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = ["VerdictReport", "caught_at_ham_loss", "ham_thresholds", "verdict_report"]


@dataclass(frozen=True)
class VerdictReport:
    """Verdicts per true class.

    Attributes
    ----------
    n_ham, n_spam : int
    ham_lost : int
        Ham classified spam.
    ham_unsure, spam_unsure : int
    spam_caught : int
        Spam classified spam.
    spam_passed : int
        Spam classified ham.
    """

    n_ham: int
    n_spam: int
    ham_lost: int
    ham_unsure: int
    spam_caught: int
    spam_unsure: int
    spam_passed: int

    @property
    def unsure(self) -> int:
        return self.ham_unsure + self.spam_unsure

    def shares(self) -> dict[str, float]:
        """Each count as a share of its class (unsure: of all messages)."""

        def share(k: int, n: int) -> float:
            return k / n if n else math.nan

        return {
            "ham_lost": share(self.ham_lost, self.n_ham),
            "spam_caught": share(self.spam_caught, self.n_spam),
            "spam_passed": share(self.spam_passed, self.n_spam),
            "unsure": share(self.unsure, self.n_ham + self.n_spam),
        }


def verdict_report(
    labels: Iterable[str], verdicts: Iterable[str], *, names: tuple[str, str] = ("ham", "spam")
) -> VerdictReport:
    """Count ``verdicts`` (``names[0]``, ``"unsure"``, ``names[1]``) against ``labels``.

    >>> verdict_report(["ham", "ham", "spam", "spam"], ["ham", "spam", "unsure", "spam"])
    VerdictReport(n_ham=2, n_spam=2, ham_lost=1, ham_unsure=0, spam_caught=1, spam_unsure=1,
                  spam_passed=0)
    """
    ham, spam = names
    counts = {(y, v): 0 for y in (ham, spam) for v in (ham, "unsure", spam)}
    for y, v in zip(labels, verdicts, strict=True):
        if (y, v) not in counts:
            raise ValueError(
                f"label {y!r} with verdict {v!r}: labels are {ham!r} or {spam!r}, verdicts "
                f"{ham!r}, 'unsure' or {spam!r}"
            )
        counts[(y, v)] += 1
    return VerdictReport(
        n_ham=sum(counts[(ham, v)] for v in (ham, "unsure", spam)),
        n_spam=sum(counts[(spam, v)] for v in (ham, "unsure", spam)),
        ham_lost=counts[(ham, spam)],
        ham_unsure=counts[(ham, "unsure")],
        spam_caught=counts[(spam, spam)],
        spam_unsure=counts[(spam, "unsure")],
        spam_passed=counts[(spam, ham)],
    )


def caught_at_ham_loss(
    scores: Sequence[float],
    labels: Sequence[str],
    shares: Sequence[float] = (0.001, 0.005, 0.01),
    *,
    names: tuple[str, str] = ("ham", "spam"),
) -> list[float]:
    """The share of spam caught at each ham-loss share (scores: higher is spammier, e.g.
    :meth:`SpamFilter.decision_function`).

    >>> caught_at_ham_loss([5.0, 1.0, 0.0, 3.0, 2.0, 0.5], ["spam", "ham", "ham", "spam",
    ...                    "spam", "spam"], shares=(0.0, 0.5))
    [0.75, 1.0]
    """
    _, spam, thresholds = ham_thresholds(scores, labels, shares, names=names)
    return [sum(s > t for s in spam) / len(spam) for t in thresholds]


def ham_thresholds(
    scores: Sequence[float],
    labels: Sequence[str],
    shares: Sequence[float],
    *,
    names: tuple[str, str] = ("ham", "spam"),
) -> tuple[list[float], list[float], list[float]]:
    """The ham's scores (highest first), the spam's, and per ham-loss share the (k+1)-th
    highest ham score, k = floor(share * n_ham): a score above it loses at most that share
    of the ham. ValueError without both classes, or for a share outside [0, 1).

    >>> ham_thresholds([3.0, 1.0, 2.0, 0.0], ["ham", "ham", "spam", "ham"], [0.0, 0.5])[2]
    [3.0, 1.0]
    """
    ham_name, spam_name = names
    ham = sorted((s for s, y in zip(scores, labels, strict=True) if y == ham_name), reverse=True)
    spam = [s for s, y in zip(scores, labels, strict=True) if y == spam_name]
    if not ham or not spam:
        raise ValueError("a ham loss's threshold needs the scores of both ham and spam")
    out = []
    for share in shares:
        if not 0.0 <= share < 1.0:
            raise ValueError(f"a ham-loss share is in [0, 1); got {share!r}")
        out.append(ham[int(math.floor(share * len(ham) + 1e-9))])
    return ham, spam, out
