"""Train on the course notes' spam example and print the derivation, then a real estimator.

Run: python examples/quickstart.py
"""

from __future__ import annotations

import numpy as np

from nbayes import BernoulliNB, MultinomialNB

VOCAB = ["free", "win", "money", "meeting", "today", "lunch"]
EMAILS = [
    ("free win", "spam"),
    ("free money", "spam"),
    ("win money", "spam"),
    ("meeting today", "ham"),
    ("free today", "ham"),
    ("lunch today", "ham"),
]


def counts(text: str) -> list[int]:
    words = text.split()
    return [words.count(w) for w in VOCAB]


def main() -> None:
    X = np.array([counts(text) for text, _ in EMAILS])
    y = [label for _, label in EMAILS]
    model = MultinomialNB(alpha=1.0).fit(X, y)

    print("The estimates, as fractions of the counts (Laplace: the pseudo-counts written in):\n")
    print(model.parameter_table(feature_names=VOCAB))

    email = "free money"
    print(f"\nIs {email!r} spam? Laplace-smoothed multinomial Naive Bayes, exactly:\n")
    print(model.explain(counts(email), exact=True))
    print("\nThe same in floating point, feature by feature:\n")
    print(model.explain(counts(email), feature_names=VOCAB))

    print("\nA model is its counts: learn more, forget, merge.")
    model.update(np.array([counts("free lunch")]), ["ham"])
    model.unlearn(np.array([counts("free lunch")]), ["ham"])
    p_spam = model.predict_proba([counts(email)])[0, 1]
    print(f"after update + unlearn, P(spam | {email!r}) = {p_spam:.3f}")
    binary = BernoulliNB().fit(X > 0, y)
    print(
        f"parameters: naive {binary.n_parameters()} "
        f"vs full joint {binary.n_parameters(full_joint=True)}"
    )


if __name__ == "__main__":
    main()
