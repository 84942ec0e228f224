"""P(column | class) for every class of a fitted table model: density curves for gaussian
and kde columns, bars for the discrete ones."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._common import feature_names, likelihood, pyplot, set_title, short


def _column_index(model: Any, column: Any) -> int:
    names = feature_names(model)
    if isinstance(column, int | np.integer) and not isinstance(column, bool):
        if not 0 <= int(column) < len(names):
            raise ValueError(f"column {column} is out of range: the model has {len(names)}.")
        return int(column)
    if str(column) not in names:
        raise ValueError(f"Unknown column {column!r}; the model's columns are {names}.")
    return names.index(str(column))


def _column_model(model: Any, j: int) -> tuple[Any, Any, Any, int, Any]:
    """The family that scores column j, its derivation and statistics, the column's index
    among that family's features, and the names of the column's own features (a MixedNB
    text column's vocabulary; else None)."""
    family, d, stats = likelihood(model, "marginals()")
    if hasattr(family, "column"):  # MixedNB: one family per column
        col = family.column(d, j)
        return col.family, col.derived, col.stats, 0, col.vocabulary
    return family, d, stats, j, None


def _log_density(family: Any, d: Any, n_features: int, k: int, values: Any) -> np.ndarray:
    """log P(x_k = v | y) for each of ``values``, shape (n_classes, len(values)), through the
    family's per-feature log-density (the other features, NaN, are not looked at)."""
    X = np.full((len(values), n_features), np.nan)
    X[:, k] = values
    return np.asarray(family.feature_log_density(d, X)[:, :, k].T)


#: the most probable categories drawn of a categorical column with more (the labels of
#: hundreds would overprint one another)
MAX_CATEGORIES = 20


def marginals(
    model: Any,
    column: Any,
    ax: Any = None,
    n_grid: int = 200,
    *,
    log: bool = False,
    max_categories: int = MAX_CATEGORIES,
) -> Any:
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
    log : bool, default=False
        The values on a log scale (heavy-tailed numeric columns: gaussian, kde, poisson;
        the positive values are drawn).
    max_categories : int, default=20
        A categorical column with more categories shows its ``max_categories`` most
        probable ones (largest probability in any class), most probable first, and says so
        on its axis.

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
    plt = pyplot()
    j = _column_index(model, column)
    family, d, stats, k, words = _column_model(model, j)
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3.5), layout="constrained")
    classes = model.classes_
    name = feature_names(model)[j]
    label_x = name
    if log and family.name not in ("gaussian", "kde", "poisson"):
        raise ValueError(
            f"A log scale applies to numeric columns (gaussian, kde, poisson); {name!r} is "
            f"{family.name}."
        )
    if family.name in ("gaussian", "kde"):
        lo, hi = family.value_range(d, k)
        if log:
            lo, hi = _positive_range(lo, hi, name)
            grid = np.geomspace(lo, hi, n_grid)
            ax.set_xscale("log")
        else:
            grid = np.linspace(lo, hi, n_grid)
        dens = np.exp(_log_density(family, d, stats.n_features, k, grid))
        for c, label in enumerate(classes):
            ax.plot(grid, dens[c], color=f"C{c}", label=str(label))
        ax.set_ylabel("density")
        _point_masses(ax, d, k, classes)
    elif family.name == "poisson":  # numbers: bars at their values, the axis ticked by itself
        values, probs = _discrete(model, family, d, stats, k, words)
        ks = np.asarray(values, dtype=np.float64)
        if log:
            ks, probs = ks[ks > 0], probs[:, ks > 0]
            ax.set_xscale("log")
        for c, label in enumerate(classes):
            if log or len(ks) > 40:  # many bars: a step line per class
                ax.step(ks, probs[c], where="mid", color=f"C{c}", label=str(label))
            else:
                width = 0.8 / len(classes)
                ax.bar(ks + (c - (len(classes) - 1) / 2) * width, probs[c], width=width,
                       color=f"C{c}", label=str(label))  # fmt: skip
        ax.set_ylabel("probability")
    else:
        values, probs = _discrete(model, family, d, stats, k, words)
        if family.name == "categorical" and len(values) > max_categories:
            order = np.argsort(-probs.max(axis=0), kind="stable")[: max(int(max_categories), 1)]
            label_x = f"{name} (the {len(order)} most probable of {len(values):,} categories)"
            values, probs = [values[i] for i in order], probs[:, order]
        width = 0.8 / len(classes)
        pos = np.arange(len(values))
        for c, label in enumerate(classes):
            ax.bar(pos + c * width, probs[c], width=width, label=str(label))
        ax.set_xticks(pos + 0.4 - width / 2, [short(v) for v in values], rotation=45, ha="right")
        ax.set_ylabel("probability")
    ax.set_xlabel(label_x)
    set_title(ax, f"P({name} | class)")
    ax.legend(title="class")
    return ax


def _positive_range(lo: float, hi: float, name: str) -> tuple[float, float]:
    """The positive part of ``[lo, hi]`` for a log axis (four decades at most when the
    range reaches zero or below)."""
    if hi <= 0:
        raise ValueError(f"A log scale needs positive values; column {name!r} has none.")
    return (lo if lo > 0 else hi * 1e-4), hi


def _point_masses(ax: Any, d: Any, k: int, classes: Any) -> None:
    """A KernelNB column's point masses (values it scores by their probability, not by the
    density): stems at each, their probability per class on a right-hand axis."""
    masses = d.get("mass_values") if isinstance(d, dict) else None
    if masses is None or k >= len(masses) or len(masses[k]) == 0:
        return
    values, probs = np.asarray(masses[k]), np.exp(np.asarray(d["log_mass"][k]))  # (C, K)
    right = ax.twinx()
    for c in range(len(classes)):
        right.vlines(values, 0, probs[c], colors=f"C{c}", linestyles="dotted")
        right.plot(values, probs[c], "o", color=f"C{c}")
    right.set_ylim(0, 1.05 * float(probs.max()))
    right.set_ylabel("probability at a point mass (dots)")


def _discrete(
    model: Any, family: Any, d: Any, stats: Any, k: int, words: Any
) -> tuple[list[Any], np.ndarray]:
    """The values to draw bars for and their probabilities per class, shape (n_classes,
    n_values)."""
    fam = family.name
    if fam == "categorical":
        cats = stats.categories[k]
        X = np.empty((len(cats), stats.n_features), dtype=object)
        for i, other in enumerate(stats.categories):  # other features: any valid value
            X[:, i] = other[0] if len(other) else (0 if stats.integer_coded else None)
        X[:, k] = cats
        return list(cats), np.exp(family.feature_log_density(d, X)[:, :, k].T)
    if fam == "bernoulli":
        return [False, True], np.exp(_log_density(family, d, stats.n_features, k, [0.0, 1.0]))
    if fam == "poisson":
        ks = np.arange(int(family.value_range(d, k)[1]) + 1)
        return list(ks), np.exp(_log_density(family, d, stats.n_features, k, ks))
    if fam == "multinomial":
        # one occurrence of each word: its term is log P(w | y)
        flp = family.feature_terms(d, np.ones(stats.n_features))
        vocab = words if words is not None else np.asarray(feature_names(model))
        top = np.argsort(-flp.max(axis=0))[:20]
        return list(vocab[top]), np.exp(flp[:, top])
    raise ValueError(f"marginals() cannot draw a {fam} column.")
