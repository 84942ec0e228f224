"""nbayes.distributed: a fit on dask equals the fit on one machine, for any partitioning."""

from __future__ import annotations

import os
import sys
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
da = pytest.importorskip("dask.array")
db = pytest.importorskip("dask.bag")
distributed = pytest.importorskip("distributed")

import cloudpickle  # noqa: E402  (a dependency of distributed)

from nbayes import (  # noqa: E402
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    GaussianNB,
    KernelNB,
    MultinomialNB,
    PoissonNB,
)
from nbayes import distributed as nbd  # noqa: E402
from nbayes.text.classifier import TextClassifier  # noqa: E402

# Worker processes cannot import this test module: ship its functions by value.
cloudpickle.register_pickle_by_value(sys.modules[__name__])

pytestmark = [
    # Killing a worker makes distributed's nanny and scheduler log; they warn about nothing
    # else we know of. A closed comm on shutdown can surface as this ResourceWarning.
    pytest.mark.filterwarnings("ignore:unclosed <socket.socket:ResourceWarning"),
]

RTOL = 1e-12
ESTIMATORS = [
    MultinomialNB, BernoulliNB, ComplementNB, PoissonNB, CategoricalNB, GaussianNB, KernelNB,
]  # fmt: skip
WORDS = ["free", "win", "money", "lunch", "today", "meeting", "offer", "hello", "zz", "report"]


# ------------------------------------------------------------------ helpers
def _table(seed: int, n: int, estimator: type) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    if estimator in (GaussianNB, KernelNB):
        X = rng.normal(5.0, 3.0, size=(n, 4))
    elif estimator is CategoricalNB:
        X = rng.integers(0, 4, size=(n, 4))
    else:
        X = rng.poisson(1.5, size=(n, 4))
    df = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    df["label"] = rng.choice(np.array(["x", "y", "z"]), size=n)
    return df


def _texts(seed: int, n: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    docs = [" ".join(rng.choice(WORDS, size=int(rng.integers(1, 8)))) for _ in range(n)]
    # A rare word per document, so partitions have vocabularies of their own.
    docs = [f"{d} w{int(rng.integers(0, n))}" for d in docs]
    return pd.DataFrame({"text": docs, "label": rng.choice(np.array(["ham", "spam"]), n)})


def _split(df: pd.DataFrame, cuts: list[int]) -> Any:
    """A dask DataFrame with partitions df[cuts[i]:cuts[i+1]] (empty ones allowed)."""
    bounds = list(zip([0, *cuts], [*cuts, len(df)], strict=True))
    return dd.from_map(lambda b: df.iloc[b[0] : b[1]], bounds, meta=df.iloc[:0])


def _assert_same_stats(a: Any, b: Any) -> None:
    if is_dataclass(a):
        assert type(a) is type(b)
        for f in fields(a):
            _assert_same_stats(getattr(a, f.name), getattr(b, f.name))
    elif isinstance(a, tuple):
        assert len(a) == len(b)
        for x, z in zip(a, b, strict=True):
            _assert_same_stats(x, z)
    elif isinstance(a, np.ndarray) and a.dtype.kind in "fc":
        np.testing.assert_allclose(b, a, rtol=RTOL, atol=RTOL)
    elif isinstance(a, np.ndarray):
        np.testing.assert_array_equal(b, a)
    elif isinstance(a, float):
        assert b == pytest.approx(a, rel=RTOL)
    else:
        assert a == b


def _assert_same_model(single: Any, dist: Any, X: Any) -> None:
    assert type(dist) is type(single)
    assert dist.get_params() == single.get_params()
    if isinstance(single, TextClassifier):
        # column for column: the partitions' sorted vocabularies unite in sorted order
        _assert_same_stats(single._stats, dist._stats)
        assert (single._vocab or {}) == (dist._vocab or {})
        if not single.hashing:
            assert dist.vocabulary_ == single.vocabulary_
        np.testing.assert_array_equal(dist.get_feature_names_out(), single.get_feature_names_out())
        np.testing.assert_allclose(dist.feature_count_, single.feature_count_, rtol=RTOL)
    else:
        _assert_same_stats(single._stats, dist._stats)
    if hasattr(single, "n_features_in_"):
        assert dist.n_features_in_ == single.n_features_in_
    np.testing.assert_array_equal(dist.classes_, single.classes_)
    np.testing.assert_allclose(dist.class_count_, single.class_count_, rtol=RTOL)
    np.testing.assert_allclose(
        dist.predict_joint_log_proba(X), single.predict_joint_log_proba(X), rtol=RTOL
    )
    np.testing.assert_array_equal(dist.predict(X), single.predict(X))


cuts_strategy = st.integers(min_value=20, max_value=80).flatmap(
    lambda n: st.tuples(
        st.just(n), st.lists(st.integers(0, n), max_size=9).map(sorted), st.integers(0, 2**16)
    )
)
fast = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ------------------------------------------------------- any partitioning
@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: e.__name__)
@fast
@given(case=cuts_strategy, split_every=st.integers(2, 5))
def test_frame_fit_equals_single_fit(
    estimator: type, case: tuple[int, list[int], int], split_every: int
) -> None:
    n, cuts, seed = case
    df = _table(seed, n, estimator)
    X, y = df.drop(columns="label"), df["label"]
    single = estimator().fit(X, y)
    dist = nbd.fit(
        estimator(), _split(df, cuts), label_col="label", split_every=split_every,
        scheduler="sync",
    )  # fmt: skip
    _assert_same_model(single, dist, X)
    assert list(dist.feature_names_in_) == ["a", "b", "c", "d"]


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: e.__name__)
@fast
@given(case=cuts_strategy)
def test_array_fit_equals_single_fit(estimator: type, case: tuple[int, list[int], int]) -> None:
    n, cuts, seed = case
    df = _table(seed, n, estimator)
    X, y = df.drop(columns="label").to_numpy(), df["label"].to_numpy()
    chunks = tuple(np.diff([0, *cuts, n]).tolist())
    dX = da.from_array(X, chunks=(chunks, 2))  # column blocks are joined
    dy = da.from_array(y, chunks=7)  # realigned to X's rows
    single = estimator().fit(X, y)
    _assert_same_model(single, nbd.fit(estimator(), (dX, dy), scheduler="sync"), X)


