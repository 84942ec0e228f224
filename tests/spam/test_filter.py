"""SpamFilter: the estimator API, exactness of update / unlearn / merge / prune, the scoring
in log space, verdicts, regimes, cutoffs, model files, and a slice of the real corpus."""

from __future__ import annotations

import math
import os
import pickle
import re
import warnings
from email.message import EmailMessage
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import nbayes
from nbayes.exceptions import ModelFileError
from nbayes.mail import MailTokenizer
from nbayes.spam import (
    SpamFilter,
    TokenTable,
    Verdict,
    chi2_log_cdf,
    chi2_log_sf,
    choose_cutoffs,
    fisher_log_scores,
)
from nbayes.spam._combining import logit
from nbayes.spam._cutoffs import _cutoff_above, _cutoff_below

HAM = [
    b"Subject: minutes\n\nthe minutes of the project meeting are attached, see you monday",
    b"Subject: report\n\nplease review the quarterly report before the meeting on monday",
    b"Subject: lunch\n\nlunch with the project team on friday, the usual place",
    b"Subject: build\n\nthe nightly build failed again; the logs are on the project wiki",
]
SPAM = [
    b"Subject: cheap pills\n\nbuy cheap pills now!! best price guaranteed, click here",
    b"Subject: winner\n\nyou are a winner! claim your prize now, click here to claim",
    b"Subject: money\n\nmake money fast from home, no experience, click here now!!",
    b"Subject: offer\n\nexclusive offer: cheap meds, best price, order now and save",
]
LABELS = ["ham"] * 4 + ["spam"] * 4


def trained(**params: object) -> SpamFilter:
    return SpamFilter(**params).fit(HAM + SPAM, LABELS)  # type: ignore[arg-type]


def test_fit_predict_spamicity() -> None:
    f = trained()
    new_spam = b"Subject: cheap offer\n\nclick here now for the best price on pills"
    new_ham = b"Subject: meeting\n\nthe project meeting moved to monday, report attached"
    s = f.spamicity([new_spam, new_ham])
    assert s.dtype == np.float64 and 0.0 <= s.min() and s.max() <= 1.0
    assert s[0] > 0.9 > 0.1 > s[1]
    assert f.predict([new_spam, new_ham]).tolist() == ["spam", "ham"]
    assert f.classes_.tolist() == ["ham", "spam"]
    assert f.predict_proba([new_spam]).shape == (1, 2)
    assert f.score([new_spam, new_ham], ["spam", "ham"]) == 1.0


def test_messages_of_every_kind_score_alike(tmp_path: Path) -> None:
    f = trained()
    raw = SPAM[0]
    path = tmp_path / "m.eml"
    path.write_bytes(raw)
    msg = EmailMessage()
    msg["Subject"] = "cheap pills"
    msg.set_content("buy cheap pills now!! best price guaranteed, click here")
    scores = f.spamicity([raw, raw.decode(), path, f.tokenize(raw)])
    assert len(set(scores.tolist())) == 1
    assert f.spamicity([msg])[0] > 0.9


def test_clear_errors() -> None:
    f = trained()
    with pytest.raises(TypeError, match=r"wrap it in a list"):
        f.predict(HAM[0])
    with pytest.raises(ValueError, match="unknown label 'junk'"):
        f.partial_fit([HAM[0]], ["junk"])
    with pytest.raises(ValueError, match=r"unknown label 'junk': a SpamFilter's labels are 'ham'"):
        f.partial_fit([HAM[0]], np.array(["junk"]))  # shown as sent, not np.str_('junk')
    with pytest.raises(ValueError, match="got 2 messages but 1 labels"):
        f.partial_fit(HAM[:2], ["ham"])
    with pytest.raises(ValueError, match="learnt nothing yet"):
        SpamFilter().predict(HAM)
    with pytest.raises(TypeError, match="got int"):
        f.predict([42])
    with pytest.raises(ValueError, match="'preset' parameter"):
        SpamFilter(preset="nope").fit(HAM, ["ham"] * 4)
    with pytest.raises(ValueError, match="ham_cutoff"):
        SpamFilter(ham_cutoff=0.9, spam_cutoff=0.5).fit(HAM, ["ham"] * 4)
    with pytest.raises(ValueError, match="'s' parameter"):
        SpamFilter(s=0).fit(HAM, ["ham"] * 4)


def test_unlearn_refuses_what_was_not_learnt_and_changes_nothing() -> None:
    f = trained()
    before = f.table_.copy()
    with pytest.raises(ValueError, match="cannot unlearn"):
        f.unlearn([HAM[0], SPAM[0]], ["spam", "spam"])  # HAM[0] was learnt as ham
    assert f.table_ == before
    with pytest.raises(ValueError, match="learnt only 4 ham"):
        f.unlearn(HAM + HAM[:1], ["ham"] * 5)


def test_unlearn_refuses_a_message_not_learnt_whose_tokens_all_were(tmp_path: Path) -> None:
    # every token of `odd` is in a learnt spam, but the tokens in every spam it lacks
    # ("header:Subject:1", ...) would be left in more spam than the filter had learnt: a
    # model file nbayes could not load again. Refused, and nothing changes.
    f = trained()
    odd = frozenset(t for t in f.tokenize(SPAM[0]) if f.table_.counts(t)[1] < 4)
    assert odd and f.table_.counts("header:Subject:1") == (4, 4)
    before = f.table_.copy()
    with pytest.raises(ValueError, match=r"is in 4 of the 4 learnt spam and in 0 of them"):
        f.unlearn([odd], ["spam"])
    assert f.table_ == before
    nbayes.save(f, tmp_path / "m.nbayes")
    assert nbayes.load(tmp_path / "m.nbayes").table_ == before
    f.unlearn([SPAM[0]], ["spam"])  # one that was learnt still goes
    assert f.table_.n_spam == 3


def _refusal_by_every_row(table: TokenTable, messages: list[frozenset[str]], spam: bool) -> bool:
    """Whether unlearning ``messages`` as ``spam`` leaves a count below 0 or above the
    class's messages, computed from every row (what the table's check must agree with)."""
    n = (table.n_spam if spam else table.n_ham) - len(messages)
    if n < 0:
        return True
    need: dict[str, int] = {}
    for m in messages:
        for t in m:
            need[t] = need.get(t, 0) + 1
    for t, g, b in table.rows():
        c = (b if spam else g) - need.pop(t, 0)
        if c < 0 or c > n:
            return True
    return bool(need)  # a token the table never counted


_TOKENS = st.frozensets(st.sampled_from("abcdefgh"), max_size=6)


@settings(max_examples=500, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["learn", "unlearn", "merge", "try", "try"]),
            st.booleans(),
            _TOKENS,
            st.integers(1, 3),
        ),
        max_size=40,
    ),
    st.integers(0, 4),
)
def test_the_unlearn_check_agrees_with_every_row(steps: list, depth: int) -> None:
    # the rows near a class's message count are kept between unlearns (_rows_near_n):
    # whatever happened since, the check refuses exactly what a pass over every row does
    import nbayes.spam._table as table_module

    old_depth = table_module._HIGH_DEPTH
    table_module._HIGH_DEPTH = depth  # small: the reuse and its limits are exercised
    try:
        table = TokenTable()
        learnt: dict[bool, list[frozenset[str]]] = {True: [], False: []}
        for op, spam, tokens, copies in steps:
            if op == "learn":
                table.learn([tokens], spam=spam)
                learnt[spam].append(tokens)
            elif op == "merge":
                other = TokenTable()
                other.learn([tokens, tokens], spam=spam)
                table.merge(other)
                learnt[spam] += [tokens, tokens]
            elif op == "unlearn" and learnt[spam]:
                table.unlearn([learnt[spam].pop()], spam=spam)
            else:  # any set of tokens, learnt or not, once or more
                batch = [tokens] * copies
                refused = table.check_unlearn(batch, spam=spam) is not None
                assert refused == _refusal_by_every_row(table, batch, spam)
    finally:
        table_module._HIGH_DEPTH = old_depth


def test_correct_is_unlearn_then_learn() -> None:
    wrong = SpamFilter().fit(HAM + SPAM, ["ham"] * 3 + ["spam"] * 5)  # HAM[3] as spam
    wrong.correct([HAM[3]], ["ham"])
    assert wrong.table_ == trained().table_
    with pytest.raises(ValueError, match="cannot correct"):
        wrong.correct([HAM[0]], ["ham"])  # it is ham already: not learnt as spam


def test_log_space_scores_do_not_tie_at_one() -> None:
    spam = frozenset(f"s{i}" for i in range(100))
    ham = frozenset(f"h{i}" for i in range(100))
    f = SpamFilter().fit([spam] * 50 + [ham] * 50, ["spam"] * 50 + ["ham"] * 50)
    probes = [spam, frozenset(list(spam)[:60]), frozenset(list(spam)[:30])]
    v = f.classify(probes)
    assert all(x.spamicity >= 1 - 1e-15 for x in v)  # a float cannot tell them apart
    assert all(math.isfinite(x.log_odds) and x.log_odds > 36 for x in v)
    assert len({x.log_odds for x in v}) == 3  # the log-odds can
    # chi-square tails far beyond double precision's 1 - p
    assert math.isfinite(chi2_log_sf(3000.0, 150)) and chi2_log_sf(3000.0, 150) < -1000
    from scipy.stats import chi2

    for x, k in ((1.0, 150), (3000.0, 150), (0.5, 3), (300.0, 150), (40.0, 2)):
        assert chi2_log_cdf(x, k) == pytest.approx(chi2.logcdf(x, 2 * k), rel=1e-12)
        if math.isfinite(chi2.logsf(x, 2 * k)):  # scipy underflows to -inf at (3000, 150)
            assert chi2_log_sf(x, k) == pytest.approx(chi2.logsf(x, 2 * k), rel=1e-12)
    ls, lh = fisher_log_scores(math.log(0.999) * 150, math.log(0.001) * 150, 150)
    assert math.exp(ls) >= 1 - 1e-15 and lh < -100


