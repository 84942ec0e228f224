"""Predictions from many threads while another thread learns (issue 24, item 9).

The contract ("Threads" in docs/persistence.md... see BaseNB's docstring): predictions may run
in any number of threads, also while one thread runs learning calls; each prediction sees
the model before or after a learning call, never a mix, and the model keeps no stale
derivation afterwards. Learning calls themselves are not run concurrently.

A stress test: bounded work (a fixed number of updates), no timing assertions.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from nbayes import MultinomialNB, TextClassifier

BASE_DOCS = [f"lunch meeting today {i}" for i in range(40)] + [
    f"free prize money {i}" for i in range(40)
]
BASE_LABELS = ["ham"] * 40 + ["spam"] * 40
N_UPDATES = 25


def _new_docs(k: int) -> tuple[list[str], list[str]]:
    return [f"brandnew{k}word lunch", f"brandnew{k}word prize"], [f"class{k:02d}"] * 2


def _stress(model: Any, read: Any, update: Any) -> tuple[list[str], list[Any]]:
    errors: list[str] = []
    seen: list[Any] = []
    done = threading.Event()
    start = threading.Barrier(9)

    def reader() -> None:
        start.wait()
        while not done.is_set():
            try:
                seen.append(read(model))
            except Exception as exc:  # any exception is a failure of the contract
                errors.append(f"{type(exc).__name__}: {exc}")
                return

    threads = [threading.Thread(target=reader) for _ in range(8)]
    for t in threads:
        t.start()
    start.wait()
    try:
        for k in range(N_UPDATES):
            update(model, k)
    finally:
        done.set()
        for t in threads:
            t.join()
    return errors, seen


def test_text_predictions_in_8_threads_during_updates_with_new_classes() -> None:
    model = TextClassifier().fit(BASE_DOCS, BASE_LABELS)
    # the classes of each version: the base ones, then one more per update
    versions = {2 + k: {"ham", "spam", *(f"class{j:02d}" for j in range(k))} for k in range(26)}

    def read(m: TextClassifier) -> Any:
        labels, proba = m.predict_top(["free lunch prize brandnew3word"], n=100)
        m.predict(["free prize", "lunch today"])
        return labels[0].tolist(), proba[0]

    def update(m: TextClassifier, k: int) -> None:
        m.update(*_new_docs(k))

    errors, seen = _stress(model, read, update)
    assert not errors, errors[:3]
    assert seen
    for labels, proba in seen:  # each answer is one version's: its classes, all of them
        assert set(labels) == versions[len(labels)]
        assert abs(float(proba.sum()) - 1.0) < 1e-9
    # no stale derivation: the model answers as a model fitted on all the data
    docs, labels = list(BASE_DOCS), list(BASE_LABELS)
    for k in range(N_UPDATES):
        more, their = _new_docs(k)
        docs += more
        labels += their
    fresh = TextClassifier().fit(docs, labels)
    probe = [f"brandnew{N_UPDATES - 1}word", "free prize", "lunch"]
    np.testing.assert_allclose(model.predict_proba(probe), fresh.predict_proba(probe))
    assert f"brandnew{N_UPDATES - 1}word" in model.vocabulary_


def test_table_predictions_in_8_threads_during_updates_with_new_classes() -> None:
    rng = np.random.default_rng(0)
    X = rng.poisson(2.0, (60, 6)).astype(float)
    model = MultinomialNB().fit(X, np.arange(60) % 2)
    # the classes of each version: the base ones, then one more per update
    versions = {2 + k: [0, 1, *(100 + j for j in range(k))] for k in range(N_UPDATES + 1)}

    def read(m: MultinomialNB) -> Any:
        # each call is one version; two calls may see two (an update between them)
        proba = m.predict_proba(X[:5])
        labels, top = m.predict_top(X[:2], n=100)
        predicted = m.predict(X[:3])
        return proba, labels, top, predicted

    def update(m: MultinomialNB, k: int) -> None:
        m.update(X[:2] + k, [100 + k, 100 + k])

    errors, seen = _stress(model, read, update)
    assert not errors, errors[:3]
    assert seen
    for proba, labels, top in (s[:3] for s in seen):  # each answer one version's, whole
        assert proba.shape[1] in versions
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)
        assert labels.shape == top.shape and labels.shape[1] in versions
        assert sorted(labels[0].tolist()) == versions[labels.shape[1]]
    assert len(model.classes_) == 2 + N_UPDATES


def test_a_failed_update_in_another_thread_never_shows_an_unfitted_model() -> None:
    model = TextClassifier().fit(BASE_DOCS, BASE_LABELS)

    def read(m: TextClassifier) -> Any:
        return m.predict(["free prize"])[0]

    def update(m: TextClassifier, k: int) -> None:
        try:
            m.update(["hello there"], ["\udfff"])  # refused: restored every time
        except ValueError:
            pass
        m.update(*_new_docs(k))

    errors, seen = _stress(model, read, update)
    assert not errors, errors[:3]
    assert set(seen) == {"spam"}
