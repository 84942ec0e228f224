"""The spam filter against bogofilter on the SpamAssassin public corpus (issue 26).

Accuracy, the issue's protocol: each filter starts empty; every message of ``index.tsv``,
in order, is scored by the filter trained on everything before it, then learnt with its
label. Reported: spam caught at 0.1 / 0.5 / 1 % of ham lost (a threshold on the score, ties
counted against the filter: the spam caught are those scoring strictly above the
(k+1)-th highest ham, k = floor(share * n_ham)), and at the default cutoffs the ham lost,
the spam let through and the messages left unsure. Each on the whole corpus, on the first
60 % of it (where nbayes's defaults were designed) and on the last 40 % (held out: scored
by filters that learnt the first 60 % first). bogofilter: Debian's package, default
configuration, ``bogofilter -T`` to score (its 6-decimal spamicity; unsure when its
wordlist is still empty), then ``-s`` / ``-n`` to register. nbayes: ``SpamFilter()`` with
its defaults, and its bogofilter and SpamBayes presets over the same tokens.

Speed (medians of ``--runs`` interleaved runs):
* classify + learn one message on a model of the whole corpus (raw bytes in: parse and
  tokenize once, score, learn; ``--sample`` messages, each unlearnt again after its
  timing);
* learning cost against the vocabulary: one ``partial_fit`` of a message on models of
  1,000 / 3,000 / 6,000 messages;
* bulk scoring of every message of the corpus, raw bytes in, one process and both cores
  (:func:`nbayes.spam.classify_many`), against ``bogofilter -b -T`` (file names on stdin)
  on the same model;
* one message as a process: ``python -c`` opening the model file with
  ``nbayes.io.serializers.spam_scorer.load_spam_scorer`` (the module without numpy that
  ``nbayes filter`` uses) and printing one verdict, against ``bogofilter -T``.

bogofilter is installed from Debian by this script when it is missing (``apt-get install -y
bogofilter``; root needed); ``--skip-bogofilter`` runs nbayes alone.

Usage::

    python benchmarks/bench_spam.py                   # everything (~10 min on 2 cores)
    python benchmarks/bench_spam.py --skip-bogofilter --runs 3
    python benchmarks/bench_spam.py --speed-only --runs 5
    python benchmarks/bench_spam.py --corpus /path/to/spamassassin_public --json out.json
    python benchmarks/bench_spam.py --skip-bogofilter --accuracy-only --sms

``--sms`` also runs the protocol on the SMS spam collection (text messages, each read as a
message with an empty head: a check on another source that a change in the tokens or the
scoring did not overfit the mail corpus), for nbayes's rows and, unless
``--skip-bogofilter``, for bogofilter on the same bytes. The row "recipe before the header clues" is
``SpamFilter()`` with the tokenizer of model files written before ``message_id`` and
``header_counts`` existed; the row "tail_weight=0" is ``SpamFilter()`` scoring as model
files written before ``tail_weight`` existed (Fisher's indicator alone); the row
"same_counts_min=0" as files written before ``same_counts_min`` (every clue counted, the
ones of the same counts too); "ham_bias=0" as files written before ``ham_bias`` (no bias
of few clues).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _machine import machine  # noqa: E402

import nbayes  # noqa: E402
from nbayes.mail import MailTokenizer, _tokenizer  # noqa: E402
from nbayes.spam import (  # noqa: E402
    SpamFilter,
    caught_at_ham_loss,
    classify_many,
    verdict_report,
)

LEVELS = (0.001, 0.005, 0.01)
#: the default tokenizer of model files written before the header clues (Message-ID, header
#: line counts) were added
EARLIER_RECIPE = MailTokenizer(message_id=False, header_counts=False)
DESIGN_SHARE = 0.6


def find_corpus() -> Path:
    here = Path(__file__).resolve()
    for base in (
        os.environ.get("NBAYES_SHARED"),
        here.parents[1] / ".." / "shared",
        here.parents[2] / "shared",
        Path("/work/shared"),
    ):
        if base and (Path(base) / "data/spamassassin_public/index.tsv").is_file():
            return (Path(base) / "data/spamassassin_public").resolve()
    raise SystemExit("the SpamAssassin corpus was not found: give --corpus")


def corpus_messages(root: Path) -> tuple[list[Path], list[str]]:
    """The corpus's message files and labels, in ``index.tsv`` order."""
    rows = [line.split("\t") for line in (root / "index.tsv").read_text().splitlines()[1:]]
    return [root / r[1] for r in rows], [r[2] for r in rows]


