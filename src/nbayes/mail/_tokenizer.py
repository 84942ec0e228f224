"""The tokens of an e-mail: the set of clues a spam filter counts once per message.

After SpamBayes' tokenizer (whose rules were each chosen by measurement), with bogofilter's
and SpamAssassin's Bayes' practice where they differ, and decided again by measurement on
the SpamAssassin public corpus (benchmarks/bench_spam.py; BENCHMARKS.md):

* body text (plain, and HTML reduced to its visible text) is lower-cased and split on
  white space; words of ``min_length`` to ``max_length`` characters are tokens as they are
  (punctuation kept: "free!" is not "free"), longer ones are summarised as
  ``skip:<first char> <length rounded down to 10>``, with ``8bit%:<percent>`` for their
  share of non-ASCII characters (a run of Asian text or of encoded junk), except e-mail
  addresses, which become ``email name:`` and ``email addr:`` pieces;
* URLs (in text and in links) become ``proto:``, ``url:`` host and path pieces;
* headers are tokens with a prefix: ``subject:`` words, ``from:``/``to:``/``cc:``/
  ``reply-to:`` names and addresses, the mailer; every part gives ``content-type:``,
  ``charset:``, ``encoding:``, ``filename:`` tokens (non-text parts give only these);
  MIME defects (a wrong boundary, a truncated message) give ``mime-defect:`` tokens;
* the ``Message-ID``'s host (digits as ``9``) and the shape of its left part
  (``message-id:@mail9.example.com``, ``message-id:shape:9.a9``; ``message-id:invalid``,
  ``message-id:none``), and how many lines each of a few headers has, its name as written
  (``header:Subject:1``, ``header:MIME-Version:1``; SpamBayes' "safe headers" less
  ``Received`` and ``Date``): SpamBayes' header clues, meant to hold on mail of mixed
  sources (``message_id=True``, ``header_counts=True``; BENCHMARKS.md);
* ``Received`` lines and the other headers are off by default (``received=True``,
  ``other_headers=True``): on mail collected from different sources for ham and spam they
  separate the sources rather than the classes.

A :class:`MailTokenizer` is a recipe: a frozen set of options, stored in a spam filter's
model file so that every use of the model tokenizes mail alike.
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, fields
from email.errors import CloseBoundaryNotFoundDefect
from email.message import Message
from functools import lru_cache
from pathlib import Path
from typing import Any

from nbayes import _mail_native
from nbayes.mail._html import html_to_text, lower_same_length
from nbayes.mail._mime import MAX_HEADER_CHARS, decode_header, parse, uudecoded_names, walk_parts
from nbayes.mail._sources import DEFAULT_MAX_BYTES, RawMail, cut

__all__ = ["COUNTED_HEADERS", "DEFAULT_HEADERS", "MailTokenizer", "split_urls"]

DEFAULT_MAX_TEXT = 256 * 1024
"""Characters of a message's body text tokenized (:attr:`MailTokenizer.max_text`)."""
DEFAULT_HEADERS = ("subject", "from", "to", "cc", "reply-to", "x-mailer", "user-agent")
"""The headers tokenized by default (besides the parts' content types)."""

_ADDRESS_HEADERS = frozenset({"from", "to", "cc", "bcc", "reply-to", "sender", "return-path"})
_MAILER_HEADERS = frozenset({"x-mailer", "user-agent"})
_URL_END = re.compile(r"""[\s<>"'()\[\]{}]""")
_URL_PIECE = re.compile(r"[/.?=&:;#%+~,!@_-]+")
_PUNCT_RUN = re.compile(r"[^\w\s]+")
_HTML_TAG = re.compile(r"<\s*([a-zA-Z][\w:-]{0,20})([^<>]{0,500})>")
_HTML_ATTR = re.compile(r"([a-zA-Z][\w:-]{0,20})\s*=")
_MESSAGE_ID = re.compile(r"<?([^<>@\s]+)@([^<>@\s]+?)>?")
_DIGIT = re.compile(r"\d")
_DIGITS = re.compile(r"\d+")
_LETTERS = re.compile(r"[a-z]+")
COUNTED_HEADERS = frozenset(
    {
        "abuse-reports-to",
        "errors-to",
        "from",
        "importance",
        "in-reply-to",
        "message-id",
        "mime-version",
        "organization",
        "reply-to",
        "return-path",
        "subject",
        "to",
        "user-agent",
        "x-abuse-info",
        "x-complaints-to",
        "x-face",
    }
)
"""The headers whose number of lines is a token (``header_counts``): SpamBayes'
``safe_headers`` without ``Received`` and ``Date`` (how many hops a message took tells
where it was collected, not its class)."""
#: a host name (at most 16 labels of at most 63 characters, as DNS bounds them) or an IPv4
#: address in a Received line (``received=True``): unbounded, each start of a long run of
#: "a." read to its end, quadratic (a 20 KB line took 2.5 s holding the GIL, a review found)
_HOST = re.compile(r"\b(?:[a-z0-9-]{1,63}\.){1,16}[a-z]{2,63}\b|\b\d{1,3}(?:\.\d{1,3}){3}\b")


