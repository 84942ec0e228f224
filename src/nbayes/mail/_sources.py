"""Where mail comes from: one message per ``.eml`` file, mbox files, Maildirs, folders of
these (one folder per class for training) and standard input, read message by message.

Every reader yields :class:`RawMail` records (the message's bytes and a name that says where
it came from, for error messages) and holds one message at a time: a 1 GB mbox is read in
blocks of a megabyte (its postmarks found by a byte search, not line by line), and a message
larger than ``max_bytes`` keeps its first bytes and its last MiB (the middle is read past,
not kept: :func:`cut`); :attr:`RawMail.truncated` says so and the tokenizer emits a token
for it.

mbox: a message starts at a ``From`` line that follows an empty line (or starts the file)
and looks like a postmark (``From sender`` followed by a time of day), so a body line that
begins with an unquoted "From " (mboxo writers quote only some of them) does not split a
message; quoted ``>From`` lines (any number of ``>``) lose one ``>``, as mboxrd defines.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import AnyStr, BinaryIO

from nbayes.mail._errors import MailError

__all__ = [
    "DEFAULT_MAX_BYTES",
    "RawMail",
    "cut",
    "is_maildir",
    "iter_classes",
    "iter_mail",
    "looks_like_mbox",
    "maildir_subfolders",
    "read_mbox",
]

DEFAULT_MAX_BYTES = 16 * 1024 * 1024
"""Bytes of one message kept for tokenizing (16 MiB): a longer message keeps its start and
its last MiB (:func:`cut`), the middle of a big attachment is not read."""

#: bytes of a message's end kept when it is cut (at most a quarter of ``max_bytes``)
TAIL_BYTES = 1 << 20


def _tail_bytes(max_bytes: int) -> int:
    return min(TAIL_BYTES, max_bytes // 4)


def cut(data: AnyStr, max_bytes: int) -> tuple[AnyStr, bool]:
    """``data`` if it has at most ``max_bytes`` bytes, else its start and its end, whole
    lines of each, about ``max_bytes`` bytes in all (its last :data:`TAIL_BYTES`, at most
    a quarter); and whether it was cut.

    A message of 30 MB is most often one big attachment: its text and its closing MIME
    boundary come before or after it, and both are read (keeping only the start lost a text
    after the attachment, and the lost closing boundary read as a MIME defect that spam
    has: a trial's 30 MB reply with a zip was called spam).

    >>> cut(b"head\\n" + b"x" * 40 + b"\\nend\\n", 24)  # its last 6 bytes: a whole line
    (b'head\\nend\\n', True)
    >>> cut(b"short", 12)
    (b'short', False)
    """
    if len(data) <= max_bytes:
        return data, False
    tail = _tail_bytes(max_bytes)
    return _joined(data[: max_bytes - tail], data[len(data) - tail :]), True


def _joined(head: AnyStr, tail: AnyStr) -> AnyStr:
    """The whole lines of ``head`` (up to its last line break), then those of ``tail``
    (from its first line break on): a message's start and end, without the halves of the
    lines cut (bytes, or a message's characters)."""
    nl = b"\n" if isinstance(head, bytes) else "\n"
    end = head.rfind(nl) + 1
    start = tail.find(nl) + 1
    return head[:end] + (tail[start:] if start else tail[:0])


_TIME = re.compile(rb"\d:\d\d")
_QUOTED_FROM = re.compile(rb">+From ")
_UNQUOTE = re.compile(rb"^>(>*From )", re.M)  # mboxrd: a quoted From line loses one ">"
_BLANK = (b"\n", b"\r\n")
_BLOCK = 1 << 20  # bytes asked of the stream at a time
_LONG_LINE = 4096  # a line begun at least this long is kept before its end is read
# a Maildir's folders of messages, in the order read ("tmp" holds deliveries in progress,
# which a reader leaves alone: they are moved to "new" once whole)
_MAILDIR_SUBDIRS = ("cur", "new")
# the files a Maildir holds beside its folders (dotfiles are never read): Dovecot's,
# Courier's and Maildir++'s
_MAILDIR_FILES = ("dovecot", "courier", "maildirfolder", "maildirsize", "subscriptions", ".")


@dataclass(frozen=True)
class RawMail:
    """One message as read: its bytes and where it came from.

    Attributes
    ----------
    name : str
        The file, or ``"FILE, message N"`` for the N-th (from 1) message of an mbox, or
        ``"<stdin>"``.
    data : bytes
        The message (about the reader's ``max_bytes`` at most: :func:`cut`).
    truncated : bool
        Whether the message was longer than the reader's ``max_bytes`` (and cut).
    """

    name: str
    data: bytes
    truncated: bool = False


def _read_file(path: Path, max_bytes: int) -> RawMail:
    try:
        with open(path, "rb") as fh:
            return _read_whole(fh, str(path), max_bytes)
    except OSError as exc:
        raise MailError(f"cannot read the message {str(path)!r}: {exc.strerror or exc}") from None


def _read_whole(stream: BinaryIO, name: str, max_bytes: int) -> RawMail:
    """The one message of ``stream`` (not an mbox), as :func:`cut` keeps it: ``max_bytes``
    read at once, then blocks of which the last are kept."""
    kept = _Kept(max_bytes, unquote=False)
    kept.add(stream.read(max_bytes + 1))
    while kept.truncated and (block := stream.read(_BLOCK)):
        kept.add(block)
    return kept.mail(name)


def looks_like_mbox(head: bytes) -> bool:
    """Whether a file starting with ``head`` is an mbox (its first line a postmark).

    >>> looks_like_mbox(b"From alice@example.com Mon Jul  1 10:00:00 2002\\nSubject: hi\\n")
    True
    >>> looks_like_mbox(b"From: alice@example.com\\n")
    False
    """
    line = head.split(b"\n", 1)[0]
    return _is_postmark(line, 0, len(line))


def _is_postmark(data: bytes, start: int, end: int) -> bool:
    """Whether ``data[start:end]`` (a line without its newline) is a postmark: ``From``,
    a space, a word, and a time of day (``From \\S+.*\\d:\\d\\d``), found in one pass (the
    regular expression backtracks over a long ``From`` line: 5 s at 32 KB).

    >>> line = b"From ann@example.com Mon Jul  1 10:00:00 2002"
    >>> _is_postmark(line, 0, len(line)), _is_postmark(b"From here on", 0, 12)
    (True, False)
    """
    return (
        data.startswith(b"From ", start)
        and start + 5 < end
        and data[start + 5] not in b" \t\n\r\x0b\x0c"
        and _TIME.search(data, start + 6, end) is not None
    )


def is_maildir(path: Path) -> bool:
    """Whether ``path`` is a Maildir: a folder with ``cur`` in it, or ``new`` and ``tmp``
    (copies drop empty folders: git, some tar and rsync runs), and no file but a Maildir's
    own (Dovecot's, Courier's, Maildir++'s). Any other folder is a folder of mail, its own
    files read too: a ``new`` (or ``cur``) folder among ham files made train skip the files.
    Of a Maildir, ``cur`` and ``new`` are read, never ``tmp`` (deliveries in progress)."""
    if not path.is_dir():
        return False
    if not ((path / "cur").is_dir() or ((path / "new").is_dir() and (path / "tmp").is_dir())):
        return False
    # a folder of mail files that also holds a cur/ is no Maildir: its files would be skipped
    with os.scandir(path) as entries:
        return not any(
            entry.is_file() and not entry.name.startswith(_MAILDIR_FILES) for entry in entries
        )


def maildir_subfolders(path: str | os.PathLike[str]) -> list[Path]:
    """The Maildir++ sub-folders that :func:`iter_mail` leaves unread under ``path``:
    each folder whose name starts with a dot (``.Archive``, ``.Junk``) and that is a
    Maildir itself, inside a Maildir read there (``path`` or a folder below it), sorted.
    A Maildir's messages are its ``cur`` and ``new``; a sub-folder is another mailbox (a
    filter learning ham must not read ``.Junk``), given as a path of its own. Folders
    that cannot be listed are passed over (reading them says why).

    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> for sub in ("cur", "new", "tmp", ".Junk/cur", ".Junk/new", ".notes"):
    ...     (root / sub).mkdir(parents=True)
    >>> [p.name for p in maildir_subfolders(root)]
    ['.Junk']
    """
    found: list[Path] = []
    stack = [Path(path)]
    seen: set[tuple[int, int]] = set()
    while stack:
        folder = stack.pop()
        try:
            st = folder.stat()
            if (st.st_dev, st.st_ino) in seen or not folder.is_dir():
                continue
            seen.add((st.st_dev, st.st_ino))
            if is_maildir(folder):
                with os.scandir(folder) as entries:
                    names = [e.name for e in entries if e.name.startswith(".")]
                found += [folder / n for n in names if n not in (".", "..")
                          and is_maildir(folder / n)]  # fmt: skip
                continue
            with os.scandir(folder) as entries:
                stack += [Path(e.path) for e in entries
                          if not e.name.startswith(".") and e.is_dir()]  # fmt: skip
        except OSError:
            continue
    return sorted(found)


class _Kept:
    """One message's content as :func:`cut` keeps it, added piece by piece: every byte up
    to ``max_bytes``; beyond, the start and a window of the last bytes read (bounded
    memory). In an mbox (``unquote``) ``>From`` lines lose one ``>`` (a line is unquoted
    whole: a piece ends at a line's end, or in a line long enough to have shown whether it
    is a quoted From line)."""

    __slots__ = ("pieces", "size", "truncated", "max_bytes", "open", "unquote", "tail")

    def __init__(self, max_bytes: int, unquote: bool = True) -> None:
        self.pieces: list[bytes] = []
        self.size = 0
        self.truncated = False
        self.max_bytes = max_bytes
        self.open = False  # the last piece ended inside a line
        self.unquote = unquote
        self.tail = bytearray()  # once truncated: the last bytes read (a window)

    def add(self, data: bytes) -> None:
        if not data:
            return
        if self.unquote and b">From " in data:
            if self.open:  # the rest of a line begun before: not a line start
                end = data.find(b"\n") + 1 or len(data)
                data = data[:end] + _UNQUOTE.sub(rb"\1", data[end:])
            else:
                data = _UNQUOTE.sub(rb"\1", data)
        self.open = not data.endswith(b"\n")
        if self.truncated:
            self._window(data)
            return
        room = self.max_bytes - self.size
        if len(data) > room:  # beyond max_bytes: keep the start, a window of the end
            self.truncated = True
            whole = b"".join(self.pieces) + data
            head = self.max_bytes - _tail_bytes(self.max_bytes)
            self.pieces, self.size = [whole[:head]], head
            self._window(whole[head:])
            return
        self.pieces.append(data)
        self.size += len(data)

    def _window(self, data: bytes) -> None:
        tail = _tail_bytes(self.max_bytes)
        self.tail += data
        if len(self.tail) > 2 * tail:
            del self.tail[: len(self.tail) - tail]

    def mail(self, name: str) -> RawMail:
        if not self.truncated:
            return RawMail(name, b"".join(self.pieces), False)
        tail = _tail_bytes(self.max_bytes)
        end = bytes(self.tail[len(self.tail) - tail :]) if tail else b""
        return RawMail(name, _joined(b"".join(self.pieces), end), True)


def read_mbox(stream: BinaryIO, name: str, max_bytes: int = DEFAULT_MAX_BYTES) -> Iterator[RawMail]:
    """The messages of an mbox read from ``stream``, one at a time (see the module
    docstring for the format; the postmark line itself is not part of the message).

    >>> import io
    >>> box = (b"From a@x Mon Jul  1 10:00:00 2002\\nSubject: one\\n\\nFrom here on\\n"
    ...        b">From quoted\\n\\nFrom b@y Tue Jul  2 11:00:00 2002\\nSubject: two\\n\\nhi\\n")
    >>> [m.data for m in read_mbox(io.BytesIO(box), "box")]
    [b'Subject: one\\n\\nFrom here on\\nFrom quoted\\n', b'Subject: two\\n\\nhi\\n']
    """
    read = getattr(stream, "read1", None) or stream.read
    buf, pos, eof = _preamble(read, name)
    if pos < 0:
        return
    number = 0
    kept = _Kept(max_bytes)
    start = scan = pos  # buf[start:] is not kept yet; no postmark starts before scan + 1
    while True:
        # a postmark: a "From " line, complete, after a blank line, that reads as one
        i = buf.find(b"\nFrom ", scan)
        if i >= 0:
            p = i + 1
            end = buf.find(b"\n", p)
            if end >= 0 or eof:
                q = _blank_line_before(buf, start, p, kept.open)
                if q >= 0 and _is_postmark(buf, p, end if end >= 0 else len(buf)):
                    kept.add(buf[start:q])  # the blank line before a postmark is the mbox's
                    number += 1
                    yield kept.mail(f"{name}, message {number}")
                    kept = _Kept(max_bytes)
                    start = scan = end + 1 if end >= 0 else len(buf)
                    continue
                scan = p
                continue
        if eof:
            q = _blank_line_before(buf, start, len(buf), kept.open)  # (the mbox's too)
            kept.add(buf[start:q] if q >= 0 else buf[start:])
            yield kept.mail(f"{name}, message {number + 1}")
            return
        limit = _settled(buf, start, kept.open)  # no postmark in sight: keep, read on
        kept.add(buf[start:limit])
        held = len(buf) - limit  # a long "From " line, held to its end: read as much again
        block = read(_BLOCK) if held < _BLOCK else stream.read(held)  # (not a copy a block)
        eof = not block
        buf = buf[limit:] + block
        scan = max(scan - limit, 0)
        start = 0


def _settled(buf: bytes, start: int, in_line: bool) -> int:
    """Where the bytes of ``buf[start:]`` that the rest of the mbox cannot change end: all
    but its last line (not complete yet) and, if that line may still turn out to be a
    postmark, the blank line before it. ``in_line``: ``buf[start]`` is inside a line."""
    t = buf.rfind(b"\n", start) + 1 or start  # where the last line starts
    if t == start and in_line:
        return len(buf)  # the rest of a long line kept before
    head = buf[t : t + _LONG_LINE]
    if len(head) == _LONG_LINE and not _may_be_from(head) and head != b"\r":
        return len(buf)  # a long line that is neither a postmark nor a quoted From line
    q = _blank_line_before(buf, start, t, in_line)
    return q if q >= 0 else t


def _blank_line_before(buf: bytes, start: int, p: int, in_line: bool) -> int:
    """Where the last line of ``buf[start:p]`` starts, if it is a blank line; -1 if it is
    not, or there is none. ``in_line``: ``buf[start]`` is inside a line begun before (a
    line that starts there is no blank line). The blank line before a postmark, and the
    last one of an mbox, are the mbox's, not the message's.

    >>> box = b"a\\n\\nFrom x"
    >>> _blank_line_before(box, 0, 3, False), _blank_line_before(box, 0, 2, False)
    (2, -1)
    """
    if p <= start:
        return -1
    q = buf.rfind(b"\n", start, p - 1) + 1 or start
    return q if buf[q:p] in _BLANK and not (q == start and in_line) else -1


def _may_be_from(head: bytes) -> bool:
    """Whether a line that starts with ``head`` must be held to its end: a postmark,
    perhaps (``From ...``), or one that may yet turn out a quoted From line (a run of
    ``>`` and a part of "From "; once ``>+From `` shows, it is known)."""
    if not head.startswith(b">"):
        return head[:5] == b"From "[: len(head[:5])]
    rest = head.lstrip(b">")
    return len(rest) < 5 and b"From ".startswith(rest)


def _preamble(read: Callable[[int], bytes], name: str) -> tuple[bytes, int, bool]:
    """The first block(s) and where the first message starts (after its postmark line);
    -1 if there is none. Before it only blank lines may come."""
    buf = b""
    pos = 0
    eof = False
    previous_blank = True
    while True:
        end = buf.find(b"\n", pos)
        if end < 0 and not eof:
            block = read(_BLOCK)
            eof = not block
            buf = buf[pos:] + block
            pos = 0
            continue
        if pos >= len(buf):
            return buf, -1, eof
        end = len(buf) - 1 if end < 0 else end
        line = buf[pos : end + 1]
        if previous_blank and _is_postmark(line, 0, len(line.rstrip(b"\r\n"))):
            return buf, end + 1, eof
        if line.strip():
            raise MailError(
                f"{name!r} is not an mbox: its first line is not a 'From ' postmark line "
                f"(got {line[:60]!r}); give a message file, a Maildir or an mbox"
            )
        previous_blank = line in _BLANK
        pos = end + 1


def _read_mbox_lines(stream: BinaryIO, name: str) -> Iterator[tuple[str, bytes]]:
    """``read_mbox``'s specification, one line at a time and without a size bound: the
    names and bytes of the messages (tests and ``benchmarks/bench_mbox_read.py`` compare
    the two)."""
    lines: list[bytes] = []
    number, previous_blank, started = 0, True, False
    for line in stream:
        if previous_blank and _is_postmark(line, 0, len(line.rstrip(b"\r\n"))):
            if started:
                number += 1
                yield f"{name}, message {number}", _without_last_blank(lines)
            started, lines, previous_blank = True, [], False
            continue
        previous_blank = line in _BLANK
        if not started:
            if line.strip():
                raise MailError(f"{name!r} is not an mbox")
            continue
        lines.append(line[1:] if line.startswith(b">") and _QUOTED_FROM.match(line) else line)
    if started:
        yield f"{name}, message {number + 1}", _without_last_blank(lines)


def _without_last_blank(lines: list[bytes]) -> bytes:
    # the blank line before the next postmark belongs to the mbox, not to the message
    return b"".join(lines[:-1] if lines and lines[-1] in _BLANK else lines)


def _read_stream(stream: BinaryIO, name: str, max_bytes: int) -> Iterator[RawMail]:
    head = stream.peek(256)[:256] if hasattr(stream, "peek") else b""
    if head and looks_like_mbox(head):
        yield from read_mbox(stream, name, max_bytes)
        return
    yield _read_whole(stream, name, max_bytes)


def _files_of(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.iterdir() if not p.name.startswith("."))
    except OSError as exc:
        raise MailError(f"cannot list the folder {str(folder)!r}: {exc.strerror or exc}") from None


def _read_path(
    path: Path,
    max_bytes: int,
    on_error: Callable[[MailError], None] | None = None,
    inside: bool = False,
) -> Iterator[RawMail]:
    """The messages of ``path`` (a file, an mbox, a Maildir or a folder of these).

    ``on_error`` takes the error of a file inside a folder (one that cannot be read, or is
    not a file: a FIFO would block the reading for ever), and the reading goes on; None
    raises it. A folder reached twice (a symbolic link to a folder being read, a loop) is
    read once."""
    if path.is_dir():
        yield from _read_folder(path, max_bytes, on_error, set())
        return
    if inside:
        _check_file(path)
    try:
        fh = open(path, "rb")
    except OSError as exc:
        raise MailError(f"cannot read {str(path)!r}: {exc.strerror or exc}") from None
    with fh:  # read once: a pipe (``<(cat m.eml)``, /dev/stdin, a FIFO) cannot be reopened
        try:
            if looks_like_mbox(fh.peek(256)[:256]):
                yield from read_mbox(fh, str(path), max_bytes)
                return
            mail = _read_whole(fh, str(path), max_bytes)
        except OSError as exc:
            raise MailError(
                f"cannot read the message {str(path)!r}: {exc.strerror or exc}"
            ) from None
    yield mail


def _read_folder(
    folder: Path,
    max_bytes: int,
    on_error: Callable[[MailError], None] | None,
    seen: set[tuple[int, int]],
) -> Iterator[RawMail]:
    try:
        st = folder.stat()
        if (st.st_dev, st.st_ino) in seen:
            return
        seen.add((st.st_dev, st.st_ino))
        maildir = is_maildir(folder)  # its cur and new: one mailbox of message files
        if maildir:
            subs = [folder / sub for sub in _MAILDIR_SUBDIRS if (folder / sub).is_dir()]
            items = [item for sub in subs for item in _files_of(sub) if item.is_file()]
        else:
            items = _files_of(folder)
    except OSError as exc:  # (a folder without search permission: pathlib raises)
        raise MailError(f"cannot read the folder {str(folder)!r}: {exc.strerror or exc}") from None
    for item in items:
        try:
            if maildir:  # one message a file, even one that starts with a postmark
                mail = _maildir_message(item, max_bytes)
                if mail is not None:
                    yield mail
            elif _is_dir(item):
                yield from _read_folder(item, max_bytes, on_error, seen)
            else:
                yield from _read_path(item, max_bytes, inside=True)
        except MailError as exc:
            if on_error is None:
                raise
            on_error(exc)


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError as exc:
        raise MailError(f"cannot read {str(path)!r}: {exc.strerror or exc}") from None


def _maildir_message(path: Path, max_bytes: int) -> RawMail | None:
    """A Maildir's message file; None if it went away since the folder was listed (a
    delivery moves messages from ``tmp`` to ``new`` and ``cur``)."""
    try:
        return _read_file(path, max_bytes)
    except MailError:
        if not path.exists():
            return None
        raise


def _check_file(path: Path) -> None:
    """Raise if ``path``, found in a folder, is not a file (reading a FIFO would wait for a
    writer for ever); a path that does not exist is left to ``open`` to say so."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return
    if stat.S_ISREG(mode):
        return
    kind = "FIFO" if stat.S_ISFIFO(mode) else "socket" if stat.S_ISSOCK(mode) else "device"
    raise MailError(f"{str(path)!r} is not a mail file but a {kind}; take it out of the folder")


def iter_mail(
    source: str | os.PathLike[str] | BinaryIO,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    on_error: Callable[[MailError], None] | None = None,
) -> Iterator[RawMail]:
    """Every message of ``source``, one at a time.

    Parameters
    ----------
    source : path, ``"-"`` or binary stream
        A message file (``.eml`` or any name), an mbox file, a Maildir (see
        :func:`is_maildir`: its ``cur`` and ``new`` are one mailbox; ``tmp``, deliveries in
        progress, is not read), a folder of any of these (read in name order,
        recursively), ``"-"`` for standard input, or an open binary stream (one message,
        or an mbox).
    max_bytes : int
        Bytes kept of one message (see :data:`DEFAULT_MAX_BYTES`).
    on_error : callable, optional
        Called with the :class:`MailError` of a file in a folder that cannot be read (or
        is no file: a FIFO, a socket), in its place; the reading goes on with the next
        file. By default the error is raised and the reading ends. A folder reached twice
        (a symbolic link to a folder being read) is read once.

    Raises
    ------
    MailError
        A path that does not exist or cannot be read, or a file that starts like an mbox
        but is not one; the message names it.
    """
    if isinstance(source, str | os.PathLike):
        if os.fspath(source) == "-":
            yield from _read_stream(sys.stdin.buffer, "<stdin>", max_bytes)
            return
        path = Path(source)
        if not path.exists():
            raise MailError(
                f"no such mail file, mbox or Maildir: {str(path)!r}; check the path"
            ) from None
        yield from _read_path(path, max_bytes, on_error)
        return
    yield from _read_stream(source, getattr(source, "name", "<stream>"), max_bytes)


def iter_classes(
    root: str | os.PathLike[str],
    classes: Iterable[str] | None = None,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> Iterator[tuple[RawMail, str]]:
    """``(message, label)`` for every message under ``root``, one folder per class.

    Each sub-folder of ``root`` is a class named after it (only those in ``classes`` when
    given); its content is read by :func:`iter_mail` (message files, mboxes, Maildirs).
    Classes are read in name order.
    """
    base = Path(root)
    if not base.is_dir():
        raise MailError(
            f"{str(base)!r} is not a folder; training mail is a folder with one sub-folder "
            "per class (e.g. ham/ and spam/), each of message files, mboxes or Maildirs"
        )
    wanted = None if classes is None else set(classes)
    folders = [p for p in _files_of(base) if p.is_dir() and (wanted is None or p.name in wanted)]
    if wanted is not None:
        missing = wanted - {p.name for p in folders}
        if missing:
            raise MailError(
                f"{str(base)!r} has no sub-folder for the class(es) {sorted(missing)}; it has "
                f"{sorted(p.name for p in _files_of(base) if p.is_dir())}"
            )
    if not folders:
        raise MailError(f"{str(base)!r} has no sub-folder: put each class's mail in its own")
    for folder in folders:
        for mail in _read_path(folder, max_bytes):
            yield mail, folder.name
