"""The most informative words of each class: the words whose one occurrence moves a
document furthest towards the class, as the model's explanations rank them."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from nbayes.explain import _relative
from nbayes.kinds import kind

from ._common import AxesArray, feature_names, fit_width, likelihood, pyplot, set_title, short

#: the families whose features are word counts (or presences)
_WORD_FAMILIES = ("multinomial", "complement", "bernoulli", "poisson")
#: words are shortened to this many characters on the axis
_WORD_LABEL = 20
#: and class names to this many
_CLASS_LABEL = 30


def word_evidence(model: Any, column: Any = None) -> tuple[list[str], np.ndarray]:
    """The words of a fitted word model and, per class, each word's evidence: how much one
    occurrence of it adds to the class's log-likelihood, minus its mean over the other
    classes, shape (n_classes, n_words).

    For a multinomial model this is log P(w | c) minus the mean of log P(w | c') over the
    other classes: the evidence :meth:`nbayes.Explanation.top` gives the word in a document
    (for two classes, the word's log-likelihood ratio). For a Bernoulli model, the word's
    presence against its absence. ``column`` picks a text column of a MixedNB.
    """
    fitted = likelihood(model, "informative_words()")
    family, d = fitted.family, fitted.derived
    if getattr(model, "hashing", False) is True:
        raise ValueError(
            "informative_words() needs the model's words; a hashing TextClassifier keeps only "
            "hash buckets. Fit it with hashing=False."
        )
    names = feature_names(model)
    if hasattr(family, "column"):  # MixedNB: one family per column
        texts = [name for name, k in model.families_.items() if kind(k).values == "documents"]
        if column is None and len(texts) == 1:
            column = texts[0]
        if column not in texts:
            raise ValueError(
                f"informative_words() draws a text column of a MixedNB; pass column= one of "
                f"{texts} (got {column!r})." if texts else
                "informative_words() draws words; this MixedNB has no text column. Use "
                "nbayes.plot.marginals() for its columns."
            )  # fmt: skip
        col = family.column(d, names.index(str(column)))
        family, d, names = col.family, col.derived, [str(w) for w in col.vocabulary]
    elif column is not None:
        raise ValueError(
            f"column= picks a text column of a MixedNB; a {type(model).__name__} has one "
            "vocabulary. Leave column out."
        )
    if family.name not in _WORD_FAMILIES:
        raise ValueError(
            f"informative_words() draws models of word counts ({', '.join(_WORD_FAMILIES)}); "
            f"this {type(model).__name__} is a {family.name} model. Use "
            "nbayes.plot.marginals() for its columns, or model.most_informative_features()."
        )
    n = len(names)
    with np.errstate(invalid="ignore"):
        once = family.feature_terms(d, np.ones(n)) - family.feature_terms(d, np.zeros(n))
    return names, _relative(np.where(np.isnan(once), 0.0, once))


def informative_words(
    model: Any,
    top: int = 10,
    classes: Any = None,
    column: Any = None,
    title: str | None = None,
) -> np.ndarray:
    """Draw, for each class, the ``top`` words with the most evidence for it.

    A word's evidence for a class is how much one occurrence of it adds to the class's
    log-likelihood, minus its mean over the other classes (see :func:`word_evidence`):
    the words :meth:`nbayes.Explanation.top` ranks first for the class in a document that
    holds them. Words with no evidence for a class are left out of its panel.

    Parameters
    ----------
    model : fitted TextClassifier, MultinomialNB, ComplementNB, BernoulliNB, PoissonNB,
        or a MixedNB with a text column
        A model fitted on a count matrix names its words by ``feature_names_in_`` (fit
        it on a DataFrame whose columns are the words, e.g. from a vectorizer's
        ``get_feature_names_out()``).
    top : int, default=10
        Words per class.
    classes : array-like, default=None
        The classes to draw (default: all), one panel each.
    column : str, default=None
        The text column of a MixedNB (needed when it has more than one).
    title : str, default=None
        A title over the panels, wrapped to the figure's width.

    Returns
    -------
    ndarray of matplotlib Axes
        One per class drawn, in the order of ``classes`` (an array that a notebook does
        not print under the figure).

    Examples
    --------
    >>> from nbayes import TextClassifier
    >>> from nbayes.plot import informative_words
    >>> docs = ["cheap pills now", "cheap offer now", "lunch at noon", "see you at lunch"]
    >>> clf = TextClassifier().fit(docs, ["spam", "spam", "ham", "ham"])
    >>> axes = informative_words(clf, top=2)
    >>> [[t.get_text() for t in ax.get_yticklabels()] for ax in axes]
    [['at', 'lunch'], ['cheap', 'now']]
    """
    if isinstance(top, bool) or not isinstance(top, int | np.integer) or top < 1:
        raise ValueError(f"top must be a positive integer (words per class); got {top!r}.")
    plt = pyplot()
    names, evidence = word_evidence(model, column)
    all_classes = list(model.classes_)
    chosen = all_classes if classes is None else list(classes)
    unknown = [c for c in chosen if c not in all_classes]
    if unknown:
        raise ValueError(f"Unknown class {unknown[0]!r}; the model's classes are {all_classes}.")
    panels = [_top_words(names, evidence[all_classes.index(c)], int(top)) for c in chosen]
    n = len(chosen)
    ncols = n if n <= 3 else (4 if n <= 16 else 5)
    nrows = math.ceil(n / ncols)
    longest = max((len(w) for words, _ in panels for w in words), default=1)
    label_inches = min(longest, _WORD_LABEL) * 0.6 * 9 / 72
    # the bars at least as wide as the longest class name over them (10 pt)
    title_inches = max(len(short(c, _CLASS_LABEL)) for c in chosen) * 0.6 * 10 / 72
    width = max(5.5, ncols * (label_inches + 0.45 + max(1.5, title_inches)))
    height = nrows * (0.2 * top + 0.9) + (0.5 if title else 0.0)
    fig, grid = plt.subplots(
        nrows, ncols, squeeze=False, layout="constrained", figsize=(width, height)
    )
    axes = grid.ravel()
    for ax in axes[n:]:
        ax.remove()
    for ax, cls, (words, values) in zip(axes, chosen, panels, strict=False):
        pos = np.arange(len(words))
        ax.barh(pos, values, color="tab:blue")
        ax.set_yticks(pos, [short(w, _WORD_LABEL) for w in words], fontsize=9)
        ax.set_ylim(top - 0.5, -0.5)  # the strongest word on top; panels share one scale
        ax.tick_params(axis="x", labelsize=8)
        ax.set_title(short(cls, _CLASS_LABEL), fontsize=10)
        if len(words) < top:  # (fewer bars than asked for: said, not left to puzzle over)
            said = f"no other word is evidence\nfor {short(cls, _CLASS_LABEL)}"
            ax.text(
                0.5, (len(words) + top - 1) / 2, said, transform=ax.get_yaxis_transform(),
                ha="center", va="center", fontsize=8, color="0.4",
            )  # fmt: skip
    fit_width(
        fig,
        fig.supxlabel(
            "evidence of one occurrence (log-likelihood ratio vs. the other classes)", fontsize=9
        ),
    )
    set_title(fig, title)
    return axes[:n].view(AxesArray)


def _top_words(names: list[str], evidence: np.ndarray, k: int) -> tuple[list[str], np.ndarray]:
    """The k words of most evidence (positive only), strongest first; ties in word order."""
    order = np.argsort(-evidence, kind="stable")[:k]
    order = order[evidence[order] > 0]
    return [names[j] for j in order], evidence[order]