@dataclass(frozen=True)
class MailTokenizer:
    """How mail becomes tokens (see the module docstring for the rules).

    Parameters
    ----------
    headers : tuple of str
        Header fields tokenized (lower case); addresses (``from``, ``to``, ...) by name
        and address, mailers whole, others word by word.
    received : bool
        Also tokenize ``Received`` lines (their host names and IP addresses).
    other_headers : bool
        Also tokenize every other header: its name, and its words.
    min_length, max_length : int
        Words shorter than ``min_length`` are dropped, longer than ``max_length``
        summarised.
    lowercase : bool
        Lower-case body text (measured better than keeping case, BENCHMARKS.md).
    html_tags : bool
        Also count HTML tag and attribute names (``html:font``, ``html:font.color``;
        measured worse, off by default).
    max_bytes : int
        Bytes (or characters) of a message read: of a longer one, its start and its last
        MiB (:func:`nbayes.mail.cut`: the middle of an attachment beyond 16 MiB is not
        parsed; the token ``mail:truncated`` says so).
    bigrams : bool
        Also count pairs of adjacent body words (``bi:first second``; SpamBayes'
        experimental option): on by default, measured better (BENCHMARKS.md).
    message_id : bool
        Tokens of the ``Message-ID`` header: its host with digits as ``9`` and the shape
        of its left part (runs of digits ``9``, of letters ``a``), ``message-id:invalid``
        or ``message-id:none``.
    header_counts : bool
        ``header:<Name>:<lines>`` for each header of :data:`COUNTED_HEADERS` present, the
        name as the message writes it (``SUBJECT`` is not ``Subject``).
    max_text : int or None
        Characters of a message's body text (its parts' text, HTML reduced to what shows)
        whose words, bigrams and URLs are tokens: 256 Ki, a long book chapter; the rest is
        not read (the token ``mail:long-text`` says so): a message of 16 MB of random words
        has 66k tokens, not 2.4 million. None reads it all.
    seen_words : bool
        Words as a reader sees them: HTML's inline tags (``<b>``, ``<span>``, ``<font>``,
        ...) and comments join the letters on either side (``<b>Win</b>ner``,
        ``Vi<!-- -->agra``), zero-width characters and soft hyphens are dropped, and a
        typographic apostrophe is the typewriter's (``i’m`` is ``i'm``). False: every tag
        a space, those characters kept (filters before this option).
    cjk_bigrams : bool
        Chinese, Japanese and Korean text, written without spaces between its words, read
        two characters at a time: each run of Han, kana and Hangul characters gives its
        overlapping pairs (``会議の`` gives ``会議`` and ``議の``; a run of one character,
        that character), in the body and in word-by-word headers (``subject:会議``), as
        Lucene's CJK analyser reads it. False: a run is one long word, summarised by its
        first character and length (``skip:会 30``), so Japanese ham and spam look the
        same (filters before this option).

    A recipe stored before ``message_id`` and ``header_counts`` existed reads them as
    False, one stored before ``max_text`` reads it as None, and one stored before
    ``seen_words`` or ``cjk_bigrams`` reads them as False (:meth:`from_dict`): a model
    file keeps tokenizing as it counted.

    Examples
    --------
    >>> tok = MailTokenizer()
    >>> sorted(tok.tokens(b"From: Ann <ann@example.com>\\nSubject: Cheap pills!!\\n\\n"
    ...                   b"Visit http://pills.example/buy now"))
    ['bi:visit now', 'content-type:text/plain', 'from:addr:ann', 'from:addr:example.com',
     'from:name:ann', 'header:From:1', 'header:Subject:1', 'message-id:none', 'now',
     'proto:http', 'subject:!!', 'subject:cheap', 'subject:pills!!', 'url:buy',
     'url:pills.example', 'visit']
    """

    headers: tuple[str, ...] = DEFAULT_HEADERS
    received: bool = False
    other_headers: bool = False
    min_length: int = 3
    max_length: int = 12
    bigrams: bool = True
    lowercase: bool = True
    html_tags: bool = False
    max_bytes: int = DEFAULT_MAX_BYTES
    message_id: bool = True
    header_counts: bool = True
    max_text: int | None = DEFAULT_MAX_TEXT
    seen_words: bool = True
    cjk_bigrams: bool = True

    def __post_init__(self) -> None:
        if isinstance(self.headers, str) or not all(isinstance(h, str) for h in self.headers):
            raise TypeError(
                f"MailTokenizer's headers must be a tuple of header names; got {self.headers!r}"
            )
        object.__setattr__(self, "headers", tuple(h.lower() for h in self.headers))
        for name in ("min_length", "max_length", "max_bytes"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"MailTokenizer's {name} must be an int >= 1; got {value!r}")
        mt = self.max_text
        if mt is not None and (isinstance(mt, bool) or not isinstance(mt, int) or mt < 1):
            raise ValueError(f"MailTokenizer's max_text must be an int >= 1 or None; got {mt!r}")
        if self.max_length < self.min_length:
            raise ValueError(
                f"MailTokenizer's max_length ({self.max_length}) is below its min_length "
                f"({self.min_length})"
            )

    # ------------------------------------------------------------------ the recipe
    def to_dict(self) -> dict[str, Any]:
        """The options, as JSON-ready values."""
        d = asdict(self)
        d["headers"] = list(self.headers)
        if d["max_text"] is None:  # as recipes before max_text (an older nbayes reads it)
            del d["max_text"]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> MailTokenizer:
        """The tokenizer of :meth:`to_dict`'s options (TypeError/ValueError if invalid).
        Options added after a recipe was stored take the value that reproduces its
        tokens: ``message_id`` and ``header_counts`` missing are False, ``max_text``
        missing is None."""
        names = {f.name for f in fields(cls)}
        unknown = set(d) - names
        if unknown:
            raise ValueError(
                f"unknown MailTokenizer options {sorted(unknown)}: the recipe was written by a "
                "newer nbayes, which tokenizes mail with them; upgrade nbayes to read it"
            )
        d = {**_BEFORE_OPTIONS, **d}
        if "headers" in d:
            if not isinstance(d["headers"], list | tuple):
                raise TypeError(f"MailTokenizer's headers must be a list; got {d['headers']!r}")
            d["headers"] = tuple(d["headers"])
        for name in _BOOLS:
            if name in d and not isinstance(d[name], bool):
                raise TypeError(f"MailTokenizer's {name} must be a bool; got {d[name]!r}")
        return cls(**d)

    # ------------------------------------------------------------------ tokens
    def __call__(self, message: Any) -> set[str]:
        return self.tokens(message)

    def tokens(self, message: bytes | str | Message | RawMail | Any) -> set[str]:
        """The set of tokens of one message (bytes, str, a parsed message, a path or a
        :class:`RawMail`)."""
        out, text = self.tokens_but_words(message)
        _mail_native.words(text, self.min_length, self.max_length, self.bigrams, out)
        return out

    def tokens_but_words(
        self, message: bytes | str | Message | RawMail | Any, *, long_words: bool = True
    ) -> tuple[set[str], str]:
        """The tokens of one message but its body's words and bigrams, and the body text
        they are read from (lower-cased, its URLs cut out): :meth:`tokens` adds those words
        with ``_mail_native.words(text, min_length, max_length, bigrams, out)``, a spam
        filter's bulk scoring looks them up in its table straight from the text
        (``_mail_native.clue_logs_text``). The body's long words are summarised here,
        unless ``long_words`` is false (``fisher_text`` adds them as it reads the text)."""
        out: set[str] = set()
        if isinstance(message, RawMail):
            if message.truncated:
                out.add("mail:truncated")
            message = message.data
        if isinstance(message, bytes | bytearray | str) and len(message) > self.max_bytes:
            # a 100 MB attachment is not parsed whole: the start and the end are
            if isinstance(message, str):
                message = cut(message, self.max_bytes)[0]
            else:
                message = cut(bytes(message), self.max_bytes)[0]
            out.add("mail:truncated")
        if not out and is_empty(message):  # no evidence: bogofilter's 0.5 (it was ham
            return out, ""  # 0.065, from its "no Message-ID" and "text/plain" alone)
        msg = parse(message)
        self._header_tokens(msg, out)
        was_cut = "mail:truncated" in out
        for defect in msg.defects:
            if was_cut and isinstance(defect, CloseBoundaryNotFoundDefect):
                continue  # (the cut lost the closing boundary: no defect of the message's)
            out.add("mime-defect:" + type(defect).__name__)
        texts: list[str] = []
        for part in walk_parts(msg):
            out.add("content-type:" + part.content_type)
            if part.charset:
                out.add("charset:" + part.charset)
            if part.encoding:
                out.add("encoding:" + part.encoding)
            if part.disposition:
                out.add("disposition:" + part.disposition)
            if part.filename:
                _filename_tokens(part.filename, out)
            if part.text is None:
                continue
            text = part.text
            if part.content_type == "text/html" or ("<" in text and _looks_like_html(text)):
                if self.html_tags:
                    for name, attrs in _HTML_TAG.findall(text[:200_000]):
                        name = name.lower()
                        out.add("html:" + name)
                        for attr in _HTML_ATTR.findall(attrs):
                            out.add(f"html:{name}.{attr.lower()}")
                text, links = html_to_text(text, joins=self.seen_words)
                for link in links:  # (an attribute's entities decoded: &amp; &#46;)
                    _url_tokens((html.unescape(link) if "&" in link else link).lower(), out)
            if "begin " in text:
                text, names = uudecoded_names(text)
                for name in names:
                    _filename_tokens(name, out)
            texts.append(text)
        text = " ".join(texts)
        if self.max_text is not None and len(text) > self.max_text:
            text = _cut_at_a_space(text, self.max_text)  # a 16 MB text: not 2M tokens
            out.add("mail:long-text")
        return out, self._text_tokens(text, out, long_words)

    def _words(self, text: str, out: set[str], prefix: str) -> None:
        _field_words(text, out, prefix, self.min_length, self.max_length)

    def _text_tokens(self, text: str, out: set[str], long_words: bool = True) -> str:
        """Adds the URL and (``long_words``) long-word tokens of the body ``text`` to
        ``out``; the text whose words and bigrams are tokens too (the compiled kernel reads
        them: body_words_reference is its specification in Python, tests/spam check that
        both agree)."""
        if self.seen_words and not text.isascii():
            text = _as_seen(text)
        if self.lowercase:
            text = text.lower()
        if "://" in text or "www." in text or "WWW." in text:
            text, urls = split_urls(text, lowered=self.lowercase)
            for url in urls:
                _url_tokens(url.lower(), out)
        if self.cjk_bigrams and not text.isascii():
            text = cjk_bigrams(text, out, "")
        if long_words:
            longs = _mail_native.words(text, self.min_length, self.max_length, self.bigrams, None)
            _long_words(longs, out, "")
        return text

    def body_words_reference(self, text: str) -> set[str]:
        """The body tokens of a lower-cased, URL-free ``text``, in plain Python: what the
        compiled kernel computes (for tests and readers)."""
        out: set[str] = set()
        self._words(text, out, "")
        if self.bigrams:
            lo, hi = self.min_length, self.max_length
            words = [w for w in text.split() if lo <= len(w) <= hi]
            for a, b in zip(words, words[1:], strict=False):
                out.add(f"bi:{a} {b}")
        return out

    def _header_tokens(self, msg: Message, out: set[str]) -> None:
        wanted = self.headers
        # one pass (get_all lower-cases every name, each call), in the kernel
        fields, counted = _mail_native.fields_by_name(
            msg.raw_items(), COUNTED_HEADERS if self.header_counts else frozenset()
        )
        for name, n in counted.items():
            out.add(f"header:{name}:{n}")
        if self.message_id:
            _message_id_tokens(fields.get("message-id"), out)
        for field in wanted:
            values = fields.get(field)
            if not values:
                continue
            if field in _ADDRESS_HEADERS:
                _address_tokens(field, values, out)
            elif field in _MAILER_HEADERS:  # (its white space as one space: a folded
                # value, or one stored with CRLF, is the same mailer)
                for value in values:
                    mailer = " ".join(decode_header(value).lower().split())
                    out.add(f"{field}:{mailer[:60]}")
            else:
                for value in values:
                    out.update(_word_field(field, value, self.min_length, self.max_length,
                                           self.seen_words, self.cjk_bigrams))  # fmt: skip
        if self.received:
            for value in fields.get("received", ()):
                for host in _HOST.findall(str(value).lower()):
                    out.add("received:" + host)
        if self.other_headers:
            seen = set(wanted) | {"received"}
            for field, values in fields.items():
                out.add("header:" + field)
                if field in seen or field.startswith("content-"):
                    continue
                for value in values:
                    text = decode_header(value).lower()
                    if self.cjk_bigrams and not text.isascii():
                        text = cjk_bigrams(text, out, field + ":")
                    self._words(text, out, field + ":")


