"""``nbayes filter``: a spam filter's verdict on one message, with bogofilter's conventions.

Read one message on standard input (or every message of the MAIL files, mboxes and
Maildirs given) and print its verdict and spamicity, e.g. `spam 0.999873` (with MAIL, one
line per message: verdict, spamicity, then which message). The exit status is the verdict
of a single message: 0 spam, 1 ham, 2 unsure; 3 is an error (bad arguments included), as
bogofilter's. With several messages it is 0, or 3 if one of them could not be read.

--passthrough writes the message back on stdout with the header
`X-Nbayes-Status: spam, spamicity=0.999873` (any such header it came with removed), for
procmail, maildrop or a sieve filter; with --ham-true (-e) it exits 0 whatever the verdict
(3 still on an error), as procmail's `:0fw` recipes want. --register spam|ham learns the
message(s) into MODEL (an mbox on standard input, as bogofilter's `-s < spam.mbox`: each
of its messages), --unregister spam|ham unlearns a registration made by mistake,
--update learns each message whose verdict is sure (not unsure) as that verdict
(bogofilter's -u). A change holds MODEL's lock: deliveries at once take turns and no
registration is lost; a model that `nbayes serve` serves is refused (send it to the server
instead). A registration appends the messages' tokens to MODEL.pending, beside MODEL, at
the cost of a verdict whatever the model's size; every reader of MODEL counts them at
once, and the registration that grows MODEL.pending past 512 KiB writes them into MODEL
(as --fold does: copy MODEL.pending with MODEL, or --fold first). --unregister writes
MODEL at once.
MODEL is a spam filter: `nbayes train MAILDATA -o MODEL --model spam`, or the first
--register of a MODEL that does not exist starts one, as bogofilter starts a wordlist.
--ham-cutoff and --spam-cutoff set the verdicts' cutoffs for this run (bogofilter's `-o`;
`nbayes update MODEL --spam-cutoff P` sets them in MODEL).

Example:
  nbayes filter spam.nbayes < message.eml; echo $?
  nbayes filter spam.nbayes --passthrough < message.eml > tagged.eml
  nbayes filter spam.nbayes --register spam < missed.eml
  nbayes filter spam.nbayes inbox.mbox Maildir/
  nbayes filter spam.nbayes --spam-cutoff 0.95 < message.eml
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse

# This module is the one command that must start in a fraction of a second (a mail
# delivery agent runs it once per message): it imports the standard library, nbayes.mail
# and the spam filter's scoring only (a registration too: it appends to MODEL.pending);
# numpy and the model-file writer only to write MODEL (--unregister, --fold, a full
# MODEL.pending); argparse only for arguments other than a delivery's (see _quick).

__all__ = ["EXIT", "HEADER", "add_arguments", "main", "run"]

#: exit status per verdict (bogofilter's), and on an error
EXIT = {"spam": 0, "ham": 1, "unsure": 2, "error": 3}
#: the header --passthrough adds
HEADER = "X-Nbayes-Status"


def _jobs(text: str) -> int:
    from nbayes._flags import count_type

    return int(count_type(1)(text))


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", metavar="MODEL", help="a spam filter's model file")
    p.add_argument(
        "mail",
        nargs="*",
        metavar="MAIL",
        help="message files, mboxes or Maildirs (a Maildir's cur/ and new/; its Maildir++ "
        "sub-folders, .Archive and the like, are named, not read; default: one message on "
        "standard input)",
    )
    p.add_argument(
        "--register",
        choices=("spam", "ham"),
        metavar="spam|ham",
        help="learn the message(s) as spam or ham (appended to MODEL.pending; a MODEL that "
        "does not exist is started)",
    )
    p.add_argument(
        "--unregister",
        choices=("spam", "ham"),
        metavar="spam|ham",
        help="unlearn message(s) registered as spam or ham by mistake; with --register of "
        "the other class, a correction in one step (bogofilter's -Sn / -Ns)",
    )
    p.add_argument(
        "--update",
        action="store_true",
        help="learn each message whose verdict is sure as that verdict (bogofilter's -u)",
    )
    p.add_argument(
        "--fold",
        action="store_true",
        help="write the messages registered since MODEL was written (MODEL.pending) into "
        "MODEL and remove MODEL.pending (registrations do it every 512 KiB; do it before "
        "copying MODEL alone)",
    )
    p.add_argument(
        "--jobs",
        type=_jobs,
        metavar="N",
        help="with MAIL: processes that score the messages once the model is loaded whole "
        "(10 MB of mail or more, or past 2,000 messages; default: every usable core)",
    )
    p.add_argument(
        "--passthrough",
        action="store_true",
        help=f"write the message back with an {HEADER} header (standard input only)",
    )
    from nbayes.cli._spam import add_cutoffs  # (argparse's path only: not a delivery's)

    add_cutoffs(p, "for this run, ", "MODEL's, see `nbayes info MODEL`")
    p.add_argument(
        "-e",
        "--ham-true",
        action="store_true",
        help="with --passthrough, exit 0 for every verdict, 3 still on an error "
        "(bogofilter's -e): procmail's `:0fw` keeps a message unfiltered when the filter "
        "exits non-zero, so a ham would lose its header",
    )


#: the flags of a delivery's call (``nbayes filter MODEL [--passthrough] [-q|-v]``): read
#: without argparse, whose import and parser cost a process ~4 ms
_QUICK_FLAGS = {
    "--passthrough": "passthrough", "-q": "quiet", "--quiet": "quiet", "-v": "verbose",
    "--verbose": "verbose", "-e": "ham_true", "--ham-true": "ham_true",
}  # fmt: skip


#: the flags of a delivery's call that take a value: the verdicts' cutoffs for the run
_QUICK_VALUES = {"--ham-cutoff": "ham_cutoff", "--spam-cutoff": "spam_cutoff"}


def _quick(argv: Sequence[str]) -> Any:
    """The arguments of ``nbayes filter MODEL`` with at most the flags of
    :data:`_QUICK_FLAGS` and :data:`_QUICK_VALUES` (the namespace argparse would make of
    them), or None for any other call (argparse parses it: its help, its errors)."""
    from types import SimpleNamespace

    model = None
    flags: dict[str, Any] = dict.fromkeys(("passthrough", "quiet", "verbose", "ham_true"), False)
    values: dict[str, Any] = dict.fromkeys(_QUICK_VALUES.values())
    args = iter(argv)
    for arg in args:
        flag, equals, text = arg.partition("=")
        if arg in _QUICK_FLAGS:
            flags[_QUICK_FLAGS[arg]] = True
        elif flag in _QUICK_VALUES:
            from nbayes.cli._cutoffs import probability

            value = probability(text if equals else next(args, ""))
            if value is None or values[_QUICK_VALUES[flag]] is not None:
                return None  # (argparse words the error; a flag given twice: its choice)
            values[_QUICK_VALUES[flag]] = value
        elif arg.startswith("-") or model is not None:
            return None
        else:
            model = arg
    if model is None or (flags["quiet"] and flags["verbose"]):
        return None
    return SimpleNamespace(
        model=model, mail=[], register=None, unregister=None, update=False, fold=False,
        jobs=None, **flags, **values,
    )  # fmt: skip


def _parser() -> argparse.ArgumentParser:
    """``nbayes filter``'s own parser: bad arguments are one ``Error: ...`` line and exit
    status 3 (2 means unsure); the help's width from $COLUMNS (default 80) rather than
    from :func:`shutil.get_terminal_size`: argparse makes a formatter for every argument
    added, and shutil's import (with bz2 and lzma) would cost each call a few ms."""
    import argparse

    class Formatter(argparse.RawDescriptionHelpFormatter):
        def __init__(
            self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
            width: int | None = None,
        ) -> None:  # fmt: skip
            if width is None:
                columns = os.environ.get("COLUMNS", "")
                width = (int(columns) if columns.isdigit() else 80) - 2
            super().__init__(prog, indent_increment, max_help_position, width)

    class Parser(argparse.ArgumentParser):
        def error(self, message: str) -> Any:
            if "required: MODEL" in message:  # argparse names MAIL too, which is optional
                message = "the MODEL argument is required (a spam filter's model file)"
            self.exit(EXIT["error"], f"Error: {message} (see `{self.prog} -h`).\n")

    parser = Parser(
        prog="nbayes filter",
        description=(__doc__ or "").split("\n\n", 1)[1].split("\nExample:")[0],
        epilog="Example:" + (__doc__ or "").split("\nExample:", 1)[1],
        formatter_class=Formatter,
    )
    group = parser.add_mutually_exclusive_group()  # as every command has them
    group.add_argument("-q", "--quiet", action="store_true", help="print only results and errors")
    group.add_argument(
        "-v", "--verbose", action="store_true",
        help="for one message on standard input: its strongest clues on standard error",
    )  # fmt: skip
    add_arguments(parser)
    return parser


