"""The compiled scans of mail's markup (``_mail_native.head_fields``, ``strip_tags`` and
``links``, src/native/mail_markup.hpp) give what the regular expressions they replace give:
``_mime._SIMPLE_HEAD.fullmatch`` with ``_mime._FIELD.findall``, ``_html._TAG.sub`` and
``_html._LINK.findall``; ``split_urls``, ``url_tokens`` and ``message_id_tokens`` what their
Python readings give."""

from __future__ import annotations

import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nbayes import _mail_native
from nbayes.mail import _html, _mime, _tokenizer


def _head_reference(text: str) -> list[tuple[str, str]] | None:
    return _mime._FIELD.findall(text) if _mime._SIMPLE_HEAD.fullmatch(text) else None


def _tags_reference(text: str) -> str:
    return _html._TAG.sub(" ", text)


# the characters the scans turn on, and others of each storage width (a surrogate: an
# 8-bit byte of a head decoded with surrogateescape)
_PIECES = st.sampled_from(
    ["a", "B", "7", ":", " ", "\t", "\n", "\r", "<", ">", "-", "~", "!", ";", "9", "\x7f",
     "é", "\udc80", "€", "\U0001f600", "X-Mailer:", "\n ", "\n\t", "<a href=x>", "</p>"]
)  # fmt: skip
_TEXTS = st.lists(_PIECES, max_size=30).map("".join)


@settings(max_examples=1000, deadline=None)
@given(_TEXTS)
def test_head_fields_is_the_regular_expressions_reading(text: str) -> None:
    assert _mail_native.head_fields(text) == _head_reference(text)


@settings(max_examples=1000, deadline=None)
@given(_TEXTS)
def test_strip_tags_is_the_regular_expressions_substitution(text: str) -> None:
    assert _mail_native.strip_tags(text) == _tags_reference(text)


def _joined_reference(text: str) -> str:
    return _html._TAG.sub(" ", _html._INLINE.sub("", text))


# the inline pattern's pieces: names in both cases, names that are not inline or that run
# on into more letters, its separators (Python's white space beyond ASCII included)
_INLINE_PIECES = st.sampled_from(
    ["<", "</", ">", "/", "b", "B", "sPaN", "abbr", "a", "bd", "bdi", "strong", "strongs",
     "p", "div", "i", "1", " ", "\t", "\u3000", "\x1c", "x", "\u017f", "=", "'", "<<", "é",
     "\U0001f600", "-->"]
)  # fmt: skip


@settings(max_examples=2000, deadline=None)
@given(st.lists(_INLINE_PIECES, max_size=30).map("".join))
def test_strip_tags_joining_is_the_inline_then_the_tag_substitution(text: str) -> None:
    out = _mail_native.strip_tags(text, True)
    assert out == _joined_reference(text)
    assert hash(out) == hash(_joined_reference(text))  # (the narrowest storage)


@pytest.mark.parametrize(
    "markup",
    [
        "<b>Win</b>ner, V<span style='x'></span>iagra",
        "<SPAN\u3000class=x>a</Span>b",  # (white space beyond ASCII after the name)
        "<b " + "x" * 2000 + ">c<b " + "x" * 2001 + ">d",  # the longest, one longer
        "<<b>p>",  # the inline tag's removal makes a tag of what is left
        "<b/>a</b\t>b<bd>c<b1>d<\u017fpan>e",
        "\u00e9<i>\U0001f600</i>x",  # a wide code point kept: 4-byte storage out
        "\U0001f600<i>x</i>",
        "<i>\U0001f600</i>",
    ],
)
def test_strip_tags_joining_of_markup(markup: str) -> None:
    out = _mail_native.strip_tags(markup, True)
    assert out == _joined_reference(markup)
    assert hash(out) == hash(_joined_reference(markup))