def test_the_tail_ratio_decides_overwhelming_clues_both_ways() -> None:
    # 60 sure ham clues and 60 sure spam clues: Fisher's indicator is 1/2 to the last bit
    def sums(ham_f: float, spam_f: float) -> tuple[float, float]:
        return (
            math.log(ham_f) * 60 + math.log(spam_f) * 60,
            math.log1p(-ham_f) * 60 + math.log1p(-spam_f) * 60,
        )

    hammy, spammy = sums(0.001, 0.99), sums(0.01, 0.999)  # the ham side stronger, then spam
    for both in (hammy, spammy):
        ls, lh = fisher_log_scores(*both, 120)
        assert abs(ls - lh) < 1e-12
    ls, lh = fisher_log_scores(*hammy, 120, tail_weight=0.003)
    assert ls - lh < -0.1 and math.exp(ls) + math.exp(lh) == pytest.approx(1.0)
    ls2, lh2 = fisher_log_scores(*spammy, 120, tail_weight=0.003)
    assert ls2 - lh2 == pytest.approx(-(ls - lh))  # the mirror image: the opposite score
    # one-sided clues: the term moves the log-odds a little, never across 1/2
    sure = (math.log(0.999) * 150, math.log(0.001) * 150)
    plain = fisher_log_scores(*sure, 150)
    tilted = fisher_log_scores(*sure, 150, tail_weight=0.003)
    assert plain[0] - plain[1] > 36 and tilted[0] - tilted[1] > plain[0] - plain[1]
    assert fisher_log_scores(*sure, 150, tail_weight=0.0) == plain


def test_tail_weight_is_a_checked_parameter_of_the_presets() -> None:
    assert SpamFilter().effective_params_.tail_weight == 0.07
    for preset in ("bogofilter", "spambayes"):  # they combine as their programs do
        assert SpamFilter(preset=preset).effective_params_.tail_weight == 0.0
    f, plain = trained(), trained(tail_weight=0.0)
    probe = HAM + SPAM
    scores, plain_scores = f.decision_function(probe), plain.decision_function(probe)
    assert scores.tolist() != plain_scores.tolist()
    assert np.sign(scores).tolist() == np.sign(plain_scores).tolist()
    v = f.classify(probe)
    assert all(math.log(x.spamicity) - math.log1p(-x.spamicity) == pytest.approx(x.log_odds)
               for x in v)  # fmt: skip
    for bad in (-0.1, math.inf, "0.1", True):
        with pytest.raises(ValueError, match="'tail_weight' parameter of SpamFilter"):
            SpamFilter(tail_weight=bad).fit(HAM + SPAM, LABELS)


def save_as_earlier(
    f: SpamFilter,
    path: Path,
    monkeypatch: pytest.MonkeyPatch,
    owner: object,
    writer: str,
    *keys: str,
) -> None:
    """Save ``f`` as an earlier version wrote it: ``owner.writer``'s dict without ``keys``."""
    write = getattr(owner, writer)

    def earlier(*args: object) -> dict[str, object]:
        d = write(*args)
        for key in keys:
            del d[key]
        return d

    monkeypatch.setattr(owner, writer, earlier)
    nbayes.save(f, path)
    monkeypatch.undo()


def test_a_model_file_without_tail_weight_scores_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from nbayes.io.serializers import spam as spam_io
    from nbayes.io.serializers.spam import load_spam_scorer

    f = trained()  # tail_weight None: the preset's
    path = tmp_path / "old.nbm"  # as files before tail_weight
    save_as_earlier(f, path, monkeypatch, spam_io, "_hyperparameters", "tail_weight")
    g = nbayes.load(path)
    assert g.tail_weight == 0.0 and g.effective_params_.tail_weight == 0.0
    probe = [*HAM, *SPAM, b"Subject: cheap report\n\nclick here for the report"]
    before = trained(tail_weight=0.0).classify(probe)
    assert g.classify(probe) == before != f.classify(probe)
    scorer = load_spam_scorer(path)
    assert scorer is not None and scorer.classify(probe) == before
    new = tmp_path / "new.nbm"  # written now: the preset's, as set
    nbayes.save(f, new)
    assert nbayes.load(new).classify(probe) == f.classify(probe)


def test_a_pickle_without_tail_weight_scores_as_before() -> None:
    f = trained()
    del f.__dict__["tail_weight"]  # the state a SpamFilter pickled before tail_weight has
    g = pickle.loads(pickle.dumps(f))
    assert "tail_weight" not in g.__dict__ and g.get_params()["tail_weight"] == 0.0
    probe = [*HAM, *SPAM, b"Subject: cheap report\n\nclick here for the report"]
    assert g.classify(probe) == trained(tail_weight=0.0).classify(probe)
    assert g.classify(probe) != trained().classify(probe)


# ------------------------------------------------------------ clues of the same counts
FOOTER = frozenset(f"footer{k}" for k in range(8))  # a mailing list's footer: always together


def _list_traffic(footer: frozenset[str]) -> tuple[list[frozenset[str]], list[str]]:
    """12 ham and 3 spam through a list that appends ``footer``, 10 spam from elsewhere: a
    word in 5 of them, another in the other 5."""
    sets = [frozenset({f"ham{k}", "meeting"}) | footer for k in range(12)]
    sets += [frozenset({f"spam{k}", "pills"}) | footer for k in range(3)]
    sets += [frozenset({f"spam{k}", "pills", "cheap"}) for k in range(3, 8)]
    sets += [frozenset({f"spam{k}", "offer"}) for k in range(8, 13)]
    return sets, ["ham"] * 12 + ["spam"] * 13


def test_tokens_of_the_same_counts_count_once_as_one_token_would() -> None:
    sets, labels = _list_traffic(FOOTER)
    one_sets, _ = _list_traffic(frozenset({"footer7"}))  # the footer as one token
    probe = FOOTER | {"pills", "cheap"}
    f = SpamFilter().fit(sets, labels)
    assert f.effective_params_.same_counts_min == 10
    assert f.table_.counts("footer0") == (12, 3)  # seen in both classes, 15 messages
    one = SpamFilter().fit(one_sets, labels)
    assert (
        f.decision_function([probe])[0]
        == one.decision_function([frozenset({"footer7", "pills", "cheap"})])[0]
    )  # bit for bit: the same clues
    # counted eight times, the footer outweighs the spam words
    every = SpamFilter(same_counts_min=0).fit(sets, labels)
    assert every.decision_function([probe])[0] < f.decision_function([probe])[0]
    assert (
        SpamFilter(same_counts_min=16).fit(sets, labels).decision_function([probe]).tolist()
        == every.decision_function([probe]).tolist()
    )  # 15 messages < 16: each counts
    # "cheap" and "offer" share their counts (0 ham, 5 spam) by chance: tokens seen in one
    # class only are not merged
    assert f.table_.counts("cheap") == f.table_.counts("offer") == (0, 5)
    assert f.clues(frozenset({"cheap", "offer"})).n_used == 2


def test_the_explanation_shows_the_tokens_counted_once() -> None:
    f = SpamFilter().fit(*_list_traffic(FOOTER))
    c = f.clues(FOOTER | {"pills"})
    used = c.used()
    assert [x.token for x in used if x.token.startswith("footer")] == ["footer7"]
    repeats = [x for x in c.clues if x.side == "repeat"]
    assert sorted(x.token for x in repeats) == [f"footer{k}" for k in range(7)]
    footer7 = next(x for x in used if x.token == "footer7")
    assert all((x.ham, x.spam, x.f) == (12, 3, footer7.f) for x in repeats)
    assert c.clues[: c.n_used] == used and all(x.side != "repeat" for x in used)
    plain = SpamFilter(same_counts_min=0).fit(*_list_traffic(FOOTER)).clues(FOOTER)
    assert plain.n_used == 8 and not any(x.side == "repeat" for x in plain.clues)


def test_same_counts_min_and_the_other_counts_are_checked_parameters() -> None:
    for preset in ("bogofilter", "spambayes"):  # they combine as their programs do
        assert SpamFilter(preset=preset).effective_params_.same_counts_min == 0
    for name in ("same_counts_min", "max_clues", "min_learned"):
        # 10**30: beyond the C size the compiled clues take (it raised OverflowError there)
        for bad in (-1, 2.0, "10", True, 10**30):
            with pytest.raises(ValueError, match=f"'{name}' parameter of SpamFilter"):
                SpamFilter(**{name: bad}).fit(HAM + SPAM, LABELS)


# ------------------------------------------------------------ overlapping bigrams
PHRASE = frozenset(
    {"buy", "cheap", "pills", "now", "bi:buy cheap", "bi:cheap pills", "bi:pills now"}
)


def _phrase_traffic() -> tuple[list[frozenset[str]], list[str]]:
    """6 spam that say "buy cheap pills now", 6 ham about a meeting (and a word of each
    message)."""
    sets = [PHRASE | {f"s{k}"} for k in range(6)]
    sets += [frozenset({"meeting", "notes", "bi:meeting notes", f"h{k}"}) for k in range(6)]
    return sets, ["spam"] * 6 + ["ham"] * 6


def test_bigrams_of_one_phrase_count_once_where_they_overlap() -> None:
    sets, labels = _phrase_traffic()
    probe = PHRASE | {"meeting"}
    f = SpamFilter().fit(sets, labels)
    assert f.effective_params_.tile_bigrams
    # the three bigrams tie (6 spam, 0 ham): strongest first by token, "bi:pills now" is
    # kept, "bi:cheap pills" shares "pills" with it, "bi:buy cheap" shares no word
    c = f.clues(probe)
    assert [x.token for x in c.clues if x.side == "overlap"] == ["bi:cheap pills"]
    assert {"bi:pills now", "bi:buy cheap"} <= {x.token for x in c.used()}
    assert c.clues[: c.n_used] == c.used()  # the left-out bigram after the combined clues
    plain = SpamFilter(tile_bigrams=False).fit(sets, labels)
    assert plain.clues(probe).n_used == c.n_used + 1
    # bit for bit the score of the same clues without the left-out bigram, on every path
    want = plain.decision_function([probe - {"bi:cheap pills"}])[0]
    assert f.decision_function([probe])[0] == want
    assert f._log_scores(probe, f._clue_values(probe)) == plain._log_scores(
        probe - {"bi:cheap pills"}
    )
    assert f.decision_function([probe])[0] < plain.decision_function([probe])[0]


