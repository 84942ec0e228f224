"""The registry of kinds: what the layers above the core ask a likelihood family by name.

A :class:`Kind` is one likelihood family as the rest of nbayes uses it: its name, its
family, its statistics type, how MixedNB builds a column of it and passes it MixedNB's
shared hyperparameters, how a column's values are read, sampled and sized, the grid a plot
of its marginal draws, and (optionally) how its statistics are written and read (its
:class:`Codec`) and the estimator the command line trains for ``--model``. MixedNB, its
model file, :func:`nbayes.plot.marginals` and the CLI look kinds up here
(:func:`kind`, :func:`kinds`, :func:`column_kinds`) instead of comparing names.

nbayes's own kinds are registered below (the text column's by :mod:`nbayes.mixed`, whose
statistics live in :mod:`nbayes.text`); :func:`register_kind` adds another, in one line::

    register_kind(ZeroInflatedPoissonKind())

``examples/zero_inflated_poisson.py`` adds a zero-inflated Poisson family that way;
``tests/families/test_new_kind.py`` uses it in MixedNB, the CLI, model files and plots.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._statistics import CategoryStats, CountStats, MomentStats
from .._statistics.points import PointStats
from ._base import Family

__all__ = [
    "ArraysCodec",
    "Codec",
    "Head",
    "Kind",
    "Marginal",
    "column_kinds",
    "kind",
    "kind_of_family",
    "kinds",
    "register_kind",
]

#: what a codec writes to: ``put(name, array)`` stores one array of a model file
#: (:class:`nbayes.io._arrays.ArrayWriter`)
Writer = Any
#: what a codec reads from: ``get(name, shape=..., non_negative=...)`` reads one array,
#: checked (:class:`nbayes.io._arrays.ArrayReader`)
Reader = Any


@dataclass(frozen=True)
class Head:
    """What a codec reads statistics against: the classes, their (checked) counts and the
    number of features."""

    classes: np.ndarray
    class_count: np.ndarray
    n_features: int


class Codec:
    """How statistics of a kind are written to a model file and read back.

    :meth:`dump` puts the arrays (besides ``class_count``, which the caller writes) and
    returns the JSON entries that go with them (``keys``); :meth:`load` rebuilds the
    statistics from them and the :class:`Head` (classes, class counts, features), raising
    :class:`~nbayes.exceptions.ModelFileError` for anything a fit could not have made. One
    codec serves the kind's estimator and MixedNB's columns (which have one feature each).
    """

    #: the JSON entries :meth:`dump` writes besides the arrays
    keys: tuple[str, ...] = ()

    def dump(self, stats: Any, writer: Writer) -> dict[str, Any]:
        raise NotImplementedError

    def load(self, reader: Reader, head: Head, extra: Mapping[str, Any], where: str) -> Any:
        raise NotImplementedError


class ArraysCodec(Codec):
    """The codec of statistics that are ``classes``, ``class_count`` and non-negative
    arrays of shape (n_classes, n_features) named ``fields`` (a dataclass over them)."""

    def __init__(self, stats_type: type, fields: tuple[str, ...]) -> None:
        self.stats_type = stats_type
        self.fields = fields

    def dump(self, stats: Any, writer: Writer) -> dict[str, Any]:
        for name in self.fields:
            writer.put(name, getattr(stats, name))
        return {}

    def load(self, reader: Reader, head: Head, extra: Mapping[str, Any], where: str) -> Any:
        shape = (len(head.classes), head.n_features)
        arrays = {name: reader.get(name, shape=shape, non_negative=True) for name in self.fields}
        return self.stats_type(head.classes, head.class_count, **arrays)


@dataclass(frozen=True)
class Marginal:
    """What a plot of P(x_k | y) draws: a ``"density"`` curve over ``values`` (a grid) or
    ``"bars"`` at ``values``, with ``probs`` of shape (n_classes, len(values)); ``numeric``:
    the values are numbers on an axis (a density, counts), so a plot may draw them at their
    values and on a log scale (else they are labels: categories, words, false/true)."""

    style: str
    values: list[Any]
    probs: np.ndarray
    numeric: bool = False


def log_density_at(family: Family, d: Any, n_features: int, k: int, values: Any) -> np.ndarray:
    """log P(x_k = v | y) for each of ``values``: see :func:`_log_density`."""
    return _log_density(family, d, n_features, k, values)


def _log_density(family: Family, d: Any, n_features: int, k: int, values: Any) -> np.ndarray:
    """log P(x_k = v | y) for each of ``values``, shape (n_classes, len(values)), through the
    family's per-feature log-density (the other features, NaN, are not looked at)."""
    X = np.full((len(values), n_features), np.nan)
    X[:, k] = values
    return np.asarray(family.feature_log_density(d, X)[:, :, k].T)