def main(argv: Sequence[str], ui: Any = None, interrupts: Any = None) -> int:
    """``nbayes filter ARGV...`` (``argv`` without the word ``filter``), parsed here so
    that bad arguments exit with 3 and nothing but this command is imported."""
    args = _quick(argv)
    if args is None:
        try:
            args = _parser().parse_intermixed_args(list(argv))
        except SystemExit as exc:  # -h (0) or bad arguments (3)
            return int(exc.code) if isinstance(exc.code, int) else EXIT["error"]
    if ui is None:
        from nbayes.cli._ui import UI

        ui = UI(quiet=args.quiet, verbose=args.verbose)
    if interrupts is not None:
        interrupts.err = ui.err
        if args.update and not args.mail:  # a delivery's: a stop before its verdict exits 3
            # from now (before, only once the model was loaded: the stops in the first
            # ~0.25 s died by the signal, which the docs' procmail recipe does not read)
            args.delivery = _Delivery()
            interrupts.override = args.delivery.outcome
    args.interrupts = interrupts
    return run(args, ui)


def run(args: argparse.Namespace, ui: Any) -> int:
    """The command (also reached through ``nbayes``'s own parser): every error is one
    ``Error: ...`` line and exit status 3, never a traceback (a delivery agent keeps the
    message on 3)."""
    try:
        return _run(args, ui)
    except KeyboardInterrupt:
        raise
    except BrokenPipeError:  # `nbayes filter MODEL inbox.mbox | head`: the reader is gone
        _stdout_to_devnull()
        if not args.passthrough:
            return 0
        ui.err.write(
            "Error: standard output was closed before the message was written back whole "
            "(--passthrough): exit status 3, for the delivery to be tried again.\n"
        )
        return EXIT["error"]  # (a half-written message)
    except Exception as exc:
        return _error(ui, exc)