@pytest.mark.parametrize(
    ("head", "fields"),
    [
        ("", []),
        ("Subject: hi\n", [("Subject", "hi")]),
        ("Subject:\t  hi there \n", [("Subject", "hi there ")]),
        ("Subject:\n folded\n", [("Subject", "\n folded")]),
        ("To: a,\n\tb\nFrom: c\n", [("To", "a,\n\tb"), ("From", "c")]),
        ("X-8bit: caf\udce9\n", [("X-8bit", "caf\udce9")]),
        ("Subject: no newline", None),
        (" Subject: starts with a space\n", None),
        ("Subject: hi\n\nbody\n", None),  # a blank line is no field
        ("Subject hi\n", None),
        (": no name\n", None),
        ("Subj\u00e9ct: a name of 8-bit\n", None),
    ],
)
def test_head_fields_of_heads(head: str, fields: list[tuple[str, str]] | None) -> None:
    assert _mail_native.head_fields(head) == fields == _head_reference(head)


@pytest.mark.parametrize(
    "markup",
    [
        "<" + "a" * 2000 + ">x",  # the longest tag
        "<" + "a" * 2001 + ">x",  # one longer: no tag
        "<" * 3 + "b>c<<d>",
        "a > b < c",
        "<p>caf\u00e9</p>",
        "<img alt='\u00e9'>plain",  # 8-bit only inside the tag: the result is ASCII
        "<x \U0001f600>\u20ac",  # 4-byte storage in, 2-byte out
        "<\udc80>",
    ],
)
def test_strip_tags_of_markup(markup: str) -> None:
    out = _mail_native.strip_tags(markup)
    assert out == _tags_reference(markup)
    # a str of the narrowest storage its characters need (else equal strings would
    # hash apart): what the regular expression returns
    assert out.isascii() == _tags_reference(markup).isascii()
    assert hash(out) == hash(_tags_reference(markup))


# the link pattern's pieces: its names in any case, its separators, Python's ASCII white
# space (\x1c-\x1f included), word characters before a name (no word boundary)
_LINK_PIECES = st.sampled_from(
    ["href", "HrEf", "src", "SRC", "action", "background", "backgroun", "=", '"', "'", " ",
     "\t", "\x1c", "\x0b", ">", "<", "_", "a", "x", "9", "/", ":", "h", "s", "\n", "-"]
)  # fmt: skip


@settings(max_examples=1000, deadline=None)
@given(st.lists(_LINK_PIECES, max_size=24).map("".join))
def test_links_is_the_regular_expressions_findall(text: str) -> None:
    assert _mail_native.links(text) == _html._LINK.findall(text)


# and beyond ASCII: letters and digits (no word boundary before a name), Unicode white
# space, and the four characters re.I matches to an ASCII letter of another lower case
_UNICODE_LINK_PIECES = st.one_of(
    _LINK_PIECES,
    st.sampled_from(["\u00e9", "\u0663", "\u00a0", "\u2003", "\u017f", "\u0131", "\u0130",
                     "\u212a", "\U0001f600", "HREF", "\u017fRC", "\u00e9href=x"]),
)  # fmt: skip


@settings(max_examples=1000, deadline=None)
@given(st.lists(_UNICODE_LINK_PIECES, max_size=24).map("".join))
def test_links_of_any_text_are_the_regular_expressions_findall(text: str) -> None:
    assert _html._links(text, _html.lower_same_length(text)) == _html._LINK.findall(text)


@pytest.mark.parametrize(
    ("markup", "urls"),
    [
        ('<a HREF = " a.example/x">', ["a.example/x"]),
        ("<img src='b.example/i.png'><body background=c.example/bg>",
         ["b.example/i.png", "c.example/bg"]),
        ("xhref=no _src=no href=", []),
        ("href=a.examplesrc=b.example href\x1c=\x1cc.example",
         ["a.examplesrc=b.example", "c.example"]),
        ("<form action=\"\">", []),
    ],
)  # fmt: skip
def test_links_of_markup(markup: str, urls: list[str]) -> None:
    assert _mail_native.links(markup) == urls == _html._LINK.findall(markup)


