"""What every plot shares: matplotlib on a file backend, the model's names and likelihood,
text that stays readable (on dark cells, in narrow figures)."""

from __future__ import annotations

import textwrap
from typing import Any

import numpy as np

from .._families.fitted import FittedLikelihood

#: a label longer than this is shortened (with an ellipsis) on an axis
MAX_LABEL = 24


class AxesArray(np.ndarray):
    """An array of matplotlib Axes (one per panel) that a notebook does not print under
    its figure: a cell ending in ``informative_words(model)`` showed the figure and then
    ``array([<Axes: title={'center': 'ham'}>, <Axes: ...>], dtype=object)``. Otherwise a
    numpy array (index it, iterate it); ``print`` and ``repr`` show it as one."""

    def _ipython_display_(self) -> None:
        """IPython's display hook calls this instead of printing the repr: nothing to show
        (the figure is shown by matplotlib's inline backend)."""


#: the backends of notebooks (matplotlib's names for them contain one of these), which
#: pyplot() keeps: "inline" (matplotlib >= 3.9's name of matplotlib_inline), ipympl's
_NOTEBOOK_BACKENDS = ("inline", "widget", "ipympl", "nbagg")


def pyplot() -> Any:
    """matplotlib.pyplot, with a file backend unless a notebook's is chosen (its figures
    are shown under the cell: a notebook's "inline" backend, as matplotlib >= 3.9 names
    it, was switched to the file backend, and its plots showed nothing)."""
    try:
        import matplotlib

        backend = matplotlib.get_backend().lower()
        if backend != "agg" and not any(name in backend for name in _NOTEBOOK_BACKENDS):
            matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "nbayes.plot needs matplotlib, which is not installed: "
            "pip install 'nbayes[plot]' (or pip install matplotlib)."
        ) from exc
    return plt


def likelihood(model: Any, what: str) -> FittedLikelihood:
    """``model.likelihood()`` (family, derivation, statistics), or advice if the model is not
    a fitted nbayes model."""
    if not callable(getattr(model, "likelihood", None)):
        if hasattr(model, "coef_") and hasattr(model, "explain"):  # NBSVM: a linear model
            raise TypeError(
                f"{what} draws a Naive Bayes model's likelihood; a {type(model).__name__} is "
                "a linear model on NB features, with no likelihood to draw: its per-token "
                "weights are in model.explain(text), and confusion_matrix/reliability take "
                "its predictions."
            )
        raise TypeError(
            f"{what} draws a fitted nbayes model; got a {type(model).__name__}. "
            "Fit an nbayes estimator (e.g. nbayes.TextClassifier, nbayes.MultinomialNB) first."
        )
    fitted: FittedLikelihood = model.likelihood()
    return fitted


def feature_names(model: Any) -> list[str]:
    """The names of the model's features, from its public attributes: a MixedNB's columns,
    a text model's kept terms, ``feature_names_in_``, else ``x0, x1, ...``."""
    families = getattr(model, "families_", None)
    if isinstance(families, dict):
        return [str(name) for name in families]
    if callable(getattr(model, "get_feature_names_out", None)):
        return [str(name) for name in model.get_feature_names_out()]
    names = getattr(model, "feature_names_in_", None)
    if names is not None:
        return [str(name) for name in names]
    return [f"x{j}" for j in range(int(model.n_features_in_))]


def short(label: Any, limit: int = MAX_LABEL) -> str:
    """``str(label)``, cut to ``limit`` characters with an ellipsis."""
    text = str(label)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def text_color(rgba: Any) -> str:
    """Black or white, whichever contrasts more with a background colour (WCAG relative
    luminance: white text on backgrounds darker than 0.179)."""
    channels = np.asarray(rgba, dtype=np.float64)[:3]
    linear = np.where(channels <= 0.04045, channels / 12.92, ((channels + 0.055) / 1.055) ** 2.4)
    luminance = float(linear @ np.array([0.2126, 0.7152, 0.0722]))
    return "white" if luminance < 0.179 else "black"


def set_title(target: Any, title: str | None) -> None:
    """Set the title of an Axes (or a Figure's suptitle), wrapped to the figure's width."""
    if not title:
        return
    if hasattr(target, "set_title"):
        fit_width(target.figure, target.set_title(title))
    else:
        fit_width(target, target.suptitle(title))


def fit_width(fig: Any, text: Any) -> None:
    """Wrap a Text of the figure onto more lines where it is wider than the figure less a
    margin, so that no word of it is cut: at spaces, and inside a word (a long file name)
    only if it is wider than the figure on its own."""
    whole = text.get_text()
    avail = (fig.get_figwidth() - 0.3) * fig.dpi
    renderer = fig.canvas.get_renderer()
    for split_words in (False, True):
        chars = len(whole)
        while text.get_window_extent(renderer).width > avail and chars > 10:
            chars = int(chars * 0.9)
            lines = textwrap.wrap(
                whole, chars, break_long_words=split_words, break_on_hyphens=False
            )
            text.set_text("\n".join(lines))
        if text.get_window_extent(renderer).width <= avail:
            return
        text.set_text(whole)