def _fields_reference(
    items: Iterable[tuple[str, Any]], counted: frozenset[str]
) -> tuple[dict[str, list[Any]], dict[str, int]]:
    """A message's ``raw_items()`` grouped by lower-cased name, and the number of fields of
    each name (as spelt) whose lower-cased form is in ``counted``, in Python: what
    ``_mail_native.fields_by_name`` computes (tests compare them)."""
    fields: dict[str, list[Any]] = {}
    counts: dict[str, int] = {}
    for name, value in items:
        lower = name.lower()
        fields.setdefault(lower, []).append(value)
        if lower in counted:
            counts[name] = counts.get(name, 0) + 1
    return fields, counts


_BOOLS = (
    "received",
    "other_headers",
    "bigrams",
    "lowercase",
    "html_tags",
    "message_id",
    "header_counts",
    "seen_words",
    "cjk_bigrams",
)
#: the options a recipe stored before they existed reads as (its tokens unchanged)
_BEFORE_OPTIONS = {
    "message_id": False,
    "header_counts": False,
    "max_text": None,
    "seen_words": False,
    "cjk_bigrams": False,
}


def _cut_at_a_space(text: str, size: int) -> str:
    """The first ``size`` characters of ``text`` or fewer, ending before a space (no word
    cut in two; a text without one is cut at ``size``).

    >>> _cut_at_a_space("free cash now", 7), _cut_at_a_space("freecashnow", 9)
    ('free', 'freecashn')
    """
    head = text[: size + 1]
    cut = max(head.rfind(" "), head.rfind("\n"), head.rfind("\t"))
    return text[:cut] if cut > 0 else text[:size]