_URL_PIECES = st.sampled_from(
    ["http", "HTTPS", "s", "ftp", "://", "www.", "WWW.", ".", "/", "x", "a.example", " ",
     "\u2003", "\n", "<", ">", ")", "{", '"', "\u00e9", "\U0001f600", "\u0130", "\u017f"]
)  # fmt: skip


@settings(max_examples=1000, deadline=None)
@given(st.lists(_URL_PIECES, max_size=20).map("".join))
def test_split_urls_is_its_python_reading(text: str) -> None:
    lower = _html.lower_same_length(text)
    assert _mail_native.split_urls(text, lower) == _tokenizer._split_urls_reference(text, lower)
    assert _tokenizer.split_urls(lower, lowered=True) == _tokenizer._split_urls_reference(
        lower, lower
    )


@pytest.mark.parametrize(
    ("text", "rest", "urls"),
    [
        ("://x http", "://x http", []),  # (no scheme before the marker: no URL)
        ("go to WWW.A.example/x<b>now", "go to  <b>now", ["WWW.A.example/x"]),
        ("http://a.example/www.b.example/ end", "  end", ["http://a.example/www.b.example/"]),
        ("caf\u00e9 https://\u00e9.example", "caf\u00e9  ", ["https://\u00e9.example"]),
        ("\u2003http://x.example\u2003y", "\u2003 \u2003y", ["http://x.example"]),
        ("http:// www.", "http:// www.", []),
    ],
)
def test_split_urls_of_text(text: str, rest: str, urls: list[str]) -> None:
    assert _tokenizer.split_urls(text) == (rest, urls)


_URL_TOKEN_PIECES = st.sampled_from(
    ["http", "://", "/", "//", ".", "@", ":", "a", "bcd", "x.example", "?", "=", "&", "_", "-",
     "~", "%20", "\u00e9", "\U0001f600", "\udc80", "a" * 21, "a" * 20, "www", "9"]
)  # fmt: skip


@settings(max_examples=1000, deadline=None)
@given(st.lists(_URL_TOKEN_PIECES, max_size=16).map("".join))
def test_url_tokens_are_its_python_readings(url: str) -> None:
    out: set[str] = set()
    _mail_native.url_tokens(url, out)
    assert out == _tokenizer._url_tokens_reference(url)


@pytest.mark.parametrize(
    ("url", "tokens"),
    [
        ("http://user@www.shop.example:8080/buy/now.html?id=12345",
         {"proto:http", "url:www.shop.example", "url:shop.example", "url:buy", "url:now",
          "url:html", "url:12345"}),
        ("www.a.example", {"url:www.a.example", "url:a.example"}),
        ("://", {"proto:"}),
        ("http://caf\u00e9.example/\U0001f600\U0001f600\U0001f600",
         {"proto:http", "url:caf\u00e9.example", "url:\U0001f600\U0001f600\U0001f600"}),
    ],
)  # fmt: skip
def test_url_tokens_of_urls(url: str, tokens: set[str]) -> None:
    out = {"already"}
    _mail_native.url_tokens(url, out)
    assert out == tokens | {"already"}
    assert {t for t in out if t.isascii()} == {t for t in tokens | {"already"} if t.isascii()}


# a Message-ID's pieces: its marks, digits of each width ("\u0663" and "\U0001d7d8" are
# decimal digits, \\d; "\u00b2" is a digit but not decimal), letters, white space
_MESSAGE_ID_PIECES = st.sampled_from(
    ["<", ">", "@", ".", "-", "$", "a", "zq", "123", "9", "\u0663", "\U0001d7d8", "\u00b2",
     "\u00e9", "\u20ac", "\U0001f600", "\udc80", " ", "\u2003", "\x1c", "mail2.example",
     "A"]
)  # fmt: skip


