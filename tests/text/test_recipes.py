"""Tests of nbayes.text.recipes: pure str -> str preprocessing before tokenization."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nbayes import TextClassifier
from nbayes.text import recipes
from nbayes.text.recipes import (
    compose,
    mark_negation,
    mark_punctuation,
    mark_ratings,
    preprocess_all,
    sentiment_preprocess,
    strip_html,
)

TOKEN = re.compile(r"(?u)\b\w\w+\b")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("not good", "not NOT_good"),
        ("Not good.", "Not NOT_good."),
        ("good", "good"),
        ("", ""),
        ("not", "not"),
        ("isn't funny , but ok", "isn't NOT_funny , but ok"),
        ("isn\u2019t funny", "isn\u2019t NOT_funny"),  # typographic apostrophe
        ("does n't work", "does n't NOT_work"),  # Penn Treebank tokenization
        ("never again! fine", "never NOT_again! fine"),
        ("no, thanks", "no, thanks"),
        ("not a\nclue", "not NOT_a\nclue"),  # a line break ends the scope
        ("without any charm; good", "without NOT_any NOT_charm; good"),
        ("not not good", "not NOT_not NOT_good"),  # a negation inside a scope is marked
        ("it's fine", "it's fine"),  # an apostrophe alone is no negation
        ("nothing   works   here", "nothing   NOT_works   NOT_here"),  # spacing kept
    ],
)
def test_mark_negation_examples(text: str, expected: str) -> None:
    assert mark_negation(text) == expected


def test_mark_negation_prefix() -> None:
    assert mark_negation("not good", prefix="neg") == "not neggood"
    with pytest.raises(ValueError, match="word characters"):
        mark_negation("not good", prefix="NOT-")


@pytest.mark.parametrize("fn", [mark_negation, strip_html, mark_punctuation, mark_ratings])
def test_non_string_rejected(fn: object) -> None:
    with pytest.raises(TypeError, match="str"):
        fn(b"not good")  # type: ignore[operator]


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab nNoOt'.,!?\n\u00e9")), max_size=60))
def test_mark_negation_only_inserts_prefixes(text: str) -> None:
    out = mark_negation(text)
    assert out.replace("NOT_", "") == text.replace("NOT_", "")
    assert out.count("NOT_") >= text.count("NOT_")
    # pure: the same input gives the same output
    assert mark_negation(text) == out


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80))
def test_recipes_are_total_on_unicode(text: str) -> None:
    for fn in (mark_negation, strip_html, mark_punctuation, mark_ratings, sentiment_preprocess):
        out = fn(text)
        assert isinstance(out, str)


def test_marked_words_are_single_tokens() -> None:
    toks = TOKEN.findall(mark_negation("I don't like this movie.").lower())
    assert toks == ["don", "not_like", "not_this", "not_movie"]


def test_strip_html() -> None:
    assert strip_html("a<br /><br />b") == "a\n\nb"
    assert strip_html("<i>x</i>") == "\nx\n"
    assert strip_html("3 < 4 > 2") == "3 < 4 > 2"
    assert "br" not in TOKEN.findall(strip_html("one<br/>two<BR>three"))


def test_mark_punctuation_tokens() -> None:
    toks = TOKEN.findall(mark_punctuation("wow! why?").lower())
    assert toks == ["wow", "exclamationmark", "why", "questionmark"]


def test_compose() -> None:
    f = compose(strip_html, mark_negation)
    assert f("Not funny.<br />Not at all<br />good") == "Not NOT_funny.\nNot NOT_at NOT_all\ngood"
    assert f.__name__ == "strip_html+mark_negation"
    assert compose()("x") == "x"
    with pytest.raises(TypeError, match="callables"):
        compose("strip_html")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("7/10", ["7_out_of_10"]),
        ("a 10/10 film", ["10_out_of_10", "film"]),
        ("rated 3.5 / 5.", ["rated", "3_5_out_of_5"]),
        ("4/10!", ["4_out_of_10"]),
        ("no score", ["no", "score"]),
    ],
)
def test_mark_ratings_tokens(text: str, tokens: list[str]) -> None:
    assert TOKEN.findall(mark_ratings(text).lower()) == tokens


def test_sentiment_recipe_is_ratings_then_short_negation() -> None:
    text = "Not funny.<br />1/10, not a good film at all"
    assert sentiment_preprocess(text) == mark_negation(mark_ratings(text), scope=3)


def test_preprocess_all() -> None:
    assert preprocess_all(("not bad", "ok"), mark_negation) == ["not NOT_bad", "ok"]
    with pytest.raises(TypeError, match="Document 1"):
        preprocess_all(["ok", None], mark_negation)  # type: ignore[list-item]


def test_negation_helps_a_classifier() -> None:
    docs = ["good film", "great acting", "good story", "not bad",
            "bad film", "awful plot", "bad acting", "not good"]  # fmt: skip
    y = np.array(["pos"] * 4 + ["neg"] * 4)
    plain = TextClassifier(binary=True).fit(docs, y)
    marked = TextClassifier(binary=True).fit(preprocess_all(docs, mark_negation), y)
    queries = ["this was not bad", "this was not good", "good", "bad"]
    # without marking, "bad" / "good" decide; with it, not_bad / not_good do
    assert plain.predict(queries).tolist() == ["neg", "pos", "pos", "neg"]
    marked_pred = marked.predict(preprocess_all(queries, mark_negation))
    assert marked_pred.tolist() == ["pos", "neg", "pos", "neg"]


def test_public_names() -> None:
    for name in recipes.__all__:
        assert hasattr(recipes, name)
    assert "not" in recipes.NEGATION_WORDS