def split_urls(text: str, *, lowered: bool = False) -> tuple[str, list[str]]:
    """``text`` with its URLs (``http://``, ``https://``, ``ftp://``, ``www.``) cut out,
    and the URLs, in order (``lowered``: ``text`` is lower case already). Found by the
    kernel's scan for their markers (:func:`_split_urls_reference` is its reading in
    Python; a regular expression of alternatives tries each one at every character).

    >>> split_urls("see http://a.example/x and www.b.example or HTTPS://C.example.")
    ('see   and   or  ', ['http://a.example/x', 'www.b.example', 'HTTPS://C.example.'])
    """
    lower = text if lowered else lower_same_length(text)
    return _mail_native.split_urls(text, lower)


def _split_urls_reference(text: str, lower: str) -> tuple[str, list[str]]:
    """:func:`split_urls` in Python, ``lower`` the lower-cased ``text``: the specification
    of ``_mail_native.split_urls`` (tests/spam/test_mail_markup.py compares them)."""
    spans: list[tuple[int, int]] = []
    for marker in ("://", "www."):
        pos = lower.find(marker)
        while pos >= 0:
            start = pos
            if marker == "://":
                for scheme in ("https", "http", "ftp"):
                    if pos >= len(scheme) and lower.startswith(scheme, pos - len(scheme)):
                        start = pos - len(scheme)
                        break
                else:
                    pos = lower.find(marker, pos + 3)
                    continue
            m = _URL_END.search(lower, pos + len(marker))
            end = len(lower) if m is None else m.start()
            if end > pos + len(marker):
                spans.append((start, end))
            pos = lower.find(marker, end)
    if not spans:
        return text, []
    spans.sort()
    pieces: list[str] = []
    urls: list[str] = []
    last = 0
    for start, end in spans:
        if start < last:  # www. inside an http:// URL already cut
            continue
        pieces.append(text[last:start])
        urls.append(text[start:end])
        last = end
    pieces.append(text[last:])
    return " ".join(pieces), urls


