"""The ``nbayes`` command line: train, evaluate, explain and use Naive Bayes models.

Run ``nbayes -h`` (or ``python -m nbayes -h``) for the commands; every command has ``-h``
with an example. :func:`main` is the entry point; it returns the exit status: 0 on
success, 1 on an error (reported as one ``Error: ...`` line), 2 on bad arguments (one
``Error: ...`` line too), 130 when interrupted (Ctrl-C: one line, no model file changed;
143 after SIGTERM). Run as the ``nbayes`` program, an interrupted run that changed no file
ends by the signal instead, which the shell reports as the same number (a shell loop then
stops at Ctrl-C).

Examples
--------
>>> main(["info", "no-such-model.nbayes"])  # doctest: +SKIP
Error: No model file 'no-such-model.nbayes': train one first with `nbayes train`.
1
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib import import_module
from typing import TYPE_CHECKING, Any

from nbayes.cli._interrupt import Interrupts

if TYPE_CHECKING:
    import argparse

# This module imports the standard library only (numpy and the commands are imported by
# `main`, after it has taken over Ctrl-C): an interrupt during start-up is one line too.
# Not argparse either (nbayes.cli._parser, imported by every command but `filter`, which
# a mail delivery agent runs once per message: see nbayes.cli.filter).

__all__ = ["build_parser", "main"]

#: the commands, in the order ``nbayes -h`` lists them, with that listing's summary; each
#: is the module ``nbayes.cli.<name>`` (its docstring, ``add_arguments`` and ``run``: see
#: :func:`nbayes.cli._common.command_parser`), imported only when the command runs (or
#: shows its help), so ``nbayes predict`` loads no other command's dependencies
_SUMMARIES = {
    "demo": "train, evaluate and explain a spam filter on bundled data",
    "train": "learn a model from labelled data and save it",
    "predict": "classify documents or rows (CSV or JSON lines on stdout)",
    "eval": "evaluate a model on labelled data",
    "explain": "show each word's evidence for and against the prediction",
    "info": "describe a model file",
    "update": "learn more labelled data into a model (in place)",
    "forget": "unlearn labelled data from a model (in place)",
    "merge": "add up models trained on parts of the data into one",
    "filter": "a spam filter's verdict on a message (exit 0 spam, 1 ham, 2 unsure, 3 error)",
    "sample": "generate examples from a model",
    "tune": "cross-validate settings (alpha, n-grams, ...) and report the best",
    "plot": "draw a column per class (--column), the top words (--words), a confusion matrix "
    "(--confusion) or a reliability curve (--reliability): PNG, SVG, PDF",
    "serve": "serve a model over HTTP: predict, explain, update, forget, and a page",
}
COMMANDS = tuple(_SUMMARIES)


def command_module(name: str) -> Any:
    """The module of the command ``name`` (imported now)."""
    return import_module(f"nbayes.cli.{name}")


def build_parser(commands: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser of ``nbayes`` with every sub-command.

    With ``commands``, only those commands get their full parser (their modules are
    imported); the others are listed, with their summary, but take no arguments.
    """
    from nbayes.cli._parser import build

    return build(_SUMMARIES, command_module, commands)


def _command_of(argv: Sequence[str]) -> str | None:
    """The command ``argv`` runs: its first word that is not an option (the top-level
    options take no value), if it names one."""
    for arg in argv:
        if not arg.startswith("-"):
            return arg if arg in _SUMMARIES else None
    return None