class Kind:
    """One likelihood family as the layers above the core use it (see the module).

    The defaults fit a family of one number per feature, smoothed by ``alpha`` (as
    poisson's); a kind overrides what differs.
    """

    #: the kind's name: a MixedNB column family, a model file's ``"family"``
    name: str = "base"
    #: the type of its statistics
    stats_type: Any = CountStats
    #: how MixedNB reads a column of this kind: ``"number"`` (floats), ``"count"``
    #: (floats >= 0), ``"flag"`` (0/1, True/False), ``"category"`` or ``"documents"``
    #: (strings: a bag of words)
    values: str = "number"
    #: whether MixedNB takes a column of this kind
    column: bool = True
    #: its codec (None: nbayes's own kinds, whose codecs are in nbayes.io)
    codec: Codec | None = None
    #: its estimator, which ``nbayes train --model NAME`` trains (taking ``--alpha``) and
    #: model files save through the codec (None for nbayes's own kinds: the CLI's table of
    #: estimators and io's serializers name theirs)
    estimator: type | None = None

    #: where the family is, ``"module:Class"`` (imported on first use), unless
    #: :meth:`make_family` is overridden
    family_path: str = ""

    def make_family(self) -> Family:
        """A new family object (stateless)."""
        module, _, name = self.family_path.partition(":")
        family: Family = getattr(importlib.import_module(module), name)()
        return family

    @property
    def family(self) -> Family:
        """The family (made on first use: poisson's imports scipy)."""
        family: Family | None = self.__dict__.get("_family")
        if family is None:
            family = self.make_family()
            self.__dict__["_family"] = family
        return family

    # ------------------------------------------------------------- MixedNB's columns
    def column_stats(self, vals: np.ndarray, y: np.ndarray, w: np.ndarray) -> Any:
        """Statistics of one column from its present values."""
        return self.stats_type.from_batch(vals[:, None].astype(np.float64), y, w)

    def empty(self, classes: np.ndarray) -> Any:
        """Statistics of a column that has seen no value."""
        return self.stats_type.empty(classes, 1)

    def hyperparameters(self, p: Mapping[str, Any], epsilon: float) -> dict[str, Any]:
        """The family's derivation values from MixedNB's shared hyperparameters ``p``
        (``alpha``, ``var_smoothing``, ``bandwidth``; ``epsilon`` is var_smoothing times the
        largest gaussian variance)."""
        return {
            "alpha": float(p["alpha"]),
            "force_alpha": True,
            "fit_prior": True,
            "class_prior": None,
        }

    def family_stats(self, col: Any) -> Any:
        """The statistics the family derives from (a text column's: its word counts)."""
        return col

    def after_subtract(self, col: Any) -> Any:
        """A column's statistics after ``unlearn``, in the form a fit gives (a text
        column forgets the words no document uses any more)."""
        return col

    def features(self, col: Any) -> np.ndarray | None:
        """The names of a column's own features (a text column's words), else None."""
        return None

    def log_likelihood(self, d: Any, vals: np.ndarray, features: Any) -> np.ndarray:
        """log P(x | y) of present values, shape (n_values, n_classes)."""
        X = vals.astype(np.float64)[:, None]
        return np.asarray(self.family.feature_log_density(d, X)[:, :, 0])

    def sample(
        self, d: Any, stats: Any, codes: np.ndarray, rng: np.random.Generator, features: Any
    ) -> np.ndarray:
        """Values of a column drawn for rows of the given class codes."""
        return np.asarray(self.family.sample(d, stats, codes, rng))[:, 0]

    def size(self, col: Any) -> int | None:
        """The size of a column's table (categories, words, stored points), else None."""
        return None

    def is_variance(self) -> bool:
        """Whether MixedNB's ``var_smoothing`` scales with this column's variance."""
        return False

    # ---------------------------------------------------------------------- plots
    def marginal(self, d: Any, stats: Any, k: int, n_grid: int, words: Any) -> Marginal:
        """What a plot of feature k's P(x_k | y) draws."""
        family: Any = self.family  # a family of counts with a value_range
        hi = int(family.value_range(d, k)[1])
        ks = np.arange(hi + 1)
        probs = np.exp(_log_density(self.family, d, stats.n_features, k, ks))
        return Marginal("bars", list(ks), probs, numeric=True)


class _Density(Kind):
    """Kinds of real values: a density curve over a grid."""

    def marginal(self, d: Any, stats: Any, k: int, n_grid: int, words: Any) -> Marginal:
        family: Any = self.family  # a family with a value_range
        lo, hi = family.value_range(d, k)
        grid = np.linspace(lo, hi, n_grid)
        probs = np.exp(_log_density(self.family, d, stats.n_features, k, grid))
        return Marginal("density", list(grid), probs, numeric=True)


class GaussianKind(_Density):
    name = "gaussian"
    stats_type = MomentStats

    family_path = "nbayes._families.gaussian:GaussianFamily"

    def hyperparameters(self, p: Mapping[str, Any], epsilon: float) -> dict[str, Any]:
        return {"epsilon": epsilon, "min_variance": np.finfo(float).tiny, "priors": None}

    def is_variance(self) -> bool:
        return True


