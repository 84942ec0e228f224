"""Pickles of the version before the named caches (issue 25, item 5) load: the caches they
hold as tuples are dropped (derived again on first use) or mapped to the named values.

``tests/data/pickles/text-caches-90242be.pkl`` was written by nbayes at main 90242be with
``MAKER`` below (run by that version's Python, the file's path as its argument).
"""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

from nbayes import TextClassifier
from nbayes._template.base import Cached
from nbayes.text.classifier import HeldOutRows, Recounting

PICKLE = Path(__file__).resolve().parents[1] / "data" / "pickles" / "text-caches-90242be.pkl"

MAKER = """
import pickle, sys
import numpy as np
from nbayes import TextClassifier, MultinomialNB

docs = ["free money now", "free prize inside", "lunch at noon", "see you at lunch",
        "win a free prize", "meeting moved to noon"]
y = ["spam", "spam", "ham", "ham", "spam", "ham"]
probe = ["free lunch", "prize money at noon", "nothing known here"]

derived = TextClassifier().fit(docs, y)
derived.predict_proba(probe)  # the derivation cache (_cache) and _selection_cache
state = derived.__getstate__()
state["_cache"] = derived.__dict__["_cache"]  # as a version that pickled them would
state["_selection_cache"] = derived.__dict__["_selection_cache"]
recounting = TextClassifier().fit(docs, y).set_params(binary=True)
memo = TextClassifier().fit(docs, y)
memo._transform_memo = []
memo.predict_proba(probe)
mnb = MultinomialNB().fit(np.array([[2, 0, 1], [0, 3, 1], [1, 1, 0]]), ["a", "b", "a"])
TextClassifier.__getstate__ = lambda self: state
with_caches = pickle.dumps(derived, protocol=4)
del TextClassifier.__getstate__
out = {
    "version": "main 90242be", "derived": with_caches, "recounting": recounting,
    "memo": memo, "multinomial": mnb, "probe": probe,
    "proba": {"derived": derived.predict_proba(probe),
              "memo": TextClassifier().fit(docs, y).predict_proba(probe),
              "multinomial": mnb.predict_proba(np.array([[1, 1, 1]]))},
}
with open(sys.argv[1], "wb") as f:
    pickle.dump(out, f, protocol=4)
"""


@pytest.fixture(scope="module")
def saved() -> dict:
    with PICKLE.open("rb") as f:
        out: dict = pickle.load(f)  # noqa: S301 - our own test file
    assert out["version"] == "main 90242be"
    return out


def _same(got: np.ndarray, stored: np.ndarray) -> None:
    """The probabilities stored when the file was made (numpy 2.x), to the last bits: numpy
    1.26's exp and log differ from 2.x's by an ulp (tested on both)."""
    np.testing.assert_allclose(got, stored, rtol=1e-14, atol=1e-15)


def test_tuple_caches_are_dropped_and_derived_again(saved: dict) -> None:
    old = pickle.loads(saved["derived"])  # noqa: S301 - our own test file
    assert "_cache" not in old.__dict__ and "_selection_cache" not in old.__dict__
    _same(old.predict_proba(saved["probe"]), saved["proba"]["derived"])
    assert isinstance(old.__dict__["_cache"], Cached)
    assert isinstance(old.__dict__["_selection_cache"], Cached)
    assert "free" in old.explain("free lunch").feature_names


def test_the_template_drops_its_tuple_cache(saved: dict) -> None:
    mnb = saved["multinomial"]
    assert "_cache" not in mnb.__dict__
    _same(mnb.predict_proba(np.array([[1, 1, 1]])), saved["proba"]["multinomial"])
    assert isinstance(mnb.__dict__["_cache"], Cached)


def test_settings_changed_since_the_fit_are_mapped_and_still_refuse(saved: dict) -> None:
    old = saved["recounting"]
    counted = old.__dict__["_recounting"]
    assert isinstance(counted, Recounting)
    assert counted.changed == ("binary",) and counted.clip is False
    assert counted.settings["binary"] is False
    with pytest.raises(ValueError, match="binary changed since this model was fitted"):
        old.update(["free"], ["spam"])
    old.set_params(binary=False)  # set back: it counts again
    assert "_recounting" not in old.__dict__
    old.update(["free"], ["spam"])


def test_a_model_selection_memo_of_tuples_is_dropped(saved: dict) -> None:
    old = saved["memo"]
    assert "_transform_memo" not in old.__dict__ and "_memo_given" not in old.__dict__
    assert old._transform_memo is None  # no memo: scores without one
    _same(old.predict_proba(saved["probe"]), saved["proba"]["memo"])


def test_a_memo_counts_held_out_documents_once_per_vocabulary() -> None:
    docs = ["free money now", "free prize", "lunch at noon", "see you at lunch"]
    clf = TextClassifier().fit(docs, ["s", "s", "h", "h"])
    clf._transform_memo = []  # what nbayes.text._cv does on its own model
    memo = clf.__dict__["_held_out"]
    assert isinstance(memo, HeldOutRows)
    held_out = ["free lunch", "prize at noon"]
    first = clf.predict_joint_log_proba(held_out)
    assert len(memo.counted) == 1 and memo.counted[0].given is held_out
    rows = memo.counted[0].rows
    clf.set_params(alpha=0.5)  # another smoothing, the same kept vocabulary: no recount
    clf.predict_joint_log_proba(held_out)
    assert len(memo.counted) == 1 and memo.counted[0].rows is rows
    assert memo.given is None and memo.docs is None  # taken by the prediction
    other = TextClassifier(alpha=0.5).fit(docs, ["s", "s", "h", "h"])
    np.testing.assert_array_equal(
        clf.predict_joint_log_proba(held_out), other.predict_joint_log_proba(held_out)
    )
    clf.set_params(alpha=1.0)
    np.testing.assert_array_equal(clf.predict_joint_log_proba(held_out), first)
    # documents _check_X did not see (a direct call) are counted, never matched by identity
    direct = clf._joint_log_likelihood(["free money"])
    np.testing.assert_array_equal(direct, clf.predict_joint_log_proba(["free money"]))
    assert all(c.given is not None for c in memo.counted)


def test_new_pickles_hold_no_derivation_and_keep_the_named_values() -> None:
    clf = TextClassifier().fit(["free money", "lunch at noon"], ["s", "h"])
    clf.predict(["free lunch"])
    clf.set_params(lowercase=False)
    copy = pickle.loads(pickle.dumps(clf))  # noqa: S301 - our own pickle
    assert "_cache" not in copy.__dict__ and "_selection_cache" not in copy.__dict__
    assert copy.__dict__["_recounting"] == clf.__dict__["_recounting"]
    with pytest.raises(ValueError, match="lowercase changed"):
        copy.update(["free"], ["s"])
