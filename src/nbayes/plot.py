"""Plots for people who would rather look (matplotlib, the optional extra ``[plot]``).

* :func:`marginals` draws each class's conditional distribution of one column (density
  curves for gaussian and kde columns, bars for the discrete ones);
* :func:`confusion_matrix` draws a confusion matrix with counts.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["confusion_matrix", "marginals"]


def _pyplot() -> Any:
    try:
        import matplotlib

        if matplotlib.get_backend().lower() not in (
            "agg",
            "module://matplotlib_inline.backend_inline",
        ):
            matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "nbayes.plot needs matplotlib, which is not installed: "
            "pip install 'nbayes[plot]' (or pip install matplotlib)."
        ) from exc
    return plt


def _column_index(model: Any, column: Any) -> int:
    names = model._feature_names()
    if isinstance(column, int | np.integer) and not isinstance(column, bool):
        if not 0 <= int(column) < len(names):
            raise ValueError(f"column {column} is out of range: the model has {len(names)}.")
        return int(column)
    if str(column) not in names:
        raise ValueError(f"Unknown column {column!r}; the model's columns are {names}.")
    return names.index(str(column))


def _family_of(model: Any, j: int) -> str:
    fams = getattr(model._stats, "families", None)
    if fams is not None:
        return str(fams[j])
    return str(model._family.name)


def marginals(model: Any, column: Any, ax: Any = None, n_grid: int = 200) -> Any:
    """Draw P(column | y) for every class of a fitted model.

    Parameters
    ----------
    model : fitted MixedNB, KernelNB, GaussianNB, PoissonNB, BernoulliNB or CategoricalNB
    column : str or int
        Column name (or position).
    ax : matplotlib Axes, default=None
        Where to draw (default: a new figure).
    n_grid : int, default=200
        Points of the density curves.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import pytest; _ = pytest.importorskip("matplotlib")
    >>> import numpy as np
    >>> from nbayes.kernel import KernelNB
    >>> from nbayes.plot import marginals
    >>> X = np.array([[0.0], [0.5], [3.0], [3.5]])
    >>> ax = marginals(KernelNB().fit(X, ["a", "a", "b", "b"]), "x0")
    >>> [t.get_text() for t in ax.get_legend().get_texts()]
    ['a', 'b']
    """
    plt = _pyplot()
    j = _column_index(model, column)
    fam = _family_of(model, j)
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3.5))
    classes = model.classes_
    d = model._derived()
    dcol = d["columns"][j] if "columns" in d else d
    name = model._feature_names()[j]
    if fam in ("gaussian", "kde"):
        if fam == "gaussian":
            theta = dcol["theta"] if "columns" in d else dcol["theta"][:, j]
            var = dcol["var"] if "columns" in d else dcol["var"][:, j]
            lo = float(np.min(theta - 4 * np.sqrt(var)))
            hi = float(np.max(theta + 4 * np.sqrt(var)))
        else:
            from ._families.kde import kde_log_density

            jj = 0 if "columns" in d else j
            pts = dcol["points"][jj]
            h = float(np.max(dcol["bandwidth"][:, jj]))
            lo, hi = float(pts.min() - 3 * h), float(pts.max() + 3 * h)
        grid = np.linspace(lo, hi, n_grid)
        for c, label in enumerate(classes):
            if fam == "gaussian":
                dens = np.exp(-0.5 * (grid - theta[c]) ** 2 / var[c]) / np.sqrt(2 * np.pi * var[c])
            else:
                X = np.full((n_grid, len(dcol["points"])), np.nan)
                X[:, jj] = grid
                dens = np.exp(kde_log_density(dcol, X)[:, c, jj])
            ax.plot(grid, dens, label=str(label))
        ax.set_ylabel("density")
    else:
        values, probs = _discrete(model, d, dcol, fam, j)
        width = 0.8 / len(classes)
        pos = np.arange(len(values))
        for c, label in enumerate(classes):
            ax.bar(pos + c * width, probs[c], width=width, label=str(label))
        ax.set_xticks(pos + 0.4 - width / 2, [str(v) for v in values], rotation=45, ha="right")
        ax.set_ylabel("probability")
    ax.set_xlabel(name)
    ax.set_title(f"P({name} | class)")
    ax.legend(title="class")
    return ax


def _discrete(model: Any, d: Any, dcol: Any, fam: str, j: int) -> tuple[list[Any], np.ndarray]:
    mixed = "columns" in d
    if fam == "categorical":
        flp = dcol["feature_log_prob"][0 if mixed else j]
        cats = (dcol["stats"] if mixed else model._stats).categories[0 if mixed else j]
        return list(cats), np.exp(flp)
    if fam == "bernoulli":
        flp = dcol["flp"] if mixed else dcol["feature_log_prob"][:, j]
        p = np.exp(flp)
        return [False, True], np.column_stack([1 - p, p])
    if fam == "poisson":
        from scipy.stats import poisson

        rate = dcol["rate"] if mixed else dcol["rate"][:, j]
        ks = np.arange(int(poisson.ppf(0.995, rate.max())) + 1)
        return list(ks), poisson.pmf(ks[None, :], rate[:, None])
    if fam in ("text", "multinomial"):
        flp = dcol["flp"] if mixed else dcol["feature_log_prob"]
        vocab = dcol["vocabulary"] if mixed else np.asarray(model._feature_names())
        top = np.argsort(-flp.max(axis=0))[:20]
        return list(vocab[top]), np.exp(flp[:, top])
    raise ValueError(f"marginals() cannot draw a {fam} column.")


def confusion_matrix(
    y_true: Any, y_pred: Any, labels: Any = None, ax: Any = None, normalize: bool = False
) -> Any:
    """Draw the confusion matrix of ``y_true`` against ``y_pred`` (rows: true classes).

    Examples
    --------
    >>> import pytest; _ = pytest.importorskip("matplotlib")
    >>> from nbayes.plot import confusion_matrix
    >>> ax = confusion_matrix(["a", "b", "b"], ["a", "b", "a"])
    >>> ax.get_xlabel()
    'predicted'
    """
    from sklearn.metrics import confusion_matrix as _cm

    plt = _pyplot()
    labels = np.unique(np.r_[np.asarray(y_true), np.asarray(y_pred)]) if labels is None else labels
    cm = _cm(y_true, y_pred, labels=labels).astype(float)
    if normalize:
        cm = cm / np.maximum(cm.sum(axis=1, keepdims=True), 1)
    if ax is None:
        _, ax = plt.subplots(figsize=(4, 4))
    ax.imshow(cm, cmap="Blues")
    for (i, k), v in np.ndenumerate(cm):
        ax.text(k, i, f"{v:.2f}" if normalize else f"{int(v)}", ha="center", va="center")
    ticks = np.arange(len(labels))
    ax.set_xticks(ticks, [str(v) for v in labels])
    ax.set_yticks(ticks, [str(v) for v in labels])
    ax.set_xlabel("predicted")
    ax.set_ylabel("true")
    return ax