def _stdout_to_devnull() -> None:
    """Point standard output at /dev/null: what is left in its buffer is not written at
    exit to the closed pipe (Python would then print "Exception ignored ... BrokenPipe")."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # (no file descriptor: a test's stream)
        pass


def _error(ui: Any, exc: BaseException, where: str = "") -> int:
    text = " ".join((str(exc).strip() or type(exc).__name__).split())
    from nbayes.cli._ui import CLIError

    known = isinstance(exc, CLIError | ValueError | TypeError | OSError | ImportError)
    if not known:
        text = f"unexpected {type(exc).__name__}: {text} (a bug in nbayes: please report it)"
    ui.err.write(f"Error: {where}{text}\n")
    return EXIT["error"]


def _run(args: argparse.Namespace, ui: Any) -> int:
    from nbayes.cli._ui import CLIError

    if os.path.islink(args.model) and not os.path.exists(args.model):
        raise CLIError(
            f"{args.model} is a symbolic link to {os.readlink(args.model)!r}, which does not "
            "exist: point it at the model file (or give the model file itself)."
        )
    if not os.path.exists(args.model) and not (args.register and not args.unregister):
        raise CLIError(
            f"No model file {args.model!r}: train a spam filter first with "
            "`nbayes train MAILDATA -o MODEL --model spam` (or start one with `nbayes filter "
            f"{args.model} --register spam|ham < message`)."
        )
    if args.passthrough and args.mail:
        raise CLIError(
            "--passthrough writes back the one message read on standard input: leave out the "
            "MAIL arguments (or leave out --passthrough for one verdict line per message)."
        )
    if args.update and (args.register or args.unregister):
        raise CLIError(
            "--update learns each message as its verdict: give it alone, or --register / "
            "--unregister instead."
        )
    if args.fold and (args.mail or args.register or args.unregister or args.update
                      or args.passthrough):  # fmt: skip
        raise CLIError(
            "--fold writes MODEL.pending into MODEL and reads no message: give it alone "
            "(`nbayes filter MODEL --fold`)."
        )
    if args.register and args.register == args.unregister:
        raise CLIError(
            f"--unregister {args.unregister} --register {args.register} would change nothing: "
            "a correction unregisters one class and registers the other."
        )
    if args.passthrough and (args.register or args.unregister):
        raise CLIError("--passthrough goes with a verdict: not with --register or --unregister.")
    if args.ham_true and not args.passthrough:
        raise CLIError(
            "--ham-true (-e) makes --passthrough exit 0 for every verdict: add --passthrough, "
            "or leave out --ham-true to read the verdict from the exit status."
        )
    if (args.fold or args.register or args.unregister) and not args.update:
        for flag in ("--ham-cutoff", "--spam-cutoff"):
            if getattr(args, flag[2:].replace("-", "_"), None) is not None:
                raise CLIError(
                    f"{flag} sets this run's verdicts, and --register, --unregister and "
                    "--fold give none: leave it out (`nbayes update MODEL "
                    f"{flag} P` sets MODEL's own)."
                )
    if sys.stdout is None and args.passthrough:  # (started with >&-)
        raise CLIError(
            "standard output is closed: --passthrough writes the message back there "
            "(redirect it to a file or a pipe instead of closing it)."
        )
    if args.fold:
        return _fold(args, ui)
    if args.register or args.unregister or args.update:
        return _change(args, ui)
    from nbayes.io.serializers.spam_scorer import open_spam_scorer

    # its digest is checked while the scoring loads (or not again: a file checked before
    # and unchanged since, see nbayes.io._modelfile.verified)
    finish = open_spam_scorer(args.model, cached_check=True)
    raw = b"" if args.mail else _stdin(ui, empty_ok=True)
    from nbayes.cli._served import served_spam_scorer

    scorer = served_spam_scorer(args.model, finish)  # (a served model: as its server has it)
    if scorer is None:
        raise CLIError(_not_spam(args.model))
    from nbayes.cli._cutoffs import for_this_run, given

    for_this_run(args, scorer.filter)
    if not args.mail:
        verdict = scorer.classify([raw])[0]
        _answer(args, ui, raw, verdict.verdict, verdict.spamicity)
        if args.verbose:
            _say_clues(ui, scorer.clues(raw, unused=False))
        return _status(args, verdict.verdict)
    from nbayes.cli._scoring import Verdicts, mail_bytes

    n_jobs = args.jobs if args.jobs is not None else -1  # (-1: every usable core)
    decide = Verdicts(args.model, scorer, mail_bytes(args.mail), n_jobs, given(args))
    return _each(args, ui, decide)


def _say_clues(ui: Any, clues: Any, most: int = 5) -> None:
    """-v: the strongest clues of each side on standard error (for a mail log: why this
    verdict), as `nbayes explain` lists them."""
    used = clues.used()
    ui.err.write(f"{len(used)} clues combined (`nbayes explain MODEL MESSAGE`: all of them)\n")
    for side in ("spam", "ham"):
        mine = [c for c in used if c.side == side][:most]
        if mine:
            ui.err.write(f"strongest {side} clues:\n")
            for c in mine:
                ui.err.write(c.row() + "\n")


def _status(args: argparse.Namespace, verdict: str) -> int:
    """The exit status of one message's verdict: 0 with --passthrough --ham-true."""
    return 0 if args.passthrough and args.ham_true else EXIT[verdict]


