"""nbayes: Naive Bayes from sufficient statistics.

Drop-in replacements for :mod:`sklearn.naive_bayes` whose models are their statistics:
they stream (``partial_fit``/``update``), forget (``unlearn``), combine (``merge``, ``+``),
generate data (``sample``) and explain themselves (``explain``, exactly with fractions).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from ._compat import install as _install_moved_paths
from .exceptions import (
    DecodingWarning,
    InvalidParameterError,
    ModelFileError,
    NBayesWarning,
    UndecidableWarning,
)
from .interop._import_hook import watch as _watch_skl2onnx

# modules moved into packages keep their old import paths (and pickles load)
_install_moved_paths()

if TYPE_CHECKING:
    from ._template.decisions import Decisions, decide
    from .evaluation import EvaluationReport, evaluate
    from .explain import Explanation
    from .interop.onnx import to_onnx
    from .io.persist import is_model_file, load, load_scorer, save
    from .kernel import KernelNB
    from .mixed import MixedNB
    from .naive_bayes import (
        BernoulliNB,
        CategoricalNB,
        ComplementNB,
        GaussianNB,
        MultinomialNB,
        PoissonNB,
    )
    from .nbsvm import NBSVM
    from .semi_supervised import SemiSupervisedNB
    from .spam import SpamFilter
    from .text.classifier import TextClassifier

    __version__: str


def _version() -> str:
    """The installed distribution's version: pyproject.toml is its one source."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("nbayes")
    except PackageNotFoundError:  # pragma: no cover - a source tree that was never installed
        return "0+unknown"


# The estimators pull in scikit-learn and scipy (and the text layer its compiled kernels):
# each name is imported on first use, so `import nbayes` alone, the command line and the
# lean prediction path (nbayes.text.scoring) load none of them.
_LAZY = {
    "BernoulliNB": ".naive_bayes",
    "CategoricalNB": ".naive_bayes",
    "ComplementNB": ".naive_bayes",
    "GaussianNB": ".naive_bayes",
    "MultinomialNB": ".naive_bayes",
    "PoissonNB": ".naive_bayes",
    "KernelNB": ".kernel",
    "MixedNB": ".mixed",
    "TextClassifier": ".text.classifier",
    "NBSVM": ".nbsvm",
    "SemiSupervisedNB": ".semi_supervised",
    "SpamFilter": ".spam",
    "Decisions": "._template.decisions",
    "decide": "._template.decisions",
    "EvaluationReport": ".evaluation",
    "evaluate": ".evaluation",
    "Explanation": ".explain",
    "is_model_file": ".io.persist",
    "load": ".io.persist",
    "load_scorer": ".io.persist",
    "save": ".io.persist",
    "to_onnx": ".interop.onnx",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if name == "__version__":  # read from the installed metadata on first use
        value: Any = _version()
    elif module is None:
        raise AttributeError(f"module 'nbayes' has no attribute {name!r}")
    else:
        value = getattr(import_module(module, __name__), name)
    globals()[name] = value  # later look-ups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "BernoulliNB",
    "CategoricalNB",
    "ComplementNB",
    "Decisions",
    "DecodingWarning",
    "EvaluationReport",
    "Explanation",
    "decide",
    "evaluate",
    "is_model_file",
    "load",
    "load_scorer",
    "save",
    "to_onnx",
    "GaussianNB",
    "InvalidParameterError",
    "KernelNB",
    "MixedNB",
    "ModelFileError",
    "MultinomialNB",
    "NBSVM",
    "NBayesWarning",
    "PoissonNB",
    "SemiSupervisedNB",
    "SpamFilter",
    "TextClassifier",
    "UndecidableWarning",
    "__version__",
]

# skl2onnx converts the drop-ins once both are imported, in either order (never imported here)
_watch_skl2onnx()