@pytest.mark.parametrize("hashing", [False, True], ids=["vocabulary", "hashing"])
@fast
@given(case=cuts_strategy, split_every=st.integers(2, 4), binary=st.booleans())
def test_text_fit_equals_single_fit(
    hashing: bool, case: tuple[int, list[int], int], split_every: int, binary: bool
) -> None:
    n, cuts, seed = case
    df = _texts(seed, n)
    params = dict(hashing=hashing, binary=binary, n_features=2**12)
    single = TextClassifier(**params).fit(df["text"].tolist(), df["label"].to_numpy())
    dist = nbd.fit(
        TextClassifier(**params), _split(df, cuts), text_col="text", label_col="label",
        split_every=split_every, scheduler="sync",
    )  # fmt: skip
    _assert_same_model(single, dist, df["text"].tolist())
    assert dist.vocabulary_ == single.vocabulary_ if not hashing else True


def test_text_bag_of_pairs_and_pruning() -> None:
    df = _texts(3, 200)
    pairs = list(zip(df["text"], df["label"], strict=True))
    params = dict(min_df=2, max_features=8, model="complement")
    single = TextClassifier(**params).fit(df["text"].tolist(), df["label"].to_numpy())
    bag = db.from_sequence(pairs, npartitions=6)
    dist = nbd.fit(TextClassifier(**params), bag, scheduler="sync")
    _assert_same_model(single, dist, df["text"].tolist())
    assert dist.vocabulary_ == single.vocabulary_


def test_one_partition_is_the_single_fit_column_for_column() -> None:
    df = _texts(17, 50)
    single = TextClassifier().fit(df["text"].tolist(), df["label"].to_numpy())
    dist = nbd.fit(TextClassifier(), dd.from_pandas(df, npartitions=1), text_col="text",
                   label_col="label", scheduler="sync")  # fmt: skip
    assert list(dist._vocab.items()) == list(single._vocab.items())
    _assert_same_stats(single._stats, dist._stats)


