"""Import paths of earlier nbayes versions, kept working after modules moved into packages.

``import nbayes._stats`` (or a pickle naming ``nbayes._stats.CountStats``) gives the module
that holds those names now (:mod:`nbayes._statistics`): the old name is an alias of the
new module, not a copy, so classes compare identical and pickles of every earlier version
load. :data:`MOVED` is the one table; :func:`install` (called by ``import nbayes``) adds
the finder that serves it.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

__all__ = ["MOVED", "install"]

#: old module name -> the module that holds its contents now
MOVED = {
    # the estimator template (nbayes 0.2)
    "nbayes._base": "nbayes._template.base",
    "nbayes._posterior": "nbayes._template.posterior",
    "nbayes._reading": "nbayes._template.reading",
    "nbayes._params": "nbayes._template.params",
    "nbayes._validation": "nbayes._template.validation",
    "nbayes._guards": "nbayes._template.guards",
    "nbayes._array_api": "nbayes._template.array_api",
    "nbayes._sklearn_bases": "nbayes._template.sklearn_bases",
    # the statistics
    "nbayes._stats": "nbayes._statistics",
    "nbayes._moment_stats": "nbayes._statistics.moments",
    "nbayes._kernel_stats": "nbayes._statistics.points",
    # MixedNB's parts
    "nbayes._mixed_columns": "nbayes.mixed._columns",
    "nbayes._mixed_stats": "nbayes.mixed._stats",
    "nbayes._mixed_table": "nbayes.mixed._table",
    # (a text column's statistics are now a text model's: nbayes.text._textstats.TextStats
    # reads the state of the old ones)
    "nbayes._mixed_text": "nbayes.mixed._stats",
    # the numpy-only scorer of text models
    "nbayes.scoring": "nbayes.text.scoring",
    # text's compiled drivers, one package (nbayes 0.2: loose modules of nbayes.text)
    "nbayes.text._chars": "nbayes.text._drivers.chars",
    "nbayes.text._threads": "nbayes.text._drivers.threads",
    "nbayes.text._direct": "nbayes.text._drivers.zero_copy",
    "nbayes.text._lookup": "nbayes.text._drivers.lookup",
    "nbayes.text._copying": "nbayes.text._drivers.token_streams",
    "nbayes.text._counting": "nbayes.text._drivers.token_streams",
    "nbayes.text._ngrams": "nbayes.text._drivers.ngrams",
    "nbayes.text._hashing": "nbayes.text._drivers.hashing",
    "nbayes.text._class_counts": "nbayes.text._drivers.class_counts",
    "nbayes.text._hash_counts": "nbayes.text._drivers.hash_counts",
    "nbayes.text._scoring": "nbayes.text._drivers.sparse_dot",
}


class _Alias:
    """Finder and loader of the old names: the module of an old name is the new module."""

    @classmethod
    def find_spec(
        cls, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname not in MOVED:
            return None
        return ModuleSpec(fullname, cls())  # type: ignore[arg-type]

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        module = importlib.import_module(MOVED[spec.name])
        # the import system sets __spec__ on the module it is given: keep the real one
        self._spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        module.__spec__ = self._spec

    def __repr__(self) -> str:
        return "<nbayes: import paths of earlier versions>"


def install() -> None:
    """Add the finder of :data:`MOVED` to ``sys.meta_path`` (once)."""
    if _Alias not in sys.meta_path:
        sys.meta_path.append(_Alias)
