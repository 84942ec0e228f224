// The scans of a message's head, HTML and URLs that regular expressions (or Python loops)
// did, as linear loops over code points, each giving what its Python reading gives
// (tests/spam/test_mail_markup.py compares them; benchmarks/bench_mail_scans.py times them):
// - head_fields: a message head of well-formed fields split into its (name, value) spans,
//   as nbayes.mail._mime's _SIMPLE_HEAD.fullmatch and _FIELD.findall read it;
// - tag_spans: the tags of HTML that nbayes.mail._html's _TAG.sub(" ", text) replaces,
//   `<[^<>]{0,2000}>`; inline_tag_spans: the inline tags (<b>, <span ...>) that _html's
//   _INLINE.sub("", text) removes before;
// - link_spans: the URLs of an ASCII text's links, as _html's _LINK.findall finds them;
// - url_spans: the URLs of a body's text, as nbayes.mail._tokenizer's split_urls finds
//   them (its _split_urls_reference);
// - url_parts: a URL's scheme, host, domain and path pieces, as _tokenizer's
//   _url_tokens_reference reads them;
// - message_id_parts: a Message-ID's host (digits as 9) and the shape of its left part,
//   as _tokenizer's _message_id_reference reads them;
// - count_bytes: bytes.count of a needle in raw mail (the MIME guards' counts of "--",
//   line ends and ";"), by memchr: CPython's count of "--" read 0.85 GB/s;
// - first_not_headish, first_non_head_line, mime_line_spans: the line scans of raw mail
//   that nbayes.mail._mime's _NOT_HEADISH.search, _NON_HEAD_LINE.search and
//   _MIME_LINE.sub did, holding the GIL (0.3-0.7 s for 10 MB of hostile lines: every
//   other request of `nbayes serve` waited); bound without it;
// - next_postmark_end: an mbox's next postmark, as _mime's _NEXT_POSTMARK.search finds it
//   (its bounded pieces nest: ~100 x 100 steps a line of "d:dd" and "dddd", 4 s a MB).
//
// Plain C++ (no Python.h): bind_mail.cpp binds it to Python.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "mail_words.hpp"  // (is_space: Python's str.isspace)

