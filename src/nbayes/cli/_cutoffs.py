"""The verdicts' cutoffs given on the command line (``--ham-cutoff``, ``--spam-cutoff``):
read from the flags and checked, in the flags' words, against the cutoffs they leave as
they are. Standard library only: ``nbayes filter`` imports it for a delivery."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

__all__ = ["check", "for_this_run", "given", "probability", "shown"]

#: what the two cutoffs mean, for the errors
RULE = (
    "a spamicity at or below the ham cutoff is ham, at or above the spam cutoff spam, "
    "between them unsure"
)


def probability(text: str) -> float | None:
    """The value of a cutoff flag: a number in [0, 1], or None (argparse's
    ``probability_type`` then words the error).

    >>> probability("0.95"), probability("1.5"), probability("nan"), probability("x")
    (0.95, None, None, None)
    """
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) and 0.0 <= value <= 1.0 else None


def given(args: Any) -> dict[str, float]:
    """``{"ham_cutoff": P, "spam_cutoff": P}`` of the cutoff flags ``args`` has set."""
    out = {}
    for name in ("ham_cutoff", "spam_cutoff"):
        value = getattr(args, name, None)
        if value is not None and value != "preset":  # ("preset": update's, back to it)
            out[name] = float(value) + 0.0  # (-0 is 0)
    return out


def shown(value: float) -> str:
    """A cutoff as written back: every digit it has (0.9999991 is not 0.999999), 0 for -0.

    >>> shown(0.9), shown(0.9999991), shown(-0.0)
    ('0.9', '0.9999991', '0.0')
    """
    return repr(float(value) + 0.0)


def check(ham: float, spam: float, flags: Mapping[str, float], whose: Mapping[str, str]) -> None:
    """Refuse cutoffs in force (``ham``, ``spam``: the flags' ``flags`` where given, the
    others' ``whose`` names, e.g. ``"the nbayes preset's"``) with ham above spam.

    >>> check(0.95, 0.9, {"ham_cutoff": 0.95}, {"spam_cutoff": "MODEL's"})
    Traceback (most recent call last):
    ...
    nbayes.cli._ui.CLIError: --ham-cutoff (0.95) is above MODEL's spam cutoff (0.9): ...
    >>> check(0.45, 0.4, {}, {"ham_cutoff": "the bogofilter preset's", "spam_cutoff": "M's"})
    Traceback (most recent call last):
    ...
    nbayes.cli._ui.CLIError: the bogofilter preset's ham cutoff (0.45) is above M's spam ...
    """
    if ham <= spam:
        return
    from nbayes.cli._ui import CLIError

    rule = RULE

    def flag(name: str) -> str:  # (a cutoff given as `preset`: "--spam-cutoff preset")
        own = whose.get(name, "")
        return own.split(",")[0] if own.startswith("--") else "--" + name.replace("_", "-")

    if "ham_cutoff" in flags and "spam_cutoff" in flags:
        why = f"{flag('ham_cutoff')} ({shown(ham)}) is above {flag('spam_cutoff')} ({shown(spam)})"
    elif "spam_cutoff" in flags:
        why = (
            f"{flag('spam_cutoff')} ({shown(spam)}) is below {whose['ham_cutoff']} ham cutoff "
            f"({shown(ham)})"
        )
        rule += "; give --ham-cutoff too"
    elif "ham_cutoff" in flags:
        why = (
            f"{flag('ham_cutoff')} ({shown(ham)}) is above {whose['spam_cutoff']} spam cutoff "
            f"({shown(spam)})"
        )
        rule += "; give --spam-cutoff too"
    else:  # (a preset's cutoff against the model's own)
        why = (
            f"{whose['ham_cutoff']} ham cutoff ({shown(ham)}) is above {whose['spam_cutoff']} "
            f"spam cutoff ({shown(spam)})"
        )
        rule += "; give --ham-cutoff or --spam-cutoff too"
    raise CLIError(f"{why}: {rule}.")


def for_this_run(args: Any, spam_filter: Any) -> dict[str, float | None]:
    """--ham-cutoff, --spam-cutoff: set on ``spam_filter`` (MODEL's, read only: never
    saved so) for this run's verdicts, checked against MODEL's other cutoff; MODEL's own
    cutoffs (the filter's parameters, None for its preset's), to set back."""
    own = {"ham_cutoff": spam_filter.ham_cutoff, "spam_cutoff": spam_filter.spam_cutoff}
    flags = given(args)
    if flags:
        p = spam_filter.effective_params_
        ham = flags.get("ham_cutoff", p.ham_cutoff)
        spam = flags.get("spam_cutoff", p.spam_cutoff)
        whose = f"{args.model}'s"
        check(ham, spam, flags, {"ham_cutoff": whose, "spam_cutoff": whose})
        spam_filter.set_params(**flags)
    return own
