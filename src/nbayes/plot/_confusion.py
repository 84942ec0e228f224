"""The confusion matrix, readable at 2 classes and at 50: a figure that grows with the class
count, labels turned and shortened so that they do not overlap, numbers in a colour that
contrasts with their cell."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._common import pyplot, set_title, short, text_color

#: inches per character of a label, per point of font size (DejaVu Sans, about 0.6 em)
_EM = 0.6 / 72
#: below this font size the numbers are left out of the cells (colour only)
_MIN_NUMBER_FONT = 4.5


def _cell_inches(n: int) -> float:
    """The side of one cell: large for a few classes, 0.42 in at 20, then shrinking so that
    the matrix stays within about 16 in."""
    return float(min(1.1, max(9.0 / n, min(0.42, 16.0 / n))))


def _number_text(v: float, normalize: bool) -> str:
    if normalize:
        return "0" if v == 0 else ("<.01" if v < 0.005 else f"{v:.2f}")
    return f"{int(v):,}"


def confusion_matrix(
    y_true: Any,
    y_pred: Any,
    labels: Any = None,
    ax: Any = None,
    normalize: bool = False,
    title: str | None = None,
) -> Any:
    """Draw the confusion matrix of ``y_true`` against ``y_pred`` (rows: true classes).

    Without ``ax`` the figure's size follows the number of classes and the length of their
    names; labels longer than 24 characters are shortened, the predicted classes' names are
    turned upright when they would not fit side by side, and each number is black or
    white, whichever contrasts more with its cell. With so many classes that a number
    would need a font smaller than 4.5 pt, the cells show colour only.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
    labels : array-like, default=None
        The classes, in the order to draw them (default: every class seen, sorted).
    ax : matplotlib Axes, default=None
        Where to draw (default: a new figure sized for the classes, with a colour bar).
    normalize : bool, default=False
        Draw fractions of each true class instead of counts.
    title : str, default=None
        Set as the title, wrapped onto more lines if it is wider than the figure.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from nbayes.plot import confusion_matrix
    >>> ax = confusion_matrix(["a", "b", "b"], ["a", "b", "a"])
    >>> ax.get_xlabel()
    'predicted'
    """
    from sklearn.metrics import confusion_matrix as _cm

    if hasattr(y_true, "predict") and hasattr(y_true, "fit"):  # (a model where labels go)
        raise TypeError(
            f"confusion_matrix takes labels, not a model: got {type(y_true).__name__} as "
            "y_true. Draw confusion_matrix(labels, model.predict(X)) (the true labels first, "
            "then the predictions)."
        )

    plt = pyplot()
    if labels is None:
        labels = np.unique(np.r_[np.asarray(y_true), np.asarray(y_pred)])
    names = [short(v) for v in labels]
    n = len(names)
    cm = _cm(y_true, y_pred, labels=labels).astype(float)
    if normalize:
        cm = cm / np.maximum(cm.sum(axis=1, keepdims=True), 1)
    cell = _cell_inches(max(n, 1))
    label_font = float(np.clip(cell * 72 * 0.5, 5, 10))
    label_inches = max(len(s) for s in names) * _EM * label_font if n else 0.0
    turn = label_inches > cell * 0.9
    if ax is None:
        bottom = (label_inches + 0.15) if turn else 0.3
        width = max(4.5, n * cell + label_inches + 2.0)
        height = max(3.5, n * cell + bottom + 1.1)
        _, ax = plt.subplots(figsize=(width, height), layout="constrained")
        image = ax.imshow(cm, cmap="Blues")
        ax.figure.colorbar(image, ax=ax, shrink=0.8, label="fraction" if normalize else "examples")
    else:
        image = ax.imshow(cm, cmap="Blues")
    _numbers(ax, image, cm, normalize, cell)
    ticks = np.arange(n)
    ax.set_xticks(ticks, names, fontsize=label_font)
    ax.set_yticks(ticks, names, fontsize=label_font)
    if turn:
        plt.setp(ax.get_xticklabels(), rotation=90)
    ax.set_xlabel("predicted")
    ax.set_ylabel("true")
    set_title(ax, title)
    return ax


def _numbers(ax: Any, image: Any, cm: np.ndarray, normalize: bool, cell: float) -> None:
    """Each cell's number, in a font that fits the cell and the colour that contrasts with
    it (zeros fainter)."""
    texts = [_number_text(v, normalize) for v in cm.ravel()]
    longest = max((len(t) for t in texts), default=1)
    font = min(10.0, cell * 72 * 0.8 / (longest * 0.62 + 0.4))
    if font < _MIN_NUMBER_FONT:
        return
    for (i, k), v in np.ndenumerate(cm):
        colour = text_color(image.cmap(image.norm(v)))
        ax.text(
            k, i, _number_text(v, normalize), ha="center", va="center", fontsize=font,
            color=colour, alpha=0.45 if v == 0 else 1.0,
        )  # fmt: skip
