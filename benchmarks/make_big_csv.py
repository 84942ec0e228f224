"""Stream a large synthetic Zipfian CSV (``text,label``) to disk in bounded memory.

The same model of text as ``make_zipf_corpus.py`` (20 classes, a shared Zipf distribution
over 200,000 pseudo-words mixed with a class-specific Zipf distribution, sentences of 14
words), but generated block by block with vectorized NumPy, so a 2 GB file takes a few
minutes and about 200 MB of memory. ``--novel-per-doc`` adds, per document, about that
many words never seen before (random 10-letter strings), which makes the vocabulary
grow with the corpus as in real text (Heaps' law: names, typos, numbers); with the
default 0 the vocabulary is closed at ``--n-types`` words.

Usage::

    python benchmarks/make_big_csv.py --size-mb 2000 --out benchmarks/_data/big_2gb.csv
    python benchmarks/make_big_csv.py --size-mb 2000 --novel-per-doc 1 --out ...
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_zipf_corpus import make_vocabulary, zipf_p  # noqa: E402

LETTERS = np.frombuffer(b"abcdefghijklmnopqrstuvwxyz", dtype=np.uint8)


def write_corpus(
    out: Path,
    size_mb: float,
    n_classes: int = 20,
    n_types: int = 200_000,
    seed: int = 0,
    mix: float = 0.1,
    mean_words: float = 245.0,
    novel_per_doc: float = 0.0,
    block_docs: int = 20_000,
) -> tuple[int, int]:
    """Write the corpus to ``out``; return (documents, bytes)."""
    rng = np.random.default_rng(seed)
    vocab = make_vocabulary(n_types, rng)
    cum_base = np.cumsum(zipf_p(n_types))
    perms = np.stack([rng.permutation(n_types) for _ in range(n_classes)]).astype(np.int32)
    cum_cls = np.cumsum(zipf_p(n_types, s=1.1, q=10.0))
    target = int(size_mb * 1_000_000)
    n_docs = 0
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", encoding="ascii", newline="") as f:
        f.write("text,label\r\n")
        written = f.tell()
        while written < target:
            lengths = np.maximum(
                3, rng.lognormal(np.log(mean_words) - 0.18, 0.6, size=block_docs).astype(np.int64)
            )
            cls = rng.integers(n_classes, size=block_docs)
            total = int(lengths.sum())
            doc_of = np.repeat(np.arange(block_docs), lengths)
            u = rng.random(total)
            from_cls = rng.random(total) < mix
            ranks = np.searchsorted(cum_base, u)
            ranks[from_cls] = perms[cls[doc_of[from_cls]], np.searchsorted(cum_cls, u[from_cls])]
            words = vocab[np.minimum(ranks, n_types - 1)]
            if novel_per_doc > 0:
                novel = rng.random(total) < novel_per_doc / mean_words
                k = int(novel.sum())
                codes = LETTERS[rng.integers(26, size=(k, 10))]
                words[novel] = np.array(codes.view("S10").ravel().astype(str), dtype=object)
            starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
            pos = np.arange(total) - starts[doc_of]
            first = pos % 14 == 0
            words[first] = [w.capitalize() for w in words[first]]
            last = (pos % 14 == 13) | (pos == lengths[doc_of] - 1)
            words[last] = [w + "." for w in words[last]]
            lines = []
            ends = starts + lengths
            wl = words.tolist()
            for d in range(block_docs):
                lines.append(" ".join(wl[starts[d] : ends[d]]) + f",class_{cls[d]:02d}\r\n")
            chunk = "".join(lines)
            f.write(chunk)
            written += len(chunk)
            n_docs += block_docs
    return n_docs, out.stat().st_size


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size-mb", type=float, default=2000.0)
    ap.add_argument("--n-classes", type=int, default=20)
    ap.add_argument("--n-types", type=int, default=200_000)
    ap.add_argument("--novel-per-doc", type=float, default=0.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "_data" / "big.csv")
    args = ap.parse_args()
    t0 = time.perf_counter()
    n, size = write_corpus(
        args.out, args.size_mb, args.n_classes, args.n_types, args.seed,
        novel_per_doc=args.novel_per_doc,
    )  # fmt: skip
    print(f"wrote {n} documents, {size / 1e6:.1f} MB to {args.out} "
          f"in {time.perf_counter() - t0:.0f} s")  # fmt: skip


if __name__ == "__main__":
    main()
