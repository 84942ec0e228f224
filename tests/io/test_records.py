"""The framed records of the logs beside a model file (journal, pending registrations):
a log cut anywhere, as a crash cuts it, is never taken for damage, and a record damaged
before the last is."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from nbayes.io._records import damaged_after, frame, parse

_values = st.one_of(
    st.none(), st.integers(), st.text(max_size=30), st.lists(st.integers(), max_size=5)
)
_records = st.lists(
    st.dictionaries(st.text(max_size=6), _values, min_size=1, max_size=4),
    min_size=1,
    max_size=6,
)


@settings(max_examples=200, deadline=None)
@given(_records, st.data())
def test_a_log_cut_anywhere_is_a_torn_record_not_damage(
    records: list[dict[str, Any]], data: st.DataObject
) -> None:
    log = b"".join(map(frame, records))
    cut = data.draw(st.integers(0, len(log)))
    intact, ends = parse(log[:cut])
    assert intact == records[: len(intact)]
    assert not damaged_after(log[:cut], ends[-1] if ends else 0)


@settings(max_examples=200, deadline=None)
@given(_records, st.data())
def test_a_damaged_length_before_the_last_record_is_damage(
    records: list[dict[str, Any]], data: st.DataObject
) -> None:
    records = [{"op": "base"}, *records, {"op": "last"}]
    log = bytearray(b"".join(map(frame, records)))
    ends = parse(bytes(log))[1]
    k = data.draw(st.integers(0, len(records) - 2))  # (any record but the last)
    start = ends[k - 1] if k else 0
    log[start + data.draw(st.integers(0, 3))] ^= data.draw(st.integers(1, 255))
    intact, ends = parse(bytes(log))
    assert len(intact) == k
    assert damaged_after(bytes(log), ends[-1] if ends else 0)
