"""Hostile mail a fuzzer found (issue 26: "bad input ... never a crash"): the time
``MailTokenizer().tokens`` takes on each, best of 3 runs, each run a new message (a
header's reading is memoized by its value). Run it with the code before a change and after
(two installs, e.g. a clone's venv), one after the other:

    python benchmarks/bench_hostile_mail.py
"""

from __future__ import annotations

import time
from collections.abc import Callable

from nbayes.mail import MailTokenizer

CASES: dict[str, Callable[[int], bytes]] = {
    "Subject: of 6,000 unterminated encoded words (66 KB)": lambda k: (
        b"Subject: %d " % k + b"=?utf-8?q? " * 6000 + b"\n\nhello\n"
    ),
    "From: of 20,000 characters without @": lambda k: (
        b"From: %d" % k + b"x" * 20_000 + b"\nSubject: hi\n\nhello\n"
    ),
    "300,000 empty parts, boundary ' B' (1.8 MB)": lambda k: (
        b'Subject: %d\nContent-Type: multipart/mixed; boundary=" B"\n\n' % k
        + b"-- B\n\n" * 300_000
        + b"-- B--\n"
    ),
    "300,000 empty parts, lone CR line ends (1.5 MB)": lambda k: (
        b'Subject: %d\rContent-Type: multipart/mixed; boundary="B"\r\r' % k
        + b"--B\r\r" * 300_000
        + b"--B--\r"
    ),
    "Subject: =?utf-8?b?A?= (bad base64)": lambda k: b"Subject: %d =?utf-8?b?A?=\n\nhi\n" % k,
    "900,000 header lines (10 MB)": lambda k: (
        b"Subject: %d\n" % k + b"".join(b"X-H%d: v\n" % i for i in range(900_000)) + b"\nhi\n"
    ),
    "5,000,000 lines of ':' (10 MB, no head)": lambda k: b": %d\n" % k + b":\n" * 5_000_000,
}


def main() -> None:
    tokenizer = MailTokenizer()
    for name, make in CASES.items():
        best, outcome = float("inf"), ""
        for k in range(3):
            raw = make(k)
            start = time.perf_counter()
            try:
                tokenizer.tokens(raw)
                outcome = "tokens"
            except Exception as exc:  # what the message raised, reported as the figure
                outcome = type(exc).__name__
            best = min(best, time.perf_counter() - start)
        print(f"{name}: {best:.3f} s ({outcome})", flush=True)


if __name__ == "__main__":
    main()
