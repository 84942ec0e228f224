"""Collection rules for the whole tree (tests/ and the doctests of src/nbayes).

The examples in ``nbayes.plot``'s docstrings draw with matplotlib, an optional
dependency (the ``[plot]`` extra): without it they are not collected, so a docstring
shows the example as a user runs it, without a skip line.
"""

from __future__ import annotations

import importlib.util

collect_ignore_glob = [] if importlib.util.find_spec("matplotlib") else ["src/nbayes/plot/*.py"]