# A header value's tokens, remembered (the least recently used forgotten): in bulk, mail of
# one sender or list repeats its From, To and Subject lines (half of the corpus' values),
# and each costs several regular expressions. (A URL's tokens cost less to read again, in
# the kernel, than to remember.)
_MEMO = 1 << 14


def _forget_memos() -> None:
    """Empty the remembered header tokens (benchmarks time a corpus the filter was just
    trained on as new mail: with nothing remembered)."""
    for memo in (_word_field_of, _address_value):
        memo.cache_clear()


@lru_cache(maxsize=_MEMO)
def _word_field_of(
    field: str, value: str, lo: int, hi: int, seen: int, cjk: int
) -> tuple[str, ...]:
    """The tokens of a header tokenized word by word: its punctuation runs and words
    (``seen``: as a reader sees them, ``MailTokenizer.seen_words``; ``cjk``: its CJK
    characters in pairs, ``MailTokenizer.cjk_bigrams``)."""
    out: set[str] = set()
    text = decode_header(value)
    if seen and not text.isascii():
        text = _as_seen(text)
    for run in _PUNCT_RUN.findall(text):
        out.add(f"{field}:{run}")
    text = text.lower()
    if cjk and not text.isascii():
        text = cjk_bigrams(text, out, field + ":")
    _field_words(text, out, field + ":", lo, hi)
    return tuple(out)


#: the characters of the scripts written without spaces between words: Hangul Jamo,
#: the ideographic iteration and closing marks (々〆〇), Hiragana and Katakana, Hangul
#: compatibility Jamo, Katakana's extension, CJK ideographs (extension A, the unified
#: block, compatibility ideographs), Hangul syllables and Jamo extensions, half-width
#: Katakana and Hangul, ideographs beyond the BMP (extensions B to H)
_CJK_CHARS = (
    "\u1100-\u11ff\u3005-\u3007\u3041-\u30ff\u3131-\u318e\u31f0-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7af\ud7b0-\ud7ff"
    "\uf900-\ufaff\uff66-\uffdc\U00020000-\U0003134f"
)
_CJK_RUN = re.compile(f"[{_CJK_CHARS}]+")
#: what a run and the CJK punctuation about it (the ideographic space, 、。「」 and the
#: other CJK symbols, the full-width ！（），：？［］｛｝ and the like) leave in the text: a space
_CJK_SPACE = re.compile(
    f"[{_CJK_CHARS}\u3000-\u3004\u3008-\u303f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65]+"
)