class KernelKind(_Density):
    name = "kde"
    stats_type = PointStats

    family_path = "nbayes._families.kde:KernelFamily"

    def hyperparameters(self, p: Mapping[str, Any], epsilon: float) -> dict[str, Any]:
        return {"bandwidth": p["bandwidth"], "priors": None}

    def size(self, col: Any) -> int | None:
        return len(col.values[0])


#: the rate of the Gamma prior of poisson columns (MixedNB has no ``beta`` of its own)
POISSON_BETA = 1.0


class PoissonKind(Kind):
    name = "poisson"
    values = "count"

    family_path = "nbayes._families.poisson:PoissonFamily"

    def hyperparameters(self, p: Mapping[str, Any], epsilon: float) -> dict[str, Any]:
        return {**super().hyperparameters(p, epsilon), "beta": float(p.get("beta", POISSON_BETA))}


class BernoulliKind(Kind):
    name = "bernoulli"
    values = "flag"

    family_path = "nbayes._families.bernoulli:BernoulliFamily"

    def sample(
        self, d: Any, stats: Any, codes: np.ndarray, rng: np.random.Generator, features: Any
    ) -> np.ndarray:
        return super().sample(d, stats, codes, rng, features).astype(bool)

    def marginal(self, d: Any, stats: Any, k: int, n_grid: int, words: Any) -> Marginal:
        probs = np.exp(_log_density(self.family, d, stats.n_features, k, [0.0, 1.0]))
        return Marginal("bars", [False, True], probs)


class CategoricalKind(Kind):
    name = "categorical"
    stats_type = CategoryStats
    values = "category"

    family_path = "nbayes._families.categorical:CategoricalFamily"

    def column_stats(self, vals: np.ndarray, y: np.ndarray, w: np.ndarray) -> Any:
        return CategoryStats.from_batch(vals[:, None], y, w, integer_coded=False)

    def empty(self, classes: np.ndarray) -> Any:
        return CategoryStats.empty(classes, 1, integer_coded=False)

    def log_likelihood(self, d: Any, vals: np.ndarray, features: Any) -> np.ndarray:
        return np.asarray(self.family.feature_log_density(d, vals[:, None])[:, :, 0])

    def sample(
        self, d: Any, stats: Any, codes: np.ndarray, rng: np.random.Generator, features: Any
    ) -> np.ndarray:
        if len(stats.categories[0]) == 0:
            return np.full(len(codes), None, dtype=object)  # never observed: no category
        return super().sample(d, stats, codes, rng, features)

    def size(self, col: Any) -> int | None:
        return len(col.categories[0])

    def marginal(self, d: Any, stats: Any, k: int, n_grid: int, words: Any) -> Marginal:
        cats = stats.categories[k]
        X = np.empty((len(cats), stats.n_features), dtype=object)
        for i, other in enumerate(stats.categories):  # other features: any valid value
            X[:, i] = other[0] if len(other) else (0 if stats.integer_coded else None)
        X[:, k] = cats
        return Marginal(
            "bars", list(cats), np.exp(self.family.feature_log_density(d, X)[:, :, k].T)
        )


class WordsKind(Kind):
    """Word counts (multinomial, complement): a plot draws the 20 most telling words."""

    name = "multinomial"
    column = False

    family_path = "nbayes._families.multinomial:MultinomialFamily"

    def marginal(self, d: Any, stats: Any, k: int, n_grid: int, words: Any) -> Marginal:
        # one occurrence of each word: its term is log P(w | y)
        flp = self.family.feature_terms(d, np.ones(stats.n_features))
        top = np.argsort(-flp.max(axis=0))[:20]
        return Marginal("bars", list(np.asarray(words)[top]), np.exp(flp[:, top]))


class ComplementKind(WordsKind):
    name = "complement"

    family_path = "nbayes._families.complement:ComplementFamily"

    def marginal(self, d: Any, stats: Any, k: int, n_grid: int, words: Any) -> Marginal:
        raise ValueError("marginals() cannot draw a complement column.")


_KINDS: dict[str, Kind] = {}


def register_kind(new: Kind) -> Kind:
    """Add a kind to the registry (replacing one of the same name); returns it."""
    _KINDS[new.name] = new
    return new


def kind(name: str) -> Kind:
    """The kind of this name; a ValueError naming the known kinds if there is none."""
    found = _KINDS.get(name)
    if found is None:
        raise ValueError(f"Unknown family {name!r}: choose one of {list(column_kinds())}.")
    return found


def kinds() -> dict[str, Kind]:
    """Every registered kind by name, in the order of registration."""
    return dict(_KINDS)


def column_kinds() -> tuple[str, ...]:
    """The names of the kinds MixedNB takes as column families."""
    return tuple(name for name, k in _KINDS.items() if k.column)


def kind_of_family(family: Family) -> Kind | None:
    """The kind whose family is of ``family``'s type (None for a family no kind declares)."""
    for k in _KINDS.values():
        if type(k.family) is type(family):
            return k
    return None


for _kind in (
    GaussianKind(),
    KernelKind(),
    PoissonKind(),
    CategoricalKind(),
    BernoulliKind(),
    WordsKind(),
    ComplementKind(),
):
    register_kind(_kind)