def _not_spam(path: str) -> str:
    return (
        f"{path} is not a spam filter: `nbayes filter` needs a model trained with "
        f"`nbayes train MAILDATA -o {path} --model spam` (MAILDATA/ham/, MAILDATA/spam/)."
    )


def _stdin(ui: Any, empty_ok: bool = False) -> bytes:
    """The message on standard input. One of nothing but white space is refused, except
    where it gets a verdict (``empty_ok``: a delivery, whose agent would defer it for ever
    on an error): an empty message, unsure at 0.5, as bogofilter says of it and as nbayes
    does of such a file, with a note."""
    from nbayes.cli._ui import CLIError

    if sys.stdin is None:  # (started with <&-)
        raise CLIError(
            "standard input is closed: pipe one message into `nbayes filter` (or name mail "
            "files, mboxes or Maildirs as arguments)."
        )
    if sys.stdin.isatty():
        ui.note("Reading one message from standard input (end it with Ctrl-D) ...")
    raw = sys.stdin.buffer.read()
    if not raw.strip():
        what = "empty" if not raw else f"{len(raw):,} byte(s) of white space"
        if empty_ok:
            ui.note(f"Standard input is {what}: scored as an empty message (no token).")
            return raw
        raise CLIError(
            f"standard input is {what}: pipe one message into `nbayes filter` (or name mail "
            "files, mboxes or Maildirs as arguments)."
        )
    return raw


def _line(verdict: str, spamicity: float, name: str = "") -> str:
    return f"{verdict} {spamicity:.6f}" + (f" {name}" if name else "")


def _answer(args: argparse.Namespace, ui: Any, raw: bytes, verdict: str, spamicity: float) -> None:
    if args.passthrough:
        from nbayes.mail import set_header

        out = set_header(raw, HEADER, f"{verdict}, spamicity={spamicity:.6f}")
        sys.stdout.flush()
        _write_all(sys.stdout.buffer, out)
        sys.stdout.buffer.flush()
    else:
        ui.print(_line(verdict, spamicity))


def _write_all(stream: Any, data: bytes) -> None:
    """Write all of ``data``: with PYTHONUNBUFFERED set (as many containers have it),
    ``sys.stdout.buffer`` is the raw file, whose write may write part (the reader of a pipe
    gone): the message was cut and the verdict's status returned. The next write raises."""
    view = memoryview(data)
    while view:
        n = stream.write(view)
        if n is None:  # (a non-blocking pipe, full: nothing written) wait until it drains
            import select

            select.select([], [stream.fileno()], [])
            continue
        view = view[n:]


def _each(args: argparse.Namespace, ui: Any, decide: Any) -> int:
    """One line per message of the MAIL arguments; a message that cannot be read is an
    ``Error:`` line naming it, and the others still get their verdicts."""
    status = 0
    n = 0
    last = ""
    _note_unread_subfolders(args.mail, ui)
    for (kind, what), verdict in decide.each(_read_all(args.mail), _mail_of):
        if kind == "error":  # a path that cannot be read (or no message in a folder)
            status = _error(ui, what)
        elif isinstance(verdict, Exception):
            status = _error(ui, verdict, f"{what.name}: ")
        else:
            n += 1
            last = verdict.verdict
            ui.print(_line(verdict.verdict, verdict.spamicity, what.name))
    if n == 1 and status == 0 and len(args.mail) == 1:
        return EXIT[last]
    return status


def _note_unread_subfolders(paths: Sequence[str], ui: Any) -> None:
    """Says which Maildir++ sub-folders (``.Archive``, ``.Junk``) of the Maildirs among
    ``paths`` are not read: each is a mailbox of its own (a mail administrator's trial
    found them skipped without a word)."""
    from nbayes.cli._spam import listed
    from nbayes.mail import maildir_subfolders

    for path in paths:
        subs = maildir_subfolders(path) if os.path.isdir(path) else []
        if subs:
            ui.note(
                f"{path}: not read: its Maildir++ sub-folder(s) {listed(subs, 4)}, each a "
                "mailbox of its own (give it as a MAIL argument to read it)."
            )


def _read_all(paths: Sequence[str]) -> Iterator[tuple[str, Any]]:
    """``("mail", RawMail)`` for each message of ``paths``, in order, and ``("error",
    exception)`` in the place of a path (or a file in a folder) that cannot be read, or of
    a folder that holds no message."""
    from nbayes.mail import iter_mail

    for path in paths:
        seen = 0
        failed: list[Exception] = []  # a folder's files that cannot be read, in their place
        try:
            for mail in iter_mail(path, on_error=failed.append):
                while failed:
                    yield "error", failed.pop(0)
                seen += 1
                yield "mail", mail
        except (KeyboardInterrupt, BrokenPipeError):
            raise
        except Exception as exc:  # a path that cannot be read
            failed.append(exc)
        errors = bool(failed)
        while failed:
            yield "error", failed.pop(0)
        if not seen and not errors:  # a folder without mail (an empty file is an empty message)
            yield "error", ValueError(f"no message in {path!r} (a folder without mail)")


def _mail_of(event: tuple[str, Any]) -> Any:
    return event[1] if event[0] == "mail" else None


