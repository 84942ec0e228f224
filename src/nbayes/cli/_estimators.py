"""The estimators of the command line: the one table ``--model``, ``--columns`` and their
help are read from.

Each :class:`Estimator` says what ``nbayes train`` and ``tune`` may ask of a ``--model``:
whether it learns from documents and from a table, the table flags it takes, how the CLI
types a table for it, and how its unfitted estimator is made from the flags. Besides
nbayes's own, every kind of the registry that declares an estimator
(:mod:`nbayes.kinds`) is a ``--model``; ``--columns`` takes every column family
of the registry. Commands ask this table, never a model's name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from nbayes.cli._common import CLIError

__all__ = [
    "Estimator",
    "check_binary",
    "check_flags",
    "check_text_flags",
    "column_families",
    "columns_flag",
    "estimator",
    "estimator_of",
    "estimators",
    "lazy_text",
    "parse_bandwidth",
    "parse_columns",
    "reads_documents",
]

#: the flags of table estimators, each the hyperparameter it sets
TABLE_FLAGS = {
    "--alpha": "alpha",
    "--bandwidth": "bandwidth",
    "--max-points": "max_points",
    "--columns": "columns",
    "--var-smoothing": "var_smoothing",
}

#: the text flags only some models take (an Estimator's ``text_flags``), each the
#: hyperparameter it sets
TEXT_FLAGS = {"--c": "C", "--beta": "beta"}


@dataclass(frozen=True)
class Estimator:
    """One ``--model``: see the module."""

    name: str
    #: the class of the fitted model (its ``type(model).__name__``)
    class_name: str
    #: learns from documents (and does so for ``--input auto``)
    documents: bool = False
    #: learns from a table, and how the CLI types one: "numbers" (every column numeric),
    #: "categories" (category labels, or integer codes), "typed" (each column by its own
    #: type: MixedNB); None: documents only
    table: str | None = "numbers"
    #: the table flags it takes (keys of :data:`TABLE_FLAGS`)
    flags: frozenset[str] = frozenset({"--alpha"})
    #: why it does not take --alpha (when it does not)
    no_alpha: str = "it has no counts"
    #: the unfitted estimator from the values of its flags (a table estimator)
    make: Callable[[Mapping[str, Any]], Any] | None = None
    #: its partitions' models merge into one (it trains on Dask)
    merges: bool = True
    #: the text flags only it takes (``--c``, ``--beta``)
    text_flags: frozenset[str] = frozenset()
    #: why it does not take --binary, --hashing (None: it does)
    no_binary: str | None = None
    no_hashing: str | None = None
    #: its unfitted estimator for documents from keyword settings (alpha, ngram_range,
    #: binary, hashing), and its n-gram range when --ngrams is not given
    make_text: Callable[[Mapping[str, Any]], Any] | None = None
    ngrams: tuple[int, int] = (1, 1)
    #: ``nbayes train``'s own path for it, ``(args, ui) -> exit status`` (it reads
    #: neither documents nor a table: the spam filter reads mail); None: the common path
    trains: Callable[[Any, Any], int] | None = None


def _drop_in(class_name: str) -> Callable[[Mapping[str, Any]], Any]:
    def make(values: Mapping[str, Any]) -> Any:
        from nbayes import naive_bayes

        return getattr(naive_bayes, class_name)(**values)

    return make


def _text_classifier(name: str) -> Callable[[Mapping[str, Any]], Any]:
    def make(settings: Mapping[str, Any]) -> Any:
        from nbayes.text import TextClassifier

        return TextClassifier(model=name, **settings)

    return make


def _nbsvm(settings: Mapping[str, Any]) -> Any:
    from nbayes.nbsvm import NBSVM

    return NBSVM(**settings)


def _train_spam(args: Any, ui: Any) -> int:
    from nbayes.cli._spam import train_spam

    return int(train_spam(args, ui))


def _kernel(values: Mapping[str, Any]) -> Any:
    from nbayes.kernel import KernelNB

    return KernelNB(**values)


def _mixed(values: Mapping[str, Any]) -> Any:
    from nbayes.mixed import MixedNB

    values = dict(values)
    columns = values.pop("columns", None)
    spec = None if columns is None else parse_columns(columns)
    return MixedNB(spec, **{"alpha": 1.0, **values})


_OWN = (
    *(
        Estimator(name, cls, documents=True, make=_drop_in(cls), make_text=_text_classifier(name))
        for name, cls in (
            ("multinomial", "MultinomialNB"),
            ("bernoulli", "BernoulliNB"),
            ("complement", "ComplementNB"),
        )
    ),
    Estimator("poisson", "PoissonNB", make=_drop_in("PoissonNB")),
    Estimator(
        "gaussian", "GaussianNB", flags=frozenset({"--var-smoothing"}), make=_drop_in("GaussianNB")
    ),
    Estimator("categorical", "CategoricalNB", table="categories", make=_drop_in("CategoricalNB")),
    Estimator("kernel", "KernelNB", flags=frozenset({"--bandwidth", "--max-points"}), make=_kernel),
    Estimator(
        "mixed",
        "MixedNB",
        table="typed",
        make=_mixed,
        flags=frozenset({"--alpha", "--columns", "--bandwidth", "--var-smoothing"}),
    ),
    Estimator(
        "nbsvm",
        "NBSVM",
        documents=True,
        table=None,
        merges=False,
        make_text=_nbsvm,
        text_flags=frozenset({"--c", "--beta"}),
        no_binary="its features always are",
        no_hashing="its features are terms",
        ngrams=(1, 2),
    ),
    Estimator("spam", "SpamFilter", table=None, flags=frozenset(), trains=_train_spam),
)


def _construct(cls: type) -> Callable[[Mapping[str, Any]], Any]:
    def make(values: Mapping[str, Any]) -> Any:
        return cls(**values)

    return make


def _of_kinds() -> list[Estimator]:
    """The estimators registered kinds declare."""
    from nbayes.kinds import kinds

    out = []
    for kind in kinds().values():
        cls = kind.estimator
        if cls is not None:
            out.append(Estimator(kind.name, cls.__name__, make=_construct(cls)))
    return out


def estimators() -> dict[str, Estimator]:
    """Every ``--model`` by name: nbayes's own, then the registered kinds'."""
    return {e.name: e for e in (*_OWN, *_of_kinds())}


def estimator(name: str) -> Estimator:
    return estimators()[name]


def estimator_of(model: Any) -> Estimator | None:
    """The table row of a fitted model (by its class), or None."""
    name = type(model).__name__
    return next((e for e in estimators().values() if e.class_name == name), None)


def column_families() -> tuple[str, ...]:
    """The families ``--columns`` takes (MixedNB's column kinds)."""
    import nbayes.mixed  # noqa: F401  (registers the text column's kind)
    from nbayes.kinds import column_kinds

    return column_kinds()


def reads_documents(name: str, input: str) -> bool:
    """Whether ``--model name`` with ``--input input`` learns from documents (else from a
    table); a CLIError for a combination it cannot."""
    row = estimator(name)
    text = input == "text" or (input == "auto" and row.documents)
    if not text and row.table is None:
        raise CLIError(f"--model {name} learns from documents: leave out --input table.")
    if text and not row.documents:
        readers = [e.name for e in estimators().values() if e.documents]
        raise CLIError(
            f"--model {name} does not learn from documents: use one of {', '.join(readers)}, "
            "or --input table for a table."
        )
    return text


def check_binary(name: str, binary: bool) -> None:
    """A CLIError if ``--binary`` is set for a model that does not take it."""
    why = estimator(name).no_binary
    if binary and why is not None:
        raise CLIError(f"--binary does not apply to --model {name} ({why}).")


class lazy_text:  # noqa: N801 - a string made when argparse formats the help
    """A value for ``%(name)s`` in an argparse help, made only when the help is shown."""

    def __init__(self, make: Callable[[], str]) -> None:
        self.make = make

    def __str__(self) -> str:
        return self.make()


def check_flags(name: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """The hyperparameters the table flags set for ``--model name`` (flags left unset are
    None in ``values``); a CLIError for a flag the model does not take."""
    return _flags_set(name, values, "flags", TABLE_FLAGS)


def check_text_flags(name: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """The hyperparameters the text flags only some models take (``--c``, ``--beta``) set
    for ``--model name`` (unset flags are None in ``values``); a CLIError for one it does
    not take."""
    return _flags_set(name, values, "text_flags", TEXT_FLAGS)


def _flags_set(
    name: str, values: Mapping[str, Any], taken: str, params: Mapping[str, str]
) -> dict[str, Any]:
    """:func:`check_flags` of the flags an Estimator lists in its field ``taken``."""
    row = estimator(name)
    out = {}
    for flag, value in values.items():
        if value is None:
            continue
        if flag not in getattr(row, taken):
            if flag == "--alpha":
                raise CLIError(f"--alpha does not apply to --model {name} ({row.no_alpha}).")
            takers = [e.name for e in estimators().values() if flag in getattr(e, taken)]
            raise CLIError(f"{flag} applies to --model {' and '.join(takers)} only.")
        out[params[flag]] = value
    return out


def columns_flag(mine: Mapping[str, str], theirs: Mapping[str, str]) -> tuple[list[str], str]:
    """The columns whose families differ between ``mine`` and ``theirs`` (a
    :class:`~nbayes.exceptions.ColumnFamiliesError`'s), and the ``--columns`` value that
    names ``theirs`` for them, quoted for a shell (``n=poisson``)."""
    import shlex

    differ = [c for c in mine if c in theirs and mine[c] != theirs[c]]
    return differ, shlex.quote(",".join(f"{c}={theirs[c]}" for c in differ))


def parse_columns(text: str) -> dict[str, str]:
    """``"age=kde,city=categorical"`` -> ``{"age": "kde", "city": "categorical"}``."""
    families = column_families()
    out: dict[str, str] = {}
    for item in text.split(","):
        name, sep, family = (part.strip() for part in item.partition("="))
        if not sep or not name or not family:
            raise CLIError(
                f"--columns must look like age=kde,city=categorical (NAME=FAMILY, comma "
                f"separated); got {item.strip()!r}."
            )
        if family not in families:
            raise CLIError(
                f"--columns: unknown family {family!r} for the column {name!r}; choose one of "
                f"{', '.join(families)}."
            )
        if name in out:
            raise CLIError(f"--columns names the column {name!r} twice.")
        out[name] = family
    return out


def parse_bandwidth(text: str) -> str | float:
    """``"0.5"`` -> ``0.5``; a rule name (``"scott"``, ``"silverman"``) as it is. The
    estimator validates the value."""
    try:
        return float(text)
    except ValueError:
        return text
