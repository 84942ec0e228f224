"""``python -m nbayes``: the nbayes command line."""

from __future__ import annotations

import sys

from nbayes.cli import main

if __name__ == "__main__":
    sys.exit(main())
