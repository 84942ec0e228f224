"""Evaluate a fitted classifier on labelled data: one report with the usual figures.

:func:`evaluate` returns an :class:`EvaluationReport` with the accuracy, per-class
precision, recall, F1 and support, the confusion matrix and the log loss: the figures of
scikit-learn's metrics (``accuracy_score``, ``precision_recall_fscore_support`` with
``zero_division=0``, ``confusion_matrix``, ``log_loss``), computed with numpy alone so that
``nbayes eval`` of a text model starts without importing scikit-learn. ``nbayes eval``
prints the same report.

Examples
--------
>>> from nbayes import MultinomialNB
>>> X = [[2, 0], [3, 1], [0, 2], [1, 3]]
>>> y = ["spam", "spam", "ham", "ham"]
>>> report = evaluate(MultinomialNB().fit(X, y), X, y)
>>> report.accuracy
1.0
>>> report.confusion_matrix
array([[2, 0],
       [0, 2]])
>>> print(report)  # doctest: +NORMALIZE_WHITESPACE
accuracy  1.000  (4 examples)
log loss  0.105
class  precision  recall  f1     support
ham    1.000      1.000   1.000  2
spam   1.000      1.000   1.000  2
confusion matrix (rows: true class, columns: predicted)
       ham  spam
ham    2    0
spam   0    2
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from nbayes._template.decisions import decide

__all__ = ["EvaluationReport", "evaluate", "evaluate_chunks"]


@dataclass(frozen=True)
class EvaluationReport:
    """Figures of a classifier on labelled data.

    Attributes
    ----------
    classes : ndarray
        The classes the figures refer to (the model's, plus any label only the data has),
        in the order of the rows and columns of ``confusion_matrix``.
    n_samples : int
    accuracy : float
    precision, recall, f1 : ndarray of shape (n_classes,)
        Per class; 0 where undefined (no prediction of, or no example of, the class).
    support : ndarray of shape (n_classes,)
        Number of examples of each class.
    confusion_matrix : ndarray of shape (n_classes, n_classes)
        Row = true class, column = predicted class.
    log_loss : float
        Mean negative log-probability of the true class; ``inf`` if some label is unknown to
        the model (it gives it probability 0), ``nan`` if some row is undecidable.
    n_undecidable : int
        Rows for which every class has zero likelihood (unsmoothed models).
    """

    classes: np.ndarray
    n_samples: int
    accuracy: float
    precision: np.ndarray
    recall: np.ndarray
    f1: np.ndarray
    support: np.ndarray
    confusion_matrix: np.ndarray
    log_loss: float
    n_undecidable: int = 0

    def per_class(self) -> list[dict[str, Any]]:
        """One dict per class: class, precision, recall, f1, support."""
        return [
            {
                "class": cls,
                "precision": float(p),
                "recall": float(r),
                "f1": float(f),
                "support": int(s),
            }
            for cls, p, r, f, s in zip(
                self.classes.tolist(), self.precision, self.recall, self.f1, self.support,
                strict=True,
            )
        ]  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able figures (a non-finite log loss becomes ``None``)."""
        return {
            "n_samples": self.n_samples,
            "accuracy": self.accuracy,
            "log_loss": self.log_loss if math.isfinite(self.log_loss) else None,
            "n_undecidable": self.n_undecidable,
            "classes": self.classes.tolist(),
            "per_class": self.per_class(),
            "confusion_matrix": self.confusion_matrix.tolist(),
        }

    def __str__(self) -> str:
        names = [_one_line(c) for c in self.classes.tolist()]
        width = max([5, *map(len, names)])
        lines = [f"accuracy  {self.accuracy:.3f}  ({self.n_samples} examples)"]
        if math.isnan(self.log_loss):
            lines.append(f"log loss  undefined ({self.n_undecidable} undecidable rows)")
        elif math.isinf(self.log_loss):
            lines.append("log loss  infinite (the data has labels the model does not know)")
        else:
            lines.append(f"log loss  {self.log_loss:.3f}")
        lines.append(f"{'class':<{width}}  precision  recall  f1     support")
        for name, row in zip(names, self.per_class(), strict=True):
            lines.append(
                f"{name:<{width}}  {row['precision']:<9.3f}  {row['recall']:<6.3f}  "
                f"{row['f1']:<5.3f}  {row['support']}"
            )
        lines.append("confusion matrix (rows: true class, columns: predicted)")
        cells = [[str(v) for v in row] for row in self.confusion_matrix.tolist()]
        col_w = [max(len(n), *(len(r[j]) for r in cells)) for j, n in enumerate(names)]
        lines.append(
            " " * width + "  " + "  ".join(f"{n:<{w}}" for n, w in zip(names, col_w, strict=True))
        )
        for name, cell_row in zip(names, cells, strict=True):
            lines.append(
                f"{name:<{width}}  "
                + "  ".join(f"{v:<{w}}" for v, w in zip(cell_row, col_w, strict=True))
            )
        return "\n".join(line.rstrip() for line in lines)


def _one_line(label: Any) -> str:
    """A class as a table's cell: its line breaks and tabs escaped (a label holding one
    split the table's row in two)."""
    text = str(label)
    return (
        text.encode("unicode_escape").decode("ascii") if any(c in text for c in "\n\r\t") else text
    )


def _log_loss(p_true: np.ndarray, undecidable: int, n_classes: int) -> float:
    """The mean of -log P(true class) (``p_true``: -1 for a label the model lacks)."""
    if undecidable:
        return math.nan
    if (p_true < 0).any():
        return math.inf
    if n_classes == 1:
        return 0.0
    eps = np.finfo(p_true.dtype).eps  # scikit-learn's log_loss clips alike
    return float(-np.mean(np.log(np.clip(p_true, eps, 1 - eps))))


def _confusion(y: np.ndarray, y_pred: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """Rows: true class, columns: predicted, in the order of ``classes`` (sorted)."""
    k = len(classes)
    true = np.searchsorted(classes, y)
    pred = np.searchsorted(classes, y_pred)
    return np.bincount(true * k + pred, minlength=k * k).reshape(k, k).astype(np.int64)


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den, 0 where den is 0 (scikit-learn's ``zero_division=0``)."""
    out = np.zeros(len(num), dtype=np.float64)
    np.divide(num, den, out=out, where=den > 0)
    return out


def _rows(X: Any, start: int, stop: int) -> Any:
    """Rows ``start:stop`` of a list of documents, an array, a sparse matrix or a frame."""
    if hasattr(X, "iloc"):
        return X.iloc[start:stop]
    return X[start:stop]


def evaluate(
    model: Any,
    X: Any,
    y: Any,
    *,
    batch_size: int = 10_000,
    progress: Callable[[int], None] | None = None,
) -> EvaluationReport:
    """Evaluate a fitted classifier on ``X`` with true labels ``y``.

    Parameters
    ----------
    model : fitted classifier
        Anything with ``predict``, ``predict_proba`` and ``classes_`` (every nbayes
        estimator).
    X : array-like, sparse matrix or list of documents
        What ``model.predict`` takes.
    y : array-like of shape (n_samples,)
        True labels.
    batch_size : int, default=10_000
        Rows predicted at a time (bounds the memory of the probabilities' work).
    progress : callable, optional
        Called with the number of rows of each batch once it is scored.

    Returns
    -------
    EvaluationReport
    """
    y = np.asarray(y)
    if y.ndim != 1 or len(y) == 0:
        raise ValueError(f"y must be a non-empty 1-D array of labels; got shape {y.shape}.")
    n_rows = X.shape[0] if hasattr(X, "shape") else len(X)
    if n_rows != len(y):
        raise ValueError(f"X has {n_rows} rows but y has {len(y)} labels.")
    step = max(int(batch_size), 1)
    batches = ((_rows(X, a, a + step), y[a : a + step]) for a in range(0, n_rows, step))
    return evaluate_chunks(model, batches, progress=progress)


def evaluate_chunks(
    model: Any, chunks: Iterable[tuple[Any, Any]], *, progress: Callable[[int], None] | None = None
) -> EvaluationReport:
    """:func:`evaluate` of data read a chunk at a time: ``chunks`` yields ``(X, y)``
    parts (``nbayes eval`` of a file larger than memory); in memory, besides one chunk,
    each row's true and predicted label and the probability of its true class. The same
    figures as :func:`evaluate` of all the parts at once."""
    model_classes = np.asarray(model.classes_)
    column = {c: j for j, c in enumerate(model_classes.tolist())}
    trues, preds, p_true = [], [], []
    undecidable = 0
    for X_part, y_part in chunks:
        y_part = np.asarray(y_part)
        decisions = decide(model, X_part)  # labels and probabilities of one scoring
        preds.append(np.asarray(decisions.labels))
        proba = decisions.proba
        if len(proba) != len(y_part):
            raise ValueError(f"X has {len(proba)} rows but y has {len(y_part)} labels.")
        undecidable += int(np.isnan(proba).any(axis=1).sum())
        at = np.array([column.get(v, -1) for v in y_part.tolist()], dtype=np.intp)
        picked = proba[np.arange(len(at)), np.maximum(at, 0)] if len(at) else np.empty(0)
        p_true.append(np.where(at >= 0, picked, -1.0))  # (-1: a label the model lacks)
        trues.append(y_part)
        if progress is not None:
            progress(len(y_part))
    if not trues or not sum(len(t) for t in trues):
        raise ValueError("No labelled rows to evaluate on.")
    y, y_pred = np.concatenate(trues), np.concatenate(preds)
    try:
        classes = np.union1d(model_classes, y)
    except TypeError:
        raise ValueError(
            f"The labels {np.unique(y.astype(str))[:5].tolist()!r} are not of the type of the "
            f"model's classes {model_classes.tolist()!r} (e.g. strings and numbers)."
        ) from None
    cm = _confusion(y, y_pred, classes)
    hits = np.diag(cm).astype(np.float64)
    support = cm.sum(axis=1)
    precision = _ratio(hits, cm.sum(axis=0).astype(np.float64))
    recall = _ratio(hits, support.astype(np.float64))
    f1 = _ratio(2 * hits, (cm.sum(axis=0) + support).astype(np.float64))
    return EvaluationReport(
        classes=classes,
        n_samples=len(y),
        accuracy=float(hits.sum() / len(y)),
        precision=precision,
        recall=recall,
        f1=f1,
        support=support,
        confusion_matrix=cm,
        log_loss=_log_loss(np.concatenate(p_true), undecidable, len(model_classes)),
        n_undecidable=undecidable,
    )