def test_tiling_keeps_a_bigram_whose_word_only_a_dropped_bigram_used() -> None:
    # "bi:a b" is kept, "bi:b c" dropped (b), then "bi:c d": c was a word of a dropped
    # bigram only, so it is kept (the compiled kernel tiles alike: tests/spam/
    # test_token_index.py)
    from nbayes.spam._filter import _tiled

    rec = lambda t, d: (d, t, 0.5 + d, 0.0, 0.0, 0, 1)  # noqa: E731
    clues = [rec("bi:a b", 0.4), rec("bi:b c", 0.3), rec("bi:c d", 0.2), rec("bi:d d", 0.1)]
    overlaps: set[str] = set()
    assert [x[1] for x in _tiled(clues, overlaps)] == ["bi:a b", "bi:c d"]
    assert overlaps == {"bi:b c", "bi:d d"}
    assert _tiled([rec("bi:x x", 0.2), rec("bi:y z", 0.1)]) == [
        rec("bi:x x", 0.2),
        rec("bi:y z", 0.1),
    ]
    assert _tiled([rec("bi:x", 0.2), rec("bi:x", 0.1)]) == [rec("bi:x", 0.2), rec("bi:x", 0.1)]


def test_tile_bigrams_is_a_checked_parameter_off_in_the_programs_presets() -> None:
    for preset in ("bogofilter", "spambayes"):
        assert SpamFilter(preset=preset).effective_params_.tile_bigrams is False
    assert SpamFilter(preset="bogofilter", tile_bigrams=True).effective_params_.tile_bigrams
    for bad in (1, "yes", 0.0):
        with pytest.raises(ValueError, match="'tile_bigrams' parameter of SpamFilter"):
            SpamFilter(tile_bigrams=bad).fit(HAM + SPAM, LABELS)  # type: ignore[arg-type]


# ------------------------------------------------------------ the bias of few clues
def _with_one_spam_word() -> tuple[list[frozenset[str]], list[str]]:
    """Traffic where ``pills`` was seen once, in spam, and ``lunch`` in ham often."""
    sets = [frozenset({"lunch", f"h{k}"}) for k in range(30)]
    sets += [frozenset({"pills", "s0"})] + [frozenset({f"s{k}", "cheap"}) for k in range(1, 10)]
    return sets, ["ham"] * 30 + ["spam"] * 10


def test_ham_bias_lowers_the_log_odds_by_the_bias_over_the_clues() -> None:
    sets, labels = _with_one_spam_word()
    f, plain = SpamFilter().fit(sets, labels), SpamFilter(ham_bias=0.0).fit(sets, labels)
    assert f.effective_params_.ham_bias == 8.0
    for preset in ("bogofilter", "spambayes"):  # they combine as their programs do
        assert SpamFilter(preset=preset).effective_params_.ham_bias == 0.0
    # one known token, seen once, in spam: Fisher's combining of it is its f(w), spam at
    # 0.9 and more without the bias; with it, the text is not called spam on that alone
    lone = frozenset({"pills", "never-seen"})
    assert plain.clues(lone).n_used == 1 and plain.predict([lone]).tolist() == ["spam"]
    assert f.predict([lone]).tolist() != ["spam"]
    # the bias is 8 / k on the log-odds, k the clues combined (the tail ratio aside)
    probes = [lone, frozenset({"cheap", "s1", "s2", "s3", "s4"}), frozenset({"lunch", "h1"})]
    tails = SpamFilter(ham_bias=0.0, tail_weight=0.0).fit(sets, labels)
    only = SpamFilter(tail_weight=0.0).fit(sets, labels)
    for probe in probes:
        k = only.clues(probe).n_used
        got = only.decision_function([probe])[0]
        assert got == pytest.approx(tails.decision_function([probe])[0] - 8.0 / k, abs=1e-12)
    # clues() says what the bias took off: 8 / k, and 0 without it
    for probe in probes:
        k = f.clues(probe).n_used
        assert f.clues(probe).bias == 8.0 / k and plain.clues(probe).bias == 0.0
    assert SpamFilter(combining="naive_bayes").fit(sets, labels).clues(lone).bias == 0.0
    # many clues: spam still; no clues: 1/2 still, whatever the bias
    assert f.predict([frozenset({"cheap", "s1", "s2", "s3", "s4"})]).tolist() == ["spam"]
    nothing = frozenset({"never-seen"})
    assert f.classify([nothing]) == plain.classify([nothing]) and f.clues(nothing).bias == 0.0
    assert f.classify([nothing])[0].spamicity == 0.5
    # the verdicts' spamicity stays the log-odds' logistic
    v = f.classify(probes)
    assert all(math.log(x.spamicity) - math.log1p(-x.spamicity) == pytest.approx(x.log_odds)
               for x in v)  # fmt: skip
    for bad in (-0.1, math.inf, math.nan, "8", True):
        with pytest.raises(ValueError, match="'ham_bias' parameter of SpamFilter"):
            SpamFilter(ham_bias=bad).fit(sets, labels)


def test_ham_bias_scores_alike_on_every_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The token sets' Python path, the compiled clues and the bulk kernel of raw mail
    (a table large enough for the compiled index), and a saved model's scorer."""
    from nbayes import _mail_native
    from nbayes.io.serializers.spam import load_spam_scorer
    from nbayes.spam import classify_many

    ham = [b"Subject: notes %d\n\nthe minutes of meeting %d, see you monday" % (k, k)
           for k in range(40)]  # fmt: skip
    spam = [b"Subject: offer %d\n\ncheap pills %d now, click here" % (k, k) for k in range(20)]
    f = SpamFilter().fit(ham + spam, ["ham"] * 40 + ["spam"] * 20)
    probe = [b"Subject: hello\n\npills", b"Subject: offer\n\ncheap pills now", ham[0], b"x"]
    want = f.classify(probe)
    kernel, calls = _mail_native.fisher_text, []

    def counted(*args: object) -> object:
        calls.append(args[18])  # (its ham_bias)
        return kernel(*args)

    monkeypatch.setattr(_mail_native, "fisher_text", counted)
    f._INDEXED_ROWS = 1  # the bulk path (fisher_text) for every table
    assert f.classify(probe) == want and calls and set(calls) == {8.0}
    monkeypatch.undo()
    assert [v for v in classify_many(f, probe, n_jobs=1)] == want
    path = tmp_path / "m.nbm"
    nbayes.save(f, path)
    scorer = load_spam_scorer(path)
    assert scorer is not None and scorer.classify(probe) == want
    assert nbayes.load(path).effective_params_.ham_bias == 8.0


def _old_file_cases() -> list[tuple[str, object, list[frozenset[str]]]]:
    return [
        ("same_counts_min", 0, [FOOTER | {"pills"}, FOOTER, frozenset({"pills", "cheap"})]),
        ("ham_bias", 0.0, [frozenset({"pills"}), frozenset({"lunch", "h1"}), frozenset({"s1"})]),
        ("tile_bigrams", False, [PHRASE | {"meeting"}, PHRASE, frozenset({"notes"})]),
    ]