# ---------------------------------------------------------------------------- changes


def _stdin_mails(args: argparse.Namespace, ui: Any) -> list[Any]:
    """The messages of standard input to --register or --unregister: one, or each of an
    mbox (it starts with a postmark and holds more than one), as bogofilter's ``-s <
    spam.mbox`` reads it (a mailbox of 300 was learnt as one message, without a word).
    --update, a delivery's, reads one message."""
    from nbayes.cli._ui import CLIError

    raw = _stdin(ui, empty_ok=args.update)
    if args.update or not raw.startswith(b"From "):
        return _not_empty(args, [raw])
    import io

    from nbayes.mail import is_empty, iter_mail, starts_with_field

    box = list(iter_mail(io.BufferedReader(io.BytesIO(raw))))
    headless = [m.name for m in box if not starts_with_field(m.data) and m.data.strip()]
    if len(box) - len(headless) < 2:
        # one message, as a delivery agent hands it, its postmark first (a body line
        # "From Monday 9:30 the office opens later." would split it: no head follows);
        # an empty message of an mbox is refused below
        return _not_empty(args, [raw])
    # two messages with heads or more: an mbox, each piece a message, as the same file
    # given by name is read (a piece without a head, after a body line "From root Mon Dec
    # 7 03:00:01 2026" that reads as a postmark, made the whole mailbox one message: a
    # mail administrator's trial)
    empty = [m.name for m in box if is_empty(m.data)]
    if empty and not args.unregister:
        raise CLIError(
            f"standard input is an mbox, and {empty[0]} is empty: an empty message is no "
            "mail to learn from; nothing was learnt."
        )
    ui.note(f"Standard input is an mbox of {len(box):,} messages: each one counts.")
    if headless:
        more = f" (and {len(headless) - 1:,} more)" if len(headless) > 1 else ""
        ui.note(
            f"{headless[0].replace('<stream>', 'standard input')}{more} has no header: a "
            "body line starting 'From ' read as a postmark, where the mbox's writer did not "
            "quote it ('>From'); it counts as a message, as it does read from the file."
        )
    return box


def _not_empty(args: argparse.Namespace, mails: list[Any]) -> list[Any]:
    """``mails`` (one message of standard input), refused when it is empty as the tokenizer
    reads it (white space only, a lone control character: no token to learn); an
    unregistration of it is left to the filter's own refusal."""
    from nbayes.cli._ui import CLIError
    from nbayes.mail import is_empty

    if not args.unregister and not args.update and is_empty(mails[0]):
        raise CLIError(
            "standard input is an empty message (no header, nothing but white space): it is "
            "no mail to learn from; nothing was learnt."
        )
    return mails


def _done(args: argparse.Namespace, n: int) -> str:
    """What a registration did: "Registered 3 message(s) as spam", ..."""
    if args.register and args.unregister:
        return (
            f"Corrected {n:,} message(s): unregistered as {args.unregister}, registered as "
            f"{args.register}"
        )
    verb = "Registered" if args.register else "Unregistered"
    return f"{verb} {n:,} message(s) as {args.register or args.unregister}"


class _Delivery:
    """``--update`` of one message, a delivery's: what an interruption (procmail's timeout,
    SIGTERM) leaves is told by the exit status, which is the verdict's, and standard output,
    the message (``--passthrough``). The verdict is written first, then the message learnt,
    then a full log folded: an interruption before the verdict is written, or before the
    message is learnt, exits 3 (the delivery agent keeps the message as it came and tries
    it again); after, the verdict's status (the registration holds). Before, a fold
    interrupted after the registration exited 0, "spam", with nothing written."""

    def __init__(self) -> None:
        self.status: int | None = None  # the verdict's exit status, once written
        self.learnt = False

    def outcome(self, what: str) -> tuple[str, int]:
        if self.status is None:
            return (
                f"{what} before the verdict was written: exit status 3, for the delivery to "
                "be tried again (nothing was learnt).",
                EXIT["error"],
            )
        if not self.learnt:
            return (
                f"{what} after the verdict, before the message was learnt: exit status 3, for "
                "the delivery to be tried again.",
                EXIT["error"],
            )
        return (
            f"{what} after the verdict and the registration were written (exit status "
            f"{self.status}, the verdict's).",
            self.status,
        )


def _delivered(args: argparse.Namespace, ui: Any, scorer: Any, raw: bytes) -> tuple[Any, int, bool]:
    """A delivery's verdict of ``raw`` by ``scorer`` (its clues scored once), written at
    once; the verdict, its exit status, and whether ``auto_learn`` would learn it."""
    clues = scorer.clues(raw, unused=False)
    v = clues.verdict
    _answer(args, ui, raw, v.verdict, v.spamicity)
    return v, _status(args, v.verdict), scorer.filter.learns(clues)


