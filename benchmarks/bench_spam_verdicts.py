"""The default verdicts' goals of issue 26 against other ways of combining the same clues.

The issue asks of the default verdicts (two cutoffs on the spamicity) no more ham lost than
bogofilter and at most half as many messages unsure, on the issue's protocol (``index.tsv``
order) and, since the goals must hold on mail nbayes does not have, on random orders.
In ``index.tsv`` order ``SpamFilter()`` loses fewer ham than bogofilter (4 against 8) but
leaves 376 unsure (goal: 288); on random orders it leaves few unsure but loses more ham
than bogofilter.

Every scoring here combines the same clues, those ``SpamFilter()`` chooses (its f(w), its
clue cap, its merged repeats and tiled bigrams): for each message, scored by the filter
trained on everything before it, the script keeps the count k of its clues and the sums of
ln f and ln(1 - f), from which each rule computes its log-odds. The rules:

* ``default``: the ``nbayes`` preset (Fisher's indicator, ``tail_weight=0.003``,
  ``ham_bias=8``);
* ``tail w``: the preset with ``tail_weight=w``: more weight to the log ratio of the two
  chi-square tails, which decides the messages whose clues are strong both ways;
* ``k/d clues``: Fisher's chi-square over k/d clues (both statistics scaled by
  ceil(k/d) / k): clues of one message are not independent, so a message of 150 clues is
  less evidence than 150 independent ones (the bias of few clues stays ``8 / k``, of the
  clues themselves).

Each rule is judged at a grid of cutoffs (ham 0.3-0.5, spam 0.6-0.9): in ``index.tsv``
order its unsure, ham lost and spam passed; on the random orders its ham lost and spam
passed (summed over the orders: the goal itself is checked order by order) and its largest
ratio of unsure to bogofilter's. A rule and cutoffs meet the
verdict goals if, in every order, they lose no more ham than bogofilter and leave at most
half its unsure. The script prints every row and then those that meet the goals (none, with
the default grid and seed: see BENCHMARKS.md).

Usage::

    python benchmarks/bench_spam_verdicts.py --orders 4 --seed 11   # ~20 min on 2 cores
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _machine import machine  # noqa: E402
from bench_spam import (  # noqa: E402
    corpus_messages,
    ensure_bogofilter,
    find_corpus,
    protocol_bogofilter,
)

from nbayes.spam import SpamFilter  # noqa: E402
from nbayes.spam._combining import fisher_log_scores  # noqa: E402

HAM_CUTOFFS = (0.3, 0.4, 0.5)
SPAM_CUTOFFS = (0.6, 0.7, 0.8, 0.9)


@dataclass
class Order:
    """One order of the corpus: its labels, bogofilter's verdicts and, per message, the
    clue sums (k, sum ln f, sum ln(1 - f)) and the class counts the filter had learnt."""

    name: str
    labels: np.ndarray
    bogo_verdicts: np.ndarray
    sums: np.ndarray  # (n, 3)
    learnt: np.ndarray  # (n, 2): ham, spam learnt before the message
    default_log_odds: np.ndarray


def record(sets: list[frozenset[str]], labels: list[str]) -> tuple[np.ndarray, ...]:
    f = SpamFilter()
    sums, learnt, log_odds = np.zeros((len(sets), 3)), np.zeros((len(sets), 2)), np.zeros(len(sets))
    n = [0, 0]
    for i, (tokens, y) in enumerate(zip(sets, labels, strict=True)):
        learnt[i] = n
        if i:
            clues = f.clues(tokens)
            fs = [c.f for c in clues.used()]
            sums[i] = (
                len(fs),
                math.fsum(math.log(v) for v in fs),
                math.fsum(math.log1p(-v) for v in fs),
            )
            log_odds[i] = clues.verdict.log_odds
        f.partial_fit([tokens], [y])
        n[y == "spam"] += 1
    return sums, learnt, log_odds


def rule(d: float, tail_weight: float, ham_bias: float = 8.0) -> Callable[[np.ndarray], np.ndarray]:
    def log_odds(sums: np.ndarray) -> np.ndarray:
        out = np.zeros(len(sums))
        for i, (k, slf, sl1) in enumerate(sums):
            k = int(k)
            if k == 0:
                continue
            k2 = max(1, math.ceil(k / d))
            r = k2 / k
            log_spam, log_ham = fisher_log_scores(slf * r, sl1 * r, k2, tail_weight)
            out[i] = log_spam - log_ham - ham_bias / k  # (the bias of the clues themselves)
        return out

    return log_odds


RULES: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "default": rule(1, 0.003),
    **{f"tail {w}": rule(1, w) for w in (0.01, 0.03, 0.06, 0.1)},
    **{f"k/{d} clues": rule(d, 0.003) for d in (2, 4, 8)},
}


def verdicts(z: np.ndarray, learnt: np.ndarray, ham: float, spam: float) -> np.ndarray:
    lo, hi = math.log(ham / (1 - ham)), math.log(spam / (1 - spam))
    v = np.where(z >= hi, "spam", np.where(z <= lo, "ham", "unsure"))
    v[(learnt[:, 0] == 0) | (learnt[:, 1] == 0)] = "unsure"  # the cold start (min_learned=1)
    return v


def counts(v: np.ndarray, y: np.ndarray) -> tuple[int, int, int]:
    """Ham lost, unsure, spam passed."""
    return (
        int(((v == "spam") & (y == "ham")).sum()),
        int((v == "unsure").sum()),
        int(((v == "ham") & (y == "spam")).sum()),
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=Path, default=None)
    ap.add_argument("--orders", type=int, default=4, help="random orders of the corpus")
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args()
    root = args.corpus or find_corpus()
    paths, labels = corpus_messages(root)
    exe = ensure_bogofilter()
    print(machine())
    print(f"corpus: {root} ({len(paths)} messages); index.tsv and {args.orders} orders, "
          f"seed {args.seed}\n")  # fmt: skip
    tokenizer = SpamFilter()
    sets = [tokenizer.tokenize(p.read_bytes()) for p in paths]
    rng = np.random.default_rng(args.seed)
    permutations = [("index.tsv", np.arange(len(paths)))]
    permutations += [(f"order {k}", rng.permutation(len(paths))) for k in range(args.orders)]
    orders = []
    for name, order in permutations:
        own = [labels[i] for i in order]
        with tempfile.TemporaryDirectory(prefix="bogo-verdicts-") as home:
            _, bogo_v = protocol_bogofilter(exe, [paths[i] for i in order], own, Path(home))
        sums, learnt, log_odds = record([sets[i] for i in order], own)
        orders.append(Order(name, np.array(own), np.asarray(bogo_v), sums, learnt, log_odds))
        lost, unsure, passed = counts(np.asarray(bogo_v), np.array(own))
        print(f"{name}: bogofilter loses {lost} ham, leaves {unsure} unsure, passes {passed} spam",
              flush=True)  # fmt: skip
    check = RULES["default"](orders[0].sums)
    worst = float(np.max(np.abs(check - orders[0].default_log_odds)))
    print(f"\nthe default rule recomputed from the sums: largest difference {worst:.1e}\n")
    print(
        "| rule | cutoffs | index.tsv: lost / unsure / passed | random orders: lost "
        "(bogofilter) | unsure / bogofilter's, largest | spam passed (bogofilter) | goals |"
    )
    print("|---|---|---|---|---|---|---|")
    met = []
    for name, score in RULES.items():
        zs = [score(o.sums) for o in orders]
        for ham in HAM_CUTOFFS:
            for spam in SPAM_CUTOFFS:
                ok, rand = True, []
                for o, z in zip(orders, zs, strict=True):
                    mine = counts(verdicts(z, o.learnt, ham, spam), o.labels)
                    bogo = counts(o.bogo_verdicts, o.labels)
                    ok &= mine[0] <= bogo[0] and mine[1] <= bogo[1] / 2
                    rand.append((mine, bogo))
                first, rest = rand[0][0], rand[1:]
                lost = sum(m[0] for m, _ in rest), sum(b[0] for _, b in rest)
                share = max(m[1] / max(b[1], 1) for m, b in rest)
                passed = sum(m[2] for m, _ in rest), sum(b[2] for _, b in rest)
                line = (f"| {name} | {ham} / {spam} | {first[0]} / {first[1]} / {first[2]} | "
                        f"{lost[0]} ({lost[1]}) | {share:.2f} | {passed[0]} ({passed[1]}) | "
                        f"{'met' if ok else ''} |")  # fmt: skip
                print(line, flush=True)
                if ok:
                    met.append(line)
    print(f"\nrules and cutoffs meeting the verdict goals in every order: {len(met)}")
    print("\n".join(met))


if __name__ == "__main__":
    main()
