"""Predictions and explanations as JSON: what ``/predict`` and ``/explain`` answer.

Probabilities are the library's own floats (``predict_proba``; JSON keeps every digit),
labels its ``predict``; a row no class can explain (``alpha=0``) has null probabilities.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from nbayes import decide
from nbayes.explain import show_product

#: exact fractions in JSON as "num/den" up to this many digits (Python prints 4,300 at most)
_EXACT_DIGITS = 4000

#: the words a document lacks that an explanation of a Bernoulli text model lists: the
#: strongest this many for the predicted class, and as many against it
ABSENT_PER_SIDE = 5

#: the columns of a vocabulary whose evidence is computed at once, looking for the
#: strongest absent words (a hashing model has a million)
_ABSENT_CHUNK = 1 << 16

__all__ = ["explanation", "predictions"]


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def _num(p: float) -> float | None:
    return None if p != p else p


#: documents scored per call of a text model: each row's score is its own (the same in
#: any batch), and the compiled kernels hold the interpreter for one call at a time
TEXT_BATCH = 10_000


def predictions(model: Any, X: Any, top: int | None, text: bool = False) -> list[dict[str, Any]]:
    """One ``{"label", "probabilities"}`` per input; with ``top`` the ``top`` most probable
    classes only, most probable first (the library's ``predict_top``). Documents of a text
    model (``text``) are scored :data:`TEXT_BATCH` at a time."""
    if text and len(X) > TEXT_BATCH:
        out: list[dict[str, Any]] = []
        for i in range(0, len(X), TEXT_BATCH):
            out += predictions(model, X[i : i + TEXT_BATCH], top)
        return out
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # undecidable rows: null probabilities say it
        decisions = decide(model, X)  # one scoring: labels, probabilities, top classes
    labels = decisions.labels.tolist()
    if top is not None:
        top_labels, top_proba = decisions.top(top)
        return [
            {"label": label, "probabilities": {
                str(c): _num(p) for c, p in zip(ls, ps, strict=True)}}
            for label, ls, ps in zip(labels, top_labels.tolist(), top_proba.tolist(),
                                     strict=True)
        ]  # fmt: skip
    proba = decisions.proba.tolist()
    classes = [str(c) for c in model.classes_.tolist()]
    return [
        {"label": label, "probabilities": {c: _num(p) for c, p in zip(classes, row, strict=True)}}
        for label, row in zip(labels, proba, strict=True)
    ]


def _float(v: float) -> float | None:
    v = float(v)
    if v != v:
        return None
    if v in (float("inf"), float("-inf")):
        return None
    return v


_MISSING = object()


def _value(raw: Any, as_float: float) -> Any:
    """A feature's value for JSON: a float, a category (str, int, bool), or
    :data:`_MISSING` for a missing cell (None, NaN)."""
    if raw is None or (isinstance(raw, (float, np.floating)) and raw != raw):
        return _MISSING
    if as_float == as_float:  # the row as floats (a table of numbers)
        return _float(as_float)
    if isinstance(raw, (str, bool, np.bool_, int, np.integer, float, np.floating)):
        return _float(float(raw)) if isinstance(raw, (float, np.floating)) else _plain(raw)
    return str(raw)


def explanation(model: Any, x: Any, exact: bool, text: str | None) -> dict[str, Any]:
    """The evidence of every feature of one document (or row), per class; ``exact`` adds
    the derivation with exact fractions."""
    derivation = ""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exp = model.explain(x, exact=exact)
        if exact:  # long fractions come in scientific form, with their exact sizes
            derivation = exp.derivation()
    classes = [_plain(c) for c in exp.classes.tolist()]
    keys = [str(c) for c in classes]
    post = exp.posterior_floats()
    terms = np.asarray(exp.terms, dtype=np.float64)
    values = exp.values_as_float()
    seen: set[str] | None = None
    order: list[int] = list(range(len(exp.feature_names)))
    tokens: list[dict[str, Any]] = []
    if text is not None:  # the document's terms in order, known or not (only their
        # columns are read: a Bernoulli model's explanation holds every word); a hashing
        # model's features are buckets: each term's is found as `nbayes explain` finds it
        # (every word was "known": false, a fuzz)
        from nbayes.text.scoring import term_features

        analyzed = list(dict.fromkeys(model.analyze(text)))
        names = term_features(model, analyzed)
        seen = set(names.values())
        found = exp.feature_index(list(names.values()))
        index = {t: found[n] for t, n in names.items() if n in found}
        order = sorted(set(index.values()))
    rel = exp.evidence(order)  # the evidence of the features in ``order``, by position
    if text is not None:
        at = {j: q for q, j in enumerate(order)}
        for term in analyzed:
            j = index.get(term)
            tokens.append({"token": term, "known": j is not None} if j is None else {
                "token": term, "known": True, **_evidence(rel[:, at[j]], keys),
            })  # fmt: skip
    features = []
    missing = []
    for q, j in enumerate(order):
        value = _value(exp.values[j], values[j])
        if value is _MISSING:  # a missing cell (MixedNB): no evidence, left out
            missing.append(exp.feature_names[j])
            continue
        features.append({
            "feature": exp.feature_names[j],
            "value": value,
            "log_terms": {k: _float(terms[i, j]) for i, k in enumerate(keys)},
            "evidence": {k: _float(rel[i, q]) for i, k in enumerate(keys)},
        })  # fmt: skip
    out: dict[str, Any] = {
        "label": _plain(exp.prediction),
        "undecidable": bool(exp.undecidable),
        "probabilities": None if post is None else {str(c): p for c, p in post.items()},
        "log_prior": {k: _float(v) for k, v in zip(keys, exp.log_prior.tolist(), strict=True)},
        "joint_log_likelihood": {
            k: _float(v) for k, v in zip(keys, exp.joint_log_likelihood.tolist(), strict=True)
        },
        "features": features,
    }  # fmt: skip
    if missing:
        out["missing"] = missing
    if text is not None:
        out["tokens"] = tokens
        if _weighs_absent(model):
            out["absent"] = _absent(exp, keys)
    if exact:
        out["exact"] = _exact(exp, keys, seen, derivation)
    return out


def _evidence(column: np.ndarray, keys: list[str]) -> dict[str, Any]:
    """``{"evidence": {class: float}}`` of one feature, and ``"infinite"`` when some of it
    is infinite (``alpha=0``: a word one class never saw; JSON has no infinity, so its
    ``evidence`` is null): ``{class: 1 or -1}``, the sign of each infinite value."""
    values = list(zip(keys, column.tolist(), strict=True))
    out: dict[str, Any] = {"evidence": {k: _float(v) for k, v in values}}
    infinite = {k: 1 if v > 0 else -1 for k, v in values if math.isinf(v)}
    if infinite:
        out["infinite"] = infinite
    return out


def _weighs_absent(model: Any) -> bool:
    """Whether a text model's likelihood weighs the words a document lacks (a family of
    presence and absence: Bernoulli), as ``nbayes explain`` asks it."""
    from nbayes.text.scoring import FAMILIES

    family = FAMILIES.get(str(getattr(model, "model", "")))
    return bool(getattr(family, "presence", False))


def _absent(exp: Any, keys: list[str]) -> list[dict[str, Any]]:
    """The words of the vocabulary the document lacks (the features the explanation's row
    does not hold, :meth:`~nbayes.explain.Explanation.absent`) with the strongest evidence
    for the predicted class (the first class when none can be predicted) and against it,
    :data:`ABSENT_PER_SIDE` of each at most, strongest first (equal ones in feature order):
    ``{"token", "evidence", "infinite"}`` as the document's own tokens. Words whose
    evidence is 0 weigh nothing and are left out."""
    classes = exp.classes.tolist()
    focus = exp.prediction
    row = classes.index(focus) if focus is not None and focus in classes else 0
    lacks = np.flatnonzero(exp.values_as_float() == 0)
    k = ABSENT_PER_SIDE
    found: list[np.ndarray] = []  # the strongest columns of each chunk, either side
    for start in range(0, len(lacks), _ABSENT_CHUNK):
        cols = lacks[start : start + _ABSENT_CHUNK]
        r = exp.evidence(cols)[row]
        for side in (r, -r):
            cand = np.flatnonzero(side > 0)
            if len(cand) > k:
                cand = cand[np.argpartition(-side[cand], k - 1)[:k]]
            found.append(cols[cand])
    if not found:
        return []
    cols = np.unique(np.concatenate(found))
    if not len(cols):
        return []
    ev = exp.evidence(cols)
    r = ev[row]
    picked: list[int] = []
    for side in (r, -r):
        cand = np.flatnonzero(side > 0)
        picked += cand[np.lexsort((cols[cand], -side[cand]))][:k].tolist()
    picked.sort(key=lambda q: (-abs(r[q]), int(cols[q])))
    names = exp.feature_names
    return [{"token": str(names[int(cols[q])]), **_evidence(ev[:, q], keys)} for q in picked]


def _exact(exp: Any, keys: list[str], seen: set[str] | None, derivation: str) -> dict[str, Any]:
    """The textbook derivation: the fractions of every factor, the joint and posterior."""
    factors: dict[str, list[dict[str, Any]]] = {}
    if exp.factors is not None:
        for key, row in zip(keys, exp.factors, strict=True):
            parts = []
            for f in row:
                name = exp.feature_names[f.feature] if f.feature is not None else None
                if seen is not None and name not in seen:
                    continue
                parts.append({"feature": name, "fraction": str(f), "value": _factor_value(f)})
            factors[key] = parts
    prior = (
        {k: str(f) for k, f in zip(keys, exp.prior_factors, strict=True)}
        if exp.prior_factors is not None else None
    )  # fmt: skip
    joint = exp.exact_joint
    post = exp.shown_posterior(_EXACT_DIGITS)
    return {
        "derivation": derivation,
        "prior": prior,
        "factors": factors,
        "joint": {str(c): show_product(v, _EXACT_DIGITS) for c, v in joint.items()},
        "posterior": None if post is None else {str(c): v for c, v in post.items()},
    }


def _factor_value(f: Any) -> float:
    """A factor's value as a float; a high power of it from logarithms (a word repeated
    thousands of times: its exact power has thousands of digits)."""
    if f.power <= 64 or f.numerator == 0:
        return float(f.value)
    q = f.numerator / f.denominator
    return math.exp(f.power * (math.log(q.numerator) - math.log(q.denominator)))


def spam_verdicts(model: Any, messages: list[str]) -> list[dict[str, Any]]:
    """One ``{"label", "spamicity"}`` per raw message of a spam filter (``label``: ham,
    unsure or spam)."""
    return [{"label": v.verdict, "spamicity": _num(v.spamicity)} for v in model.classify(messages)]


def spam_filtered(
    model: Any, message: str | bytes, clues: bool = True
) -> tuple[Any, list | None, float]:
    """A spam filter's verdict on one raw message and (unless ``clues`` is False) the clues
    it combined, strongest first, and what the bias of few clues took off its log-odds: what
    :func:`filtering_answer` and :func:`filtering_json` write, scored once."""
    if not clues:
        return model.classify([message])[0], None, 0.0
    found = model.clues(message, unused=False)
    return found.verdict, found.used(), found.bias


def filtering_answer(v: Any, used: list | None, bias: float = 0.0) -> dict[str, Any]:
    """The answer of :func:`spam_filtered`'s verdict and clues: the verdict, the spamicity,
    its log-odds and, when asked for, the bias of few clues (``ham_bias / clues``, taken
    off the log-odds) and the clues (each combined token's f(w), its ham and spam counts
    and its side)."""
    out = {"verdict": v.verdict, "spamicity": _num(v.spamicity), "log_odds": _float(v.log_odds)}
    if used is not None:
        out["bias"] = _float(bias)
        out["clues"] = [
            {"token": c.token, "f": _num(c.f), "ham": c.ham, "spam": c.spam, "side": c.side}
            for c in used
        ]
    return out


def filtering_json(v: Any, used: list | None, bias: float = 0.0) -> bytes | None:
    """:func:`filtering_answer` as the JSON bytes ``nbayes.serve.app.json_bytes`` writes for
    it (byte for byte), written directly: the 150 clue objects of a message cost the generic
    encoder ~5 us each, a format string ~1 us. None for an answer that needs the generic
    encoder's care (a number that is not finite, text that UTF-8 cannot carry): encode
    :func:`filtering_answer`'s dict then."""
    from json.encoder import encode_basestring as text  # (the C one: JSON's string escapes)

    parts = []
    if used is not None:
        if not all(math.isfinite(c.f) for c in used):
            return None
        parts = [
            f'{{"token":{text(c.token)},"f":{c.f!r},"ham":{c.ham:d},"spam":{c.spam:d},'
            f'"side":{text(c.side)}}}'
            for c in used
        ]
    spamicity, log_odds = float(v.spamicity), float(v.log_odds)
    if not (math.isfinite(spamicity) and math.isfinite(log_odds)):
        return None
    head = f'{{"verdict":{text(v.verdict)},"spamicity":{spamicity!r},"log_odds":{log_odds!r}'
    if used is None:
        out = head + "}"
    else:
        bias = float(bias)
        if not math.isfinite(bias):
            return None
        out = head + f',"bias":{bias!r},"clues":[' + ",".join(parts) + "]}"
    try:
        return out.encode("utf-8")
    except UnicodeEncodeError:
        return None


def spam_filtering(model: Any, message: str | bytes, clues: bool = True) -> dict[str, Any]:
    """A spam filter's answer on one raw message (:func:`filtering_answer`)."""
    return filtering_answer(*spam_filtered(model, message, clues))


def spam_filtering_json(model: Any, message: str | bytes, clues: bool = True) -> bytes | None:
    """:func:`spam_filtering`'s answer written directly (:func:`filtering_json`)."""
    return filtering_json(*spam_filtered(model, message, clues))
