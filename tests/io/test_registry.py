"""Tests of the table of model kinds (nbayes.io._registry): every estimator of nbayes has
its serializer module, imported statically and only when a model of its kind is saved or
read."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import nbayes
from nbayes.io import _registry, persist
from nbayes.io.persist import load, save
from nbayes.naive_bayes import MultinomialNB, PoissonNB

ESTIMATORS = (
    "BernoulliNB",
    "CategoricalNB",
    "ComplementNB",
    "GaussianNB",
    "KernelNB",
    "MixedNB",
    "MultinomialNB",
    "NBSVM",
    "PoissonNB",
    "SpamFilter",
    "TextClassifier",
    "SemiSupervisedNB",  # saved as its estimator_ (tests/test_semi_supervised.py)
)
SRC_IO = Path(_registry.__file__).parent


def test_every_estimator_has_a_serializer_of_its_own_class() -> None:
    assert sorted(_registry.BUILTIN) == sorted(ESTIMATORS)
    for model_type, serializers in _registry.BUILTIN.items():
        by_type = {s.model_type: s for s in serializers()}
        assert model_type in by_type, model_type
        assert by_type[model_type].cls is getattr(nbayes, model_type)
        # each module lists only types the table sends to it
        assert all(_registry.BUILTIN[t] is serializers for t in by_type)


def test_no_module_of_io_imports_by_name() -> None:
    for path in sorted(SRC_IO.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for needle in ("import_module", "__import__"):
            assert needle not in text, f"{path.relative_to(SRC_IO)} uses {needle}"


def _modules_after(code: str) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys; print(' '.join(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        check=True,
    )
    return set(proc.stdout.split())


def test_reading_imports_only_the_serializer_of_the_model(tmp_path: Path) -> None:
    path = tmp_path / "m.nbayes"
    save(MultinomialNB().fit([[1, 0], [0, 2]], ["a", "b"]), path)
    names = ("discrete", "gaussian", "categorical", "kernel", "mixed", "text")
    kinds = {f"nbayes.io.serializers.{name}" for name in names}

    seen = _modules_after(f"from nbayes.io.persist import read_metadata as r; r({str(path)!r})")
    assert not seen & kinds
    assert not {m.split(".")[0] for m in seen} & {"sklearn", "scipy", "pandas"}

    seen = _modules_after(f"from nbayes import load; load({str(path)!r})")
    assert seen & kinds == {"nbayes.io.serializers.discrete"}


def test_a_subclass_is_not_saved_as_its_parent(tmp_path: Path) -> None:
    class MultinomialNB(nbayes.MultinomialNB):  # same name, another class
        pass

    model = MultinomialNB().fit([[1, 0], [0, 2]], ["a", "b"])
    with pytest.raises(TypeError, match="Cannot save a .*MultinomialNB.*Register a serialiser"):
        save(model, tmp_path / "m.nbayes")
    assert not (tmp_path / "m.nbayes").exists()


def test_a_serializer_registered_by_hand_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_registry, "_REGISTRY", {})
    calls: list[str] = []

    def dump(model: Any, writer: persist.ArrayWriter) -> dict[str, Any]:
        calls.append("dump")
        writer.put("feature_count", model.feature_count_)
        return {"n": int(model.feature_count_.shape[1])}

    def load_poisson(d: dict[str, Any], reader: persist.ArrayReader) -> Any:
        calls.append("load")
        return reader.get("feature_count", shape=(None, d["n"]))

    persist.register("PoissonNB", PoissonNB, dump, load_poisson)
    # importing the count serializers (for a MultinomialNB) keeps the one registered above
    save(MultinomialNB().fit([[1, 0], [0, 2]], ["a", "b"]), tmp_path / "m.nbayes")
    path = tmp_path / "p.nbayes"
    save(PoissonNB().fit([[1, 0], [0, 2]], ["a", "b"]), path)
    assert isinstance(load(path), np.ndarray)
    assert calls == ["dump", "load"]


def test_a_scikit_learn_model_is_pointed_to_from_sklearn(tmp_path: Path) -> None:
    # "Register a serialiser with nbayes.io.persist.register" (a trial's): the conversion
    # is the advice, then nbayes.save
    from sklearn.naive_bayes import GaussianNB

    model = GaussianNB().fit([[1.0, 0.0], [0.0, 2.0]], ["a", "b"])
    with pytest.raises(TypeError, match=r"nbayes\.GaussianNB\.from_sklearn\(model\)"):
        save(model, tmp_path / "m.nbayes")
    save(nbayes.GaussianNB.from_sklearn(model), tmp_path / "m.nbayes")
