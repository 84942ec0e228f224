"""Explanations of single predictions: every feature's evidence, and exact derivations.

``model.explain(x)`` returns an :class:`Explanation`. In floating point it holds, per class,
the log prior, each feature's term of the log-likelihood (for Bernoulli models absent
features too), the joint log-likelihood and the posterior. With ``exact=True`` it also holds
the derivation as fractions, the way the course notes write it::

    P(positive) · P(x | positive) = 3/5 · 2/3 · 2/3 · 1/3 · 2/3 · 1/3 · 2/3 · 2/3 · 3/3 ≈ 0.00878
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from ._families._common import Factor, exact_prior_of, log_normalize
from ._families._exact import ExactProduct, exact_compare, exact_posterior, log10_posterior
from ._families.fitted import FittedLikelihood

__all__ = ["Explanation", "explain_row", "format_fraction", "show_fraction", "show_product"]


def _decimal_digits(q: Fraction) -> int | None:
    """Number of decimals of q if its decimal expansion ends (denominator 2^a·5^b), else None."""
    den = q.denominator
    twos = fives = 0
    while den % 2 == 0:
        den //= 2
        twos += 1
    while den % 5 == 0:
        den //= 5
        fives += 1
    return max(twos, fives) if den == 1 else None


#: Fractions whose numerator or denominator has more decimal digits are shown in scientific
#: form, with their sizes (a long document's exact joint probability has thousands of digits;
#: Python refuses to print integers of more than 4,300 digits); the exact value stays on
#: the explanation (:attr:`Explanation.joint`, :attr:`Explanation.posterior`).
MAX_DIGITS = 40
#: A derivation longer than this many factors shows the first and last ones.
MAX_FACTORS = 12
#: The derivation computes the exact posterior (a sum and divisions of the joint
#: probabilities: gcds of numbers of this many digits) only up to this size; beyond it, it
#: shows the posterior's value from logarithms (``Explanation.posterior`` still computes it).
EXACT_POSTERIOR_DIGITS = 20_000


def _digits(n: int) -> int:
    """Decimal digits of ``n`` (within one), without converting it to a string."""
    return int(abs(n).bit_length() * 0.30103) + 1


def _scientific(q: Fraction) -> str:
    """``q`` in scientific form, from logarithms (exact to the digits shown, any size)."""
    if q == 0:
        return "0"
    exponent10 = math.log10(abs(q.numerator)) - math.log10(q.denominator)
    return _scientific_log10(exponent10, "-" if q < 0 else "")


def _scientific_log10(exponent10: float, sign: str = "") -> str:
    """The number whose base-10 logarithm is ``exponent10``, in scientific form."""
    if exponent10 == -math.inf:
        return "0"
    e = math.floor(exponent10)
    m = 10 ** (exponent10 - e)
    if round(m, 3) >= 10:
        m, e = m / 10, e + 1
    if -4 <= e <= 4:
        return f"{sign}{m * 10.0**e:.4g}"
    return f"{sign}{m:.3f}e{e:+d}"


def _short(q: Fraction, max_digits: int = MAX_DIGITS) -> bool:
    return _digits(q.numerator) <= max_digits and _digits(q.denominator) <= max_digits


def _with_value(q: Fraction) -> str:
    """``3/32 = 0.09375``, ``1/3 ≈ 0.333``, ``2``; a long fraction in scientific form."""
    if not _short(q) or q.denominator == 1:
        return show_fraction(q)
    return f"{q} {format_fraction(q)}"


def show_fraction(q: Fraction, max_digits: int = MAX_DIGITS) -> str:
    """``q`` as ``num/den`` when neither has more than ``max_digits`` digits, else its value
    in scientific form with the sizes of the exact fraction (too long to print: Python
    refuses integers of more than 4,300 digits)."""
    if _short(q, max_digits):
        return str(q)
    num, den = _digits(q.numerator), _digits(q.denominator)
    return f"{_scientific(q)} (exactly a fraction of {num:,} / {den:,} digits)"


def show_product(p: ExactProduct, max_digits: int = MAX_DIGITS) -> str:
    """An exact product as :func:`show_fraction` shows its value, without building the
    value when it is too long to show (its size and value come from its factors)."""
    if p.short(max_digits):
        return show_fraction(p.value, max_digits)
    num, den = p.digits
    sign = "-" if p.sign < 0 else ""
    return f"{_scientific_log10(p.log10, sign)} (exactly a fraction of {num:,} / {den:,} digits)"


def _product_with_value(p: ExactProduct) -> str:
    """:func:`_with_value` of an exact product (long ones from their factors)."""
    if p.short(MAX_DIGITS):
        return _with_value(p.value)
    return show_product(p)


def format_fraction(q: Fraction) -> str:
    """``= 0.03125`` when the decimal is short and exact, else ``≈ 0.00878`` (3 digits);
    values beyond the range of a float in scientific form (``≈ 1.234e-5012``)."""
    if not _short(q):
        return f"≈ {_scientific(q)}"
    digits = _decimal_digits(q)
    if digits is not None and digits <= 6:
        text = f"{float(q):.{digits}f}" if digits else str(q.numerator)
        return f"= {text}"
    value = float(q)
    if value == 0 and q != 0:
        return f"≈ {_scientific(q)}"
    return f"≈ {value:.3g}"


def _product(factors: list[Any]) -> str:
    """The factors (each shown as a person derives it: ``3/7``) joined by " · ", folded in
    the middle when there are many."""
    if len(factors) > MAX_FACTORS:  # only the factors shown are written out
        hidden = len(factors) - (MAX_FACTORS - 2)
        head, tail = factors[: MAX_FACTORS - 4], factors[-2:]
        return " · ".join([*map(str, head), f"… ({hidden:,} more factors) …", *map(str, tail)])
    return " · ".join(str(f) for f in factors)


def _relative(
    terms: np.ndarray, cols: Any = None, total: Any = None, rows: Any = None
) -> np.ndarray:
    """Each class's term minus the mean of the other classes' terms (its log-odds share),
    0 where that is undefined; of the columns ``cols`` and the classes ``rows`` only, when
    given. ``total``: the terms summed over the classes (``terms.sum(axis=0)``), when the
    caller has it.

    The sum is always taken over the whole table, then its columns picked: numpy sums the
    20 rows of a narrow table pairwise but those of a wide one one by one, so summing
    only the columns asked for gave values 1e-15 away from the same columns of the whole.
    """
    terms = np.asarray(terms, dtype=np.float64)
    n = terms.shape[0]
    if total is None and n > 1:
        with np.errstate(invalid="ignore"):  # inf + -inf: no evidence (0)
            total = terms.sum(axis=0)
    every = terms
    if cols is not None:
        cols = np.asarray(cols, dtype=np.intp)
        every = terms[:, cols]
        total = None if total is None else total[cols]
    picked = range(n) if rows is None else np.asarray(rows, dtype=np.intp).tolist()
    terms = every if rows is None else every[picked]
    if n == 1:
        return np.where(np.isnan(terms), 0.0, terms)
    with np.errstate(invalid="ignore"):
        others = total - terms
        for r, i in enumerate(picked):
            # a class's own infinite term: the total less it is inf - inf, where the
            # other classes' sum is not ("was" absent: -inf for the class whose every
            # document has it, evidence against it that read as none); summed anew
            lost = np.flatnonzero(np.isnan(others[r]) & np.isinf(terms[r]))
            if len(lost):
                others[r, lost] = np.delete(every[:, lost], i, axis=0).sum(axis=0)
        rel = terms - others / (n - 1)
    return np.where(np.isnan(rel), 0.0, rel)


def _strongest(r: np.ndarray, k: int) -> np.ndarray:
    """Positions of the at most ``k`` largest positive values of ``r``, largest first,
    equal values in position order (the first ``k`` of a stable sort, without sorting a
    whole row of a million-word vocabulary)."""
    cand = np.flatnonzero(r > 0)
    if len(cand) > k:
        v = r[cand]
        cut = np.partition(v, len(v) - k)[len(v) - k] if k > 0 else np.inf
        above = cand[v > cut]
        cand = np.concatenate([above, cand[v == cut][: k - len(above)]])
    return cand[np.lexsort((cand, -r[cand]))]


@dataclass
class Explanation:
    """Why a Naive Bayes model classifies one row as it does.

    Attributes
    ----------
    classes : ndarray of shape (n_classes,)
    feature_names : list of str
    values : ndarray of shape (n_features,)
        The row, as the model sees it (after binarisation, for Bernoulli).
    log_prior : ndarray of shape (n_classes,)
    terms : ndarray of shape (n_classes, n_features)
        Each feature's term of log P(x | y) (log P(x_j | y), times the count for
        multinomial features).
    joint_log_likelihood : ndarray of shape (n_classes,)
        log P(y) + log P(x | y) as the model scores it.
    log_posterior : ndarray of shape (n_classes,)
        log P(y | x); NaN when every class has zero likelihood.
    """

    classes: np.ndarray
    feature_names: list[str]
    values: np.ndarray
    log_prior: np.ndarray
    terms: np.ndarray
    joint_log_likelihood: np.ndarray
    log_posterior: np.ndarray
    prior_factors: list[Factor] | None = None
    factors: list[list[Factor]] | None = None
    #: feature name -> position in ``feature_names``, when the model has one (a text
    #: model's vocabulary); :meth:`feature_index` looks names up in it
    lookup: Mapping[str, int] | None = field(default=None, repr=False)
    #: the document explained (a text model's), which the HTML view shows with its words
    #: coloured by their evidence; ``lowercase``: whether the model lowercases its words
    document: str | None = field(default=None, repr=False)
    lowercase: bool = field(default=True, repr=False)
    #: a model of presence and absence (Bernoulli): a feature the row lacks weighs too,
    #: by P(x_j = 0 | y), and its views name it so (``keeper = 0``, the notes' ``1 - θ``)
    presence: bool = field(default=False, repr=False)
    #: per class and feature, the term written out (a Gaussian's ``N(3 | μ = 2, σ² = 1) =
    #: 0.242``), where the family has such a reading
    readings: list[list[str]] | None = field(default=None, repr=False)
    #: the names under an exact derivation's factors where the values say more (a
    #: category's: ``outlook = sunny``, ``outlook = snow (unseen)``), else None
    value_labels: list[str] | None = field(default=None, repr=False)
    _products: list[ExactProduct] | None = field(default=None, init=False, repr=False)
    _exact_post: list[Fraction] | None = field(default=None, init=False, repr=False, compare=False)
    _total: tuple[Any, np.ndarray] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        if self.factors is not None and self.prior_factors is not None:
            # the joint probabilities as exact products of their factors: grouped, sized
            # and valued from the small factors (linear in the row); the long fractions
            # themselves are built only when asked for (:attr:`joint`, :attr:`posterior`)
            self._products = [
                ExactProduct.of([prior, *row])
                for prior, row in zip(self.prior_factors, self.factors, strict=True)
            ]

    # ----------------------------------------------------------------- values
    @property
    def exact(self) -> bool:
        return self._products is not None

    @property
    def exact_joint(self) -> dict[Any, ExactProduct] | None:
        """Class -> its joint probability as an :class:`ExactProduct` (None when not
        exact): its size, value from logarithms and sign without building the fraction."""
        if self._products is None:
            return None
        return dict(zip(self.classes.tolist(), self._products, strict=True))

    @property
    def undecidable(self) -> bool:
        """True when every class has zero joint probability: the classifier cannot decide."""
        if self._products is not None:
            return all(p.zero for p in self._products)
        return bool(np.isnan(self.log_posterior).any())

    @property
    def joint(self) -> dict[Any, Any]:
        """Class -> unnormalised score P(y) · prod_j P(x_j | y) (a Fraction when exact)."""
        if self._products is not None:
            return dict(zip(self.classes.tolist(), (p.value for p in self._products), strict=True))
        return dict(
            zip(self.classes.tolist(), np.exp(self.joint_log_likelihood).tolist(), strict=True)
        )

    @property
    def posterior(self) -> dict[Any, Any] | None:
        """Class -> P(y | x) (Fractions when exact); None when the classifier cannot decide."""
        if self.undecidable:
            return None
        if self._products is not None:
            if self._exact_post is None:
                self._exact_post = exact_posterior(self._products)
            return dict(zip(self.classes.tolist(), self._exact_post, strict=True))
        return dict(zip(self.classes.tolist(), np.exp(self.log_posterior).tolist(), strict=True))

    def posterior_floats(self) -> dict[Any, float] | None:
        """Class -> P(y | x) as a float (None when the classifier cannot decide): the
        exact posterior rounded when it is cheap to reduce, else its value from the exact
        products' logarithms (a long document: reducing its fractions takes seconds)."""
        if self.undecidable:
            return None
        if self._products is None or self._posterior_reducible():
            post = self.posterior
            assert post is not None
            return {c: float(p) for c, p in post.items()}
        logs = log10_posterior(self._products)
        return {c: 10.0**lp for c, lp in zip(self.classes.tolist(), logs, strict=True)}

    @property
    def prediction(self) -> Any:
        """The most probable class, or None when the classifier cannot decide."""
        if self._products is not None:
            if self.undecidable:
                return None
            best = 0  # the first of the largest, as max() picks among equal posteriors
            for i in range(1, len(self._products)):
                if exact_compare(self._products[i], self._products[best]) > 0:
                    best = i
            return self.classes.tolist()[best]
        post = self.posterior
        if post is None:
            return None
        return max(post, key=lambda c: post[c])

    @property
    def fallback(self) -> Any:
        """The class ``predict()`` returns: the prediction, or, when the classifier cannot
        decide, the class of the highest prior (the first of equal ones), as
        :func:`nbayes._template.decisions.best_classes` chooses it."""
        best = self.prediction
        if best is not None:
            return best
        return self.classes.tolist()[int(np.argmax(self.log_prior))]

    def contributions(self, cls: Any) -> list[tuple[str, float, float]]:
        """``(feature, value, term)`` for every feature, in feature order, for class ``cls``."""
        i = self._class_index(cls)
        return [
            (name, float(v), float(t))
            for name, v, t in zip(
                self.feature_names, self.values_as_float(), self.terms[i], strict=True
            )
        ]

    def top(self, k: int = 5, classes: Any = None) -> dict[Any, dict[str, list[tuple[str, float]]]]:
        """The ``k`` features with the most evidence for and against each class (of
        ``classes`` only, when given: a list of labels, or one label).

        Evidence is a feature's term for the class minus its mean term over the other
        classes (for two classes, the feature's log-likelihood ratio; see
        :meth:`evidence`). Features with no evidence (e.g. absent words of a multinomial
        model) are left out.
        """
        if int(k) < 0:
            raise ValueError(f"k must be >= 0 (the features listed per side); got {k!r}.")
        k = int(k)
        if classes is None:
            wanted = self.classes.tolist()
        elif isinstance(classes, str) or np.ndim(classes) == 0:
            wanted = [classes]  # one class label
        else:
            wanted = list(classes)
        rows = [self._class_index(c) for c in wanted]
        names = self.feature_names
        out: dict[Any, dict[str, list[tuple[str, float]]]] = {}
        for cls, i in zip(wanted, rows, strict=True):
            r = self._evidence_row(i)
            pro = [(names[j], float(r[j])) for j in _strongest(r, k)]
            con = [(names[j], float(r[j])) for j in _strongest(-r, k)]
            out[cls] = {"for": pro, "against": con}
        return out

    def evidence(self, features: Any = None) -> np.ndarray:
        """Each feature's evidence per class, shape (n_classes, n_features): its term for
        the class minus its mean term over the other classes (what :meth:`top` ranks by;
        0 where undefined). ``features``: positions in :attr:`feature_names` (see
        :meth:`feature_index`), to compute those columns only."""
        return _relative(self.terms, features, self._class_total())

    def feature_index(self, names: Any) -> dict[str, int]:
        """Position in :attr:`feature_names` of each of ``names`` that is a feature, in
        the order of ``names`` (the others are left out)."""
        wanted = list(dict.fromkeys(names))
        if self.lookup is not None:
            found = ((n, self.lookup.get(n)) for n in wanted)
            return {n: int(j) for n, j in found if j is not None}
        asked = set(wanted)
        at = {n: j for j, n in enumerate(self.feature_names) if n in asked} if asked else {}
        return {n: at[n] for n in wanted if n in at}

    def shown_row(self, row: list[Factor]) -> list[Factor]:
        """A class's factors in the order the views write them: the features' order; but a
        Bernoulli model's derivation too long to show whole (more than ``MAX_FACTORS``)
        puts the features the row holds first, so that the fold hides absent ones (the
        one word of "you stupid thing" was hidden among 20 absent ones)."""
        if not self.presence or len(row) + 1 <= MAX_FACTORS:
            return row
        values = self.values_as_float()
        held = [f.feature is not None and values[f.feature] != 0 for f in row]
        return [f for f, h in zip(row, held, strict=True) if h] + [
            f for f, h in zip(row, held, strict=True) if not h
        ]

    def labels(self, names: Any) -> dict[str, str]:
        """How the views name each of ``names`` (features): as it is, or ``keeper = 0``
        where a model of presence and absence weighs the feature by its absence (the notes'
        factor ``1 - θ_keeper``; a bare "keeper" read as the word's presence)."""
        names = list(names)
        lacks = self.absent(names) if self.presence else set()
        return {n: _lacking(n) if n in lacks else n for n in names}

    def factor_labels(self) -> list[str]:
        """The names under an exact derivation's factors, one per feature: a category's
        value (:attr:`value_labels`), or :meth:`labels`' ``keeper = 0`` of an absent
        feature, or the feature's name."""
        if self.value_labels is not None:
            return list(self.value_labels)
        if not self.presence:
            return list(self.feature_names)
        values = self.values_as_float()  # (every feature: by position, not looked up)
        return [
            _lacking(n) if v == 0 else n for n, v in zip(self.feature_names, values, strict=True)
        ]

    def absent(self, names: Any) -> set[str]:
        """Those of ``names`` (features) that the explained row does not hold: a model of
        presence and absence (Bernoulli) weighs them too; a multinomial's evidence is of
        the text's words only."""
        values = self.values_as_float()
        return {n for n, j in self.feature_index(names).items() if values[j] == 0}

    def _class_total(self) -> np.ndarray | None:
        """The terms summed over the classes (None for one class), computed once for
        the ``terms`` array the explanation holds."""
        if self.terms.shape[0] < 2:
            return None
        if self._total is None or self._total[0] is not self.terms:
            with np.errstate(invalid="ignore"):  # inf + -inf: no evidence (0)
                self._total = (self.terms, np.asarray(self.terms, dtype=np.float64).sum(axis=0))
        return self._total[1]

    def _evidence_row(self, i: int) -> np.ndarray:
        """Row ``i`` of :meth:`evidence`, computed alone (the same values)."""
        return _relative(self.terms, None, self._class_total(), rows=[i])[0]

    def values_as_float(self) -> np.ndarray:
        try:
            return np.asarray(self.values, dtype=np.float64)
        except (TypeError, ValueError):
            return np.full(len(self.values), np.nan)

    def _class_index(self, cls: Any) -> int:
        matches = np.flatnonzero(self.classes == cls)
        if not len(matches):
            raise KeyError(f"Unknown class {cls!r}; the classes are {self.classes.tolist()!r}.")
        return int(matches[0])

    # --------------------------------------------------------------- printing
    def derivation(self) -> str:
        """The exact derivation, one line per class, then the posterior and the decision."""
        if self._products is None or self.factors is None or self.prior_factors is None:
            if self.readings is not None:  # (exact=True refuses a model of densities)
                raise ValueError(
                    "This explanation is of densities, which have no exact derivation: "
                    "print it (or see .readings) for each feature's density per class."
                )
            raise ValueError("This explanation is not exact: call explain(x, exact=True).")
        lines = []
        for cls, prior, row, joint in zip(
            self.classes.tolist(), self.prior_factors, self.factors, self._products, strict=True
        ):
            product = _product([prior, *self.shown_row(row)])
            value = _product_with_value(joint)
            sign = "=" if joint.short(MAX_DIGITS) else "≈"  # (a long one: its value rounded)
            lines.append(f"P({cls}) · P(x | {cls}) = {product} {sign} {value}")
        if self.undecidable:
            lines.append(
                "Every class has probability 0: the classifier cannot decide "
                "(a zero count wiped out every product; smoothing, alpha > 0, avoids this)."
            )
            lines.append(f"predict() falls back to the class of the highest prior: {self.fallback}")
            return "\n".join(lines)
        if self._posterior_reducible():
            post = self.posterior
            assert post is not None
            for cls, q in post.items():
                sign = "=" if _short(q) else "≈"  # (not "= 1" for 1 - 7.35e-453)
                lines.append(f"P({cls} | x) {sign} {_with_value(q)}")
        else:
            shown = self.shown_posterior()
            assert shown is not None
            for cls, text in shown.items():
                lines.append(f"P({cls} | x) ≈ {text}")
        lines.append(f"Decision: {self.prediction}{self.tie_note()}")
        return "\n".join(lines)

    def tied(self) -> list[Any]:
        """The classes of the largest exact joint probability when more than one has it (a
        tie that the order of ``classes`` decides, as predict() does), else []."""
        if self._products is None or self.undecidable:
            return []
        classes = self.classes.tolist()
        best = classes.index(self.prediction)
        top = [
            c for c, p in zip(classes, self._products, strict=True)
            if exact_compare(p, self._products[best]) == 0
        ]  # fmt: skip
        return top if len(top) > 1 else []

    def tie_note(self) -> str:
        """`` (a tie with spam: ...)`` after the decision of an exact tie, else ``""``."""
        tied = self.tied()
        if not tied:
            return ""
        others = ", ".join(str(c) for c in tied if c != self.prediction)
        return (
            f" (a tie with {others}: equal probabilities, decided by the order of the "
            "classes, as predict() decides)"
        )

    def _posterior_reducible(self) -> bool:
        """Whether the exact posterior is computed (or cheap: short joint probabilities)."""
        assert self._products is not None
        size = sum(sum(p.digits) for p in self._products)
        return size <= EXACT_POSTERIOR_DIGITS or self._exact_post is not None

    def shown_posterior(self, max_digits: int = MAX_DIGITS) -> dict[Any, str] | None:
        """Class -> the exact posterior as :func:`show_fraction` shows it (None when the
        classifier cannot decide). When the joint probabilities are too long to reduce
        it quickly (over ``EXACT_POSTERIOR_DIGITS`` digits in all), its value from
        logarithms, saying so (:attr:`posterior` still computes the fractions)."""
        if self._products is None:
            raise ValueError("This explanation is not exact: call explain(x, exact=True).")
        if self.undecidable:
            return None
        classes = self.classes.tolist()
        if self._posterior_reducible():
            post = self.posterior
            assert post is not None
            return {c: show_fraction(q, max_digits) for c, q in post.items()}
        size = sum(sum(p.digits) for p in self._products)
        return {
            c: f"{_scientific_log10(lp)} (an exact fraction not reduced here: the joint "
            f"probabilities have {size:,} digits; Explanation.posterior computes it)"
            for c, lp in zip(classes, log10_posterior(self._products), strict=True)
        }

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        kind = "exact" if self.exact else "floating point"
        decision = "cannot decide" if self.undecidable else f"decision={self.prediction!r}"
        return (
            f"<Explanation ({kind}) of {len(self.feature_names):,} features, classes "
            f"{self.classes.tolist()!r}: {decision}>"
        )

    # IPython's display protocol: the derivation in LaTeX (exact), an HTML view (a table
    # of evidence with bars; a document's words coloured), the text in a console
    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(self.to_text())

    def to_latex(self) -> str:
        """The exact derivation in LaTeX (display math), the undecidable case saying that
        the classifier cannot decide."""
        from .display import explanation_latex

        return explanation_latex(self)

    def to_markdown(self, top: int = 5) -> str:
        """The explanation in Markdown (an exact derivation as display math)."""
        from .display import explanation_markdown

        return explanation_markdown(self, top)

    def to_html(self, top: int = 8) -> str:
        """The explanation in HTML (no MathJax needed)."""
        from .display import explanation_html

        return explanation_html(self, top)

    def _repr_latex_(self) -> str | None:
        return self.to_latex() if self.exact else None

    def _repr_html_(self) -> str:
        return self.to_html()

    def to_text(self, top: int = 5) -> str:
        """The explanation as text: the prediction, the per-class scores, and the ``top``
        features for and against each class (the exact derivation when exact)."""
        if self.exact:
            return self.derivation()
        lines = []
        post = self.posterior
        if post is None:
            lines.append("Every class has zero likelihood: the classifier cannot decide.")
        else:
            best = self.prediction
            lines.append(f"Prediction: {best} (P = {post[best]:.3g})")
        width = max(len(str(c)) for c in self.classes.tolist())
        lines.append(
            f"{'class':<{width}}  {'log prior':>10}  {'log P(x|y)':>11}  {'joint':>10}  posterior"
        )
        for i, cls in enumerate(self.classes.tolist()):
            loglik = self.joint_log_likelihood[i] - self.log_prior[i]
            p = "nan" if post is None else f"{post[cls]:.3g}"
            lines.append(
                f"{cls!s:<{width}}  {self.log_prior[i]:>10.4g}  {loglik:>11.4g}  "
                f"{self.joint_log_likelihood[i]:>10.4g}  {p}"
            )
        for cls, ev in self.top(top).items():
            # (an absent feature of a Bernoulli model named so: "today = 0" is not in the text)
            label = self.labels(n for side in ("for", "against") for n, _ in ev[side])
            for side in ("for", "against"):
                if ev[side]:
                    shown = ", ".join(f"{label[n]} ({v:+.3g})" for n, v in ev[side])
                    lines.append(f"{side} {cls}: {shown}")
        if self.readings is not None:  # (the densities the notes print)
            for cls, row in zip(self.classes.tolist(), self.readings, strict=True):
                terms = ", ".join(f"{n}: {r}" for n, r in zip(self.feature_names, row, strict=True))
                lines.append(f"P(x | {cls}): {terms}")
        return "\n".join(lines)