def test_text_partition_without_a_term() -> None:
    df = _texts(16, 40)
    df.loc[:9, "text"] = ["a", "", "I", "x y", "", "a b", "", "", "z", "."]  # no token
    single = TextClassifier().fit(df["text"].tolist(), df["label"].to_numpy())
    dist = nbd.fit(TextClassifier(), _split(df, [10, 25]), text_col="text", label_col="label",
                   scheduler="sync")  # fmt: skip
    _assert_same_model(single, dist, df["text"].tolist())


def test_string_categories_and_empty_partitions() -> None:
    rng = np.random.default_rng(0)
    df = pd.DataFrame(
        {
            "sky": rng.choice(np.array(["sunny", "rainy", "overcast"]), 60),
            "temp": rng.choice(np.array(["hot", "mild"]), 60),
            "label": rng.choice(np.array(["yes", "no"]), 60),
        }
    )
    X = df[["sky", "temp"]]
    single = CategoricalNB().fit(X, df["label"])
    dist = nbd.fit(CategoricalNB(), _split(df, [0, 0, 10, 10, 60]), label_col="label",
                   scheduler="sync")  # fmt: skip
    _assert_same_model(single, dist, X)


def test_all_partitions_empty() -> None:
    df = _table(0, 10, MultinomialNB)
    with pytest.raises(ValueError, match="empty"):
        nbd.fit(MultinomialNB(), _split(df.iloc[:0], [0, 0]), label_col="label",
                scheduler="sync")  # fmt: skip


# ---------------------------------------------------------------- predict
def test_predict_is_lazy_and_equal() -> None:
    df = _table(1, 90, GaussianNB)
    X = df.drop(columns="label")
    clf = GaussianNB().fit(X, df["label"])
    ddf = dd.from_pandas(df, npartitions=4)
    pred = nbd.predict(clf, ddf)  # the label column is ignored: features by name
    assert isinstance(pred, dd.Series)
    np.testing.assert_array_equal(pred.compute(scheduler="sync").to_numpy(), clf.predict(X))
    proba = nbd.predict_proba(clf, ddf).compute(scheduler="sync")
    np.testing.assert_allclose(proba.to_numpy(), clf.predict_proba(X), rtol=RTOL)
    assert list(proba.columns) == list(clf.classes_)
    arr = da.from_array(X.to_numpy(), chunks=(25, 2))
    plain = GaussianNB().fit(X.to_numpy(), df["label"].to_numpy())
    out = nbd.predict_log_proba(plain, arr)
    assert isinstance(out, da.Array)
    np.testing.assert_allclose(
        out.compute(scheduler="sync"), plain.predict_log_proba(X.to_numpy()), rtol=RTOL
    )
    labels = nbd.predict(plain, arr).compute(scheduler="sync")
    np.testing.assert_array_equal(labels, plain.predict(X.to_numpy()))


def test_predict_text_frame_and_bag() -> None:
    df = _texts(2, 60)
    clf = TextClassifier().fit(df["text"].tolist(), df["label"].to_numpy())
    ddf = dd.from_pandas(df, npartitions=3)
    got = nbd.predict(clf, ddf, text_col="text").compute(scheduler="sync")
    np.testing.assert_array_equal(got.to_numpy(), clf.predict(df["text"].tolist()))
    bag = db.from_sequence(df["text"].tolist(), npartitions=3)
    assert (
        nbd.predict(clf, bag).compute(scheduler="sync") == clf.predict(df["text"].tolist()).tolist()
    )


# ------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("estimator", "column", "value", "message"),
    [
        (GaussianNB, "b", np.nan, "NaN in column"),
        (MultinomialNB, "c", -2, "Negative values"),
    ],
)
def test_bad_row_names_partition_and_row(
    estimator: type, column: str, value: float, message: str
) -> None:
    df = _table(4, 80, estimator)
    df[column] = df[column].astype(float)
    df.loc[57, column] = value
    with pytest.raises(nbd.PartitionError, match=message) as info:
        nbd.fit(estimator(), _split(df, [20, 40, 60]), label_col="label", scheduler="sync")
    err = info.value
    assert (err.partition, err.row, err.label) == (2, 17, 57)
    assert "partition 2, row 17 (index 57)" in str(err)


