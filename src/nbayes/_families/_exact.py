"""Exact products of many small fractions: the joint probabilities of exact derivations.

A long document's exact joint probability is a product of thousands of small fractions
(one per word). Multiplied one by one, every step reduces an ever longer fraction (a gcd
of numbers with thousands of digits): the cost grew faster than the square of the text.
:class:`ExactProduct` instead

* groups equal factors as powers (a text repeats its words; a Bernoulli model's absent
  words share a few fractions);
* finds the reduced fraction's structure from the small factors alone: each numerator's
  part that shares primes with a denominator, and a coprime basis of those parts and the
  denominators (small numbers, few of them), so that the reduced numerator and
  denominator are known as products of powers of coprime pieces;
* so knows the product's sign, whether it is zero, its value (through logarithms) and
  the number of digits of its reduced numerator and denominator, in time linear in the
  number of factors, without multiplying anything;
* builds the exact :class:`~fractions.Fraction` only when asked, by balanced
  multiplications (a product tree: CPython multiplies long numbers in Karatsuba time) of
  numbers already coprime, so without a gcd of long numbers.

Examples
--------
>>> from fractions import Fraction as F
>>> p = ExactProduct.of([(F(3), F(5), 1), (F(2), F(3), 2), (F(1), F(3), 1)])
>>> p.value                     # 3/5 · (2/3)^2 · 1/3
Fraction(4, 45)
>>> p.digits                    # of the reduced numerator and denominator
(1, 2)
>>> round(p.log10, 6) == round(math.log10(4 / 45), 6)
True
>>> ExactProduct.of([(F(0), F(2), 1), (F(7), F(9), 3)]).zero
True
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any

__all__ = ["ExactProduct", "exact_compare", "exact_posterior", "log10_posterior"]


def _coprime(numerator: int, denominator: int) -> Fraction:
    """``numerator / denominator`` (already coprime, denominator > 0) as a Fraction, without
    the gcd Fraction's constructor would compute (quadratic in the digits)."""
    make: Any = getattr(Fraction, "_from_coprime_ints", None)  # Python >= 3.12
    if make is not None:
        return make(numerator, denominator)
    new: Any = Fraction  # Python 3.11: the constructor's private flag
    return new(numerator, denominator, _normalize=False)


def _tree_product(values: list[int]) -> int:
    """The product of ``values`` by balanced pairs (a product tree): long numbers meet
    long numbers, which CPython multiplies in Karatsuba time, instead of a long number
    times each small one in turn (quadratic)."""
    if not values:
        return 1
    while len(values) > 1:
        paired = [values[i] * values[i + 1] for i in range(0, len(values) - 1, 2)]
        if len(values) % 2:
            paired.append(values[-1])
        values = paired
    return values[0]


def _powers_product(terms: Sequence[tuple[int, int]]) -> int:
    """The product of ``base ** power`` over ``terms``."""
    return _tree_product([b**p if p != 1 else b for b, p in terms if b != 1 and p])


def _split(a: int, modulus: int) -> tuple[int, int]:
    """``a`` as ``(free, part)``: ``a = free · part``, every prime of ``part`` divides
    ``modulus``, ``free`` shares none with it."""
    part = 1
    g = math.gcd(a, modulus)
    while g > 1:
        a //= g
        part *= g
        g = math.gcd(a, g)
    return a, part


