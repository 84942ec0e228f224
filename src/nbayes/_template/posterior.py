"""Posteriors from joint log-likelihoods: the decisions every nbayes
classifier shares (the estimators and :class:`nbayes.text.scoring.TextScorer`).

numpy and the standard library only: the lean prediction path imports it without
scikit-learn.
"""

from __future__ import annotations

import os
import sys
import warnings
from typing import Any

import numpy as np

from .._families._common import log_normalize
from ..display import TopPredictions
from ..exceptions import UndecidableWarning
from .decisions import Decisions, best_classes, decisions_from_jll

__all__ = ["PosteriorMixin", "log_normalize"]

_MAX_ROWS_LISTED = 10


def _warn_undecidable(rows: np.ndarray, advice: str, stacklevel: int = 3) -> None:
    listed = ", ".join(str(int(r)) for r in rows[:_MAX_ROWS_LISTED])
    more = f" and {len(rows) - _MAX_ROWS_LISTED} more" if len(rows) > _MAX_ROWS_LISTED else ""
    warnings.warn(
        f"Every class has zero probability for row(s) {listed}{more}: the classifier cannot "
        "decide. Their probabilities are NaN and predict() returns the class with the highest "
        f"prior.{' ' + advice if advice else ''}",
        UndecidableWarning,
        stacklevel=max(stacklevel, _caller_level()),
    )


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _caller_level() -> int:
    """The ``stacklevel`` of ``warnings.warn`` (called from the function that calls this)
    that names the first frame outside nbayes: the user's line, whichever of the
    package's wrappers (array API outputs, snapshots) the call went through; 2 if there
    is none (nbayes' own caller)."""
    frame: Any = sys._getframe(1)  # (the frame that calls warnings.warn: stacklevel 1)
    level = 1
    while frame is not None:
        if not os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE + os.sep):
            return level
        frame = frame.f_back
        level += 1
    return 2


class PosteriorMixin:
    """Posterior, decision and top-N from ``predict_joint_log_proba`` and the class prior.

    Shared by every nbayes classifier: the normalisation handles rows that no class can
    explain (NaN and an :class:`~nbayes.UndecidableWarning`, the prior decides).
    """

    @property
    def classes_(self) -> np.ndarray:
        raise NotImplementedError

    def predict_joint_log_proba(self, X: Any) -> np.ndarray:
        raise NotImplementedError

    def _class_log_prior(self) -> np.ndarray:
        raise NotImplementedError

    def sample_classes(self, n_samples: Any, rng: np.random.Generator) -> np.ndarray:
        """Class indices drawn from the prior P(y)."""
        if not isinstance(n_samples, int | np.integer) or n_samples < 0:
            raise ValueError(f"n_samples must be a non-negative integer; got {n_samples!r}.")
        prior = np.exp(self._class_log_prior())
        if not np.isfinite(prior).all() or prior.sum() <= 0:
            raise ValueError("The class prior is undefined: cannot sample from this model.")
        return rng.choice(len(prior), size=int(n_samples), p=prior / prior.sum())

    def _undecidable_advice(self) -> str:
        """What to do about rows no class explains (the UndecidableWarning's last words):
        smoothing, unless the model has it already."""
        params = getattr(self, "get_params", None)
        if params is not None and "alpha" not in params(deep=False):
            return ""  # (a model without alpha: no advice of smoothing by it)
        try:
            smoothed = bool(np.all(np.asarray(getattr(self, "alpha", 0), dtype=float) > 0))
        except (TypeError, ValueError):
            smoothed = False
        return "" if smoothed else "Use smoothing (alpha > 0) to avoid this."

    def _consistent(self) -> Any:
        """The model one prediction reads from start to end (itself here; an estimator
        whose learning calls may run in another thread meanwhile returns a snapshot)."""
        return self

    # Hooks of the outputs (identity here): a model answering in another array namespace
    # or float dtype (nbayes._template.array_api) converts the numpy results at the end.
    def _joint(self, X: Any) -> np.ndarray:
        """The joint log-likelihoods as numpy float64, what every decision starts from."""
        return self.predict_joint_log_proba(X)

    def _float_out(self, arr: np.ndarray) -> Any:
        return arr

    def _labels_out(self, arr: np.ndarray) -> Any:
        return arr

    def _class_labels(self) -> np.ndarray:
        """``classes_`` as numpy, what the decisions index."""
        return self.classes_

    def _log_proba(self, X: Any) -> np.ndarray:
        log_proba, undecidable = log_normalize(self._joint(X))
        if undecidable.any():
            _warn_undecidable(np.flatnonzero(undecidable), self._undecidable_advice(), 4)
        return log_proba

    def predict_log_proba(self, X: Any) -> Any:
        """Log of the posterior P(y | x) per row and class (NaN for undecidable rows)."""
        m = self._consistent()
        return m._float_out(m._log_proba(X))

    def predict_proba(self, X: Any) -> Any:
        """Posterior probability P(y | x) per row and class; rows sum to 1.

        A row for which every class has zero likelihood (possible only without smoothing)
        gets NaN and an :class:`~nbayes.UndecidableWarning`.
        """
        m = self._consistent()
        return m._float_out(np.exp(m._log_proba(X)))

    def predict(self, X: Any) -> Any:
        """The most probable class of each row.

        Where every class has zero likelihood (unsmoothed models), the class with the
        highest prior is returned and an :class:`~nbayes.UndecidableWarning` is issued.
        """
        m = self._consistent()
        best, undecidable = best_classes(m._joint(X), m._class_log_prior)
        if undecidable.any():
            _warn_undecidable(np.flatnonzero(undecidable), m._undecidable_advice())
        return m._labels_out(m._class_labels()[best])

    def decide(self, X: Any) -> Decisions:
        """Everything the model decides on ``X`` from one scoring: labels (as
        :meth:`predict`), probabilities (as :meth:`predict_proba`), the top classes (as
        :meth:`predict_top`) and the undecidable rows, in a
        :class:`~nbayes._template.decisions.Decisions` (numpy arrays).

        A front end that answers with labels and probabilities asks this once instead of
        scoring the inputs twice. Undecidable rows warn, as :meth:`predict` does.
        """
        m = self._consistent()  # one version of the model from start to end
        decisions = decisions_from_jll(m._joint(X), m._class_labels(), m._class_log_prior())
        if decisions.undecidable.any():
            _warn_undecidable(np.flatnonzero(decisions.undecidable), m._undecidable_advice())
        return decisions

    def predict_top(self, X: Any, n: int = 3) -> TopPredictions:
        """The ``n`` most probable classes of each row, best first, with their probabilities.

        Returns
        -------
        TopPredictions
            ``(labels, probabilities)``, arrays of shape (n_samples, n): it unpacks as the
            tuple it is, and shows as a table in a notebook.
        """
        if not isinstance(n, int | np.integer) or n < 1:
            raise ValueError(f"n must be a positive integer; got {n!r}.")
        top = self.decide(X).top(n)
        if isinstance(X, list | tuple) and X and all(isinstance(x, str) for x in X):
            return top.named(X)  # (documents: shown by their first words, not 0, 1, 2)
        return top
