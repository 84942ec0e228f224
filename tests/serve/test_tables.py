"""Table models: rows as ``{column: value}`` (or arrays), predictions equal the library's."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

import nbayes


def _frame(seed: int = 0, n: int = 60) -> tuple[pd.DataFrame, list[str]]:
    rng = np.random.default_rng(seed)
    y = rng.choice(["setosa", "versicolor"], n).tolist()
    shift = np.array([1.5 if c == "setosa" else 0.0 for c in y])
    X = pd.DataFrame({
        "length": rng.normal(5, 1, n) + shift,
        "width": rng.normal(3, 0.5, n) - shift / 2,
    })  # fmt: skip
    return X, y


@pytest.fixture
def gaussian(tmp_path: Any) -> str:
    X, y = _frame()
    path = str(tmp_path / "iris.nbayes")
    nbayes.save(nbayes.GaussianNB().fit(X, y), path)
    return path


def test_gaussian_rows(gaussian: str, start: Any) -> None:
    server = start(gaussian)
    model = nbayes.load(gaussian)
    _, info = server.get("/info")
    assert info["kind"] == "table" and info["model_type"] == "GaussianNB"
    assert [c["name"] for c in info["columns"]] == ["length", "width"]
    rows = [{"length": 6.5, "width": 2.1}, {"width": 3.3, "length": 4}, [5.0, 3.0]]
    status, body = server.post("/predict", {"rows": rows})
    assert status == 200
    X = pd.DataFrame([[6.5, 2.1], [4.0, 3.3], [5.0, 3.0]], columns=["length", "width"])
    assert [p["label"] for p in body["predictions"]] == model.predict(X).tolist()
    got = [list(p["probabilities"].values()) for p in body["predictions"]]
    assert got == model.predict_proba(X).tolist()
    status, body = server.post("/explain", {"row": {"length": 6.5, "width": 2.1}})
    assert status == 200 and [f["feature"] for f in body["features"]] == ["length", "width"]
    assert body["probabilities"] == pytest.approx(dict(zip(
        model.classes_.tolist(), model.predict_proba(X[:1])[0].tolist(), strict=True)))  # fmt: skip
    # learn and forget rows
    new = [{"length": 9.0, "width": 1.0}, {"length": 9.5, "width": 1.2}]
    status, body = server.post("/update", {"rows": new, "labels": ["virginica", "virginica"]})
    assert status == 422 and body["field"] == "labels[0]"  # a new class: asked for, or refused
    assert "'setosa', 'versicolor'" in body["error"]
    status, _ = server.post(
        "/update", {"rows": new, "labels": ["virginica", "virginica"], "new_classes": True}
    )
    assert status == 200
    Xn = pd.DataFrame([[9.0, 1.0], [9.5, 1.2]], columns=["length", "width"])
    model.update(Xn, ["virginica", "virginica"])
    _, body = server.post("/predict", {"rows": rows})
    assert [list(p["probabilities"].values()) for p in body["predictions"]] == (
        model.predict_proba(X).tolist()
    )
    assert server.terminate() == 0
    assert nbayes.load(gaussian).class_count_.tolist() == model.class_count_.tolist()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"rows": [{"length": 1.0}]}, "rows[0].width"),
        ({"rows": [{"length": 1.0, "width": 2, "height": 3}]}, "rows[0].height"),
        ({"rows": [{"length": "long", "width": 2}]}, "rows[0].length"),
        ({"rows": [[1.0]]}, "rows[0]"),
        ({"rows": ["x"]}, "rows[0]"),
        ({"rows": {"length": 1}}, "rows"),
        ({"texts": ["a text"]}, "texts"),
    ],
)
def test_bad_rows_are_422(gaussian: str, start: Any, body: Any, field: str) -> None:
    server = start(gaussian)
    status, answer = server.post("/predict", body)
    assert status == 422 and answer["field"] == field, answer


def test_categorical_rows(tmp_path: Any, start: Any) -> None:
    X = pd.DataFrame({"colour": ["red", "red", "blue", "green", "blue", "red"],
                      "size": ["s", "m", "m", "l", "l", "s"]})  # fmt: skip
    y = ["apple", "apple", "berry", "melon", "berry", "apple"]
    path = str(tmp_path / "fruit.nbayes")
    nbayes.save(nbayes.CategoricalNB().fit(X, y), path)
    server = start(path)
    model = nbayes.load(path)
    _, info = server.get("/info")
    assert info["columns"][0] == {"name": "colour", "type": "categorical",
                                  "categories": ["blue", "green", "red"]}  # fmt: skip
    rows = [{"colour": "red", "size": "l"}, {"colour": "purple", "size": "m"}]
    _, body = server.post("/predict", {"rows": rows, "top": 2})
    labels, proba = model.predict_top(pd.DataFrame(rows), n=2)
    for pred, ls, ps in zip(body["predictions"], labels.tolist(), proba.tolist(), strict=True):
        assert list(pred["probabilities"].items()) == list(zip(ls, ps, strict=True))
    status, body = server.post("/explain", {"row": rows[0], "exact": True})
    assert status == 200
    exact = model.explain(pd.DataFrame(rows[:1]), exact=True)
    assert body["exact"]["derivation"] == exact.derivation()


def test_mixed_rows_with_a_missing_value(tmp_path: Any, start: Any) -> None:
    rng = np.random.default_rng(0)
    n = 40
    X = pd.DataFrame({
        "age": rng.normal(40, 10, n),
        "plan": rng.choice(["basic", "pro"], n),
        "note": rng.choice(["please cancel my account", "great service thanks", "refund now"], n),
    })  # fmt: skip
    y = rng.choice(["churn", "stay"], n).tolist()
    path = str(tmp_path / "churn.nbayes")
    nbayes.save(nbayes.MixedNB().fit(X, y), path)
    model = nbayes.load(path)
    server = start(path)
    rows = [{"age": 30, "plan": "pro", "note": "cancel it"}, {"age": None, "plan": "basic",
                                                               "note": "thanks"}]  # fmt: skip
    status, body = server.post("/predict", {"rows": rows})
    assert status == 200
    frame = pd.DataFrame(rows, columns=model.feature_names_in_)
    assert [list(p["probabilities"].values()) for p in body["predictions"]] == (
        model.predict_proba(frame).tolist()
    )
    status, _ = server.post("/update", {"rows": rows, "labels": ["churn", "stay"]})
    assert status == 200
    model.update(frame, ["churn", "stay"])
    _, body = server.post("/predict", {"rows": rows})
    assert [list(p["probabilities"].values()) for p in body["predictions"]] == (
        model.predict_proba(frame).tolist()
    )


def test_rows_that_would_change_a_column_s_family_are_told_in_http_words(
    tmp_path: Any, start: Any
) -> None:
    """/update of a mixed model with rows that would make a column of codes 0-3 a count
    column: 422, naming the column and the flag, not Python's columns={...} (a fuzz)."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"x": rng.random(40), "k": rng.integers(0, 4, 40)})
    path = str(tmp_path / "mixed.nbayes")
    nbayes.save(nbayes.MixedNB().fit(X, rng.choice(["a", "b"], 40).tolist()), path)
    assert nbayes.load(path).families_["k"] == "categorical"
    server = start(path)
    rows = [{"x": 0.5, "k": int(k)} for k in rng.integers(0, 61, 40)]
    status, body = server.post("/update", {"rows": rows, "labels": ["a", "b"] * 20})
    assert status == 422, body
    said = body["error"]
    assert "'k' poisson, not categorical" in said and "--columns k=poisson" in said
    assert "columns={" not in said
