"""The reliability (calibration) curve: how often a class is right when the model gives it
probability p, against p, with the spread of the probabilities under it."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._common import pyplot, set_title, short


def _target(
    y_true: Any, y_prob: Any, classes: Any, pos_label: Any
) -> tuple[np.ndarray, np.ndarray, str]:
    """What the curve compares: 0/1 outcomes, the probabilities given to them, and what
    those probabilities are of (for the labels)."""
    y = np.asarray(y_true)
    proba = np.asarray(y_prob, dtype=np.float64)
    if proba.ndim == 1:
        if pos_label is None:
            return y, proba, "the positive class"
        return (y == pos_label).astype(int), proba, f"{short(pos_label)}"
    if proba.ndim != 2:
        raise ValueError(
            f"y_prob must be of shape (n_samples,) or (n_samples, n_classes); got {proba.shape}."
        )
    if classes is None or len(classes) != proba.shape[1]:
        got = "no classes" if classes is None else f"{len(classes)} classes"
        raise ValueError(
            f"y_prob has {proba.shape[1]} columns and {got} name them: pass "
            "classes=model.classes_ (the columns' classes, in order)."
        )
    classes = list(classes)
    if pos_label is None and len(classes) == 2:
        pos_label = classes[1]
    if pos_label is not None:
        if pos_label not in classes:
            raise ValueError(f"Unknown pos_label {pos_label!r}; the classes are {classes}.")
        k = classes.index(pos_label)
        return (y == pos_label).astype(int), proba[:, k], f"{short(pos_label)}"
    best = np.argmax(proba, axis=1)
    correct = np.asarray(classes, dtype=object)[best] == y
    return correct.astype(int), proba[np.arange(len(best)), best], "the predicted class"


def reliability(
    y_true: Any,
    y_prob: Any,
    classes: Any = None,
    pos_label: Any = None,
    n_bins: int = 10,
    strategy: str = "uniform",
    ax: Any = None,
    label: str | None = None,
    title: str | None = None,
) -> Any:
    """Draw the reliability (calibration) curve of predicted probabilities.

    Each point is one bin of predictions: the mean predicted probability (x) against the
    fraction of those predictions that came true (y), as
    :func:`sklearn.calibration.calibration_curve` computes them; a calibrated model lies on
    the diagonal. Without ``ax`` a histogram of the probabilities (log scale) is drawn under
    the curve: Naive Bayes puts most of them near 0 and 1.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        The true classes.
    y_prob : array-like of shape (n_samples,) or (n_samples, n_classes)
        The probability of the positive class, or ``predict_proba``'s output (then pass
        ``classes``).
    classes : array-like, default=None
        The classes of ``y_prob``'s columns (``model.classes_``).
    pos_label : default=None
        The class whose probability is drawn. Default: the second of two classes; with
        more classes, the probability of the predicted class against whether it was right
        (top-label calibration).
    n_bins : int, default=10
    strategy : {"uniform", "quantile"}, default="uniform"
        Bins of equal width, or of equal numbers of predictions.
    ax : matplotlib Axes, default=None
        Where to draw the curve (default: a new figure, with the histogram).
    label : str, default=None
        The curve's legend entry (default: what its probabilities are of).
    title : str, default=None
        Set as the title, wrapped onto more lines if it is wider than the figure.

    Returns
    -------
    matplotlib.axes.Axes
        The axes of the curve.

    Examples
    --------
    >>> from nbayes.plot import reliability
    >>> ax = reliability([0, 0, 1, 1], [0.1, 0.6, 0.4, 0.9], n_bins=2)
    >>> ax.get_lines()[1].get_xydata().tolist()
    [[0.25, 0.5], [0.75, 0.5]]
    """
    from sklearn.calibration import calibration_curve

    plt = pyplot()
    target, proba, of = _target(y_true, y_prob, classes, pos_label)
    frac, mean = calibration_curve(target, proba, n_bins=n_bins, strategy=strategy)
    hist = None
    if ax is None:
        _, (ax, hist) = plt.subplots(
            2, 1, sharex=True, figsize=(5.5, 6), height_ratios=(3, 1), layout="constrained"
        )
    ax.plot([0, 1], [0, 1], linestyle="--", color="grey", label="perfectly calibrated")
    ax.plot(mean, frac, marker="o", label=label or f"P({of})")
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.set_ylabel("fraction that came true")
    ax.legend(loc="upper left")
    xlabel = f"predicted probability of {of}"
    if hist is not None:
        hist.hist(
            proba,
            bins=np.linspace(0, 1, max(int(n_bins), 10) + 1),
            log=True,
            color="tab:blue",
            alpha=0.6,
        )
        hist.set_ylabel("predictions")
        hist.set_xlabel(xlabel)
    else:
        ax.set_xlabel(xlabel)
    set_title(ax, title)
    return ax