def sms_collection(corpus: Path) -> tuple[list[bytes], list[str]]:
    """The SMS spam collection beside the mail corpus, each text as a headless message."""
    path = corpus.parent / "sms_spam_collection" / "sms_spam_collection.csv"
    if not path.is_file():
        raise SystemExit(f"--sms: {path} was not found")
    with path.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    return [b"\n" + r["text"].encode() for r in rows], [r["label"] for r in rows]


def ensure_bogofilter() -> str:
    exe = shutil.which("bogofilter")
    if exe:
        return exe
    print("installing bogofilter from Debian (apt-get install -y bogofilter) ...", flush=True)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq", "bogofilter"], check=True, env=env)
    exe = shutil.which("bogofilter")
    if not exe:
        raise SystemExit("bogofilter is still not on PATH after apt-get install")
    return exe


# ----------------------------------------------------------------------------- accuracy
def summary(scores: np.ndarray, verdicts: np.ndarray, labels: np.ndarray) -> dict[str, Any]:
    c = caught_at_ham_loss(scores.tolist(), labels.tolist(), LEVELS)
    r = verdict_report(labels.tolist(), verdicts.tolist())
    return {
        "caught_0.1": 100 * c[0],
        "caught_0.5": 100 * c[1],
        "caught_1": 100 * c[2],
        "ham_lost": r.ham_lost,
        "spam_passed": r.spam_passed,
        "unsure": r.unsure,
        "n": len(labels),
    }


def protocol_nbayes(sets: list[frozenset[str]], labels: list[str], **params: Any) -> tuple:
    f = SpamFilter(**params)
    scores = np.zeros(len(sets))
    verdicts = []
    for i, (tokens, y) in enumerate(zip(sets, labels, strict=True)):
        if hasattr(f, "table_"):
            v = f.classify([tokens])[0]
            scores[i], verdict = v.log_odds, v.verdict
        else:
            verdict = "unsure"
        verdicts.append(verdict)
        f.partial_fit([tokens], [y])
    return scores, np.array(verdicts)


def protocol_bogofilter(exe: str, paths: list[Path], labels: list[str], home: Path) -> tuple:
    scores = np.zeros(len(paths))
    verdicts = []
    names = {"S": "spam", "H": "ham", "U": "unsure"}
    for i, (path, y) in enumerate(zip(paths, labels, strict=True)):
        data = path.read_bytes()
        out = subprocess.run([exe, "-T", "-d", str(home)], input=data, capture_output=True)
        parts = out.stdout.decode().split()
        if len(parts) >= 2:  # an empty wordlist answers nothing (exit 3): unsure
            verdicts.append(names.get(parts[0], "unsure"))
            scores[i] = float(parts[1])
        else:
            verdicts.append("unsure")
            scores[i] = 0.5
        flag = "-s" if y == "spam" else "-n"
        subprocess.run([exe, flag, "-d", str(home)], input=data, check=True)
    return scores, np.array(verdicts)


def parts(scores: np.ndarray, verdicts: np.ndarray, labels: np.ndarray) -> dict[str, Any]:
    cut = int(DESIGN_SHARE * len(labels))
    return {
        "full": summary(scores, verdicts, labels),
        "design (first 60%)": summary(scores[:cut], verdicts[:cut], labels[:cut]),
        "held out (last 40%)": summary(scores[cut:], verdicts[cut:], labels[cut:]),
    }


