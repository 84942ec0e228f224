"""A header set on a raw message without re-serialising it (a filter's verdict header)."""

from __future__ import annotations

import re

__all__ = ["set_header", "starts_with_field"]

_NAME = re.compile(r"[!-9;-~]+")  # RFC 5322 field name: printable ASCII but ':'
_FIELD = re.compile(rb"[!-9;-~]+:")  # a line that starts a header field


def starts_with_field(raw: bytes) -> bool:
    """Whether ``raw``'s first line starts a header field (``Name:``): a message with a head.

    >>> starts_with_field(b"Subject: hi\\n"), starts_with_field(b"From Monday on\\n")
    (True, False)
    """
    return _FIELD.match(raw) is not None


def _head_end(raw: bytes) -> int:
    """Where ``raw``'s header block ends: at its first line that is neither a field, a
    field's continuation nor a leading mbox ``From `` line (the blank line that ends a
    head, or a body line of a message without one), or at its end."""
    pos, n = 0, len(raw)
    in_field = False
    while pos < n:
        nl = raw.find(b"\n", pos)
        end = n if nl < 0 else nl + 1
        line = raw[pos:end].rstrip(b"\r\n")
        if pos == 0 and line.startswith(b"From "):  # an mbox postmark (a Unix From line)
            in_field = False
        elif line[:1] in (b" ", b"\t") and in_field:
            pass
        elif _FIELD.match(line):
            in_field = True
        else:
            return pos
        pos = end
    return n


def set_header(raw: bytes, name: str, value: str) -> bytes:
    """``raw`` with the header ``name: value`` at the end of its header block, every
    earlier header of that name removed (a message cannot bring its own verdict), and the
    rest of its bytes unchanged (line endings follow the message's). A message with no
    header gets it as its first line, where mail programs read headers.

    >>> set_header(b"Subject: hi\\nX-Status: forged\\n  folded\\n\\nbody\\n", "X-Status", "spam")
    b'Subject: hi\\nX-Status: spam\\n\\nbody\\n'
    >>> set_header(b"Subject: hi\\r\\n\\r\\nbody", "X-Status", "ham")
    b'Subject: hi\\r\\nX-Status: ham\\r\\n\\r\\nbody'
    >>> set_header(b"\\nbody only\\n", "X-Status", "ham")  # an empty head
    b'X-Status: ham\\n\\nbody only\\n'
    >>> set_header(b"just a line of text\\n", "X-Status", "ham")  # no head: a blank line
    b'X-Status: ham\\n\\njust a line of text\\n'

    (Without that blank line, a first line of the text that reads as a field, or starts
    with a space, would become part of the head.)
    """
    if not _NAME.fullmatch(name):
        raise ValueError(f"{name!r} is not a header name (printable ASCII without ':')")
    if "\n" in value or "\r" in value:
        raise ValueError(f"a header value is one line; got {value!r}")
    first = raw.find(b"\n")
    eol = b"\r\n" if first > 0 and raw[first - 1 : first] == b"\r" else b"\n"
    end = _head_end(raw)
    if end == len(raw) and raw and not raw.endswith(b"\n"):  # headers only, no last newline
        raw += eol
        end = len(raw)
    head, rest = raw[:end], raw[end:]
    lines = head.splitlines(keepends=True)
    prefix = name.lower().encode("ascii") + b":"
    kept: list[bytes] = []
    dropping = False
    for line in lines:
        if dropping and line[:1] in (b" ", b"\t"):  # a continuation of a dropped header
            continue
        dropping = line.lower().startswith(prefix)
        if not dropping:
            kept.append(line)
    new = name.encode("ascii") + b": " + value.encode("utf-8") + eol
    if rest[:1] not in (b"", b"\n", b"\r") and not any(_FIELD.match(line) for line in kept):
        new += eol  # no head but the new field: the text stays the body
    return b"".join(kept) + new + rest