def test_non_string_text_names_partition_and_row() -> None:
    df = _texts(5, 40)
    df.loc[33, "text"] = None  # dask holds text as pyarrow strings: missing is <NA>
    with pytest.raises(nbd.PartitionError, match=r"partition 1, row 13 \(index 33\): missing text"):
        nbd.fit(TextClassifier(), _split(df, [20]), text_col="text", label_col="label",
                scheduler="sync")  # fmt: skip
    pairs = list(zip(df["text"].fillna(""), df["label"], strict=True))
    pairs[25] = (12.5, "ham")
    bag = db.from_sequence(pairs, partition_size=10)
    with pytest.raises(nbd.PartitionError, match=r"partition 2, row 5: .*float") as info:
        nbd.fit(TextClassifier(), bag, scheduler="sync")
    assert (info.value.partition, info.value.row) == (2, 5)


def test_bad_block_reports_global_row() -> None:
    X = np.ones((30, 2))
    X[22, 1] = np.inf
    y = np.array(["a", "b"] * 15)
    dX, dy = da.from_array(X, chunks=(10, 2)), da.from_array(y, chunks=10)
    with pytest.raises(nbd.PartitionError, match="infinity") as info:
        nbd.fit(PoissonNB(), (dX, dy), scheduler="sync")
    assert (info.value.partition, info.value.row, info.value.label) == (2, 2, 22)


def test_clear_errors() -> None:
    df = _table(0, 10, MultinomialNB)
    ddf = dd.from_pandas(df, npartitions=2)
    with pytest.raises(ValueError, match="label_col"):
        nbd.fit(MultinomialNB(), ddf)
    with pytest.raises(KeyError, match="No label column 'y'"):
        nbd.fit(MultinomialNB(), ddf, label_col="y")
    with pytest.raises(TypeError, match="dask DataFrame"):
        nbd.fit(MultinomialNB(), df)
    with pytest.raises(TypeError, match="needs fit, partial_fit and merge"):
        nbd.fit(object(), ddf, label_col="label")
    two = _texts(0, 10).rename(columns={"text": "body"}).assign(subject="hi")
    with pytest.raises(ValueError, match=r"pass text_col.*'body', 'label', 'subject'"):
        nbd.fit(TextClassifier(), _split(two, [5]), label_col="label", scheduler="sync")
    with pytest.raises(ValueError, match="split_every"):
        nbd.fit(MultinomialNB(), ddf, label_col="label", split_every=1)


def test_missing_dask_message(monkeypatch: pytest.MonkeyPatch) -> None:
    from nbayes.distributed import _inputs

    monkeypatch.setitem(sys.modules, "dask", None)
    with pytest.raises(ImportError, match=r"requires dask: pip install 'nbayes\[dask\]'"):
        _inputs.require_dask()


def test_bad_hyperparameters_are_no_bad_rows() -> None:
    from nbayes.exceptions import InvalidParameterError

    ddf = _split(_table(0, 20, MultinomialNB), [10])
    with pytest.raises(InvalidParameterError, match="'alpha' parameter") as info:
        nbd.fit(MultinomialNB(alpha=-1.0), ddf, label_col="label", scheduler="sync")
    assert not isinstance(info.value, nbd.PartitionError)


# ----------------------------------------------------- the public surface
def test_public_names_are_what_users_call() -> None:
    public = {n for n in dir(nbd) if not n.startswith("_")} - {"annotations"}  # __future__
    assert public == set(nbd.__all__) == {
        "BlocksDisagreeError", "PartitionError", "QuotedLineBreakWarning", "TableRows", "fit",
        "fit_source",
        "predict", "predict_log_proba", "predict_proba", "read",
    }  # fmt: skip
    for name in nbd.__all__:
        assert getattr(nbd, name).__doc__, f"nbayes.distributed.{name} has no docstring"


