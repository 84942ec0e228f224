"""Tests of the ``preprocess="sentiment"`` recipe and the negation scope it uses.

The recipe is ``mark_negation(mark_ratings(text), scope=3)``; the expected
outputs below are exact, so any change of behaviour shows up here.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nbayes import TextClassifier
from nbayes.text import recipes
from nbayes.text.recipes import (
    NEGATION_WORDS,
    SENTIMENT_NEGATION_SCOPE,
    mark_negation,
    mark_ratings,
    sentiment_preprocess,
    strip_html,
)

TOKEN = re.compile(r"(?u)\b\w\w+\b")


def tokens(text: str) -> list[str]:
    """The default tokenization (lowercase, two or more word characters)."""
    return TOKEN.findall(text.lower())


# ----------------------------------------------------------------- exact outputs
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", ""),
        ("great film", "great film"),
        # three words after a negation, then the scope ends
        ("not a good film at all", "not NOT_a NOT_good NOT_film at all"),
        # ... or earlier, at punctuation or a line break
        ("not good, but fun", "not NOT_good, but fun"),
        ("not good\nfun", "not NOT_good\nfun"),
        ("not!!! good", "not!!! good"),
        ("Loved it!!! 10/10", "Loved it!!!  10_OUT_OF_10 "),
        # apostrophes: contractions negate, possessives and "it's" do not
        ("I don't like it much", "I don't NOT_like NOT_it NOT_much"),
        ("I don\u2019t like it", "I don\u2019t NOT_like NOT_it"),
        ("it does n't work", "it does n't NOT_work"),
        ("I did'nt care", "I did'nt NOT_care"),
        ("it's nobody's fault", "it's nobody's fault"),
        ("nobody's fault", "nobody's fault"),
        ("don't've seen", "don't've seen"),
        ("can't, won't", "can't, won't"),
        # the marked words keep their apostrophes and case
        ("NEVER SAW Tom's film", "NEVER NOT_SAW NOT_Tom's NOT_film"),
        # a negation inside a scope is marked and does not restart it
        ("not not good here", "not NOT_not NOT_good NOT_here"),
        ("not a b c d", "not NOT_a NOT_b NOT_c d"),
        # quotes, dashes, parentheses do not end a scope
        ('not "good" -- at all', 'not "NOT_good" -- NOT_at NOT_all'),
        # ratings, with "/" and "out of"
        ("2/10", " 2_OUT_OF_10 "),
        ("3 out of 10", " 3_OUT_OF_10 "),
        ("7.5 OUT OF 10.", " 7_5_OUT_OF_10 ."),
        ("no 3/10 here", "no  NOT_3_OUT_OF_10  NOT_here"),
        # Unicode words are words; "\u017f" (long s) is no "s", so no negation
        ("not tr\u00e8s bien", "not NOT_tr\u00e8s NOT_bien"),
        ("\u00e9t\u00e9 sans \u00e9clat", "\u00e9t\u00e9 sans \u00e9clat"),
        ("i\u017fnt good", "i\u017fnt good"),
        ("NOT \u0645\u0645\u062a\u0627\u0632", "NOT NOT_\u0645\u0645\u062a\u0627\u0632"),
        # HTML is left alone (strip_html is not part of the recipe)
        ("Great.<br /><br />Loved it", "Great.<br /><br />Loved it"),
    ],
)
def test_sentiment_preprocess_exact(text: str, expected: str) -> None:
    assert sentiment_preprocess(text) == expected


def test_sentiment_preprocess_is_the_composition() -> None:
    text = "Not funny. <br />I didn't laugh once, not even a smile: 1 out of 10!"
    assert sentiment_preprocess(text) == mark_negation(
        mark_ratings(text), scope=SENTIMENT_NEGATION_SCOPE
    )
    assert sentiment_preprocess(text) != mark_negation(mark_ratings(strip_html(text)), scope=3)
    assert SENTIMENT_NEGATION_SCOPE == 3
    assert recipes.RECIPES["sentiment"] is sentiment_preprocess


def test_sentiment_tokens() -> None:
    text = "This isn't a great movie!!! I'd give it 4/10 <br /><br /> NOT recommended."
    assert tokens(sentiment_preprocess(text)) == [
        "this", "isn", "not_a", "not_great", "not_movie", "give", "it", "4_out_of_10",
        "br", "br", "not", "not_recommended",
    ]  # fmt: skip
    # without the recipe: "10" for the score, no negation features
    assert tokens(text) == [
        "this", "isn", "great", "movie", "give", "it", "10", "br", "br", "not", "recommended",
    ]  # fmt: skip


def test_sentiment_rejects_non_str() -> None:
    with pytest.raises(TypeError, match="str"):
        sentiment_preprocess(b"not good")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="str"):
        sentiment_preprocess(None)  # type: ignore[arg-type]


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=120))
def test_sentiment_total_and_pure_on_unicode(text: str) -> None:
    out = sentiment_preprocess(text)
    assert isinstance(out, str)
    assert sentiment_preprocess(text) == out


# ----------------------------------------------------------------- negation scope
def _reference_mark_negation(text: str, scope: int | None, prefix: str = "NOT_") -> str:
    """A plain word-by-word implementation of the documented rules, to check the regex."""
    word = re.compile(r"\w+(?:['\u2019]\w+)*|[.,:;!?\n]")
    out: list[str] = []
    last = 0
    left = 0  # words still to mark; -1: until punctuation
    for m in word.finditer(text):
        tok = m.group()
        if tok in ".,:;!?\n":
            left = 0
            continue
        if left:
            out += [text[last : m.start()], prefix]
            last = m.start()
            left -= 1
            continue
        low = tok.lower()
        negation = low in NEGATION_WORDS or (
            ("'" in low or "\u2019" in low) and re.search(r"n['\u2019]?t$", low) is not None
        )
        if negation:
            left = -1 if scope is None else scope
    return "".join([*out, text[last:]]) if out else text


_PIECES = [
    "not", "NOT", "No", "never", "cannot", "nobody's", "don't", "Isn\u2019t", "n't", "did'nt",
    "x'no", "don't've", "good", "a", "it's", "\u00e9t\u00e9", "7", "_", "I",
]  # fmt: skip
_SEPS = [" ", "  ", ", ", ". ", "!", "\n", ' "', "-", "'", "(", ""]


@settings(max_examples=1500, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(_PIECES), st.sampled_from(_SEPS)), max_size=12),
    st.sampled_from([None, 1, 2, 3, 5]),
)
def test_mark_negation_matches_reference(parts: list[tuple[str, str]], scope: int | None) -> None:
    text = "".join(w + s for w, s in parts)
    assert mark_negation(text, scope=scope) == _reference_mark_negation(text, scope)


@pytest.mark.parametrize(
    ("scope", "expected"),
    [
        (1, "not NOT_a good film"),
        (2, "not NOT_a NOT_good film"),
        (3, "not NOT_a NOT_good NOT_film"),
        (None, "not NOT_a NOT_good NOT_film"),
    ],
)
def test_mark_negation_scope(scope: int | None, expected: str) -> None:
    assert mark_negation("not a good film", scope=scope) == expected


@pytest.mark.parametrize("bad", [0, -1, True, 2.0, "3", 10**7])
def test_mark_negation_bad_scope(bad: object) -> None:
    with pytest.raises(ValueError, match="scope"):
        mark_negation("not good", scope=bad)  # type: ignore[arg-type]


def test_every_negation_word_negates() -> None:
    for w in NEGATION_WORDS:
        for form in (w, w.upper(), w.capitalize()):
            assert mark_negation(f"{form} good") == f"{form} NOT_good", form
        assert mark_negation(f"x{w} good") == f"x{w} good"  # a longer word is no negation


# ----------------------------------------------------------------- TextClassifier wiring
def test_textclassifier_applies_sentiment_recipe(tmp_path: Path) -> None:
    import nbayes

    docs = ["not a good film", "a good film", "not bad at all, 8 out of 10", "bad film"]
    y = ["n", "p", "p", "n"]
    clf = TextClassifier(model="multinomial", binary=True, preprocess="sentiment").fit(docs, y)
    assert {"not_good", "not_film", "not_bad", "8_out_of_10"} <= set(clf.vocabulary_)
    assert clf.analyze("not a good film") == ["not", "not_a", "not_good", "not_film"]
    # same model as fitting on the preprocessed texts by hand
    by_hand = TextClassifier(model="multinomial", binary=True).fit(
        [sentiment_preprocess(d) for d in docs], y
    )
    assert clf.vocabulary_ == by_hand.vocabulary_
    queries = ["not good", "a film, not bad", "good"]
    np.testing.assert_allclose(
        clf.predict_proba(queries),
        by_hand.predict_proba([sentiment_preprocess(q) for q in queries]),
    )
    # bigrams are made of the marked words
    bi = TextClassifier(binary=True, ngram_range=(1, 2), preprocess="sentiment").fit(docs, y)
    assert "not_a not_good" in bi.vocabulary_
    # the setting survives saving
    nbayes.save(clf, tmp_path / "m.nbayes")
    loaded = nbayes.load(tmp_path / "m.nbayes")
    assert loaded.get_params()["preprocess"] == "sentiment"
    np.testing.assert_allclose(loaded.predict_proba(queries), clf.predict_proba(queries))


def test_negation_scope_changes_a_prediction() -> None:
    # "good" after "not" is evidence for the negative class only with the recipe
    docs = ["good acting", "good story", "not good acting", "not good story", "fine"]
    y = ["p", "p", "n", "n", "p"]
    plain = TextClassifier(binary=True).fit(docs, y)
    recipe = TextClassifier(binary=True, preprocess="sentiment").fit(docs, y)
    assert "not_good" in recipe.vocabulary_ and "not_good" not in plain.vocabulary_
    assert recipe.predict(["it was not good"]).tolist() == ["n"]
    assert recipe.predict(["it was good"]).tolist() == ["p"]
