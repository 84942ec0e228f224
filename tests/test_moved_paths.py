"""Modules that moved into packages keep their old import paths, and pickles of earlier
versions load (``nbayes._compat``).

``tests/data/pickles/nbayes-0.2.0.pkl`` was written by nbayes 0.2.0 (main at 3b375bd, before
the template, the statistics and MixedNB's parts moved into packages): its classes are named
by their old modules (``nbayes._stats.CountStats``, ``nbayes._mixed_columns...``).
"""

from __future__ import annotations

import importlib
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from nbayes._compat import MOVED

PICKLE = Path(__file__).parent / "data" / "pickles" / "nbayes-0.2.0.pkl"

#: names that code imported from the old modules
OLD_NAMES = {
    "nbayes._base": ["BaseNB", "PosteriorMixin", "log_normalize"],
    "nbayes._posterior": ["PosteriorMixin", "log_normalize"],
    "nbayes._reading": ["ReadingMixin"],
    "nbayes._params": ["hyperparameters", "validate", "same_value", "Rule"],
    "nbayes._validation": ["check_sample_weight", "feature_names"],
    "nbayes._guards": ["all_or_nothing", "restored_on_failure"],
    "nbayes._array_api": ["ArrayAPIOutputs"],
    "nbayes._sklearn_bases": ["BaseEstimator", "ClassifierMixin"],
    "nbayes._stats": [
        "CountStats", "CategoryStats", "MomentStats", "readonly", "class_codes",
        "union_classes", "conform_classes", "issparse",
    ],
    "nbayes._moment_stats": ["MomentStats"],
    "nbayes._kernel_stats": ["PointStats", "grid_width"],
    "nbayes._mixed_columns": ["MixedFamily", "column_stats", "empty_column"],
    "nbayes._mixed_stats": ["MixedStats"],
    "nbayes._mixed_table": ["infer_family", "FAMILIES"],
    "nbayes._mixed_text": ["TextStats"],
    "nbayes.scoring": ["TextScorer", "FAMILIES", "CountRows"],
    "nbayes.text._chars": ["char_table", "word_table", "zero_copy_docs", "_MAX_CP"],
    "nbayes.text._threads": ["default_threads", "PARALLEL_MIN_CHARS", "_map", "_chunks"],
    "nbayes.text._direct": ["DirectCounts", "Terms", "direct_count", "_decode_terms"],
    "nbayes.text._lookup": [
        "FrozenVocabulary", "TermColumns", "build_lookup", "direct_transform", "order_rows",
    ],
    "nbayes.text._copying": [
        "InternState", "encode_corpus", "pair_ids", "first_occurrence", "build_rows",
        "stream_class_sums", "ngram_order", "_SINGLE",
    ],
    "nbayes.text._counting": ["count_rows", "_Analysis", "_check_ngram"],
    "nbayes.text._ngrams": ["ComposedNgrams"],
    "nbayes.text._hashing": ["direct_hash", "direct_hash_transform"],
    "nbayes.text._class_counts": [
        "count_by_class", "transform_counts", "count_terms", "as_configured", "stop_set",
    ],
    "nbayes.text._hash_counts": ["hash_by_class", "hash_into", "hashing_transform"],
    "nbayes.text._scoring": ["csr_dot"],
}  # fmt: skip


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_module_name_is_the_new_module(old: str) -> None:
    module = importlib.import_module(old)
    assert module is importlib.import_module(MOVED[old])
    assert module.__spec__ is not None and module.__spec__.name == MOVED[old]
    for name in OLD_NAMES[old]:
        assert hasattr(module, name), f"{old}.{name}"


def test_every_moved_module_is_listed() -> None:
    assert set(OLD_NAMES) == set(MOVED)


def test_old_names_work_in_a_fresh_interpreter() -> None:
    """``from nbayes._stats import CountStats`` as the first import of a process (the
    finder is installed by importing the parent package)."""
    code = (
        "from nbayes._stats import CountStats, MomentStats\n"
        "import nbayes._base, nbayes.scoring\n"
        "from nbayes._statistics import CountStats as C\n"
        "assert CountStats is C and nbayes._base.BaseNB.__module__ == 'nbayes._template.base'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_pickles_of_nbayes_0_2_0_load_and_predict_alike() -> None:
    with PICKLE.open("rb") as f:
        saved = pickle.load(f)  # noqa: S301 - our own test file
    assert saved["version"] == "0.2.0"
    probe = saved["probe"]
    for name, model in saved["models"].items():
        if name == "text":
            arg = probe["docs"]
        elif name in ("gaussian", "kernel"):
            arg = probe["Xg"]
        elif name == "mixed":
            arg = probe["table"]
        else:
            arg = probe["X"]
        np.testing.assert_allclose(model.predict_proba(arg), saved["proba"][name], rtol=1e-12)
        # and they keep learning: an update is the template's
        if name not in ("text", "mixed"):
            model.update(arg, model.predict(arg))


def test_pickles_naming_the_old_driver_modules_load() -> None:
    """A vocabulary pickled when the drivers were loose modules of nbayes.text (its class
    named ``nbayes.text._lookup.FrozenVocabulary``) loads as today's class."""
    from nbayes.text._drivers.lookup import FrozenVocabulary

    now = pickle.dumps(FrozenVocabulary({"cat": 0, "dog": 1}), protocol=0)
    assert b"nbayes.text._drivers.lookup" in now
    old = now.replace(b"nbayes.text._drivers.lookup", b"nbayes.text._lookup")
    got = pickle.loads(old)  # noqa: S301 - made here
    assert type(got) is FrozenVocabulary and got == {"cat": 0, "dog": 1}


def test_old_driver_paths_work_in_a_fresh_interpreter() -> None:
    """What tests and scripts of nbayes 0.2 import, as the first import of a process."""
    code = (
        "from nbayes.text import _tokenize as tk, _direct, _counting, _copying\n"
        "from nbayes.text._class_counts import count_by_class\n"
        "from nbayes.text._drivers.class_counts import count_by_class as c\n"
        "assert count_by_class is c and _counting is _copying\n"
        "assert tk.direct_count is _direct.direct_count\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