def _update_served(args: argparse.Namespace, ui: Any, raw: bytes) -> int | None:
    """``--update`` of one message (a delivery's) of a model ``nbayes serve`` serves: the
    verdict as the server would give it (the file and the server's journal), written at
    once, and a message to learn sent to the server's ``/update`` (the token from
    ``NBAYES_SERVE_TOKEN``), which holds the model's lock. Not learnt (said on stderr)
    when the server refuses it or cannot be reached: the delivery still gets its verdict
    (it exited 3 with nothing written, and a delivery agent deferred every message while
    a server ran). None when no server serves the model."""
    from nbayes.serve.holder import serving_server

    record = serving_server(args.model)
    if record is None:
        return None
    from nbayes.cli._cutoffs import for_this_run
    from nbayes.cli._served import served_spam_scorer
    from nbayes.cli._ui import CLIError
    from nbayes.io.serializers.spam_scorer import open_spam_scorer

    scorer = served_spam_scorer(args.model, open_spam_scorer(args.model, cached_check=True))
    if scorer is None:
        raise CLIError(_not_spam(args.model))
    for_this_run(args, scorer.filter)
    v, status, learns = _delivered(args, ui, scorer, raw)
    url = str(record.get("url", ""))
    if not learns:
        ui.note(f"Learnt 0 of 1 message(s) as their verdict ({args.model} is served on {url}).")
        return status
    label = scorer.filter.get_params()["labels"][1 if v.verdict == "spam" else 0]
    why = _post_update(url, raw, label)
    if why is None:
        ui.note(f"Learnt 1 of 1 message(s) as their verdict, through the server on {url}.")
    else:
        ui.warn(
            f"the message was not learnt: {args.model} is served on {url}, which holds it, "
            f"and {why}. Its verdict stands."
        )
    return status


def _post_update(url: str, raw: bytes, label: Any) -> str | None:
    """POST one raw message to the server's ``/update``; None once it is learnt, else why
    not, in words."""
    import base64
    import json
    import urllib.error
    import urllib.request

    for bound, local in (("//0.0.0.0:", "//127.0.0.1:"), ("//[::]:", "//[::1]:")):
        url = url.replace(bound, local)  # (a server listening on every address)
    body = json.dumps({"messages": [base64.b64encode(raw).decode()], "labels": [label]})
    headers = {"Content-Type": "application/json"}
    token = os.environ.get("NBAYES_SERVE_TOKEN")
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url + "/update", body.encode(), headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            answer.read()
        return None
    except urllib.error.HTTPError as exc:
        try:
            error = json.loads(exc.read()).get("error", "")
        except (ValueError, AttributeError, OSError):
            error = ""
        hint = "; set NBAYES_SERVE_TOKEN to its --token" if exc.code == 401 and not token else ""
        return f"it answered {exc.code}: {error.rstrip('.')}{hint}"
    except (OSError, ValueError) as exc:
        return f"it could not be reached ({getattr(exc, 'reason', exc)})"


def _update_one(args: argparse.Namespace, ui: Any, raw: bytes) -> int | None:
    """``--update`` of one message (a delivery's call): its verdict from the file's
    scorer (the filter's, bit for bit), written at once, and, when sure, the message
    appended to the file's log of pending messages
    (:func:`~nbayes.io.serializers.spam_register.register`), as loading the filter,
    ``auto_learn`` and saving it would; a full log is folded last. None for the full load
    to do it."""
    from nbayes.io.serializers.spam_scorer import load_spam_scorer

    interrupts = getattr(args, "interrupts", None)
    scorer = load_spam_scorer(args.model, cached_check=True)  # (as the verdict alone)
    if scorer is None:
        if interrupts is not None:  # (the full load's outcome follows the files)
            interrupts.override = None
        return None
    from nbayes.cli._cutoffs import for_this_run

    for_this_run(args, scorer.filter)
    delivery = getattr(args, "delivery", None) or _Delivery()
    if interrupts is not None:
        interrupts.override = delivery.outcome
    v, delivery.status, learns = _delivered(args, ui, scorer, raw)
    counts, fold_due = (scorer.n_ham, scorer.n_spam), False
    learnt = int(learns)
    if learnt:
        done = _register(args, ui, [raw], v.verdict == "spam", scorer, fold=False)
        counts, fold_due = (done.n_ham, done.n_spam), done.fold_due
    delivery.learnt = True
    ui.note(
        f"Learnt {learnt} of 1 message(s) as their verdict; {args.model} now has "
        f"{counts[0]:,} ham and {counts[1]:,} spam."
    )
    if fold_due:
        _fold_log(args, ui)
    return delivery.status


def _fold_log(args: argparse.Namespace, ui: Any) -> None:
    """A full log of pending messages folded into MODEL (its registrations hold if the
    fold fails: the next one tries again)."""
    from nbayes.cli._guarded import guarded_write
    from nbayes.io.serializers.spam_register import fold_pending

    error = guarded_write(args.model, lambda: fold_pending(args.model))
    if error is not None:
        _fold_failed(args, ui, error)


def _fold_failed(args: argparse.Namespace, ui: Any, error: str) -> None:
    """The warning of a fold that failed: the registrations hold, in the log."""
    from nbayes.io.pending import pending_path

    ui.warn(
        f"the registration is kept in {pending_path(args.model)}, but writing it into "
        f"{args.model} failed ({error}); the next registration tries again."
    )