_ID_PART = st.one_of(
    st.lists(_MESSAGE_ID_PIECES.filter(lambda p: p not in "<>@ \u2003\x1c"), max_size=10),
    st.lists(_MESSAGE_ID_PIECES, max_size=10),
).map("".join)
# most of them of the form "<" left "@" host ">" (each mark optional), the rest anything
_MESSAGE_IDS = st.one_of(
    st.tuples(st.sampled_from(["", "<"]), _ID_PART, _ID_PART, st.sampled_from(["", ">"])).map(
        lambda t: f"{t[0]}{t[1]}@{t[2]}{t[3]}"
    ),
    st.lists(_MESSAGE_ID_PIECES, min_size=1, max_size=24).map("".join),
)


@settings(max_examples=2000, deadline=None)
@given(_MESSAGE_IDS)
def test_message_id_tokens_are_its_python_reading(value: str) -> None:
    out: set[str] = set()
    valid = _mail_native.message_id_tokens(value, out)
    expected = _tokenizer._message_id_reference(value)
    assert (out if valid else {"message-id:invalid"}) == expected
    assert valid or not out


@pytest.mark.parametrize(
    ("value", "tokens"),
    [
        ("<20021003.1234.abc@mail2.example.com>",
         {"message-id:@mail9.example.com", "message-id:shape:9.9.a"}),
        ("<x@y>", {"message-id:@y", "message-id:shape:a"}),
        ("<z9.zz@y>", {"message-id:@y", "message-id:shape:a9.a"}),
        ("x@y>", {"message-id:@y", "message-id:shape:a"}),
        ("<x@y", {"message-id:@y", "message-id:shape:a"}),
        ("<" + "7a" * 40 + "@" + "h1" * 30 + ">",
         {"message-id:@" + "h9" * 20, "message-id:shape:" + "9a" * 15}),
        ("<\u0663\u0663caf\u00e9@\U0001d7d8.example>",
         {"message-id:@9.example", "message-id:shape:9a\u00e9"}),
        ("<x@y>>", None),
        ("<@y>", None),
        ("<x@>", None),
        ("<x@y@z>", None),
        ("<x y@z>", None),
        ("<x@y z>", None),
        ("<<x@y>", None),
        ("x", None),
        (">", None),
    ],
)  # fmt: skip
def test_message_id_tokens_of_values(value: str, tokens: set[str] | None) -> None:
    out = {"already"}
    assert _mail_native.message_id_tokens(value, out) is (tokens is not None)
    assert out == (tokens or set()) | {"already"}
    assert _tokenizer._message_id_reference(value) == (tokens or {"message-id:invalid"})


_NAMES = st.sampled_from(
    ["Subject", "SUBJECT", "subject", "To", "to", "Received", "X-Face", "x-face", "Message-ID",
     "caf\u00e9", "CAF\u00c9", "\u0130d", "STRASSE", "Stra\u00dfe", "X-\U0001f600", "@", ""]
)  # fmt: skip
_COUNTED = st.sampled_from(
    [frozenset(), _tokenizer.COUNTED_HEADERS, frozenset({"caf\u00e9", "i\u0307d"})]
)


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.tuples(_NAMES, st.sampled_from(["v", "", "w"])), max_size=12), _COUNTED)
def test_fields_by_name_is_its_python_reading(
    items: list[tuple[str, str]], counted: frozenset[str]
) -> None:
    got = _mail_native.fields_by_name(iter(items), counted)
    expected = _tokenizer._fields_reference(items, counted)
    assert got == expected
    assert [list(d) for d in got] == [list(d) for d in expected]  # (the same order)


def test_fields_by_name_of_a_message() -> None:
    msg = _mime.parse(b"Subject: a\nTO: x\nsubject: b\nX-Other: c\nto: y\n\nbody\n")
    fields, counts = _mail_native.fields_by_name(msg.raw_items(), _tokenizer.COUNTED_HEADERS)
    assert fields == {"subject": ["a", "b"], "to": ["x", "y"], "x-other": ["c"]}
    assert counts == {"Subject": 1, "TO": 1, "subject": 1, "to": 1}
    assert _mail_native.fields_by_name([], frozenset()) == ({}, {})
    with pytest.raises(TypeError, match="pairs"):
        _mail_native.fields_by_name([("a", "b", "c")], frozenset())  # type: ignore[list-item]
    with pytest.raises(TypeError, match=r"fields_by_name\(\) argument 2 must be frozenset"):
        _mail_native.fields_by_name([], {"to"})  # type: ignore[arg-type]
    with pytest.raises(AttributeError, match="lower"):
        _mail_native.fields_by_name([(7, "x")], frozenset())  # type: ignore[list-item]


