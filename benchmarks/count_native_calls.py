"""Calls into the compiled kernels per prediction: the command line against the library.

Issue 25 asks that the front ends add no work of their own to a prediction: ``nbayes
predict MODEL --text ...`` (and ``--proba``, ``--top``) should make no more calls into
``nbayes._native`` than the library's ``predict_proba`` on a loaded scorer. This counts the
C calls into that module (``sys.setprofile``'s ``c_call`` events) for each, on a text model
trained on the SMS Spam Collection, and prints the table.

Usage::

    python benchmarks/count_native_calls.py
"""

from __future__ import annotations

import collections
import io
import sys
import tempfile
from collections.abc import Callable
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

SMS = (
    Path(__file__).resolve().parents[2] / "shared/data/sms_spam_collection/sms_spam_collection.csv"
)
TEXT = "WIN a FREE prize now, call 0800 123"


def native_calls(fn: Callable[[], Any]) -> collections.Counter[str]:
    """The functions of nbayes._native that ``fn`` calls, with how often."""
    calls: collections.Counter[str] = collections.Counter()

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "c_call" and getattr(arg, "__module__", None) == "nbayes._native":
            calls[arg.__name__] += 1

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return calls


def main() -> None:
    import nbayes
    from nbayes.cli import main as cli

    data = SMS if SMS.exists() else None
    with tempfile.TemporaryDirectory() as tmp:
        model_path = str(Path(tmp) / "sms.nbayes")
        if data is None:
            texts = ["free prize now", "lunch at noon"] * 50
            labels = ["spam", "ham"] * 50
            nbayes.save(nbayes.TextClassifier().fit(texts, labels), model_path)
        else:
            with redirect_stdout(io.StringIO()):
                cli(["train", str(data), "-o", model_path, "-q"])
        scorer = nbayes.load_scorer(model_path)
        scorer.predict_proba([TEXT])  # warm: the first call builds the scorer's tables

        def run(*flags: str) -> Callable[[], Any]:
            def go() -> None:
                with redirect_stdout(io.StringIO()):
                    cli(["predict", model_path, "--text", TEXT, *flags])

            return go

        rows = {
            "library: scorer.predict_proba([text])": lambda: scorer.predict_proba([TEXT]),
            "library: scorer.decide([text])": lambda: scorer.decide([TEXT]),
            "nbayes predict --text": run(),
            "nbayes predict --text --proba": run("--proba"),
            "nbayes predict --text --top 2": run("--top", "2"),
        }
        print(f"{'what':<40} {'native calls':>12}  functions")
        if not hasattr(scorer, "decide"):  # an install from before the decision record
            del rows["library: scorer.decide([text])"]
        for name, fn in rows.items():
            calls = native_calls(fn)
            detail = ", ".join(f"{k} x{v}" for k, v in sorted(calls.items()))
            print(f"{name:<40} {sum(calls.values()):>12}  {detail}")
        print("(the CLI's count includes loading the model file; the library's row does not)")


if __name__ == "__main__":
    main()