def _command_first(argv: list[str]) -> list[str]:
    """``argv`` with the command's name first: the options a user gives before it
    (``nbayes -q train ...``, ``nbayes --spam-cutoff 0.95 filter MODEL``, bogofilter's
    habit of flags first) are the command's, as the top-level takes none but ``-h`` and
    ``--version``: read as ``nbayes train -q ...``. They were refused ("invalid choice:
    '0.95'"), and a delivery's ``filter`` exited 2, its "unsure".

    >>> _command_first(["--spam-cutoff", "0.95", "filter", "m"])
    ['filter', '--spam-cutoff', '0.95', 'm']
    >>> _command_first(["--version", "train"]), _command_first(["x", "--", "filter"])
    (['--version', 'train'], ['x', '--', 'filter'])
    """
    for i, arg in enumerate(argv):
        if arg == "--" or arg in ("--version", "-h", "--help"):
            return argv
        if arg in _SUMMARIES:
            return argv if i == 0 else [arg, *argv[:i], *argv[i + 1 :]]
    return argv


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    if isinstance(exc, KeyError) and exc.args:
        text = str(exc.args[0])
    return " ".join(text.split())


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``nbayes`` command line with ``argv`` (default: ``sys.argv[1:]``).

    Ctrl-C stops a command within about a second with one line on stderr and exit status
    130, leaving every model file as it was; if the new model file was already complete,
    the line says so and the status is 0 (:mod:`nbayes.cli._interrupt`). A Ctrl-C after the
    command has written its outcome (its last milliseconds) ends the process by the signal,
    with nothing more written: the outcome stands as written, and a shell loop stops.

    Returns
    -------
    int
        0 on success, 1 on an error, 2 on bad arguments, 130 when interrupted (143 after
        SIGTERM, 129 after SIGHUP; when ``argv`` is None, the process ends by the signal
        instead, which its shell reports as these numbers).
    """
    program = argv is None  # the process ends when this returns
    interrupts = Interrupts(sys.stderr)
    args = _command_first(sys.argv[1:] if argv is None else list(argv))
    try:
        interrupts.install(program)  # (a signal in it: reported below, as any other)
        if _command_of(args) == "filter":  # a mail delivery agent's: lean, exit 3 on errors
            return _filter(args, interrupts)
        return _main(args, interrupts)
    except KeyboardInterrupt:
        return interrupts.report(program)
    except BaseException:
        # after Ctrl-C, a failure is the interrupt's doing (e.g. an import that C code
        # turned into an ImportError): report the interrupt, not the failure
        if interrupts.interrupted:
            return interrupts.report(program)
        raise
    finally:
        interrupts.uninstall(program)


def _filter(argv: list[str], interrupts: Interrupts) -> int:
    """``nbayes filter``: parsed by its own module (bad arguments exit with 3, not 2,
    which is its "unsure"), importing neither numpy nor the other commands."""
    from nbayes.cli import filter as command

    rest = list(argv)
    rest.remove("filter")
    return command.main(rest, interrupts=interrupts)


def _main(argv: list[str], interrupts: Interrupts) -> int:
    import warnings

    from nbayes.cli._common import UI

    command = _command_of(argv)
    parser = build_parser(() if command is None else (command,))
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # -h/--version (0) or bad arguments (2)
        return int(exc.code) if isinstance(exc.code, int) else 2
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    ui = UI(quiet=getattr(args, "quiet", False), verbose=getattr(args, "verbose", False))
    interrupts.err = ui.err
    args.interrupts = interrupts
    seen: set[str] = set()

    def show(message: Any, category: Any, *_: Any, **__: Any) -> None:
        text = _one_line(message if isinstance(message, BaseException) else Exception(message))
        if text not in seen:
            seen.add(text)
            ui.warn(text)

    from nbayes.cli._guarded import use_interrupts

    with warnings.catch_warnings(), use_interrupts(interrupts):
        warnings.simplefilter("default")
        # Python >= 3.12 warns at each fork of a process with another thread. The spam
        # commands' workers are forked (nbayes.spam._bulk) beside one thread, the Ctrl-C
        # watchdog (nbayes.cli._interrupt), blocked in os.read and holding no lock: the
        # fork is safe, and "may lead to deadlocks" would only alarm the user.
        warnings.filterwarnings(
            "ignore", r"This process \(pid=\d+\) is multi-threaded", DeprecationWarning
        )
        # a file an interrupted import left open is nothing the user can act on: it printed
        # "Warning: unclosed file ..." above the closing line of a Ctrl-C (a review's)
        warnings.filterwarnings("ignore", category=ResourceWarning)
        warnings.showwarning = show
        from nbayes.cli._common import data_reading

        try:
            with data_reading(args, ui):  # --bad-rows skip: counted, and noted at the end
                return int(args.run(args, ui))
        except BrokenPipeError:  # e.g. `nbayes predict ... | head`
            return 0
        except Exception as exc:
            if interrupts.interrupted:  # the interrupt's doing: reported as the interrupt
                raise KeyboardInterrupt from None
            return _report(ui, exc)


def _report(ui: Any, exc: Exception) -> int:
    """``exc`` as one ``Error: ...`` line (the traceback with -v); exit status 1."""
    import traceback

    from nbayes.cli._common import CLIError, no_term_advice

    if ui.verbose:
        traceback.print_exception(exc, file=ui.err)
    if isinstance(exc, (CLIError, ValueError, TypeError, OSError, ImportError)):
        ui.err.write(f"Error: {_one_line(exc)}{no_term_advice(exc)}\n")
    else:  # a bug: still one line
        ui.err.write(
            f"Error: unexpected {type(exc).__name__}: {_one_line(exc)} (this is a bug in "
            "nbayes; run again with -v for the traceback and report it)\n"
        )
    return 1
