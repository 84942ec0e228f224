"""``nbayes demo``: a spam filter on the bundled SMS Spam Collection, evaluated and explained.

Train a multinomial Naive Bayes spam filter on 80% of the bundled SMS Spam
Collection (5,574 messages; Almeida, Gómez Hidalgo & Yamakami, DocEng 2011),
evaluate it on the other 20% (a fixed random split), and explain two held-out
messages word by word.

Example:
  nbayes demo
  nbayes demo --seed 1 -o spam.nbayes   # also save the model
"""

from __future__ import annotations

import argparse

import numpy as np

from nbayes.cli._common import UI, count_type, fraction_type
from nbayes.cli._models import check_model_output, save_model

__all__ = ["add_arguments", "run"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seed", type=count_type(0), default=0, help="seed of the train/test split (0)")
    p.add_argument(
        "--test-size", type=fraction_type, default=0.2, help="held-out fraction (default 0.2)"
    )
    p.add_argument("-o", "--output", metavar="MODEL", help="also save the trained model here")
    p.add_argument(
        "--force", action="store_true", help="replace MODEL even if it is not an nbayes model"
    )
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto")


def run(args: argparse.Namespace, ui: UI) -> int:
    from sklearn.model_selection import train_test_split

    from nbayes.cli.explain import Paint, explain_text
    from nbayes.data import SMS_SPAM_CITATION, load_sms_spam
    from nbayes.evaluation import evaluate
    from nbayes.text import TextClassifier

    if args.output:  # before any work
        check_model_output(args.output, force=args.force)
    with ui.progress("Reading", "messages") as bar:
        texts, labels = load_sms_spam()
        bar.advance(len(texts))
    train_x, test_x, train_y, test_y = train_test_split(
        texts, labels, test_size=args.test_size, random_state=args.seed, stratify=labels
    )
    ui.print(
        f"SMS Spam Collection: {len(texts):,} messages "
        f"({labels.count('ham'):,} ham, {labels.count('spam'):,} spam)."
    )
    ui.print(f"Training on {len(train_x):,}, testing on {len(test_x):,} (seed {args.seed}).")
    with ui.progress("Training", "messages") as bar:
        model = TextClassifier().fit(train_x, train_y)
        bar.advance(len(train_x))
    ui.print(f"Vocabulary: {len(model.get_feature_names_out()):,} words.")
    ui.print("")
    ui.print(str(evaluate(model, test_x, test_y)))
    paint = Paint(ui.color(args.color))
    # The first held-out message of each class that the model gets right.
    test_arr = np.asarray(test_y)
    correct = model.predict(test_x) == test_arr
    for cls in ("spam", "ham"):
        i = int(np.flatnonzero((test_arr == cls) & correct)[0])
        ui.print("")
        ui.print(f"Held-out message ({cls}): {test_x[i]!r}")
        explain_text(ui, model, test_x[i], exact=False, paint=paint, hint=False)
    if args.output:
        save_model(model, args.output, force=args.force, lock_with=ui)
        ui.note(f"Saved the model to {args.output}")
    ui.print("")
    ui.print(f"Data: {SMS_SPAM_CITATION}")
    return 0
