"""Type stubs of nbayes._mail_native, the spam filter's tokenizer kernel
(src/native/bind_mail.cpp)."""

from collections.abc import Iterable
from typing import Any

def words(
    text: str, min_length: int, max_length: int, bigrams: bool, out: set[str] | None, /
) -> list[str]: ...

class TokenStore:
    """A spam filter's tokens by row, packed, and their index (not exported: made by
    token_store())."""

    def rows(self) -> int: ...
    def row(self, token: object, /) -> int: ...
    def token(self, row: int, /) -> str: ...
    def tokens(self, rows: object = None, /) -> list[str]: ...
    def packed(self, rows: object = None, /) -> tuple[bytes, bytes]: ...
    def extend(self, tokens: Iterable[str], /) -> None: ...
    def truncate(self, n: int, /) -> None: ...
    def copy(self) -> TokenStore: ...
    def nbytes(self) -> int: ...

def token_store(blob: object = None, offsets: object = None, /) -> TokenStore: ...
def clue_logs(
    tokens: frozenset[str] | set[str],
    index: dict[str, int] | TokenStore,
    ham: object,
    spam: object,
    n_ham: int,
    n_spam: int,
    s: float,
    x: float,
    c: float,
    min_dev: float,
    max_clues: int,
    same_counts_min: int,
    tile_bigrams: bool,
    records: bool = ...,
    /,
) -> (
    tuple[list[float], list[float]] | list[tuple[float, str, float, float, float, int, int]] | None
): ...
def clue_logs_text(
    tokens: frozenset[str] | set[str],
    text: str,
    min_length: int,
    max_length: int,
    bigrams: bool,
    index: TokenStore,
    ham: object,
    spam: object,
    n_ham: int,
    n_spam: int,
    s: float,
    x: float,
    c: float,
    min_dev: float,
    max_clues: int,
    same_counts_min: int,
    tile_bigrams: bool,
    /,
) -> tuple[list[float], list[float]] | None: ...
def fisher_text(
    tokens: frozenset[str] | set[str],
    text: str,
    min_length: int,
    max_length: int,
    bigrams: bool,
    index: TokenStore,
    ham: object,
    spam: object,
    n_ham: int,
    n_spam: int,
    s: float,
    x: float,
    c: float,
    min_dev: float,
    max_clues: int,
    same_counts_min: int,
    tile_bigrams: bool,
    tail_weight: float,
    ham_bias: float,
    lgamma: object,
    long_words: bool = ...,
    mean: bool = ...,
    /,
) -> tuple[float, float] | None: ...
def head_fields(head: str, /) -> list[tuple[str, str]] | None: ...
def count_bytes(data: bytes, needle: bytes, start: int, end: int, /) -> int: ...
def first_not_headish(data: bytes, /) -> int: ...
def first_non_head_line(data: bytes, start: int, /) -> int: ...
def next_postmark_end(data: bytes, start: int, /) -> int: ...
def strip_mime_lines(data: bytes, /) -> bytes: ...
def strip_tags(markup: str, joins: bool = False, /) -> str: ...
def links(text: str, /) -> list[str]: ...
def split_urls(text: str, lower: str, /) -> tuple[str, list[str]]: ...
def url_tokens(url: str, out: set[str], /) -> None: ...
def message_id_tokens(value: str, out: set[str], /) -> bool: ...
def long_words(words: Iterable[str], out: set[str], prefix: str, /) -> None: ...
def token_hash(data: bytes | memoryview, /) -> int: ...
def token_hashes(blob: bytes, offsets: object, /) -> bytes: ...
def packed_take(blob: object, offsets: object, rows: object, /) -> tuple[bytes, bytes]: ...
def learn_counts(
    store: TokenStore,
    ham: object,
    spam: object,
    messages: Iterable[Iterable[str]],
    is_spam: bool,
    /,
) -> tuple[int, int, int]: ...
def merge_counts(
    store: TokenStore,
    ham: object,
    spam: object,
    other_store: TokenStore,
    other_ham: object,
    other_spam: object,
    /,
) -> int: ...
def scorer_counts(
    tokens: list[str],
    hashes: object,
    offsets: object,
    blob: object,
    ham: object,
    spam: object,
    n_ham: int,
    n_spam: int,
    /,
) -> tuple[list[str], bytes, bytes]: ...
def fields_by_name(
    items: Iterable[tuple[str, Any]], counted: frozenset[str], /
) -> tuple[dict[str, list[Any]], dict[str, int]]: ...
