"""``read_mbox`` reads an mbox in blocks (postmarks found by a byte search). The reading it
replaced, one line at a time, is kept as its specification (``_read_mbox_lines``): the same
messages, the same bytes, for any split of the stream into reads and any block and
long-line size."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import nbayes.mail._sources as sources
from nbayes.mail import MailError, read_mbox
from nbayes.mail._sources import _read_mbox_lines


class Trickle(io.RawIOBase):
    """A stream that answers each read with at most the next of ``sizes`` bytes (a pipe)."""

    def __init__(self, data: bytes, sizes: list[int]) -> None:
        self.data, self.at, self.sizes, self.n = data, 0, sizes or [7], 0

    def readable(self) -> bool:
        return True

    def readinto(self, b: bytearray) -> int:  # type: ignore[override]
        k = min(len(b), self.sizes[self.n % len(self.sizes)])
        self.n += 1
        out = self.data[self.at : self.at + k]
        self.at += len(out)
        b[: len(out)] = out
        return len(out)


LINES = [
    b"From a@b Mon Jul  1 10:00:00 2002\n",
    b"From b@c  Tue Jul  2 11:00:00 2002\r\n",
    b"From here on, a body line\n",
    b"From \n",
    b"From x 1:23",  # a postmark without its newline, if it ends the file
    b">From quoted\n",
    b">>>From quoted twice\n",
    b">Fro\n",
    b"a>From b\n",
    b"\n",
    b"\r\n",
    b"\r",
    b" \n",
    b"F\n",
    b"Subject: hi\n",
    b"x" * 40 + b"\n",
    b"\xff\xfe binary\n",
]


@st.composite
def mboxes(draw: st.DrawFn) -> bytes:
    body = draw(st.lists(st.sampled_from(LINES) | st.binary(max_size=12), max_size=40))
    lead = draw(st.sampled_from([b"", b"\n", b"\r\n\n", b" \n"]))
    first = [LINES[0]] if draw(st.booleans()) else []
    return lead + b"".join(first + body)


def _by_lines(data: bytes) -> list[tuple[str, bytes]] | str:
    try:
        return list(_read_mbox_lines(io.BytesIO(data), "box"))
    except MailError:
        return "not an mbox"


@settings(max_examples=400, deadline=None)
@example(  # a "\r\n" blank line read a byte at a time, before a postmark
    data=b"From a@b Mon Jul  1 10:00:00 2002\nx\n\r\nFrom b@c Mon Jul  1 10:00:00 2002\nhi\n",
    block=1,
    long_line=1,
    max_bytes=1 << 30,
    sizes=[],
    trickle=False,
)
@given(
    data=mboxes(),
    block=st.sampled_from([1, 2, 3, 5, 8, 64, 1 << 20]),
    long_line=st.sampled_from([1, 3, 6, 20, 4096]),
    max_bytes=st.sampled_from([0, 1, 5, 30, 1 << 30]),
    sizes=st.lists(st.integers(1, 40), max_size=5),
    trickle=st.booleans(),
)
def test_the_same_messages_as_read_line_by_line(
    data: bytes,
    block: int,
    long_line: int,
    max_bytes: int,
    sizes: list[int],
    trickle: bool,
) -> None:
    want = _by_lines(data)
    stream = Trickle(data, sizes) if trickle else io.BytesIO(data)
    saved = sources._BLOCK, sources._LONG_LINE
    sources._BLOCK, sources._LONG_LINE = block, long_line
    try:
        got: list[tuple[str, bytes, bool]] | str = [
            (m.name, m.data, m.truncated)
            for m in read_mbox(stream, "box", max_bytes)  # type: ignore[arg-type]
        ]
    except MailError:
        got = "not an mbox"
    finally:
        sources._BLOCK, sources._LONG_LINE = saved
    if isinstance(want, str):
        assert got == want
    else:  # a message beyond max_bytes keeps its start and its end (whole lines)
        assert got == [(n, *sources.cut(d, max_bytes)) for n, d in want]


class Endless(io.RawIOBase):
    """An mbox that never ends: reading it whole would never return."""

    def __init__(self) -> None:
        self.served = 0
        self.pending = b""
        self.i = 0

    def readable(self) -> bool:
        return True

    def readinto(self, b: bytearray) -> int:  # type: ignore[override]
        while len(self.pending) < len(b):
            self.i += 1
            self.pending += (
                f"From a{self.i}@x Mon Jul  1 10:00:00 2002\n".encode()
                + b"Subject: s\n\nbody\n>From quoted\n\n"
            )
        n = len(b)
        b[:n] = self.pending[:n]
        self.pending = self.pending[n:]
        self.served += n
        return n


def test_an_mbox_is_read_a_block_at_a_time_not_whole() -> None:
    stream = Endless()
    messages = read_mbox(io.BufferedReader(stream), "endless")  # type: ignore[type-var]
    first = next(messages)
    assert first.data == b"Subject: s\n\nbody\nFrom quoted\n" and first.name == "endless, message 1"
    assert [next(messages).name for _ in range(3)][-1] == "endless, message 4"
    assert stream.served <= 2 * sources._BLOCK + 8192


def test_a_long_line_is_not_held_whole() -> None:
    """A message of one 8 MB line, 1 MB kept: the reader holds about a block and what it
    keeps, not the line (the line-by-line reading held all of it)."""
    import tracemalloc

    line = b"y" * (8 << 20)
    box = b"From a@b Mon Jul  1 10:00:00 2002\nSubject: one line\n\n" + line + b"\n"
    box += b"\nFrom c@d Mon Jul  1 10:00:00 2002\nSubject: two\n\nshort\n"
    stream = Trickle(box, [1 << 16])
    tracemalloc.start()
    try:
        msgs = list(read_mbox(stream, "box", max_bytes=1 << 20))  # type: ignore[arg-type]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5 << 20, f"{peak / 2**20:.1f} MiB held"
    assert [m.truncated for m in msgs] == [True, False]
    whole = b"Subject: one line\n\n" + line + b"\n"
    assert msgs[0].data == sources.cut(whole, 1 << 20)[0] == b"Subject: one line\n\n"
    assert msgs[1].data == b"Subject: two\n\nshort\n"


def test_a_folder_that_cannot_be_searched_is_an_error_in_its_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pathlib raises PermissionError on a folder without search permission (as root, a
    test cannot make one: Path.is_dir says it as it would)."""
    from nbayes.mail import iter_mail

    box = tmp_path / "box"
    (box / "locked").mkdir(parents=True)
    (box / "a.eml").write_bytes(b"Subject: a\n\nfirst")
    (box / "z.eml").write_bytes(b"Subject: z\n\nlast")
    is_dir = Path.is_dir

    def searchable(self: Path) -> bool:
        if "locked" in self.parts:
            raise PermissionError(13, "Permission denied", str(self))
        return is_dir(self)

    monkeypatch.setattr(Path, "is_dir", searchable)
    errors: list[MailError] = []
    names = [Path(m.name).name for m in iter_mail(box, on_error=errors.append)]
    assert names == ["a.eml", "z.eml"]
    assert len(errors) == 1 and "locked" in str(errors[0]) and "Permission denied" in str(errors[0])
    with pytest.raises(MailError, match="locked"):
        list(iter_mail(box))


def test_a_long_from_line_is_read_in_linear_time() -> None:
    """A line of 8 MB starting "From " (held to its end: it may be a postmark) or ">From"
    (kept as it comes): the postmark test was a backtracking regular expression (5 s at
    32 KB), and the held line was copied again at each read."""
    import time

    for start in (b"From ", b">From ", b"From x "):
        line = start + b"y" * (8 << 20)
        box = b"From a@b Mon Jul  1 10:00:00 2002\nSubject: s\n\n" + line + b"\n\nbye\n"
        t = time.perf_counter()
        msgs = list(read_mbox(io.BufferedReader(Trickle(box, [1 << 16])), "box", max_bytes=1 << 30))  # type: ignore[arg-type]
        took = time.perf_counter() - t
        assert len(msgs) == 1 and msgs[0].data.endswith(b"y\n\nbye\n"), start
        assert took < 5.0, f"{start!r}: {took:.1f} s"
