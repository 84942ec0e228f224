"""HTML reduced to the text a reader sees, and the URLs it links to.

Comments, ``<script>`` and ``<style>`` are dropped, tags become spaces, entities are
decoded. The scan is linear in the input whatever it holds (an unterminated comment or
script hides the rest, as in a browser): spam is adversarial, and a backtracking regular
expression over ``<!--.*?-->`` is quadratic on unterminated comments. Links (``href``,
``src``, ``action``, ``background``) are returned apart, for URL tokens.
"""

from __future__ import annotations

import re

__all__ = ["html_to_text"]

_LINK = re.compile(r"""\b(?:href|src|action|background)\s*=\s*["']?\s*([^"'\s>]+)""", re.I)
_TAG = re.compile(r"<[^<>]{0,2000}>")
_DROPPED = ("script", "style")


def _cut(text: str, lower: str, start: str, end: str) -> tuple[str, str]:
    """``text`` without the spans from ``start`` to ``end`` (both lower case, searched in
    ``lower``, the lower-cased ``text``); an unterminated span runs to the end."""
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
        out.append(" ")
        lows.append(" ")
    return "".join(out), "".join(lows)


def html_to_text(markup: str) -> tuple[str, list[str]]:
    """The visible text of ``markup`` and the URLs of its links.

    >>> html_to_text('<p>Buy <b>now</b><!-- hidden --><script>x()</script>'
    ...              '<a href="http://spam.example/buy">here</a> &amp; save</p>')
    (' Buy  now       here  & save ', ['http://spam.example/buy'])
    """
    lower = markup.lower()
    text, lower = _cut(markup, lower, "<!--", "-->")
    for name in _DROPPED:
        text, lower = _cut(text, lower, "<" + name, "</" + name)
    links = _LINK.findall(text) if "=" in text else []
    text = _TAG.sub(" ", text)
    if "&" in text:
        from html import unescape  # on first use: its table of entities is large

        text = unescape(text)
    return text, links
