"""MixedNB: one model over numeric, categorical, boolean, count and text columns."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.feature_extraction.text import CountVectorizer

from nbayes import (
    BernoulliNB,
    CategoricalNB,
    GaussianNB,
    MultinomialNB,
    PoissonNB,
    UndecidableWarning,
)
from nbayes.explain import Explanation
from nbayes.mixed import MixedNB, infer_family

LABELS = np.array(["a", "b", "c"])


def make_table(seed: int = 0, n: int = 120, gaps: bool = True) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.choice(LABELS, n)
    words = {"a": "great love fine", "b": "bad hate broken", "c": "okay meh fine"}
    df = pd.DataFrame(
        {
            "age": np.round(rng.normal(40, 8, n) + (y == "b") * 12, 2),
            "income": rng.standard_exponential(n) * 10 + (y == "c") * 5,
            "visits": rng.poisson(1 + 3 * (y == "c")).astype(np.int64) + 11 * (y == "a"),
            "rating": rng.integers(1, 5, n),
            "city": rng.choice(["oslo", "rome", "lima"], n).astype(object),
            "member": rng.random(n) < np.where(y == "a", 0.8, 0.3),
            "review": [" ".join(rng.choice(words[c].split(), 4)) + " product" for c in y],
        }
    )
    if gaps:
        df.loc[rng.random(n) < 0.15, "age"] = np.nan
        df.loc[rng.random(n) < 0.15, "city"] = None
        df.loc[rng.random(n) < 0.15, "review"] = None
    return df, y


DF, Y = make_table()
FAMILIES = {
    "age": "gaussian",
    "income": "kde",
    "visits": "poisson",
    "rating": "categorical",
    "city": "categorical",
    "member": "bernoulli",
    "review": "text",
}


def proba_close(a: MixedNB, b: MixedNB, X: object) -> None:
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=1e-9, atol=1e-12)


# ------------------------------------------------------------------ inference, summary
def test_inference_rules() -> None:
    clf = MixedNB().fit(DF, Y)
    assert clf.families_ == {**FAMILIES, "income": "gaussian"}
    text = clf.summary()
    for name in DF.columns:
        assert name in text
    assert "float values" in text and "codes" in text and "text" in text
    assert infer_family(np.array([0, 3, 150, 7, 8, 9, 1, 2, 4, 5, 6]))[0] == "gaussian"
    assert infer_family(np.array([0, 3, 15, 7, 8, 9, 1, 2, 4, 5, 6]))[0] == "poisson"
    assert infer_family(np.array([-1, 3]))[0] == "gaussian"
    assert infer_family(pd.Series(["x", "y"], dtype="category"))[0] == "categorical"
    assert infer_family(pd.Series([True, None], dtype="boolean"))[0] == "bernoulli"


def test_reasons_sizes_and_dtypes() -> None:
    clf = MixedNB(columns={"income": "kde"}).fit(DF, Y)
    assert clf.family_reasons_["income"] == "given in columns="
    assert clf.family_reasons_["age"] == "float values"
    sizes = clf.column_sizes_
    assert sizes["city"] == 3 and sizes["age"] is None and sizes["visits"] is None
    assert sizes["income"] == DF["income"].nunique()
    assert sizes["review"] == len(clf._stats.columns[6].vocabulary) > 0
    assert clf.dtypes_ == list(DF.dtypes)
    numpy = MixedNB().fit(DF.to_numpy(), Y)  # an object array: ints inferred as ints
    assert numpy.dtypes_ is None
    inferred = MixedNB().fit(DF, Y).families_.values()
    assert numpy.families_ == {f"x{j}": f for j, f in enumerate(inferred)}


def test_columns_override_and_numpy_spec() -> None:
    clf = MixedNB(columns={"income": "kde"}).fit(DF, Y)
    assert clf.families_ == FAMILIES
    X = np.column_stack([DF["age"].to_numpy(), DF["city"].to_numpy()]).astype(object)
    spec = MixedNB(columns={"age": "gaussian", "city": "categorical"}).fit(X, Y)
    assert spec.families_ == {"age": "gaussian", "city": "categorical"}
    ref = MixedNB().fit(DF[["age", "city"]], Y)
    np.testing.assert_allclose(spec.predict_proba(X), ref.predict_proba(DF[["age", "city"]]))
    listed = MixedNB(columns=["gaussian", "categorical"]).fit(X, Y)
    assert list(listed.families_) == ["x0", "x1"]
    with pytest.raises(ValueError, match="Unknown family 'normal'"):
        MixedNB(columns={"age": "normal"}).fit(DF, Y)


def test_polars_equals_pandas() -> None:
    pl = pytest.importorskip("polars")
    a = MixedNB(columns={"income": "kde"}).fit(DF, Y)
    b = MixedNB(columns={"income": "kde"}).fit(pl.from_pandas(DF), Y)
    assert a.families_ == b.families_
    np.testing.assert_allclose(a.predict_proba(DF), b.predict_proba(pl.from_pandas(DF)))


# -------------------------------------------------- composed of the existing families
def test_single_family_tables_equal_the_plain_estimators() -> None:
    rng = np.random.default_rng(3)
    y = rng.choice([0, 1], 80)
    Xg = rng.normal(size=(80, 3)) + y[:, None]
    np.testing.assert_allclose(
        MixedNB().fit(Xg, y).predict_proba(Xg),
        GaussianNB().fit(Xg, y).predict_proba(Xg),
        rtol=1e-10,
    )
    Xc = rng.choice(["p", "q", "r"], (80, 2)).astype(object)
    np.testing.assert_allclose(
        MixedNB(columns=["categorical"] * 2, alpha=0.5).fit(Xc, y).predict_proba(Xc),
        CategoricalNB(alpha=0.5).fit(Xc, y).predict_proba(Xc),
        rtol=1e-10,
    )
    Xb = rng.random((80, 3)) < 0.4
    np.testing.assert_allclose(
        MixedNB().fit(Xb, y).predict_proba(Xb),
        BernoulliNB(binarize=None).fit(Xb, y).predict_proba(Xb),
        rtol=1e-10,
    )
    Xp = rng.poisson(3, (80, 2)).astype(float)
    np.testing.assert_allclose(
        MixedNB(columns=["poisson"] * 2).fit(Xp, y).predict_proba(Xp),
        PoissonNB().fit(Xp, y).predict_proba(Xp),
        rtol=1e-10,
    )
    docs = DF["review"].fillna("").to_numpy()
    counts = CountVectorizer().fit_transform(docs)
    np.testing.assert_allclose(
        MixedNB(columns={"review": "text"})
        .fit(DF[["review"]].fillna(""), Y)
        .predict_proba(DF[["review"]].fillna("")),
        MultinomialNB().fit(counts, Y).predict_proba(counts),
        rtol=1e-10,
    )


# ---------------------------------------------------------------- the algebra holds
cuts = st.integers(10, 110)


@settings(max_examples=10, deadline=None)
@given(cut=cuts, seed=st.integers(0, 1000))
def test_merge_equals_fit_on_union(cut: int, seed: int) -> None:
    df, y = make_table(seed)
    full = MixedNB(columns=FAMILIES).fit(df, y)
    a = MixedNB(columns=FAMILIES).fit(df.iloc[:cut], y[:cut])
    b = MixedNB(columns=FAMILIES).fit(df.iloc[cut:], y[cut:])
    proba_close(a + b, full, df)
    part = MixedNB(columns=FAMILIES).partial_fit(df.iloc[:cut], y[:cut], classes=LABELS)
    part.partial_fit(df.iloc[cut:], y[cut:])
    proba_close(part, full, df)


@settings(max_examples=10, deadline=None)
@given(cut=cuts, seed=st.integers(0, 1000))
def test_unlearn_is_the_inverse(cut: int, seed: int) -> None:
    df, y = make_table(seed)
    rest = MixedNB(columns=FAMILIES).fit(df.iloc[:cut], y[:cut])
    back = MixedNB(columns=FAMILIES).fit(df, y).unlearn(df.iloc[cut:], y[cut:])
    proba_close(back, rest, df)
    np.testing.assert_allclose(back.class_count_, rest.class_count_)


def test_update_adds_classes_and_unlearn_removes_them() -> None:
    first = Y != "c"
    clf = MixedNB(columns=FAMILIES).fit(DF[first], Y[first])
    assert clf.classes_.tolist() == ["a", "b"]
    clf.update(DF[~first], Y[~first])
    proba_close(clf, MixedNB(columns=FAMILIES).fit(DF, Y), DF)
    clf.unlearn(DF[~first], Y[~first])
    assert clf.classes_.tolist() == ["a", "b"]
    with pytest.raises(ValueError, match="never"):
        clf.unlearn(DF[~first], Y[~first])


# ------------------------------------------------------------------- missing values
@settings(max_examples=15, deadline=None)
@given(row=st.integers(0, 119), column=st.sampled_from(list(FAMILIES)))
def test_missing_value_is_the_model_without_that_column(row: int, column: str) -> None:
    spec = {k: v for k, v in FAMILIES.items() if k != column}
    # epsilon is shared by the gaussian columns: keep it out of the comparison
    full = MixedNB(columns=FAMILIES, var_smoothing=0.0).fit(DF, Y)
    without = MixedNB(columns=spec, var_smoothing=0.0).fit(DF.drop(columns=column), Y)
    x = DF.iloc[[row]].copy()
    x[column] = None
    np.testing.assert_allclose(
        full.predict_proba(x), without.predict_proba(x.drop(columns=column)), rtol=1e-9
    )


def test_per_column_class_counts_and_all_missing_class() -> None:
    df = DF.copy()
    df.loc[Y == "c", "age"] = np.nan  # class c never shows an age
    df.loc[Y == "c", "city"] = None
    clf = MixedNB(columns=FAMILIES).fit(df, Y)
    counts = dict(zip(clf._stats.names, clf._stats.columns, strict=True))
    assert counts["age"].class_count[2] == 0
    assert counts["member"].class_count.tolist() == clf.class_count_.tolist()
    p = clf.predict_proba(DF)
    assert np.isfinite(p).all()
    # for class c, the age term is the pooled density: the same for any class-c-less model
    e = clf.explain(DF.iloc[0])
    assert np.isfinite(e.terms).all()


def test_unseen_category_is_smoothed() -> None:
    clf = MixedNB(columns=FAMILIES).fit(DF, Y)
    x = DF.iloc[[0]].copy()
    x["city"] = "paris"
    assert np.isfinite(clf.predict_joint_log_proba(x)).all()
    e = clf.explain(x)
    k = list(e.feature_names).index("city")
    # alpha / (n_c + alpha·K): the same relative evidence for every class up to n_c
    n_c = clf._stats.columns[k].class_count
    np.testing.assert_allclose(e.terms[:, k], np.log(1.0 / (n_c + 3.0)))


# -------------------------------------------------------- everything else the core offers
def test_explain_sample_parameters_top() -> None:
    clf = MixedNB(columns=FAMILIES).fit(DF, Y)
    e = clf.explain(DF.iloc[[5]])
    assert isinstance(e, Explanation)
    assert e.feature_names == list(DF.columns)
    jll = clf.predict_joint_log_proba(DF.iloc[[5]])[0]
    np.testing.assert_allclose(e.log_prior + e.terms.sum(axis=1), jll)
    assert e.prediction == clf.predict(DF.iloc[[5]])[0]
    assert clf.explain(DF.iloc[5].to_dict()).terms.shape == e.terms.shape
    with pytest.raises(ValueError, match="exact"):
        clf.explain(DF.iloc[[5]], exact=True)

    Xs, ys = clf.sample(30, random_state=1)
    assert list(Xs.columns) == list(DF.columns)
    assert Xs.dtypes.to_dict() == DF.dtypes.to_dict()
    assert set(ys) <= set(LABELS)
    pd.testing.assert_frame_equal(Xs, clf.sample(30, random_state=1)[0])
    clf.predict(Xs)  # samples are valid input

    C = 3
    cats = len(clf._stats.columns[4].categories[0])
    vocab = len(clf._stats.columns[6].vocabulary)
    income_points = len(clf._stats.columns[1].values[0])
    expected = 2 * C + C * income_points + C + C * 3 + C * (cats - 1) + C + C * (vocab - 1)
    assert clf.n_parameters() == expected + C - 1
    assert clf.n_parameters(full_joint=True) == math.inf
    small = MixedNB().fit(DF[["age", "member"]], Y)
    # conditional Gaussian: 2 cells x 3 classes, each a mean and variance, plus the table
    assert small.n_parameters(full_joint=True) == 3 * 1 + 3 * 2 * 2 + 2

    ranked = clf.most_informative_features(3)
    assert len(ranked) == 3 and ranked[0][2] >= ranked[1][2] >= ranked[2][2]
    assert {name for name, _, _ in ranked} <= set(DF.columns)
    labels, proba = clf.predict_top(DF.head(4), n=2)
    assert labels.shape == (4, 2) and (proba[:, 0] >= proba[:, 1]).all()


def test_polars_sample_keeps_dtypes() -> None:
    pl = pytest.importorskip("polars")
    pdf = pl.from_pandas(DF)
    clf = MixedNB(columns=FAMILIES).fit(pdf, Y)
    Xs, _ = clf.sample(10, random_state=0)
    assert isinstance(Xs, pl.DataFrame) and Xs.schema == pdf.schema


def test_merge_checks_hyperparameters_and_columns() -> None:
    # equal columns specs merge, whether or not they are the same object
    a = MixedNB(columns=dict(FAMILIES)).fit(DF.iloc[:60], Y[:60])
    b = MixedNB(columns=dict(FAMILIES)).fit(DF.iloc[60:], Y[60:])
    merged = a + b
    assert merged.columns == a.columns and b.columns is not a.columns
    proba_close(merged, MixedNB(columns=FAMILIES).fit(DF, Y), DF)
    pd.testing.assert_frame_equal(
        merged.sample(5, random_state=0)[0].dtypes.to_frame(), DF.dtypes.to_frame()
    )
    with pytest.raises(ValueError, match="columns="):
        a + MixedNB(columns={**FAMILIES, "income": "gaussian"}).fit(DF, Y)
    a = MixedNB().fit(DF, Y)
    with pytest.raises(ValueError, match="alpha"):
        a + MixedNB(alpha=0.5).fit(DF, Y)
    with pytest.raises(ValueError, match="different columns or families"):
        a + MixedNB().fit(DF.drop(columns="age"), Y)


@settings(max_examples=20, deadline=None)
@given(cuts=st.lists(st.integers(1, 119), min_size=1, max_size=4, unique=True),
       seed=st.integers(0, 1000))  # fmt: skip
def test_merged_families_and_reasons_are_those_of_all_the_rows(cuts: list[int], seed: int) -> None:
    # a merged model kept the first model's reasons ("3 distinct values", "median 2 words"
    # of its rows): now those of one fit of every row, whatever the parts
    df, y = make_table(seed)
    df["rating"] = np.random.default_rng(seed).integers(0, 10, len(y))
    edges = [0, *sorted(cuts), len(y)]
    parts = [MixedNB().fit(df.iloc[a:b], y[a:b]) for a, b in zip(edges, edges[1:], strict=False)]
    try:
        merged = parts[0].merge(*parts[1:]) if len(parts) > 1 else parts[0]
    except ValueError:  # (parts of other families: refused, as before)
        return
    full = MixedNB().fit(df, y)
    assert merged.families_ == full.families_
    assert merged.family_reasons_ == full.family_reasons_


def test_merged_models_whose_rows_give_another_family_are_refused() -> None:
    from nbayes.exceptions import ColumnFamiliesError

    y = np.array(["a", "b"] * 25)
    a = MixedNB().fit(pd.DataFrame({"n": np.arange(50) % 10}), y)  # codes 0-9
    b = MixedNB().fit(pd.DataFrame({"n": np.arange(50) % 10 + 1}), y)  # codes 1-10
    assert a.families_ == b.families_ == {"n": "categorical"}
    with pytest.raises(ColumnFamiliesError, match=r"'n' poisson, not categorical.*"
                       r"columns=\{'n': 'poisson'\}") as info:  # fmt: skip
        a + b
    assert (info.value.mine, info.value.theirs, info.value.together) == (
        {"n": "categorical"}, {"n": "poisson"}, True,
    )  # fmt: skip
    merged = MixedNB(columns={"n": "poisson"}).fit(pd.DataFrame({"n": np.arange(50) % 10}), y)
    assert merged.family_reasons_ == {"n": "given in columns="}


def test_merged_models_of_files_keep_reasons_that_are_not_wrong(tmp_path: Any) -> None:
    # a model loaded from a file written before nbayes kept the families' evidence keeps
    # its reasons, not what they were inferred from
    from nbayes.io.persist import load, save

    y = np.array(["a", "b"] * 20)
    for name, texts in (("a", ["x y", "z w"]), ("b", ["x", "z"])):
        model = MixedNB().fit(pd.DataFrame({"s": texts * 20}), y)
        del model._evidence  # (the file of an earlier nbayes)
        save(model, tmp_path / f"{name}.nbm")
    merged = load(tmp_path / "a.nbm") + load(tmp_path / "b.nbm")
    assert merged.family_reasons_ == {
        "s": "inferred from parts of the rows alone (short strings (median 2 words); short "
        "strings (median 1 words))"
    }
    assert (load(tmp_path / "a.nbm") + load(tmp_path / "a.nbm")).family_reasons_ == {
        "s": "short strings (median 2 words)"
    }


def test_merged_models_of_files_with_evidence_are_those_of_all_the_rows(tmp_path: Any) -> None:
    from nbayes.io.persist import load, save

    y = np.array(["a", "b"] * 20)
    a, b = pd.DataFrame({"s": ["x y", "z w"] * 20}), pd.DataFrame({"s": ["x", "z"] * 10})
    save(MixedNB().fit(a, y), tmp_path / "a.nbm")
    save(MixedNB().fit(b, y[:20]), tmp_path / "b.nbm")
    merged = load(tmp_path / "a.nbm") + load(tmp_path / "b.nbm")
    full = MixedNB().fit(pd.concat([a, b]), np.r_[y, y[:20]])
    assert merged.family_reasons_ == full.family_reasons_ == {"s": "short strings (median 2 words)"}


# ---------------------------------------------------- batches learnt one after another
@settings(max_examples=25, deadline=None)
@given(cuts=st.lists(st.integers(1, 119), min_size=1, max_size=4, unique=True),
       seed=st.integers(0, 1000), update=st.booleans())  # fmt: skip
def test_batches_learnt_give_the_families_of_all_their_rows_or_are_refused(
    cuts: list[int], seed: int, update: bool
) -> None:
    # partial_fit kept the first batch's families whatever the later ones held (codes 0-4,
    # then 0-40: a categorical column of counts; floats learnt as categories): a model
    # no fit of its rows gives. A batch is now learnt only if one fit of all the rows
    # learnt gives every column the model's family, with its reasons; else it is refused
    # and the model is left as it was.
    from nbayes.exceptions import ColumnFamiliesError

    df, y = make_table(seed)
    rng = np.random.default_rng(seed)
    df["level"] = rng.integers(0, 4, len(y))
    df.loc[rng.random(len(y)) < 0.1, "level"] = rng.integers(0, 40)  # a few big ones
    edges = [0, *sorted(cuts), len(y)]
    model, kept = MixedNB(), 0
    for a, b in zip(edges, edges[1:], strict=False):
        before = dict(model.__dict__)
        try:
            if update:
                model.update(df.iloc[a:b], y[a:b])
            else:
                model.partial_fit(df.iloc[a:b], y[a:b], classes=LABELS)
        except ColumnFamiliesError as exc:
            assert model.__dict__ == before, "a refused batch changed the model"
            assert (
                exc.theirs
                == MixedNB()
                .fit(pd.concat([df.iloc[:kept], df.iloc[a:b]]), np.r_[y[:kept], y[a:b]])
                .families_
            )
            break
        if kept < a:  # (only consecutive batches: the rows learnt are df[:b])
            break
        kept = b
        full = MixedNB().fit(df.iloc[:b], y[:b])
        assert model.families_ == full.families_
        assert model.family_reasons_ == full.family_reasons_
        if b >= 30:  # (a gaussian of a row or two has no spread to score with)
            proba_close(model, full, df)


def test_a_batch_that_would_change_a_family_is_refused() -> None:
    from nbayes.exceptions import ColumnFamiliesError

    y = ["a", "b"] * 4
    first = pd.DataFrame({"n": [0, 1, 2, 3, 1, 0, 2, 5], "g": np.linspace(0, 1, 8)})
    model = MixedNB().partial_fit(first, y, classes=["a", "b"])
    assert model.families_ == {"n": "categorical", "g": "gaussian"}
    stats = model._stats
    floats = pd.DataFrame({"n": [0.5, 1.7, -2.0, 3.1], "g": [1, 2, 3, 4]})  # learnt as codes
    said = r"batch.*'n' gaussian, not categorical.*Nothing was changed.*\{'n': 'gaussian'\}"
    with pytest.raises(ColumnFamiliesError, match=said):
        model.partial_fit(floats, y[:4])
    counts = pd.DataFrame({"n": [60, 7, 1, 2], "g": [1.0, 2, 3, 4]})
    with pytest.raises(ColumnFamiliesError, match="'n' poisson, not categorical"):
        model.update(counts, y[:4])
    assert model._stats is stats and model.family_reasons_["n"].endswith(
        "with 5 distinct values (<= 10), none above 10: codes"
    )
    # a batch within the codes is learnt, its codes counted in the reason
    model.update(pd.DataFrame({"n": [6, 7], "g": [0.5, 0.5]}), ["a", "b"])
    assert model.family_reasons_["n"].startswith("non-negative integers with 7 distinct values")
    # families given: any batch their parsers read is learnt
    given = MixedNB(columns={"n": "poisson"}).partial_fit(first, y, classes=["a", "b"])
    given.partial_fit(counts, y[:4])
    assert given.families_["n"] == "poisson"
    # unlearning keeps the evidence of every row learnt (it cannot tell the rows apart)
    model.unlearn(pd.DataFrame({"n": [6, 7], "g": [0.5, 0.5]}), ["a", "b"])
    assert "7 distinct values" in model.family_reasons_["n"]


def test_a_model_file_keeps_the_families_evidence(tmp_path: Any, monkeypatch: Any) -> None:
    from nbayes.exceptions import ColumnFamiliesError, ModelFileError
    from nbayes.io import persist
    from nbayes.io._modelfile import read_model_file, write_model_file
    from nbayes.io.persist import load, save

    y = ["a", "b"] * 4
    first = pd.DataFrame({"n": [0, 1, 2, 3, 1, 0, 2, 5], "s": ["x", "y"] * 4})
    model = MixedNB(columns={"s": "categorical"}).fit(first, y)
    save(model, tmp_path / "m.nbm")
    metadata, arrays = read_model_file(tmp_path / "m.nbm")
    assert metadata["schema_version"] == 3
    assert metadata["model"]["input"]["evidence"] == [
        {"kind": "int", "count": 8, "least": 0, "greatest": 5, "codes": [0, 1, 2, 3, 5],
         "words": [], "parts": [], "family": ""},
        None,  # (given)
    ]  # fmt: skip
    loaded = load(tmp_path / "m.nbm")
    assert loaded._evidence == model._evidence
    with pytest.raises(ColumnFamiliesError, match="'n' poisson, not categorical"):
        loaded.update(pd.DataFrame({"n": [60, 7], "s": ["x", "y"]}), ["a", "b"])
    # an nbayes that reads schema 2 asks for an upgrade instead of learning without the check
    monkeypatch.setattr(persist, "SCHEMA_VERSION", 2)
    with pytest.raises(ModelFileError, match="schema version 3.*upgrade nbayes"):
        load(tmp_path / "m.nbm")
    monkeypatch.undo()
    # evidence that does not give the column's family: the file contradicts itself
    bad = {**metadata["model"]["input"]["evidence"][0], "greatest": 50, "codes": None}
    metadata["model"]["input"]["evidence"][0] = bad
    write_model_file(tmp_path / "bad.nbm", metadata, arrays)
    with pytest.raises(ModelFileError, match=r"evidence'\]\[0\] gives the family 'poisson', "
                       "but the column's is 'categorical'"):  # fmt: skip
        load(tmp_path / "bad.nbm")
    # a model without evidence (families all given, or a file of an earlier nbayes): schema 1
    save(MixedNB(columns={"n": "poisson", "s": "categorical"}).fit(first, y), tmp_path / "g.nbm")
    assert read_model_file(tmp_path / "g.nbm")[0]["schema_version"] == 1
    del model._evidence
    save(model, tmp_path / "old.nbm")
    old = load(tmp_path / "old.nbm")
    assert read_model_file(tmp_path / "old.nbm")[0]["schema_version"] == 1
    old.update(pd.DataFrame({"n": [60, 7], "s": ["x", "y"]}), ["a", "b"])  # (no check)
    assert old.families_["n"] == "categorical"


def test_variance_smoothing_does_not_depend_on_the_batches() -> None:
    full = MixedNB().fit(DF, Y)
    part = MixedNB()
    for start in range(0, 120, 30):
        part.partial_fit(DF.iloc[start : start + 30], Y[start : start + 30], classes=LABELS)
    assert part.epsilon_ == pytest.approx(full.epsilon_, rel=1e-12)


# ----------------------------------------------------------------------- bad input
def test_bad_input_names_the_column() -> None:
    df = DF.copy()
    df["city"] = df["city"].astype(object)
    df.loc[3, "city"] = 5
    with pytest.raises(ValueError, match="'city' mixes value types"):
        MixedNB().fit(df, Y)
    df = DF.copy()
    df.loc[3, "income"] = np.inf
    with pytest.raises(ValueError, match="'income' contains infinity"):
        MixedNB().fit(df, Y)
    y = Y.astype(object)
    y[4] = None
    with pytest.raises(ValueError, match="label column y has missing values .* row.*4"):
        MixedNB().fit(DF, y)
    y = Y.astype(object)
    y[4] = np.nan
    with pytest.raises(ValueError, match="missing values"):
        MixedNB().fit(DF, y)
    df = DF.copy()
    df["review"] = np.arange(len(df))
    with pytest.raises(ValueError, match="'review' is a text column but holds a int"):
        MixedNB(columns={"review": "text"}).fit(df, Y)
    with pytest.raises(ValueError, match="lacks the column"):
        MixedNB().fit(DF, Y).predict(DF.drop(columns="age"))
    with pytest.raises(ValueError, match="'member' is a bernoulli column but holds 2.0"):
        MixedNB(columns={"member": "bernoulli"}).fit(DF.assign(member=2), Y)


# ---------------------------------------------------------------------------- plots
def test_plots(tmp_path: object) -> None:
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    from nbayes.plot import confusion_matrix, marginals

    clf = MixedNB(columns=FAMILIES).fit(DF, Y)
    for column in DF.columns:
        ax = marginals(clf, column)
        assert ax.get_title() == f"P({column} | class)"
        assert len(ax.get_legend().get_texts()) == 3
    marginals(GaussianNB().fit(DF[["age"]].fillna(40), Y), "age")
    ax = confusion_matrix(Y, clf.predict(DF))
    ax.figure.savefig(f"{tmp_path}/cm.png")
    plt.close("all")
    with pytest.raises(ValueError, match="Unknown column 'nope'"):
        marginals(clf, "nope")


# ------------------------------------------------ the boundary (issue 15 item 8, issue 14 item 7)
def test_mixed_boundary_reads_like_scikit_learn() -> None:
    import scipy.sparse as sp
    from sklearn.exceptions import DataConversionWarning

    X3 = np.array([[1.0, 2.0, 3.0], [2.0, 1.0, 0.5], [0.5, 0.1, 2.0]])
    y3 = np.array([0, 1, 0])
    model = MixedNB().fit(X3, y3)
    with pytest.raises(ValueError, match="X has 2 features, but MixedNB is expecting 3 features"):
        model.predict(X3[:, :2])
    with pytest.raises(ValueError, match="Reshape your data"):
        model.predict(X3[0])
    with pytest.raises(TypeError, match="Sparse data was passed.*dense data is required"):
        MixedNB().fit(sp.csr_matrix(X3), y3)
    with pytest.raises(ValueError, match="Complex data not supported"):
        MixedNB().fit(X3 + 1j, y3)
    with pytest.raises(ValueError, match="Complex data not supported"):
        MixedNB().fit(np.array([[1 + 2j], [1.0]], dtype=object), [0, 1])
    with pytest.warns(DataConversionWarning, match="column-vector y"):
        MixedNB().fit(X3, y3.reshape(-1, 1))


@pytest.mark.parametrize("shape", [(0, 3), (3, 0)])
def test_mixed_refuses_an_empty_table(shape: tuple[int, int]) -> None:
    word = "0 sample" if shape[0] == 0 else "0 feature"
    with pytest.raises(ValueError, match=word):
        MixedNB().fit(np.zeros(shape), np.zeros(shape[0]))
    with pytest.raises(ValueError, match=word):
        MixedNB().fit(pd.DataFrame(np.zeros(shape)), np.zeros(shape[0]))
    model = MixedNB().fit(np.ones((2, 3)), [0, 1])
    if shape[0] == 0:
        with pytest.raises(ValueError, match=word):
            model.predict(np.zeros(shape))


def test_mixed_duplicate_column_names_are_a_clear_error() -> None:
    df = pd.DataFrame([[1.0, 2.0], [3.0, 4.0]], columns=["a", "a"])
    with pytest.raises(ValueError, match=r"duplicate column names \['a'\]"):
        MixedNB().fit(df, [0, 1])


def test_mixed_integers_beyond_int64() -> None:
    X = [[1, 2], [2**63, 3]]
    model = MixedNB().fit(X, [0, 1])
    assert model.predict(X).tolist() == [0, 1]
    assert MixedNB().fit(np.array(X), [0, 1]).predict(np.array(X)).tolist() == [0, 1]


def test_a_few_ages_are_not_codes_an_unseen_age_still_counts():
    """Issue 28 trap 5: an 8-valued `age` column of a small table was categorical, so an
    age never seen in training got the prior alone. Codes are few *and* small (<= 10)."""
    import numpy as np

    from nbayes import MixedNB

    age = np.array([23, 25, 27, 29, 61, 63, 65, 67, 23, 61])
    y = np.array(["young"] * 4 + ["old"] * 4 + ["young", "old"])
    model = MixedNB().fit(age.reshape(-1, 1), y)
    assert model.families_ == {"x0": "poisson"}
    p_young = model.predict_proba(np.array([[24], [66]]))[:, list(model.classes_).index("young")]
    assert p_young[0] > 0.9 and p_young[1] < 0.1  # unseen ages, each near its class
    codes = MixedNB().fit(np.array([[1], [2], [3], [1]]), ["a", "b", "a", "b"])
    assert codes.families_ == {"x0": "categorical"}


def test_a_column_of_numbers_with_a_stray_string_is_said_to_be_categorical() -> None:
    # one "abc" among 4,600 numbers made the column categorical (hundreds of categories)
    # without a word (a data scientist's trial on Spambase)
    import warnings

    from nbayes.exceptions import NBayesWarning

    values = [str(0.5 * i) for i in range(40)]
    values[7] = "abc"
    X = pd.DataFrame({"x": values, "z": np.arange(40.0)})
    y = np.array([0, 1] * 20)
    said = r"'x' holds 39 numbers and 1 other value\(s\) \('abc' at row 7\)"
    with pytest.warns(NBayesWarning, match=said):
        model = MixedNB().fit(X, y)
    assert model.families_["x"] == "categorical"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # words, and a column read as given: nothing said
        MixedNB(columns={"x": "categorical"}).fit(X, y)
        words = [f"word{i % 5}" for i in range(40)]
        MixedNB().fit(pd.DataFrame({"x": words, "z": np.arange(40.0)}), y)


def test_values_of_another_type_than_the_categories_are_named() -> None:
    """A column of numbers read as text because of one bad cell ("oops"): its categories
    (1, 2, 7, 8) could not be looked up ("'<' not supported between instances of 'int'
    and 'str'", from deep in numpy); a count column named a good cell ('1', row 0) and
    ended its advice with "}}"."""
    X = pd.DataFrame({"n": [1, 2, 7, 8], "c": ["r", "b", "r", "b"]})
    model = MixedNB().fit(X, [0, 0, 1, 1])
    assert model.families_["n"] == "categorical"
    odd = pd.DataFrame({"n": ["1", "oops"], "c": ["r", "b"]})
    with pytest.raises(ValueError, match=r"^Column 'n' holds 'oops' \(str\), but its categories "
                       r"learnt are int \(such as 1\): give its values as int"):  # fmt: skip
        model.predict(odd)
    counts = MixedNB(columns={"n": "poisson"}).fit(X, [0, 0, 1, 1])
    with pytest.raises(ValueError, match=r"such as 'oops' \(row 1\).*'categorical'\}\.$"):
        counts.predict(odd)


def test_categorical_nb_names_values_of_another_type() -> None:
    model = CategoricalNB().fit(np.array([["a"], ["b"], ["a"]], dtype=object), [0, 1, 0])
    with pytest.raises(ValueError, match=r"^Feature 0 holds 1 \(int\), but its categories"):
        model.predict(np.array([[1], [2]], dtype=object))


def test_constant_gaussian_columns_at_var_smoothing_0_decide_as_gaussian_nb() -> None:
    """Columns constant in each class (var_smoothing=0): a value off a class's constant
    makes the class impossible, as GaussianNB's point masses; it was an overflow error
    advising to rescale the features (a fuzz's follow-up)."""

    y = [0, 0, 1, 1, 1]
    for a, b, query in (
        ([1.0, 1, 5, 5, 5], [0.0] * 5, (5.0, 0.0)),  # class 1 at both constants
        ([1.0, 2, 5, 6, 5.5], [0.0] * 5, (5.5, 0.0)),  # the constant column cancels
    ):
        df = pd.DataFrame({"a": a, "b": b})
        mixed = MixedNB(var_smoothing=0, columns={"a": "gaussian", "b": "gaussian"}).fit(df, y)
        got = mixed.predict_proba(pd.DataFrame({"a": [query[0]], "b": [query[1]]}))
        want = GaussianNB(var_smoothing=0).fit(df.to_numpy(), y).predict_proba([list(query)])
        np.testing.assert_allclose(got, want, atol=1e-12)
    df = pd.DataFrame({"a": [1.0, 1, 5, 5, 5], "b": [0.0, 0, 3, 3, 3]})
    mixed = MixedNB(var_smoothing=0, columns={"a": "gaussian", "b": "gaussian"}).fit(df, y)
    with pytest.warns(UndecidableWarning):  # off a constant of every class
        assert np.isnan(mixed.predict_proba(pd.DataFrame({"a": [5.0], "b": [0.0]}))).all()


def test_unlearning_a_category_never_seen_names_the_column_and_the_category() -> None:
    """It said "feature 0", whatever the column: a column's statistics are of one
    feature (a fuzz); CategoricalNB names the category too."""
    df = pd.DataFrame({"age": [33.0, 40, 25, 50], "city": ["rome", "oslo", "rome", "oslo"],
                       "note": ["a", "b", "a", "c"]})  # fmt: skip
    model = MixedNB().fit(df, ["A", "B", "A", "B"])
    bad = pd.DataFrame({"age": [33.0], "city": ["rome"], "note": ["nevercat"]})
    with pytest.raises(ValueError, match="column 'note' has the category 'nevercat', which"):
        model.unlearn(bad, ["A"])
    with pytest.raises(ValueError, match="feature 0 has the category 5, which"):
        CategoricalNB().fit([[0, 1], [1, 0]], [0, 1]).unlearn([[5, 1]], [0])
