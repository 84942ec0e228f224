"""Model files of KernelNB (exact and binned) and MixedNB (every family, pandas, polars and
numpy input): exact round trips, live loaded models, validation on load, fuzzing."""

from __future__ import annotations

import copy
import dataclasses
import random
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from nbayes.exceptions import ModelFileError
from nbayes.io import _registry, persist
from nbayes.io._modelfile import read_model_file, write_model_file
from nbayes.io.persist import load, save
from nbayes.kernel import KernelNB
from nbayes.mixed import MixedNB

from .test_persist import (
    fuzz_resealed,
    try_load,
)


@pytest.fixture(autouse=True)
def _strict_loader(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let an exception that escapes the explicit checks surface (no safety net)."""
    monkeypatch.setattr(persist, "_WRAP_UNEXPECTED", False)


RNG = np.random.default_rng(1)
N = 60
Y = RNG.choice(["ham", "spam", "eggs"], size=N)
X_NUM = RNG.normal(size=(N, 3)) * [1.0, 10.0, 0.1] + (Y == "spam")[:, None]
# zero-inflated columns: KernelNB's point masses at 0 (and at 1.5 in the last column)
X_ZERO = np.where(RNG.random((N, 3)) < [[0.6, 0.3, 0.5]], 0.0, np.round(np.abs(X_NUM), 2))
X_ZERO[::7, 2] = 1.5
WORDS = ["free", "money", "now", "lunch", "today", "call", "home", "prize", "meeting"]


def mixed_frame(n: int = N, missing: bool = True) -> pd.DataFrame:
    rng = np.random.default_rng(2)
    df = pd.DataFrame(
        {
            "age": rng.normal(40, 12, n),
            "city": rng.choice(["paris", "lyon", "nice"], n),
            "visits": rng.integers(0, 60, n),
            "member": rng.random(n) < 0.4,
            "plan": pd.Series(rng.choice(["free", "pro"], n), dtype="category"),
            "note": [" ".join(rng.choice(WORDS, 4)) for _ in range(n)],
            "spend": rng.exponential(3.0, n),
            "level": pd.array(rng.integers(0, 3, n), dtype="Int64"),
            "score": rng.integers(1, 4, n).astype(float),
        }
    )
    if missing:
        df.loc[3, "age"] = np.nan
        df.loc[4, "city"] = None
        df.loc[5, "note"] = None
        df.loc[6, "level"] = pd.NA
    return df


def models() -> list[tuple[str, Any, Any]]:
    df = mixed_frame()
    cases: list[tuple[str, Any, Any]] = [
        ("kernel", KernelNB().fit(X_NUM, Y), X_NUM),
        (
            "kernel-binned-weights",
            KernelNB(max_points=8, bandwidth=0.3, priors=[0.2, 0.3, 0.5]).fit(
                X_NUM, Y, sample_weight=RNG.uniform(0.5, 2, N)
            ),
            X_NUM,
        ),
        (
            "kernel-names-silverman",
            KernelNB(bandwidth="silverman").fit(pd.DataFrame(X_NUM, columns=["a", "b", "c"]), Y),
            pd.DataFrame(X_NUM, columns=["a", "b", "c"]),
        ),
        ("kernel-unlearned", KernelNB(max_points=6).fit(X_NUM, Y).unlearn(X_NUM[:5], Y[:5]), X_NUM),
        (
            "mixed-pandas",
            MixedNB({"spend": "kde", "score": "categorical"}, alpha=0.5).fit(df, Y),
            df,
        ),
        (
            "mixed-pandas-priors",
            MixedNB(columns=None, class_prior=np.array([0.2, 0.3, 0.5]), fit_prior=False).fit(
                df, Y
            ),
            df,
        ),
        (
            "mixed-numpy-list",
            MixedNB(["gaussian", "categorical", "kde"]).fit(
                np.column_stack([X_NUM[:, 0], (X_NUM[:, 1] > 0).astype(int), X_NUM[:, 2]]), Y
            ),
            np.column_stack([X_NUM[:, 0], (X_NUM[:, 1] > 0).astype(int), X_NUM[:, 2]]),
        ),
        (
            "mixed-unlearned-int-labels",
            MixedNB().fit(df, (Y == "spam").astype(int)).unlearn(df[:10], (Y[:10] == "spam")),
            df,
        ),
    ]
    cases += [  # after the mixed cases, which other tests find by position
        ("kernel-point-masses", KernelNB().fit(X_ZERO, Y), X_ZERO),
        (
            "kernel-point-masses-unlearned",
            KernelNB(point_mass=0.1, bandwidth="scott").fit(X_ZERO, Y).unlearn(X_ZERO[:9], Y[:9]),
            X_ZERO,
        ),
        ("kernel-no-point-masses", KernelNB(point_mass=None).fit(X_ZERO, Y), X_ZERO),
    ]
    try:
        import polars as pl
    except ImportError:  # pragma: no cover
        return cases
    pdf = pl.from_pandas(df.drop(columns=["plan", "level"])).with_columns(
        pl.Series("tier", RNG.choice(["a", "b"], N)).cast(pl.Enum(["b", "a"])),
        pl.Series("town", RNG.choice(["x", "y"], N)).cast(pl.Categorical),
    )
    cases.append(("mixed-polars", MixedNB().fit(pdf, Y), pdf))
    return cases


CASES = models()
IDS = [c[0] for c in CASES]


def assert_same_stats(a: Any, b: Any, where: str = "stats") -> None:
    """Dataclasses, tuples and arrays equal bit for bit (and value types equal)."""
    assert type(a) is type(b), where
    if dataclasses.is_dataclass(a):
        for f in dataclasses.fields(a):
            assert_same_stats(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
    elif isinstance(a, tuple):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_same_stats(x, y, f"{where}[{i}]")
    elif isinstance(a, np.ndarray):
        assert a.shape == b.shape and a.dtype.kind == b.dtype.kind, where
        if a.dtype.kind == "f":
            assert a.tobytes() == b.tobytes(), where
        else:
            assert a.tolist() == b.tolist(), where
            assert [type(v) for v in a.tolist()] == [type(v) for v in b.tolist()], where
    else:
        assert a == b, where


def assert_same_model(a: Any, b: Any, X: Any) -> None:
    assert type(a) is type(b)
    pa, pb = a.get_params(deep=False), b.get_params(deep=False)
    assert pa.keys() == pb.keys()
    for k in pa:
        if isinstance(pa[k], np.ndarray):
            assert pa[k].dtype == pb[k].dtype and np.array_equal(pa[k], pb[k]), k
        else:
            assert pa[k] == pb[k] and type(pa[k]) is type(pb[k]), k
    assert a.n_features_in_ == b.n_features_in_
    assert hasattr(a, "feature_names_in_") == hasattr(b, "feature_names_in_")
    if hasattr(a, "feature_names_in_"):
        assert list(a.feature_names_in_) == list(b.feature_names_in_)
    assert_same_stats(a._stats, b._stats)
    assert a.classes_.dtype.kind == b.classes_.dtype.kind
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    assert a.predict_joint_log_proba(X).tobytes() == b.predict_joint_log_proba(X).tobytes()


def roundtrip(model: Any, tmp_path: Path) -> Any:
    path = tmp_path / "model.nbayes"
    save(model, path)
    return load(path)


def rows(X: Any, n: int) -> Any:
    return X[:n] if not hasattr(X, "iloc") and not hasattr(X, "head") else X.head(n)


@pytest.mark.parametrize(("name", "model", "X"), CASES, ids=IDS)
def test_round_trip_is_exact(tmp_path: Path, name: str, model: Any, X: Any) -> None:
    loaded = roundtrip(model, tmp_path)
    assert_same_model(model, loaded, X)
    if isinstance(model, MixedNB):
        assert loaded.families_ == model.families_
        assert loaded.summary() == model.summary()
        assert loaded._source == model._source
        a, ya = model.sample(7, random_state=3)
        b, yb = loaded.sample(7, random_state=3)
        np.testing.assert_array_equal(ya, yb)
        if hasattr(a, "dtypes"):
            assert list(a.dtypes) == list(b.dtypes)
            assert a.equals(b)
        else:
            assert a.dtype == b.dtype and a.tolist() == b.tolist()
        name0 = model._stats.names[0]
        assert loaded.explain(rows(X, 1)).contributions(model.classes_[0])[0][0] in (
            *model._stats.names,
            name0,
        )


@pytest.mark.parametrize(("name", "model", "X"), CASES, ids=IDS)
def test_loaded_model_updates_unlearns_and_merges(
    tmp_path: Path, name: str, model: Any, X: Any
) -> None:
    loaded = roundtrip(model, tmp_path)
    X_batch = rows(X, 8)
    y_batch = np.asarray(model.predict(X_batch))
    a = copy.deepcopy(model).update(X_batch, y_batch)
    b = loaded.update(X_batch, y_batch)
    assert_same_model(a, b, X)
    a.unlearn(X_batch, y_batch)
    b.unlearn(X_batch, y_batch)
    assert_same_model(a, b, X)
    assert_same_model(a.merge(model), roundtrip(b, tmp_path).merge(model), X)


def test_point_mass_is_written_only_when_set(tmp_path: Path) -> None:
    path = tmp_path / "m.nbayes"
    for point_mass in (None, 0.05, 0.0):
        save(KernelNB(point_mass=point_mass).fit(X_ZERO, Y), path)
        hp = read_model_file(path)[0]["model"]["hyperparameters"]
        assert ("point_mass" in hp) is (point_mass is not None)
        assert load(path).point_mass == point_mass
        assert (0.0 in load(path).point_masses_[0]) is (point_mass is not None)


STORED = Path(__file__).parents[1] / "data" / "models"


@pytest.mark.parametrize("name", ["kernel-binned-weights", "kernel-zero-inflated"])
def test_kernel_files_written_before_point_masses_predict_as_they_did(name: str) -> None:
    """Written by the KernelNB before point masses (Scott's rule, no masses), with the
    joint log-likelihoods it gave on the stored rows: a file without ``point_mass`` loads
    as ``point_mass=None``, the estimate it was saved with."""
    model = load(STORED / f"{name}.nbayes")
    assert model.point_mass is None
    X = np.load(STORED / f"{name}.X.npy")
    want = np.load(STORED / f"{name}.expected.npy")
    np.testing.assert_allclose(model.predict_joint_log_proba(X), want, rtol=1e-12)
    if name == "kernel-zero-inflated":  # today's defaults would read it otherwise
        today = KernelNB(bandwidth=model.bandwidth)._set_stats(model._stats)
        today.n_features_in_ = model.n_features_in_
        assert not np.allclose(today.predict_joint_log_proba(X), want)


def test_registered_lazily() -> None:
    types = persist.registered_types()
    assert "KernelNB" in types and "MixedNB" in types
    # listed in the one table of model kinds, imported on first use
    from nbayes.io.serializers import mixed

    assert _registry.BUILTIN["MixedNB"]() == mixed.SERIALIZERS
    assert [s.cls for s in mixed.SERIALIZERS] == [MixedNB]


def test_mixed_layout(tmp_path: Path) -> None:
    path = tmp_path / "m.nbayes"
    save(CASES[4][1], path)
    metadata, arrays = read_model_file(path)
    model = metadata["model"]
    assert metadata["model_type"] == "MixedNB"
    assert [c["family"] for c in model["columns"]] == list(CASES[4][1].families_.values())
    assert model["input"]["source"] == "pandas"
    assert {"lib": "pandas", "name": "Int64"} in model["input"]["dtypes"]
    assert model["hyperparameters"]["columns"]["type"] == "dict"
    assert "columns/0/mean" in arrays and "class_count" in arrays


def test_save_refuses_unfitted(tmp_path: Path) -> None:
    for model in (KernelNB(), MixedNB()):
        with pytest.raises(ValueError, match="not fitted"):
            save(model, tmp_path / "m.nbayes")


# --------------------------------------------------------------------------------------
# validation on load
# --------------------------------------------------------------------------------------


def edit(tmp_path: Path, model: Any, change: Any = None, arrays_change: Any = None) -> Path:
    path = tmp_path / "m.nbayes"
    save(model, path)
    metadata, arrays = read_model_file(path)
    if change is not None:
        change(metadata["model"])
    if arrays_change is not None:
        arrays_change(arrays)
    write_model_file(path, metadata, arrays)
    return path


KNB = KernelNB(max_points=4).fit(np.arange(20.0).reshape(10, 2), [0, 1] * 5)
MIX = MixedNB({"k": "kde", "p": "poisson"}).fit(
    pd.DataFrame(
        {
            "g": [1.0, 2.0, 3.0, 4.0],
            "c": ["x", "y", "x", "z"],
            "t": ["free money now ok", "lunch at home", "win free cash", "see you home"],
            "b": [True, False, True, True],
            "k": [0.5, 1.5, 2.5, 3.5],
            "p": [1, 2, 30, 11] * 1,
        }
    ),
    ["s", "h", "s", "h"],
)


def _at(*path: Any, value: Any) -> Any:
    def change(m: Any) -> None:
        for key in path[:-1]:
            m = m[key]
        m[path[-1]] = value

    return change


def _arr(name: str, fn: Any) -> Any:
    def change(a: dict) -> None:
        a[name] = fn(a[name])

    return change


def _col(family: str) -> int:
    return list(MIX.families_.values()).index(family)


G, C, T, B, K, P = (_col(f) for f in ("gaussian", "categorical", "text", "bernoulli", "kde",
                                      "poisson"))  # fmt: skip

INVALID = [
    ("kernel max_points", KNB, _at("stats", "max_points", value=1), None, "max_points"),
    ("kernel kind", KNB, _at("stats", "kind", value="counts"), None, "points"),
    ("kernel width", KNB, None, _arr("widths", lambda a: a * 3), "power of two"),
    ("kernel off grid", KNB, None, _arr("values", lambda a: a + 0.25), "grid"),
    ("kernel unsorted", KNB, None, _arr("values", lambda a: a[::-1].copy()), "sorted"),
    ("kernel n_values", KNB, None, _arr("n_values", lambda a: a + 1), "adds up"),
    ("kernel weight", KNB, None, _arr("weights", lambda a: a * 10), "exceeds"),
    ("kernel zero point", KNB, None, _arr("weights", lambda a: a * 0), "weight 0"),
    (
        "kernel exact binned",
        KernelNB().fit([[0.0], [1.0]], [0, 1]),
        None,
        _arr("widths", lambda a: a + 1),
        "max_points is null",
    ),  # fmt: skip
    ("mixed family", MIX, _at("columns", G, "family", value="lognormal"), None, "family"),
    (
        "mixed columns param",
        MIX,
        _at("hyperparameters", "columns", value={"type": "dict", "items": [["k", "x"]]}),
        None,
        "unknown family",
    ),  # fmt: skip
    ("mixed source", MIX, _at("input", "source", value="arrow"), None, "source"),
    (
        "mixed dtype",
        MIX,
        _at("input", "dtypes", 0, value={"lib": "pandas", "name": "complex128"}),
        None,
        "not a pandas dtype",
    ),  # fmt: skip
    (
        "mixed dtype lib",
        MIX,
        _at("input", "dtypes", 0, value={"lib": "numpy", "name": "bool"}),
        None,
        "fitted on pandas",
    ),  # fmt: skip
    ("mixed names flag", MIX, _at("input", "feature_names", value=False), None, "does not fit"),
    ("mixed reasons", MIX, _at("input", "reasons", value=["x"]), None, "entries"),
    ("mixed duplicate", MIX, _at("columns", 1, "name", value="g"), None, "duplicate"),
    ("mixed vocab order", MIX, _at("columns", T, "vocabulary", 0, value="zzz"), None, "sorted"),
    ("mixed categories", MIX, _at("columns", C, "categories", value=["x", "y"]), None, "shape"),
    (
        "mixed category types",
        MIX,
        _at("columns", C, "categories", value=["x", 1, "z"]),
        None,
        "only strings",
    ),  # fmt: skip
    ("mixed no columns", MIX, _at("columns", value=[]), None, "empty"),
    (
        "mixed bernoulli",
        MIX,
        None,
        _arr(f"columns/{B}/feature_count", lambda a: a + 5),
        "true values",
    ),  # fmt: skip
    ("mixed observed", MIX, None, _arr(f"columns/{G}/class_count", lambda a: a + 5), "exceeds"),
    ("mixed negative m2", MIX, None, _arr(f"columns/{G}/m2", lambda a: a - 5), "negative"),
    (
        "mixed kde unsorted",
        MIX,
        None,
        _arr(f"columns/{K}/values", lambda a: a[::-1].copy()),
        "sorted",
    ),  # fmt: skip
    (
        "mixed poisson shape",
        MIX,
        None,
        _arr(f"columns/{P}/feature_count", lambda a: a.T.copy()),
        "shape",
    ),  # fmt: skip
    (
        "mixed extra array",
        MIX,
        None,
        lambda a: a.update({"columns/9/x": np.zeros(1)}),
        "no model reads",
    ),  # fmt: skip
    (
        "mixed prior",
        MIX,
        _at(
            "hyperparameters",
            "class_prior",
            value={"type": "list", "dtype": "float64", "values": [1.0]},
        ),
        None,
        "1 priors",
    ),  # fmt: skip
]


@pytest.mark.parametrize(("name", "model", "change", "arrays_change", "match"), INVALID,
                         ids=[c[0] for c in INVALID])  # fmt: skip
def test_invalid_content_is_a_model_file_error(
    tmp_path: Path, name: str, model: Any, change: Any, arrays_change: Any, match: str
) -> None:
    path = edit(tmp_path, model, change, arrays_change)
    with pytest.raises(ModelFileError, match=match) as info:
        load(path)
    assert str(path) in str(info.value)


def test_unchanged_edit_loads(tmp_path: Path) -> None:
    """The editing helper itself keeps a valid file valid."""
    assert_same_model(MIX, load(edit(tmp_path, MIX)), MIX_X)


MIX_X = pd.DataFrame(
    {"g": [1.0, None], "c": ["x", "w"], "t": ["free lunch", None], "b": [True, None],
     "k": [0.7, 9.0], "p": [3, 4]}
)  # fmt: skip


# --------------------------------------------------------------------------------------
# fuzzing
# --------------------------------------------------------------------------------------


def corpus(tmp_path: Path) -> list[bytes]:
    out = []
    for model in (KNB, CASES[1][1], MIX, CASES[6][1]):
        path = tmp_path / "c.nbayes"
        save(model, path)
        out.append(path.read_bytes())
    return out


def test_fuzz_resealed_mutations(tmp_path: Path) -> None:
    """Hostile-but-well-formed files of the new model types: only ModelFileError escapes."""
    cases, loaded = fuzz_resealed(tmp_path, corpus(tmp_path), rounds=300, seed=7)
    assert cases >= 1200
    assert loaded > 0


def test_fuzz_truncations_and_bit_flips(tmp_path: Path) -> None:
    rng = random.Random(8)
    for original in corpus(tmp_path)[2:3]:
        for _ in range(150):
            mutant = bytearray(original)
            if rng.random() < 0.5:
                del mutant[rng.randrange(len(mutant)) :]
            else:
                mutant[rng.randrange(len(mutant))] ^= 1 << rng.randrange(8)
            assert try_load(tmp_path, bytes(mutant)) is None


def test_pandas_3_strings_read_by_pandas_2_save_back(monkeypatch: pytest.MonkeyPatch) -> None:
    # pandas 2 reads the dtype name "str" (pandas 3's strings) as numpy's '<U': a MixedNB
    # of a pandas 3 file then could not be saved (a run on pandas 2.3)
    from nbayes.io.serializers import mixed

    real = pd.api.types.pandas_dtype
    monkeypatch.setattr(
        pd.api.types, "pandas_dtype", lambda name: np.dtype("<U") if name == "str" else real(name)
    )
    dtype = mixed._decode_dtype({"lib": "pandas", "name": "str"}, "pandas", "dtypes[0]")
    assert str(dtype) in mixed._PANDAS_DTYPES  # (savable: pandas 2.3's StringDtype of NaN)
