"""A header set on a raw message without re-serialising it (a filter's verdict header)."""

from __future__ import annotations

import re

__all__ = ["set_header"]

_NAME = re.compile(r"[!-9;-~]+")  # RFC 5322 field name: printable ASCII but ':'


def set_header(raw: bytes, name: str, value: str) -> bytes:
    """``raw`` with the header ``name: value`` at the end of its header block, every
    earlier header of that name removed (a message cannot bring its own verdict), and the
    rest of its bytes unchanged (line endings follow the message's).

    >>> set_header(b"Subject: hi\\nX-Status: forged\\n  folded\\n\\nbody\\n", "X-Status", "spam")
    b'Subject: hi\\nX-Status: spam\\n\\nbody\\n'
    >>> set_header(b"Subject: hi\\r\\n\\r\\nbody", "X-Status", "ham")
    b'Subject: hi\\r\\nX-Status: ham\\r\\n\\r\\nbody'
    """
    if not _NAME.fullmatch(name):
        raise ValueError(f"{name!r} is not a header name (printable ASCII without ':')")
    if "\n" in value or "\r" in value:
        raise ValueError(f"a header value is one line; got {value!r}")
    crlf = raw.find(b"\r\n\r\n")
    lf = raw.find(b"\n\n")
    if crlf >= 0 and (lf < 0 or crlf < lf):
        end, eol = crlf + 2, b"\r\n"
    elif lf >= 0:
        end, eol = lf + 1, b"\n"
    else:  # headers only (or not mail): the new header ends the block
        end, eol = len(raw), (b"\r\n" if raw.endswith(b"\r\n") else b"\n")
        if raw and not raw.endswith(b"\n"):
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
    return b"".join(kept) + new + rest