def _coprime_basis(values: Iterable[int]) -> list[int]:
    """Pairwise coprime numbers (> 1) of which every one of ``values`` is a product (with
    repetition): an element sharing a factor g with the number being placed is replaced by
    its quotient and g (placed in turn), and the number divided by g, until it shares
    none. Each split divides the product of what is left by g >= 2, so it ends."""
    basis: list[int] = []
    pending = sorted({v for v in values if v > 1})
    while pending:
        x = pending.pop()
        k = 0
        while k < len(basis) and x > 1:
            e = basis[k]
            g = math.gcd(x, e)
            if g == 1:
                k += 1
                continue
            basis[k] = basis[-1]  # e leaves the basis: its pieces are placed again
            basis.pop()
            pending.extend(v for v in (e // g, g) if v > 1)
            x //= g
        if x > 1:  # coprime to every element (those before k were to a multiple of it)
            basis.append(x)
    return basis


def _exponents(value: int, basis: Sequence[int]) -> dict[int, int]:
    """``value`` as powers of the (pairwise coprime) ``basis``: {element: exponent}."""
    out: dict[int, int] = {}
    for s in basis:
        if value == 1:
            break
        k = 0
        while value % s == 0:
            value //= s
            k += 1
        if k:
            out[s] = k
    if value != 1:  # pragma: no cover - every value is a product of the basis
        raise ArithmeticError(f"{value} is not a product of the coprime basis")
    return out


def _digits_of(log10: float) -> int:
    """Decimal digits of a positive integer whose base-10 logarithm is ``log10``."""
    return int(math.floor(log10 + 1e-12)) + 1


class ExactProduct:
    """The product of ``(numerator / denominator) ** power`` over many factors, exact.

    Build it with :meth:`of`. Cheap to build (linear in the number of factors, on small
    numbers): :attr:`zero`, :attr:`sign`, :attr:`log10` and :attr:`digits`. The exact
    :attr:`value` is built on first use (and kept).
    """

    __slots__ = ("zero", "sign", "log10", "digits", "_num", "_den", "_value")

    def __init__(self) -> None:
        self.zero = False
        self.sign = 1
        self.log10 = 0.0
        self.digits = (1, 1)
        self._num: list[tuple[int, int]] = []
        self._den: list[tuple[int, int]] = []
        self._value: Fraction | None = None

    @classmethod
    def of(cls, factors: Iterable[Any]) -> ExactProduct:
        """The product of ``factors``: :class:`~nbayes._families._common.Factor` objects
        or ``(numerator, denominator, power)`` triples of Fractions (or ints) and a
        non-negative int. A denominator of 0 raises ZeroDivisionError."""
        raw: dict[tuple[int, int, int, int], int] = {}
        for f in factors:
            if isinstance(f, tuple):
                num, den, power = Fraction(f[0]), Fraction(f[1]), int(f[2])
            else:
                num, den, power = f.numerator, f.denominator, f.power
            if power == 0:
                continue
            if power < 0:
                num, den, power = den, num, -power
            key = (num.numerator, num.denominator, den.numerator, den.denominator)
            raw[key] = raw.get(key, 0) + power
        groups: dict[tuple[int, int], int] = {}  # reduced base (a, b), b > 0 -> power
        for (n1, d1, n2, d2), power in raw.items():
            if n2 == 0:
                raise ZeroDivisionError("a factor with denominator 0 has no value")
            base = Fraction(n1 * d2, d1 * n2)
            key2 = (base.numerator, base.denominator)
            groups[key2] = groups.get(key2, 0) + power
        out = cls()
        if any(a == 0 for a, _ in groups):
            out.zero, out.log10 = True, -math.inf
            out._value = Fraction(0)
            return out
        if sum(p for (a, _), p in groups.items() if a < 0) % 2:
            out.sign = -1
        magnitudes: dict[tuple[int, int], int] = {}
        for (a, b), power in groups.items():
            magnitudes[(abs(a), b)] = magnitudes.get((abs(a), b), 0) + power
        out._reduce(magnitudes)
        return out

    def _reduce(self, groups: dict[tuple[int, int], int]) -> None:
        """Cancel what the numerators and the denominators share, on the small bases."""
        num_powers: dict[int, int] = {}
        den_powers: dict[int, int] = {}
        for (a, b), p in groups.items():
            if a > 1:
                num_powers[a] = num_powers.get(a, 0) + p
            if b > 1:
                den_powers[b] = den_powers.get(b, 0) + p
        modulus = _tree_product(sorted(den_powers))
        free: dict[int, int] = {}  # numerator pieces no denominator shares a prime with
        shared: dict[int, int] = {}  # the other pieces -> power
        for a, p in num_powers.items():
            f, part = _split(a, modulus) if modulus > 1 else (a, 1)
            if f > 1:
                free[f] = free.get(f, 0) + p
            if part > 1:
                shared[part] = shared.get(part, 0) + p
        basis = _coprime_basis([*shared, *den_powers])
        net: dict[int, int] = {}
        for values, sign in ((shared, 1), (den_powers, -1)):
            for v, p in values.items():
                for s, k in _exponents(v, basis).items():
                    net[s] = net.get(s, 0) + sign * k * p
        self._num = [*free.items(), *((s, e) for s, e in net.items() if e > 0)]
        self._den = [(s, -e) for s, e in net.items() if e < 0]
        num_log = math.fsum(p * math.log10(b) for b, p in self._num)
        den_log = math.fsum(p * math.log10(b) for b, p in self._den)
        self.log10 = num_log - den_log
        self.digits = (_digits_of(num_log), _digits_of(den_log))

    @property
    def value(self) -> Fraction:
        """The exact product (built on first use: a product tree, no gcd)."""
        if self._value is None:
            num = _powers_product(self._num)
            den = _powers_product(self._den)
            self._value = _coprime(self.sign * num, den)
        return self._value

    def short(self, max_digits: int) -> bool:
        """Whether neither the reduced numerator nor the denominator has more than
        ``max_digits`` digits."""
        return max(self.digits) <= max_digits

    def __repr__(self) -> str:
        if self.zero:
            return "ExactProduct(0)"
        return f"ExactProduct(10**{self.log10:.6g}, digits={self.digits})"


def exact_compare(a: ExactProduct, b: ExactProduct) -> int:
    """-1, 0 or 1 as ``a`` is less than, equal to or greater than ``b`` (exact): by their
    logarithms when they differ clearly, else by the exact values (cross-multiplied)."""
    if a.zero or b.zero or a.sign != b.sign:
        va = 0 if a.zero else a.sign
        vb = 0 if b.zero else b.sign
        if va != vb:
            return -1 if va < vb else 1
        if a.zero:
            return 0
    scale = 1e-9 * (1.0 + abs(a.log10) + abs(b.log10) + sum(a.digits) + sum(b.digits))
    gap = (a.log10 - b.log10) * a.sign
    if gap > scale:
        return 1
    if gap < -scale:
        return -1
    x, y = a.value, b.value
    return (x > y) - (x < y)


def log10_posterior(products: Sequence[ExactProduct]) -> list[float]:
    """log10 of each product divided by their sum (the posterior), from the logarithms
    (-inf for a zero product); for non-negative products with a positive sum."""
    logs = [-math.inf if p.zero else p.log10 for p in products]
    top = max(logs)
    total = math.fsum(10.0 ** (v - top) for v in logs if v != -math.inf)
    return [v - top - math.log10(total) if v != -math.inf else -math.inf for v in logs]


def exact_posterior(products: Sequence[ExactProduct]) -> list[Fraction]:
    """Each product divided by their sum, exact (for products with a non-zero sum)."""
    values = [p.value for p in products]
    total = sum(values, Fraction(0))
    return [v / total for v in values]
