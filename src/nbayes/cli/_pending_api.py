"""The command line's only reads of private model state, each awaiting a public accessor.

The CLI uses the public API of the estimators; these two facts about a fitted
:class:`nbayes.mixed.MixedNB` have none yet. Each function is the one place that reads
them: when ``MixedNB`` gains the accessor named in its docstring, its body becomes that
one line (and this module goes once it is empty).
"""

from __future__ import annotations

from typing import Any

__all__ = ["fitted_dtypes", "mixed_columns"]


def mixed_columns(model: Any) -> list[tuple[str, str, str, int | None]]:
    """``(name, family, why, size)`` per column of a fitted MixedNB: the family and why
    it was chosen (inferred from the values, or ``"given in columns="``), and the size of
    its table (categories, terms or stored points; None for the other families).

    Awaits, in nbayes.mixed, ``MixedNB.family_reasons_`` (column -> why, as ``families_``
    is column -> family) and ``MixedNB.column_sizes_`` (column -> that size or None).
    """
    stats = model._stats  # private: see the module docstring
    reasons = getattr(model, "_reasons", ["?"] * stats.n_features)
    out: list[tuple[str, str, str, int | None]] = []
    for name, family, column, why in zip(
        stats.names, stats.families, stats.columns, reasons, strict=True
    ):
        size = None
        if family == "categorical":
            size = len(column.categories[0])
        elif family == "text":
            size = len(column.vocabulary)
        elif family == "kde":
            size = len(column.values[0])
        out.append((str(name), str(family), str(why), size))
    return out


def fitted_dtypes(model: Any) -> list[Any] | None:
    """The pandas dtypes of the columns a MixedNB was fitted on, in column order; None
    when it was not fitted on a pandas DataFrame (or is not a MixedNB).

    Awaits ``MixedNB.dtypes_`` (None unless fitted on a pandas DataFrame) in nbayes.mixed.
    """
    if getattr(model, "_source", None) != "pandas":  # private: see the module docstring
        return None
    dtypes = getattr(model, "_dtypes", None)
    return None if dtypes is None else list(dtypes)
