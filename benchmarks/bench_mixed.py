"""10-fold cross-validated accuracy of GaussianNB, KernelNB and MixedNB on real data.

1. UCI Spambase (57 numeric columns): GaussianNB, KernelNB (exact and binned), MixedNB with
   inferred families, and MixedNB with every column as a kernel density.
2. A mixed table built from the SMS Spam Collection: the message (text), its length (float),
   its number of digits (int), how it ends (category), whether it has a currency sign
   (bool), with 15 % of the length, digit and text values removed at random (seed 0).

Run: PYTHONPATH=src python benchmarks/bench_mixed.py [--folds 10]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold

from nbayes import GaussianNB
from nbayes.kernel import KernelNB
from nbayes.mixed import MixedNB

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
if not DATA.exists():
    DATA = Path("/work/shared/data")


def cv_accuracy(model: Any, X: Any, y: np.ndarray, folds: int) -> tuple[float, float, float]:
    """Mean and std of the fold accuracies, and seconds per fold (fit + predict)."""
    skf = StratifiedKFold(n_splits=folds, shuffle=True, random_state=0)
    scores, seconds = [], []
    for train, test in skf.split(np.zeros(len(y)), y):
        take = (lambda idx: X.iloc[idx]) if hasattr(X, "iloc") else (lambda idx: X[idx])
        start = time.perf_counter()
        m = clone(model).fit(take(train), y[train])
        scores.append(float((m.predict(take(test)) == y[test]).mean()))
        seconds.append(time.perf_counter() - start)
    return float(np.mean(scores)), float(np.std(scores)), float(np.mean(seconds))


def sms_table() -> tuple[pd.DataFrame, np.ndarray]:
    raw = pd.read_csv(DATA / "sms_spam_collection" / "sms_spam_collection.csv")
    text = raw["text"].astype(str)
    end = (
        text.str.strip()
        .str[-1:]
        .map(lambda c: {"!": "exclaim", "?": "question", ".": "period"}.get(c, "other"))
    )
    df = pd.DataFrame(
        {
            "message": text,
            "length": text.str.len().astype(float),
            "digits": text.str.count(r"\d").astype("Int64"),
            "ending": end.astype("category"),
            "currency": text.str.contains(r"[£$€]"),
        }
    )
    rng = np.random.default_rng(0)
    for col in ("length", "digits", "message"):
        df.loc[rng.random(len(df)) < 0.15, col] = None
    return df, raw["label"].to_numpy()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--folds", type=int, default=10)
    args = parser.parse_args()

    spam = pd.read_csv(DATA / "spambase" / "spambase.csv")
    y = spam.pop("spam").to_numpy()
    print(f"Spambase: {spam.shape[0]} rows, {spam.shape[1]} columns, {args.folds}-fold CV")
    models = {
        "GaussianNB": (GaussianNB(), spam.to_numpy()),
        "KernelNB (scott)": (KernelNB(), spam.to_numpy()),
        "KernelNB (max_points=64)": (KernelNB(max_points=64), spam.to_numpy()),
        "MixedNB (inferred families)": (MixedNB(), spam),
        "MixedNB (every column kde)": (MixedNB(columns=dict.fromkeys(spam.columns, "kde")), spam),
    }
    for name, (model, X) in models.items():
        mean, std, sec = cv_accuracy(model, X, y, args.folds)
        print(f"  {name:<30} accuracy {mean:.4f} ± {std:.4f}   {sec:6.2f} s/fold")

    df, y2 = sms_table()
    print(
        f"\nSMS mixed table: {len(df)} rows; columns {dict(df.dtypes.astype(str))}; "
        f"missing per column {df.isna().sum().to_dict()}"
    )
    print(MixedNB().fit(df, y2).summary())
    numeric = df[["length", "digits"]].astype(float)
    numeric = numeric.fillna(numeric.mean()).to_numpy()
    tables = {
        "GaussianNB (length, digits; mean-imputed)": (GaussianNB(), numeric),
        "MixedNB (all but the message)": (MixedNB(), df.drop(columns="message")),
        "MixedNB (message only)": (MixedNB(), df[["message"]]),
        "MixedNB (all columns)": (MixedNB(), df),
        "MixedNB (all; length and digits kde)": (
            MixedNB(columns={"length": "kde", "digits": "kde"}),
            df,
        ),
    }
    for name, (model, X) in tables.items():
        mean, std, sec = cv_accuracy(model, X, y2, args.folds)
        print(f"  {name:<42} accuracy {mean:.4f} ± {std:.4f}   {sec:6.2f} s/fold")


if __name__ == "__main__":
    main()
