"""The argument parser of ``nbayes`` (:func:`nbayes.cli.build_parser`): its own error
line, ``--version`` read only when asked for, a sub-parser per command. Apart from
:mod:`nbayes.cli`, so that ``nbayes filter`` (parsed by its own module) imports no
argparse."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["build"]


def _version() -> str:
    from nbayes import __version__

    return str(__version__)


class _VersionAction(argparse.Action):
    """``--version``: the installed version, read (from the package metadata, ~25 ms)
    only when asked for, not by every command's parser."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 default: Any = argparse.SUPPRESS, help: str | None = None) -> None:  # fmt: skip
        super().__init__(option_strings, dest, nargs=0, default=default,
                         help=help or "show the version of nbayes and exit")  # fmt: skip

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        print(f"nbayes {_version()}")  # on stdout, as argparse's own version action
        parser.exit(0)


class _Parser(argparse.ArgumentParser):
    """Bad arguments are one ``Error: ...`` line naming the flag (exit status 2), as the
    other errors are; the usage is one ``-h`` away. ``commands``: the parser of each
    command (name -> parser), where this one has them."""

    commands: Mapping[str, argparse.ArgumentParser] = {}

    def error(self, message: str) -> Any:
        self.exit(2, f"Error: {message} (see `{self.prog} -h`).\n")

    def parse_args(self, args: Any = None, namespace: Any = None) -> Any:
        """As argparse's, but an unknown flag of a command points to that command's help
        (``nbayes train -h``: where its flags are), not to ``nbayes -h``."""
        parsed, extras = self.parse_known_args(args, namespace)
        command = getattr(parsed, "command", None)
        sub = self.commands.get(command) if command is not None else None
        if extras and sub is not None and any(not e.startswith("-") or e == "-" for e in extras):
            # a positional after a flag (`nbayes predict MODEL --proba DATA`): argparse
            # ends a command's list of positionals (DATA) at the first flag after MODEL,
            # and said "unrecognized arguments: DATA"; the command's own parser reads
            # flags and positionals intermixed
            argv = list(sys.argv[1:] if args is None else args)
            try:
                again = sub.parse_intermixed_args(argv[argv.index(command) + 1 :])
            except TypeError:  # (a parser it cannot intermix)
                pass
            else:
                again.command = command
                return again
        if extras:
            prog = self.prog if command is None else f"{self.prog} {command}"
            self.exit(2, f"Error: unrecognized arguments: {' '.join(extras)} (see `{prog} -h`).\n")
        return parsed


def build(
    summaries: Mapping[str, str],
    command_module: Callable[[str], Any],
    commands: Sequence[str] | None = None,
) -> argparse.ArgumentParser:
    """The argument parser of ``nbayes`` with every command of ``summaries`` (name ->
    the listing's summary; ``command_module(name)`` its module); with ``commands``, only
    those get their full parser, the others are listed but take no arguments."""
    from nbayes.cli._common import command_parser

    parser = _Parser(
        prog="nbayes",
        description=(
            "Naive Bayes from sufficient statistics: train, evaluate, explain and update "
            "models from the command line."
        ),
        epilog=(
            "Example:\n"
            "  nbayes demo                                   # spam filter on bundled SMS data\n"
            "  nbayes train reviews.csv -o reviews.nbayes    # columns text,label\n"
            '  nbayes explain reviews.nbayes "loved every minute"\n'
            "  nbayes tune reviews.csv --alpha 0.1,0.5,1       # cross-validated alpha\n"
            "  nbayes train table.csv -o t.nbayes --model mixed --label-col y\n"
            "  nbayes plot t.nbayes --column age -o age.png\n"
            "  nbayes plot reviews.nbayes --words -o words.png          # strongest words\n"
            "  nbayes plot reviews.nbayes --reliability test.csv -o r.png  # calibration\n\n"
            "Run `nbayes COMMAND -h` for the options of a command."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_VersionAction)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    parser.commands = subparsers.choices
    full = tuple(summaries) if commands is None else tuple(commands)
    for name, summary in summaries.items():
        if name in full:
            command_parser(subparsers, name, summary, command_module(name))
        else:
            subparsers.add_parser(name, help=summary)
    return parser