@pytest.mark.parametrize(("name", "earlier", "probe"), _old_file_cases())
def test_a_model_file_or_pickle_without_a_newer_parameter_scores_as_before(
    name: str,
    earlier: object,
    probe: list[frozenset[str]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Files and pickles written before ``same_counts_min``, ``ham_bias`` or
    ``tile_bigrams`` load with the value that scores as they did (0: every clue counted;
    no bias; no tiling)."""
    from nbayes.io.serializers import spam as spam_io
    from nbayes.io.serializers.spam import load_spam_scorer

    traffic = {"same_counts_min": lambda: _list_traffic(FOOTER), "tile_bigrams": _phrase_traffic}
    sets, labels = traffic.get(name, _with_one_spam_word)()
    f = SpamFilter().fit(sets, labels)
    before = SpamFilter(**{name: earlier}).fit(sets, labels)  # type: ignore[arg-type]
    assert f.classify(probe) != before.classify(probe)
    path = tmp_path / "old.nbm"  # as files before the parameter
    save_as_earlier(f, path, monkeypatch, spam_io, "_hyperparameters", name)
    g = nbayes.load(path)
    assert getattr(g, name) == earlier and getattr(g.effective_params_, name) == earlier
    assert g.classify(probe) == before.classify(probe)
    scorer = load_spam_scorer(path)
    assert scorer is not None and scorer.classify(probe) == before.classify(probe)
    nbayes.save(f, tmp_path / "new.nbm")
    assert nbayes.load(tmp_path / "new.nbm").classify(probe) == f.classify(probe)
    del f.__dict__[name]  # the state a SpamFilter pickled before it has
    h = pickle.loads(pickle.dumps(f))
    assert h.get_params()[name] == earlier
    assert h.classify(probe) == before.classify(probe)


def test_cold_start_is_unsure() -> None:
    f = SpamFilter(min_learned=3).fit(HAM[:2] + SPAM, ["ham"] * 2 + ["spam"] * 4)
    assert set(f.predict(SPAM).tolist()) == {"unsure"}
    f.partial_fit(HAM[2:3], ["ham"])
    assert f.predict(SPAM[:1]).tolist() == ["spam"]


def test_presets_and_effective_params() -> None:
    bogo = SpamFilter(preset="bogofilter").effective_params_
    assert (bogo.s, bogo.x, bogo.min_dev, bogo.ham_cutoff, bogo.spam_cutoff) == (
        0.0178,
        0.52,
        0.375,
        0.45,
        0.99,
    )
    assert SpamFilter(preset="spambayes", s=1.0).effective_params_.s == 1.0
    for preset in ("nbayes", "bogofilter", "spambayes"):
        assert trained(preset=preset).predict(SPAM[:1]).tolist() == ["spam"]


def test_naive_bayes_posterior_is_available() -> None:
    f = trained()
    p = f.posterior([SPAM[0], HAM[0]])
    assert p[0] > 0.5 > p[1]
    nb = trained(combining="naive_bayes")
    assert nb.spamicity([SPAM[0]])[0] == pytest.approx(p[0])


def test_naive_bayes_unlearnt_tokens_score_as_unknown(tmp_path: Path) -> None:
    # A message learnt and unlearnt leaves its new tokens' rows at 0 / 0. The model file
    # keeps no such row, so the filter must score them as unknown too: before, the live
    # filter smoothed them as known tokens and disagreed with its own save and load.
    nb = trained(combining="naive_bayes")
    fresh = b"Subject: brand new\n\nzzfresh1 zzfresh2 zzfresh3 click"
    before = nb.spamicity([fresh])[0]
    nb.partial_fit([fresh], ["spam"])
    nb.unlearn([fresh], ["spam"])
    assert nb.spamicity([fresh])[0] == before
    nbayes.save(nb, tmp_path / "m.nbayes")
    assert nbayes.load(tmp_path / "m.nbayes").spamicity([fresh])[0] == before


def test_clues_explain_the_verdict() -> None:
    f = trained()
    c = f.clues(b"Subject: cheap\n\nclick here for the project report")
    used = c.used()
    assert c.n_used == len(used) > 0
    assert {x.side for x in used} <= {"spam", "ham"}
    assert all((x.f > 0.5) == (x.side == "spam") for x in used)
    assert all(abs(x.f - 0.5) >= 0.1 for x in used)
    assert [abs(x.f - 0.5) for x in used] == sorted((abs(x.f - 0.5) for x in used), reverse=True)
    assert c.verdict == f.classify([b"Subject: cheap\n\nclick here for the project report"])[0]
    by_token = {x.token: x for x in c.clues}
    assert by_token["click"].spam == 3 and by_token["click"].ham == 0


def test_sklearn_clone_and_params() -> None:
    from sklearn.base import clone, is_classifier

    f = SpamFilter(s=0.2, tokenizer=MailTokenizer(bigrams=False))
    g = clone(f)
    assert g.get_params() == f.get_params() and g is not f
    assert is_classifier(f)
    assert repr(f).startswith("SpamFilter(s=0.2, tokenizer=MailTokenizer(headers=(")
    assert "bigrams=False" in repr(f) and repr(SpamFilter()) == "SpamFilter()"
    with pytest.raises(ValueError, match="Invalid parameter 'sx'"):
        f.set_params(sx=1)


def test_importing_the_filter_loads_no_scikit_learn() -> None:
    import subprocess
    import sys

    code = (
        "import sys, nbayes; nbayes.SpamFilter; import nbayes.mail, nbayes.io.serializers.spam; "
        "print(any(m.split('.')[0] in ('sklearn', 'scipy', 'pandas') for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ---------------------------------------------------------------------- exactness
TOKENS = st.frozensets(st.sampled_from([f"t{i}" for i in range(12)]), max_size=8)
CORPUS = st.lists(st.tuples(TOKENS, st.sampled_from(["ham", "spam"])), min_size=2, max_size=30)


def _scores(f: SpamFilter, probe: list[frozenset[str]]) -> list[float]:
    return [v.log_odds for v in f.classify(probe)]


PROBE = [frozenset({f"t{i}", f"t{(i * 7) % 12}", f"t{(i + 3) % 12}"}) for i in range(12)]


@settings(max_examples=60, deadline=None)
@given(CORPUS, st.integers(0, 30))
def test_partial_fit_in_any_split_equals_fit(corpus: list, cut: int) -> None:
    sets, labels = [m for m, _ in corpus], [y for _, y in corpus]
    whole = SpamFilter().fit(sets, labels)
    parts = SpamFilter().partial_fit(sets[:cut], labels[:cut]) if cut else SpamFilter()
    parts.partial_fit(sets[cut:], labels[cut:]) if cut < len(sets) else None
    if cut >= len(sets):
        parts = SpamFilter().fit(sets, labels)
    assert parts.table_ == whole.table_
    assert _scores(parts, PROBE) == _scores(whole, PROBE)


@settings(max_examples=60, deadline=None)
@given(CORPUS, CORPUS)
def test_unlearn_and_merge_are_exact(a: list, b: list) -> None:
    sa, ya = [m for m, _ in a], [y for _, y in a]
    sb, yb = [m for m, _ in b], [y for _, y in b]
    both = SpamFilter().fit(sa + sb, ya + yb)
    only_a = SpamFilter().fit(sa, ya)
    merged = only_a + SpamFilter().fit(sb, yb)
    assert merged.table_ == both.table_
    assert _scores(merged, PROBE) == _scores(both, PROBE)  # bit for bit (fsum)
    both.unlearn(sb, yb)
    assert both.table_ == only_a.table_
    assert _scores(both, PROBE) == _scores(only_a, PROBE)


@settings(max_examples=60, deadline=None)
@given(CORPUS, st.integers(0, 4), st.integers(0, 12))
def test_pruning_is_training_without_the_pruned_tokens(corpus: list, n: int, k: int) -> None:
    sets, labels = [m for m, _ in corpus], [y for _, y in corpus]
    f = SpamFilter().fit(sets, labels)
    counts = {t: sum(g for g in f.table_.counts(t)) for t, _, _ in f.table_.rows()}
    kept = {t for t, c in counts.items() if c > n}
    pruned = f.copy().prune(min_count=n)
    reference = SpamFilter().fit([m & kept for m in sets], labels)
    assert pruned.table_ == reference.table_
    assert _scores(pruned, PROBE) == _scores(reference, PROBE)
    top = f.copy().prune(top_k=k)
    kept_k = {t for t, _, _ in top.table_.rows()}
    assert len(kept_k) == min(k, len(counts))
    reference = SpamFilter().fit([m & kept_k for m in sets], labels)
    assert _scores(top, PROBE) == _scores(reference, PROBE)


def test_token_table_counts_documents() -> None:
    t = TokenTable()
    t.learn([{"a", "b"}, {"a"}], spam=False)
    t.learn([{"a"}], spam=True)
    assert t.counts("a") == (2, 1) and t.counts("zz") == (0, 0) and len(t) == 2
    t.unlearn([{"a", "b"}], spam=False)
    assert t.counts("b") == (0, 0) and len(t) == 1


def test_an_interrupted_learning_call_changes_nothing() -> None:
    class Interrupted(frozenset):  # type: ignore[type-arg]
        def __iter__(self):  # type: ignore[no-untyped-def]
            yield "brand-new"
            yield "click"
            raise KeyboardInterrupt

    t = trained().table_
    before = t.copy()
    for call in (t.learn, t.unlearn):
        with pytest.raises(KeyboardInterrupt):
            call([frozenset({"click", "other-new"}), Interrupted()], spam=True)  # type: ignore[list-item]
        assert t == before and t.counts("brand-new") == (0, 0)
        assert "brand-new" not in t.index and t.n_live == before.n_live
    f = trained()
    before = f.table_.copy()
    with pytest.raises(KeyboardInterrupt):
        f._learn_into(f.table_, [frozenset({"a"}), Interrupted()], ["spam", "ham"])
    assert f.table_ == before


# ---------------------------------------------------------------------- regimes, cutoffs
def test_training_regimes() -> None:
    f = SpamFilter()
    rounds = f.train(HAM + SPAM, LABELS, regime="on_error")
    assert len(rounds) == 1 and 1 <= rounds[0] <= 8
    g = SpamFilter()
    rounds = g.train(HAM + SPAM, LABELS, regime="exhaustion", max_rounds=20)
    assert rounds[-1] == 0 or len(rounds) == 20
    assert g.predict(HAM + SPAM).tolist() == LABELS or len(rounds) == 20
    assert SpamFilter().train(HAM, ["ham"] * 4) == [4]
    with pytest.raises(ValueError, match="regime must be"):
        f.train(HAM, ["ham"] * 4, regime="sometimes")


def test_auto_learn_learns_sure_verdicts_only() -> None:
    f = trained()
    n_spam = f.table_.n_spam
    verdicts = f.auto_learn([SPAM[0], b"Subject: hmm\n\nneutral words only qwerty"])
    assert verdicts[0].verdict == "spam" and f.table_.n_spam == n_spam + 1
    assert verdicts[1].verdict == "unsure" and f.table_.n_ham == 4


@pytest.mark.parametrize(
    ("text", "learnt"),
    [
        (b"Subject: x\n\nmonday", False),  # one clue: "ham" from the bias of few clues
        (b"Subject: x\n\nproject monday", False),  # two
        (b"Subject: x\n\nmonday meeting click here", False),  # ham by the bias, not the clues
        (b"Subject: x\n\nthe project monday click", True),  # ham on five clues' evidence
    ],
)
def test_auto_learn_learns_no_verdict_of_a_clue_or_two_or_of_the_bias(
    text: bytes, learnt: bool
) -> None:
    # a Subject line and nothing else, "ham 0.000189", was learnt as ham, and each such
    # message made the next easier to call ham: message-id:none became a ham clue, then
    # "Subject: guaranteed" ham (a trial's; bogofilter called them Unsure and Spam)
    f = trained()
    (v,) = f.auto_learn([text])
    assert v.verdict == "ham" and (f.table_.n_ham == 5) == learnt
    assert f.learns(f.clues(text, unused=False)) == learnt


def test_choose_cutoffs_hits_the_target_on_held_out_folds() -> None:
    ham = [
        f"Subject: notes {i}\n\nminutes of meeting {i} and the agenda".encode() for i in range(20)
    ]
    spam = [f"Subject: offer {i}\n\ncheap pills offer {i} click now".encode() for i in range(20)]
    f = SpamFilter()
    choice = choose_cutoffs(f, ham + spam, ["ham"] * 20 + ["spam"] * 20, ham_loss=0.0)
    assert choice.ham_lost == 0.0 and 0.0 <= choice.ham_cutoff <= choice.spam_cutoff <= 1.0
    assert f.ham_cutoff is None  # not changed until applied
    choice.apply(f)
    assert f.effective_params_.spam_cutoff == choice.spam_cutoff
    with pytest.raises(ValueError, match="at least 5 messages of each class"):
        choose_cutoffs(f, HAM + SPAM, LABELS)


@pytest.mark.parametrize("preset", ["bogofilter", "spambayes"])
def test_spamicity_stays_in_0_1_however_strong_the_clues(preset: str) -> None:
    # (1 + H - S) / 2 <= 1, but its logarithm's sums rounded a few ulps above 0: 1.0000000000000262
    spam_words = [f"spamword{i}" for i in range(400)]
    ham_words = [f"hamword{i}" for i in range(400)]
    spam = [("Subject: s\n\n" + " ".join(spam_words[j::3])).encode() for j in range(3)]
    ham = [("Subject: h\n\n" + " ".join(ham_words[j::3])).encode() for j in range(3)]
    f = SpamFilter(preset=preset, max_clues=0).fit(ham + spam, ["ham"] * 3 + ["spam"] * 3)
    probes = [("Subject: s\n\n" + " ".join(spam_words[:n])).encode() for n in range(50, 401, 7)]
    probes += [("Subject: h\n\n" + " ".join(ham_words[:n])).encode() for n in range(50, 401, 7)]
    assert ((f.spamicity(probes) >= 0.0) & (f.spamicity(probes) <= 1.0)).all()
    assert (f.predict_proba(probes) >= 0.0).all()
    for k in range(1, 300, 7):
        for p in (0.9, 0.95, 0.99, 0.999):
            log_spam, log_ham = fisher_log_scores(k * math.log(p), k * math.log1p(-p), k)
            assert log_spam <= 0.0 and log_ham <= 0.0


def test_choose_cutoffs_meets_its_targets_at_ties_and_after_the_round_trip(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # held-out log-odds: a ham whose sigmoid and back loses a few ulps (a cutoff taken as the
    # sigmoid of the next float up sent it to spam), and ten spam tied at 0 (no clues: the
    # ham cutoff was the sigmoid of the float below 0, which is 1/2, and let them through)
    ham = [f"Subject: notes\n\nminutes id{i}".encode() for i in range(20)]
    spam = [f"Subject: offer\n\ncheap pills id{20 + i}".encode() for i in range(20)]
    z = 1.1803378356750316
    scores = [z] + [-5.0 - i for i in range(19)] + [0.0] * 10 + [5.0 + i for i in range(10)]

    def classify(self: SpamFilter, sets: list[frozenset[str]]) -> list[Verdict]:
        ids = [int(next(t for t in s if t.startswith("id"))[2:]) for s in sets]
        return [Verdict("unsure", 0.5, scores[i]) for i in ids]

    monkeypatch.setattr(SpamFilter, "classify", classify)
    labels = ["ham"] * 20 + ["spam"] * 20
    choice = choose_cutoffs(SpamFilter(), ham + spam, labels, ham_loss=0.0, spam_passed=0.0)
    assert (choice.ham_lost, choice.spam_passed) == (0.0, 0.0)
    monkeypatch.undo()
    f = choice.apply(SpamFilter().fit(HAM + SPAM, LABELS))
    decide = f._decide()
    verdicts = [decide((lo, 0.0)).verdict for lo in scores]
    assert verdicts == ["unsure"] + ["ham"] * 19 + ["unsure"] * 10 + ["spam"] * 10
    # each cutoff midway between the last message on its side and the first beyond
    assert logit(choice.spam_cutoff) == pytest.approx((z + 5.0) / 2, abs=1e-12)
    assert logit(choice.ham_cutoff) == pytest.approx(-2.5, abs=1e-12)


def test_cutoffs_for_a_ham_loss_spend_no_more_of_it_than_the_spam_caught_needs() -> None:
    # a loss of 2 ham allowed: a cutoff just above the third ham (1.0) loses the two above
    # it (1.5, 2.0), where a cutoff between 2.0 and the lowest spam caught (3.0) catches
    # the same spam and loses none; an equal gap on the ham side for spam_passed
    from nbayes.spam._cutoffs import cutoffs_of_scores

    ham = [2.0, 1.5, 1.0] + [-4.0 - i for i in range(97)]
    spam = [-3.5, -3.2, -3.0] + [3.0 + i for i in range(97)]
    c = cutoffs_of_scores(ham, spam, 0.02, 0.02)
    assert (c.ham_lost, c.spam_passed) == (0.0, 0.0)
    assert logit(c.spam_cutoff) == pytest.approx(2.5)
    assert logit(c.ham_cutoff) == pytest.approx(-3.75)
    # as the old rule did: the ham lost and spam passed it allowed, catching no more
    lo_spam = logit(_cutoff_above(1.0))
    assert sum(z >= lo_spam for z in ham) == 2
    assert sum(z >= lo_spam for z in spam) == sum(z >= logit(c.spam_cutoff) for z in spam)
    # a gap no cutoff can split keeps the spam caught: the ham next to it goes with it
    c = cutoffs_of_scores([1.0, 0.0], [math.nextafter(1.0, 2.0), 5.0], 0.5, 0.0)
    assert c.spam_cutoff == _cutoff_above(0.0) and c.ham_lost == 0.5
    # no spam above the threshold: above every ham, none lost
    c = cutoffs_of_scores([3.0, 1.0], [0.5, 0.2], 0.5, 0.0)
    assert c.ham_lost == 0.0 and logit(c.spam_cutoff) > 3.0


@given(st.floats(allow_nan=False))
def test_the_cutoffs_of_a_log_odds_are_the_nearest_floats_on_each_side(z: float) -> None:
    above, below = _cutoff_above(z), _cutoff_below(z)
    if above < 1.0:
        assert logit(math.nextafter(above, 0.0)) <= z < logit(above)
    if below > 0.0:
        assert logit(below) < z <= logit(math.nextafter(below, 1.0))


def test_the_tokenizer_s_options_are_nested_parameters() -> None:
    """``tokenizer__bigrams`` and the other MailTokenizer options, as scikit-learn names a
    nested estimator's parameters: a grid search over them (before, "Invalid parameter")."""
    from sklearn.base import clone
    from sklearn.model_selection import GridSearchCV

    f = SpamFilter()
    assert "tokenizer__bigrams" not in f.get_params()  # the default recipe: none to show
    f.set_params(tokenizer__bigrams=False, s=0.2)
    assert f.tokenizer == MailTokenizer(bigrams=False) and f.s == 0.2
    params = f.get_params()
    assert params["tokenizer__bigrams"] is False and params["tokenizer__min_length"] == 3
    assert "tokenizer__bigrams" not in f.get_params(deep=False)
    g = clone(f).set_params(**params)  # the round trip scikit-learn makes
    assert g.get_params() == params and repr(g) == repr(f)
    with pytest.raises(ValueError, match=r"tokenizer__<option> for the options of MailTokenizer"):
        f.set_params(tokenizer__no_such_option=1)
    with pytest.raises(ValueError, match="max_length"):  # checked as MailTokenizer checks
        f.set_params(tokenizer__max_length=1)
    search = GridSearchCV(
        SpamFilter(), {"tokenizer__bigrams": [True, False], "s": [0.1, 0.3]}, cv=2
    )
    search.fit(HAM + SPAM, LABELS)
    assert len(search.cv_results_["params"]) == 4
    assert search.best_estimator_.tokenizer.bigrams == search.best_params_["tokenizer__bigrams"]


def test_numpy_scalars_are_settings_as_their_python_values(tmp_path: Path) -> None:
    # a GridSearchCV over np.arange / np.linspace sets numpy scalars
    f = SpamFilter(max_clues=np.int64(5), same_counts_min=np.int32(3), s=np.float32(0.25),
                   spam_cutoff=np.float64(0.95), tile_bigrams=np.False_,
                   min_learned=np.uint8(1))  # fmt: skip
    f.fit(HAM + SPAM, LABELS)
    g = SpamFilter(max_clues=5, same_counts_min=3, s=float(np.float32(0.25)), spam_cutoff=0.95,
                   tile_bigrams=False, min_learned=1).fit(HAM + SPAM, LABELS)  # fmt: skip
    assert f.effective_params_ == g.effective_params_
    assert f.decision_function(HAM + SPAM).tolist() == g.decision_function(HAM + SPAM).tolist()
    nbayes.save(f, tmp_path / "f.nbm")  # (JSON has no numpy scalars)
    assert nbayes.load(tmp_path / "f.nbm").get_params()["max_clues"] == 5
    with pytest.raises(ValueError, match="'max_clues' parameter of SpamFilter must be an int"):
        SpamFilter(max_clues=np.float64(5.0)).fit(HAM + SPAM, LABELS)
    from fractions import Fraction  # (a number a model file cannot store: refused up front)

    for number in (Fraction(1, 2), np.longdouble(0.5)):
        with pytest.raises(ValueError, match="'s' parameter of SpamFilter must be a float"):
            SpamFilter(s=number).fit(HAM + SPAM, LABELS)
    for labels in ((0, True), (False, True), (np.False_, np.True_)):
        with pytest.raises(ValueError, match="two distinct str or two distinct int"):
            SpamFilter(labels=labels).fit(HAM + SPAM, [labels[0]] * 4 + [labels[1]] * 4)


def test_a_set_of_tokens_that_are_no_str_is_refused_and_nothing_learnt() -> None:
    f = trained()
    before = f.table_.n_spam, len(f.table_)
    for bad in (frozenset({"ok", 1}), {b"bytes"}):
        with pytest.raises(TypeError, match=r"message 1 is a set of tokens, whose tokens are str"):
            f.partial_fit([frozenset({"fine"}), bad], ["spam", "spam"])
        with pytest.raises(TypeError, match="whose tokens are str"):
            f.classify([bad])
    assert (f.table_.n_spam, len(f.table_)) == before


def test_messages_of_the_wrong_shape_get_advice() -> None:
    import pandas as pd

    frame = pd.DataFrame({"raw": HAM + SPAM})  # (it iterates its column names: one message)
    for bad, says in (
        (None, "got NoneType None"),
        (5, "got int 5"),
        (frame, r"got a DataFrame of columns \['raw'\]: give its column of messages"),
        (np.array(HAM + SPAM, dtype=object).reshape(-1, 1), r"shape \(8, 1\): give a 1-D one"),
    ):
        with pytest.raises(TypeError, match="messages must be a list .*" + says):
            SpamFilter().fit(bad, LABELS)
        with pytest.raises(TypeError, match=says):
            trained().predict(bad)
    assert SpamFilter().fit(frame["raw"], LABELS).predict(frame["raw"]).shape == (8,)


def test_int_labels_serve_scikit_learns_helpers_that_encode_them(tmp_path: Path) -> None:
    # VotingClassifier, StackingClassifier and cross_val_predict(method="predict_proba")
    # fit on LabelEncoder's 0 and 1: "unknown label 0", and labels=(0, 1) was refused
    from sklearn.ensemble import VotingClassifier
    from sklearn.model_selection import cross_val_predict

    X, y = HAM + SPAM, LABELS
    with pytest.raises(ValueError, match=r"unknown label 0: .* labels=\(0, 1\)"):
        SpamFilter().fit(X, [0] * 4 + [1] * 4)
    proba = cross_val_predict(SpamFilter(labels=(0, 1)), X, y, cv=2, method="predict_proba")
    assert proba.shape == (8, 2) and ((proba >= 0) & (proba <= 1)).all()
    vote = VotingClassifier(
        [("a", SpamFilter(labels=(0, 1))), ("b", SpamFilter(preset="spambayes", labels=(0, 1)))],
        voting="soft",
    ).fit(X, y)
    assert list(vote.predict(X)) == y
    f = SpamFilter(labels=(np.int64(0), 1)).fit(X, [0] * 4 + [1] * 4)
    assert f.classes_.tolist() == [0, 1] and list(f.predict(X)) == [0] * 4 + [1] * 4
    nbayes.save(f, tmp_path / "f.nbm")
    g = nbayes.load(tmp_path / "f.nbm")
    assert g.get_params()["labels"] == (0, 1)
    assert g.spamicity(X).tolist() == f.spamicity(X).tolist()
    with pytest.raises(ValueError, match="two distinct str or two distinct int"):
        SpamFilter(labels=("ham", 1)).fit(X, y)


@pytest.mark.parametrize("big", [False, True])
def test_a_str_that_names_a_file_is_read_as_text_with_a_warning(tmp_path: Path, big: bool) -> None:
    # a column of file names given as messages was learnt as the names, and a spam file
    # given by its name scored "ham 0.078", without a word; the warning comes once a call,
    # with one text (nbayes serve ignores it: its clients' texts are texts). ``big``: the
    # compiled scoring of a large table
    from nbayes.exceptions import PathAsTextWarning

    path = tmp_path / "one.eml"
    path.write_bytes(SPAM[0])
    f = trained()
    if big:
        f.partial_fit([{f"t{i}" for i in range(SpamFilter._INDEXED_ROWS)}], ["ham"])
    with pytest.warns(PathAsTextWarning, match=r"to learn is a str that names a file") as seen:
        f.partial_fit([str(path), str(path)], ["spam", "spam"])
    assert len(seen) == 1 and seen[0].filename == __file__  # (the caller's line)
    with pytest.warns(PathAsTextWarning, match=r"to score is a str .* pathlib.Path") as seen:
        f.classify([str(path), SPAM[0].decode(), str(path)])
    assert len(seen) == 1 and seen[0].filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f.classify([SPAM[0].decode(), "no such file here", str(tmp_path)])
        f.partial_fit([path, "no such file here", str(tmp_path)], ["spam"] * 3)


def test_partial_fit_takes_classes_as_scikit_learns_incremental_estimators() -> None:
    # a loop written for any incremental estimator: partial_fit(X, y, classes=...)
    f = SpamFilter()
    for i in range(0, 8, 2):
        f.partial_fit((HAM + SPAM)[i : i + 2], LABELS[i : i + 2], classes=np.array(["spam", "ham"]))
    assert f.table_ == SpamFilter().fit(HAM + SPAM, LABELS).table_
    with pytest.raises(
        ValueError, match=r"classes=\[0, 1\]: a SpamFilter's classes are its labels"
    ):
        f.partial_fit(HAM, ["ham"] * 4, classes=[0, 1])
    assert SpamFilter(labels=(0, 1)).partial_fit(
        HAM, [0] * 4, classes=[0, 1]
    ).classes_.tolist() == [0, 1]


def test_a_memoryview_is_a_message_as_its_bytes() -> None:
    f = trained()
    assert f.classify([memoryview(SPAM[0])]) == f.classify([SPAM[0]])
    assert f.clues(memoryview(SPAM[0])).verdict == f.clues(SPAM[0]).verdict


# ---------------------------------------------------------------------- model files
def test_sum_of_filters_merges_them() -> None:
    ham = [b"Subject: lunch\n\nnoon", b"Subject: notes\n\nthe meeting notes"]
    spam = [b"Subject: win\n\nfree cash now", b"Subject: pills\n\ncheap pills"]
    parts = [SpamFilter().fit([h, s], ["ham", "spam"]) for h, s in zip(ham, spam, strict=True)]
    total = sum(parts)
    assert total.table_ == SpamFilter().fit(ham + spam, ["ham", "ham", "spam", "spam"]).table_
    assert (parts[0].table_.n_ham, parts[0].table_.n_spam) == (1, 1)  # (unchanged)
    with pytest.raises(TypeError):
        sum(parts, 1)


def test_merge_returns_a_new_filter_as_every_model_s_does() -> None:
    # before, SpamFilter.merge added the other's counts to itself (the other models'
    # merge returns a new model and changes neither)
    ham = [b"Subject: lunch\n\nnoon", b"Subject: notes\n\nthe meeting notes", b"hi there"]
    spam = [b"Subject: win\n\nfree cash now", b"Subject: pills\n\ncheap pills", b"win"]
    parts = [SpamFilter().fit([h, s], ["ham", "spam"]) for h, s in zip(ham, spam, strict=True)]
    before = [p.table_.copy() for p in parts]
    merged = parts[0].merge(parts[1], parts[2])
    assert merged.table_ == SpamFilter().fit(ham + spam, ["ham"] * 3 + ["spam"] * 3).table_
    assert [p.table_ for p in parts] == before and merged is not parts[0]
    assert (parts[0] + parts[1]).table_ == parts[0].merge(parts[1]).table_
    with pytest.raises(TypeError, match="can only merge a SpamFilter"):
        parts[0].merge(parts[1], "not a filter")  # type: ignore[arg-type]


def test_save_load_merge_round_trip(tmp_path: Path) -> None:
    f = SpamFilter(s=0.3, tokenizer=MailTokenizer(received=True), labels=("good", "bad"))
    f.fit(HAM + SPAM, ["good"] * 4 + ["bad"] * 4)
    f.partial_fit(["Subject: caf\xe9\n\nna\udcffve surrogate"], ["good"])
    path = tmp_path / "spam.nbm"
    nbayes.save(f, path)
    g = nbayes.load(path)
    assert type(g) is SpamFilter and g.get_params() == f.get_params()
    assert g.table_ == f.table_
    probe = HAM + SPAM
    assert g.spamicity(probe).tolist() == f.spamicity(probe).tolist()
    assert (g + f).table_.n_ham == 2 * f.table_.n_ham
    assert pickle.loads(pickle.dumps(f)).table_ == f.table_
    with pytest.raises(ValueError, match="tokenize differently"):
        f.merge(trained())


def test_a_model_file_of_an_earlier_version_scores_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from nbayes.io.serializers.spam import load_spam_scorer

    old_recipe = MailTokenizer(message_id=False, header_counts=False)
    f = SpamFilter(tokenizer=old_recipe).fit(HAM + SPAM, LABELS)
    f.tokenizer = None  # the default hyperparameter, as earlier files stored it
    path = tmp_path / "old.nbm"  # its recipe without message_id and header_counts
    save_as_earlier(f, path, monkeypatch, MailTokenizer, "to_dict", "message_id", "header_counts")
    g = nbayes.load(path)
    assert g.tokenizer_ == old_recipe and g.table_ == f.table_
    probe = [*HAM, *SPAM, b"Message-ID: <1@x.example>\nSubject: offer\n\nclick here now"]
    assert g.classify(probe) == f.classify(probe)
    scorer = load_spam_scorer(path)
    assert scorer is not None and scorer.classify(probe) == f.classify(probe)
    assert not any(t.startswith("message-id:") for t, _, _ in g.table_.rows())


def test_a_damaged_model_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "spam.nbm"
    nbayes.save(trained(), path)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(ModelFileError):
        nbayes.load(path)


# ---------------------------------------------------------------------- real mail
def _corpus() -> Path | None:
    here = Path(__file__).resolve()
    for base in (
        os.environ.get("NBAYES_SHARED"),
        here.parents[3] / "shared",
        here.parents[2] / ".." / "shared",
        Path("/work/shared"),
    ):
        if base and (Path(base) / "data" / "spamassassin_public" / "index.tsv").is_file():
            return Path(base) / "data" / "spamassassin_public"
    return None


def test_a_slice_of_the_spamassassin_corpus() -> None:
    root = _corpus()
    if root is None:
        pytest.skip("the shared data (spamassassin_public) is not beside this checkout")
    rows = [line.split("\t") for line in (root / "index.tsv").read_text().splitlines()[1:]]
    ham = [r for r in rows if r[2] == "ham"][::40][:80]
    spam = [r for r in rows if r[2] == "spam"][::20][:80]
    train = ham[:60] + spam[:60]
    test = ham[60:] + spam[60:]
    f = SpamFilter().fit([root / r[1] for r in train], [r[2] for r in train])
    verdicts = f.predict([root / r[1] for r in test])
    truth = [r[2] for r in test]
    lost = sum(v == "spam" and t == "ham" for v, t in zip(verdicts, truth, strict=True))
    passed = sum(v == "ham" and t == "spam" for v, t in zip(verdicts, truth, strict=True))
    unsure = sum(v == "unsure" for v in verdicts)
    assert lost == 0 and passed <= 3 and unsure <= 12, (lost, passed, unsure)


def test_the_lean_scorer_answers_as_the_filter(tmp_path: Path) -> None:
    from nbayes.io.serializers.spam import load_spam_scorer

    f = trained()
    f.partial_fit(["Subject: caf\xe9 \u65e5\u672c\n\nna\udcffve \u00e9t\u00e9 prix"], ["ham"])
    path = tmp_path / "spam.nbm"
    nbayes.save(f, path)
    scorer = load_spam_scorer(path)
    assert scorer is not None and len(scorer) == len(f.table_)
    probe = [*HAM, *SPAM, b"Subject: nothing known\n\nzzz qqq", "caf\xe9 \u00e9t\u00e9 prix"]
    assert scorer.classify(probe) == f.classify(probe)
    assert scorer.predict(probe).tolist() == f.predict(probe).tolist()
    assert scorer.clues(SPAM[0]) == f.clues(SPAM[0])
    other = tmp_path / "nb.nbm"
    nbayes.save(nbayes.MultinomialNB().fit([[1, 0], [0, 1]], [0, 1]), other)
    assert load_spam_scorer(other) is None


def test_classify_many_takes_minus_one_for_every_usable_core(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """n_jobs=-1 as classify_each and fit_stream take it, and the same error for a count
    none of them takes."""
    from nbayes.spam import _bulk, classify_each, classify_many

    f = trained()
    probe = (HAM + SPAM) * 5
    monkeypatch.setattr(_bulk, "usable_cores", lambda: 2)  # (what -1 stands for)
    assert list(classify_many(f, probe, n_jobs=-1, chunk_size=7)) == f.classify(probe)
    want = "n_jobs must be an int >= 1, or -1 for every usable core; got -2"
    with pytest.raises(ValueError, match=re.escape(want)):
        list(classify_many(f, probe, n_jobs=-2))
    with pytest.raises(ValueError, match=re.escape(want)):
        list(classify_each(f, probe, n_jobs=-2))
    with pytest.raises(ValueError, match=re.escape(want)):
        SpamFilter().fit_stream(zip(HAM, ["ham"] * len(HAM), strict=True), n_jobs=-2)


def test_classify_many_keeps_order_on_two_processes() -> None:
    from nbayes.spam import classify_many

    f = trained()
    probe = (HAM + SPAM) * 20
    assert list(classify_many(f, probe, n_jobs=2, chunk_size=7)) == f.classify(probe)
    # a list is read by the workers from their copy (the chunks' bounds sent), any other
    # iterable sent chunk by chunk: the same verdicts in the same order
    assert list(classify_many(f, tuple(probe), n_jobs=2, chunk_size=300)) == f.classify(probe)
    assert list(classify_many(f, iter(probe), n_jobs=2, chunk_size=7)) == f.classify(probe)
    assert list(classify_many(f, iter(probe), n_jobs=1)) == f.classify(probe)
    assert list(classify_many(f, [], n_jobs=2)) == []
    with pytest.raises(ValueError, match="n_jobs"):
        list(classify_many(f, probe, n_jobs=0))
    # the default chunks: of a list, 512 at most, the last ones smaller
    many = probe * 30  # (1,200 messages)
    assert list(classify_many(f, many, n_jobs=2)) == f.classify(many)
    for bad in (0, True, 2.5):
        with pytest.raises(ValueError, match="chunk_size must be an int >= 1 or None"):
            list(classify_many(f, probe, n_jobs=2, chunk_size=bad))  # type: ignore[arg-type]


def test_fit_stream_equals_fit_and_is_all_or_nothing(tmp_path: Path) -> None:
    from nbayes.mail import iter_classes

    for label, msgs in (("ham", HAM), ("spam", SPAM)):
        (tmp_path / label).mkdir()
        for i, m in enumerate(msgs):
            (tmp_path / label / f"{i}.eml").write_bytes(m)
    f = SpamFilter().fit_stream(iter_classes(tmp_path), chunk_size=3)
    assert f.table_ == trained().table_
    g = trained().partial_fit_stream(iter_classes(tmp_path))
    assert g.table_ == SpamFilter().fit(HAM + SPAM + HAM + SPAM, LABELS + LABELS).table_

    def broken():  # type: ignore[no-untyped-def]
        yield HAM[0], "ham"
        yield 42, "ham"

    before = f.table_.copy()
    with pytest.raises(TypeError, match="got int"):
        f.partial_fit_stream(broken(), chunk_size=1)
    assert f.table_ == before
    with pytest.raises(TypeError, match=r"\(message, label\) pairs"):
        f.fit_stream([HAM[0]])  # type: ignore[list-item]
    assert f.table_ == before


@settings(max_examples=40, deadline=None)
@given(CORPUS, st.sampled_from(["nbayes", "bogofilter", "spambayes"]))
def test_the_inlined_f_is_robinson_f_bit_for_bit(corpus: list, preset: str) -> None:
    from nbayes.spam import robinson_f

    sets, labels = [m for m, _ in corpus], [y for _, y in corpus]
    f = SpamFilter(preset=preset, min_dev=0.0).fit(sets, labels)
    st_, t = f._settings(), f.table_
    tokens = [f"t{i}" for i in range(14)]  # t12, t13: never seen
    got = {clue[1]: clue[2] for clue in f._clue_values(tokens)}
    for token in tokens:
        g, b = t.counts(token)
        want = robinson_f(g, b, t.n_ham, t.n_spam, st_.s, st_.x, st_.smoothing)
        assert token not in got or got[token] == want


def test_the_fit_tokenizer_is_kept_when_the_parameter_changes(tmp_path: Path) -> None:
    f = trained(tokenizer=MailTokenizer(bigrams=False))
    before = f.classify(SPAM)
    f.set_params(tokenizer=MailTokenizer(received=True))
    assert f.tokenizer_ == MailTokenizer(bigrams=False)
    assert f.classify(SPAM) == before
    f.partial_fit(HAM[:1], ["ham"])
    assert not any(t.startswith("bi:") for t, _, _ in f.table_.rows())
    nbayes.save(f, tmp_path / "m.nbm")
    g = nbayes.load(tmp_path / "m.nbm")
    assert g.tokenizer_ == f.tokenizer_ and g.tokenizer == MailTokenizer(received=True)
    f.fit(HAM, ["ham"] * 4)  # a new fit takes the parameter
    assert f.tokenizer_ == MailTokenizer(received=True)


def test_setting_a_hyperparameter_directly_takes_effect() -> None:
    f = trained()
    probe = [b"Subject: cheap offer\n\nclick here now for the best price on pills"]
    assert f.predict(probe).tolist() == ["spam"]
    f.spam_cutoff = 1.0  # not through set_params
    assert f.predict(probe).tolist() == ["unsure"]
    before = f.spamicity(probe)
    f.s = 5.0
    assert f.spamicity(probe) != before


def _python_log_scores(f: SpamFilter, tokens: frozenset[str]) -> tuple[float, float]:
    """The verdict's scores from the Python reading of the clues (``_clue_values``, every
    clue tiled and merged: asked for the tiled-out bigrams, it takes no shortcut): given the
    clues, ``_log_scores`` combines them in Python, without the compiled kernel. The
    kernel's records of the clues and ``_clue_values``' shortened reading are checked
    against it on the way."""
    full = f._clue_values(tokens, set())
    assert sorted(f._clue_values(tokens)) == sorted(full)
    records = f._clue_records(tokens)
    assert records is not None and sorted(records) == sorted(full)
    return f._log_scores(tokens, full)


@settings(max_examples=60, deadline=None)
@given(
    CORPUS,
    st.sampled_from(["nbayes", "bogofilter", "spambayes"]),
    st.sampled_from([None, 0, 1, 2, 3]),
    st.sampled_from([0.0, 0.1, 0.4]),
    st.sampled_from([None, 0, 2, 3]),
)
def test_the_compiled_clues_are_the_python_clues_bit_for_bit(
    corpus: list, preset: str, max_clues: int | None, min_dev: float, same: int | None
) -> None:
    # max_clues of 1-3 over tokens of equal counts: the choice among ties is the token's;
    # same_counts_min 2-3 merges many (the token kept for each counts is the greatest)
    sets, labels = [m for m, _ in corpus], [y for _, y in corpus]
    f = SpamFilter(preset=preset, max_clues=max_clues, min_dev=min_dev, same_counts_min=same)
    f.fit(sets, labels)
    probes = [*PROBE, frozenset(f"t{i}" for i in range(14)), frozenset()]
    for tokens in probes:
        assert f._clue_logs(tokens) is not None
        assert f._log_scores(tokens) == _python_log_scores(f, tokens)


_WORDS = ["a", "b", "ab", "ab\x01", "ab~", "", "İ", "é", "🎉", "bi:", "b c"]
BIGRAM_TOKENS = st.frozensets(
    st.one_of(
        st.builds(lambda x, y: f"bi:{x} {y}", st.sampled_from(_WORDS), st.sampled_from(_WORDS)),
        st.sampled_from(["a", "ab", "bi:a", "bi:", "bi: ", "subject:bi:a b"]),
    ),
    max_size=10,
)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.tuples(BIGRAM_TOKENS, st.sampled_from(["ham", "spam"])), min_size=2, max_size=20),
    st.lists(BIGRAM_TOKENS, min_size=1, max_size=4),
    st.sampled_from([None, 1, 2, 3]),
    st.sampled_from([0, 2]),
)
def test_the_compiled_tiling_is_the_python_tiling_bit_for_bit(
    corpus: list, probes: list, max_clues: int | None, same: int
) -> None:
    # bigrams sharing words of every storage width, words that are prefixes of others
    # ("ab", "ab\x01", "ab~"), empty words, a second word with a space, tokens that start
    # with "bi:" but are no bigram: the kernel tiles as _tiled does
    sets, labels = [m for m, _ in corpus], [y for _, y in corpus]
    f = SpamFilter(min_dev=0.0, max_clues=max_clues, same_counts_min=same).fit(sets, labels)
    assert f.effective_params_.tile_bigrams
    for tokens in probes:
        assert f._clue_logs(tokens) is not None
        assert f._log_scores(tokens) == _python_log_scores(f, tokens)


def test_the_compiled_clues_on_a_slice_of_the_corpus() -> None:
    root = _corpus()
    if root is None:
        pytest.skip("the shared data (spamassassin_public) is not beside this checkout")
    rows = [line.split("\t") for line in (root / "index.tsv").read_text().splitlines()[1:]]
    rows = rows[::15]  # 404 messages, in the protocol's order
    f = SpamFilter()
    sets = [f.tokenize(root / r[1]) for r in rows]
    labels = [r[2] for r in rows]
    f.fit(sets[:2], labels[:2])
    for i in range(2, len(sets)):  # every model size of the protocol, one class empty first
        assert f._log_scores(sets[i]) == _python_log_scores(f, sets[i]), rows[i][1]
        f.partial_fit([sets[i]], [labels[i]])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF)), max_size=30, unique=True
    )
)
def test_a_model_file_s_tokens_unpack_as_they_were_packed(tokens: list[str]) -> None:
    # the tokens of a model file, one blob of UTF-8 (surrogates kept) cut at byte offsets,
    # kept packed by the table (empty tokens, 4-byte characters): the same tokens back
    from array import array

    encoded = [t.encode("utf-8", "surrogatepass") for t in tokens]
    offsets = np.cumsum([0, *map(len, encoded)], dtype=np.int64)
    zeros = array("q", [1] * len(tokens))
    table = TokenTable.from_packed(b"".join(encoded), offsets, zeros, array("q", zeros), 1, 1)
    assert table.row_tokens == tokens
    assert [table.row(t) for t in tokens] == list(range(len(tokens)))


