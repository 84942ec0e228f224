"""The registry of kinds: each likelihood family as MixedNB, model files, plots and the
command line use it (see :mod:`nbayes._families.kinds`, where they are defined).

Add a family to all of them with one line::

    from nbayes.kinds import register_kind
    register_kind(MyKind())   # a Kind: its name, family, statistics, codec, estimator
"""

from __future__ import annotations

from ._families import kinds as _kinds
from ._families.kinds import *  # noqa: F403  (the public face re-exports the registry)

__all__ = list(_kinds.__all__)