def test_any_estimator_with_partial_fit_and_merge() -> None:
    class MyNB(MultinomialNB):
        pass

    df = _table(0, 30, MultinomialNB)
    X = df.drop(columns="label")
    dist = nbd.fit(MyNB(), _split(df, [10, 20]), label_col="label", scheduler="sync")
    assert type(dist) is MyNB
    _assert_same_model(MyNB().fit(X, df["label"]), dist, X)
    from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB  # no merge

    with pytest.raises(TypeError, match=r"cannot fit a MultinomialNB.*needs merge"):
        nbd.fit(SkMultinomialNB(), _split(df, [10]), label_col="label", scheduler="sync")


def test_bag_of_rows_and_class_prior_with_classes() -> None:
    df = _table(12, 60, MultinomialNB)
    X, y = df.drop(columns="label"), df["label"].to_numpy()
    y[:20] = "x"  # the first partition holds one class of three
    params = dict(class_prior=[0.2, 0.3, 0.5])
    single = MultinomialNB(**params).fit(X.to_numpy(), y)
    bag = db.from_sequence(list(zip(X.to_numpy().tolist(), y, strict=True)), partition_size=20)
    with pytest.raises(ValueError, match="priors"):  # the partition alone has 1 class
        nbd.fit(MultinomialNB(**params), bag, scheduler="sync")
    dist = nbd.fit(MultinomialNB(**params), bag, classes=["x", "y", "z"], scheduler="sync")
    _assert_same_model(single, dist, X.to_numpy())
    got = nbd.predict(dist, db.from_sequence(X.to_numpy().tolist(), npartitions=2))
    assert got.compute(scheduler="sync") == single.predict(X.to_numpy()).tolist()


def test_models_travel_compressed_and_exact() -> None:
    from nbayes.distributed._fit import _Shipped

    df = _texts(13, 300)
    big = TextClassifier(hashing=True).fit(df["text"].tolist(), df["label"].to_numpy())
    shipped = _Shipped(big)
    wire = cloudpickle.dumps(shipped)
    assert shipped.compressed and len(wire) < len(cloudpickle.dumps(big)) / 20
    back = cloudpickle.loads(wire).model()
    _assert_same_model(big, back, df["text"].tolist())
    small = MultinomialNB().fit(_table(0, 20, MultinomialNB).drop(columns="label"), ["a"] * 20)
    assert not _Shipped(small).compressed


def test_compact_text_pickles_travel_uncompressed() -> None:
    """A text partition model pickles compactly by itself (its non-zero cells and terms):
    zlib would halve it at more cost than sending the bytes, so it is not applied; a
    dense table of zeros is still compressed."""
    from nbayes.distributed._fit import _Shipped, _worth_compressing

    rng = np.random.default_rng(3)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    words = ["".join(rng.choice(letters, rng.integers(3, 9))) for _ in range(20_000)]
    docs = [" ".join(rng.choice(words, 20)) for _ in range(2_000)]
    y = rng.integers(0, 20, len(docs))  # 20 classes: a table of ~90 % zeros
    model = TextClassifier().fit(docs, y)
    shipped = _Shipped(model)
    assert len(shipped.blob) > 1 << 16 and not shipped.compressed
    _assert_same_model(model, shipped.model(), docs[:50])
    assert _worth_compressing(bytes(1 << 20))
    assert not _worth_compressing(rng.bytes(1 << 20))


def test_text_preprocess_lambda_survives_the_trip() -> None:
    df = _texts(14, 40)
    df["text"] = df["text"].str.upper()
    params = dict(preprocess=lambda d: d.lower())
    single = TextClassifier(**params).fit(df["text"].tolist(), df["label"].to_numpy())
    dist = nbd.fit(TextClassifier(**params), _split(df, [20]), text_col="text",
                   label_col="label", scheduler="sync")  # fmt: skip
    assert dist.vocabulary_ == single.vocabulary_