namespace nbk_mail {

// The non-overlapping occurrences of needle[0:m] (m >= 1) in data[0:n], left to right, as
// Python's bytes.count counts them.
inline std::int64_t count_bytes(const std::uint8_t* data, std::int64_t n, const std::uint8_t* needle,
                                std::int64_t m) {
    std::int64_t count = 0;
    const std::uint8_t* p = data;
    const std::uint8_t* end = data + n;
    while (end - p >= m) {
        const void* hit = std::memchr(p, needle[0], static_cast<std::size_t>(end - p - m + 1));
        if (hit == nullptr) break;
        p = static_cast<const std::uint8_t*>(hit);
        if (m == 1 || std::memcmp(p + 1, needle + 1, static_cast<std::size_t>(m - 1)) == 0) {
            ++count;
            p += m;
        } else {
            ++p;
        }
    }
    return count;
}

struct Field {
    std::int64_t name_start, name_end;    // the name, before its ":"
    std::int64_t value_start, value_end;  // the value: leading spaces and tabs skipped, its
                                          // continuation lines in, the last newline out
};

// A field name's code point: printable ASCII but ":" ([!-9;-~]).
inline bool is_name_char(std::uint32_t c) { return c >= '!' && c <= '~' && c != ':'; }

// The fields of s[0:n] if it is a head of well-formed fields only, every line ending in
// "\n": each a name of is_name_char code points, ":", the rest of its line, then its
// continuation lines (starting with a space or a tab). False (fields unspecified) if a
// line is anything else or the text does not end in "\n". An empty text is a head of no
// fields.
template <class C>
bool head_fields(const C* s, std::int64_t n, std::vector<Field>& fields) {
    std::int64_t i = 0;
    while (i < n) {
        Field f;
        f.name_start = i;
        while (i < n && is_name_char(s[i])) ++i;
        if (i == f.name_start || i >= n || s[i] != ':') return false;
        f.name_end = i++;
        while (i < n && (s[i] == ' ' || s[i] == '\t')) ++i;
        f.value_start = i;
        for (;;) {  // this line, then each continuation line
            while (i < n && s[i] != '\n') ++i;
            if (i >= n) return false;  // (a last line without its newline)
            if (i + 1 < n && (s[i + 1] == ' ' || s[i + 1] == '\t')) {
                ++i;
                continue;
            }
            break;
        }
        f.value_end = i++;
        fields.push_back(f);
    }
    return true;
}

// The [start, end) of each tag in s[0:n], in order: a "<", at most 2000 code points that
// are neither "<" nor ">", and a ">" (re.sub's matches: leftmost, not overlapping).
template <class C>
void tag_spans(const C* s, std::int64_t n, std::vector<std::int64_t>& spans) {
    constexpr std::int64_t kMost = 2000;
    std::int64_t i = 0;
    while (i < n) {
        if (s[i] != '<') {
            ++i;
            continue;
        }
        std::int64_t j = i + 1;  // the first "<" or ">" after it
        while (j < n && s[j] != '<' && s[j] != '>') ++j;
        if (j < n && s[j] == '>' && j - i - 1 <= kMost) {
            spans.push_back(i);
            spans.push_back(j + 1);
            i = j + 1;
        } else {
            // no tag starts at i, nor at any position before j (none holds a "<")
            i = j;
        }
    }
}

// Python's \w on an ASCII code point. (Its \s, on str patterns, is str.isspace: is_space.)
inline bool is_re_word(std::uint32_t c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
inline std::uint32_t ascii_lower(std::uint32_t c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

inline bool is_ascii_letter(std::uint32_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// Whether the ASCII letters s[0:n] are, in either case, the name of an inline element:
// nbayes.mail._html's _INLINE_NAMES.
template <class C>
bool is_inline_name(const C* s, std::int64_t n) {
    static const char* const kNames[] = {
        "a",   "abbr", "b",    "bdi",  "bdo", "big",   "cite", "code",   "del",    "dfn",
        "em",  "font", "i",    "ins",  "kbd", "mark",  "q",    "s",      "samp",   "small",
        "span", "strike", "strong", "sub", "sup", "tt", "u",   "var"};
    if (n > 6) return false;
    for (const char* name : kNames) {
        std::int64_t k = 0;
        while (k < n && name[k] != '\0' &&
               ascii_lower(static_cast<std::uint32_t>(s[k])) == static_cast<std::uint32_t>(name[k]))
            ++k;
        if (k == n && name[k] == '\0') return true;
    }
    return false;
}

// The [start, end) of each inline tag in s[0:n], in order, as nbayes.mail._html's
// _INLINE.sub("", text) finds them (leftmost, not overlapping): "<", an optional "/", an
// inline name in either ASCII case, then ">" at once, or a white space (str.isspace) or
// "/" followed by at most 2000 code points that are neither "<" nor ">" and a ">". The
// pattern's names are letters followed by no letter: the name is the run of ASCII letters
// after "<" or "</". Linear: a scan after a name stops at the next "<" or ">", and no tag
// starts before the next "<".
template <class C>
void inline_tag_spans(const C* s, std::int64_t n, std::vector<std::int64_t>& spans) {
    constexpr std::int64_t kMost = 2000;
    for (std::int64_t i = 0; i < n; ++i) {
        if (s[i] != '<') continue;
        std::int64_t j = i + 1;
        if (j < n && s[j] == '/') ++j;
        std::int64_t k = j;
        while (k < n && is_ascii_letter(static_cast<std::uint32_t>(s[k]))) ++k;
        if (k == j || k >= n || !is_inline_name(s + j, k - j)) continue;
        std::int64_t end;
        if (s[k] == '>') {
            end = k + 1;
        } else if (s[k] == '/' || is_space(static_cast<std::uint32_t>(s[k]))) {
            std::int64_t m = k + 1;
            while (m < n && s[m] != '<' && s[m] != '>') ++m;
            if (m >= n || s[m] != '>' || m - (k + 1) > kMost) continue;
            end = m + 1;
        } else {
            continue;
        }
        spans.push_back(i);
        spans.push_back(end);
        i = end - 1;
    }
}

// The [start, end) of each URL in the ASCII text s[0:n] that
// `\b(?:href|src|action|background)\s*=\s*["']?\s*([^"'\s>]+)` (ignoring case) finds, in
// order, as findall finds its group: matches leftmost, not overlapping. Each match holds
// one "=", after its name and white space: the "="s are found (memchr) and the name looked
// for before each, the rest of the pattern after it. (Each part of the pattern either
// matches greedily or the match fails: backtracking finds no other.)
inline void link_spans(const unsigned char* s, std::int64_t n, std::vector<std::int64_t>& spans) {
    static const char* const kNames[] = {"href", "src", "action", "background"};
    std::int64_t done = 0;  // the end of the last match: the next starts there or after
    for (std::int64_t q = 0; q < n; ++q) {
        const void* at = std::memchr(s + q, '=', static_cast<std::size_t>(n - q));
        if (at == nullptr) break;
        q = static_cast<const unsigned char*>(at) - s;
        std::int64_t e = q;  // the name's end
        while (e > done && is_space(s[e - 1])) --e;
        bool named = false;
        for (const char* name : kNames) {
            std::int64_t len = static_cast<std::int64_t>(std::strlen(name));
            std::int64_t p = e - len;
            if (p < done || (p > 0 && is_re_word(s[p - 1]))) continue;
            std::int64_t k = 0;
            while (k < len && ascii_lower(s[p + k]) == static_cast<std::uint32_t>(name[k])) ++k;
            if (k == len) {
                named = true;
                break;
            }
        }
        if (!named) continue;
        std::int64_t i = q + 1;
        while (i < n && is_space(s[i])) ++i;
        if (i < n && (s[i] == '"' || s[i] == '\'')) ++i;
        while (i < n && is_space(s[i])) ++i;
        std::int64_t start = i;
        while (i < n && s[i] != '"' && s[i] != '\'' && s[i] != '>' && !is_space(s[i])) ++i;
        if (i == start) continue;
        spans.push_back(start);
        spans.push_back(i);
        done = i;
        q = i - 1;  // (the loop's ++q: the next "=" after the URL)
    }
}

// Whether s[0:m] are the code points of `word` (ASCII, m code points).
template <class C>
bool is_ascii_word(const C* s, const char* word, std::int64_t m) {
    for (std::int64_t k = 0; k < m; ++k)
        if (s[k] != static_cast<C>(word[k])) return false;
    return true;
}

// The first position >= from of `marker` (ASCII, m code points) in s[0:n], or -1.
template <class C>
std::int64_t find_ascii(const C* s, std::int64_t n, const char* marker, std::int64_t m,
                        std::int64_t from) {
    for (std::int64_t i = from; i + m <= n; ++i)
        if (s[i] == static_cast<C>(marker[0]) && is_ascii_word(s + i, marker, m)) return i;
    return -1;
}

// A URL's end: the first white space or one of <>"'()[]{} at or after `from` (or n).
template <class C>
std::int64_t url_end(const C* s, std::int64_t n, std::int64_t from) {
    for (std::int64_t i = from; i < n; ++i) {
        std::uint32_t c = s[i];
        if (is_space(c) || c == '<' || c == '>' || c == '"' || c == '\'' || c == '(' ||
            c == ')' || c == '[' || c == ']' || c == '{' || c == '}')
            return i;
    }
    return n;
}

// The [start, end) of each URL of the lower-cased text s[0:n], in order, not overlapping:
// "://" after "https", "http" or "ftp" (the URL starts at the scheme), or "www.", up to
// url_end, if anything follows the marker; a "www." inside a URL found is not another.
template <class C>
void url_spans(const C* s, std::int64_t n, std::vector<std::int64_t>& spans) {
    static const char* const kSchemes[] = {"https", "http", "ftp"};
    std::vector<std::pair<std::int64_t, std::int64_t>> found;
    for (std::int64_t pos = find_ascii(s, n, "://", 3, 0); pos >= 0;) {
        std::int64_t start = -1;
        for (const char* scheme : kSchemes) {
            std::int64_t len = static_cast<std::int64_t>(std::strlen(scheme));
            if (pos >= len && is_ascii_word(s + pos - len, scheme, len)) {
                start = pos - len;
                break;
            }
        }
        if (start < 0) {
            pos = find_ascii(s, n, "://", 3, pos + 3);
            continue;
        }
        std::int64_t end = url_end(s, n, pos + 3);
        if (end > pos + 3) found.emplace_back(start, end);
        pos = find_ascii(s, n, "://", 3, end);
    }
    for (std::int64_t pos = find_ascii(s, n, "www.", 4, 0); pos >= 0;) {
        std::int64_t end = url_end(s, n, pos + 4);
        if (end > pos + 4) found.emplace_back(pos, end);
        pos = find_ascii(s, n, "www.", 4, end);
    }
    std::sort(found.begin(), found.end());
    std::int64_t last = 0;
    for (const auto& [start, end] : found) {
        if (start < last) continue;  // www. inside an http:// URL already cut
        spans.push_back(start);
        spans.push_back(end);
        last = end;
    }
}

// The parts of a URL that are its tokens, as [start, end) spans (start -1: none).
struct UrlParts {
    std::int64_t proto_start = -1, proto_end = -1;    // before its "://"
    std::int64_t host_start = -1, host_end = -1;      // after an "@", before a ":"
    std::int64_t domain_start = -1, domain_end = -1;  // the host's last two labels
    std::vector<std::int64_t> pieces;  // the path's pieces of 3 to 20 code points
};

// A character of _tokenizer's _URL_PIECE, which splits a URL's path: /.?=&:;#%+~,!@_-
inline bool is_url_separator(std::uint32_t c) {
    return c < 128 && std::strchr("/.?=&:;#%+~,!@_-", static_cast<int>(c)) != nullptr && c != 0;
}

// The parts of the URL s[0:n], as str.partition and _URL_PIECE.split read them: the
// scheme before the first "://" (if any); in what follows, the host before the first "/"
// (after its last "@", before its first ":"), its last two labels if it has more; the
// path after that "/" split on runs of separators.
template <class C>
void url_parts(const C* s, std::int64_t n, UrlParts& parts) {
    std::int64_t rest = 0;
    std::int64_t sep = find_ascii(s, n, "://", 3, 0);
    if (sep >= 0) {
        parts.proto_start = 0;
        parts.proto_end = sep;
        rest = sep + 3;
    }
    std::int64_t slash = rest;
    while (slash < n && s[slash] != '/') ++slash;
    std::int64_t host = rest;
    for (std::int64_t i = slash; i > rest; --i) {
        if (s[i - 1] == '@') {
            host = i;
            break;
        }
    }
    std::int64_t host_end = host;
    while (host_end < slash && s[host_end] != ':') ++host_end;
    if (host_end > host) {
        parts.host_start = host;
        parts.host_end = host_end;
        int dots = 0;
        for (std::int64_t i = host_end; i > host; --i) {
            if (s[i - 1] == '.' && ++dots == 2) {
                parts.domain_start = i;
                parts.domain_end = host_end;
                break;
            }
        }
    }
    if (slash >= n) return;  // (no path)
    std::int64_t i = slash + 1;
    while (i <= n) {
        std::int64_t start = i;
        while (i < n && !is_url_separator(s[i])) ++i;
        std::int64_t len = i - start;
        if (len > 2 && len <= 20) {
            parts.pieces.push_back(start);
            parts.pieces.push_back(i);
        }
        while (i < n && is_url_separator(s[i])) ++i;
        if (i >= n) break;
    }
}

// A Message-ID's two tokens, from its (stripped, lower-cased) value s[0:n], as
// _tokenizer's _message_id_reference reads them: false if `<?([^<>@\s]+)@([^<>@\s]+?)>?`
// does not match the whole value; else `host` is the part after the "@" with each digit
// (`is_digit`: \d, Unicode's decimal digits) as "9", and `shape` the part before it with
// each run of digits as "9" and each run of ASCII lower-case letters as "a", both cut to
// `host_max` and `shape_max` code points.
template <class C, class IsDigit>
bool message_id_parts(const C* s, std::int64_t n, IsDigit is_digit, std::int64_t host_max,
                      std::int64_t shape_max, std::vector<std::uint32_t>& host,
                      std::vector<std::uint32_t>& shape) {
    auto allowed = [](std::uint32_t c) {
        return c != '<' && c != '>' && c != '@' && !is_space(c);
    };
    std::int64_t left = n > 0 && s[0] == '<' ? 1 : 0;
    std::int64_t at = left;
    while (at < n && allowed(s[at])) ++at;
    if (at == left || at >= n || s[at] != '@') return false;
    // the host is lazy: it stops before a last ">", and holds only allowed code points
    std::int64_t end = s[n - 1] == '>' ? n - 1 : n;
    if (end <= at + 1) return false;
    for (std::int64_t i = at + 1; i < end; ++i)
        if (!allowed(s[i])) return false;
    host.clear();
    for (std::int64_t i = at + 1; i < end && static_cast<std::int64_t>(host.size()) < host_max; ++i)
        host.push_back(is_digit(s[i]) ? '9' : static_cast<std::uint32_t>(s[i]));
    shape.clear();
    for (std::int64_t i = left; i < at && static_cast<std::int64_t>(shape.size()) < shape_max;) {
        std::uint32_t c = s[i];
        if (is_digit(c)) {
            while (i < at && is_digit(s[i])) ++i;
            shape.push_back('9');
        } else if (c >= 'a' && c <= 'z') {
            while (i < at && s[i] >= 'a' && s[i] <= 'z') ++i;
            shape.push_back('a');
        } else {
            shape.push_back(c);
            ++i;
        }
    }
    return true;
}

// A line's end in raw mail, as Python's feed parser and nbayes.mail._mime's patterns read
// it: LF, CRLF or a lone CR.
inline bool is_line_end(std::uint8_t c) { return c == '\n' || c == '\r'; }

// The end of the first line end of s[0:n] (LF, CRLF or a lone CR) that is followed by
// neither "From ", a space, a tab nor ":" (the end of the data is followed by none), as
// _mime's _NOT_HEADISH.search(s).end() finds it; -1 if there is none.
inline std::int64_t first_not_headish(const std::uint8_t* s, std::int64_t n) {
    for (std::int64_t i = 0; i < n; ++i) {
        if (!is_line_end(s[i])) continue;
        std::int64_t e = i + 1;
        if (s[i] == '\r' && e < n && s[e] == '\n') ++e;
        const bool headish = e < n && (s[e] == ' ' || s[e] == '\t' || s[e] == ':' ||
                                       (n - e >= 5 && std::memcmp(s + e, "From ", 5) == 0));
        if (!headish) return e;
        i = e - 1;  // (the "\n" of a CRLF is followed by the same: no match there either)
    }
    return -1;
}

// The position of the first "\n" at or after `start` in s[0:n] that is followed by neither
// a field's start (name code points, then ":") nor a space or a tab (the end of the data
// is followed by neither), as _mime's _NON_HEAD_LINE.search(s, start).start() finds it;
// -1 if there is none.
inline std::int64_t first_non_head_line(const std::uint8_t* s, std::int64_t n,
                                        std::int64_t start) {
    for (std::int64_t i = std::max<std::int64_t>(start, 0); i < n; ++i) {
        const void* hit = std::memchr(s + i, '\n', static_cast<std::size_t>(n - i));
        if (hit == nullptr) return -1;
        i = static_cast<const std::uint8_t*>(hit) - s;
        std::int64_t j = i + 1;
        if (j < n && (s[j] == ' ' || s[j] == '\t')) continue;
        while (j < n && is_name_char(s[j])) ++j;  // (a "\n" ends the run: linear)
        if (j > i + 1 && j < n && s[j] == ':') continue;  // a field
        return i;
    }
    return -1;
}

// Whether p[0:left], a line's start, is "--", "content-" and letters or "-" up to a ":",
// or "mime-version:", ASCII case ignored.
inline bool is_mime_line_start(const std::uint8_t* p, std::int64_t left) {
    auto same = [&](const char* lit, std::int64_t m) {
        if (left < m) return false;
        for (std::int64_t k = 0; k < m; ++k) {
            std::uint8_t c = p[k];
            if (c >= 'A' && c <= 'Z') c = static_cast<std::uint8_t>(c + 32);
            if (c != static_cast<std::uint8_t>(lit[k])) return false;
        }
        return true;
    };
    if (left >= 2 && p[0] == '-' && p[1] == '-') return true;
    if (same("mime-version:", 13)) return true;
    if (!same("content-", 8)) return false;
    std::int64_t k = 8;
    while (k < left && (p[k] == '-' || (p[k] >= 'a' && p[k] <= 'z') || (p[k] >= 'A' && p[k] <= 'Z')))
        ++k;
    return k > 8 && k < left && p[k] == ':';
}

// The [start, end) spans of s[0:n] that _mime's _MIME_LINE.sub(b"", s) removes, in order:
// each a line (starting the data or after a "\n") that is_mime_line_start, ended by "\n",
// with the continuation lines after it (a space or a tab first, ended by "\n").
inline void mime_line_spans(const std::uint8_t* s, std::int64_t n, std::vector<std::int64_t>& spans) {
    auto line_end = [&](std::int64_t from) -> std::int64_t {  // the "\n" ending it; -1: none
        const void* hit = std::memchr(s + from, '\n', static_cast<std::size_t>(n - from));
        return hit == nullptr ? -1 : static_cast<const std::uint8_t*>(hit) - s;
    };
    std::int64_t i = 0;  // a line's start
    while (i < n) {
        const std::int64_t eol = line_end(i);
        if (eol < 0) return;  // (a last line without "\n": the pattern needs one)
        if (!is_mime_line_start(s + i, eol - i)) {
            i = eol + 1;
            continue;
        }
        std::int64_t j = eol + 1;
        while (j < n && (s[j] == ' ' || s[j] == '\t')) {
            const std::int64_t next = line_end(j);
            if (next < 0) break;
            j = next + 1;
        }
        spans.push_back(i);
        spans.push_back(j);
        i = j;
    }
}

// Whether c is a space of a bytes pattern's \s: " \t\n\r\f\v".
inline bool is_ascii_space(std::uint8_t c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

inline bool is_digit(std::uint8_t c) { return c >= '0' && c <= '9'; }

// Where the line after a postmark at s[f] ("From " there) starts, or -1: the postmark's
// line is "From ", a sender of 1-300 non-space bytes, a space, then the rest of the line,
// r[0:len], ended by LF or CRLF, in which a time "d:dd" starts at most 100 after the
// sender, a year "dddd" at most 100 after the time, and the line ends at most 100 after the
// year (_NEXT_POSTMARK's [^\r\n]{0,100}\d:\d\d[^\r\n]{0,100}\d{4}[^\r\n]{0,100}\r?\n).
// Linear in the line: the years that can follow each time are looked up, not searched.
inline std::int64_t postmark_end(const std::uint8_t* s, std::int64_t n, std::int64_t f) {
    constexpr std::int64_t kGap = 100, kRest = 3 * kGap + 8;  // (the longest rest: 308)
    std::int64_t k = f + 5;
    const std::int64_t sender = k;
    while (k < n && k - sender <= 300 && !is_ascii_space(s[k])) ++k;
    if (k == sender || k - sender > 300 || k >= n || s[k] != ' ') return -1;
    const std::int64_t r = k + 1;
    std::int64_t e = r;
    while (e < n && e - r <= kRest && !is_line_end(s[e])) ++e;
    if (e >= n || e - r > kRest) return -1;
    std::int64_t after;
    if (s[e] == '\n') {
        after = e + 1;
    } else if (e + 1 < n && s[e + 1] == '\n') {  // (s[e] is "\r")
        after = e + 2;
    } else {
        return -1;  // a lone CR: \r?\n does not follow the line
    }
    const std::int64_t len = e - r;
    // next_year[j]: the first year at or after r + j (kNone, past any bound, when none)
    constexpr std::int64_t kNone = 2 * kRest;
    std::int64_t next_year[kRest + 2];
    next_year[len] = next_year[len + 1] = kNone;
    for (std::int64_t j = len - 1; j >= 0; --j) {
        const bool year = j + 4 <= len && is_digit(s[r + j]) && is_digit(s[r + j + 1]) &&
                          is_digit(s[r + j + 2]) && is_digit(s[r + j + 3]);
        next_year[j] = year ? j : next_year[j + 1];
    }
    for (std::int64_t i = 0; i <= kGap && i + 4 <= len; ++i) {
        if (!(is_digit(s[r + i]) && s[r + i + 1] == ':' && is_digit(s[r + i + 2]) &&
              is_digit(s[r + i + 3])))
            continue;
        const std::int64_t lo = std::max(i + 4, len - 4 - kGap);  // (the year's end <= 100
        if (lo <= len && next_year[lo] <= i + 4 + kGap) return after;  // before the line's)
    }
    return -1;
}

// The end of the first postmark after a blank line at or after `start` in s[0:n], as
// _mime's _NEXT_POSTMARK.search(s, start).end() finds it: a "From " line (postmark_end)
// after two line ends (LF or CRLF) that start at or after `start`; -1 if there is none.
inline std::int64_t next_postmark_end(const std::uint8_t* s, std::int64_t n, std::int64_t start) {
    start = std::max<std::int64_t>(start, 0);
    for (std::int64_t f = start + 2; f + 5 <= n; ++f) {
        const void* hit = std::memchr(s + f, 'F', static_cast<std::size_t>(n - f));
        if (hit == nullptr) return -1;
        f = static_cast<const std::uint8_t*>(hit) - s;
        if (f < start + 2 || f + 5 > n || std::memcmp(s + f, "From ", 5) != 0 || s[f - 1] != '\n')
            continue;
        const bool blank = (s[f - 2] == '\n' && f - 2 >= start) ||
                           (s[f - 2] == '\r' && f - 3 >= start && s[f - 3] == '\n');
        if (!blank) continue;
        const std::int64_t end = postmark_end(s, n, f);
        if (end >= 0) return end;
    }
    return -1;
}

}  // namespace nbk_mail