def test_an_empty_message_has_no_token_and_is_unsure(saved: Path, tmp_path: Path) -> None:
    """No evidence either way: bogofilter's 0.5 (it was ham 0.065 from the tokens of its
    missing headers, which the ham bias of two clues pushed down), in the library, the file's
    scorer and the whole filter alike; white space only is as empty."""
    from nbayes.io.serializers.spam_scorer import load_spam_scorer

    empty = tmp_path / "empty.eml"
    empty.write_bytes(b"")
    f = nbayes.load(saved)
    scorer = load_spam_scorer(saved)
    assert scorer is not None
    for message in (b"", "", b"\n\n", b" \n \n", b"\t", EmailMessage(), empty):
        assert f.tokenize(message) == frozenset()
        for combining in ("chi2", "mean"):
            f.set_params(combining=combining)
            v = f.classify([message])[0]
            assert (v.verdict, v.spamicity, v.log_odds) == ("unsure", 0.5, 0.0)
        assert scorer.classify([message])[0].spamicity == 0.5
        assert len(f.clues(message).used()) == 0
    # what has a header, or a body, is not empty
    assert f.tokenize(b"Subject: x\n\n")
    assert "hello" in f.tokenize(b"\n\nhello")


def test_compare_settings_holds_out_each_fold_exactly() -> None:
    """Each fold's messages are scored by the filter trained on the other folds (counts
    subtracted, not a fit again), for every setting; a tokenizer is no scoring setting."""
    from nbayes.spam import caught_at_ham_loss, compare_settings, verdict_report
    from nbayes.spam._cutoffs import _stratified_folds

    ham = [f"Subject: n{i}\n\nmeeting notes {i} budget team {i % 3}".encode() for i in range(15)]
    spam = [f"Subject: o{i}\n\ncheap offer {i} pills cash {i % 4}".encode() for i in range(9)]
    spam += [b"Subject: budget\n\nmeeting budget team notes"]  # a spam that reads as ham
    messages, labels = ham + spam, ["ham"] * 15 + ["spam"] * 10
    grid = [{}, {"combining": "mean", "preset": "bogofilter"}]
    scores, fitted = compare_settings(SpamFilter(), messages, labels, grid, cv=5)
    assert (fitted.table_.n_ham, fitted.table_.n_spam) == (15, 10)
    flags = [y == "spam" for y in labels]
    for setting, score in zip(grid, scores, strict=True):
        z, verdicts = [0.0] * 25, [""] * 25
        for fold in _stratified_folds(flags, 5, 0):
            rest = [i for i in range(25) if i not in fold]
            f = SpamFilter(**setting).fit([messages[i] for i in rest], [labels[i] for i in rest])
            for i, v in zip(fold, f.classify([messages[i] for i in fold]), strict=True):
                z[i], verdicts[i] = v.log_odds, v.verdict
        assert score.caught == tuple(caught_at_ham_loss(z, labels))
        assert score.report == verdict_report(labels, verdicts)
    with pytest.raises(ValueError, match="'tokenizer' is not a scoring setting"):
        compare_settings(SpamFilter(), messages, labels, [{"tokenizer": MailTokenizer()}])
    with pytest.raises(ValueError, match="needs at least 11 messages of each class"):
        compare_settings(SpamFilter(), messages, labels, [{}], cv=11)