def _latin_1(text: str) -> bool:
    """Whether every code point of ``text`` is below 256: its Latin-1 encoding is a copy
    of a str stored one byte a code point (1,006 of the corpus's 1,281 non-ASCII texts; a
    search of them for CJK runs took 2.7 % of bulk scoring), or fails at the first wider
    one."""
    try:
        text.encode("latin-1")
    except UnicodeEncodeError:
        return False
    return True


def cjk_bigrams(text: str, out: set[str], prefix: str) -> str:
    """Adds the overlapping character pairs of each CJK run of ``text`` (a run of one
    character: itself) to ``out``, after ``prefix``; returns ``text`` with each run a
    space, the CJK punctuation about it too (no run is summarised as a long word, no
    word keeps a full stop 。).

    >>> out = set()
    >>> cjk_bigrams("会議の時間 is 3pm, 会。OK", out, "")
    '  is 3pm,  OK'
    >>> sorted(out)
    ['の時', '会', '会議', '時間', '議の']
    """
    if _latin_1(text):  # (most non-ASCII mail: no CJK code point, nothing to search)
        return text
    runs = _CJK_RUN.findall(text)
    if not runs:
        return text
    for run in set(runs):
        if len(run) == 1:
            out.add(prefix + run)
        else:
            out.update([prefix + run[i : i + 2] for i in range(len(run) - 1)])
    return _CJK_SPACE.sub(" ", text)


#: characters a reader does not see inside a word (zero-width spaces and joiners, word
#: joiner, byte order mark, soft hyphen: "v\u200biagra" reads "viagra"), and typographic
#: apostrophes as the typewriter's (phones and Outlook write "i\u2019m": 2 ham and 3
#: spam of the corpus had it, 908 and 77 "i'm"; a mail administrator's trial)
_UNSEEN: dict[int, str | None] = str.maketrans(
    {"\u200b": None, "\u200c": None, "\u200d": None, "\u2060": None, "\ufeff": None,
     "\u00ad": None, "\u2019": "'", "\u2018": "'"}
)  # fmt: skip
_UNSEEN_FOUND = re.compile("[\u200b\u200c\u200d\u2060\ufeff\u00ad\u2019\u2018]")


def _as_seen(text: str) -> str:
    """``text`` with :data:`_UNSEEN`'s characters dropped or replaced: found first, then
    each replaced by ``str.replace`` (``str.translate`` of every non-ASCII text cost the
    tokenizer 40 % more time on the corpus; of the texts that hold one, 0.35 ms each)."""
    if _latin_1(text):  # (of its characters, only the soft hyphen can be there)
        return text.replace("\u00ad", "") if "\u00ad" in text else text
    for found in set(_UNSEEN_FOUND.findall(text)):
        text = text.replace(found, _UNSEEN[ord(found)] or "")
    return text


def _remembered(memo: Any, field: str, value: Any, *rest: int) -> Any:
    """``memo(field, value, *rest)``, remembered when ``value`` is a str (an
    ``email.header.Header``, from a message built in code, is not hashable)."""
    if type(value) is str:
        return memo(field, value, *rest)
    return memo.__wrapped__(field, value, *rest)


def _word_field(field: str, value: Any, lo: int, hi: int, seen: bool, cjk: bool) -> tuple[str, ...]:
    return _remembered(_word_field_of, field, value, lo, hi, int(seen), int(cjk))


def _field_words(text: str, out: set[str], prefix: str, lo: int, hi: int) -> None:
    longs = []
    for w in set(text.split()):
        n = len(w)
        if n < lo:
            continue
        if n <= hi:
            out.add(prefix + w)
        else:
            longs.append(w)
    _long_words(longs, out, prefix)


def _long_words(words: Iterable[str], out: set[str], prefix: str) -> None:
    """Adds the tokens of words longer than the tokenizer's ``max_length`` to ``out``:
    read by the kernel (``_mail_native.long_words``), as :func:`_long_words_reference`
    reads them."""
    _mail_native.long_words(words, out, prefix)


def _long_words_reference(words: Iterable[str], out: set[str], prefix: str) -> None:
    """Words longer than the tokenizer's ``max_length``: e-mail addresses in pieces, the
    others summarised by first character and length (and their share of 8-bit
    characters)."""
    for w in words:
        n = len(w)
        if n < 40 and w.count("@") == 1 and "." in w:
            name, _, domain = w.partition("@")
            out.add(prefix + "email name:" + name)
            for piece in domain.split("."):
                out.add(prefix + "email addr:" + piece)
        else:
            out.add(f"{prefix}skip:{w[0]} {n // 10 * 10}")
        if not w.isascii():
            high = sum(1 for c in w if ord(c) > 127)
            out.add(f"{prefix}8bit%:{round(high * 100 / n)}")