# ----------------------------------------------------------------------------- speed
def median_ms(values: list[float]) -> float:
    return 1e3 * statistics.median(values)


def classify_and_learn(model: SpamFilter, raw: list[bytes], labels: list[str]) -> list[float]:
    times = []
    for data, y in zip(raw, labels, strict=True):
        t0 = time.perf_counter()
        tokens = model.tokenize(data)  # parsed and tokenized once, for both calls
        model.classify([tokens])
        model.partial_fit([tokens], [y])
        times.append(time.perf_counter() - t0)
        model.unlearn([tokens], [y])
    return times


def learn_cost(sets: list[frozenset[str]], labels: list[str], sizes: list[int]) -> dict:
    out = {}
    probe = sets[-200:]
    probe_labels = labels[-200:]
    for size in sizes:
        model = SpamFilter().fit(sets[:size], labels[:size])
        times = []
        for tokens, y in zip(probe, probe_labels, strict=True):
            t0 = time.perf_counter()
            model.partial_fit([tokens], [y])
            times.append(time.perf_counter() - t0)
        out[size] = (median_ms(times) * 1e3, len(model.table_))  # microseconds
    return out


def forget_memos() -> None:
    """The tokenizer's remembered header and URL tokens emptied (where the install has
    them): the corpus was just tokenized for training, bulk scoring times it as new mail."""
    forget = getattr(_tokenizer, "_forget_memos", None)
    if forget is not None:
        forget()


def bulk_nbayes(model: SpamFilter, raw: list[bytes], n_jobs: int) -> float:
    forget_memos()
    t0 = time.perf_counter()
    n = sum(1 for _ in classify_many(model, raw, n_jobs=n_jobs))  # (its default chunks)
    return n / (time.perf_counter() - t0)


def bulk_bogofilter(exe: str, paths: list[Path], home: Path) -> float:
    names = "".join(f"{p}\n" for p in paths).encode()
    t0 = time.perf_counter()
    subprocess.run([exe, "-b", "-T", "-d", str(home)], input=names, capture_output=True)
    return len(paths) / (time.perf_counter() - t0)


def one_process_nbayes(model_path: Path, message: Path) -> float:
    code = (
        "import sys; from nbayes.io.serializers.spam_scorer import load_spam_scorer; "
        "f = load_spam_scorer(sys.argv[1]); "
        "v = f.classify([open(sys.argv[2], 'rb').read()])[0]; print(v.verdict, v.spamicity)"
    )
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code, str(model_path), str(message)], check=True,
                   capture_output=True)  # fmt: skip
    return time.perf_counter() - t0


def one_process_bogofilter(exe: str, message: Path, home: Path) -> float:
    data = message.read_bytes()
    t0 = time.perf_counter()
    subprocess.run([exe, "-T", "-d", str(home)], input=data, capture_output=True)
    return time.perf_counter() - t0