_SCORE = st.one_of(
    st.integers(-5, 5).map(float),
    st.sampled_from([math.inf, -math.inf, 36.7368005696771, 35.6, 35.9, 36.5, 800.0, -745.0]),
    st.floats(30, 40),
    st.floats(-1e3, 1e3, allow_nan=False),
)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(_SCORE, min_size=1, max_size=12),
    st.lists(_SCORE, min_size=1, max_size=12),
    st.sampled_from([0.0, 0.1, 0.25, 0.34, 0.5, 0.9]),
    st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.9]),
)
@example([35.5, 35.0], [36.0], 0.5, 0.0)  # a cutoff parts them near spamicity 1: no ham lost
@example(
    [-34.26613219501175, 37.331399908342654, 1.0, 35.9],
    [421.0014971399471, 36.7368005696771],
    0.9,
    0.9,
)  # equal cutoffs: spam asked first
def test_cutoffs_for_a_ham_loss_against_the_verdicts_they_give(
    ham: list[float], spam: list[float], ham_loss: float, spam_passed: float
) -> None:  # fmt: skip
    """Against the rule they replace (just above the (k+1)-th ham, just below the
    (k+1)-th spam) and the verdicts of a filter with these cutoffs: the same spam caught,
    no more ham lost nor spam passed than that rule nor than the budgets, and the shares
    reported are the verdicts' (a review's property test, 20,000 cases each)."""
    from nbayes.spam._cutoffs import cutoffs_of_scores

    def verdicts(scores: list[float], ham_cut: float, spam_cut: float) -> list[str]:
        lo_ham, lo_spam = logit(ham_cut), logit(spam_cut)  # as SpamFilter._decide
        return ["spam" if z >= lo_spam else "ham" if z <= lo_ham else "unsure" for z in scores]

    c = cutoffs_of_scores(ham, spam, ham_loss, spam_passed)
    k_ham = int(math.floor(ham_loss * len(ham) + 1e-9))
    k_spam = int(math.floor(spam_passed * len(spam) + 1e-9))
    old_spam = _cutoff_above(sorted(ham, reverse=True)[k_ham])
    old_ham = min(_cutoff_below(sorted(spam)[k_spam]), old_spam)
    vh, vs = verdicts(ham, c.ham_cutoff, c.spam_cutoff), verdicts(spam, c.ham_cutoff, c.spam_cutoff)
    oh, os_ = verdicts(ham, old_ham, old_spam), verdicts(spam, old_ham, old_spam)
    assert c.ham_cutoff <= c.spam_cutoff
    assert vs.count("spam") == os_.count("spam")
    assert vh.count("spam") <= min(oh.count("spam"), max(k_ham, ham.count(math.inf)))
    assert vs.count("ham") <= min(os_.count("ham"), max(k_spam, spam.count(-math.inf)))
    assert vh.count("ham") >= oh.count("ham")
    assert c.ham_lost == pytest.approx(vh.count("spam") / len(ham), abs=1e-12)
    assert c.spam_passed == pytest.approx(vs.count("ham") / len(spam), abs=1e-12)
    unsure = (vh.count("unsure") + vs.count("unsure")) / (len(ham) + len(spam))
    assert c.unsure == pytest.approx(unsure, abs=1e-12)


def test_a_merge_of_filters_that_score_differently_says_whose_settings_it_keeps() -> None:
    # f + g kept f's settings and g + f g's, without a word (a trial's); and a refusal for
    # other tokenizers printed both recipes whole for the user to compare
    from nbayes.exceptions import NBayesWarning

    f = trained(spam_cutoff=0.99)
    g = trained(preset="bogofilter")
    with pytest.warns(
        NBayesWarning, match=r"keeps this one's .*preset='nbayes' \(not 'bogofilter'\)"
    ) as seen:
        h = f + g
    assert seen[0].filename == __file__ and h.get_params()["preset"] == "nbayes"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        trained() + trained()  # (the same settings: nothing to say)
    other = trained(tokenizer=MailTokenizer(received=True))
    with pytest.raises(ValueError, match=r"differently \(.*\): received=False vs True$"):
        trained() + other