# --------------------------------------------------------------- reading
# dask 2026.8's parquet reader calls DataFrame.reset_index(inplace=True), deprecated by pandas 3.1.
@pytest.mark.filterwarnings(
    "ignore:The inplace keyword in DataFrame.reset_index:pandas.errors.Pandas4Warning"
)
def test_read_formats(tmp_path: Any) -> None:
    df = _texts(6, 120)
    for i in range(3):
        part = df.iloc[i * 40 : (i + 1) * 40]
        part.to_csv(tmp_path / f"p{i}.csv", index=False)
        part.to_json(tmp_path / f"p{i}.jsonl", orient="records", lines=True)
        part.to_parquet(tmp_path / f"p{i}.parquet", index=False)
    single = TextClassifier().fit(df["text"].tolist(), df["label"].to_numpy())
    for ext in ("csv", "jsonl", "parquet"):
        ddf = nbd.read(str(tmp_path / f"p*.{ext}"))
        assert ddf.npartitions >= 3
        dist = nbd.fit(TextClassifier(), ddf, text_col="text", label_col="label",
                       scheduler="sync")  # fmt: skip
        _assert_same_model(single, dist, df["text"].tolist())
    with pytest.raises(ValueError, match="format"):
        nbd.read(str(tmp_path / "p*.txt"))


# ------------------------------------------------ a real cluster on loopback
@pytest.fixture(scope="module")
def client() -> Any:
    from distributed import Client, LocalCluster

    # dask pickles a function of this module nested in a graph by reference (plain pickle
    # first): the workers, spawned with this process's sys.path, must find "tests" (run as
    # `pytest`, not `python -m pytest`, the root is not on it, and the killed-worker test's
    # workers failed to read their tasks, and the fit waited forever)
    root = str(Path(__file__).resolve().parents[2])
    added = root not in sys.path
    if added:
        sys.path.append(root)
    cluster = LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None,
        host="127.0.0.1", scheduler_kwargs={"dashboard_address": ":0"},  # any free port
    )  # fmt: skip
    client = Client(cluster)
    # Import nbayes (and load its compiled text kernels) on the workers once, up front.
    client.run(lambda: TextClassifier().fit(["warm up", "the workers"], ["a", "b"]) and None)
    yield client
    client.close()
    cluster.close()
    if added:
        sys.path.remove(root)


@pytest.mark.slow
def test_cluster_fit_equals_single_fit(client: Any) -> None:
    df = _table(7, 400, GaussianNB)
    X = df.drop(columns="label")
    dist = nbd.fit(GaussianNB(), dd.from_pandas(df, npartitions=6), label_col="label",
                   scheduler=client)  # fmt: skip
    _assert_same_model(GaussianNB().fit(X, df["label"]), dist, X)
    from nbayes import MixedNB

    mixed = _mixed_table(15, 200)
    families = MixedNB().fit(mixed.drop(columns="label"), mixed["label"]).families_
    dist = nbd.fit(MixedNB(columns=families), dd.from_pandas(mixed, npartitions=4),
                   label_col="label", scheduler=client)  # fmt: skip
    X = mixed.drop(columns="label")
    single_mixed = MixedNB(columns=families).fit(X, mixed["label"].to_numpy())
    np.testing.assert_allclose(
        dist.predict_joint_log_proba(X), single_mixed.predict_joint_log_proba(X), rtol=1e-10
    )
    texts = _texts(8, 300)
    dist = nbd.fit(TextClassifier(), dd.from_pandas(texts, npartitions=5), text_col="text",
                   label_col="label", scheduler=client)  # fmt: skip
    single = TextClassifier().fit(texts["text"].tolist(), texts["label"].to_numpy())
    _assert_same_model(single, dist, texts["text"].tolist())
    got = nbd.predict(dist, dd.from_pandas(texts, npartitions=3), text_col="text")
    np.testing.assert_array_equal(
        got.compute(scheduler=client).to_numpy(), single.predict(texts["text"].tolist())
    )


@pytest.mark.slow
def test_cluster_bad_row_error_reaches_client(client: Any) -> None:
    df = _table(9, 60, PoissonNB)
    df["a"] = df["a"].astype(float)
    df.loc[44, "a"] = np.nan
    with pytest.raises(nbd.PartitionError, match=r"partition 2, row 14 \(index 44\)"):
        nbd.fit(PoissonNB(), _split(df, [15, 30, 45]), label_col="label", scheduler=client)


