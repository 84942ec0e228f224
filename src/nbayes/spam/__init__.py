"""The spam filter: :class:`SpamFilter` (Robinson-Fisher scoring over e-mail tokens, with
ham / unsure / spam verdicts), its scoring math and its statistics.

Importing it loads numpy but not scikit-learn or scipy.
"""

from __future__ import annotations

from nbayes.spam._bulk import classify_many
from nbayes.spam._combining import chi2_log_cdf, chi2_log_sf, fisher_log_scores, robinson_f
from nbayes.spam._cutoffs import CutoffChoice, choose_cutoffs
from nbayes.spam._filter import Clue, Clues, SpamFilter, Verdict
from nbayes.spam._presets import PRESETS, Preset
from nbayes.spam._report import VerdictReport, caught_at_ham_loss, verdict_report
from nbayes.spam._scorer import SpamScorer
from nbayes.spam._table import TokenTable

__all__ = [
    "PRESETS",
    "Clue",
    "Clues",
    "CutoffChoice",
    "Preset",
    "SpamFilter",
    "SpamScorer",
    "TokenTable",
    "Verdict",
    "VerdictReport",
    "caught_at_ham_loss",
    "chi2_log_cdf",
    "chi2_log_sf",
    "classify_many",
    "choose_cutoffs",
    "fisher_log_scores",
    "robinson_f",
    "verdict_report",
]
