"""TextStats: several statistics merged at once, and the compact pickle of count tables."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from nbayes import GaussianNB, TextClassifier


def _corpus(n: int = 480, n_words: int = 400, n_classes: int = 3) -> tuple[list[str], np.ndarray]:
    rng = np.random.default_rng(0)
    words = [f"w{i:04d}" for i in range(n_words)]
    docs = [" ".join(rng.choice(words, 9)) for _ in range(n)]
    y = rng.choice(list("abcdefgh"[:n_classes]), n)
    y[:60] = "a"  # the first part holds one class only: classes are united too
    return docs, y


def _same(a: TextClassifier, b: TextClassifier) -> None:
    sa, sb = a._stats, b._stats
    assert list(sa.vocabulary.terms) == list(sb.vocabulary.terms)
    np.testing.assert_array_equal(sa.classes, sb.classes)
    np.testing.assert_array_equal(sa.counts.feature_count, sb.counts.feature_count)
    np.testing.assert_array_equal(sa.class_count, sb.class_count)
    np.testing.assert_array_equal(sa.doc_freq, sb.doc_freq)
    np.testing.assert_array_equal(sa.term_freq, sb.term_freq)
    assert sa.n_docs == sb.n_docs


@pytest.mark.parametrize("model", ["multinomial", "bernoulli", "complement"])
def test_merging_many_at_once_is_merging_in_turn_is_one_fit(model: str) -> None:
    docs, y = _corpus()
    parts = [
        TextClassifier(model=model).fit(docs[i : i + 60], y[i : i + 60])
        for i in range(0, len(docs), 60)
    ]
    at_once = parts[0].merge(*parts[1:])
    in_turn = parts[0]
    for part in parts[1:]:
        in_turn = in_turn.merge(part)
    whole = TextClassifier(model=model).fit(docs, y)
    _same(at_once, whole)
    _same(in_turn, whole)
    # (a fitted Bernoulli model's fused first derivation may differ in the last bits)
    np.testing.assert_allclose(
        at_once.predict_proba(docs[:50]), whole.predict_proba(docs[:50]), rtol=1e-12
    )


def test_merging_many_with_an_updated_model_falls_back_to_pairs() -> None:
    """An update appends its new terms after the old ones (the vocabulary is no longer
    sorted): the merge of several then goes pair by pair, with the same result."""
    docs, y = _corpus()
    first = TextClassifier().fit(docs[:100], y[:100]).update(["zzz aaa new"], ["b"])
    others = [TextClassifier().fit(docs[i : i + 100], y[i : i + 100]) for i in (100, 200)]
    from nbayes.text._textstats import _united_sorted

    # the one-pass union declines (an unsorted vocabulary), so the merge goes pair by pair
    assert _united_sorted([first._stats, *(o._stats for o in others)]) is None
    assert _united_sorted([o._stats for o in others]) is not None
    at_once = first.merge(*others)
    in_turn = first.merge(others[0]).merge(others[1])
    _same(at_once, in_turn)


def test_merging_many_hashing_models() -> None:
    docs, y = _corpus()
    parts = [
        TextClassifier(n_features=2**10).fit(docs[i : i + 160], y[i : i + 160])
        for i in (0, 160, 320)
    ]
    whole = TextClassifier(n_features=2**10).fit(docs, y)
    merged = parts[0].merge(*parts[1:])
    np.testing.assert_array_equal(
        merged._stats.counts.feature_count, whole._stats.counts.feature_count
    )


def test_merging_many_refuses_a_mismatch_and_changes_nothing() -> None:
    docs, y = _corpus()
    a = TextClassifier().fit(docs[:100], y[:100])
    b = TextClassifier().fit(docs[100:200], y[100:200])
    c = TextClassifier(alpha=0.5).fit(docs[200:300], y[200:300])
    before = a._stats.counts.feature_count.copy()
    with pytest.raises(ValueError, match="different hyperparameters"):
        a.merge(b, c)
    np.testing.assert_array_equal(a._stats.counts.feature_count, before)


def test_merging_many_core_models() -> None:
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(90, 3)), rng.integers(0, 2, 90)
    parts = [GaussianNB().fit(X[i : i + 30], y[i : i + 30]) for i in (0, 30, 60)]
    at_once = parts[0].merge(*parts[1:])
    in_turn = parts[0].merge(parts[1]).merge(parts[2])
    np.testing.assert_array_equal(at_once.theta_, in_turn.theta_)
    np.testing.assert_array_equal(at_once.var_, in_turn.var_)


@pytest.mark.parametrize("weights", [None, "fractional", "large"])
def test_the_compact_pickle_restores_the_counts_exactly(weights: str | None) -> None:
    docs, y = _corpus(n=300, n_words=8000, n_classes=6)
    sw = None
    if weights == "fractional":
        sw = np.linspace(0.1, 3.3, len(docs))
    elif weights == "large":
        sw = np.full(len(docs), 70_000.0)  # whole counts beyond 16 bits
    model = TextClassifier().fit(docs, y, sample_weight=sw)
    fc = model._stats.counts.feature_count
    assert fc.size >= 4096 and 3 * np.count_nonzero(fc) < fc.size  # it is packed
    packed = model._stats.__getstate__()["_packed_counts"]
    gaps, values = packed[2], packed[3]
    assert gaps.dtype == np.uint8  # the gaps between non-zero cells are small
    expect = {None: np.uint8, "large": np.uint32, "fractional": np.float64}[weights]
    assert values.dtype == expect  # whole counts travel as small integers
    blob = pickle.dumps(model)
    back = pickle.loads(blob)
    np.testing.assert_array_equal(back._stats.counts.feature_count, fc)
    got = back._stats.counts.feature_count
    assert got.dtype == fc.dtype
    assert got.flags.f_contiguous == fc.flags.f_contiguous  # the layout too
    for name in ("doc_freq", "term_freq"):
        a, b = getattr(model._stats, name), getattr(back._stats, name)
        np.testing.assert_array_equal(a, b)
        assert a.dtype == b.dtype


def test_a_c_ordered_table_packs_too() -> None:
    docs, y = _corpus(n=300, n_words=8000, n_classes=6)
    model = TextClassifier().fit(docs, y)
    stats = model._stats
    c_ordered = np.ascontiguousarray(stats.counts.feature_count)
    from dataclasses import replace

    other = type(stats)(
        replace(stats.counts, feature_count=c_ordered),
        stats.doc_freq,
        stats.term_freq,
        stats.n_docs,
    )
    assert other.__getstate__()["_packed_counts"][4] == "gaps"
    back = pickle.loads(pickle.dumps(other))
    np.testing.assert_array_equal(back.counts.feature_count, c_ordered)
    assert back.counts.feature_count.flags.c_contiguous


def _parts(n_parts: int = 5, **kw: object) -> tuple[list[TextClassifier], TextClassifier]:
    docs, y = _corpus(n=600, n_words=8000, n_classes=6)
    size = len(docs) // n_parts
    parts = [
        TextClassifier(**kw).fit(docs[i : i + size], y[i : i + size])  # type: ignore[arg-type]
        for i in range(0, len(docs), size)
    ]
    return parts, TextClassifier(**kw).fit(docs, y)  # type: ignore[arg-type]


def test_unpickled_statistics_merge_without_being_laid_out() -> None:
    """What a distributed reduce receives (pickled partition models) merges from the
    non-zero cells and the UTF-8 terms: no input table is made dense, no input term is
    made a Python str, and the result pickles from the cells the merge gave."""
    from nbayes.text._vocabulary import PackedTerms

    def packed(model: TextClassifier) -> bool:
        stats = model._stats
        terms = stats.vocabulary.terms
        return (
            "counts" not in stats.__dict__
            and isinstance(terms, PackedTerms)
            and terms._strings is None
        )

    parts, whole = _parts()
    shipped = [pickle.loads(pickle.dumps(p)) for p in parts]
    assert all(map(packed, shipped))
    level = [shipped[0].merge(*shipped[1:3]), shipped[3].merge(shipped[4])]
    assert all(map(packed, shipped))  # the inputs stayed packed
    top = pickle.loads(pickle.dumps(level[0])).merge(pickle.loads(pickle.dumps(level[1])))
    _same(top, whole)
    np.testing.assert_array_equal(top.predict_proba(_corpus()[0][:40]),
                                  whole.predict_proba(_corpus()[0][:40]))  # fmt: skip
    # a merge result keeps its cells: its pickle does not search the table again
    cells = level[0]._stats.__dict__["_cells"]
    assert level[0]._stats.__getstate__()["_packed_counts"][2].sum() == cells.index[-1]


def test_the_pickle_leaves_out_term_freq_when_it_is_the_column_sums() -> None:
    """Without sample weights term_freq is the column sums of the counts: the pickle
    leaves it out and unpickling restores it exactly; with sample weights the counts are
    weighted and term_freq is not, so it travels."""
    docs, y = _corpus(n=300, n_words=8000, n_classes=6)
    plain = TextClassifier().fit(docs, y)
    assert plain._stats.__getstate__()["term_freq"] is None
    back = pickle.loads(pickle.dumps(plain))
    np.testing.assert_array_equal(back._stats.term_freq, plain._stats.term_freq)
    assert back._stats.term_freq.dtype == plain._stats.term_freq.dtype
    weighted = TextClassifier().fit(docs, y, sample_weight=np.full(len(docs), 2.0))
    fc = weighted._stats.counts.feature_count
    assert not np.array_equal(weighted._stats.term_freq, fc.sum(axis=0))
    assert weighted._stats.__getstate__()["term_freq"] is not None
    np.testing.assert_array_equal(
        pickle.loads(pickle.dumps(weighted))._stats.term_freq, weighted._stats.term_freq
    )


@pytest.mark.parametrize("kw", [{}, {"model": "bernoulli"}, {"ngram_range": (1, 2)}])
def test_merging_packed_and_in_memory_models_is_one_fit(kw: dict) -> None:
    """Packed (unpickled) and in-memory statistics merge together, several at once and
    pair by pair, C-ordered tables too: always the single fit, column for column."""
    from dataclasses import replace

    parts, whole = _parts(**kw)
    mixed = [pickle.loads(pickle.dumps(p)) if i % 2 else p for i, p in enumerate(parts)]
    s = mixed[0]._stats
    c_ordered = replace(s.counts, feature_count=np.ascontiguousarray(s.counts.feature_count))
    mixed[0]._stats = type(s)(c_ordered, s.doc_freq, s.term_freq, s.n_docs).with_vocabulary(
        s.vocabulary
    )
    _same(mixed[0].merge(*mixed[1:]), whole)
    in_turn = mixed[0]
    for p in mixed[1:]:
        in_turn = in_turn.merge(pickle.loads(pickle.dumps(p)))
    _same(in_turn, whole)


def test_terms_holding_a_newline_or_any_code_point_merge_in_str_order() -> None:
    """Terms of a custom analyzer may hold anything (newlines, astral code points): the
    packed union orders them as Python orders str, in one pass as pair by pair."""
    docs, y = _corpus(n=240)
    from nbayes.text._textstats import Vocabulary

    parts = []
    for i in range(0, 240, 80):
        model = TextClassifier().fit(docs[i : i + 80], y[i : i + 80])
        stats = model._stats
        # every seventh term renamed with a newline or an astral code point at its end
        # (the order stays sorted)
        terms = [
            t + ("\n" if j % 2 else "\U0001d518") if j % 7 == 0 else t
            for j, t in enumerate(stats.vocabulary.terms)
        ]
        model._stats = stats.with_vocabulary(Vocabulary(terms=terms))
        parts.append(model)
    back = [pickle.loads(pickle.dumps(p)) for p in parts]
    assert list(back[0]._stats.vocabulary.terms) == list(parts[0]._stats.vocabulary.terms)
    at_once = back[0].merge(*back[1:])
    in_turn = parts[0].merge(parts[1]).merge(parts[2])
    _same(at_once, in_turn)
    terms = list(at_once._stats.vocabulary.terms)
    assert terms == sorted(set().union(*(p._stats.vocabulary.terms for p in parts)))