def _register(
    args: argparse.Namespace,
    ui: Any,
    mails: list[Any],
    spam: bool,
    scorer: Any = None,
    fold: bool = True,
) -> Any:
    """Learn ``mails`` as spam (or ham) into MODEL's log of pending messages (under the
    model's lock): the :class:`~nbayes.io.serializers.spam_register.Registered` (its
    ``n_ham``, ``n_spam``; ``fold=False``: a full log left to the caller, ``fold_due``)."""
    from nbayes.cli._guarded import guarded_write
    from nbayes.cli._ui import CLIError
    from nbayes.io.pending import pending_path
    from nbayes.io.serializers.spam_register import register

    log = pending_path(args.model)
    done = guarded_write(  # (both registered: Ctrl-C in a fold says the log holds it)
        log, lambda: guarded_write(
            args.model, lambda: register(args.model, mails, spam=spam, scorer=scorer, fold=fold)
        ),
    )  # fmt: skip
    if done is None:
        raise CLIError(_not_spam(args.model))
    if done.dropped:
        ui.warn(
            f"{log} held {done.dropped:,} registration(s) of another version of "
            f"{args.model} (a file copied or restored over it since, without its times): "
            "they were not counted, and a new log replaced it."
        )
    if done.fold_error is not None:
        _fold_failed(args, ui, done.fold_error)
    return done


@contextmanager
def _changing(args: argparse.Namespace, ui: Any) -> Iterator[None]:
    """A change of MODEL: under its lock, the files written registered with the
    command's Ctrl-C handling."""
    from contextlib import nullcontext

    from nbayes.cli._guarded import use_interrupts
    from nbayes.cli._model_lock import model_lock

    interrupts = getattr(args, "interrupts", None)
    registry = nullcontext() if interrupts is None else use_interrupts(interrupts)
    with registry, model_lock(args.model, ui):
        yield


def _fold(args: argparse.Namespace, ui: Any) -> int:
    """--fold: MODEL.pending written into MODEL (under the model's lock), and removed."""
    from nbayes.cli._guarded import guarded_write
    from nbayes.cli._ui import CLIError
    from nbayes.io.pending import pending_path
    from nbayes.io.serializers.spam_scorer import load_spam_scorer

    with _changing(args, ui):
        scorer = load_spam_scorer(args.model, cached_check=True)
        if scorer is None:
            raise CLIError(_not_spam(args.model))
        if not scorer.pending_bytes:
            ui.note(f"No message is pending for {args.model}: it holds every registration.")
            return 0
        from nbayes.io.serializers.spam import change_counts

        counts = guarded_write(args.model, lambda: change_counts(args.model, [], spam=True))
        assert counts is not None  # (learning only: the file's columns take it)
    ham = counts[0] - scorer.file_counts[0]
    spam = counts[1] - scorer.file_counts[1]
    ui.note(
        f"Wrote {ham + spam:,} pending message(s) ({ham:,} ham, {spam:,} spam) from "
        f"{pending_path(args.model)} into {args.model}; it has {counts[0]:,} ham and "
        f"{counts[1]:,} spam."
    )
    return 0


def _started(args: argparse.Namespace, ui: Any, mails: list[Any]) -> bool:
    """``--register`` of a MODEL that does not exist: a new spam filter (``nbayes train
    --model spam``'s settings) of these messages, as bogofilter starts a wordlist. The
    file is created only if still missing (a hard link of the written file: two first
    registrations at once make one model, the other registers into it); False when
    another process created it first."""
    import fcntl

    from nbayes.cli._models import check_output_folder
    from nbayes.io.pending import discard
    from nbayes.io.persist import save
    from nbayes.spam import SpamFilter

    check_output_folder(args.model)
    model = SpamFilter()
    ham_label, spam_label = model.labels
    model.fit(mails, [spam_label if args.register == "spam" else ham_label] * len(mails))
    new = f"{args.model}.{os.getpid()}.new"
    locked = -1
    try:
        try:
            save(model, new)
        except OSError as exc:
            raise OSError(
                exc.errno, f"cannot write the new model {args.model!r}: {exc.strerror or exc}"
            ) from exc
        # locked before it is the model: no registration waiting for the model's lock
        # starts a log that the removal of an old one below would take with it
        locked = os.open(new, os.O_RDONLY | os.O_CLOEXEC)
        fcntl.flock(locked, fcntl.LOCK_EX)
        try:
            os.link(new, args.model)
        except FileExistsError:
            return False
        discard(args.model)  # (a log of a model this path named before: not this one's)
    finally:
        if locked >= 0:
            os.close(locked)
        try:
            os.unlink(new)
        except OSError:
            pass
    other = "ham" if args.register == "spam" else "spam"
    ui.note(
        f"No model file {args.model}: started a new spam filter with {len(mails):,} "
        f"{args.register} message(s) (the settings of `nbayes train --model spam`). Register "
        f"{other} too (`nbayes filter {args.model} --register {other} < message`): until "
        f"it has learnt {other}, every verdict is unsure (it cannot tell {other} from "
        f"{args.register})."
    )
    return True


def _change(args: argparse.Namespace, ui: Any) -> int:
    """--register, --unregister, --update: read the messages first (a message that cannot
    be read changes nothing), then load, change and save MODEL under its lock."""
    from nbayes.cli._ui import CLIError

    if args.mail:
        mails: list[Any] = []
        _note_unread_subfolders(args.mail, ui)
        for kind, what in _read_all(args.mail):  # (a path that cannot be read: nothing learnt)
            if kind == "error":
                text = " ".join(str(what).split()) or type(what).__name__
                raise CLIError(f"{text}: nothing was learnt (leave it out of the MAIL arguments).")
            mails.append(what)
        from nbayes.mail import is_empty

        empty = [m.name for m in mails if is_empty(m.data)]
        if empty and not args.unregister:  # (stdin without MAIL is refused alike, in _stdin)
            raise CLIError(
                f"{empty[0]} is empty: an empty message is no mail to learn from; nothing "
                "was learnt (leave it out of the MAIL arguments)."
            )
    else:
        mails = _stdin_mails(args, ui)
    try:
        return _change_with(args, ui, mails)
    except ValueError as exc:
        refused = str(exc).startswith(("cannot unlearn", "cannot correct"))
        hint = _quoting_hint(args, mails) if args.unregister and refused else ""
        if not hint:
            raise
        text = str(exc).rstrip()
        raise CLIError(f"{text}{'' if text.endswith('.') else '.'} {hint}") from None