_LONG_PIECES = st.sampled_from(
    ["a", "@", ".", "x" * 9, "9", "\u00e9", "\u20ac", "\U0001f600", "\udc80", "-", "@@", ".."]
)


@settings(max_examples=2000, deadline=None)
@given(
    st.lists(st.lists(_LONG_PIECES, min_size=1, max_size=12).map("".join), max_size=4),
    st.sampled_from(["", "subject:", "caf\u00e9:"]),
)
def test_long_words_are_its_python_reading(words: list[str], prefix: str) -> None:
    out: set[str] = {"already"}
    expected = set(out)
    _mail_native.long_words(words, out, prefix)
    _tokenizer._long_words_reference(words, expected, prefix)
    assert out == expected


@pytest.mark.parametrize(
    ("word", "tokens"),
    [
        ("someone@mail.example.com", {"email name:someone", "email addr:mail",
                                      "email addr:example", "email addr:com"}),
        ("a@b..c", {"email name:a", "email addr:b", "email addr:", "email addr:c"}),
        ("someone@example", {"skip:s 10"}),
        ("a@b.c@d.e", {"skip:a 0"}),
        ("x" * 28 + "@example.com", {"skip:x 40"}),  # 40 characters: no address
        ("x" * 27 + "@example.com", {"email name:" + "x" * 27, "email addr:example",
                                     "email addr:com"}),
        ("caf\u00e9" * 4, {"skip:c 10", "8bit%:25"}),
        ("\u00e9" + "a" * 7, {"skip:\u00e9 0", "8bit%:12"}),  # 12.5: half to even
        ("\u00e9\u00e9\u00e9" + "a" * 5, {"skip:\u00e9 0", "8bit%:38"}),  # 37.5
        ("\udc80" * 12, {"skip:\udc80 10", "8bit%:100"}),
    ],
)  # fmt: skip
def test_long_words_of_words(word: str, tokens: set[str]) -> None:
    out: set[str] = set()
    _mail_native.long_words([word], out, "")
    assert out == tokens
    expected: set[str] = set()
    _tokenizer._long_words_reference([word], expected, "")
    assert expected == tokens
    with pytest.raises(TypeError, match="must be str"):
        _mail_native.long_words([b"bytes"], out, "")  # type: ignore[list-item]


def test_the_scans_refuse_what_is_not_a_str() -> None:
    with pytest.raises(TypeError, match=r"head_fields\(\) argument 1 must be str"):
        _mail_native.head_fields(b"Subject: hi\n")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"strip_tags\(\) argument 1 must be str"):
        _mail_native.strip_tags(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"url_tokens\(\) argument 2 must be set"):
        _mail_native.url_tokens("http://x.example", [])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"links\(\) argument 1 must be str"):
        _mail_native.links(b"href=x")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"message_id_tokens\(\) argument 2 must be set"):
        _mail_native.message_id_tokens("<x@y>", {})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="as long as text"):
        _mail_native.split_urls("\u0130 http://x.example", "\u0130 http://x.example".lower())
    with pytest.raises(ValueError, match="must be ASCII"):
        _mail_native.links("href=caf\u00e9")  # (_links gives such text to findall)


@pytest.mark.parametrize("hi", [3, 12, sys.maxsize])
def test_words_without_a_set_returns_the_longer_words_only(hi: int) -> None:
    text = "a bb ccc dddd eeeeeeeeeeeeeeeee ccc"
    out: set[str] = set()
    longer = _mail_native.words(text, 2, hi, True, out)
    assert _mail_native.words(text, 2, hi, True, None) == longer
    assert longer == [w for w in text.split() if len(w) > hi]
    assert {w for w in out if not w.startswith("bi:")} == {
        w for w in text.split() if 2 <= len(w) <= hi
    }