def _looks_like_html(text: str) -> bool:
    head = text[:4000].lower()
    return "<html" in head or "<body" in head or "<br" in head or "<p>" in head or "<a " in head


def _url_tokens(url: str, out: set[str]) -> None:
    """Adds the tokens of the (lower-cased) ``url`` to ``out``: read by the kernel
    (``_mail_native.url_tokens``, 2.8x faster than this module's reading,
    :func:`_url_tokens_reference`, which tests compare it with), its host ended by a
    query or a fragment as by a path (:func:`_host_ended`)."""
    _mail_native.url_tokens(_host_ended(url), out)


def _host_ended(url: str) -> str:
    """``url`` with a ``/`` before a ``?`` or ``#`` that ends its host (the host is read
    up to the first ``/``): ``https://shop.example?utm_source=x`` gave the token
    ``url:shop.example?utm_source=x``, never ``url:shop.example`` (a trial's newsletters;
    a ``mailto:`` link's ``?subject=`` too).

    >>> _host_ended("https://shop.example?a=1"), _host_ended("http://a.example/p?q")
    ('https://shop.example/?a=1', 'http://a.example/p?q')
    """
    if "?" not in url and "#" not in url:
        return url
    start = url.find("://")
    start = 0 if start < 0 else start + 3
    slash = url.find("/", start)
    cut = stop = len(url) if slash < 0 else slash
    for mark in "?#":  # (the first before the host's end; str.find, not a loop in Python:
        i = url.find(mark, start, cut)  # 1.2 us a URL, 1.5 % of bulk scoring)
        if i >= 0:
            cut = i
    return url if cut == stop else url[:cut] + "/" + url[cut:]


def _url_tokens_reference(url: str) -> set[str]:
    """The scheme, host, domain and path pieces of ``url`` as tokens, in Python."""
    out: set[str] = set()
    proto, sep, rest = url.partition("://")
    if sep:
        out.add("proto:" + proto)
    else:
        rest = url
    host, _, path = rest.partition("/")
    host = host.rpartition("@")[2].partition(":")[0]
    if host:
        out.add("url:" + host)
        labels = host.split(".")
        if len(labels) > 2:
            out.add("url:" + ".".join(labels[-2:]))
    for piece in _URL_PIECE.split(path):
        if 2 < len(piece) <= 20:
            out.add("url:" + piece)
    return out


# An address: its local part starts a run of the characters it may hold (the lookbehind)
# and is taken whole (possessive): a search from every character of a long run without
# "@" ran to its end and back (quadratic: a From: of 40,000 characters took 13 s, a
# fuzzer's). The same matches as the plain pattern ``([^...]+)@([\w.-]+)``.
_ADDRESS = re.compile(r"(?<![^\s<>()\[\]:;@,\"'])([^\s<>()\[\]:;@,\"']++)@([\w.-]+)")
_COMMENT = re.compile(r"\(([^()]*)\)")  # a comment: ann@example.com (Ann)


def _address_tokens(field: str, values: list[Any], out: set[str]) -> None:
    """Names and addresses of an address header (a fast, lenient reading: spam's headers
    are often not RFC 5322, and the library's full parser costs more than the rest of a
    message's tokens)."""
    count = 0
    for value in values:
        tokens, n = _remembered(_address_value, field, value)
        out.update(tokens)
        count += n
    if field in ("to", "cc"):
        out.add(f"{field}:count:{min(count, 2**4).bit_length()}")


# One entry of an address header: quoted strings (a comma inside is the name's) and runs
# of anything but a comma or a quote, taken whole (possessive: no backtracking)
_ENTRY = re.compile(r'(?:"(?:[^"\\]|\\.)*+"?|[^,"]++)++')


@lru_cache(maxsize=_MEMO)
def _address_value(field: str, value: str) -> tuple[tuple[str, ...], int]:
    """The name and address tokens of one address header line, and its addresses.

    The entries are split, and the address of each found, in the raw value; only then is
    a display name decoded (RFC 2047): an encoded name is text, never an address (``From:
    =?utf-8?B?...?= <phish@evil.example>`` whose name decodes to "Justin Mason
    <jm@trusted.example>" gave the trusted address's tokens and none of the sender's), and
    a comma inside a quoted or encoded name does not split the entry ("Doe, Jane"). The
    address is the one in angle brackets, where an entry has them (the last pair)."""
    out: list[str] = []
    count = 0
    raw = value if isinstance(value, str) else str(value)
    if len(raw) > MAX_HEADER_CHARS:  # (as decode_header bounds a value)
        raw = raw[:MAX_HEADER_CHARS]
    for found in _ENTRY.finditer(raw):
        entry = found.group(0)
        _, angle, address = entry.rpartition("<")
        where = decode_header(angle + address if angle else entry, None).lower()
        local_domain = _ADDRESS.search(where)
        if local_domain is None:
            continue
        count += 1
        name = decode_header(_name_of(entry), None).lower().strip()
        out.append(f"{field}:name:{name[:40]}" if name else f"{field}:no name")
        out.append(f"{field}:addr:{local_domain.group(1)[:40]}")
        out.append(f"{field}:addr:{local_domain.group(2)[:60]}")
    return tuple(out), count