#: a line of a message's body starting with "From ", quoted (">From ") or not
_FROM_LINE = re.compile(rb"\n>*From ")


def _quoting_hint(args: argparse.Namespace, mails: list[Any]) -> str:
    """Advice for an unlearning refused of messages with From lines: read from a file
    whose first line is a postmark (an mbox), a message's ``>From`` lines lose one ``>``
    (mboxrd), read from standard input they keep them; the message may have been learnt
    the other way. Empty when no message has such a line."""
    if not any(_FROM_LINE.search(getattr(m, "data", m)) for m in mails):
        return ""
    if args.mail:
        return (
            "Its '>From' lines lost one '>' as it was read: a file whose first line is a "
            "postmark ('From sender date') is an mbox (mboxrd). If it was learnt from "
            "standard input as it came (a delivery), unregister it that way: `nbayes "
            "filter MODEL --unregister LABEL < FILE` (without `-`)."
        )
    return (
        "Standard input is read as it comes, its '>From' lines whole; read from a file "
        "whose first line is a postmark (an mbox, mboxrd), they lose one '>'. If it was "
        "learnt from such a file, unregister it from the file: `nbayes filter MODEL "
        "--unregister LABEL FILE`."
    )


def _change_with(args: argparse.Namespace, ui: Any, mails: list[Any]) -> int:
    """--register, --unregister, --update of ``mails``, read."""
    from nbayes.cli._ui import CLIError

    if not os.path.exists(args.model) and _started(args, ui, mails):
        return 0
    if args.update and not args.mail:  # a delivery's, of a model a server serves
        done = _update_served(args, ui, mails[0])
        if done is not None:
            return done
    with _changing(args, ui):
        if args.register and not args.unregister:  # appended to the file's log
            done = _register(args, ui, mails, args.register == "spam")
            ui.note(f"{_done(args, len(mails))}; {args.model} now has "
                    f"{done.n_ham:,} ham and {done.n_spam:,} spam.")  # fmt: skip
            return 0
        if args.update and not args.mail:  # a delivery's: the file's scorer, then its log
            done = _update_one(args, ui, mails[0])
            if done is not None:
                return done
        if not args.update:  # the file's columns changed where the messages' tokens fall
            from nbayes.cli._guarded import guarded_write
            from nbayes.io.serializers.spam import change_counts

            what = args.register or args.unregister
            changed = guarded_write(
                args.model,
                lambda: change_counts(
                    args.model,
                    mails,
                    spam=what == "spam",
                    unlearn=not args.register,
                    correct=bool(args.register and args.unregister),
                ),  # fmt: skip
            )
            if changed is not None:
                ui.note(f"{_done(args, len(mails))}; {args.model} now has "
                        f"{changed[0]:,} ham and {changed[1]:,} spam.")  # fmt: skip
                return 0
        from nbayes.cli._models import save_model
        from nbayes.io.persist import load
        from nbayes.spam import SpamFilter

        model = load(args.model)  # (--update, or an unlearning the filter words a refusal of)
        if not isinstance(model, SpamFilter):
            raise CLIError(_not_spam(args.model))
        tokens = [model.tokenize(m) for m in mails]  # a failure here changes nothing
        if args.update:
            from nbayes.cli._cutoffs import for_this_run

            own = for_this_run(args, model)
            learnt_before = model.table_.n_ham + model.table_.n_spam
            verdicts = model.auto_learn(tokens)
            model.set_params(**own)  # (this run's cutoffs are not saved)
        else:
            ham_label, spam_label = model.classes_.tolist()
            label = spam_label if (args.register or args.unregister) == "spam" else ham_label
            if args.register and args.unregister:
                model.correct(tokens, [label] * len(tokens))
            elif args.register:
                model.partial_fit(tokens, [label] * len(tokens))
            else:
                model.unlearn(tokens, [label] * len(tokens))
        save_model(model, args.model, args.mail, flag="MODEL")
    table = model.table_
    counts = f"{args.model} now has {table.n_ham:,} ham and {table.n_spam:,} spam"
    if not args.update:
        ui.note(f"{_done(args, len(mails))}; {counts}.")
        return 0
    learnt = table.n_ham + table.n_spam - learnt_before
    ui.note(f"Learnt {learnt:,} of {len(mails):,} message(s) as their verdict; {counts}.")
    if not args.mail:
        v = verdicts[0]
        _answer(args, ui, mails[0], v.verdict, v.spamicity)
        return _status(args, v.verdict)
    for mail, v in zip(mails, verdicts, strict=True):
        ui.print(_line(v.verdict, v.spamicity, mail.name))
    return EXIT[verdicts[0].verdict] if len(mails) == 1 else 0
