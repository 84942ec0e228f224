"""The mail scans of the compiled kernel against the Python readings they replaced, on the
whole shared corpus: the same results (checked on every input) and the time of each, per
message of the corpus (median of interleaved runs).

    python benchmarks/bench_mail_scans.py [--corpus DIR] [--runs 7]

The scans (src/native/mail_markup.hpp): a head's fields (``head_fields`` against
``_SIMPLE_HEAD.fullmatch`` + ``_FIELD.findall``), HTML tags (``strip_tags`` against
``_TAG.sub``), a page's links (``_links`` against ``_LINK.findall``), a body's URLs
(``split_urls`` against ``_split_urls_reference``), a URL's tokens (``url_tokens`` against
``_url_tokens_reference``), a Message-ID's tokens (``message_id_tokens`` against
``_message_id_reference``), a head's fields grouped by name (``fields_by_name`` against
``_fields_reference``), a body's long words' tokens (``long_words`` against
``_long_words_reference``); and an address entry's name (``_name_of`` against the name
pattern's search).
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bench_spam import find_corpus

from nbayes import _mail_native
from nbayes.mail import _html, _mime, _tokenizer
from nbayes.mail._mime import decode_header, parse, walk_parts
from nbayes.spam import SpamFilter


def head_reference(text: str) -> list[tuple[str, str]] | None:
    return _mime._FIELD.findall(text) if _mime._SIMPLE_HEAD.fullmatch(text) else None


def name_reference(entry: str) -> str:
    m = _tokenizer._NAME.search(entry)
    return (m.group(1) or m.group(2) or "").strip() if m else ""


def url_tokens_native(url: str) -> set[str]:
    out: set[str] = set()
    _mail_native.url_tokens(url, out)
    return out


def long_words(add: Callable[[list[str], set[str], str], None], words: list[str]) -> set[str]:
    out: set[str] = set()
    add(words, out, "")
    return out


def message_id_native(value: str) -> set[str]:
    out: set[str] = set()
    return out if _mail_native.message_id_tokens(value, out) else {"message-id:invalid"}


def inputs(raw: list[bytes]) -> dict[str, list[Any]]:
    """What each scan reads, as the tokenizer hands it over, from every message."""
    heads, pages, bodies, urls, entries, ids, items, longs = [], [], [], [], [], [], [], []
    tok = SpamFilter()._tokenizer()
    lo, hi = tok.min_length, tok.max_length
    for data in raw:
        text = data.decode("ascii", "surrogateescape")
        end = text.find("\n\n")
        if end > 0 and "\r" not in text[:end]:
            head = text[: end + 1]
            heads.append(head[head.find("\n") + 1 :] if head.startswith("From ") else head)
        msg = parse(data)
        items.append(msg.raw_items())
        value = str(msg.get("message-id", "")).strip().lower()
        if value:
            ids.append(value)  # (as _message_id_tokens hands it over)
        for name, value in msg.raw_items():
            if name.lower() in ("from", "to", "cc", "reply-to") and type(value) is str:
                entries += decode_header(value).lower().split(",")
        for part in walk_parts(msg):
            if part.text is None:
                continue
            body = part.text
            if part.content_type == "text/html":
                pages.append(body)
                body, links = _html.html_to_text(body)
                urls += [link.lower() for link in links]
            lower = body.lower()
            bodies.append(lower)
            longs.append(_mail_native.words(lower, lo, hi, True, None))
            urls += [url.lower() for url in _tokenizer.split_urls(lower, lowered=True)[1]]
    lowered = [(page, _html.lower_same_length(page)) for page in pages]  # (as html_to_text has)
    return {"heads": heads, "pages": pages, "lowered pages": lowered, "bodies": bodies,
            "urls": urls, "entries": entries, "ids": ids,
            "items": [list(i) for i in items], "long words": longs}  # fmt: skip


def timed(fn: Callable[[Any], Any], items: Sequence[Any], n_messages: int) -> float:
    t0 = time.perf_counter()
    for item in items:
        fn(item)
    return (time.perf_counter() - t0) / n_messages * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=Path, default=None)
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    root = args.corpus or find_corpus()
    rows = list(csv.DictReader(open(root / "index.tsv", encoding="utf-8"), delimiter="\t"))
    raw = [(root / r["path"]).read_bytes() for r in rows]
    got = inputs(raw)
    scans = [
        ("head fields", "heads", _mail_native.head_fields, head_reference),
        ("HTML tags", "pages", _mail_native.strip_tags, lambda t: _html._TAG.sub(" ", t)),
        ("links", "lowered pages", lambda tl: _html._links(*tl),
         lambda tl: _html._LINK.findall(tl[0])),
        ("URLs in text", "bodies", lambda t: _tokenizer.split_urls(t, lowered=True),
         lambda t: _tokenizer._split_urls_reference(t, t)),
        ("a URL's tokens", "urls", url_tokens_native, _tokenizer._url_tokens_reference),
        ("a Message-ID", "ids", message_id_native, _tokenizer._message_id_reference),
        ("fields by name", "items",
         lambda i: _mail_native.fields_by_name(i, _tokenizer.COUNTED_HEADERS),
         lambda i: _tokenizer._fields_reference(i, _tokenizer.COUNTED_HEADERS)),
        ("long words", "long words", lambda w: long_words(_mail_native.long_words, w),
         lambda w: long_words(_tokenizer._long_words_reference, w)),
        ("an address's name", "entries", _tokenizer._name_of, name_reference),
    ]  # fmt: skip
    differ = 0
    print(f"{len(raw)} messages; us per message of the corpus, median of {args.runs} runs")
    print(f"{'scan':<20} {'inputs':>7} {'kernel':>8} {'Python':>8} {'ratio':>7}")
    for name, key, fast, reference in scans:
        items = got[key]
        differ += sum(fast(x) != reference(x) for x in items)
        fast_t, ref_t = [], []
        for _ in range(args.runs):  # interleaved
            fast_t.append(timed(fast, items, len(raw)))
            ref_t.append(timed(reference, items, len(raw)))
        f, r = statistics.median(fast_t), statistics.median(ref_t)
        print(f"{name:<20} {len(items):>7} {f:>8.2f} {r:>8.2f} {r / f:>6.1f}x")
    print(f"inputs whose results differ: {differ}")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
