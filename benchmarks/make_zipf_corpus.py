"""Deterministic synthetic Zipfian text-classification corpus (CSV ``text,label``).

Each class draws its words from a mixture of a shared Zipf distribution over the whole
vocabulary and a class-specific Zipf distribution over its own random permutation of
the vocabulary, so the classes are separable but overlap realistically. Words are
lower-case ASCII pseudo-words; sentences start with a capital letter and end with a
full stop. The default (100 MB, seed 0) gives about 95,000 documents and about 199,000
word types.

Usage::

    python benchmarks/make_zipf_corpus.py --size-mb 100 --out benchmarks/_data/zipf_100mb.csv
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import numpy as np

LETTERS = np.array(list("etaoinshrdlcumwfgypbvkjxqz"))
LETTER_P = np.array(
    [
        12.7,
        9.1,
        8.2,
        7.5,
        7.0,
        6.7,
        6.3,
        6.1,
        6.0,
        4.3,
        4.0,
        2.8,
        2.8,
        2.4,
        2.4,
        2.2,
        2.0,
        2.0,
        1.9,
        1.5,
        1.0,
        0.8,
        0.15,
        0.15,
        0.1,
        0.07,
    ]
)


def make_vocabulary(n_types: int, rng: np.random.Generator) -> np.ndarray:
    """``n_types`` distinct pseudo-words, shorter ones more frequent (rank order)."""
    p = LETTER_P / LETTER_P.sum()
    words: list[str] = []
    seen: set[str] = set()
    while len(words) < n_types:
        k = 4 * (n_types - len(words)) + 1000
        lengths = np.clip(rng.poisson(6.0, size=k), 2, 16)
        chars = rng.choice(LETTERS, size=int(lengths.sum()), p=p)
        ends = np.cumsum(lengths)
        blob = "".join(chars.tolist())
        for a, b in zip(ends - lengths, ends, strict=True):
            w = blob[a:b]
            if w not in seen:
                seen.add(w)
                words.append(w)
                if len(words) == n_types:
                    break
    # frequent ranks get the shortest words, as in natural language
    arr = np.array(words, dtype=object)
    order = np.argsort([len(w) for w in words], kind="stable")
    return arr[order]


def zipf_p(n: int, s: float = 1.05, q: float = 2.7) -> np.ndarray:
    p = 1.0 / (np.arange(n) + q) ** s
    return p / p.sum()


def generate(
    size_mb: float = 100.0,
    n_classes: int = 20,
    n_types: int = 200_000,
    seed: int = 0,
    mix: float = 0.1,
    mean_words: float = 245.0,
) -> tuple[list[str], list[str]]:
    """Documents and labels totalling about ``size_mb`` MB of text."""
    rng = np.random.default_rng(seed)
    vocab = make_vocabulary(n_types, rng)
    base = zipf_p(n_types)
    cum_base = np.cumsum(base)
    perms = [rng.permutation(n_types) for _ in range(n_classes)]
    cum_cls = np.cumsum(zipf_p(n_types, s=1.1, q=10.0))
    target = int(size_mb * 1_000_000)
    docs: list[str] = []
    labels: list[str] = []
    total = 0
    while total < target:
        c = int(rng.integers(n_classes))
        n = max(3, int(rng.lognormal(np.log(mean_words) - 0.18, 0.6)))
        u = rng.random(n)
        from_cls = rng.random(n) < mix
        ranks = np.searchsorted(cum_base, u)
        ranks[from_cls] = perms[c][np.searchsorted(cum_cls, u[from_cls])]
        ranks = np.minimum(ranks, n_types - 1)
        words = vocab[ranks].tolist()
        # sentences of ~14 words, capitalised, with a full stop
        for i in range(0, n, 14):
            words[i] = words[i].capitalize()
            j = min(i + 13, n - 1)
            words[j] = words[j] + "."
        text = " ".join(words)
        docs.append(text)
        labels.append(f"class_{c:02d}")
        total += len(text) + 1
    return docs, labels


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size-mb", type=float, default=100.0)
    ap.add_argument("--n-classes", type=int, default=20)
    ap.add_argument("--n-types", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "_data" / "zipf.csv")
    args = ap.parse_args()
    docs, labels = generate(args.size_mb, args.n_classes, args.n_types, args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["text", "label"])
        w.writerows(zip(docs, labels, strict=True))
    print(f"wrote {len(docs)} documents, {args.out.stat().st_size / 1e6:.1f} MB to {args.out}")


if __name__ == "__main__":
    main()
