"""Train on the course notes' spam example and print the derivation, then a real estimator.

Run: python examples/quickstart.py
"""

from __future__ import annotations

import numpy as np

from nbayes import BernoulliNB, MultinomialNB
from nbayes.datasets import load_spam_ham


def main() -> None:
    emails = load_spam_ham()  # the six e-mails of the notes' week 8, as word counts
    X, y, vocab = emails.data, emails.target, emails.feature_names
    print(f"The six e-mails of {emails.source}:\n")
    for text, label in zip(emails.texts, y, strict=True):
        print(f"  {label:<5} {text}")
    model = MultinomialNB(alpha=1.0).fit(X, y)

    print("\nThe estimates, as fractions of the counts (Laplace: the pseudo-counts written in):\n")
    print(model.parameter_table(feature_names=vocab))

    email, x = emails.query, emails.query_data
    print(f"\nIs {email!r} spam? Laplace-smoothed multinomial Naive Bayes, exactly:\n")
    print(model.explain(x, exact=True))
    print("\nThe same in floating point, feature by feature:\n")
    print(model.explain(x, feature_names=vocab))

    print("\nA model is its counts: learn more, forget, merge.")
    lunch = np.array([[1, 0, 0, 0, 0, 1]])  # "free lunch"
    model.update(lunch, ["ham"])
    model.unlearn(lunch, ["ham"])
    p_spam = model.predict_proba([x])[0, 1]
    print(f"after update + unlearn, P(spam | {email!r}) = {p_spam:.3f}")
    binary = BernoulliNB().fit(X > 0, y)
    print(
        f"parameters: naive {binary.n_parameters()} "
        f"vs full joint {binary.n_parameters(full_joint=True)}"
    )


if __name__ == "__main__":
    main()
