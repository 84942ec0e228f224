"""Likelihood families: one small module each, from statistics to joint log-likelihoods.

The count and Gaussian families need numpy only; :class:`PoissonFamily` (scipy's
``gammaln``) is imported on first use, so the lean prediction path never loads scipy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._base import Family
from .bernoulli import BernoulliFamily
from .categorical import CategoricalFamily
from .complement import ComplementFamily
from .gaussian import GaussianFamily
from .multinomial import MultinomialFamily

if TYPE_CHECKING:
    from .poisson import PoissonFamily

__all__ = [
    "BernoulliFamily",
    "CategoricalFamily",
    "ComplementFamily",
    "Family",
    "GaussianFamily",
    "MultinomialFamily",
    "PoissonFamily",
]


def __getattr__(name: str) -> Any:
    if name == "PoissonFamily":
        from .poisson import PoissonFamily

        return PoissonFamily
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
