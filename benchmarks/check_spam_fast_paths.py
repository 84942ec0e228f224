"""Checks that the spam filter's fast paths change nothing, on the whole shared corpus.

For every message of the SpamAssassin public corpus: the message the fast MIME reading
(:func:`nbayes.mail._mime.parse`: heads without the feed parser, simple multiparts split
by ``str.find``) builds is the feed parser's (compat32) in every field, parts included; and
the tokens are the feed parser's message's; the verdicts, spamicities and log-odds of a
filter trained on the whole corpus (three presets, and ``combining="mean"``) are bit for
bit those of the Python reading (the dict look-ups and ``_clue_values``), and the clues
(every 7th message) those
of the feed parser's message. Prints the counts and exits 1 if anything differs:

    python benchmarks/check_spam_fast_paths.py [--corpus DIR]
"""

from __future__ import annotations

import argparse
import math
import sys
from email.message import Message
from email.parser import BytesParser
from pathlib import Path
from unittest import mock

from nbayes.mail import MailTokenizer, _mime
from nbayes.mail._mime import _cut_long_fields, message_fields, parse
from nbayes.spam import SpamFilter


class _Counting(BytesParser):
    """The feed parser, counting the messages it parses whole."""

    calls = 0

    def parsebytes(self, text: bytes | bytearray, headersonly: bool = False) -> Message:
        if not headersonly:
            self.calls += 1
        return super().parsebytes(text, headersonly)


def python_log_scores(f: SpamFilter, tokens: frozenset[str]) -> tuple[float, float]:
    """The verdict's scores from the Python reading of the clues (``_clue_values``): given
    the clues, ``_log_scores`` combines them in Python, without the compiled kernel."""
    return f._log_scores(tokens, f._clue_values(tokens))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=Path, default=Path("/work/shared/data/spamassassin_public"))
    root = ap.parse_args().corpus
    rows = [line.split("\t") for line in (root / "index.tsv").read_text().splitlines()[1:]]
    raw = [(root / r[1]).read_bytes() for r in rows]
    labels = [r[2] for r in rows]
    parser = BytesParser()
    differ = [
        r[1]
        for r, data in zip(rows, raw, strict=True)
        # (the feed parser given what parse gives it too: the message with its overlong
        # Content-Type and Content-Disposition fields cut, a guard against hostile mail)
        if message_fields(parse(data)) != message_fields(parser.parsebytes(_cut_long_fields(data)))
    ]
    multipart = [data for data in raw if parse(data).is_multipart()]
    with mock.patch.object(_mime, "_PARSER", _Counting()) as counting:
        for data in multipart:
            parse(data)
    print(
        f"messages: {len(raw)}; parsed differently: {len(differ)}; multipart: "
        f"{len(multipart)}, of which the feed parser read {counting.calls}"
    )
    tok = MailTokenizer()
    token_differ = [
        r[1]
        for r, data in zip(rows, raw, strict=True)
        if tok.tokens(data) != tok.tokens(parser.parsebytes(data))
    ]
    print(f"token sets differing from the feed parser's message's: {len(token_differ)}")
    for name in (differ + token_differ)[:10]:
        print("  ", name)
    failures = len(differ) + len(token_differ)
    settings = [{"preset": p} for p in ("nbayes", "bogofilter", "spambayes")]
    for params in [*settings, {"combining": "mean"}]:
        f = SpamFilter(**params)
        sets = [f.tokenize(data) for data in raw]
        f.fit(sets, labels)
        bad = 0
        for tokens, verdict in zip(sets, f.classify(raw), strict=True):
            log_spam, log_ham = python_log_scores(f, tokens)
            same_scores = f._log_scores(tokens) == (log_spam, log_ham)
            same = same_scores and verdict.spamicity == math.exp(log_spam)
            bad += not same or verdict.log_odds != log_spam - log_ham
        clue_bad = sum(
            f.clues(raw[i]) != f.clues(parser.parsebytes(raw[i])) for i in range(0, len(raw), 7)
        )
        print(f"{params}: verdicts differing from the Python reading: {bad}; clues "
              f"differing from the feed parser's message's (every 7th): {clue_bad}")  # fmt: skip
        failures += bad + clue_bad
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
