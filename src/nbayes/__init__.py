"""nbayes: Naive Bayes from sufficient statistics.

Drop-in replacements for :mod:`sklearn.naive_bayes` whose models are their statistics:
they stream (``partial_fit``/``update``), forget (``unlearn``), combine (``merge``, ``+``),
generate data (``sample``) and explain themselves (``explain``, exactly with fractions).
"""

from __future__ import annotations

from .evaluation import EvaluationReport, evaluate
from .exceptions import (
    DecodingWarning,
    InvalidParameterError,
    ModelFileError,
    NBayesWarning,
    UndecidableWarning,
)
from .explain import Explanation
from .io.persist import load, save
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

__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    # The text layer loads compiled kernels: import it on first use only.
    if name == "TextClassifier":
        from .text.classifier import TextClassifier

        return TextClassifier
    raise AttributeError(f"module 'nbayes' has no attribute {name!r}")


__all__ = [
    "BernoulliNB",
    "CategoricalNB",
    "ComplementNB",
    "DecodingWarning",
    "EvaluationReport",
    "Explanation",
    "evaluate",
    "load",
    "save",
    "GaussianNB",
    "InvalidParameterError",
    "KernelNB",
    "MixedNB",
    "ModelFileError",
    "MultinomialNB",
    "NBayesWarning",
    "PoissonNB",
    "TextClassifier",
    "UndecidableWarning",
    "__version__",
]
