"""``nbayes serve``: a model as an HTTP service (docs/serve.md).

Serve MODEL on Starlette and uvicorn (pip install 'nbayes[serve]'): POST /predict,
/explain, /update and /forget; GET / (a page to try it), /health, /info and /metrics.
Updates are journaled beside the model before they are acknowledged, and folded into it.

Example:
  nbayes serve spam.nbayes
  nbayes serve spam.nbayes --host 0.0.0.0 --port 8080 --token "$TOKEN" --workers 2
"""

from __future__ import annotations

import argparse

from nbayes.cli._common import UI
from nbayes.serve import add_arguments

__all__ = ["add_arguments", "run"]


def run(args: argparse.Namespace, ui: UI) -> int:
    from nbayes.serve import run as serve

    interrupts = getattr(args, "interrupts", None)
    # the server's Ctrl-C is its own, a stop that folds, once it serves; while it loads the
    # model and replays its journal, Ctrl-C and SIGTERM stop it as they stop any command
    return serve(args, before_serving=None if interrupts is None else interrupts.release)
