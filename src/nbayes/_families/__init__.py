"""Likelihood families: one small module each, from statistics to joint log-likelihoods."""

from __future__ import annotations

from ._base import Family
from .bernoulli import BernoulliFamily
from .categorical import CategoricalFamily
from .complement import ComplementFamily
from .gaussian import GaussianFamily
from .multinomial import MultinomialFamily
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
