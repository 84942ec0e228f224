"""Type stubs of nbayes._mail_native, the spam filter's tokenizer kernel
(src/native/bind_mail.cpp)."""

def words(
    text: str, min_length: int, max_length: int, bigrams: bool, out: set[str], /
) -> list[str]: ...
