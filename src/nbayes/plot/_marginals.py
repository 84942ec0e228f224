"""P(column | class) for every class of a fitted table model: density curves for gaussian
and kde columns, bars for the discrete ones (what to draw is each family's kind's
``marginal``, :mod:`nbayes._families.kinds`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._families.fitted import FittedLikelihood
from .._families.kinds import kind_of_family, log_density_at
from ._common import feature_names, likelihood, pyplot, set_title, short


def _column_index(names: list[str], column: Any) -> int:
    if isinstance(column, int | np.integer) and not isinstance(column, bool):
        if not 0 <= int(column) < len(names):
            raise ValueError(f"column {column} is out of range: the model has {len(names)}.")
        return int(column)
    if str(column) not in names:
        raise ValueError(f"Unknown column {column!r}; the model's columns are {names}.")
    return names.index(str(column))


def _column_model(model: Any, j: int) -> tuple[FittedLikelihood, int]:
    """The fitted likelihood that scores column j (its ``feature_names``: the names of a
    MixedNB text column's own features, its vocabulary; else None) and the column's index
    among its features."""
    fitted = likelihood(model, "marginals()")
    if hasattr(fitted.family, "column"):  # MixedNB: one family per column
        col = fitted.family.column(fitted.derived, j)
        return FittedLikelihood(col.family, col.derived, col.stats, feature_names=col.vocabulary), 0
    return fitted, j


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
    feature_names: Any = None,
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
    feature_names : list of str, default=None
        Names of the model's columns, one per column in order (a model fitted on an array
        calls them x0, x1, ...): ``column`` may then be one of them, and the plot is
        titled by it.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes.kernel import KernelNB
    >>> from nbayes.plot import marginals
    >>> X = np.array([[0.0], [0.5], [3.0], [3.5]])
    >>> ax = marginals(KernelNB().fit(X, ["a", "a", "b", "b"]), "x0")
    >>> [t.get_text() for t in ax.get_legend().get_texts()]
    ['a', 'b']
    """
    plt = pyplot()
    names = _names(model, feature_names)
    j = _column_index(names, column)
    fitted, k = _column_model(model, j)
    family, d, stats, words = fitted.family, fitted.derived, fitted.stats, fitted.feature_names
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3.5), layout="constrained")
    classes = model.classes_
    name = names[j]
    drawn = _marginal(family, d, stats, k, n_grid, names if words is None else words)
    label_x = name
    if log and not drawn.numeric:
        raise ValueError(
            f"A log scale applies to numeric columns (densities and counts); {name!r} is "
            f"{family.name}."
        )
    if drawn.style == "density":
        values, probs = np.asarray(drawn.values, dtype=np.float64), drawn.probs
        if log:
            lo, hi = _positive_range(float(values[0]), float(values[-1]), name)
            values = np.geomspace(lo, hi, n_grid)
            probs = np.exp(log_density_at(family, d, stats.n_features, k, values))
            ax.set_xscale("log")
        for c, label in enumerate(classes):
            ax.plot(values, probs[c], color=f"C{c}", label=str(label))
        ax.set_ylabel("density")
        _point_masses(ax, d, k, classes)
    elif drawn.numeric:  # counts: bars at their values, the axis ticked by itself
        ks, probs = np.asarray(drawn.values, dtype=np.float64), drawn.probs
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
        values_list, probs = list(drawn.values), drawn.probs
        if len(values_list) > max_categories:
            order = np.argsort(-probs.max(axis=0), kind="stable")[: max(int(max_categories), 1)]
            label_x = f"{name} (the {len(order)} most probable of {len(values_list):,} categories)"
            values_list, probs = [values_list[i] for i in order], probs[:, order]
        width = 0.8 / len(classes)
        pos = np.arange(len(values_list))
        for c, label in enumerate(classes):
            ax.bar(pos + c * width, probs[c], width=width, label=str(label))
        labels = [short(v) for v in values_list]
        # (slanted only where level labels could run into one another)
        slant = len(labels) * max(map(len, labels), default=0) > _LEVEL_ROOM
        ax.set_xticks(pos + 0.4 - width / 2, labels, rotation=45 if slant else 0,
                      ha="right" if slant else "center")  # fmt: skip
        ax.set_ylabel("probability")
    ax.set_xlabel(label_x)
    set_title(ax, f"P({name} | class)")
    ax.legend(title="class")
    return ax


def _names(model: Any, given: Any) -> list[str]:
    """The columns' names: ``given`` (checked: one per column), or the model's own."""
    own = feature_names(model)
    if given is None:
        return own
    if isinstance(given, str):  # (its characters would be taken for the names)
        raise TypeError(
            f"feature_names is one str ({given[:40]!r}): give a list of names, one per "
            "column, e.g. 'keeper was sharp'.split()."
        )
    names = [str(f) for f in given]
    if len(names) != len(own):
        raise ValueError(
            f"feature_names has {len(names)} names for {len(own)} columns: give one name "
            "per column, in column order (or leave it out for the model's own)."
        )
    return names


#: characters of level labels that fit side by side under a default figure's bars
_LEVEL_ROOM = 48


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


def _marginal(family: Any, d: Any, stats: Any, k: int, n_grid: int, words: Any) -> Any:
    """What to draw for feature k: its kind's marginal (:mod:`nbayes._families.kinds`)."""
    of = kind_of_family(family)
    if of is None:
        raise ValueError(f"marginals() cannot draw a {family.name} column.")
    return of.marginal(d, stats, k, n_grid, np.asarray(words))