# ----------------------------------------------------------------------------- main
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=Path, default=None)
    ap.add_argument("--skip-bogofilter", action="store_true")
    ap.add_argument(
        "--speed-only",
        action="store_true",
        help="skip the accuracy protocol (bogofilter's "
        "wordlist is then built by bulk registration, -B)",
    )
    ap.add_argument("--accuracy-only", action="store_true", help="skip the speed measures")
    ap.add_argument("--sms", action="store_true", help="also the SMS spam collection")
    ap.add_argument("--runs", type=int, default=5, help="interleaved runs of each speed row")
    ap.add_argument("--sample", type=int, default=300, help="messages for classify+learn")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    root = args.corpus or find_corpus()
    paths, labels = corpus_messages(root)
    lab = np.array(labels)
    raw = [p.read_bytes() for p in paths]
    exe = None if args.skip_bogofilter else ensure_bogofilter()
    version = ""
    if exe:
        version = subprocess.run([exe, "-V"], capture_output=True, text=True).stdout
        version = version.splitlines()[0] if version else "bogofilter ?"
    print(machine(f"nbayes {nbayes.__version__}", version))
    print(f"corpus: {root} ({len(paths)} messages, {int((lab == 'ham').sum())} ham)\n")
    results: dict[str, Any] = {"accuracy": {}, "speed": {}}

    t0 = time.perf_counter()
    tok = SpamFilter()
    sets = [tok.tokenize(d) for d in raw]
    results["tokenize_rate"] = len(raw) / (time.perf_counter() - t0)
    protocols = (
        ("nbayes SpamFilter()", {}),
        ("nbayes, ham_bias=0 (no bias of few clues)", {"ham_bias": 0.0}),
        ("nbayes, same_counts_min=0 (every clue counted)", {"same_counts_min": 0}),
        ("nbayes, recipe before the header clues", {"tokenizer": EARLIER_RECIPE}),
        ("nbayes, tail_weight=0 (before the tail ratio)", {"tail_weight": 0.0}),
        ("nbayes, tile_bigrams=False (every bigram clue counted)", {"tile_bigrams": False}),
        ("nbayes, combining='mean' (the clues' mean log-odds)", {"combining": "mean"}),
        ("nbayes, min_learned=0 (no cold start)", {"min_learned": 0}),
        ("nbayes preset='bogofilter'", {"preset": "bogofilter"}),
        ("nbayes preset='spambayes'", {"preset": "spambayes"}),
    )
    for name, params in () if args.speed_only else protocols:
        t0 = time.perf_counter()
        own = sets
        if "tokenizer" in params:
            own = [SpamFilter(**params).tokenize(d) for d in raw]
        scores, verdicts = protocol_nbayes(own, labels, **params)
        results["accuracy"][name] = parts(scores, verdicts, lab)
        print(f"  {name}: protocol {time.perf_counter() - t0:.1f} s", flush=True)
    bogo_home = None
    if exe and args.speed_only:
        bogo_home = Path(tempfile.mkdtemp(prefix="bogo-"))
        for flag, label in (("-s", "spam"), ("-n", "ham")):
            files = [str(p) for p, y in zip(paths, labels, strict=True) if y == label]
            subprocess.run([exe, flag, "-d", str(bogo_home), "-B", *files], check=True)
    elif exe:
        bogo_home = Path(tempfile.mkdtemp(prefix="bogo-"))
        t0 = time.perf_counter()
        scores, verdicts = protocol_bogofilter(exe, paths, labels, bogo_home)
        results["accuracy"][version or "bogofilter"] = parts(scores, verdicts, lab)
        print(f"  bogofilter: protocol {time.perf_counter() - t0:.1f} s", flush=True)

    if args.sms and not args.speed_only:
        sms, sms_labels = sms_collection(root)
        for name, params in protocols:
            if "preset" in params:
                continue
            own = [SpamFilter(**params).tokenize(d) for d in sms]
            scores, verdicts = protocol_nbayes(own, sms_labels, **params)
            results["accuracy"][f"SMS: {name}"] = parts(scores, verdicts, np.array(sms_labels))
        if exe:  # the same texts, each a file of the same bytes
            sms_dir = Path(tempfile.mkdtemp(prefix="sms-"))
            sms_paths = []
            for i, text in enumerate(sms):
                sms_paths.append(sms_dir / f"{i:05d}")
                sms_paths[-1].write_bytes(text)
            t0 = time.perf_counter()
            home = Path(tempfile.mkdtemp(prefix="bogo-sms-"))
            scores, verdicts = protocol_bogofilter(exe, sms_paths, sms_labels, home)
            results["accuracy"][f"SMS: {version or 'bogofilter'}"] = parts(
                scores, verdicts, np.array(sms_labels)
            )
            print(f"  bogofilter, SMS: protocol {time.perf_counter() - t0:.1f} s", flush=True)
            shutil.rmtree(sms_dir)
            shutil.rmtree(home)
    if not args.speed_only:
        print_accuracy(results["accuracy"])
    if not args.accuracy_only:
        speed(args, results, raw, sets, labels, paths, exe, bogo_home)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


