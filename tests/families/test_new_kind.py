"""A new family needs its statistics, family, estimator and one registry line.

``examples/zero_inflated_poisson.py`` defines a zero-inflated Poisson in those four parts
and nothing else; here it works in MixedNB, the command line, model files and plots.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from nbayes.cli import main
from nbayes.io.persist import load, save
from nbayes.kinds import column_kinds, kind
from nbayes.mixed import MixedNB

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "zero_inflated_poisson.py"


@pytest.fixture(scope="module")
def zip_() -> Iterator[Any]:
    """The example module, its kind registered for this module's tests only."""
    from nbayes._families import kinds
    from nbayes.io import _registry

    before = dict(kinds._KINDS)
    spec = importlib.util.spec_from_file_location("zero_inflated_poisson", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)  # registers the kind
    yield module
    kinds._KINDS.clear()
    kinds._KINDS.update(before)
    _registry._REGISTRY.pop("ZeroInflatedPoissonNB", None)
    del sys.modules[spec.name]


def _data(n: int = 300, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Class a: 70 % structural zeros, else Poisson(4); class b: Poisson(1.5)."""
    rng = np.random.default_rng(seed)
    y = np.where(np.arange(n) % 2 == 0, "a", "b")
    a = np.where(rng.random(n) < 0.7, 0, rng.poisson(4.0, n))
    b = rng.poisson(1.5, n)
    visits = np.where(y == "a", a, b).astype(np.float64)
    return np.column_stack([visits, rng.poisson(2.0, n)]), y


def test_the_registry_knows_the_new_kind(zip_: Any) -> None:
    assert "zip" in column_kinds()
    assert isinstance(kind("zip").family, zip_.ZIPFamily)


def test_the_estimator_learns_the_zero_inflation(zip_: Any) -> None:
    X, y = _data(4000)
    clf = zip_.ZeroInflatedPoissonNB().fit(X, y)
    d = clf._derived()
    assert d["pi"][0, 0] == pytest.approx(0.7, abs=0.05)  # class a, feature 0
    assert d["lam"][0, 0] == pytest.approx(4.0, rel=0.1)
    assert d["pi"][1, 0] < 0.05 and d["lam"][1, 0] == pytest.approx(1.5, rel=0.1)
    # the algebra of the statistics: fit = partial fits; unlearning undoes a batch
    half = zip_.ZeroInflatedPoissonNB().partial_fit(X[:2000], y[:2000], classes=["a", "b"])
    half.partial_fit(X[2000:], y[2000:])
    np.testing.assert_allclose(half.predict_log_proba(X[:50]), clf.predict_log_proba(X[:50]))
    half.unlearn(X[2000:], y[2000:])
    first = zip_.ZeroInflatedPoissonNB().fit(X[:2000], y[:2000])
    np.testing.assert_allclose(half.predict_log_proba(X[:50]), first.predict_log_proba(X[:50]))


def _frame(n: int = 300) -> tuple[Any, np.ndarray]:
    pd = pytest.importorskip("pandas")
    X, y = _data(n)
    df = pd.DataFrame({"visits": X[:, 0].astype(np.int64), "height": X[:, 1] + 0.5})
    return df, y


def test_mixed_takes_a_zip_column(zip_: Any) -> None:
    df, y = _frame()
    model = MixedNB({"visits": "zip"}).fit(df, y)
    assert model.families_ == {"visits": "zip", "height": "gaussian"}
    alone = zip_.ZeroInflatedPoissonNB().fit(df[["visits"]].to_numpy(), y)
    # the column's term is the estimator's log-likelihood of the same data
    col = model._family.column(model._derived(), 0)
    got = col.log_likelihood(df["visits"].to_numpy().astype(float), np.zeros(len(y), bool))
    want = (
        alone.predict_joint_log_proba(df[["visits"]].to_numpy())
        - alone._derived()["class_log_prior"]
    )
    np.testing.assert_allclose(got, want, rtol=1e-12)
    Xs, ys = model.sample(20, random_state=0)
    assert list(Xs.columns) == ["visits", "height"] and (Xs["visits"] >= 0).all()
    with pytest.raises(ValueError, match="zip .count. column but holds the negative value"):
        MixedNB({"visits": "zip"}).fit(df.assign(visits=-df["visits"] - 1), y)


def test_model_files_keep_zip_models(zip_: Any, tmp_path: Path) -> None:
    df, y = _frame()
    for name, model, X in (
        ("mixed", MixedNB({"visits": "zip"}).fit(df, y), df),
        ("zip", zip_.ZeroInflatedPoissonNB().fit(df.to_numpy(), y), df.to_numpy()),
    ):
        path = tmp_path / f"{name}.nbayes"
        save(model, path)
        back = load(path)
        assert type(back) is type(model)
        np.testing.assert_array_equal(back.predict_log_proba(X), model.predict_log_proba(X))
        again = tmp_path / f"{name}2.nbayes"
        save(back, again)
        assert again.read_bytes() == path.read_bytes()


def test_the_cli_trains_zip_models(
    zip_: Any, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    df, y = _frame()
    csv = tmp_path / "visits.csv"
    df.assign(y=y).to_csv(csv, index=False)
    out = tmp_path / "zip.nbayes"
    argv = ["train", str(csv), "-o", str(out), "--model", "zip", "--label-col", "y", "-q"]
    assert main(argv) == 0
    assert type(load(out)) is zip_.ZeroInflatedPoissonNB
    assert main(["predict", str(out), str(csv), "--label-col", "y"]) == 0
    mixed = tmp_path / "mixed.nbayes"
    argv = ["train", str(csv), "-o", str(mixed), "--model", "mixed", "--columns", "visits=zip",
            "--label-col", "y", "-q"]  # fmt: skip
    assert main(argv) == 0
    assert load(mixed).families_["visits"] == "zip"
    capsys.readouterr()
    assert main(["train", "--help"]) == 0
    help_text = capsys.readouterr().out
    assert "zip" in help_text.split("--model")[1].split("--input")[0]  # a --model choice
    assert "bernoulli, text, zip" in " ".join(help_text.split())  # a --columns family
    code = main(["train", str(csv), "-o", str(out), "--model", "zip", "--bandwidth", "1"])
    err = capsys.readouterr().err
    assert code == 1 and "--bandwidth applies to --model kernel and mixed only" in err


def test_plots_draw_zip_columns(zip_: Any, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from nbayes.plot import marginals

    df, y = _frame()
    for model, column in (
        (MixedNB({"visits": "zip"}).fit(df, y), "visits"),
        (zip_.ZeroInflatedPoissonNB().fit(df.to_numpy(), y), 0),
    ):
        ax = marginals(model, column)
        assert ax.get_ylabel() == "probability"
        bars = ax.patches
        assert len(bars) >= 2 * 5  # two classes, counts 0..4 at least
        ax.figure.savefig(tmp_path / "zip.png")