def _lacking(name: str) -> str:
    """A feature a model of presence and absence weighs by its absence, named: ``keeper =
    0`` (P(x_j = 0 | y), the notes' 1 - θ)."""
    return f"{name} = 0"


#: the features of a row whose terms a family writes out (:attr:`Explanation.readings`)
#: at most: a Gaussian's densities, a line of the text view per class
MAX_READINGS = 50


def explain_row(
    fitted: FittedLikelihood,
    X: Any,
    values: np.ndarray,
    exact: bool = False,
    jll: np.ndarray | None = None,
) -> Explanation:
    """The :class:`Explanation` of one row as the ``fitted`` likelihood scores it.

    ``X`` is the row as the model takes it (one row, validated), ``values`` the same as a
    dense 1-D float array; ``exact=True`` also derives the fractions from the fitted
    statistics and hyperparameters (``fitted.stats``, ``fitted.params``). The features are
    named by ``fitted.feature_names`` (``x0, x1, ...`` when it has none) and looked up in
    ``fitted.lookup`` (:attr:`Explanation.lookup`). ``jll``: the row's joint
    log-likelihood as the model predicts it, when the caller has it (else the family's).
    """
    if jll is None:
        jll = fitted.joint_log_likelihood(X)[0]
    log_post, _ = log_normalize(jll[None, :])
    prior_factors = factors = None
    names = fitted.feature_names
    shown = [f"x{j}" for j in range(len(values))] if names is None else list(names)
    labels = None
    if exact:
        factors = fitted.family.exact_factors(fitted.stats, dict(fitted.params), values)
        prior_factors = exact_prior_of(fitted.stats, dict(fitted.params))
        labels = fitted.family.value_labels(fitted.stats, shown, values)
    return Explanation(
        classes=fitted.stats.classes,
        feature_names=shown,
        values=values,
        log_prior=fitted.class_log_prior,
        terms=fitted.feature_terms(values),
        joint_log_likelihood=jll,
        log_posterior=log_post[0],
        prior_factors=prior_factors,
        factors=factors,
        lookup=fitted.lookup,
        presence=bool(fitted.family.presence),
        readings=(
            fitted.family.readings(fitted.derived, values) if len(values) <= MAX_READINGS else None
        ),
        value_labels=labels,
    )
