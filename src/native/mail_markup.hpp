// Two scans of mail's markup that regular expressions did in Python, as linear loops over
// code points (the same answers, tests/spam/test_mail_markup.py checks them against the
// expressions):
// - head_fields: a message head of well-formed fields split into its (name, value) spans,
//   as nbayes.mail._mime's _SIMPLE_HEAD.fullmatch and _FIELD.findall read it;
// - tag_spans: the tags of HTML that nbayes.mail._html's _TAG.sub(" ", text) replaces,
//   `<[^<>]{0,2000}>`;
// - link_spans: the URLs of an ASCII text's links, as _html's _LINK.findall finds them.
//
// Plain C++ (no Python.h): bind_mail.cpp binds it to Python.
#pragma once

#include <cstdint>
#include <vector>

namespace nbk_mail {

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

// Python's \s and \w on an ASCII code point (str patterns: \s holds \x1c-\x1f too).
inline bool is_re_space(std::uint32_t c) {
    return c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f);
}
inline bool is_re_word(std::uint32_t c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
inline std::uint32_t ascii_lower(std::uint32_t c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

// The [start, end) of each URL in the ASCII text s[0:n] that
// `\b(?:href|src|action|background)\s*=\s*["']?\s*([^"'\s>]+)` (ignoring case) finds, in
// order, as findall finds its group: matches leftmost, not overlapping. (Each part of the
// pattern either matches greedily or the match fails: backtracking finds no other.)
template <class C>
void link_spans(const C* s, std::int64_t n, std::vector<std::int64_t>& spans) {
    static const char* const kNames[] = {"href", "src", "action", "background"};
    std::int64_t p = 0;
    while (p < n) {
        std::uint32_t c = ascii_lower(s[p]);
        if ((c != 'h' && c != 's' && c != 'a' && c != 'b') || (p > 0 && is_re_word(s[p - 1]))) {
            ++p;
            continue;
        }
        const char* name = c == 'h' ? kNames[0] : c == 's' ? kNames[1] : c == 'a' ? kNames[2]
                                                                        : kNames[3];
        std::int64_t i = p;
        for (const char* k = name; *k != '\0'; ++k, ++i)
            if (i >= n || ascii_lower(s[i]) != static_cast<std::uint32_t>(*k)) goto next;
        while (i < n && is_re_space(s[i])) ++i;
        if (i >= n || s[i] != '=') goto next;
        ++i;
        while (i < n && is_re_space(s[i])) ++i;
        if (i < n && (s[i] == '"' || s[i] == '\'')) ++i;
        while (i < n && is_re_space(s[i])) ++i;
        {
            std::int64_t start = i;
            while (i < n && s[i] != '"' && s[i] != '\'' && s[i] != '>' && !is_re_space(s[i])) ++i;
            if (i == start) goto next;
            spans.push_back(start);
            spans.push_back(i);
            p = i;  // (the next match starts after this one)
            continue;
        }
    next:
        ++p;
    }
}

}  // namespace nbk_mail
