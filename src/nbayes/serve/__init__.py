"""``nbayes serve``: a model as an HTTP service, with online learning and a page.

``nbayes serve MODEL [--host 127.0.0.1] [--port 8000] [--token TOKEN] [--workers N]``
(or ``python -m nbayes.serve MODEL ...``) serves a model file on Starlette and uvicorn
(``pip install 'nbayes[serve]'``):

* ``GET /health``, ``GET /info`` (kind, classes and counts, vocabulary, hyperparameters);
* ``POST /predict`` ``{"texts": [...]}`` or ``{"rows": [{column: value}, ...]}``, optional
  ``"top": n`` -> ``{"predictions": [{"label": ..., "probabilities": {...}}, ...]}``;
* ``POST /explain`` ``{"text": ...}`` or ``{"row": {...}}``, optional ``"exact": true``;
* ``POST /update`` and ``POST /forget`` ``{"texts" | "rows": [...], "labels": [...]}``:
  acknowledged once journaled and fsync-ed beside the model (``MODEL.journal``), folded
  into the model file atomically from time to time and at shutdown;
* ``GET /`` a page to try the model, ``GET /metrics`` (Prometheus text).

See docs/serve.md. The CLI wires the subcommand with :func:`add_arguments` and
:func:`run`.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse

    from nbayes.serve.server import HandOver

__all__ = ["add_arguments", "main", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``nbayes serve`` (the CLI's subcommand and ``python -m``)."""
    from nbayes._flags import count_type, seconds_type, size_type  # (not for the journal's

    # readers: `nbayes filter` of a served model imports nbayes.serve.journal, not argparse)
    parser.add_argument("model", metavar="MODEL", help="model file (updated in place)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1)")  # fmt: skip
    parser.add_argument("--port", type=count_type(0, 65535), default=8000,
                        help="port to listen on; 0 picks a free one (default 8000)")  # fmt: skip
    parser.add_argument(
        "--token", default=os.environ.get("NBAYES_SERVE_TOKEN"),
        help="/update and /forget need 'Authorization: Bearer TOKEN' (default: the "
        "NBAYES_SERVE_TOKEN environment variable; beyond loopback writes need one)",
    )  # fmt: skip
    parser.add_argument("--workers", type=count_type(1), default=1, metavar="N",
                        help="worker processes (default 1; see docs/serve.md)")  # fmt: skip
    parser.add_argument(
        "--max-body", type=size_type, default=10 * 1024 * 1024, metavar="SIZE",
        help="largest request body (default 10M); larger ones get 413",
    )  # fmt: skip
    parser.add_argument(
        "--max-buffered", type=size_type, default=256 * 1024 * 1024, metavar="SIZE",
        help="request bodies one worker holds in memory at once, across connections "
        "(default 256M; at least --max-body): a request beyond gets 503 with Retry-After",
    )  # fmt: skip
    parser.add_argument(
        "--max-update", type=count_type(1), default=10_000, metavar="N",
        help="most messages, texts or rows one /update or /forget may hold (default "
        "10000): a write is never stopped half way, and every read waits for it (10,000 "
        "mails: ~0.7 s); more get 422",
    )  # fmt: skip
    parser.add_argument(
        "--max-seconds", type=seconds_type, default=10.0, metavar="S",
        help="time budget of a request that reads the model (/predict, /explain, /filter, "
        "/info): "
        "one that needs more is stopped and gets 422 (default 10)",
    )  # fmt: skip
    parser.add_argument(
        "--allow-host", action="append", default=[], metavar="NAME",
        help="a name the server answers to in the Host header besides localhost and IP "
        "addresses (repeatable; '*' for any): other names get 421 (DNS rebinding)",
    )  # fmt: skip
    parser.add_argument(
        "--idle-seconds", type=seconds_type, default=10.0, metavar="S",
        help="close a connection that sends no complete request for S seconds (default 10)",
    )  # fmt: skip
    parser.add_argument(
        "--fold-every", type=count_type(1), default=1000, metavar="N",
        help="fold the journal into the model file after N updates (default 1000)",
    )  # fmt: skip
    parser.add_argument(
        "--fold-seconds", type=seconds_type, default=60.0, metavar="S",
        help="... or S seconds after the first unfolded update (default 60)",
    )  # fmt: skip
    parser.add_argument("--log-level", default="warning",
                        choices=("critical", "error", "warning", "info", "debug"))  # fmt: skip


def run(
    args: argparse.Namespace,
    before_serving: HandOver | None = None,
) -> int:
    """Serve until SIGTERM or Ctrl-C; the exit status (0 after a clean shutdown).

    ``before_serving(handler)`` is called once the model is loaded and its journal
    replayed: it puts ``handler``, the server's stop, in place of the caller's handling of
    the signals (the CLI's: one line, and the process ends by the signal), with no moment
    between the two, and returns the handlers to restore when the server has stopped."""
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        import sys

        print("nbayes serve needs Starlette and uvicorn: pip install 'nbayes[serve]'",
              file=sys.stderr)  # fmt: skip
        return 2
    from nbayes.serve.server import serve

    return serve(
        args.model, host=args.host, port=args.port, token=args.token, workers=args.workers,
        max_body=args.max_body, fold_every=args.fold_every, fold_seconds=args.fold_seconds,
        log_level=args.log_level, max_seconds=args.max_seconds, allow_hosts=args.allow_host,
        idle_seconds=args.idle_seconds, max_buffered=args.max_buffered,
        max_update=args.max_update, before_serving=before_serving,
    )  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """``python -m nbayes.serve MODEL ...``"""
    import argparse

    parser = argparse.ArgumentParser(
        prog="nbayes serve", description="Serve a model over HTTP (docs/serve.md)."
    )
    add_arguments(parser)
    return run(parser.parse_args(argv))
