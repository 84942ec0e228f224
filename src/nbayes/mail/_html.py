"""HTML reduced to the text a reader sees, and the URLs it links to.

Comments, ``<script>`` and ``<style>`` are dropped, tags become spaces but the inline
ones (``<b>``, ``<span>``, ``<font>``, ...) and comments, which a reader does not see
between letters (``<b>Win</b>ner``, ``V<span></span>iagra``, ``Vi<!-- -->agra`` read as one
word), entities are decoded. The scan is linear in the input whatever it holds (an
unterminated comment or script hides the rest, as in a browser): spam is adversarial, and a
backtracking regular expression over ``<!--.*?-->`` is quadratic on unterminated comments.
Links (``href``, ``src``, ``action``, ``background``) are returned apart, for URL tokens.
"""

from __future__ import annotations

import re

from nbayes import _mail_native

__all__ = ["html_to_text", "lower_same_length"]

# (one run of blanks after "=", then a quote and blanks: "=\s*["']?\s*" split a run of blanks
# between its two \s* every way it could when no value followed, quadratic: 20 KB of blanks
# after "href=" in non-ASCII HTML took 5.5 s holding the GIL, a review found)
_LINK = re.compile(r"""\b(?:href|src|action|background)\s*=\s*(?:["']\s*)?([^"'\s>]+)""", re.I)
_LINK_NAMES = ("href", "src", "action", "background")
#: the characters other than ASCII letters that re.I matches to an ASCII letter (to "s",
#: "i", "i" and "k": re._casefix and Unicode's simple lower case)
_FOLD_TO_ASCII = ("\u017f", "\u0131", "\u0130", "\u212a")
_TAG = re.compile(r"<[^<>]{0,2000}>")  # (what _mail_native.strip_tags replaces, 6x faster)
_INLINE_NAMES = (
    "a abbr b bdi bdo big cite code del dfn em font i ins kbd mark q s samp small span "
    "strike strong sub sup tt u var"
).split()
#: the tags of inline elements, which join the letters on either side (either case, as
#: character classes: no "ſ" read as an "s"): the specification of the kernel's
#: ``strip_tags(text, joins=True)``, which removes them (tests/spam/test_mail_markup.py)
_INLINE = re.compile(
    "</?(?:"
    + "|".join("".join(f"[{c}{c.upper()}]" for c in name) for name in _INLINE_NAMES)
    + r")(?:[\s/][^<>]{0,2000})?>"
)
_DROPPED = ("script", "style")


def lower_same_length(text: str) -> str:
    """``text`` lower-cased code point for code point, so that a position found in it
    indexes ``text``: ``str.lower`` turns "İ" (U+0130, the one such code point) into two,
    "i" and a combining dot, which would shift every position after it; here it is "i".

    >>> lower_same_length("İSTANBUL <!--x-->"), "İSTANBUL <!--x-->".lower()[:10]
    ('istanbul <!--x-->', 'i̇stanbul ')
    """
    lower = text.lower()
    if len(lower) != len(text):
        lower = text.replace("\u0130", "I").lower()
    return lower


def _cut(text: str, lower: str, start: str, end: str, joins: bool = False) -> tuple[str, str]:
    """``text`` without the spans from ``start`` to ``end`` (both lower case, searched in
    ``lower``, the lower-cased ``text``), each a space (``joins``: nothing); an
    unterminated span runs to the end."""
    if start not in lower:
        return text, lower
    out: list[str] = []
    lows: list[str] = []
    pos = 0
    while True:
        i = lower.find(start, pos)
        if i < 0:
            out.append(text[pos:])
            lows.append(lower[pos:])
            break
        out.append(text[pos:i])
        lows.append(lower[pos:i])
        j = lower.find(end, i + len(start))
        if j < 0:
            break
        pos = j + len(end)
        if not end.endswith(">"):  # the rest of a closing tag: "</script >"
            k = lower.find(">", pos)
            pos = len(lower) if k < 0 else k + 1
        if not joins:
            out.append(" ")
            lows.append(" ")
    return "".join(out), "".join(lows)


def _links(text: str, lower: str) -> list[str]:
    """``_LINK.findall(text)``, without trying the pattern at every character (a
    case-insensitive pattern starting with ``\\b`` is: 17x slower on the corpus' pages):
    an ASCII text is scanned by the kernel (``_mail_native.links``); in other text the
    pattern is tried only where one of its names starts, found by ``str.find`` in
    ``lower`` (:func:`lower_same_length` of ``text``). Text with one of the four
    characters that ``re.I`` matches to an ASCII letter of another lower case ("ſ", "ı",
    "İ", "K") takes ``findall`` itself."""
    if text.isascii():
        return _mail_native.links(text)
    if any(c in text for c in _FOLD_TO_ASCII):
        return _LINK.findall(text)
    starts: list[int] = []
    for name in _LINK_NAMES:
        pos = lower.find(name)
        while pos >= 0:
            starts.append(pos)
            pos = lower.find(name, pos + 1)
    starts.sort()
    out: list[str] = []
    end = 0
    for pos in starts:
        if pos < end:  # inside the previous link (findall's matches do not overlap)
            continue
        m = _LINK.match(text, pos)
        if m is not None:
            out.append(m.group(1))
            end = m.end()
    return out


def html_to_text(markup: str, joins: bool = True) -> tuple[str, list[str]]:
    """The visible text of ``markup`` and the URLs of its links (``joins=False``: every
    tag and comment a space, as filters before ``MailTokenizer.seen_words`` read it).

    >>> html_to_text('<p>Buy <b>now</b><!-- hidden --><script>x()</script>'
    ...              '<a href="http://spam.example/buy">here</a> &amp; save</p>')
    (' Buy now here & save ', ['http://spam.example/buy'])
    >>> html_to_text('<b>Win</b>ner: V<span style="x"></span>iagra, Vi<!-- -->agra<br>now')[0]
    'Winner: Viagra, Viagra now'
    """
    text, lower = _cut(markup, lower_same_length(markup), "<!--", "-->", joins=joins)
    for name in _DROPPED:
        text, lower = _cut(text, lower, "<" + name, "</" + name)
    links = _links(text, lower) if "=" in text else []
    # (joins: _INLINE.sub("", text) first), then _TAG.sub(" ", text), compiled: the inline
    # tags' pattern took 4 % of bulk scoring
    text = _mail_native.strip_tags(text, joins)
    if "&" in text:
        from html import unescape  # on first use: its table of entities is large

        text = unescape(text)
    return text, links
