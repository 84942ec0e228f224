"""KernelNB on zero-inflated and on bimodal columns (issue 17 item 3): accuracy, not speed.

1. UCI Spambase (4,601 rows, 57 numeric columns, most of them mostly zeros), 10-fold
   stratified CV with fixed folds (StratifiedKFold(shuffle=True, random_state=0), the folds
   of bench_mixed.py): GaussianNB, KernelNB with its defaults (point masses, "robust"
   bandwidth), the KernelNB of earlier versions (``bandwidth="scott", point_mass=None``),
   and each of the two changes alone.
2. A synthetic bimodal column (the case where a kernel density beats a normal one): class
   "two" is N(-3, 0.3) or N(3, 0.3) half and half, class "one" N(0, 3); 1,000 training and
   5,000 test rows per class, for each of 5 seeds; test errors (summed over the seeds) of
   GaussianNB, the old KernelNB and today's, on the raw column and on the column rounded to
   one decimal (values then repeat, each with a small share: no point masses).

``--sweep`` adds the sensitivity of the Spambase accuracy to ``point_mass`` (not a tuning:
the default stays the one recipe for every data set).

Run: PYTHONPATH=src python benchmarks/bench_kernel.py [--folds 10] [--sweep]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from _machine import machine
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold

from nbayes import GaussianNB
from nbayes.kernel import KernelNB

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
if not DATA.exists():
    DATA = Path("/work/shared/data")

OLD = {"bandwidth": "scott", "point_mass": None}  # KernelNB before point masses


def cv(model: Any, X: np.ndarray, y: np.ndarray, folds: int) -> tuple[float, float, int, float]:
    """Mean and std of the fold accuracies, total errors, seconds per fold."""
    skf = StratifiedKFold(n_splits=folds, shuffle=True, random_state=0)
    scores, errors, start = [], 0, time.perf_counter()
    for train, test in skf.split(X, y):
        pred = clone(model).fit(X[train], y[train]).predict(X[test])
        scores.append(float((pred == y[test]).mean()))
        errors += int((pred != y[test]).sum())
    return (
        float(np.mean(scores)),
        float(np.std(scores)),
        errors,
        (time.perf_counter() - start) / folds,
    )


def spambase(folds: int, sweep: bool) -> None:
    spam = pd.read_csv(DATA / "spambase" / "spambase.csv")
    y = spam.pop("spam").to_numpy()
    X = spam.to_numpy(dtype=np.float64)
    zero_share = (X == 0).mean(axis=0)
    print(
        f"Spambase: {X.shape[0]} rows, {X.shape[1]} columns ({int((zero_share > 0.5).sum())} "
        f"of them more than half zeros), {folds}-fold stratified CV, fixed folds"
    )
    models = {
        "GaussianNB": GaussianNB(),
        "KernelNB() (defaults)": KernelNB(),
        "KernelNB(bandwidth='scott', point_mass=None) (old)": KernelNB(**OLD),
        "KernelNB(point_mass=None) (robust bandwidth only)": KernelNB(point_mass=None),
        "KernelNB(bandwidth='scott') (point masses only)": KernelNB(bandwidth="scott"),
        "KernelNB(max_points=64) (binned: no masses)": KernelNB(max_points=64),
    }
    if sweep:
        for pm in (0.0, 0.01, 0.02, 0.1, 0.2, 0.5):
            models[f"KernelNB(point_mass={pm})"] = KernelNB(point_mass=pm)
    for name, model in models.items():
        mean, std, errors, sec = cv(model, X, y, folds)
        print(f"  {name:<52} {mean:.4f} ± {std:.4f}  errors {errors:4d}  {sec:5.2f} s/fold")
    masses = KernelNB().fit(X, y).point_masses_
    print(
        "  point masses of KernelNB() on all rows: "
        f"{sum(len(m) > 0 for m in masses)} of {X.shape[1]} columns, "
        f"{sum(len(m) for m in masses)} masses in all"
    )


def bimodal(seed: int, n_train: int = 1000, n_test: int = 5000) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)

    def draw(n: int) -> tuple[np.ndarray, np.ndarray]:
        x = np.r_[rng.normal(-3, 0.3, n // 2), rng.normal(3, 0.3, n - n // 2), rng.normal(0, 3, n)]
        return x[:, None], np.repeat(["two", "one"], n)

    return (*draw(n_train), *draw(n_test))


def bimodal_errors(seeds: int = 5) -> None:
    print(
        f"\nBimodal column: test errors summed over {seeds} seeds "
        "(1,000 train / 5,000 test rows per class and seed)"
    )
    models = {
        "GaussianNB": GaussianNB(),
        "KernelNB (old)": KernelNB(**OLD),
        "KernelNB() (defaults)": KernelNB(),
    }
    for decimals in (None, 1):
        counts = dict.fromkeys(models, 0)
        total, masses = 0, 0
        for seed in range(seeds):
            Xtr, ytr, Xte, yte = bimodal(seed)
            if decimals is not None:
                Xtr, Xte = np.round(Xtr, decimals), np.round(Xte, decimals)
            total += len(yte)
            for name, model in models.items():
                fitted = clone(model).fit(Xtr, ytr)
                counts[name] += int((fitted.predict(Xte) != yte).sum())
            masses += len(KernelNB().fit(Xtr, ytr).point_masses_[0])
        label = "raw" if decimals is None else f"rounded to {decimals} decimal"
        cells = ", ".join(f"{name} {c}" for name, c in counts.items())
        ratio = counts["GaussianNB"] / counts["KernelNB() (defaults)"]
        print(f"  {label:<22} of {total}: {cells}  (GaussianNB / KernelNB() = {ratio:.2f}x;")
        print(f"  {'':<22} point masses found: {masses})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--sweep", action="store_true", help="also vary point_mass")
    args = parser.parse_args()
    print(machine(), "(timings measured on a loaded machine)")
    spambase(args.folds, args.sweep)
    bimodal_errors()


if __name__ == "__main__":
    main()
