"""A message's MIME structure, decoded: its parts' types, names and text.

Parsing is the standard library's :mod:`email` with the ``compat32`` policy: on the
SpamAssassin corpus it parses and decodes a message in ~0.17 ms against ~1.2 ms for
``email.policy.default`` (benchmarks/bench_spam.py), and it is as lenient (truncated MIME,
wrong boundaries and bad headers become defects, never exceptions). Every part is walked
(attached messages too); the transfer encodings base64, quoted-printable and uuencode are
undone by :meth:`email.message.Message.get_payload`; text is converted from its declared
charset, falling back to UTF-8 and then Windows-1252 when the charset is unknown or lies
(:func:`decode_text`). Only ``text/*`` parts are decoded: the others are described by their
type and file name, so a 100 MB attachment costs no decoding.
"""

from __future__ import annotations

import binascii
import codecs
import email.base64mime
import email.errors
import email.header
import email.quoprimime
import email.utils
import os
import quopri
import re
from collections.abc import Iterator
from dataclasses import dataclass
from email._encoded_words import decode_b  # (what get_payload decodes base64 with)
from email.errors import MessageDefect
from email.message import Message
from email.parser import BytesParser
from functools import lru_cache
from pathlib import Path
from typing import Any

from nbayes import _mail_native
from nbayes.mail._errors import MailError
from nbayes.mail._headers import _FIELD as _HEAD_FIELD  # a line that starts a field

__all__ = [
    "MailPart",
    "decode_header",
    "decode_text",
    "message_fields",
    "parse",
    "uudecoded_names",
    "walk_parts",
]

_PARSER = BytesParser()  # compat32, the default (email.policy, a heavy import, is not needed)
_UUENCODE_BEGIN = re.compile(r"^begin [0-7]{3,4} (\S[^\r\n]*)$", re.M)
_UUENCODE_END = re.compile(r"^end\s*$", re.M)


@dataclass(frozen=True, slots=True)
class MailPart:
    """One part of a message's MIME tree.

    Attributes
    ----------
    content_type : str
        Lower case, ``"text/plain"`` when missing or invalid (RFC 2045's default).
    charset : str or None
        The declared charset, lower case.
    filename : str or None
        The part's file name (``Content-Disposition`` or ``Content-Type``'s ``name``).
    encoding : str or None
        The declared ``Content-Transfer-Encoding``, lower case.
    disposition : str or None
        ``"attachment"``, ``"inline"`` or None.
    text : str or None
        The decoded text of a ``text/*`` part; of a ``message/rfc822`` part, the Subject
        and From of the message it holds, decoded; None for other parts.
    """

    content_type: str
    charset: str | None
    filename: str | None
    encoding: str | None
    disposition: str | None
    text: str | None


def parse(message: bytes | bytearray | str | Message | os.PathLike[str]) -> Message:
    """The message ``message`` (raw bytes, text, a path or an already parsed message).

    A str is a message's text (encoded as UTF-8 to parse it), never a path: give a path as
    a :class:`pathlib.Path`. A text with no head is all body, whatever its first line: an
    SMS "From tomorrow on, ..." is not an mbox postmark, nor ":-)" a header field.

    >>> m = parse(b"Subject: hi\\n\\nhello\\n")
    >>> m["Subject"], m.get_payload()
    ('hi', 'hello\\n')
    """
    if isinstance(message, Message):
        return message
    if isinstance(message, bytes | bytearray | memoryview):
        return _parse_bytes(bytes(message))
    if isinstance(message, str):
        parsed = _parse_bytes(message.encode("utf-8", "surrogateescape"))
        setattr(parsed, _FROM_STR, True)  # its parts' 8-bit text: characters (walk_parts)
        return parsed
    if isinstance(message, os.PathLike):
        try:
            data = Path(message).read_bytes()
        except OSError as exc:
            raise MailError(f"cannot read the message {os.fspath(message)!r}: {exc}") from None
        n = _mbox_messages(data)
        if n > 1:  # (a mailbox of 948 was learnt, and scored, as one message)
            raise MailError(
                f"{os.fspath(message)!r} is an mbox of {n:,} messages, not one message: read "
                "its messages with nbayes.mail.iter_mail(path) (SpamFilter.fit(iter_mail("
                "path), ...), or list(iter_mail(path)))"
            )
        return _parse_bytes(data)
    raise TypeError(
        "a message is bytes, str, an email.message.Message or a path (pathlib.Path); got "
        f"{type(message).__name__}"
    )


def _mbox_messages(data: bytes) -> int:
    """How many messages ``data`` holds as an mbox: 1 unless it starts with a postmark
    and another postmark after an empty line is followed by a header field (as
    :func:`nbayes.mail.iter_mail` splits one; a body line "From Monday on ..." is none).

    >>> box = b"From a@b Mon Jan  1 10:00:00 2024\\nSubject: a\\n\\nx\\n\\n"
    >>> _mbox_messages(box * 3), _mbox_messages(box + b"From Monday on, no\\n")
    (3, 1)
    """
    if not _POSTMARK.match(data):
        return 1
    n, pos = 1, 0
    while (end := _mail_native.next_postmark_end(data, pos)) >= 0:  # (_NEXT_POSTMARK's)
        if _HEAD_FIELD.match(data, end):
            n += 1
        pos = end
    return n


