"""``python -m nbayes.serve MODEL [--host H] [--port P] [--token T] [--workers N]``."""

from __future__ import annotations

import sys

from nbayes.serve import main

if __name__ == "__main__":
    sys.exit(main())
