"""Robinson's token probabilities and Fisher's chi-square combining, in log space.

For a token seen in ``g`` of ``n_ham`` ham and ``b`` of ``n_spam`` spam messages
(document frequencies), Robinson's f(w) shrinks the spam ratio ``p(w) = (b / n_spam) /
(b / n_spam + g / n_ham)`` toward a prior ``x`` with strength ``s``::

    f(w) = (s * x + n * p(w)) / (s + n),    n = g + b

The clues of a message are its tokens with ``|f(w) - 0.5| >= min_dev``, the
``max_clues`` farthest from 0.5 when there are more. Fisher's method combines them: with
``Q(chi2, 2k)`` the chi-square survival function at ``2k`` degrees of freedom (k clues),
``H = Q(-2 sum ln f, 2k)`` and ``S = Q(-2 sum ln(1 - f), 2k)``, the spamicity is
``(1 + H - S) / 2``. Both ``S`` and ``1 - H`` can be far below the double precision of 1,
so the score is computed as the pair ``log(spamicity)``, ``log(1 - spamicity)``
(:func:`fisher_log_scores`): its log-odds rank messages without ties even where the
spamicity itself rounds to 1.0. ``Q`` at even degrees of freedom is a finite Poisson sum,
summed here in log space; its complement is summed from the other tail where that one is
the small one, so neither loses digits.

Where a message has overwhelming clues both ways, ``H`` and ``S`` are both tiny and the
spamicity is 1/2 to within a rounding error, whichever side's clues are the stronger. With
``tail_weight`` w > 0 the log-odds are ``logit((1 + H - S) / 2) + w * (ln H - ln S)``: the
log ratio of the two tails says which hypothesis of chance the clues reject the harder
(``ln S`` far below ``ln H``: the spam clues are the less likely by chance), and decides
that band; elsewhere the indicator's log-odds are large and the small term barely moves
them. ``w = 0`` is Robinson's and SpamBayes' indicator.

With ``ham_bias`` b > 0 the log-odds of a message of k >= 1 clues are lowered by ``b / k``:
a message called spam on one or two clues needs them strong. A message of no clues stays
at 1/2: the filter knows nothing of it.
Fisher's combining of a single clue is that clue's f(w), so without it one token seen once
in spam (f = 0.95 at s = 0.1) is a verdict of spam. With ``b = 8``, clues of f = 0.95
score a spamicity of 0.006 alone, 0.62 in two, 0.95 in three and 0.99 in four; a message
of 150 clues moves by 0.05 in log-odds. ``b = 0`` is Robinson's and SpamBayes' indicator.

``combining="mean"`` (:func:`mean_log_odds`) puts the clues' mean log-odds in place of
Fisher's indicator: ``2 / k * sum ln(f / (1 - f)) - b / k``. Fisher's indicator brings a long
message with strong evidence one way and some the other way to 1/2 (H and S both tiny),
where the mean keeps it on its side. A young filter's score is shrunk toward 1/2 on the
side of the class it has seen little of: a filter that has learnt few ham cannot tell that
a token is absent from ham. Measured on random orders of the SpamAssassin corpus and on
the SMS collection (BENCHMARKS.md, "The mean of the clues' log-odds").

The sums over clues use :func:`math.fsum`, which is correctly rounded and so independent of
the clues' order: a merged model scores bit for bit as one trained on everything.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = [
    "chi2_log_cdf",
    "chi2_log_sf",
    "fisher_log_scores",
    "logit",
    "mean_log_odds",
    "robinson_f",
    "robinson_f_columns",
]

_LN2 = math.log(2.0)


def robinson_f(
    g: int, b: int, n_ham: int, n_spam: int, s: float, x: float, c: float = 0.0
) -> float:
    """Robinson's f(w) of a token seen in ``g`` ham and ``b`` spam messages.

    ``c`` shrinks each class's document frequency of the token toward its frequency in
    all messages, ``m = (g + b) / (n_ham + n_spam)``, with the weight of ``c`` messages:
    ``(b + c m) / (n_spam + c)`` against ``(g + c m) / (n_ham + c)``. With few messages of
    a class, a token's absence from it is weak evidence (a filter that has learnt 600 spam
    and 4 ham must not call "people" a sure sign of spam). A class of no message at all
    reads as SpamBayes and bogofilter's older ``prob.c`` read it (every token seen is of the
    other class; bogofilter 1.2.5 gets 0/0 there, skips every token and answers its x).
    The filter does not score then: it is unsure until each class has ``min_learned``
    messages. ``c = 0`` is p(w) as bogofilter and SpamBayes compute it.

    >>> robinson_f(0, 10, 100, 100, s=1.0, x=0.5)  # only in spam: near 1, not 1
    0.9545454545454546
    >>> robinson_f(0, 0, 100, 100, s=1.0, x=0.5)  # never seen: the prior
    0.5
    """
    n = g + b
    if n == 0:
        return x
    if c and n_ham and n_spam:
        m = c * n / (n_ham + n_spam)
        spam_ratio = (b + m) / (n_spam + c)
        ham_ratio = (g + m) / (n_ham + c)
    else:
        spam_ratio = b / n_spam if n_spam else 0.0
        ham_ratio = g / n_ham if n_ham else 0.0
    p = spam_ratio / (spam_ratio + ham_ratio)
    return (s * x + n * p) / (s + n)


def robinson_f_columns(
    ham: Any, spam: Any, n_ham: int, n_spam: int, s: float, x: float, c: float = 0.0
) -> Any:
    """:func:`robinson_f` of every row of the int64 count arrays ``ham`` and ``spam``, as
    a float64 array: the same expressions in the same order, so each value is the one
    :func:`robinson_f` gives, bit for bit (`nbayes info` ranked a filter's 694,155 tokens
    in 0.7 s of calls).

    >>> import numpy as np
    >>> robinson_f_columns(np.array([0, 0, 3]), np.array([10, 0, 1]), 100, 100, 1.0, 0.5)
    array([0.95454545, 0.5       , 0.3       ])
    """
    import numpy as np

    n = ham + spam
    if c and n_ham and n_spam:
        m = c * n / (n_ham + n_spam)
        spam_ratio = (spam + m) / (n_spam + c)
        ham_ratio = (ham + m) / (n_ham + c)
    else:
        spam_ratio = spam / n_spam if n_spam else np.zeros(len(n))
        ham_ratio = ham / n_ham if n_ham else np.zeros(len(n))
    with np.errstate(invalid="ignore", divide="ignore"):  # (rows of no message: x below)
        p = spam_ratio / (spam_ratio + ham_ratio)
        f = (s * x + n * p) / (s + n)
    return np.where(n == 0, x, f)


def logit(p: float) -> float:
    """``log(p / (1 - p))``, the log-odds of a probability (a cutoff's, compared with a
    score's log-odds); infinite at 0 and 1."""
    if p <= 0.0:
        return -math.inf
    if p >= 1.0:
        return math.inf
    return math.log(p) - math.log1p(-p)


def _logaddexp(a: float, b: float) -> float:
    if a < b:
        a, b = b, a
    if b == -math.inf:
        return a
    return a + math.log1p(math.exp(b - a))


def chi2_log_sf(chi2: float, k: int) -> float:
    """``log Q(chi2, 2k)``: the log survival function of the chi-square distribution at
    ``2k`` degrees of freedom, ``log(exp(-m) * sum_{i<k} m**i / i!)`` with ``m = chi2/2``.

    >>> round(math.exp(chi2_log_sf(4.0, 2)), 12)  # exp(-2) * (1 + 2)
    0.40600584971
    >>> chi2_log_sf(2000.0, 3)  # far below what a float holds as 1 - P
    -986.875...
    """
    if k <= 0:
        return -math.inf
    m = chi2 / 2.0
    if m <= 0.0:
        return 0.0
    # the largest term is at i = min(k - 1, floor(m)); sum around it, scaled to 1 there
    top = min(k - 1, int(m))
    total = 1.0
    term = 1.0
    for i in range(top, 0, -1):  # downward: term_{i-1} = term_i * i / m
        term *= i / m
        total += term
        if term < 1e-17 * total:
            break
    term = 1.0
    for i in range(top + 1, k):  # upward: term_i = term_{i-1} * m / i
        term *= m / i
        total += term
        if term < 1e-17 * total:
            break
    log_top = top * math.log(m) - math.lgamma(top + 1)
    return -m + log_top + math.log(total)


def chi2_log_cdf(chi2: float, k: int) -> float:
    """``log(1 - Q(chi2, 2k))``, accurate where ``Q`` is near 1 (the upper Poisson tail
    ``exp(-m) * sum_{i>=k} m**i / i!`` is summed directly there).

    >>> round(math.exp(chi2_log_cdf(4.0, 2)), 12)
    0.59399415029
    >>> chi2_log_cdf(1e-3, 5)  # 1 - Q rounds to 0 in double precision
    -42.792...
    """
    if k <= 0:
        return 0.0
    m = chi2 / 2.0
    if m <= 0.0:
        return -math.inf
    if m > k:  # Q is below ~1/2: its complement loses nothing
        q = math.exp(chi2_log_sf(chi2, k))
        return math.log1p(-q)
    total = 1.0
    term = 1.0
    i = k
    while True:
        i += 1
        term *= m / i
        total += term
        if term < 1e-17 * total:
            break
    return -m + k * math.log(m) - math.lgamma(k + 1) + math.log(total)


def _log1pexp(z: float) -> float:
    """``log(1 + exp(z))`` without overflow."""
    return z + math.log1p(math.exp(-z)) if z > 0 else math.log1p(math.exp(z))


def fisher_log_scores(
    sum_log_f: float,
    sum_log_1mf: float,
    k: int,
    tail_weight: float = 0.0,
    ham_bias: float = 0.0,
) -> tuple[float, float]:
    """``(log spamicity, log(1 - spamicity))`` of ``k`` clues whose ``ln f`` sum to
    ``sum_log_f`` and whose ``ln(1 - f)`` sum to ``sum_log_1mf``; with ``tail_weight``
    w > 0, of the spamicity whose log-odds are the indicator's plus ``w * (ln H - ln S)``;
    with ``ham_bias`` b > 0, minus ``b / k`` (no clues: 1/2 still).

    >>> import math
    >>> ls, lh = fisher_log_scores(math.log(0.99) * 3, math.log(0.01) * 3, 3)
    >>> round(math.exp(ls), 6), round(math.exp(lh), 6)
    (0.999943, 5.7e-05)
    >>> fisher_log_scores(0.0, 0.0, 0) == (math.log(0.5), math.log(0.5))
    True

    Overwhelming clues both ways: 1/2 to within a rounding error, unless the tails decide
    (here the ham clues are the stronger):

    >>> sum_log_f = math.log(0.001) * 60 + math.log(0.99) * 60  # 60 ham, 60 spam clues
    >>> sum_log_1mf = math.log(0.999) * 60 + math.log(0.01) * 60
    >>> ls, lh = fisher_log_scores(sum_log_f, sum_log_1mf, 120)
    >>> abs(ls - lh) < 1e-12
    True
    >>> ls, lh = fisher_log_scores(sum_log_f, sum_log_1mf, 120, tail_weight=0.003)
    >>> round(ls - lh, 3)
    -0.272

    One clue of f = 0.95 is a spamicity of 0.95 (log-odds 2.94); with ``ham_bias=8`` its
    log-odds are 2.94 - 8 = -5.06, and 3 of them 5.68 - 8 / 3 = 3.01:

    >>> ls, lh = fisher_log_scores(math.log(0.95), math.log(0.05), 1)
    >>> round(math.exp(ls), 6), round(ls - lh, 2)
    (0.95, 2.94)
    >>> ls, lh = fisher_log_scores(math.log(0.95), math.log(0.05), 1, ham_bias=8.0)
    >>> round(ls - lh, 2)
    -5.06
    >>> ls, lh = fisher_log_scores(3 * math.log(0.95), 3 * math.log(0.05), 3, ham_bias=8.0)
    >>> round(ls - lh, 2)
    3.01
    >>> fisher_log_scores(0.0, 0.0, 0, ham_bias=8.0) == (math.log(0.5), math.log(0.5))
    True
    """
    if k == 0:
        return -_LN2, -_LN2
    h_chi2 = -2.0 * sum_log_f
    s_chi2 = -2.0 * sum_log_1mf
    log_h_tail = chi2_log_sf(h_chi2, k)
    log_s_tail = chi2_log_sf(s_chi2, k)
    # spamicity = (1 + H - S) / 2 = ((1 - S) + H) / 2;  1 - spamicity = ((1 - H) + S) / 2
    # (each at most log 1: H <= 1 and S >= 0, but the sums can round a few ulps above)
    log_spam = min(_logaddexp(chi2_log_cdf(s_chi2, k), log_h_tail) - _LN2, 0.0)
    log_ham = min(_logaddexp(chi2_log_cdf(h_chi2, k), log_s_tail) - _LN2, 0.0)
    if not tail_weight and not ham_bias:
        return log_spam, log_ham
    z = log_spam - log_ham
    if tail_weight:
        z += tail_weight * (log_h_tail - log_s_tail)
    if ham_bias:
        z -= ham_bias / k
    return -_log1pexp(-z), -_log1pexp(z)


#: the mean combining's weight of the clues' mean log-odds, and the messages of a class
#: (and of both) over which a young filter's trust in a side grows (:func:`mean_log_odds`)
MEAN_SCALE = 2.0
YOUNG_CLASS = 10.0
YOUNG_ALL = 30.0


def mean_log_odds(
    sum_log_f: float, sum_log_1mf: float, k: int, ham_bias: float, n_ham: int, n_spam: int
) -> float:
    """The log-odds of ``combining="mean"`` for ``k`` clues whose ``ln f`` and
    ``ln(1 - f)`` sum to ``sum_log_f`` and ``sum_log_1mf``, learnt from ``n_ham`` ham and
    ``n_spam`` spam messages.

    ``z = 2 * (sum_log_f - sum_log_1mf) / k - ham_bias / k``, twice the clues' mean
    log-odds less the bias of few clues; then, while the filter is young, a spam-leaning
    ``z`` is multiplied by ``max(n_ham / (n_ham + 10), n / (n + 30))`` and a ham-leaning one
    by ``max(n_spam / (n_spam + 10), n / (n + 30))`` (``n = n_ham + n_spam``): evidence of
    spam means little before the filter has seen ham (a token is "never in ham" when
    there was no ham), and the other way round. No clues: 0 (a spamicity of 1/2).

    >>> import math
    >>> f = [0.95, 0.95, 0.2]
    >>> sf, s1 = sum(map(math.log, f)), sum(math.log(1 - v) for v in f)
    >>> round(mean_log_odds(sf, s1, 3, 0.0, 10**6, 10**6), 4)  # 2 * (2 * 2.944 - 1.386) / 3
    3.0017
    >>> round(mean_log_odds(sf, s1, 3, 8.0, 10**6, 10**6), 4)  # less 8 / 3
    0.3351
    >>> round(mean_log_odds(sf, s1, 3, 0.0, 0, 5), 4)  # no ham learnt yet: x 5 / 35
    0.4288
    >>> mean_log_odds(0.0, 0.0, 0, 8.0, 10, 10)
    0.0
    """
    if k == 0:
        return 0.0
    z = MEAN_SCALE * (sum_log_f - sum_log_1mf) / k - ham_bias / k
    return z * young_factor(z, n_ham, n_spam)


def young_factor(z: float, n_ham: int, n_spam: int) -> float:
    """What :func:`mean_log_odds` multiplies the log-odds ``z`` by, learnt from ``n_ham``
    ham and ``n_spam`` spam: ``max(seen / (seen + 10), n / (n + 30))``, ``seen`` the
    messages of the class the evidence speaks against (ham for ``z > 0``)."""
    every = (n_ham + n_spam) / (n_ham + n_spam + YOUNG_ALL)
    seen = n_ham if z > 0 else n_spam
    return max(seen / (seen + YOUNG_CLASS), every)
