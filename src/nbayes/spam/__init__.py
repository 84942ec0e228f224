"""The spam filter: :class:`SpamFilter` (Robinson-Fisher scoring over e-mail tokens, with
ham / unsure / spam verdicts), its scoring math and its statistics.

Importing it loads neither numpy, scikit-learn nor scipy; each name is imported when first
used (:class:`SpamFilter` and its scoring need the standard library only; its array
results, the cutoffs and the bulk scoring import numpy).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nbayes.spam._bulk import classify_each, classify_many
    from nbayes.spam._combining import (
        chi2_log_cdf,
        chi2_log_sf,
        fisher_log_scores,
        mean_log_odds,
        robinson_f,
    )
    from nbayes.spam._compare import SettingScore, compare_settings
    from nbayes.spam._cutoffs import (
        CutoffAtHamLoss,
        CutoffChoice,
        choose_cutoffs,
        spam_cutoffs_at_ham_loss,
    )
    from nbayes.spam._filter import Clue, Clues, SpamFilter, Verdict
    from nbayes.spam._presets import PRESETS, Preset
    from nbayes.spam._report import VerdictReport, caught_at_ham_loss, verdict_report
    from nbayes.spam._scorer import SpamScorer
    from nbayes.spam._table import TokenTable

# each name is imported on first use: `nbayes filter` loads the scoring (standard library
# only), not the cutoffs' cross-validation or the bulk scoring's processes
_LAZY = {
    "classify_each": "_bulk",
    "classify_many": "_bulk",
    "SettingScore": "_compare",
    "compare_settings": "_compare",
    "chi2_log_cdf": "_combining",
    "chi2_log_sf": "_combining",
    "fisher_log_scores": "_combining",
    "mean_log_odds": "_combining",
    "robinson_f": "_combining",
    "CutoffAtHamLoss": "_cutoffs",
    "CutoffChoice": "_cutoffs",
    "choose_cutoffs": "_cutoffs",
    "spam_cutoffs_at_ham_loss": "_cutoffs",
    "Clue": "_filter",
    "Clues": "_filter",
    "SpamFilter": "_filter",
    "Verdict": "_filter",
    "PRESETS": "_presets",
    "Preset": "_presets",
    "VerdictReport": "_report",
    "caught_at_ham_loss": "_report",
    "verdict_report": "_report",
    "SpamScorer": "_scorer",
    "TokenTable": "_table",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"nbayes.spam.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "PRESETS",
    "Clue",
    "Clues",
    "CutoffAtHamLoss",
    "CutoffChoice",
    "Preset",
    "SettingScore",
    "SpamFilter",
    "SpamScorer",
    "TokenTable",
    "Verdict",
    "VerdictReport",
    "caught_at_ham_loss",
    "chi2_log_cdf",
    "chi2_log_sf",
    "classify_each",
    "classify_many",
    "choose_cutoffs",
    "compare_settings",
    "fisher_log_scores",
    "mean_log_odds",
    "robinson_f",
    "spam_cutoffs_at_ham_loss",
    "verdict_report",
]