@pytest.mark.slow
def test_fit_source_on_a_scheduler_address(client: Any, tmp_path: Any) -> None:
    df = _table(10, 100, MultinomialNB)
    df.iloc[:50].to_csv(tmp_path / "a.csv", index=False)
    df.iloc[50:].to_csv(tmp_path / "b.csv", index=False)
    dist = nbd.fit_source(
        MultinomialNB(), str(tmp_path / "*.csv"), label_col="label",
        scheduler=client.scheduler.address,
    )  # fmt: skip
    X = df.drop(columns="label")
    _assert_same_model(MultinomialNB().fit(X, df["label"]), dist, X)


def _kill_worker_once(frame: pd.DataFrame, marker: str) -> pd.DataFrame:
    """Kill the worker process running this the first time (in any partition), only once."""
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return frame
    os.close(fd)
    os._exit(1)


@pytest.mark.slow
def test_worker_killed_mid_fit_is_retried(client: Any, tmp_path: Any) -> None:
    df = _texts(11, 400)
    marker = str(tmp_path / "killed")
    ddf = dd.from_pandas(df, npartitions=8).map_partitions(
        _kill_worker_once, marker, meta=df.iloc[:0]
    )
    dist = nbd.fit(TextClassifier(), ddf, text_col="text", label_col="label",
                   scheduler=client)  # fmt: skip
    assert os.path.exists(marker)  # a worker did die
    single = TextClassifier().fit(df["text"].tolist(), df["label"].to_numpy())
    _assert_same_model(single, dist, df["text"].tolist())
    client.wait_for_workers(2, timeout=30)


def _mixed_table(seed: int, n: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "height": rng.normal(170, 10, n),
            "city": rng.choice(np.array(["paris", "oslo", "lima"]), n),
            "visits": rng.poisson(2.0, n),
            "member": rng.random(n) < 0.3,
            "note": [" ".join(rng.choice(WORDS, 4)) for _ in range(n)],
        }
    )
    df.loc[rng.random(n) < 0.1, "height"] = np.nan  # missing values are skipped
    df["label"] = rng.choice(np.array(["x", "y"]), n)
    return df


@fast
@given(case=cuts_strategy)
def test_mixed_fit_equals_single_fit(case: tuple[int, list[int], int]) -> None:
    from nbayes import MixedNB

    n, cuts, seed = case
    df = _mixed_table(seed, n)
    X, y = df.drop(columns="label"), df["label"].to_numpy()
    families = {
        "height": "gaussian", "city": "categorical", "visits": "poisson",
        "member": "bernoulli", "note": "text",
    }  # fmt: skip
    single = MixedNB(columns=families).fit(X, y)
    dist = nbd.fit(MixedNB(columns=families), _split(df, cuts), label_col="label", scheduler="sync")
    np.testing.assert_array_equal(dist.classes_, single.classes_)
    np.testing.assert_allclose(
        dist.predict_joint_log_proba(X), single.predict_joint_log_proba(X), rtol=1e-10
    )


def test_mixed_partitions_must_infer_the_same_families() -> None:
    from nbayes import MixedNB

    df = _mixed_table(3, 120)
    # a column whose values in one partition look categorical and in another poisson
    rows = np.arange(120)
    df["visits"] = np.where(rows < 60, df["visits"] % 3, df["visits"] + rows % 20)
    parts = _split(df, [30, 60, 90])
    with pytest.raises(ValueError, match=r"partitions 0-1 and 2-3 do not merge.*columns="):
        nbd.fit(MixedNB(), parts, label_col="label", split_every=2, scheduler="sync")
    # The fix the message names: the families of a sample, for every partition.
    sample = df.iloc[:60]
    families = MixedNB().fit(sample.drop(columns="label"), sample["label"]).families_
    assert families["visits"] == "categorical"
    dist = nbd.fit(MixedNB(columns=families), parts, label_col="label", scheduler="sync")
    X = df.drop(columns="label")
    single = MixedNB(columns=families).fit(X, df["label"].to_numpy())
    assert dist.families_ == families
    np.testing.assert_array_equal(dist.class_count_, single.class_count_)
    np.testing.assert_allclose(
        dist.predict_joint_log_proba(X), single.predict_joint_log_proba(X), rtol=1e-10
    )