_COUNT_PIECES = st.sampled_from([b"-", b"--", b"\n", b"\r", b";", b"a", b"\n--", b"\x00", b"\xff"])


@settings(max_examples=2000, deadline=None)
@given(
    st.lists(_COUNT_PIECES, max_size=30).map(b"".join),
    st.sampled_from([b"-", b"--", b"\n", b";", b"\n--", b"\r--", b"---", b"-a"]),
    st.integers(-40, 40),
    st.integers(-40, 40),
)
def test_count_bytes_is_bytes_count(data: bytes, needle: bytes, start: int, end: int) -> None:
    """The MIME guards' counts by memchr: non-overlapping, left to right, the bounds clipped
    as a slice's, as ``bytes.count`` counts."""
    assert _mail_native.count_bytes(data, needle, start, end) == data.count(needle, start, end)


def test_count_bytes_of_an_empty_needle_is_an_error() -> None:
    with pytest.raises(ValueError, match="needle is empty"):
        _mail_native.count_bytes(b"abc", b"", 0, 3)


# the bytes the line scans of raw mail turn on (line ends, a head's fields and
# continuations, "From ", boundaries, content fields in any case), and others
_MAIL_PIECES = st.sampled_from(
    [b"\n", b"\r", b"\r\n", b" ", b"\t", b":", b"a", b"Z", b"-", b"--", b"From ", b"From",
     b"X-H:", b"x", b"\xe9", b"\x00", b"Content-", b"content-type:", b"CONTENT-X:",
     b"content-:", b"content-9:", b"MIME-Version:", b"mime-version", b"--B--", b";"]
)  # fmt: skip
_MAIL_BYTES = st.lists(_MAIL_PIECES, max_size=40).map(b"".join)


@settings(max_examples=2000, deadline=None)
@given(_MAIL_BYTES)
def test_first_not_headish_is_the_regular_expressions_reading(data: bytes) -> None:
    """``_headless``'s scan without the GIL: the end of the first line end followed by no
    "From ", continuation or colon, as ``_NOT_HEADISH.search`` finds it."""
    m = _mime._NOT_HEADISH.search(data)
    assert _mail_native.first_not_headish(data) == (-1 if m is None else m.end())


@settings(max_examples=2000, deadline=None)
@given(_MAIL_BYTES, st.integers(-3, 50))
def test_first_non_head_line_is_the_regular_expressions_reading(data: bytes, start: int) -> None:
    """``_cut_long_head``'s scan without the GIL, from ``start`` (never below 0 there)."""
    m = _mime._NON_HEAD_LINE.search(data, max(start, 0))
    assert _mail_native.first_non_head_line(data, start) == (-1 if m is None else m.start())


@settings(max_examples=2000, deadline=None)
@given(_MAIL_BYTES)
def test_strip_mime_lines_is_the_regular_expressions_reading(data: bytes) -> None:
    """``_as_text``'s removal of boundaries and content fields without the GIL."""
    assert _mail_native.strip_mime_lines(data) == _mime._MIME_LINE.sub(b"", data)


def test_the_line_scans_read_a_bytearray_as_its_bytes() -> None:
    """A bytearray (another thread could change it: it is scanned holding the GIL) reads as
    the bytes it holds."""
    data = b"X: 1\n : 2\n--B\nContent-Type: a\n b\nbody\n" * 20_000  # (over 64 KiB)
    mutable = bytearray(data)
    assert _mail_native.first_not_headish(mutable) == _mail_native.first_not_headish(data)
    assert _mail_native.first_non_head_line(mutable, 3) == _mail_native.first_non_head_line(data, 3)
    assert _mail_native.strip_mime_lines(mutable) == _mail_native.strip_mime_lines(data)
    assert _mail_native.count_bytes(mutable, b"\n--", 0, len(data)) == data.count(b"\n--")