def _parse_bytes(data: bytes) -> Message:
    """The parsed message: a single-part message's headers are parsed alone and its body
    set as the payload (what the full parse gives, at a fraction of its cost: the feed
    parser splits the whole body into lines), a multipart message of one level split at
    its boundary lines (:func:`_simple_multipart`); anything unusual takes the full
    parse. A head of more than :data:`MAX_HEAD_LINES` lines is read up to there; a UTF-8
    byte order mark before it (a message saved by a Windows editor) is no part of it (its
    head was read as body: a mail administrator's trial)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    data, cut = _cut_long_head(data)
    msg = _parse_cut(data)
    if cut:
        msg.defects.append(TooManyHeadLinesDefect())
    return msg


#: ``data.count(needle, start, end)`` of bytes, by memchr (the guards below count in every
#: message: CPython's count of "--" read 0.85 GB/s, 4 us of a message's ~300)
_count = _mail_native.count_bytes


#: Lines of a message's top-level head past which the rest of the head is dropped
#: (:class:`TooManyHeadLinesDefect`): 10 MB of header lines took 2.6 s to read, in one
#: call that Python's other threads wait for (``nbayes serve``'s ``/health`` included).
#: The SpamAssassin corpus' longest head has 411 lines (126 fields).
MAX_HEAD_LINES = 4000


class TooManyHeadLinesDefect(MessageDefect):
    """A top-level head of more than :data:`MAX_HEAD_LINES` lines: the lines after those
    are dropped up to the blank line that ends the head; the body is read as it is."""


def _cut_long_head(data: bytes) -> tuple[bytes, bool]:
    """``data`` without the lines of its head after the first :data:`MAX_HEAD_LINES`, up to
    the head's end (its first line that is neither a field nor a continuation: the blank
    line, LF or CRLF), and whether any were dropped.

    >>> _cut_long_head(b"A: 1\\nB: 2\\n\\nbody")
    (b'A: 1\\nB: 2\\n\\nbody', False)
    >>> data, cut = _cut_long_head(b"X: y\\n" * (MAX_HEAD_LINES + 5) + b"\\nbody")
    >>> cut, data.count(b"X: y"), data.endswith(b"X: y\\n\\nbody")
    (True, 4000, True)
    """
    start = data.find(b"\n") if data.startswith(b"From ") else 0  # (an mbox postmark)
    blank = data.find(b"\n\n", max(start, 0))  # (the head ends there at the latest)
    if _count(data, b"\n", 0, len(data) if blank < 0 else blank) <= MAX_HEAD_LINES:
        return data, False  # (most mail: no line-by-line look at the head)
    found = _mail_native.first_non_head_line(data, max(start, 0))  # (_NON_HEAD_LINE's)
    end = len(data) if found < 0 else found
    if _count(data, b"\n", 0, end) <= MAX_HEAD_LINES:
        return data, False
    cut = start
    for _ in range(MAX_HEAD_LINES):
        cut = data.find(b"\n", cut + 1)
    return data[: cut + 1] + data[end + 1 :], True


#: a line that ends a head: neither a field (``Name:``) nor a continuation (the
#: specification of ``_mail_native.first_non_head_line``, which scans without the GIL)
_NON_HEAD_LINE = re.compile(rb"\n(?![!-9;-~]+:|[ \t])")


def _parse_cut(data: bytes) -> Message:
    if _too_many_parts(data):  # (hostile: a million parts took 13 s to parse)
        return _as_text(data, TooManyPartsDefect())
    if _headless(data):  # all of it is the body, as for any text without a head (what
        # the feed parser makes of it after an empty head, without reading it line by line)
        body = Message()
        body.set_payload(data.decode("ascii", "surrogateescape"))
        body.defects.append(email.errors.MissingHeaderBodySeparatorDefect())
        return body
    data = _cut_long_fields(data)
    end = data.find(b"\n\n")
    if end <= 0 or b"\r" in data[:end]:  # (a message starting with a blank line: no head)
        return _full_parse(data)
    msg = _simple_head(data[: end + 1])
    if msg is None:
        msg = _PARSER.parsebytes(data[: end + 1], headersonly=True)
        # (get_payload() decodes 8-bit text with the declared charset: a charset of a NUL
        # or an RFC 2231 one raised ValueError/TypeError)
        try:
            payload: Any = msg.get_payload()
        except (ValueError, TypeError, LookupError):
            payload = True
        if payload or msg.get_content_maintype() in ("multipart", "message"):
            return _full_parse(data)  # a non-header line in the head, or parts
    else:  # (a simple head has no payload)
        maintype = _content_type_of(msg).partition("/")[0]
        if maintype == "multipart" and b"\r" not in data:
            parts = _simple_multipart(msg, data[end + 2 :].decode("ascii", "surrogateescape"))
            if parts is not None:
                return parts
        if maintype in ("multipart", "message"):
            return _full_parse(data)  # parts
    msg.set_payload(data[end + 2 :].decode("ascii", "surrogateescape"))
    return msg


#: Boundary lines (``--`` and a boundary the heads declare) past which a multipart message
#: is read as its headers and a plain-text body (:class:`TooManyPartsDefect`): a message of
#: 1.4 million empty parts (9.8 MB) took 13 s to parse, and through ``nbayes serve`` held
#: every ``/filter`` behind it. The SpamAssassin corpus' most is 29. (No option of a
#: tokenizer's recipe: a model file stored before is protected too; only the tokens of
#: such messages differ from an older nbayes'.)
MAX_PARTS = 1000


#: A head of parts (``multipart/``, ``message/``), at the start of a line (ended by LF, CRLF
#: or a lone CR, which the feed parser takes for a line end too)
_PARTS_HEAD = re.compile(
    rb"(?:^|\r)content-type:[\s\x1c-\x1f]*(?:multipart|message)/", re.I | re.M
)  # (\x1c-\x1f: str.strip() takes them for blanks, and so the library, a fuzzer saw)
#: A boundary declared to start with a blank (RFC 2046 allows it: ``boundary=" B"``, whose
#: lines are ``-- B``), quoted or RFC 2231-encoded (its charset and language within 200
#: bytes before the "'%20": unbounded, a line of "boundary=" repeated, 150 KB, held the GIL
#: 7 s, a review found)
_BLANK_BOUNDARY = re.compile(rb'boundary[*0-9]*\s*=\s*(?:"[ \t]|[^;\r\n]{0,200}\'%(?:20|09))', re.I)


#: What a boundary declared to start with a blank holds (one of these is in every match
#: of _BLANK_BOUNDARY)
_BLANK_BOUNDARY_SIGNS = (b'" ', b'"\t', b"'%20", b"'%09")


def _declares_a_blank_boundary(data: bytes) -> bool:
    """Whether ``data`` declares a boundary that starts with a blank (``_BLANK_BOUNDARY``);
    the pattern's search (90 ms for 10 MB, holding the GIL) only if the data holds one of
    its signs (counted without the GIL).

    >>> [_declares_a_blank_boundary(d) for d in (b'boundary=" B"', b"boundary*=''%20B",
    ...  b'boundary="B"', b'Boundary = "\tB"', b'x=" y"')]
    [True, True, False, True, False]
    """
    if not any(_count(data, sign, 0, len(data)) for sign in _BLANK_BOUNDARY_SIGNS):
        return False
    return _BLANK_BOUNDARY.search(data) is not None


def _too_many_parts(data: bytes) -> bool:
    """Whether ``data`` is a message of parts (its head declares ``multipart/`` or
    ``message/``) with more than :data:`MAX_PARTS` lines that start with ``--`` and then no
    blank (as a boundary line does; an SQL comment, ``-- step 1``, does not, unless a
    boundary is declared to start with a blank). Lines end with LF, CRLF or a lone CR (a
    fuzzer's 1.4 million parts with CR line ends, or with the boundary " B", took 12-25 s:
    the guard saw no boundary line). Counted in C: a Python pass over 16 MB of such lines
    took 3.5 s (a review)."""
    if _count(data, b"--", 0, len(data)) <= MAX_PARTS:  # (most mail: one pass, not two;
        return False  # each line start counted below holds a "--" of its own: no more)
    starts = (b"\n--", b"\r--")  # ("\r--": lone CR line ends; CRLF's "\r\n--" counts once)
    n = sum(_count(data, start, 0, len(data)) for start in starts)
    if n <= MAX_PARTS:  # (most mail)
        return False
    if not _declares_a_blank_boundary(data):
        blanks = (b" ", b"\t", b"\r", b"\n")
        n -= sum(_count(data, start + blank, 0, len(data)) for start in starts for blank in blanks)
    if n <= MAX_PARTS:
        return False
    ends = (data.find(b"\n\n"), data.find(b"\r\n\r\n"), data.find(b"\r\r"))
    end = min((i for i in ends if i >= 0), default=len(data))
    return _PARTS_HEAD.search(data, 0, end) is not None


#: A Content-Type or Content-Disposition field is cut to this many characters and lines
#: before the standard library parses it: its parser of parameters is quadratic (an 80 KB
#: field took 4-12 s, a fuzzer's). The corpus' longest is a spam's 14,299 characters of
#: "; ; ; ...", which reads as before (its parameters are nothing).
MAX_FIELD_CHARS = 2048
MAX_FIELD_LINES = 64
_CONTENT_FIELDS = (b"content-type:", b"content-disposition:")
_FIELDS_SCANNED = 64 * 1024


def _cut_long_fields(data: bytes) -> bytes:
    """``data`` with every Content-Type and Content-Disposition field (at a line's start)
    longer than :data:`MAX_FIELD_CHARS` characters or :data:`MAX_FIELD_LINES` lines cut
    to its first characters and lines; ``data`` itself when none is (each line looked at
    once: linear)."""
    if len(data) <= MAX_FIELD_CHARS:
        return data
    # (the parser's cost is the number of ";" times a field's length: of no account in a
    # message under 64 KiB with 64 of them at most, most mail, which this looks at in C)
    if len(data) < _FIELDS_SCANNED and _count(data, b";", 0, len(data)) <= MAX_FIELD_LINES:
        return data
    low = data.lower()
    eol = b"\n" if b"\n" in low else b"\r"  # (lone CR line ends)
    cuts: list[tuple[int, int]] = []  # (the end of what is kept, the end of the field)
    pos = low.find(b"content-")
    while pos >= 0:
        if (pos == 0 or low[pos - 1] in b"\r\n") and low.startswith(_CONTENT_FIELDS, pos):
            start, lines, keep = pos, 0, -1
            while True:
                end = low.find(eol, pos)
                end = len(low) if end < 0 else end
                lines += 1
                if keep < 0 and lines > MAX_FIELD_LINES:
                    keep = pos  # (the start of this line)
                elif keep < 0 and end - start > MAX_FIELD_CHARS:
                    keep = start + MAX_FIELD_CHARS
                pos = end + 1
                if pos >= len(low) or low[pos] not in b" \t":  # (no continuation line)
                    break
            if keep >= 0:
                cuts.append((keep, end))
        else:
            pos += 1
        pos = low.find(b"content-", pos)
    if not cuts:
        return data
    out, at = [], 0
    for keep, end in cuts:  # (what is kept never ends a line: no blank line made)
        out.append(data[at:keep].rstrip(b"\r\n"))
        at = end
    out.append(data[at:])
    return b"".join(out)


class TooManyPartsDefect(MessageDefect):
    """More than :data:`MAX_PARTS` boundary lines: the message is read as its headers and
    a plain-text body, its parts' text without their boundaries and content fields."""


class NestingTooDeepDefect(MessageDefect):
    """More than :data:`MAX_CONTAINERS` heads of parts, which could nest deeper than the
    standard library's parser can follow (it recurses once per level): the message is read
    as its headers and a plain-text body, its nested heads and boundaries included as
    text."""


_LINE_TESTS_PER_MB = 2_000_000
_LINE_TESTS_MIN = 200_000


class ParamsDefect(MessageDefect):
    """Parameters of a Content-Type the standard library cannot read (RFC 2231 pieces that
    do not combine, a charset it cannot use): the message is read as text."""


#: Heads of parts (``multipart/``, ``message/``) past which a message is read as its
#: headers and a plain-text body (:class:`NestingTooDeepDefect`): the feed parser recurses
#: once per level, and whether a thousand levels overflowed Python's stack depended on how
#: deep the caller's stack was, so that one message had the tokens of its parts on one path
#: and of its text on another (a fuzzer's). The SpamAssassin corpus' most is 9.
MAX_CONTAINERS = 256


def _headless(data: bytes) -> bool:
    """Whether ``data`` has no head though it starts with a line the parser reads one
    into: a line starting with "From " that is no mbox postmark (``From sender date``:
    one is read as before), a space or a tab (a field's continuation), or a colon (a
    field of no name), and no header field after such lines. Text such as "From
    tomorrow on, ...", " ok" or ":-)" lost its words: the parser's head swallowed them.
    (A text whose first line is none of these is read as a body already; one whose first
    line is a field, ``Re: lunch``, has a head; so has a stray continuation line before
    fields.) Lines end in LF, CRLF or a lone CR, as the parser reads them.

    >>> [_headless(t) for t in (b"From tomorrow on, no", b" ok\\nfine", b":-) see you",
    ...  b"From a@b Mon Jan 1 10:00:00 2024\\nSubject: hi\\n\\nx", b" odd\\nSubject: hi\\n\\nx",
    ...  b"Subject: hi", b"hello", b"\\nhi", b"From a@b Mon Jan 1 10:00:00 2024\\n\\nx",
    ...  b" odd\\rSubject: hi\\r\\rx")]
    [True, True, True, False, False, False, False, False, False, False]
    """
    if data[:1] not in (b" ", b"\t", b":") and not data.startswith(b"From "):
        return False
    if _POSTMARK.match(data):
        return False
    end = _mail_native.first_not_headish(data)  # (the line after the head-ish ones)
    return _HEAD_FIELD.match(data, len(data) if end < 0 else end) is None


# an mbox postmark: "From sender" and a date with a time and a year
# (bounded as _NEXT_POSTMARK is: unbounded, "From a " and 8,000 "1:11 " held the GIL 3.75 s,
# a review's; the search backtracked over the line for every "d:dd")
_POSTMARK = re.compile(rb"From \S{1,300} [^\r\n]{0,100}\d:\d\d[^\r\n]{0,100}\d{4}")
# a postmark after an empty line, to the start of the line after it (an mbox's next
# message); the specification of _mail_native.next_postmark_end, which finds it in one pass
# (this search's bounded pieces nest: 4 s a MB of "From a 1:1111..." lines, holding the GIL)
_NEXT_POSTMARK = re.compile(
    rb"(?:\r?\n){2}From \S{1,300} [^\r\n]{0,100}\d:\d\d[^\r\n]{0,100}\d{4}[^\r\n]{0,100}\r?\n"
)
# the line break before the first line the feed parser takes for no part of a head: not
# a "From " line, a continuation (a space or a tab first) or a field of no name (a colon);
# the specification of _mail_native.first_not_headish, which scans without the GIL (this
# search held it 0.3 s for 10 MB of ":" lines: every other request of `nbayes serve` waited)
_NOT_HEADISH = re.compile(rb"(?:\r\n|\r(?!\n)|\n)(?!From |[ \t:])")


def _full_parse(data: bytes) -> Message:
    """The feed parser's message, or, for a message of more than :data:`MAX_CONTAINERS`
    heads of parts (or nested too deep for the parser anyway), the message read as a
    plain-text body (:class:`NestingTooDeepDefect`): a verdict, not a RecursionError."""
    low = data.lower()  # (counted in C first: the pattern costs 14 ms a MB)
    heads = low.count(b"multipart/") + low.count(b"message/")
    if heads > MAX_CONTAINERS and len(_PARTS_HEAD.findall(data)) > MAX_CONTAINERS:
        return _as_text(data, NestingTooDeepDefect())
    # The feed parser tests each line against the boundary of every part it is in: a
    # message 250 levels deep of short lines took 50 s a MB (a fuzzer's). Heads (an upper
    # bound of the depth) times lines within a budget of 2 million tests a MB (~1 s), and
    # of 200,000 (~0.1 s) for any message
    if heads > 8:
        lines = data.count(b"\n") + data.count(b"\r")
        if heads * lines > max(_LINE_TESTS_MIN, _LINE_TESTS_PER_MB * len(data) / 1e6):
            return _as_text(data, NestingTooDeepDefect())
    try:
        return _PARSER.parsebytes(data)
    except RecursionError:  # (a caller already deep in its stack)
        return _as_text(data, NestingTooDeepDefect())
    except (ValueError, TypeError, LookupError):
        # parameters the library cannot combine (``x*=a; x*0=b``: TypeError) or a charset
        # it cannot use in ``boundary*=`` (NUL, idna): it raised on every path
        return _as_text(data, ParamsDefect())


# The lines of a body read as text that are MIME's, not the message's: boundaries, and the
# parts' content fields (a spam text nested in 5,000 parts came after 350 KB of them, past
# the text a tokenizer reads: "free money viagra" scored ham); the specification of
# _mail_native.strip_mime_lines, which scans without the GIL (this pattern's sub held it
# 0.7 s for 10 MB of empty parts: every other request of `nbayes serve` waited)
_MIME_LINE = re.compile(
    rb"^(?:--|(?:content-[a-z-]+|mime-version):)[^\n]*\n(?:[ \t][^\n]*\n)*", re.I | re.M
)


def _as_text(data: bytes, defect: MessageDefect) -> Message:
    """The message read as its headers and a plain-text body: its parts' text, without
    their boundaries and content fields; ``defect`` says why."""
    if b"\n" not in data:  # lone CR line ends: their body was lost (a spam read as ham)
        data = data.replace(b"\r", b"\n")
    end, gap = data.find(b"\n\n"), 2
    crlf = data.find(b"\r\n\r\n")
    if crlf >= 0 and (end < 0 or crlf < end):
        end, gap = crlf, 4
    if end < 0:
        end, gap = len(data), 0
    msg = _PARSER.parsebytes(data[: end + 1], headersonly=True)
    for name in ("content-type", "content-transfer-encoding", "content-disposition"):
        del msg[name]  # (a disposition's parameters: the library's parser is quadratic)
    msg["Content-Type"] = "text/plain"
    body = _mail_native.strip_mime_lines(data[end + gap :])  # (_MIME_LINE.sub(b"", ...))
    msg.set_payload(body.decode("ascii", "surrogateescape"))
    msg.defects.append(defect)
    return msg


# A head of well-formed fields only: "Name: value" lines (RFC 5322's printable name, as
# the feed parser's headerRE), each followed by its continuation lines (starting with a
# space or a tab), every line ending in "\n" (no "\r": _parse_bytes sends those to the
# feed parser). _SIMPLE_HEAD.fullmatch and _FIELD.findall are the specification of
# _mail_native.head_fields, which reads a head in one linear pass, 3.3x faster
# (tests/spam/test_mail_markup.py compares them; benchmarks/bench_mail_scans.py times them).
_SIMPLE_HEAD = re.compile(r"(?:[!-9;-~]+:[^\n]*\n(?:[ \t][^\n]*\n)*)*")
_FIELD_START = re.compile(r"\n(?![ \t])")
_FIELD = re.compile(r"([!-9;-~]+):[ \t]*([^\n]*(?:\n[ \t][^\n]*)*)\n")


def _simple_head(head: bytes | str) -> Message | None:
    """The message of the header block ``head`` (ending in its last field's newline) as
    the feed parser (compat32) builds it, without its line-by-line state machine; None if
    ``head`` holds anything but well-formed fields and a leading envelope "From " line
    (the feed parser then reads it, defects and all). tests/spam/test_mail.py checks that
    both give the same message on varied heads and on the shared corpus."""
    text = head.decode("ascii", "surrogateescape") if isinstance(head, bytes) else head
    msg = Message()
    if text.startswith("From "):
        eol = text.find("\n")
        msg.set_unixfrom(text[:eol])
        text = text[eol + 1 :]
    if "\nFrom " in text:
        return None  # a misplaced envelope line (a defect)
    fields = _mail_native.head_fields(text)
    if fields is None:
        return None  # not a field
    # compat32's header_source_parse: the first line's value left-stripped, the
    # continuation lines kept with their line breaks, the trailing ones dropped
    if "\r" not in text:  # stored as set_raw (what the feed parser calls) stores them
        msg.__dict__["_headers"].extend(fields)
        return msg
    set_raw = msg.set_raw
    for field in _FIELD_START.split(text[:-1]):
        name, value = field.split(":", 1)
        set_raw(name, value.lstrip(" \t").rstrip("\r\n"))
    return msg


def _content_type_of(msg: Message) -> str:
    """``msg.get_content_type()`` in one pass over the header names (``Message.get``
    lower-cases each name until it finds the field, and each call starts over)."""
    for name, value in msg.raw_items():
        if len(name) == 12 and name.lower() == "content-type":
            if type(value) is not str or not value.isascii():
                return msg.get_content_type()  # (8-bit: the library's reading)
            ctype = value.partition(";")[0].strip().lower()
            return ctype if ctype.count("/") == 1 else "text/plain"
    return msg.get_default_type()


def _boundary_lines(body: str, sep: str) -> Iterator[tuple[int, int, bool]]:
    """The lines of ``body`` (newline-separated) that the feed parser's boundary pattern
    matches, ``sep`` ("--" and the boundary) then optionally "--" (a close), spaces or
    tabs and the line's end: each as (start, start of the next line or the body's end,
    close), up to the first close."""
    n = len(sep)
    pos = 0 if body.startswith(sep) else body.find("\n" + sep) + 1
    if pos == 0 and not body.startswith(sep):
        return
    while True:
        eol = body.find("\n", pos + n)
        rest = body[pos + n : len(body) if eol < 0 else eol]
        close = rest.startswith("--")
        if not (rest[2:] if close else rest).strip(" \t"):
            yield pos, len(body) if eol < 0 else eol + 1, close
            if close:
                return
        found = body.find("\n" + sep, pos)
        if found < 0:
            return
        pos = found + 1


def _simple_multipart(msg: Message, body: str, depth: int = 0) -> Message | None:
    """``msg``, a multipart head :func:`_simple_head` read, with the parts of ``body``
    attached as the feed parser (compat32) attaches them, found by ``str.find`` of the
    boundary instead of its line-by-line state machine (3-4x faster). None where ``body``
    holds anything but a start boundary, parts of well-formed heads (multiparts of their
    own read alike, no attached message) and a close boundary (the feed parser then reads
    it, defects and all: a missing or wrong boundary, adjacent boundaries, a part without
    a blank line after its head). tests/spam/test_mail.py checks that both give the same
    message. Multiparts nested deeper than 8 levels are left to the feed parser too."""
    if depth > 8 or _content_type_of(msg) == "multipart/digest":  # (digest: its parts
        return None  # default to message/rfc822)
    try:
        boundary = msg.get_boundary()
    except (ValueError, TypeError, LookupError):  # (left to _full_parse: read as text)
        return None
    cte = str(msg.get("content-transfer-encoding", "8bit")).lower()
    if not boundary or cte not in ("7bit", "8bit", "binary"):
        return None
    lines = list(_boundary_lines(body, "--" + boundary))
    if len(lines) < 2 or lines[0][2] or not lines[-1][2]:
        return None  # no start or no close boundary, or a close first
    if lines[0][0] > 0:  # the last newline of the preamble belongs to the boundary
        msg.preamble = body[: lines[0][0] - 1]
    for (_, start, _), (end, _, _) in zip(lines, lines[1:], strict=False):
        text = body[start:end]  # ends in "\n" (the next boundary starts a line)
        if not text:
            return None  # adjacent boundaries: the feed parser skips the second
        if text[0] == "\n":
            part: Message | None = Message()
            content = text[1:]
        else:
            blank = text.find("\n\n")
            if blank < 0:
                return None  # a head without a blank line after it
            part = _simple_head(text[: blank + 1])
            content = text[blank + 2 :]
        maintype = None if part is None else _content_type_of(part).partition("/")[0]
        if part is None or maintype == "message":
            return None
        if maintype == "multipart":  # nested: its own boundary inside
            if _simple_multipart(part, content, depth + 1) is None:
                return None
            # the last newline of its epilogue belongs to this boundary (none: None)
            part.epilogue = part.epilogue[:-1] if part.epilogue else None
        else:
            part.set_payload(content[:-1])  # its last newline belongs to the boundary
        msg.attach(part)
    close_end = lines[-1][1]
    msg.epilogue = body[close_end:] if body[close_end - 1 : close_end] == "\n" else ""
    return msg


@lru_cache(maxsize=256)
def _codec(charset: str) -> str | None:
    """The Python codec of a declared charset, None if unknown or not a text codec."""
    name = charset.strip().strip("\"'").lower()
    if name in ("", "us-ascii", "ascii", "unknown-8bit", "x-unknown", "default", "8bit"):
        return None
    try:
        info = codecs.lookup(name)
    except (LookupError, ValueError):
        return None
    if not getattr(info, "_is_text_encoding", True):
        return None
    return info.name


#: codecs whose text is written in ASCII bytes (shifts and escapes between them): a part
#: declaring one is decoded with it though its bytes are ASCII (``charset=utf-7``, a
#: known way of hiding words from filters, read ``Buy+ACA-cheap`` as one token)
_SEVEN_BIT = frozenset({
    "utf-7", "iso2022_jp", "iso2022_jp_1", "iso2022_jp_2", "iso2022_jp_2004",
    "iso2022_jp_3", "iso2022_jp_ext", "iso2022_kr", "hz",
})  # fmt: skip


@lru_cache(maxsize=256)
def _seven_bit_codec(charset: str) -> str | None:
    codec = _codec(charset)
    return codec if codec in _SEVEN_BIT else None


def decode_text(payload: bytes, charset: str | None) -> str:
    """``payload`` as text: its declared ``charset`` if it decodes, else UTF-8 if it
    decodes, else Windows-1252 (bytes it does not define become U+FFFD).

    >>> decode_text("café".encode("latin-1"), "utf-8")  # a lying charset
    'café'
    >>> decode_text("café".encode("utf-8"), "x-no-such-charset")
    'café'
    """
    if payload.isascii():
        seven = _seven_bit_codec(charset) if charset else None
        if seven is not None:  # (ASCII bytes that are no ASCII text: UTF-7, ISO-2022-JP)
            try:
                return payload.decode(seven)
            except (UnicodeDecodeError, ValueError):
                pass
        return payload.decode("ascii")
    codec = _codec(charset) if charset else None
    if codec is not None:
        try:
            return payload.decode(codec)
        except (UnicodeDecodeError, LookupError, ValueError):
            pass
    try:
        return payload.decode("utf-8")
    except UnicodeDecodeError:
        return payload.decode("cp1252", "replace")


#: The characters of a header's value :func:`decode_header` reads by default: a line is
#: at most 998 characters (RFC 5322) and a folded To: of a thousand addresses some 40,000;
#: the standard library decodes encoded words in quadratic time (a Subject of 100,000 of
#: them, 2 MB, took 22 s).
MAX_HEADER_CHARS = 65536


def decode_header(value: Any, max_chars: int | None = MAX_HEADER_CHARS) -> str:
    """A header's text: RFC 2047 encoded words decoded, raw 8-bit bytes guessed as in
    :func:`decode_text`; of a value longer than ``max_chars`` characters (None: no
    bound), its beginning, cut at a space.

    >>> decode_header("=?utf-8?q?caf=C3=A9?= au lait")
    'café au lait'
    >>> decode_header("=?utf-8?q?caf=C3=A9?= au lait", max_chars=26)
    'café au'
    """
    if not isinstance(value, str):  # compat32 hands a Header for undecodable ones
        value = str(value)
    if max_chars is not None and len(value) > max_chars:
        value = value[:max_chars]
        space = max(value.rfind(" "), value.rfind("\t"))
        if space > 0:  # (not in the middle of an encoded word)
            value = value[:space]
    if value.isascii():
        if "=?" not in value:
            return value
    else:  # 8-bit bytes read as surrogates by the parser
        value = decode_text(value.encode("utf-8", "surrogateescape"), None)
        if "=?" not in value:
            return value
    out = _decoded_words(value)
    # decode_header keeps the spaces around encoded words in the plain chunks
    return " ".join(filter(None, (t.strip() for t in out)))


def _decoded_words(value: str) -> list[str]:
    """The chunks of ``value`` the library's ``decode_header`` finds, each decoded (the
    value itself when the library cannot read it)."""
    try:
        chunks = _library_decode_header(value)
    except (ValueError, LookupError, AssertionError, email.errors.MessageError):
        # (MessageError: compat32 raises HeaderParseError for bad base64, "=?utf-8?b?A?=")
        return [value]
    return [
        chunk if isinstance(chunk, str) else decode_text(chunk, charset)
        for chunk, charset in chunks
    ]


#: the standard library's pattern of an RFC 2047 encoded word (``email.header.ecre``)
_ENCODED_WORD: re.Pattern[str] = email.header.ecre  # type: ignore[attr-defined]


def _split_encoded_words(line: str) -> list[str]:
    """``email.header.ecre.split(line)``, in linear time.

    The library's pattern of an encoded word runs lazily from each "=?" to the next "?="
    of the line: "=?"s with none after them took quadratic time (4 s for a value of 64 KB,
    a fuzzer's). No encoded word ends past the line's last "?=", so the pattern is run up
    to it (where each "=?" finds its "?=" or fails at once), and the rest of the line joins
    the last plain piece, as the library's split would have it."""
    end = line.rfind("?=") + 2
    if end <= 1:  # no "?=": no encoded word
        return [line]
    if "=?" not in line[end:]:
        return _ENCODED_WORD.split(line)
    parts = _ENCODED_WORD.split(line[:end])
    parts[-1] += line[end:]
    return parts


def _charset_across_lines(header: str) -> bool:
    """Whether the library's pattern of an encoded word matches ``header`` with a charset
    that spans lines (``=?utf-8\n ?q?x?=``: ``[^?]*?`` crosses a newline, the encoded text
    does not), in linear time: the last "?" before a line is the one of a "=?", and the
    line's first "?" starts ``?q?`` or ``?b?`` followed by a "?=" on that line."""
    last = -1  # the position of the last "?" before the line
    offset = 0
    for number, line in enumerate(header.split("\n")):
        if number and last >= 1 and header[last - 1] == "=":
            p = line.find("?")
            if (
                p >= 0
                and line[p + 1 : p + 2] in ("q", "Q", "b", "B")
                and line[p + 2 : p + 3] == "?"
            ):
                if line.find("?=", p + 3) >= 0:
                    return True
        q = line.rfind("?")
        if q >= 0:
            last = offset + q
        offset += len(line) + 1
    return False


def _library_decode_header(header: str) -> list[tuple[Any, str | None]]:
    """``email.header.decode_header(header)`` of a str, word for word the standard
    library's (Python 3.11-3.13) but for its split of a line into encoded words,
    :func:`_split_encoded_words` (linear where the library's is quadratic)."""
    # (the library's search of the whole value: its pattern's "." stops at "\n" only, and
    # an encoded word's charset may span lines)
    if "=?" not in header or not (
        any(len(_split_encoded_words(x)) > 1 for x in header.split("\n"))
        or _charset_across_lines(header)
    ):
        return [(header, None)]
    words: list[tuple[str, str | None, str | None]] = []
    for line in header.splitlines():
        parts = _split_encoded_words(line)
        first = True
        while parts:
            unencoded = parts.pop(0)
            if first:
                unencoded = unencoded.lstrip()
                first = False
            if unencoded:
                words.append((unencoded, None, None))
            if parts:
                charset = parts.pop(0).lower()
                encoding = parts.pop(0).lower()
                encoded = parts.pop(0)
                words.append((encoded, encoding, charset))
    # whitespace between two encoded words is dropped
    droplist = [
        n - 1
        for n, w in enumerate(words)
        if n > 1 and w[1] and words[n - 2][1] and words[n - 1][0].isspace()
    ]
    for d in reversed(droplist):
        del words[d]
    decoded: list[tuple[Any, str | None]] = []
    for encoded_string, word_encoding, word_charset in words:
        if word_encoding is None:
            decoded.append((encoded_string, word_charset))
        elif word_encoding == "q":
            decoded.append((email.quoprimime.header_decode(encoded_string), word_charset))
        elif word_encoding == "b":
            paderr = len(encoded_string) % 4  # Postel's law: add missing padding
            if paderr:
                encoded_string += "==="[: 4 - paderr]
            try:
                decoded.append((email.base64mime.decode(encoded_string), word_charset))
            except binascii.Error:
                raise email.errors.HeaderParseError("Base64 decoding error") from None
        else:
            raise AssertionError("Unexpected encoding: " + word_encoding)
    # runs of words of one charset collapse (plain ones joined by a space)
    collapsed: list[tuple[Any, str | None]] = []
    last_word: bytes | None = None
    last_charset: str | None = None
    for word, word_charset in decoded:
        if isinstance(word, str):
            word = bytes(word, "raw-unicode-escape")
        if last_word is None:
            last_word, last_charset = word, word_charset
        elif word_charset != last_charset:
            collapsed.append((last_word, last_charset))
            last_word, last_charset = word, word_charset
        elif last_charset is None:
            last_word += b" " + word
        else:
            last_word += word
    collapsed.append((last_word, last_charset))
    return collapsed


_PARAM = {
    name: re.compile(rf';\s*{name}\s*=\s*(?:"([^"]*)"|([^;\s]+))', re.I)
    for name in ("charset", "name", "filename")
}


def _headers_of(part: Message) -> dict[str, str]:
    """A part's headers by lower-case name, the first of each (as ``Message.get`` finds
    them), values as parsed: one pass instead of a scan of every header per ``get``. Only
    names of the lengths of those walk_parts reads (a lower-cased name keeps its length,
    but for "İ", which no such name holds)."""
    heads: dict[str, str] = {}
    for name, value in part.raw_items():
        if len(name) in _PART_HEADER_LENGTHS:  # (most names: no need to lower-case them)
            heads.setdefault(name.lower(), value)
    return heads


#: the lengths of the header names walk_parts reads (content-type, -disposition,
#: -transfer-encoding): :func:`_headers_of` keeps names of these lengths only
_PART_HEADER_LENGTHS = frozenset({12, 19, 25})


def _content_type(part: Message, heads: dict[str, str]) -> str:
    """``part.get_content_type()``, from ``heads``."""
    value = heads.get("content-type")
    if value is None:
        return part.get_default_type()
    ctype = str(value).split(";", 1)[0].strip().lower()
    return ctype if ctype.count("/") == 1 else "text/plain"


def _param(part: Message, heads: dict[str, str], name: str, header: str) -> str | None:
    raw = heads.get(header)
    if raw is None:
        return None
    raw = str(raw)
    if "*" in raw:  # RFC 2231 continuations and charsets: the library's slow, full parser
        try:
            value = part.get_param(name, header=header)
            if isinstance(value, tuple):  # (a charset of a NUL: ValueError)
                value = email.utils.collapse_rfc2231_value(value)
        except (ValueError, TypeError, IndexError, LookupError):
            return None
        if value is None or value is True:  # True: a bare parameter without "="
            return None
        return decode_header(str(value)).strip() or None
    m = _PARAM[name].search(raw)
    if m is None:
        return None
    value = m.group(1) if m.group(1) is not None else m.group(2)
    return decode_header(value).strip() or None


_COMPAT32 = Message().policy  # (without importing email.policy)
_FROM_STR = "_nbayes_from_str"  # set on a message parsed from a str
_UUENCODED = frozenset({"x-uuencode", "uuencode", "uue", "x-uue"})  # (left to get_payload)
#: the transfer encodings ``Message.get_payload(decode=True)`` undoes (compat32)
_TRANSFER_ENCODED = _UUENCODED | {"quoted-printable", "base64"}


def _text_of(part: Message, charset: str | None, cte: Any = None, from_str: bool = False) -> str:
    """The decoded text of a leaf part (``cte``: its first Content-Transfer-Encoding
    header as parsed). ``from_str``: the message was given as a str (its text encoded as
    UTF-8 to parse it), so a part's 8-bit text is characters already, whatever charset it
    declares; only what a transfer encoding hides is bytes of that charset."""
    raw = part.__dict__.get("_payload")  # (what get_payload reads; no public reader of it)
    if (
        type(raw) is str
        and type(part) is Message
        and part.policy is _COMPAT32
        and (cte is None or (type(cte) is str and cte.isascii()))
    ):
        # what get_payload(decode=True) returns for a payload that is not uuencoded (its
        # 8-bit bytes read as surrogates), without its header scan, its check of the
        # whole text for surrogates and its copies
        encoding = "" if cte is None else cte.lower()
        if (
            encoding not in _TRANSFER_ENCODED
            and raw.isascii()
            and (not charset or _seven_bit_codec(charset) is None)
        ):
            return raw  # (decode_text of ASCII bytes: the same text)
        if encoding not in _UUENCODED:
            try:
                data = raw.encode("ascii", "surrogateescape")
            except UnicodeEncodeError:
                data = None  # (code points beyond ASCII and the 8-bit surrogates)
            if data is not None:
                if encoding == "quoted-printable":
                    data = quopri.decodestring(data)
                elif encoding == "base64":
                    data, defects = decode_b(b"".join(data.splitlines()))
                    for defect in defects:
                        part.policy.handle_defect(part, defect)
                elif from_str:
                    charset = "utf-8"
                return decode_text(data, charset)
    try:
        payload = part.get_payload(decode=True)
    except (ValueError, LookupError, AssertionError):  # pragma: no cover - compat32 is lenient
        payload = None
    if not isinstance(payload, bytes):
        raw = part.get_payload()
        payload = raw.encode("utf-8", "surrogateescape") if isinstance(raw, str) else b""
    if from_str and str(cte or "").strip().lower() not in _TRANSFER_ENCODED:
        charset = "utf-8"
    return decode_text(payload, charset)


def walk_parts(message: Message) -> Iterator[MailPart]:
    """Every part of ``message``, attached messages' parts included (containers, such as
    ``multipart/*``, with their type only; an attached message, ``message/rfc822``, with
    its Subject and From as its text).

    >>> raw = (b"Content-Type: multipart/mixed; boundary=B\\n\\n--B\\n"
    ...        b"Content-Type: text/plain; charset=utf-8\\n"
    ...        b"Content-Transfer-Encoding: base64\\n\\nY2Fmw6k=\\n--B\\n"
    ...        b"Content-Type: application/pdf; name=bill.pdf\\n\\n%PDF\\n--B--\\n")
    >>> [(p.content_type, p.filename, p.text) for p in walk_parts(parse(raw))]
    [('multipart/mixed', None, None), ('text/plain', None, 'café'),
     ('application/pdf', 'bill.pdf', None)]
    """
    from_str = getattr(message, _FROM_STR, False)
    stack = [message]  # Message.walk's order, without its recursion (parts nested deep)
    while stack:
        part = stack.pop()
        heads = _headers_of(part)
        ctype = _content_type(part, heads)
        if part.is_multipart():  # containers are described only, attached messages
            # by their Subject and From (a forwarded phishing mail's words)
            text = _attached_heads(part) if ctype == "message/rfc822" else None
            yield MailPart(ctype, None, None, None, None, text)
            children: list[Message] = part.get_payload()  # type: ignore[assignment]
            stack.extend(reversed(children))
            continue
        charset = _param(part, heads, "charset", "content-type")
        filename = _param(part, heads, "filename", "content-disposition") or _param(
            part, heads, "name", "content-type"
        )
        encoding = heads.get("content-transfer-encoding")
        disposition = heads.get("content-disposition")
        text = _text_of(part, charset, encoding, from_str) if ctype.startswith("text/") else None
        yield MailPart(
            ctype,
            charset.lower() if charset else None,
            filename,
            str(encoding).strip().lower() if encoding else None,
            str(disposition).split(";", 1)[0].strip().lower() if disposition else None,
            text,
        )


def _attached_heads(part: Message) -> str | None:
    """The Subject and From of the message a ``message/rfc822`` part holds, decoded, one a
    line (None if it has neither): the words a reader sees of a forwarded message's head
    (a report of phishing forwarded to abuse@ gave its body's tokens, not its subject's)."""
    inner = part.get_payload()
    if not isinstance(inner, list) or not inner or not isinstance(inner[0], Message):
        return None
    lines = []
    for name, value in inner[0].raw_items():
        if len(name) in (4, 7) and name.lower() in ("subject", "from"):
            lines.append(decode_header(value))
    return "\n".join(lines) or None


def uudecoded_names(text: str) -> tuple[str, list[str]]:
    """``text`` without its uuencoded blocks, and the file names they carried.

    >>> uudecoded_names("see\\nbegin 644 a.exe\\nM86)C\\n`\\nend\\nbye")
    ('see\\n\\nbye', ['a.exe'])
    """
    if "begin " not in text:
        return text, []
    names: list[str] = []
    out: list[str] = []
    pos = 0
    while True:
        m = _UUENCODE_BEGIN.search(text, pos)
        if m is None:
            out.append(text[pos:])
            break
        out.append(text[pos : m.start()])
        names.append(m.group(1).strip())
        end = _UUENCODE_END.search(text, m.end())
        if end is None:
            break
        pos = end.end()
    return "".join(out), names


def message_fields(m: Any) -> Any:
    """Everything of a parsed message a reader can see, parts included, as plain data: the
    fast multipart split (:func:`parse`) must give the feed parser's message, and this is
    what the tests and ``benchmarks/check_spam_fast_paths.py`` compare."""
    payload = m.get_payload()
    body = [message_fields(p) for p in payload] if isinstance(payload, list) else payload
    return (
        m.get_unixfrom(),
        list(m.raw_items()),
        m.get_default_type(),
        [type(d).__name__ for d in m.defects],
        m.preamble,
        m.epilogue,
        body,
    )
