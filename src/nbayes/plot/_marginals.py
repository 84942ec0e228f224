"""P(column | class) for every class of a fitted table model: density curves for gaussian
and kde columns, bars for the discrete ones (what to draw is each family's kind's
``marginal``, :mod:`nbayes._families.kinds`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._families.kinds import kind_of_family
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
    plt = pyplot()
    j = _column_index(model, column)
    family, d, stats, k, words = _column_model(model, j)
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3.5), layout="constrained")
    classes = model.classes_
    name = feature_names(model)[j]
    drawn = _marginal(model, family, d, stats, k, n_grid, words)
    if drawn.style == "density":
        for c, label in enumerate(classes):
            ax.plot(drawn.values, drawn.probs[c], color=f"C{c}", label=str(label))
        ax.set_ylabel("density")
        _point_masses(ax, d, k, classes)
    else:
        width = 0.8 / len(classes)
        pos = np.arange(len(drawn.values))
        for c, label in enumerate(classes):
            ax.bar(pos + c * width, drawn.probs[c], width=width, label=str(label))
        ax.set_xticks(
            pos + 0.4 - width / 2, [short(v) for v in drawn.values], rotation=45, ha="right"
        )
        ax.set_ylabel("probability")
    ax.set_xlabel(name)
    set_title(ax, f"P({name} | class)")
    ax.legend(title="class")
    return ax


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


def _marginal(model: Any, family: Any, d: Any, stats: Any, k: int, n_grid: int, words: Any) -> Any:
    """What to draw for feature k: its kind's marginal (:mod:`nbayes._families.kinds`)."""
    of = kind_of_family(family)
    if of is None:
        raise ValueError(f"marginals() cannot draw a {family.name} column.")
    if words is None:
        words = np.asarray(feature_names(model))
    return of.marginal(d, stats, k, n_grid, words)
