"""The spam filter: :class:`SpamFilter`, a scikit-learn estimator over e-mail messages.

Its statistics are a :class:`~nbayes.spam._table.TokenTable` (per token, the ham and spam
messages it was in); its scores are Robinson's f(w) combined by Fisher's chi-square
(:mod:`nbayes.spam._combining`) or, on request, a multinomial Naive Bayes posterior over
the same counts; its verdicts are ham / unsure / spam from two cutoffs. Importing it loads
neither scikit-learn nor scipy (``nbayes filter`` starts in a fraction of a second); the
estimator API (``get_params``, ``set_params``, ``clone``) is scikit-learn's, implemented
here, and scikit-learn's own helpers work on it.
"""

from __future__ import annotations

import heapq
import itertools
import math
import numbers
import os
import sys
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, fields, replace
from email.message import Message
from functools import cache
from typing import TYPE_CHECKING, Any, Self

from nbayes import _mail_native
from nbayes.mail import MailTokenizer, RawMail
from nbayes.spam._combining import (
    MEAN_SCALE,
    fisher_log_scores,
    logit,
    mean_log_odds,
    robinson_f,
    young_factor,
)
from nbayes.spam._presets import PRESETS, Preset
from nbayes.spam._table import TokenTable

if TYPE_CHECKING:
    import numpy as np

# numpy is imported by the methods that return arrays only: verdicts, clues and learning
# use the standard library (`nbayes filter` starts without numpy)

__all__ = ["Clue", "Clues", "SpamFilter", "Verdict"]

_LN2 = math.log(2.0)
VERDICTS = ("ham", "unsure", "spam")


@dataclass(frozen=True)
class Verdict:
    """A filter's decision on one message.

    Attributes
    ----------
    verdict : str
        ``"ham"``, ``"unsure"`` or ``"spam"``.
    spamicity : float
        In [0, 1].
    log_odds : float
        ``log(spamicity / (1 - spamicity))``, computed without rounding spamicity (finite
        where spamicity rounds to 0.0 or 1.0; ±inf only when the scoring gives exactly 0).
    """

    verdict: str
    spamicity: float
    log_odds: float


@dataclass(frozen=True)
class Clue:
    """One token of a message as the scoring saw it.

    Attributes
    ----------
    token : str
    f : float
        Robinson's f(w): near 1 for spam, near 0 for ham, ``x`` for unseen tokens.
    ham, spam : int
        Learnt ham and spam messages the token was in.
    side : str
        ``"spam"`` or ``"ham"`` if it is one of the combined clues (f above or below
        0.5); ``"repeat"`` if it was seen in the same numbers of ham and spam messages as
        a combined clue's token (``same_counts_min``: the two count once, as that clue);
        ``"overlap"`` if it is a bigram sharing a word with a stronger bigram clue
        (``tile_bigrams``: overlapping bigrams are one phrase, counted once);
        ``"unused"`` if it was too close to 0.5 or beyond the clue cap.
    """

    token: str
    f: float
    ham: int
    spam: int
    side: str

    def row(self, f: str | None = None, more: str = "") -> str:
        """The clue as ``nbayes explain`` lists it: its f(w) (``f``: as given, painted or
        not), its ham and spam counts, its token, and ``more``."""
        from nbayes.spam._view import clue_row

        return clue_row(self, f"{self.f:.4f}" if f is None else f, more)


#: a sure verdict of fewer clues is not learnt by :meth:`SpamFilter.auto_learn` (``nbayes
#: filter --update``): real mail gives dozens
AUTO_LEARN_MIN_CLUES = 3


@dataclass(frozen=True)
class Clues:
    """A message's verdict and every token behind it (combined clues first, strongest
    first).

    Attributes
    ----------
    verdict : Verdict
    clues : list of Clue
    n_used : int
        How many clues were combined.
    bias : float
        What the bias of few clues took off the log-odds: ``ham_bias / n_used`` (0 without
        a bias, without clues, or with the Naive Bayes combining).
    mean, young : str
        With ``combining="mean"``: the clues' mean, in words, and (while the filter is
        young) the factor its log-odds were shrunk by; else empty.
    """

    verdict: Verdict
    clues: list[Clue]
    n_used: int
    bias: float = 0.0
    mean: str = ""
    young: str = ""

    def used(self) -> list[Clue]:
        """The combined clues, strongest first."""
        return self.clues[: self.n_used]

    # how it shows (nbayes.spam._view): as `nbayes explain` prints it, and in a notebook
    def lines(self, top: int = 0, paint: Callable[[str, str], str] | None = None) -> list[str]:
        """The explanation as ``nbayes explain`` prints it, a line each: the verdict, how
        many clues were combined, then the strongest clues of each side (``top``: at most;
        0: all); ``paint(text, ansi_colour)`` colours the verdict and each f(w)."""
        from nbayes.spam._view import clue_lines

        return list(clue_lines(self, top, paint))

    def __str__(self) -> str:
        return "\n".join(self.lines())

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(str(self))

    def _repr_markdown_(self) -> str:
        from nbayes.spam._view import clues_markdown

        return clues_markdown(self)

    def _repr_html_(self) -> str:
        from nbayes.spam._view import clues_html

        return clues_html(self)


MessageLike = bytes | str | Message | RawMail | os.PathLike[str] | frozenset[str] | set[str]