def print_accuracy(accuracy: dict[str, Any]) -> None:
    print("\nAccuracy: spam caught at 0.1 / 0.5 / 1 % ham lost; at the default cutoffs")
    header = f"| {'filter':34} | part | caught 0.1 / 0.5 / 1 % | ham lost | spam passed | unsure |"
    print(header)
    print("|" + "---|" * 6)
    for name, by_part in accuracy.items():
        for part, s in by_part.items():
            print(
                f"| {name:34} | {part} | {s['caught_0.1']:.1f} / {s['caught_0.5']:.1f} / "
                f"{s['caught_1']:.1f} | {s['ham_lost']} | {s['spam_passed']} | {s['unsure']} |"
            )


def speed(
    args: argparse.Namespace,
    results: dict[str, Any],
    raw: list[bytes],
    sets: list[frozenset[str]],
    labels: list[str],
    paths: list[Path],
    exe: str | None,
    bogo_home: Path | None,
) -> None:
    model = SpamFilter().fit(sets, labels)
    model_path = Path(tempfile.mkdtemp()) / "spam.nbm"
    nbayes.save(model, model_path)
    rng = np.random.default_rng(0)
    sample = rng.choice(len(raw), size=min(args.sample, len(raw)), replace=False)
    cl_times: list[float] = []
    bulk: dict[str, list[float]] = {"nbayes, 1 process": [], "nbayes, 2 processes": []}
    if exe:
        bulk["bogofilter -b"] = []
    proc: dict[str, list[float]] = {"nbayes (python -c: load_spam_scorer + one verdict)": []}
    if exe:
        proc["bogofilter -T"] = []
    for _ in range(args.runs):
        cl_times += classify_and_learn(model, [raw[i] for i in sample], [labels[i] for i in sample])
        bulk["nbayes, 1 process"].append(bulk_nbayes(model, raw, 1))
        bulk["nbayes, 2 processes"].append(bulk_nbayes(model, raw, 2))
        if exe and bogo_home:
            bulk["bogofilter -b"].append(bulk_bogofilter(exe, paths, bogo_home))
        proc["nbayes (python -c: load_spam_scorer + one verdict)"].append(
            one_process_nbayes(model_path, paths[-1])
        )
        if exe and bogo_home:
            proc["bogofilter -T"].append(one_process_bogofilter(exe, paths[-1], bogo_home))
    print(f"\nSpeed (medians of {args.runs} interleaved runs)")
    print(f"tokenizing the corpus once: {results['tokenize_rate']:.0f} messages/s (1 process)")
    print(
        f"classify + learn one message, whole-corpus model ({len(model.table_)} tokens): "
        f"median {median_ms(cl_times):.3f} ms, p90 "
        f"{1e3 * float(np.percentile(cl_times, 90)):.3f} ms ({len(cl_times)} timings)"
    )
    results["speed"]["classify_learn_ms"] = median_ms(cl_times)
    for name, rates in bulk.items():
        print(f"bulk scoring, raw messages in, {name}: {statistics.median(rates):.0f} messages/s")
        results["speed"][f"bulk {name}"] = statistics.median(rates)
    for name, times in proc.items():
        print(f"one message as a process, {name}: {median_ms(times):.0f} ms")
        results["speed"][f"process {name}"] = median_ms(times)
    cost = learn_cost(sets, labels, [1000, 3000, 6000])
    print("learning one message (partial_fit of its tokens) against the vocabulary:")
    for size, (us, vocab) in cost.items():
        print(f"  model of {size} messages ({vocab} tokens): median {us:.1f} us")
    results["speed"]["learn_us_by_size"] = {str(k): v[0] for k, v in cost.items()}


if __name__ == "__main__":
    main()
