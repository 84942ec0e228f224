"""Peak memory of ``nbayes.load`` relative to the model file's size (issue 14, item 9).

Each load runs in a fresh process. The child imports nbayes, numpy and the model's
serialiser first, resets the kernel's peak-RSS counter (``/proc/self/clear_refs``), loads
the file, and reports the growth of the peak RSS (``VmHWM`` after the load minus ``VmRSS``
before it): the memory the load itself needed, without the interpreter and the imports.

Files measured:

* ``text-unigram``: a TextClassifier fitted on the 20 Newsgroups training set
  (``/work/shared/data/20newsgroups_bydate``, or ``--data``): 20 classes, 130 k terms;
* ``text-unigram-2``: the same documents with two labels (even/odd row): the vocabulary
  is then a quarter of the file, the densest legitimate case (schema 2: the terms packed
  as UTF-8 bytes + offsets, arrays of the data section);
* ``text-unigram-2-schema1``: the same model written as nbayes 0.1.0 wrote it (schema 1:
  the vocabulary a JSON list in the header), loaded by this nbayes;
* ``text-bigram``: ``ngram_range=(1, 2)``: a large legitimate model (its vocabulary is a
  large JSON header, its counts a large data section);
* ``text-bigram-hashing``: the same with ``hashing=True`` (no vocabulary, all arrays);
* ``multinomial``: a MultinomialNB of 20 classes x 200,000 features (arrays only);
* ``hostile-dicts``, ``hostile-lists``, ``hostile-ints``, ``hostile-strings``: a small valid
  MultinomialNB whose metadata carries ~4 MB of dense JSON (10^6 empty objects, empty
  lists, one-digit integers or empty strings) with a valid checksum, as a hostile writer
  would make it. They must be refused (ModelFileError) within the same bound.

Usage::

    python benchmarks/bench_load_memory.py                  # every file, a table
    python benchmarks/bench_load_memory.py --only hostile-dicts
    python benchmarks/bench_load_memory.py --json
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

DATA = Path("/work/shared/data/20newsgroups_bydate/20news_bydate_train.csv")
HOSTILE = {
    "hostile-dicts": "{}",
    "hostile-lists": "[]",
    "hostile-ints": "0",
    "hostile-strings": '""',
}


# ---------------------------------------------------------------------------- the files
def _texts(path: Path) -> tuple[list[str], list[str]]:
    csv.field_size_limit(1 << 30)
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))[1:]
    return [r[0] for r in rows], [r[1] for r in rows]


def make_text(path: Path, data: Path, name: str) -> None:
    import nbayes

    X, y = _texts(data)
    if name.startswith("text-unigram-2"):
        y = [str(i % 2) for i in range(len(y))]
    ngrams = (1, 2) if "bigram" in name else (1, 1)
    clf = nbayes.TextClassifier(ngram_range=ngrams, hashing=name.endswith("hashing"))
    nbayes.save(clf.fit(X, y), path)
    if name.endswith("schema1"):
        as_schema_1(path)


def as_schema_1(path: Path) -> None:
    """Rewrite a text model file as nbayes 0.1.0 wrote it: the vocabulary a JSON list."""
    from nbayes.io._modelfile import read_model_file, write_model_file
    from nbayes.text._vocabulary import PackedTerms

    metadata, arrays = read_model_file(path)
    terms = PackedTerms(arrays.pop("vocabulary/bytes"), arrays.pop("vocabulary/offsets"))
    metadata["schema_version"] = 1
    metadata["model"]["vocabulary"] = terms.strings()
    write_model_file(path, metadata, arrays)


def make_multinomial(path: Path) -> None:
    import numpy as np

    import nbayes

    rng = np.random.default_rng(0)
    X = rng.poisson(0.05, size=(400, 200_000)).astype(np.float64)
    nbayes.save(nbayes.MultinomialNB().fit(X, np.arange(400) % 20), path)


def make_hostile(path: Path, item: str, n: int = 1_000_000) -> None:
    """A MultinomialNB file whose metadata holds ``n`` copies of ``item`` (valid checksum)."""
    import numpy as np

    import nbayes
    from nbayes.io._modelfile import read_model_file, write_model_file

    nbayes.save(nbayes.MultinomialNB().fit(np.eye(2), [0, 1]), path)
    metadata, arrays = read_model_file(path)
    metadata["padding"] = json.loads("[" + ",".join([item] * n) + "]")
    write_model_file(path, metadata, arrays)


# ---------------------------------------------------------------------------- the child
def _status(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def child(path: str, model_type: str) -> None:
    import nbayes
    from nbayes.exceptions import ModelFileError
    from nbayes.io import _registry

    if model_type in _registry.BUILTIN:
        _registry._import_builtin(model_type)  # the serialiser and its estimator
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # reset VmHWM to the current RSS
    before = _status("VmRSS")
    try:
        nbayes.load(path)
        outcome = "loaded"
    except ModelFileError as exc:
        outcome = f"ModelFileError: {str(exc)[:120]}"
    peak = _status("VmHWM")
    print(json.dumps({"growth": peak - before, "before": before, "outcome": outcome}))


def measure(path: Path, model_type: str) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", str(path), model_type],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    result = json.loads(out.strip().splitlines()[-1])
    size = path.stat().st_size
    result.update(size=size, ratio=result["growth"] / size)
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--data", type=Path, default=DATA, help="the 20 Newsgroups training CSV")
    ap.add_argument("--only", action="append", help="measure only these files")
    ap.add_argument("--json", action="store_true", help="print JSON lines")
    args = ap.parse_args()
    if args.child:
        child(*args.child)
        return
    names = [
        "text-unigram", "text-unigram-2", "text-unigram-2-schema1", "text-bigram",
        "text-bigram-hashing", "multinomial", *HOSTILE,
    ]  # fmt: skip
    if args.only:
        names = [n for n in names if n in args.only]
    with tempfile.TemporaryDirectory() as tmp:
        if not args.json:
            print(f"{'file':<22} {'size MB':>8} {'peak growth MB':>15} {'ratio':>6}  outcome")
        for name in names:
            path = Path(tmp) / f"{name}.nbayes"
            if name in HOSTILE:
                make_hostile(path, HOSTILE[name])
                model_type = "MultinomialNB"
            elif name == "multinomial":
                make_multinomial(path)
                model_type = "MultinomialNB"
            else:
                make_text(path, args.data, name)
                model_type = "TextClassifier"
            r = measure(path, model_type)
            if args.json:
                print(json.dumps({"file": name, **r}))
            else:
                print(
                    f"{name:<22} {r['size'] / 1e6:>8.1f} {r['growth'] / 1e6:>15.1f} "  # type: ignore[operator]
                    f"{r['ratio']:>6.2f}  {r['outcome']}"
                )
            os.unlink(path)


if __name__ == "__main__":
    main()
