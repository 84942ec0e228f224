"""The registry of kinds: each likelihood family as MixedNB, model files, plots and the
command line use it (see :mod:`nbayes._families.kinds`, where they are defined).

Add a family to all of them with one line::

    from nbayes.kinds import register_kind
    register_kind(MyKind())   # a Kind: its name, family, statistics, codec, estimator
"""

from __future__ import annotations

from ._families.kinds import (
    ArraysCodec,
    Codec,
    Head,
    Kind,
    Marginal,
    column_kinds,
    kind,
    kind_of_family,
    kinds,
    register_kind,
)

__all__ = [
    "ArraysCodec",
    "Codec",
    "Head",
    "Kind",
    "Marginal",
    "column_kinds",
    "kind",
    "kind_of_family",
    "kinds",
    "register_kind",
]