class SpamFilter:
    """A spam filter: Robinson's f(w) combined by Fisher's chi-square, learnt message by
    message, with ham / unsure / spam verdicts.

    Messages are raw bytes, text, :class:`email.message.Message` objects, paths
    (:class:`os.PathLike`, one message each), :class:`nbayes.mail.RawMail` records, or the
    set of tokens of a message (from :meth:`tokenize`). Labels are ``labels[0]`` (ham) and
    ``labels[1]`` (spam).

    Parameters
    ----------
    preset : {"nbayes", "bogofilter", "spambayes"}
        The default of every scoring parameter and cutoff left at None
        (:mod:`nbayes.spam._presets`).
    s : float > 0, optional
        Robinson's strength of the prior (how many messages' evidence it weighs).
    x : float in (0, 1), optional
        Robinson's prior: the f(w) of a token never seen.
    smoothing : float >= 0, optional
        A pseudo-count added to each class's document frequency of a token in p(w)
        (:func:`~nbayes.spam.robinson_f`); 0 is bogofilter's and SpamBayes' p(w).
    min_dev : float in [0, 0.5), optional
        Tokens with ``|f(w) - 0.5| < min_dev`` are not clues.
    max_clues : int >= 1 or 0, optional
        Combine at most this many clues (the farthest from 0.5); 0: all.
    ham_cutoff, spam_cutoff : float in [0, 1], optional
        Verdicts: ``spamicity <= ham_cutoff`` ham, ``>= spam_cutoff`` spam, else unsure.
    tail_weight : float >= 0, optional
        Adds ``tail_weight * (ln H - ln S)``, the log ratio of Fisher's two chi-square
        tails, to the log-odds of ``(1 + H - S) / 2``: a message with overwhelming clues
        both ways scores by the side whose clues chance explains the less, not 1/2
        (:func:`~nbayes.spam.fisher_log_scores`); 0 is Robinson's and SpamBayes'
        spamicity. A model file written before this parameter existed loads with 0.
    same_counts_min : int >= 0, optional
        Clues whose tokens were seen in the same numbers of ham and spam messages, in both
        classes and in at least ``same_counts_min`` messages in all, count once: tokens
        that always come together (a mailing list's footer, a phrase and its bigrams, a
        URL and its host) are one piece of evidence, which Fisher's combining would
        otherwise count as many independent ones. Tokens seen in one class only are not
        merged (many share counts such as 0 ham, 60 spam by chance). The same counts give
        the same f(w), so which token stands for them does not change the score. 0: every
        clue counts (bogofilter's and SpamBayes' combining). A model file written before
        this parameter existed loads with 0.
    ham_bias : float >= 0, optional
        Lowers the log-odds of a message of k >= 1 clues by ``ham_bias / k``: a verdict of
        spam on one or two clues needs them strong, while a message of many clues barely
        moves, and one of none stays at 1/2 (:func:`~nbayes.spam.fisher_log_scores`).
        Fisher's combining of one clue is that clue's f(w), so without it a text whose only
        known token was seen once, in spam, is spam at 0.95. 0 is Robinson's, bogofilter's
        and SpamBayes' spamicity. A model file written before this parameter existed
        loads with 0.
    tile_bigrams : bool, optional
        Among the bigram clues (``bi:first second``), strongest first, keep one only if
        neither of its words is a word of a bigram clue kept before it: the bigrams of one
        phrase ("buy cheap", "cheap pills", "pills now") overlap, and Fisher's combining
        would count them as independent evidence (SpamBayes' tiling of its bigrams, by
        word rather than by position, as the counts are of token sets). Word clues are
        not affected. False is bogofilter's and SpamBayes' combining (which have no
        bigrams by default). A model file written before this parameter existed loads
        with False.
    combining : {"chi2", "mean", "naive_bayes"}
        Fisher's chi-square combining of Robinson's f(w) (the default); ``"mean"``, twice
        the clues' mean log-odds, less the bias of few clues, shrunk toward 1/2 while the
        filter has learnt few messages of a class (:func:`nbayes.spam.mean_log_odds`; no
        chi-square, and no clue cap unless ``max_clues`` sets one: on random orders of the
        SpamAssassin corpus it missed at most 0.86x bogofilter's spam at 0.1 % of ham lost,
        where ``"chi2"`` missed up to 1.45x; its cutoffs are the preset's, not designed for
        it: BENCHMARKS.md); or the posterior of a multinomial Naive Bayes over the
        messages' distinct tokens (Laplace ``alpha``).
    alpha : float > 0
        The Naive Bayes posterior's smoothing (:meth:`posterior`).
    min_learned : int >= 0
        Cold start: every verdict is ``"unsure"`` until this many messages of each class
        have been learnt (the spamicity is still computed). Default 1: a filter that has
        learnt no ham cannot tell ham (every token of it is a spam clue: spamicity 1.0),
        and one that learnt its verdicts (:meth:`auto_learn`, ``nbayes filter
        --update``) would learn every ham as spam. 0 gives such a filter's verdicts
        (model files written before this default keep the 0 they stored).
    tokenizer : MailTokenizer, optional
        How mail becomes tokens (default ``MailTokenizer()``); stored in the model file.
    labels : tuple of two str, or of two int
        The names of ham and spam in ``partial_fit``'s labels and in :meth:`classes_`.
        ``(0, 1)`` for scikit-learn's helpers that encode the labels before they fit
        (``VotingClassifier`` with ``voting="soft"``, ``StackingClassifier``,
        ``cross_val_predict`` with ``method="predict_proba"``); ``predict``'s
        ``"unsure"`` is no class, so hard voting cannot count it.

    Attributes
    ----------
    table_ : TokenTable
        The statistics.
    tokenizer_ : MailTokenizer
        The recipe they were counted with (the ``tokenizer`` of the fit, kept when the
        hyperparameter changes later: messages are always tokenized as the counts were).
    classes_ : ndarray of str
        ``labels`` (ham first).

    Examples
    --------
    >>> ham = [b"Subject: lunch\\n\\nmeeting at noon, bring the report",
    ...        b"Subject: report\\n\\nthe quarterly report is attached"]
    >>> spam = [b"Subject: cheap pills\\n\\nbuy cheap pills now, best price",
    ...         b"Subject: winner\\n\\nyou are a winner, claim your cheap prize now"]
    >>> f = SpamFilter(min_learned=1).fit(ham + spam, ["ham", "ham", "spam", "spam"])
    >>> f.predict([b"Subject: cheap pills\\n\\nclaim your cheap prize now"]).tolist()
    ['spam']
    >>> f.spamicity([b"Subject: report\\n\\nthe report for the meeting"]).round(3).tolist()
    [0.0]
    """

    def __init__(
        self,
        *,
        preset: str = "nbayes",
        s: float | None = None,
        x: float | None = None,
        smoothing: float | None = None,
        min_dev: float | None = None,
        max_clues: int | None = None,
        ham_cutoff: float | None = None,
        spam_cutoff: float | None = None,
        tail_weight: float | None = None,
        same_counts_min: int | None = None,
        ham_bias: float | None = None,
        tile_bigrams: bool | None = None,
        combining: str = "chi2",
        alpha: float = 1.0,
        min_learned: int = 1,
        tokenizer: MailTokenizer | None = None,
        labels: tuple[str, str] = ("ham", "spam"),
    ) -> None:
        self.preset = preset
        self.s = s
        self.x = x
        self.smoothing = smoothing
        self.min_dev = min_dev
        self.max_clues = max_clues
        self.ham_cutoff = ham_cutoff
        self.spam_cutoff = spam_cutoff
        self.tail_weight = tail_weight
        self.same_counts_min = same_counts_min
        self.ham_bias = ham_bias
        self.tile_bigrams = tile_bigrams
        self.combining = combining
        self.alpha = alpha
        self.min_learned = min_learned
        self.tokenizer = tokenizer
        self.labels = labels

    #: what a SpamFilter pickled before ``tail_weight`` existed reads (its state has no
    #: such attribute): it scored with Fisher's indicator alone, and still does; model
    #: files written before a parameter read these class attributes too
    tail_weight: float | None = 0.0
    #: the same for ``same_counts_min``: every clue counted
    same_counts_min: int | None = 0
    #: ... and for ``ham_bias``: no bias
    ham_bias: float | None = 0.0
    #: ... and for ``tile_bigrams``: every bigram clue counted
    tile_bigrams: bool | None = False

    # ------------------------------------------------------------------ estimator API
    def __setattr__(self, name: str, value: Any) -> None:
        # the checked settings and the clue cache derive from the hyperparameters: any
        # change to one (f.spam_cutoff = 0.95 as well as set_params) drops them
        if name in _HYPERPARAMETERS:
            self.__dict__.pop("_cache", None)
            self.__dict__.pop("_f", None)
        object.__setattr__(self, name, value)

    @classmethod
    def _get_param_names(cls) -> list[str]:
        code = cls.__init__.__code__  # the keyword-only arguments (inspect: a slow import)
        names = code.co_varnames[code.co_argcount : code.co_argcount + code.co_kwonlyargcount]
        return sorted(names)

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The hyperparameters (scikit-learn's convention); with ``deep``, a tokenizer's
        options too, as ``tokenizer__<option>`` (``tokenizer__bigrams``)."""
        params = {name: getattr(self, name) for name in self._get_param_names()}
        if deep and isinstance(self.tokenizer, MailTokenizer):
            for f in fields(MailTokenizer):
                params[f"tokenizer__{f.name}"] = getattr(self.tokenizer, f.name)
        return params

    def set_params(self, **params: Any) -> Self:
        """Set hyperparameters (scikit-learn's convention); checked when next used.
        ``tokenizer__<option>`` sets an option of the tokenizer (a new
        :class:`~nbayes.mail.MailTokenizer`: the default one, if none was set), as a grid
        search over ``{"tokenizer__bigrams": [True, False]}`` does."""
        valid = self._get_param_names()
        options = {f.name for f in fields(MailTokenizer)}
        nested: dict[str, Any] = {}
        for name, value in params.items():
            option = name.removeprefix("tokenizer__")
            if option != name and option in options:
                nested[option] = value
                continue
            if name not in valid:
                raise ValueError(
                    f"Invalid parameter {name!r} for estimator {type(self).__name__}. "
                    f"Valid parameters are: {valid!r}, and tokenizer__<option> for the "
                    f"options of MailTokenizer: {sorted(options)!r}."
                )
            setattr(self, name, value)
        if nested:
            tokenizer = self.tokenizer if self.tokenizer is not None else MailTokenizer()
            if not isinstance(tokenizer, MailTokenizer):
                raise ValueError(
                    f"tokenizer__{next(iter(nested))} sets an option of a MailTokenizer; this "
                    f"SpamFilter's tokenizer is {tokenizer!r}"
                )
            self.tokenizer = replace(tokenizer, **nested)
        self.__dict__.pop("_cache", None)
        self.__dict__.pop("_f", None)
        return self

    def __repr__(self) -> str:
        defaults = type(self)().get_params(deep=False)
        changed = {k: v for k, v in self.get_params(deep=False).items() if v != defaults[k]}
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in changed.items())})"

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "table_")

    def __sklearn_tags__(self) -> Any:
        from sklearn.utils import ClassifierTags, Tags, TargetTags

        return Tags(
            estimator_type="classifier",
            target_tags=TargetTags(required=True),
            classifier_tags=ClassifierTags(multi_class=False),
            requires_fit=True,
            non_deterministic=False,
        )

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_cache", None)
        state.pop("_f", None)
        return state

    # ------------------------------------------------------------------ settings
    def _settings(self) -> _Settings:
        cache = self.__dict__.get("_cache")
        if cache is None:
            cache = _Settings.of(self)
            self.__dict__["_cache"] = cache
        return cache

    @property
    def classes_(self) -> np.ndarray:
        import numpy as np

        self._check_fitted()
        return np.array(self._settings().labels)

    @property
    def effective_params_(self) -> Preset:
        """The scoring parameters and cutoffs in force (the preset's where left at None)."""
        st = self._settings()
        return Preset(**{f.name: getattr(st, f.name) for f in fields(Preset)})

    # ------------------------------------------------------------------ tokens
    def tokenize(self, message: MessageLike) -> frozenset[str]:
        """The set of tokens of one message (what the filter counts)."""
        if isinstance(message, frozenset | set):
            return frozenset(message)
        if isinstance(message, Iterable) and not isinstance(
            message, bytes | bytearray | str | Message | memoryview
        ):
            raise TypeError(
                "a message is bytes, str, an email.message.Message, a path, a RawMail or a "
                f"set of tokens; got {type(message).__name__} (pass messages as a list)"
            )
        return frozenset(self._tokenizer().tokens(message))

    def _tokenizer(self) -> MailTokenizer:
        """The recipe the statistics were counted with (``tokenizer_``), or, before the
        first fit, the hyperparameter's."""
        fitted = self.__dict__.get("tokenizer_")
        return fitted if fitted is not None else self._settings().tokenizer

    def _token_sets(
        self,
        messages: Any,
        what: str = "messages",
        tokenizer: MailTokenizer | None = None,
        learning: bool = False,
    ) -> list[frozenset[str]]:
        tok = self._tokenizer() if tokenizer is None else tokenizer
        return self._token_sets_with(tok, self._message_list(messages, what), learning)

    @classmethod
    def _token_sets_with(
        cls, tok: MailTokenizer, messages: Iterable[Any], learning: bool = False
    ) -> list[frozenset[str]]:
        """The token set of each message (a set of tokens is taken as it is). A str that
        names a file gets a warning (once a call), as a column of file names given as
        messages was learnt as the names, and a spam file given by its name scored "ham
        0.078", without a word (``learning``: to learn, else to score)."""
        out = []
        check = True
        for i, m in enumerate(messages):
            if check and _warned_a_path(m, "learn" if learning else "score"):
                check = False  # (once)
            if isinstance(m, frozenset | set):
                if not all(type(t) is str for t in m):  # (a model file holds str tokens)
                    t = next(t for t in m if type(t) is not str)
                    raise TypeError(
                        f"message {i} is a set of tokens, whose tokens are str; it holds "
                        f"{type(t).__name__} {t!r}: give str tokens, or the raw message"
                    )
                out.append(frozenset(m))
            else:
                out.append(frozenset(tok.tokens(cls._message(m))))
        return out

    @staticmethod
    def _message_list(messages: Any, what: str = "messages") -> Iterable[Any]:
        """``messages``, unless it is one message (TypeError)."""
        if isinstance(messages, bytes | bytearray | str | Message | RawMail | os.PathLike):
            raise TypeError(
                f"{what} must be a list (or other iterable) of messages; got one "
                f"{type(messages).__name__}: wrap it in a list, [message]"
            )
        if hasattr(messages, "columns"):  # a DataFrame iterates its column names
            raise TypeError(
                f"{what} must be a list (or other iterable) of messages; got a "
                f"{type(messages).__name__} of columns {list(messages.columns)[:5]}: give its "
                "column of messages, e.g. df['text']"
            )
        if getattr(messages, "ndim", 1) != 1:  # (a numpy array of one column, say)
            raise TypeError(
                f"{what} must be a list (or other iterable) of messages; got an array of "
                f"shape {messages.shape}: give a 1-D one, e.g. X.ravel()"
            )
        if not hasattr(messages, "__iter__"):
            raise TypeError(
                f"{what} must be a list (or other iterable) of messages; got "
                f"{type(messages).__name__} {messages!r:.60}"
            )
        return messages

    @staticmethod
    def _message(m: Any) -> Any:
        if isinstance(m, bytes | bytearray | str | Message | RawMail | os.PathLike):
            return m
        if isinstance(m, memoryview):
            return m.tobytes()
        raise TypeError(
            "a message is bytes, str, an email.message.Message, a path (pathlib.Path), a "
            f"RawMail or a set of tokens; got {type(m).__name__}"
        )

    def _spam_flags(self, labels: Any, n: int) -> list[bool]:
        ham_label, spam_label = self._settings().labels
        if isinstance(labels, str):
            labels = [labels] * n
        flags = []
        for y in labels:
            if y == spam_label:
                flags.append(True)
            elif y == ham_label:
                flags.append(False)
            else:
                shown = y.item() if type(y).__module__ == "numpy" else y  # 'x', not np.str_('x')
                raise ValueError(
                    f"unknown label {shown!r}: a SpamFilter's labels are {ham_label!r} and "
                    f"{spam_label!r} (set labels=(ham, spam) to use others; scikit-learn's "
                    "VotingClassifier, StackingClassifier and cross_val_predict with "
                    "predict_proba give 0 and 1: labels=(0, 1))"
                )
        if len(flags) != n:
            raise ValueError(f"got {n} messages but {len(flags)} labels; give one label each")
        return flags

    # ------------------------------------------------------------------ learning
    def _check_fitted(self) -> None:
        if not hasattr(self, "table_"):
            raise ValueError(
                f"This {type(self).__name__} has learnt nothing yet: call fit or partial_fit "
                "with labelled messages first."
            )

    def fit(self, messages: Iterable[MessageLike], labels: Iterable[str]) -> Self:
        """Learn ``messages`` from scratch (forgetting what was learnt before)."""
        self.__dict__.pop("_cache", None)
        self.__dict__.pop("_f", None)
        tokenizer = self._settings().tokenizer  # checks the hyperparameters first
        table = TokenTable()
        self._learn_into(table, messages, labels, tokenizer)
        self.table_, self.tokenizer_ = table, tokenizer
        return self

    def partial_fit(
        self,
        messages: Iterable[MessageLike],
        labels: Iterable[str],
        classes: Iterable[Any] | None = None,
    ) -> Self:
        """Learn ``messages`` in addition to what was learnt before.

        ``classes``, as scikit-learn's incremental estimators take it (a loop that calls
        ``partial_fit(X, y, classes=...)`` on any of them): the filter's two labels, in
        any order, or a ValueError that says which its labels are (they are ``labels``,
        a setting, not learnt from the data)."""
        if classes is not None:
            self._check_classes(classes)
        if not hasattr(self, "table_"):
            return self.fit(messages, labels)
        self._learn_into(self.table_, messages, labels)
        return self

    def _check_classes(self, classes: Iterable[Any]) -> None:
        wanted = list(self._settings().labels)
        given = [c.item() if type(c).__module__ == "numpy" else c for c in classes]
        if len(given) != 2 or set(given) != set(wanted):
            raise ValueError(
                f"classes={given!r}: a SpamFilter's classes are its labels, {wanted!r} (set "
                "labels=(ham, spam) for others)"
            )

    def fit_stream(
        self,
        labelled: Iterable[tuple[MessageLike, str]],
        *,
        chunk_size: int = 512,
        n_jobs: int = 1,
    ) -> Self:
        """Learn ``(message, label)`` pairs from scratch, read one chunk at a time.

        Memory is bounded by the vocabulary, not by the number of messages (a mailbox of
        any size: ``fit_stream(nbayes.mail.iter_classes(root))``). All or nothing: if
        reading or tokenizing fails part way, the filter is left as it was. With
        ``n_jobs`` above 1 (-1: every usable core), that many forked processes tokenize
        and count the chunks, each into a table of its own, added up at the end (``nbayes
        train --model spam`` uses every core): the same counts as ``n_jobs=1`` (rows may
        come in another order; a model file holds them in hash order, the same file),
        with up to ``n_jobs`` tables of the vocabulary's size in memory at once. Mail of
        one chunk or less is counted in this process.
        """
        self.__dict__.pop("_cache", None)
        self.__dict__.pop("_f", None)
        tokenizer = self._settings().tokenizer
        table = self._stream_table(labelled, chunk_size, tokenizer, n_jobs)
        self.table_, self.tokenizer_ = table, tokenizer
        return self

    def partial_fit_stream(
        self,
        labelled: Iterable[tuple[MessageLike, str]],
        *,
        chunk_size: int = 512,
        n_jobs: int = 1,
    ) -> Self:
        """Learn ``(message, label)`` pairs in addition to what was learnt, as
        :meth:`fit_stream` reads them (learnt apart, then merged: all or nothing)."""
        if not hasattr(self, "table_"):
            return self.fit_stream(labelled, chunk_size=chunk_size, n_jobs=n_jobs)
        self.table_.merge(self._stream_table(labelled, chunk_size, self._tokenizer(), n_jobs))
        return self

    @staticmethod
    def _processes(n_jobs: int) -> int:
        """The worker processes ``n_jobs`` asks for (fit_stream, classify_many): an int
        >= 1, or -1 for every usable core."""
        if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs < 1 and n_jobs != -1:
            raise ValueError(
                f"n_jobs must be an int >= 1, or -1 for every usable core; got {n_jobs!r}"
            )
        if n_jobs == -1:
            from nbayes.spam._bulk import usable_cores

            return usable_cores()
        return n_jobs

    def _stream_table(
        self,
        labelled: Iterable[tuple[MessageLike, str]],
        chunk_size: int,
        tokenizer: MailTokenizer,
        n_jobs: int = 1,
    ) -> TokenTable:
        if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
            raise ValueError(f"chunk_size must be an int >= 1; got {chunk_size!r}")
        n_jobs = self._processes(n_jobs)
        self._settings()

        def chunks() -> Iterator[tuple[list[MessageLike], list[bool]]]:
            chunk: list[tuple[MessageLike, str]] = []
            for pair in itertools.chain(labelled, [None]):
                if pair is not None and not (isinstance(pair, tuple) and len(pair) == 2):
                    raise TypeError(
                        f"fit_stream takes (message, label) pairs; got {type(pair).__name__}"
                    )
                if pair is not None:
                    chunk.append(pair)
                if chunk and (pair is None or len(chunk) >= chunk_size):
                    yield [m for m, _ in chunk], self._spam_flags([y for _, y in chunk], len(chunk))
                    chunk = []

        read = chunks()
        head = list(itertools.islice(read, 2))  # (one chunk in all: no process is worth it)
        if len(head) > 1 and n_jobs > 1:
            from nbayes.spam._bulk import count_many, forks  # (a delivery's verdict: not)

            if forks():
                return count_many(tokenizer, itertools.chain(head, read), n_jobs)
        table = TokenTable()
        for messages, flags in itertools.chain(head, read):
            self._count_into(table, self._token_sets_with(tokenizer, messages), flags)
        return table

    def _learn_into(
        self,
        table: TokenTable,
        messages: Any,
        labels: Any,
        tokenizer: MailTokenizer | None = None,
    ) -> None:
        sets = self._token_sets(messages, tokenizer=tokenizer, learning=True)
        self._count_into(table, sets, self._spam_flags(labels, len(sets)))

    @staticmethod
    def _count_into(table: TokenTable, sets: list[frozenset[str]], flags: list[bool]) -> None:
        """Learn the token ``sets``, spam where ``flags`` says so (all or nothing)."""
        spam = [t for t, f in zip(sets, flags, strict=True) if f]
        table.learn(spam, spam=True)
        try:
            table.learn([t for t, f in zip(sets, flags, strict=True) if not f], spam=False)
        except BaseException:  # all or nothing: the spam half goes too
            table.unlearn(spam, spam=True)
            raise

    def update(self, messages: Iterable[MessageLike], labels: Iterable[str]) -> Self:
        """:meth:`partial_fit` under the name the other nbayes models use (``nbayes serve``'s
        /update registers messages through it)."""
        return self.partial_fit(messages, labels)

    @property
    def class_count_(self) -> np.ndarray:
        """Messages learnt per class, ``[ham, spam]`` (in :attr:`classes_` order)."""
        import numpy as np

        self._check_fitted()
        return np.array([self.table_.n_ham, self.table_.n_spam], dtype=np.float64)

    def unlearn(self, messages: Iterable[MessageLike], labels: Iterable[str]) -> Self:
        """Forget messages learnt with ``labels``, exactly (as if never learnt).

        All or nothing: ValueError, and no change, if any message was not learnt with
        its label (a count would go negative).
        """
        self._check_fitted()
        sets = self._token_sets(messages, learning=True)
        flags = self._spam_flags(labels, len(sets))
        spam = [t for t, f in zip(sets, flags, strict=True) if f]
        ham = [t for t, f in zip(sets, flags, strict=True) if not f]
        for group, is_spam in ((spam, True), (ham, False)):
            problem = self.table_.check_unlearn(group, spam=is_spam)
            if problem is not None:
                raise ValueError(problem)
        self.table_.unlearn(spam, spam=True)
        try:
            self.table_.unlearn(ham, spam=False)
        except BaseException:
            self.table_.learn(spam, spam=True)
            raise
        return self

    def correct(self, messages: Iterable[MessageLike], labels: Iterable[str]) -> Self:
        """Fix messages learnt with the wrong label: unlearn each as the other class and
        learn it as ``labels`` says, in one exact, all-or-nothing step."""
        self._check_fitted()
        sets = self._token_sets(messages, learning=True)
        flags = self._spam_flags(labels, len(sets))
        was_ham = [t for t, f in zip(sets, flags, strict=True) if f]  # now spam
        was_spam = [t for t, f in zip(sets, flags, strict=True) if not f]
        trial = self.table_.copy() if (was_ham and was_spam) else self.table_
        for group, is_spam in ((was_ham, False), (was_spam, True)):
            problem = trial.check_unlearn(group, spam=is_spam)
            if problem is not None:
                raise ValueError(
                    problem.replace("cannot unlearn", "cannot correct").replace(
                        "(unlearn only messages learnt with that label)",
                        "(correct only messages learnt with the other label)",
                    )
                )
        steps = (
            (was_ham, False, False),  # (messages, as spam, learn): unlearn the wrong labels
            (was_spam, True, False),
            (was_ham, True, True),  # and learn the right ones
            (was_spam, False, True),
        )
        done = []
        try:
            for group, is_spam, learn in steps:
                if learn:
                    self.table_.learn(group, spam=is_spam)
                else:
                    self.table_.unlearn(group, spam=is_spam)
                done.append((group, is_spam, learn))
        except BaseException:  # all or nothing: undo the steps taken, last first
            for group, is_spam, learn in reversed(done):
                if learn:
                    self.table_.unlearn(group, spam=is_spam)
                else:
                    self.table_.learn(group, spam=is_spam)
            raise
        return self

    def merge(self, other: SpamFilter, *more: SpamFilter) -> SpamFilter:
        """The filter of both filters' messages (neither filter is changed, as every
        model's ``merge``; before, this one added ``other``'s counts to itself). Both
        must tokenize alike and name their classes alike. ``a.merge(b, c, ...)`` merges
        several at once; ``a + b`` and ``sum(filters)`` are the same."""
        self._check_fitted()
        mine, own = self._settings(), self.get_params(deep=False)
        for each in (other, *more):
            if not isinstance(each, SpamFilter):
                raise TypeError(f"can only merge a SpamFilter into a SpamFilter; got {type(each)}")
            each._check_fitted()
            theirs = each._settings()
            if self._tokenizer() != each._tokenizer() or mine.labels != theirs.labels:
                a, b = self._tokenizer().to_dict(), each._tokenizer().to_dict()
                differ = [f"{k}={a.get(k)!r} vs {b.get(k)!r}" for k in a if a.get(k) != b.get(k)]
                if mine.labels != theirs.labels:
                    differ.append(f"labels={mine.labels!r} vs {theirs.labels!r}")
                raise ValueError(
                    "cannot merge SpamFilters that tokenize differently or name their classes "
                    f"differently (their counts are of other tokens or labels): "
                    f"{'; '.join(differ)}"
                )
            other_params = each.get_params(deep=False)
            scoring = [
                f"{k}={v!r} (not {other_params[k]!r})"
                for k, v in own.items()
                if k not in ("tokenizer", "labels") and v != other_params[k]
            ]
            if scoring:
                import warnings

                from nbayes.exceptions import NBayesWarning

                shown = "; ".join(scoring)
                warnings.warn(
                    f"the filters merged score differently: the merged filter keeps this "
                    f"one's (the left one's) settings: {shown}. Their counts add up the same "
                    "either way; set_params() sets others.",
                    NBayesWarning,
                    stacklevel=_caller_level(),
                )
        new = self.copy()
        for each in (other, *more):
            new.table_.merge(each.table_)
        return new

    def __add__(self, other: SpamFilter) -> SpamFilter:
        if not isinstance(other, SpamFilter):
            return NotImplemented
        return self.merge(other)

    def __radd__(self, other: Any) -> SpamFilter:
        """``sum(filters)`` merges them: its start, 0, plus a filter is a copy of it."""
        if isinstance(other, int) and not isinstance(other, bool) and other == 0:
            return self.copy()
        return NotImplemented

    def copy(self) -> SpamFilter:
        """An independent copy (same hyperparameters and statistics)."""
        new = type(self)(**self.get_params(deep=False))
        if hasattr(self, "table_"):
            new.table_, new.tokenizer_ = self.table_.copy(), self.tokenizer_
        return new

    # ------------------------------------------------------------------ regimes
    def train(
        self,
        messages: Iterable[MessageLike],
        labels: Iterable[str],
        *,
        regime: str = "all",
        unsure: bool = True,
        max_rounds: int = 10,
    ) -> list[int]:
        """Learn labelled messages under a training regime; the number learnt per pass.

        Parameters
        ----------
        regime : {"all", "on_error", "exhaustion"}
            ``"all"``: learn every message (as :meth:`partial_fit`). ``"on_error"``: in
            order, score each message with the filter as it is and learn it only if its
            verdict is wrong (or unsure, if ``unsure``). ``"exhaustion"``: repeat
            ``"on_error"`` passes over the messages until a pass learns none, at most
            ``max_rounds`` passes (train-to-exhaustion; a message can be learnt more than
            once, and unlearning it then takes as many calls).
        unsure : bool
            Whether an unsure verdict counts as an error.
        max_rounds : int >= 1
        """
        sets = self._token_sets(messages)
        flags = self._spam_flags(labels, len(sets))
        if regime == "all":
            if not hasattr(self, "table_"):
                self.fit(sets, [self._label(f) for f in flags])
            else:
                self.table_.learn([t for t, f in zip(sets, flags, strict=True) if f], spam=True)
                self.table_.learn(
                    [t for t, f in zip(sets, flags, strict=True) if not f], spam=False
                )
            return [len(sets)]
        if regime not in ("on_error", "exhaustion"):
            raise ValueError(f"regime must be 'all', 'on_error' or 'exhaustion'; got {regime!r}")
        if isinstance(max_rounds, bool) or not isinstance(max_rounds, int) or max_rounds < 1:
            raise ValueError(f"max_rounds must be an int >= 1; got {max_rounds!r}")
        if not hasattr(self, "table_"):
            self.table_, self.tokenizer_ = TokenTable(), self._settings().tokenizer
        rounds = []
        for _ in range(max_rounds if regime == "exhaustion" else 1):
            learnt = 0
            for tokens, is_spam in zip(sets, flags, strict=True):
                verdict = next(self._verdicts([tokens])).verdict
                wrong = verdict != ("spam" if is_spam else "ham")
                if wrong and (unsure or verdict != "unsure"):
                    self.table_.learn([tokens], spam=is_spam)
                    learnt += 1
            rounds.append(learnt)
            if learnt == 0:
                break
        return rounds

    def auto_learn(self, messages: Iterable[MessageLike]) -> list[Verdict]:
        """Classify messages and learn those whose verdict is sure on its evidence (spam as
        spam, ham as ham: :meth:`learns`), one after the other (bogofilter's ``-u``); the
        verdicts, as before learning."""
        self._check_fitted()
        out = []
        for tokens in self._token_sets(messages):
            c = self.clues(tokens, unused=False)
            if self.learns(c):
                self.table_.learn([tokens], spam=c.verdict.verdict == "spam")
            out.append(c.verdict)
        return out

    def learns(self, clues: Clues) -> bool:
        """Whether :meth:`auto_learn` learns a message of these :meth:`clues` as its verdict:
        a sure verdict of at least :data:`AUTO_LEARN_MIN_CLUES` clues, sure without the
        bias of few clues too. A ham verdict made by the bias, or by a clue or two (a
        Subject line and nothing else: ``ham 0.000189``), was learnt, and each such
        message made the next easier to call ham (a trial's: ``message-id:none`` became a
        ham clue, then ``Subject: guaranteed`` ham; bogofilter called them Unsure and
        Spam)."""
        v = clues.verdict
        if v.verdict == "unsure" or clues.n_used < AUTO_LEARN_MIN_CLUES:
            return False
        st = self._settings()
        evidence = v.log_odds + clues.bias  # (the log-odds the clues alone give)
        if v.verdict == "ham":
            return evidence <= logit(st.ham_cutoff)
        return evidence >= logit(st.spam_cutoff)

    def _label(self, is_spam: bool) -> str:
        return self._settings().labels[1 if is_spam else 0]

    # ------------------------------------------------------------------ scoring
    def _log_scores(
        self, tokens: frozenset[str], clues: list[Any] | None = None
    ) -> tuple[float, float]:
        """``(log spamicity, log(1 - spamicity))`` of one token set (``clues``: its
        :meth:`_clue_values`, when already computed)."""
        st = self._settings()
        if st.combining == "naive_bayes":
            lo = self._nb_log_odds(tokens)
            return -_log1pexp(-lo), -_log1pexp(lo)
        logs = None if clues is not None else self._clue_logs(tokens)
        if logs is None:  # the Python reading of the clues (given, or the kernel declined)
            clues = self._clue_values(tokens) if clues is None else clues
            logs = ([c[3] for c in clues], [c[4] for c in clues])
        if st.combining == "mean":
            t = self.table_
            lo = mean_log_odds(
                math.fsum(logs[0]), math.fsum(logs[1]), len(logs[0]), st.ham_bias,
                t.n_ham, t.n_spam,
            )  # fmt: skip
            return -_log1pexp(-lo), -_log1pexp(lo)
        return _fisher(logs, st.tail_weight, st.ham_bias)

    def _clue_records(
        self, tokens: frozenset[str]
    ) -> list[tuple[float, str, float, float, float, int, int]] | None:
        """:meth:`_clue_values`' records of the combined clues (no tiled-out bigrams
        reported), bit for bit, computed by the compiled kernel (``clue_logs(...,
        records=True)``); None where that path must answer."""
        records: list[tuple[float, str, float, float, float, int, int]] | None
        records = self._kernel_clues(tokens, records=True)
        return records

    def _clue_logs(self, tokens: frozenset[str]) -> tuple[list[float], list[float]] | None:
        """The ``ln f`` and ``ln(1 - f)`` of the clues :meth:`_clue_values` chooses, bit
        for bit, computed by the compiled kernel (``nbayes._mail_native.clue_logs``): a
        verdict needs only these, and the kernel reads the counts without a Python object
        per token (no clue cache: computing f(w) costs less than looking it up), and finds
        the tokens in a compiled index of the table's rows (a message's look-ups
        prefetched together: 3-5x faster than the dict's on a large table). None where
        that path must answer (it raises what it always raised)."""
        logs: tuple[list[float], list[float]] | None = self._kernel_clues(tokens, records=False)
        return logs

    def _kernel_clues(self, tokens: frozenset[str], *, records: bool) -> Any:
        """``_mail_native.clue_logs`` of ``tokens`` with this filter's table and settings."""
        st = self._settings()
        table = self.table_
        return _mail_native.clue_logs(
            tokens,
            table.store,
            table.ham,
            table.spam,
            table.n_ham,
            table.n_spam,
            st.s,
            st.x,
            st.smoothing,
            st.min_dev,
            st.max_clues or 0,
            st.same_counts_min,
            st.tile_bigrams,
            records,
        )

    #: tables of at least as many rows classify raw messages by the text path
    #: (:meth:`_bulk_verdicts`); smaller ones (a SpamScorer's table of one message's
    #: tokens) by their token sets
    _INDEXED_ROWS = 1 << 15

    def _clue_cache(self) -> dict[str, tuple[float, str, float, float, float, int, int] | None]:
        """Per token looked up since the statistics last changed: its clue record, or
        None if it is too close to 0.5 to be a clue."""
        table = self.table_
        cache = self.__dict__.get("_f")
        if cache is None or cache[0] != table.version or cache[1] is not table:
            cache = (table.version, table, {})
            self.__dict__["_f"] = cache
        return cache[2]

    def _clue_values(
        self, tokens: Iterable[str], overlaps: set[str] | None = None
    ) -> list[tuple[float, str, float, float, float, int, int]]:
        """``(|f - 0.5|, token, f, ln f, ln(1 - f), ham, spam)`` of the combined clues,
        strongest first (ties by token: the choice does not depend on the tokens' order),
        overlapping bigrams tiled (``tile_bigrams``: those dropped are added to
        ``overlaps``), those of the same counts once (``same_counts_min``)."""
        st = self._settings()
        table = self.table_
        row, ham, spam = table.store.row, table.ham, table.spam
        n_ham, n_spam, s, x, min_dev = table.n_ham, table.n_spam, st.s, st.x, st.min_dev
        c = st.smoothing
        cache = self._clue_cache()
        get = cache.get
        clues = []
        missing = object()
        # robinson_f inlined, the same expressions in the same order (bit for bit: tested)
        smooth = bool(c and n_ham and n_spam)
        n_all = n_ham + n_spam
        sx = s * x
        for t in tokens:
            clue = get(t, missing)
            if clue is missing:
                i = row(t)  # (-1: none)
                g = b = 0
                if i < 0:
                    f = x
                else:
                    g, b = ham[i], spam[i]
                    n = g + b
                    if n == 0:
                        f = x
                    else:
                        if smooth:
                            m = c * n / n_all
                            spam_ratio = (b + m) / (n_spam + c)
                            ham_ratio = (g + m) / (n_ham + c)
                        else:
                            spam_ratio = b / n_spam if n_spam else 0.0
                            ham_ratio = g / n_ham if n_ham else 0.0
                        f = (sx + n * (spam_ratio / (spam_ratio + ham_ratio))) / (s + n)
                d = f - 0.5 if f > 0.5 else 0.5 - f
                clue = (d, t, f, math.log(f), math.log1p(-f), g, b) if d >= min_dev else None
                if i >= 0:  # unseen tokens are not kept: spam invents them
                    cache[t] = clue
            if clue is not None:
                clues.append(clue)
        cap = st.max_clues
        if cap and overlaps is None and len(clues) > 2 * cap + 16:
            # a clue's fate in the tiling and the merging depends on stronger clues only: when
            # cap of the strongest 2 * cap + 16 survive them, they are the cap strongest of
            # all the survivors (as the compiled kernel shortens it; tests/spam compare both)
            strongest: list[Any] = heapq.nlargest(2 * cap + 16, clues)
            kept = self._tiled_and_merged(strongest, None)
            if len(kept) >= cap:
                kept.sort(reverse=True)
                del kept[cap:]
                return kept
        clues = self._tiled_and_merged(clues, overlaps)
        if cap and len(clues) > cap:
            clues.sort(reverse=True)
            del clues[cap:]
        return clues  # type: ignore[return-value]

    def _tiled_and_merged(self, clues: list[Any], overlaps: set[str] | None) -> list[Any]:
        """``clues`` with their bigrams tiled (``tile_bigrams``) and those of the same counts
        once (``same_counts_min``)."""
        st = self._settings()
        if st.tile_bigrams:
            clues = _tiled(clues, overlaps)
        if st.same_counts_min:
            clues = _once_per_counts(clues, st.same_counts_min)
        return clues

    def _nb_log_odds(self, tokens: Iterable[str]) -> float:
        table = self.table_
        a = self._settings().alpha
        n_ham, n_spam = table.n_ham, table.n_spam
        v = max(table.n_live, 1)
        denom_ham = math.log(table.sum_ham + a * v)
        denom_spam = math.log(table.sum_spam + a * v)
        row, ham, spam = table.store.row, table.ham, table.spam
        terms = [math.log((n_spam + 1) / (n_ham + 1))]
        for t in tokens:
            i = row(t)
            # A row unlearnt to 0 / 0 is a token no message counts: unknown, as in the
            # model file (which keeps no such row) and in ``n_live``.
            if i < 0 or not (ham[i] or spam[i]):
                continue
            terms.append(math.log(spam[i] + a) - denom_spam - math.log(ham[i] + a) + denom_ham)
        return math.fsum(terms)

    def _decide(self) -> Callable[[tuple[float, float]], Verdict]:
        """The verdict of a message's ``(log spamicity, log(1 - spamicity))``."""
        st = self._settings()
        table = self.table_
        cold = min(table.n_ham, table.n_spam) < st.min_learned
        lo_ham, lo_spam = logit(st.ham_cutoff), logit(st.spam_cutoff)

        def decide(scores: tuple[float, float]) -> Verdict:
            log_spam, log_ham = scores
            lo = log_spam - log_ham
            if cold:
                v = "unsure"
            elif lo >= lo_spam:
                v = "spam"
            elif lo <= lo_ham:
                v = "ham"
            else:
                v = "unsure"
            return Verdict(v, math.exp(log_spam), lo)

        return decide

    def _verdicts(
        self, sets: Sequence[frozenset[str]], clues: list[Any] | None = None
    ) -> Iterator[Verdict]:
        decide = self._decide()
        for tokens in sets:
            yield decide(self._log_scores(tokens, clues))

    def classify(self, messages: Iterable[MessageLike]) -> list[Verdict]:
        """The :class:`Verdict` of each message (verdict, spamicity, log-odds)."""
        self._check_fitted()
        if (
            self._settings().combining in ("chi2", "mean")  # (the text kernel combines both)
            and self.table_.n_rows >= self._INDEXED_ROWS
        ):
            return self._bulk_verdicts(messages)
        return list(self._verdicts(self._token_sets(messages)))

    def _bulk_verdicts(self, messages: Iterable[MessageLike]) -> list[Verdict]:
        """:meth:`classify` on a large table: each raw message's body words and bigrams
        (most of its tokens) looked up in the compiled index straight from its text, and
        its clues combined there (``_mail_native.fisher_text``: no str per word, no set
        of them, no list of logs), the same verdicts as the token sets' bit for bit
        (benchmarks/check_spam_fast_paths.py checks the corpus, tests/spam the rules)."""
        st = self._settings()
        table = self.table_
        tok = self._tokenizer()
        lookup = table.store  # (packed tokens and their index: no str per token)
        decide = self._decide()
        lo, hi, bigrams = tok.min_length, tok.max_length, tok.bigrams
        fisher_text, lgamma = _mail_native.fisher_text, _lgamma_table()
        mean = st.combining == "mean"
        args = (table.ham, table.spam, table.n_ham, table.n_spam, st.s, st.x, st.smoothing)
        tail = (
            st.min_dev,
            st.max_clues or 0,
            st.same_counts_min,
            st.tile_bigrams,
            st.tail_weight,
            st.ham_bias,
        )
        out = []
        check = True  # (a str that names a file: said once, as _token_sets_with says it)
        for m in self._message_list(messages):
            if isinstance(m, frozenset | set):
                out.append(decide(self._log_scores(frozenset(m))))
                continue
            if check and _warned_a_path(m, "score"):
                check = False
            # (the kernel adds the long words' tokens as it splits the text)
            tokens, text = tok.tokens_but_words(self._message(m), long_words=False)
            scores = fisher_text(
                tokens, text, lo, hi, bigrams, lookup, *args, *tail, lgamma, True, mean
            )
            if scores is None:  # (the kernel declines: the token set's path)
                longs = _mail_native.words(text, lo, hi, bigrams, tokens)
                _mail_native.long_words(longs, tokens, "")
                scores = self._log_scores(frozenset(tokens))
            out.append(decide(scores))
        return out

    def spamicity(self, messages: Iterable[MessageLike]) -> np.ndarray:
        """The spamicity of each message, in [0, 1] (1: spam)."""
        import numpy as np

        return np.array([v.spamicity for v in self.classify(messages)], dtype=np.float64)

    def decision_function(self, messages: Iterable[MessageLike]) -> np.ndarray:
        """The log-odds of each message's spamicity: ranks messages without the ties of
        spamicities that round to 1.0 (or 0.0)."""
        import numpy as np

        return np.array([v.log_odds for v in self.classify(messages)], dtype=np.float64)

    def predict(self, messages: Iterable[MessageLike]) -> np.ndarray:
        """``"ham"``, ``"unsure"`` or ``"spam"`` for each message (the labels' names for
        ham and spam)."""
        import numpy as np

        ham_label, spam_label = self._settings().labels
        names = {"ham": ham_label, "spam": spam_label, "unsure": "unsure"}
        return np.array([names[v.verdict] for v in self.classify(messages)], dtype=object)

    def posterior(self, messages: Iterable[MessageLike]) -> np.ndarray:
        """P(spam | message) of a multinomial Naive Bayes over the messages' distinct
        tokens, from the same counts (Laplace ``alpha``; class prior from the message
        counts, add-one)."""
        import numpy as np

        self._check_fitted()
        sets = self._token_sets(messages)
        return np.array([_sigmoid(self._nb_log_odds(t)) for t in sets], dtype=np.float64)

    def predict_proba(self, messages: Iterable[MessageLike]) -> np.ndarray:
        """``[1 - spamicity, spamicity]`` per message (columns in :attr:`classes_` order;
        the spamicity is a score, not a calibrated probability)."""
        import numpy as np

        s = self.spamicity(messages)
        return np.column_stack([1.0 - s, s])

    def score(self, messages: Iterable[MessageLike], labels: Iterable[str]) -> float:
        """The share of messages whose verdict is their label (unsure counts as wrong)."""
        predicted = self.predict(messages)
        truth = list(labels)
        if len(truth) != len(predicted):
            raise ValueError(f"got {len(predicted)} messages but {len(truth)} labels")
        if not truth:
            return float("nan")
        return sum(p == t for p, t in zip(predicted, truth, strict=True)) / len(truth)

    # ------------------------------------------------------------------ explanations
    def clues(self, message: MessageLike, *, unused: bool = True) -> Clues:
        """Every token of ``message`` with its f(w) and its side in the combination
        (``unused=False``: the combined clues only, which saves a look-up per other
        token)."""
        self._check_fitted()
        tokens = self._token_sets([message])[0]
        # (the bigrams the tiling left out: the side of an unused token; not needed else)
        overlaps: set[str] | None = set() if unused else None
        values = None if unused else self._clue_records(tokens)  # (the kernel's, if it can)
        if values is None:
            values = self._clue_values(tokens, overlaps)  # once, for the verdict and the sides
        verdict = next(self._verdicts([tokens], values))
        used = {clue[1]: clue for clue in values}
        st, table = self._settings(), self.table_
        row, ham, spam = table.store.row, table.ham, table.spam
        least = st.same_counts_min
        used_counts = {(c[5], c[6]) for c in values if _merged(c[5], c[6], least)}
        # (combined first, strongest first, then by token: tuples sorted, then made Clues)
        rows = []
        for t in tokens if unused else used:
            clue = used.get(t)
            if clue is None:
                i = row(t)
                g, b = (0, 0) if i < 0 else (ham[i], spam[i])
                f = robinson_f(g, b, table.n_ham, table.n_spam, st.s, st.x, st.smoothing)
                if overlaps is not None and t in overlaps:
                    side = "overlap"
                else:
                    side = "repeat" if (g, b) in used_counts else "unused"
                rows.append((True, -abs(f - 0.5), t, f, g, b, side))
            else:  # its counts are the clue's: no second look-up
                f, g, b = clue[2], clue[5], clue[6]
                rows.append((False, -abs(f - 0.5), t, f, g, b, "spam" if f > 0.5 else "ham"))
        rows.sort()
        biased = st.combining != "naive_bayes"  # (Fisher's and the mean)
        bias = st.ham_bias / len(used) if st.ham_bias and used and biased else 0.0
        mean = young = ""
        if st.combining == "mean" and used:
            k = len(values)
            z = MEAN_SCALE * (math.fsum(c[3] for c in values) - math.fsum(c[4] for c in values)) / k
            mean = f"combined by their mean: {MEAN_SCALE:g} x the mean of ln(f / (1 - f)) = {z:.2f}"
            factor = young_factor(z - bias, table.n_ham, table.n_spam)  # (as the score's)
            if factor < 0.9995:
                young = (
                    f"then x {factor:.3f} ({table.n_ham:,} ham and {table.n_spam:,} spam "
                    "learnt: a side's evidence counts fully once the filter knows the other "
                    "class well)"
                )
        return Clues(verdict, [_clue(*row[2:]) for row in rows], len(used), bias, mean, young)

    explain = clues

    # ------------------------------------------------------------------ pruning
    def prune(self, *, min_count: int | None = None, top_k: int | None = None) -> Self:
        """Drop tokens from the statistics, exactly: the pruned filter scores as one that
        never counted them (message counts are kept).

        Parameters
        ----------
        min_count : int, optional
            Drop tokens seen in at most ``min_count`` messages.
        top_k : int, optional
            Keep the ``top_k`` most informative tokens (f(w) farthest from 0.5, then the
            most often seen, then by token).
        """
        self._check_fitted()
        table = self.table_
        if min_count is not None:
            if isinstance(min_count, bool) or not isinstance(min_count, int) or min_count < 0:
                raise ValueError(f"min_count must be an int >= 0; got {min_count!r}")
            table = table.filtered(lambda t, g, b: g + b > min_count)
        if top_k is not None:
            if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 0:
                raise ValueError(f"top_k must be an int >= 0; got {top_k!r}")
            st = self._settings()
            n_ham, n_spam = table.n_ham, table.n_spam

            def strength(row: tuple[str, int, int]) -> tuple[float, int, str]:
                t, g, b = row
                f = robinson_f(g, b, n_ham, n_spam, st.s, st.x, st.smoothing)
                return (abs(f - 0.5), g + b, t)

            kept = heapq.nlargest(top_k, table.rows(), key=strength)
            table = TokenTable.from_rows(kept, n_ham, n_spam)
        self.table_ = table
        return self


_HYPERPARAMETERS = frozenset(SpamFilter._get_param_names())


def _clue(token: str, f: float, ham: int, spam: int, side: str) -> Clue:
    """``Clue(token, f, ham, spam, side)`` without the frozen dataclass's ``__init__``
    (which sets each field through ``object.__setattr__``: a message's explanation makes
    hundreds); the same object."""
    clue = object.__new__(Clue)
    clue.__dict__.update(token=token, f=f, ham=ham, spam=spam, side=side)
    return clue


_NOT_COMBINED = ("repeat", "overlap", "unused")


def _once_per_counts(clues: list[Any], least: int) -> list[Any]:
    """``clues`` (:meth:`SpamFilter._clue_values`' records) with one clue per ham and
    spam counts among those :func:`_merged` merges: the greatest token of each (the
    compiled kernel keeps the same one, so that the clue cap's ties by token choose
    alike)."""
    kept: dict[tuple[int, int], Any] = {}
    out = []
    for clue in clues:
        g, b = clue[5], clue[6]
        if not _merged(g, b, least):
            out.append(clue)
            continue
        other = kept.get((g, b))
        if other is None or clue[1] > other[1]:
            kept[g, b] = clue
    out.extend(kept.values())
    return out


def _tiled(clues: list[Any], overlaps: set[str] | None = None) -> list[Any]:
    """``clues`` (:meth:`SpamFilter._clue_values`' records) with their bigrams tiled
    (``tile_bigrams``): strongest first (ties by token), a bigram clue is kept only if
    neither of its words is a word of a bigram clue kept before it; the others are kept,
    in their order. The compiled kernel tiles alike. The tokens dropped are added to
    ``overlaps``.

    >>> rec = lambda t, d: (d, t, 0.5 + d, 0.0, 0.0, 0, 1)
    >>> clues = [rec("bi:buy cheap", 0.3), rec("bi:cheap pills", 0.4),
    ...          rec("bi:pills now", 0.2), rec("cheap", 0.45), rec("bi:act now", 0.1)]
    >>> [c[1] for c in _tiled(clues)]
    ['bi:cheap pills', 'cheap', 'bi:act now']
    """
    bigrams = sorted((c for c in clues if c[1].startswith("bi:") and " " in c[1]), reverse=True)
    if len(bigrams) < 2:
        return clues
    words: set[str] = set()
    dropped = set()
    for clue in bigrams:
        first, _, second = clue[1][3:].partition(" ")
        if first in words or second in words:
            dropped.add(clue[1])
        else:
            words.add(first)
            words.add(second)
    if not dropped:
        return clues
    if overlaps is not None:
        overlaps.update(dropped)
    return [c for c in clues if c[1] not in dropped]


def _merged(ham: int, spam: int, least: int) -> bool:
    """Whether a token of these counts is merged with the others of the same counts
    (``same_counts_min=least``; 0: none is)."""
    return ham > 0 and spam > 0 and ham + spam >= least > 0


def _log1pexp(z: float) -> float:
    return z + math.log1p(math.exp(-z)) if z > 0 else math.log1p(math.exp(z))


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))


def _np_bool() -> type:
    """numpy's bool type, if numpy is imported (a numpy bool exists only then)."""
    np = sys.modules.get("numpy")
    return np.bool_ if np is not None else bool


def _caller_level() -> int:
    """The ``stacklevel`` of a warning raised by the caller of this function that names
    the first line outside nbayes (the user's)."""
    frame, level = sys._getframe(2), 2
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


def _warn_path_given_as_text(what: str = "learn") -> None:
    import warnings

    from nbayes.exceptions import PathAsTextWarning

    level = _caller_level()  # (the warning names the caller's line)
    warnings.warn(
        f"a message to {what} is a str that names a file: a str is a message's text (here "
        f"a line of it), not a path; give pathlib.Path(...) to {what} the file",
        PathAsTextWarning,
        stacklevel=level,
    )


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _warned_a_path(message: Any, what: str) -> bool:
    """Whether ``message`` is a one-line str that names a file, said in a warning (it is
    read as a message's text: ``what`` is "learn" or "score")."""
    if isinstance(message, str) and len(message) < 4096 and "\n" not in message:
        if _names_a_file(message):
            _warn_path_given_as_text(what)
            return True
    return False


def _names_a_file(text: str) -> bool:
    """Whether ``text`` (one line) is the path of a file: a list of file names given as
    messages was learnt as their names, without a word (a user's trial)."""
    try:
        return os.path.isfile(text)
    except (OSError, ValueError):  # (a NUL in it, a name too long)
        return False


@dataclass(frozen=True, kw_only=True)
class _Settings(Preset):
    """The hyperparameters, checked, with the preset's values filled in (the scoring
    parameters and cutoffs, a :class:`Preset`, then the others)."""

    combining: str
    alpha: float
    min_learned: int
    tokenizer: MailTokenizer
    labels: tuple[Any, Any]

    @classmethod
    def of(cls, f: SpamFilter) -> _Settings:
        if f.preset not in PRESETS:
            raise ValueError(
                f"The 'preset' parameter of SpamFilter must be one of {sorted(PRESETS)}. "
                f"Got {f.preset!r} instead."
            )
        p = PRESETS[f.preset]

        def real(name: str, value: Any, low: float, high: float, closed: str) -> float:
            # numpy's scalars too (a GridSearchCV over np.linspace), not a Fraction (which a
            # model file cannot store)
            ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
            ok = ok and (
                isinstance(value, int | float)
                or (type(value).__module__ == "numpy" and value.dtype.itemsize <= 8)
            )  # (not a longdouble: a model file stores float64)
            v = float(value) if ok else math.nan
            inside = {
                "[]": low <= v <= high,
                "()": low < v < high,
                "[)": low <= v < high,
                "(]": low < v <= high,
            }[closed]
            if not inside:
                interval = f"{closed[0]}{low}, {high}{closed[1]}"
                raise ValueError(
                    f"The {name!r} parameter of SpamFilter must be a float in the range "
                    f"{interval}. Got {value!r} instead."
                )
            return v

        def count(name: str, value: Any, zero: str = "") -> Any:
            # at most sys.maxsize: the compiled clues take max_clues and same_counts_min
            # as a C size (a larger one raised OverflowError there)
            if (
                isinstance(value, bool)
                or not isinstance(value, numbers.Integral)  # (numpy's ints are)
                or not 0 <= int(value) <= sys.maxsize
            ):
                raise ValueError(
                    f"The {name!r} parameter of SpamFilter must be an int >= 0{zero} and "
                    f"<= {sys.maxsize}. Got {value!r} instead."
                )
            return int(value)

        s = real("s", p.s if f.s is None else f.s, 0.0, math.inf, "()")
        x = real("x", p.x if f.x is None else f.x, 0.0, 1.0, "()")
        smoothing = real(
            "smoothing", p.smoothing if f.smoothing is None else f.smoothing, 0.0, math.inf, "[)"
        )
        min_dev = real("min_dev", p.min_dev if f.min_dev is None else f.min_dev, 0.0, 0.5, "[)")
        ham_cutoff = real(
            "ham_cutoff", p.ham_cutoff if f.ham_cutoff is None else f.ham_cutoff, 0.0, 1.0, "[]"
        )
        spam_cutoff = real(
            "spam_cutoff",
            p.spam_cutoff if f.spam_cutoff is None else f.spam_cutoff,
            0.0,
            1.0,
            "[]",
        )
        tail_weight = real(
            "tail_weight",
            p.tail_weight if f.tail_weight is None else f.tail_weight,
            0.0,
            math.inf,
            "[)",
        )
        same_counts_min = count(
            "same_counts_min",
            p.same_counts_min if f.same_counts_min is None else f.same_counts_min,
            " (0: every clue counts)",
        )
        ham_bias = real(
            "ham_bias", p.ham_bias if f.ham_bias is None else f.ham_bias, 0.0, math.inf, "[)"
        )
        tile_bigrams = p.tile_bigrams if f.tile_bigrams is None else f.tile_bigrams
        np = sys.modules.get("numpy")  # (a numpy bool exists only if numpy is imported)
        if np is not None and isinstance(tile_bigrams, np.bool_):
            tile_bigrams = bool(tile_bigrams)
        if not isinstance(tile_bigrams, bool):
            raise ValueError(
                "The 'tile_bigrams' parameter of SpamFilter must be a bool or None. "
                f"Got {tile_bigrams!r} instead."
            )
        if ham_cutoff > spam_cutoff:
            raise ValueError(
                f"SpamFilter's ham_cutoff ({ham_cutoff}) is above its spam_cutoff "
                f"({spam_cutoff}); the unsure band lies between them: ham_cutoff <= spam_cutoff"
            )
        max_clues = f.max_clues
        if max_clues is None:  # the mean combining's clues: every one (BENCHMARKS.md)
            max_clues = None if f.combining == "mean" else p.max_clues
        if max_clues is not None:
            max_clues = count("max_clues", max_clues, " (0: every clue)")
        if f.combining not in ("chi2", "mean", "naive_bayes"):
            raise ValueError(
                "The 'combining' parameter of SpamFilter must be 'chi2', 'mean' or "
                f"'naive_bayes'. Got {f.combining!r} instead."
            )
        alpha = real("alpha", f.alpha, 0.0, math.inf, "()")
        ml = count("min_learned", f.min_learned)
        tokenizer = MailTokenizer() if f.tokenizer is None else f.tokenizer
        if not isinstance(tokenizer, MailTokenizer):
            raise TypeError(
                "The 'tokenizer' parameter of SpamFilter must be a nbayes.mail.MailTokenizer "
                f"or None. Got {type(tokenizer).__name__} instead."
            )
        labels = f.labels
        if (
            not isinstance(labels, tuple | list)
            or len(labels) != 2
            or not (
                all(isinstance(x, str) for x in labels)
                or all(  # (0, 1), numpy's too; no bool
                    isinstance(x, numbers.Integral) and not isinstance(x, bool | _np_bool())
                    for x in labels
                )
            )
            or labels[0] == labels[1]
            or "unsure" in labels
        ):
            raise ValueError(
                "The 'labels' parameter of SpamFilter must be two distinct str or two "
                f"distinct int (ham, spam), neither 'unsure'. Got {labels!r} instead."
            )
        if not isinstance(labels[0], str):
            labels = (int(labels[0]), int(labels[1]))
        return cls(
            s=s,
            x=x,
            smoothing=smoothing,
            min_dev=min_dev,
            max_clues=max_clues or None,
            ham_cutoff=ham_cutoff,
            spam_cutoff=spam_cutoff,
            tail_weight=tail_weight,
            same_counts_min=same_counts_min,
            ham_bias=ham_bias,
            combining=f.combining,
            tile_bigrams=tile_bigrams,
            alpha=alpha,
            min_learned=ml,
            tokenizer=tokenizer,
            labels=(labels[0], labels[1]),
        )


@cache
def _lgamma_table() -> array[float]:
    """``math.lgamma(0..4095)`` (the first inf), which the compiled Fisher combining reads
    (CPython computes lgamma its own way: the C library's may differ in the last bit)."""
    return array("d", [math.inf] + [math.lgamma(i) for i in range(1, 1 << 12)])


def _fisher(
    logs: tuple[list[float], list[float]], tail_weight: float, ham_bias: float
) -> tuple[float, float]:
    """``(log spamicity, log(1 - spamicity))`` of the clues' ``ln f`` and ``ln(1 - f)``."""
    log_f, log_1mf = logs
    return fisher_log_scores(
        math.fsum(log_f), math.fsum(log_1mf), len(log_f), tail_weight, ham_bias
    )