def _name_of(entry: str) -> str:
    """The display name (or comment) of one address ``entry`` (raw: not decoded): the text
    before its angle brackets, its quotes off; without them, a comment in parentheses."""
    if "<" in entry:
        name = entry.rpartition("<")[0].strip()
        if len(name) >= 2 and name[0] == '"' and name[-1] == '"':
            name = name[1:-1].replace('\\"', '"')
        if name or "(" not in entry:
            return name.strip()
        m = _COMMENT.search(entry)
        return m.group(1).strip() if m else ""
    if "(" in entry:
        m = _COMMENT.search(entry)
        return m.group(1).strip() if m else ""
    return ""


def _message_id_tokens(values: list[Any] | None, out: set[str]) -> None:
    """The first ``Message-ID``'s host, digits as 9 (``mail9.example.com``: the host
    without its numbered machines), and the shape of its left part (``9.a9``), or
    ``message-id:invalid`` / ``message-id:none``: read by the kernel
    (``_mail_native.message_id_tokens``), as :func:`_message_id_reference` reads them."""
    value = str(values[0]).strip().lower() if values else ""
    if not value:
        out.add("message-id:none")
    elif not _mail_native.message_id_tokens(value, out):
        out.add("message-id:invalid")


def _message_id_reference(value: str) -> set[str]:
    """The tokens of the (stripped, lower-cased, not empty) Message-ID ``value``, in
    Python (tests compare the kernel with it)."""
    m = _MESSAGE_ID.fullmatch(value)
    if m is None:
        return {"message-id:invalid"}
    return {
        "message-id:@" + _DIGIT.sub("9", m.group(2))[:40],
        "message-id:shape:" + _LETTERS.sub("a", _DIGITS.sub("9", m.group(1)))[:30],
    }


def _filename_tokens(name: str, out: set[str]) -> None:
    name = name.strip().lower()[:60]
    out.add("filename:" + name)
    stem, dot, ext = name.rpartition(".")
    if dot and stem and ext:
        out.add("filename-ext:" + ext)


#: a printable ASCII character other than a space: a message with one is not empty
_PRINTABLE_ASCII = re.compile(rb"[!-~]")


def is_empty(message: bytes | bytearray | str | Message | Any) -> bool:
    """Whether a message is empty, as the tokenizer reads it (no token: unsure at 0.5, and
    nothing to learn): nothing but white space, Unicode's (a lone FS control character is
    as empty as a space; bytes read as UTF-8, else Latin-1: a no-break space is white space
    as text and as its bytes), or an ``email.message.Message`` with no
    header, no postmark and no body but white space. Text whose first line looks like a
    head's ("From here on...", ":-)") is not empty: it is read as a body
    (:func:`nbayes.mail.parse`).

    >>> is_empty(b""), is_empty(b" \\n\\n"), is_empty(b"\\x1c\\n"), is_empty(b"Subject: x\\n\\n")
    (True, True, True, False)
    >>> is_empty(b"From here on, it is mine"), is_empty(b":-)"), is_empty("\\xa0".encode())
    (False, False, True)
    """
    if isinstance(message, RawMail):
        message = message.data
    if isinstance(message, memoryview):
        message = bytes(message)
    if isinstance(message, bytes | bytearray):  # (every message scored asks: no copy of it)
        if not message or message.isspace():
            return True
        if _PRINTABLE_ASCII.search(message):  # (a mail's first byte, as a rule: no decoding)
            return False
        try:  # as the tokenizer reads a body: UTF-8, else one byte a character
            return not bytes(message).decode("utf-8").strip()
        except UnicodeDecodeError:
            return not bytes(message).decode("latin-1").strip()
    if isinstance(message, str):
        return not message or message.isspace()
    if isinstance(message, Message):  # no header, no postmark, no body but white space
        payload = message.get_payload()
        return (
            not len(message)
            and message.get_unixfrom() is None
            and not message.is_multipart()
            and (payload is None or (isinstance(payload, str) and not payload.strip()))
        )
    if isinstance(message, os.PathLike):
        try:
            return is_empty(Path(message).read_bytes())
        except OSError:
            return False  # (the parse says what is wrong with it)
    return False
