"""Scoring settings compared on one's own mail, by count-subtraction cross-validation.

Which combining and which preset suit a mailbox is a matter of the mail (the SpamAssassin
corpus in its own order favours Fisher's chi-square, the same mail in random orders and
the SMS collection the clues' mean: BENCHMARKS.md). :func:`compare_settings` measures them
on labelled mail: the filter is trained once, each fold is scored by the filter minus the
fold's counts (exact), and every setting scores the same held-out messages from the same
counts, since a setting of the scoring changes no count. The tokens are counted once, so
the tokenizer is not a setting here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from nbayes.spam._combining import logit
from nbayes.spam._cutoffs import CutoffChoice, _stratified_folds, cutoffs_of_scores
from nbayes.spam._filter import MessageLike, SpamFilter
from nbayes.spam._report import VerdictReport, caught_at_ham_loss, verdict_report

__all__ = ["SettingScore", "compare_settings"]

#: the parameters that do not change the scoring of a fitted filter's counts, or change
#: the counts themselves: not compared
_NOT_SETTINGS = ("tokenizer", "labels")


@dataclass(frozen=True)
class SettingScore:
    """How one setting did on the held-out mail of :func:`compare_settings`.

    Attributes
    ----------
    params : dict
        The parameters set (on top of the filter's own).
    caught : tuple of float
        The share of the held-out spam caught at each ham-loss share (a threshold on the
        held-out log-odds, ties against the filter; :func:`caught_at_ham_loss`).
    report : VerdictReport
        The held-out verdicts at the setting's own cutoffs, or at ``cutoffs``.
    cutoffs : CutoffChoice or None
        With ``ham_loss``: the cutoffs chosen for it on the held-out log-odds (as
        :func:`choose_cutoffs` chooses them).
    """

    params: dict[str, Any]
    caught: tuple[float, ...]
    report: VerdictReport
    cutoffs: CutoffChoice | None = None


def compare_settings(
    spam_filter: SpamFilter,
    messages: Iterable[MessageLike],
    labels: Iterable[str],
    settings: Sequence[Mapping[str, Any]],
    *,
    shares: Sequence[float] = (0.001, 0.005, 0.01),
    cv: int = 5,
    random_state: int | None = 0,
    ham_loss: float | None = None,
    spam_passed: float = 0.05,
    progress: Callable[[int], object] | None = None,
) -> tuple[list[SettingScore], SpamFilter]:
    """Score each of ``settings`` (scoring parameters, e.g. ``{"combining": "mean"}``) on
    ``messages`` by ``cv``-fold cross-validation, every setting on the same folds. With
    ``ham_loss`` (and ``spam_passed``), each setting's cutoffs are chosen for it on its
    held-out log-odds, and its verdicts counted at them. ``progress(n)`` is called as
    every n held-out messages are scored by a setting (``len(messages) * len(settings)`` in
    all); token sets (:meth:`SpamFilter.tokenize`) are taken as they are.

    Returns the scores, in the order of ``settings``, and the filter trained on every
    message (``spam_filter``'s parameters; set the best setting's on it to keep it).

    >>> ham = [f"Subject: notes {i}\\n\\nminutes of meeting {i} on the budget".encode()
    ...        for i in range(12)]
    >>> spam = [f"Subject: offer {i}\\n\\ncheap pills offer {i} click now".encode()
    ...         for i in range(12)]
    >>> scores, fitted = compare_settings(SpamFilter(), ham + spam, ["ham"] * 12 + ["spam"] * 12,
    ...                                   [{}, {"combining": "mean"}])
    >>> [s.caught for s in scores], fitted.table_.n_ham
    ([(1.0, 1.0, 1.0), (1.0, 1.0, 1.0)], 12)
    """
    if not settings:
        raise ValueError("compare_settings needs at least one setting to score")
    for setting in settings:
        bad = [k for k in setting if k in _NOT_SETTINGS]
        if bad:
            raise ValueError(
                f"{bad[0]!r} is not a scoring setting: the tokens are counted once for all "
                "the settings (compare tokenizers by training a filter with each)"
            )
    if isinstance(cv, bool) or not isinstance(cv, int) or cv < 2:
        raise ValueError(f"cv must be an int >= 2; got {cv!r}")
    for name, value in (("ham_loss", ham_loss), ("spam_passed", spam_passed)):
        if value is not None and not (isinstance(value, int | float) and 0.0 <= value < 1.0):
            raise ValueError(f"{name} must be a share in [0, 1); got {value!r}")
    own = spam_filter.get_params(deep=False)
    for setting in settings:  # each checked before any work (an unknown name, a bad value)
        SpamFilter(**{**own, **setting})._settings()
    model = SpamFilter(**own)
    sets = model._token_sets(messages)
    flags = model._spam_flags(labels, len(sets))
    n_spam = sum(flags)
    if min(len(flags) - n_spam, n_spam) < cv:
        raise ValueError(
            f"{cv}-fold cross-validation needs at least {cv} messages of each class; got "
            f"{len(flags) - n_spam} ham and {n_spam} spam"
        )
    names = [model._label(f) for f in flags]
    model.fit(sets, names)
    log_odds: list[list[float]] = [[0.0] * len(sets) for _ in settings]
    verdicts: list[list[str]] = [[""] * len(sets) for _ in settings]
    for fold in _stratified_folds(flags, cv, random_state):
        held = [sets[i] for i in fold]
        held_names = [names[i] for i in fold]
        model.unlearn(held, held_names)
        for j, setting in enumerate(settings):
            model.set_params(**{**own, **setting})
            for i, v in zip(fold, model.classify(held), strict=True):
                log_odds[j][i] = v.log_odds
                verdicts[j][i] = v.verdict
            if progress is not None:
                progress(len(fold))
        model.set_params(**own)
        model.partial_fit(held, held_names)
    truth = ["spam" if f else "ham" for f in flags]
    scores = []
    for j, setting in enumerate(settings):
        chosen = None
        if ham_loss is not None:
            z = log_odds[j]
            chosen = cutoffs_of_scores(
                [z[i] for i, f in enumerate(flags) if not f],
                [z[i] for i, f in enumerate(flags) if f],
                ham_loss,
                spam_passed,
            )
            lo_ham, lo_spam = logit(chosen.ham_cutoff), logit(chosen.spam_cutoff)
            verdicts[j] = [
                "spam" if x >= lo_spam else "ham" if x <= lo_ham else "unsure" for x in z
            ]
        scores.append(
            SettingScore(
                dict(setting),
                tuple(caught_at_ham_loss(log_odds[j], truth, shares)),
                verdict_report(truth, verdicts[j]),
                chosen,
            )
        )
    return scores, model
