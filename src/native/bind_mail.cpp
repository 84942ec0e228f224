// nbayes._mail_native: the spam filter's compiled tokenizer kernel (mail_words.hpp).
//
// A module of its own (no NumPy): the mail path (nbayes.mail, `nbayes filter`) imports it
// without the text kernels' module and NumPy's C API.
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <new>
#include <string>
#include <vector>

#include "blake2b.hpp"
#include "mail_clues.hpp"
#include "mail_fisher.hpp"
#include "mail_index.hpp"
#include "mail_markup.hpp"
#include "mail_store.hpp"
#include "mail_tokens.hpp"
#include "mail_words.hpp"

namespace {

using nbk_mail::Span;
using nbk_mail::TokenRef;

// A str as a TokenRef (its code points, whatever its storage width).
inline TokenRef str_ref(PyObject* s) {
    return TokenRef{PyUnicode_DATA(s), static_cast<int>(PyUnicode_KIND(s)), 0,
                    PyUnicode_GET_LENGTH(s), -1, -1, s};
}

// scan(data, n) on the code points of the str `text`, typed by their storage width.
template <class Scan>
auto by_width(PyObject* text, Scan&& scan) {
    const void* data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    if (PyUnicode_KIND(text) == PyUnicode_1BYTE_KIND)
        return scan(static_cast<const Py_UCS1*>(data), n);
    if (PyUnicode_KIND(text) == PyUnicode_2BYTE_KIND)
        return scan(static_cast<const Py_UCS2*>(data), n);
    return scan(static_cast<const Py_UCS4*>(data), n);
}

// Splits `text` as mail_words.hpp's split_words.
void split_text(PyObject* text, Py_ssize_t lo, Py_ssize_t hi, std::vector<Span>& kept,
                std::vector<Span>& longs) {
    // (a word and its space are two code points at least: room for a typical text's
    // words, without reserving a 16 MB text's worth)
    kept.reserve(std::min<std::size_t>(static_cast<std::size_t>(PyUnicode_GET_LENGTH(text)) / 4 + 16,
                                       std::size_t{1} << 16));
    by_width(text, [&](const auto* s, Py_ssize_t n) {
        nbk_mail::split_words(s, n, lo, hi, kept, longs);
    });
}

// "bi:" + a + " " + b, canonical (the kind its largest code point needs).
PyObject* bigram(PyObject* text, int kind, const void* data, const Span& a, const Span& b) {
    Py_ssize_t la = a.end - a.start, lb = b.end - b.start;
    Py_UCS4 top = std::max<Py_UCS4>(std::max(a.maxchar, b.maxchar), 'i');
    PyObject* out = PyUnicode_New(3 + la + 1 + lb, top);
    if (out == nullptr) return nullptr;
    int okind = PyUnicode_KIND(out);
    void* odata = PyUnicode_DATA(out);
    Py_ssize_t pos = 0;
    PyUnicode_WRITE(okind, odata, pos++, 'b');
    PyUnicode_WRITE(okind, odata, pos++, 'i');
    PyUnicode_WRITE(okind, odata, pos++, ':');
    for (Py_ssize_t i = a.start; i < a.end; ++i)
        PyUnicode_WRITE(okind, odata, pos++, PyUnicode_READ(kind, data, i));
    PyUnicode_WRITE(okind, odata, pos++, ' ');
    for (Py_ssize_t i = b.start; i < b.end; ++i)
        PyUnicode_WRITE(okind, odata, pos++, PyUnicode_READ(kind, data, i));
    (void)text;
    return out;
}

const char words_doc[] =
    "words(text, min_length, max_length, bigrams, out) -> list\n\n"
    "Add to the set `out` the white-space separated words of `text` of min_length to\n"
    "max_length code points and, if `bigrams`, 'bi:<word> <next word>' for each pair of\n"
    "consecutive such words; return the longer words, in text order (out None: only\n"
    "return them).";

PyObject* py_words(PyObject*, PyObject* args) {
    PyObject* text;
    Py_ssize_t lo, hi;
    int bigrams;
    PyObject* out;
    if (!PyArg_ParseTuple(args, "UnnpO", &text, &lo, &hi, &bigrams, &out)) return nullptr;
    if (out != Py_None && !PySet_CheckExact(out)) {
        PyErr_SetString(PyExc_TypeError, "words: out must be a set or None");
        return nullptr;
    }
    int kind = PyUnicode_KIND(text);
    const void* data = PyUnicode_DATA(text);
    std::vector<Span> kept, longs;
    // out None: the longer words only (a word is kept from hi + 1 code points: none is)
    Py_ssize_t least = out != Py_None || hi == PY_SSIZE_T_MAX ? lo : std::max(lo, hi + 1);
    try {
        split_text(text, least, hi, kept, longs);
    } catch (const std::bad_alloc&) {
        return PyErr_NoMemory();
    }
    if (out == Py_None) kept.clear();
    for (std::size_t k = 0; k < kept.size(); ++k) {
        PyObject* w = PyUnicode_Substring(text, kept[k].start, kept[k].end);
        if (w == nullptr || PySet_Add(out, w) < 0) {
            Py_XDECREF(w);
            return nullptr;
        }
        Py_DECREF(w);
        if (bigrams && k > 0) {
            PyObject* b = bigram(text, kind, data, kept[k - 1], kept[k]);
            if (b == nullptr || PySet_Add(out, b) < 0) {
                Py_XDECREF(b);
                return nullptr;
            }
            Py_DECREF(b);
        }
    }
    PyObject* result = PyList_New(static_cast<Py_ssize_t>(longs.size()));
    if (result == nullptr) return nullptr;
    for (std::size_t k = 0; k < longs.size(); ++k) {
        PyObject* w = PyUnicode_Substring(text, longs[k].start, longs[k].end);
        if (w == nullptr) {
            Py_DECREF(result);
            return nullptr;
        }
        PyList_SET_ITEM(result, static_cast<Py_ssize_t>(k), w);
    }
    return result;
}


// ---------------------------------------------------------------------------- clues

struct Clue {
    double d;
    double f;  // its logs are taken once the clues are chosen (clue_lists)
    TokenRef token;  // borrowed: the token set (or the text) holds it
    std::int64_t ham, spam;  // the token's counts (same_counts_min)
};

// (d, token) descending, as Python's sort of the (d, token, ...) tuples with reverse=True.
struct Stronger {
    bool operator()(const Clue& a, const Clue& b) const {
        if (a.d != b.d) return a.d > b.d;
        return nbk_mail::compare_tokens(a.token, b.token) > 0;
    }
};

// A C-contiguous buffer of `obj` whose items are `size` bytes and whose struct format
// (null: none) `fits`; false if it is not one (TypeError `error`, the buffer released).
// (`writable`: a buffer the caller writes to).
template <class Fits>
bool typed_buffer(PyObject* obj, Py_buffer* view, Py_ssize_t size, Fits&& fits,
                  const char* error, bool writable = false) {
    int flags = PyBUF_FORMAT | PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0) return false;
    if (view->itemsize == size && fits(view->format)) return true;
    PyBuffer_Release(view);
    PyErr_SetString(PyExc_TypeError, error);
    return false;
}

// An int64 count column (array('q')), read-only or `writable`; false (TypeError `error`)
// if it is not one.
bool int64_column(PyObject* obj, Py_buffer* view,
                  const char* error = "clue_logs: the count columns must be array('q')",
                  bool writable = false) {
    auto fits = [](const char* f) {
        if (f == nullptr) return false;
        // (a byte order mark of the native order: numpy's "<q" on a little-endian host)
        if (*f == '@' || *f == '=' || (*f == '<' && PY_LITTLE_ENDIAN)) ++f;
        return std::string(f) == "q" || std::string(f) == "l";
    };
    return typed_buffer(obj, view, 8, fits, error, writable);
}

// ---------------------------------------------------------------------------- token store

// nbayes._mail_native's TokenStore: a spam filter's tokens by row, packed (mail_store.hpp:
// their UTF-8 bytes and offsets, with the token -> row index on their code point hashes),
// which clue_logs, fisher_text, learn_counts and merge_counts read and extend, and which
// makes a str of a token only when asked for one (token, tokens).
struct TokenStoreObject {
    PyObject_HEAD
    nbk_mail::PackedTokens* store;
};

using Store = nbk_mail::PackedTokens;
using Index = Store::Index;

PyTypeObject TokenStoreType = {PyVarObject_HEAD_INIT(nullptr, 0)};

Store& store_of(PyObject* obj) { return *reinterpret_cast<TokenStoreObject*>(obj)->store; }

void store_dealloc(PyObject* obj) {
    delete reinterpret_cast<TokenStoreObject*>(obj)->store;
    Py_TYPE(obj)->tp_free(obj);
}

// A new TokenStore holding `store` (taken), or null (MemoryError set).
PyObject* new_store(Store* store) {
    if (store == nullptr) return PyErr_NoMemory();
    auto* self = PyObject_New(TokenStoreObject, &TokenStoreType);
    if (self == nullptr) {
        delete store;
        return nullptr;
    }
    self->store = store;
    return reinterpret_cast<PyObject*>(self);
}

// Runs `work`; false (MemoryError, or ValueError for a store past its rows, set) if it
// ran out of memory.
template <class Work>
bool guarded(Work&& work) {
    try {
        work();
        return true;
    } catch (const std::bad_alloc&) {
        PyErr_NoMemory();
        return false;
    } catch (const std::length_error&) {
        PyErr_SetString(PyExc_ValueError, "too many tokens for a spam filter's table (2**32)");
        return false;
    }
}

// Lets other Python threads run while it lives (the GIL released; taken back however the
// scope ends, an exception included): for work on memory no other thread changes.
struct WithoutGil {
    PyThreadState* state;
    WithoutGil() : state(PyEval_SaveThread()) {}
    ~WithoutGil() { PyEval_RestoreThread(state); }
    WithoutGil(const WithoutGil&) = delete;
    WithoutGil& operator=(const WithoutGil&) = delete;
};

// Releases the GIL while it lives if `release`: for a scan of a buffer that no other thread
// can change (see release_for).
struct WithoutGilIf {
    PyThreadState* state;
    explicit WithoutGilIf(bool release) : state(release ? PyEval_SaveThread() : nullptr) {}
    ~WithoutGilIf() {
        if (state != nullptr) PyEval_RestoreThread(state);
    }
    WithoutGilIf(const WithoutGilIf&) = delete;
    WithoutGilIf& operator=(const WithoutGilIf&) = delete;
};

// Bytes past which a scan of raw mail releases the GIL (a release costs about a microsecond,
// and the GIL may take a switch interval to come back when other threads are busy)
constexpr Py_ssize_t kLongScan = 64 * 1024;

// Whether a scan of `n` bytes of the buffer `data` releases the GIL: a long one, of a bytes
// object (a bytearray, or a read-only view of one, could change meanwhile)
inline bool release_for(const Py_buffer& data, Py_ssize_t n) {
    return n > kLongScan && data.obj != nullptr && PyBytes_Check(data.obj);
}

// The UTF-8 bytes of the str `t` ("surrogatepass"): its own data if ASCII, else `buf`.
void utf8_view(PyObject* t, std::vector<std::uint8_t>& buf, const std::uint8_t*& p,
               std::int64_t& n) {
    if (PyUnicode_IS_ASCII(t)) {
        p = static_cast<const std::uint8_t*>(PyUnicode_DATA(t));
        n = PyUnicode_GET_LENGTH(t);
        return;
    }
    buf.clear();
    nbk::append_utf8(nbk::StrView{PyUnicode_DATA(t), PyUnicode_GET_LENGTH(t),
                                  static_cast<nbk::i32>(PyUnicode_KIND(t))},
                     buf);
    p = buf.data();
    n = static_cast<std::int64_t>(buf.size());
}

// The row of the str `t` in `store`, a new row for a new token; -1 with a Python error set.
std::int64_t row_or_new(Store& store, PyObject* t, std::uint64_t h, std::vector<std::uint8_t>& buf) {
    std::int64_t row = store.find(str_ref(t), h);
    if (row >= 0) return row;
    const std::uint8_t* p;
    std::int64_t n;
    if (!guarded([&] {
            utf8_view(t, buf, p, n);
            store.append(p, n, h);
        }))
        return -1;
    return static_cast<std::int64_t>(store.rows()) - 1;
}

// A token to count or find: a str; else TypeError (an unhashable object's own).
bool token_str(PyObject* t, const char* what) {
    if (PyUnicode_Check(t)) return true;
    if (PyObject_Hash(t) == -1) return false;
    PyErr_Format(PyExc_TypeError, "%s: a token must be a str, not %.100s", what,
                 Py_TYPE(t)->tp_name);
    return false;
}

const char store_extend_doc[] =
    "extend(tokens) -> None\n\n"
    "Append the str of the iterable `tokens` as the next rows, in order. ValueError if one\n"
    "is already a row (or comes twice), TypeError if one is not a str: nothing is added then.";

PyObject* store_extend(PyObject* obj, PyObject* tokens) {
    Store& store = store_of(obj);
    const std::size_t first = store.rows();
    PyObject* it = PyObject_GetIter(tokens);
    if (it == nullptr) return nullptr;
    std::vector<std::uint8_t> buf;
    PyObject* t;
    bool ok = true;
    while (ok && (t = PyIter_Next(it)) != nullptr) {
        ok = token_str(t, "TokenStore.extend");
        if (ok) {
            const std::uint64_t h = nbk_mail::ref_hash(str_ref(t));
            if (store.find(str_ref(t), h) >= 0) {
                PyErr_Format(PyExc_ValueError, "the tokens are not distinct: %R repeats", t);
                ok = false;
            } else {
                ok = row_or_new(store, t, h, buf) >= 0;
            }
        }
        Py_DECREF(t);
    }
    Py_DECREF(it);
    if (!ok || PyErr_Occurred()) {
        store.truncate(first);
        return nullptr;
    }
    Py_RETURN_NONE;
}

const char store_row_doc[] =
    "row(token) -> int\n\nThe row of the token, -1 if it has none (or is not a str).";

PyObject* store_row(PyObject* obj, PyObject* t) {
    if (!PyUnicode_Check(t)) return PyLong_FromLong(-1);
    const TokenRef r = str_ref(t);
    return PyLong_FromLongLong(store_of(obj).find(r, nbk_mail::ref_hash(r)));
}

// The str of row r (checked by the caller).
PyObject* token_str_at(const Store& store, std::size_t r) {
    const auto& off = store.offsets();
    return PyUnicode_DecodeUTF8(reinterpret_cast<const char*>(store.bytes().data()) + off[r],
                                static_cast<Py_ssize_t>(off[r + 1] - off[r]), "surrogatepass");
}

const char store_token_doc[] = "token(row) -> str\n\nThe token of the row (IndexError past them).";

PyObject* store_token(PyObject* obj, PyObject* arg) {
    const Store& store = store_of(obj);
    Py_ssize_t r = PyNumber_AsSsize_t(arg, PyExc_IndexError);
    if (r == -1 && PyErr_Occurred()) return nullptr;
    if (r < 0) r += static_cast<Py_ssize_t>(store.rows());
    if (r < 0 || static_cast<std::size_t>(r) >= store.rows()) {
        PyErr_SetString(PyExc_IndexError, "TokenStore.token: row out of range");
        return nullptr;
    }
    return token_str_at(store, static_cast<std::size_t>(r));
}

// The rows of a `rows` argument (None: every row) into out; false with a Python error set
// (TypeError: not an int64 buffer; IndexError: a row out of range).
bool rows_arg(const Store& store, PyObject* rows, std::vector<std::size_t>& out, const char* what) {
    if (rows == Py_None) {
        return guarded([&] {
            out.resize(store.rows());
            for (std::size_t r = 0; r < out.size(); ++r) out[r] = r;
        });
    }
    Py_buffer view;
    std::string error = std::string(what) + ": rows must be an int64 buffer";
    if (!int64_column(rows, &view, error.c_str())) return false;
    const auto* p = static_cast<const std::int64_t*>(view.buf);
    const Py_ssize_t n = view.len / 8;
    bool ok = guarded([&] { out.resize(static_cast<std::size_t>(n)); });
    for (Py_ssize_t k = 0; ok && k < n; ++k) {
        if (p[k] < 0 || static_cast<std::size_t>(p[k]) >= store.rows()) {
            PyErr_Format(PyExc_IndexError, "%s: row %lld out of range", what,
                         static_cast<long long>(p[k]));
            ok = false;
        } else {
            out[static_cast<std::size_t>(k)] = static_cast<std::size_t>(p[k]);
        }
    }
    PyBuffer_Release(&view);
    return ok;
}

const char store_tokens_doc[] =
    "tokens(rows=None) -> list of str\n\n"
    "The tokens of the rows (an int64 buffer, such as array('q')), in that order; every\n"
    "row's if None.";

PyObject* store_tokens(PyObject* obj, PyObject* args) {
    PyObject* rows = Py_None;
    if (!PyArg_ParseTuple(args, "|O:tokens", &rows)) return nullptr;
    const Store& store = store_of(obj);
    std::vector<std::size_t> which;
    if (!rows_arg(store, rows, which, "TokenStore.tokens")) return nullptr;
    PyObject* out = PyList_New(static_cast<Py_ssize_t>(which.size()));
    if (out == nullptr) return nullptr;
    for (std::size_t k = 0; k < which.size(); ++k) {
        PyObject* s = token_str_at(store, which[k]);
        if (s == nullptr) {
            Py_DECREF(out);
            return nullptr;
        }
        PyList_SET_ITEM(out, static_cast<Py_ssize_t>(k), s);
    }
    return out;
}

const char store_packed_doc[] =
    "packed(rows=None) -> (bytes, offsets)\n\n"
    "The tokens of the rows (an int64 buffer; every row's if None), in that order, packed\n"
    "as a model file stores them: their UTF-8 bytes one after the other, and the bytes of\n"
    "the n + 1 int64 offsets (native order) that cut them.";

PyObject* store_packed(PyObject* obj, PyObject* args) {
    PyObject* rows = Py_None;
    if (!PyArg_ParseTuple(args, "|O:packed", &rows)) return nullptr;
    const Store& store = store_of(obj);
    const auto& off = store.offsets();
    // (an empty vector's data() may be null, which "y#" would make None)
    static const std::uint8_t nothing = 0;
    const std::uint8_t* data = store.bytes().empty() ? &nothing : store.bytes().data();
    if (rows == Py_None) {
        return Py_BuildValue("(y#y#)", reinterpret_cast<const char*>(data),
                             static_cast<Py_ssize_t>(off.back()),
                             reinterpret_cast<const char*>(off.data()),
                             static_cast<Py_ssize_t>(off.size() * 8));
    }
    std::vector<std::size_t> which;
    if (!rows_arg(store, rows, which, "TokenStore.packed")) return nullptr;
    std::vector<std::int64_t> cut;
    if (!guarded([&] { cut.assign(which.size() + 1, 0); })) return nullptr;
    for (std::size_t k = 0; k < which.size(); ++k)
        cut[k + 1] = cut[k] + off[which[k] + 1] - off[which[k]];
    PyObject* blob = PyBytes_FromStringAndSize(nullptr, static_cast<Py_ssize_t>(cut.back()));
    if (blob == nullptr) return nullptr;
    char* out = PyBytes_AS_STRING(blob);
    for (std::size_t k = 0; k < which.size(); ++k)
        if (cut[k + 1] > cut[k])
            std::memcpy(out + cut[k], data + off[which[k]], static_cast<std::size_t>(cut[k + 1] - cut[k]));
    PyObject* result = Py_BuildValue("(Ny#)", blob, reinterpret_cast<const char*>(cut.data()),
                                     static_cast<Py_ssize_t>(cut.size() * 8));
    return result;
}

PyObject* store_truncate(PyObject* obj, PyObject* arg) {
    Py_ssize_t n = PyNumber_AsSsize_t(arg, PyExc_OverflowError);
    if (n == -1 && PyErr_Occurred()) return nullptr;
    if (n < 0) {
        PyErr_SetString(PyExc_ValueError, "TokenStore.truncate: rows must be >= 0");
        return nullptr;
    }
    store_of(obj).truncate(static_cast<std::size_t>(n));  // (noexcept: it allocates nothing)
    Py_RETURN_NONE;
}

PyObject* store_copy(PyObject* obj, PyObject*) {
    Store* copy = nullptr;
    if (!guarded([&] { copy = new Store(store_of(obj)); })) return nullptr;
    return new_store(copy);
}

PyObject* store_rows(PyObject* obj, PyObject*) {
    return PyLong_FromSize_t(store_of(obj).rows());
}

PyObject* store_nbytes(PyObject* obj, PyObject*) {
    const Store& s = store_of(obj);
    const std::size_t slots = s.index().empty() ? 0 : s.index().slot_count();
    return PyLong_FromSize_t(s.bytes().capacity() + 8 * s.offsets().capacity() +
                             sizeof(Index::Slot) * slots + 8 * s.index().size());
}

PyMethodDef store_methods[] = {
    {"rows", store_rows, METH_NOARGS, "rows() -> int\n\nThe number of rows."},
    {"row", store_row, METH_O, store_row_doc},
    {"token", store_token, METH_O, store_token_doc},
    {"tokens", store_tokens, METH_VARARGS, store_tokens_doc},
    {"packed", store_packed, METH_VARARGS, store_packed_doc},
    {"extend", store_extend, METH_O, store_extend_doc},
    {"truncate", store_truncate, METH_O,
     "truncate(n) -> None\n\nDrop the rows from n on (those a failed update added)."},
    {"copy", store_copy, METH_NOARGS, "copy() -> TokenStore\n\nAn independent copy."},
    {"nbytes", store_nbytes, METH_NOARGS,
     "nbytes() -> int\n\nThe bytes the store holds (its buffers' capacities)."},
    {nullptr, nullptr, 0, nullptr},
};

const char token_store_doc[] =
    "token_store(blob=None, offsets=None) -> TokenStore\n\n"
    "An empty store of a spam filter's tokens, or the store of the tokens packed in `blob`\n"
    "(their UTF-8, 'surrogatepass') cut at `offsets` (an int64 buffer of n + 1 offsets), as\n"
    "a model file holds them: ValueError if the offsets do not cut the bytes, a token is\n"
    "not UTF-8 or comes twice.";

PyObject* py_token_store(PyObject*, PyObject* args) {
    PyObject *blob = Py_None, *offsets = Py_None;
    if (!PyArg_ParseTuple(args, "|OO:token_store", &blob, &offsets)) return nullptr;
    Store* store = nullptr;
    if (!guarded([&] { store = new Store(); })) return nullptr;
    PyObject* out = new_store(store);
    if (out == nullptr || blob == Py_None) return out;
    Py_buffer bv, ov;
    if (PyObject_GetBuffer(blob, &bv, PyBUF_C_CONTIGUOUS) < 0) {
        Py_DECREF(out);
        return nullptr;
    }
    if (!int64_column(offsets, &ov, "token_store: offsets must be an int64 buffer")) {
        PyBuffer_Release(&bv);
        Py_DECREF(out);
        return nullptr;
    }
    std::int64_t at = -1, other = -1;
    int status = 0;
    bool ok = guarded([&] {
        // (the new store is nobody else's yet, and the buffers are held: a model file's
        // 700k tokens index in ~0.15 s, while a server's other threads answer)
        WithoutGil released;
        status = store->extend(static_cast<const std::uint8_t*>(bv.buf), bv.len,
                               static_cast<const std::int64_t*>(ov.buf), ov.len / 8, at, other);
    });
    PyBuffer_Release(&bv);
    PyBuffer_Release(&ov);
    if (ok && status != 0) {
        if (status == 1)
            PyErr_Format(PyExc_ValueError, "the offsets do not cut the bytes into tokens (offset %lld)",
                         static_cast<long long>(at));
        else if (status == 2)
            PyErr_Format(PyExc_ValueError, "token %lld is not UTF-8", static_cast<long long>(at));
        else
            PyErr_Format(PyExc_ValueError, "the tokens are not distinct: token %lld repeats token %lld",
                         static_cast<long long>(at), static_cast<long long>(other));
        ok = false;
    }
    if (!ok) Py_CLEAR(out);
    return out;
}

// ---------------------------------------------------------------------------- clues

struct Probe {
    std::uint64_t hash;
    std::size_t pos;  // the slot of the first key of the token's hash, if any
    std::int64_t row;  // that key's row, -1: no key of this hash
};

// The rows of `refs` (hashes in `probes`) in `index`, -1 for a token not in it, in three
// stages run as a pipeline over the tokens: a token's home slot is prefetched, the first
// slot of its hash is found kSlotAhead tokens later (its key and counts prefetched), and
// its key compared kKeyAhead tokens after that. The misses of a few dozen tokens overlap,
// no more: prefetching every token's slot first (and then every key) asked for more lines
// than the CPU keeps in flight, and most of them were dropped.
void lookup_rows(const std::vector<TokenRef>& refs, std::vector<Probe>& probes,
                 const Store& store, const std::int64_t* ham, const std::int64_t* spam) {
    const Index& index = store.index();
    if (index.empty()) return;  // a table without rows: no token in it
    constexpr std::size_t kSlotAhead = 8, kKeyAhead = 8;  // (16 and 32: slower)
    const std::size_t n = probes.size();
    for (std::size_t k = 0; k < n + kSlotAhead + kKeyAhead; ++k) {
        if (k < n) {
            Probe& p = probes[k];
            p.pos = index.home(p.hash);
            __builtin_prefetch(index.slot_address(p.pos));
        }
        if (k >= kSlotAhead && k - kSlotAhead < n) {  // the first slot of the hash
            Probe& p = probes[k - kSlotAhead];
            std::size_t at = p.pos;
            for (;;) {
                const auto& s = index.slot(at);
                if (s.row == Index::kEmpty) break;
                if (s.tag == Index::tag(p.hash)) {
                    p.row = s.row;
                    __builtin_prefetch(store.key_bytes(s.key));
                    if (ham != nullptr) {  // (null: learning, which reads them later)
                        __builtin_prefetch(ham + s.row);
                        __builtin_prefetch(spam + s.row);
                    }
                    break;
                }
                at = index.next(at);
            }
            p.pos = at;
        }
        if (k >= kSlotAhead + kKeyAhead && k - kSlotAhead - kKeyAhead < n) {
            std::size_t j = k - kSlotAhead - kKeyAhead;
            Probe& p = probes[j];
            if (p.row < 0) continue;
            std::size_t at = p.pos;
            std::int64_t row = -1;
            for (;;) {  // the first key of this hash, then (rarely) the others
                const auto& s = index.slot(at);
                if (s.row == Index::kEmpty) break;
                if (s.tag == Index::tag(p.hash) && store.same(s, refs[j])) {
                    row = s.row;
                    break;
                }
                at = index.next(at);
            }
            p.row = row;
        }
    }
}

// The tokens of the set `tokens` as refs with their hashes; false if one is not an exact
// str (or a Python error is set).
bool set_refs(PyObject* tokens, std::vector<TokenRef>& refs, std::vector<Probe>& probes) {
    PyObject* t;
    refs.reserve(static_cast<std::size_t>(PySet_GET_SIZE(tokens)));
    PyObject* it = PyObject_GetIter(tokens);
    if (it == nullptr) return false;
    while ((t = PyIter_Next(it)) != nullptr) {
        Py_DECREF(t);  // the set keeps it alive
        if (!PyUnicode_CheckExact(t)) {
            Py_DECREF(it);
            return false;
        }
        refs.push_back(str_ref(t));
        probes.push_back(Probe{nbk_mail::ref_hash(refs.back()), 0, -1});
    }
    Py_DECREF(it);
    return !PyErr_Occurred();
}

struct Scoring {
    nbk_mail::ClueParams p;
    Py_ssize_t cap;
    Py_ssize_t same_min = 0;  // same_counts_min
    int tile = 0;             // tile_bigrams
    const std::int64_t* ham;
    const std::int64_t* spam;
    Py_ssize_t rows;
};

// The clues of `refs` at `probes`' rows; false where the Python reading must answer.
bool collect(const std::vector<TokenRef>& refs, const std::vector<Probe>& probes,
             const Scoring& sc, std::vector<Clue>& clues) {
    // f(w) depends on the counts alone, and a message's tokens share few of them (most are
    // in a message or two of a class): each pair's f is computed once (its four divisions
    // were a third of this loop), remembered in a small direct-mapped table
    struct Known {
        std::uint64_t counts;
        double f;
    };
    constexpr std::size_t kKnown = 256;
    constexpr std::uint64_t kNone = ~std::uint64_t{0};
    std::array<Known, kKnown> known;
    known.fill(Known{kNone, 0.0});
    for (std::size_t k = 0; k < refs.size(); ++k) {
        std::int64_t i = probes[k].row;
        if (i >= sc.rows) return false;
        std::int64_t g = i < 0 ? 0 : sc.ham[i], b = i < 0 ? 0 : sc.spam[i];
        double f;
        const bool small = (static_cast<std::uint64_t>(g) | static_cast<std::uint64_t>(b)) < (1u << 31);
        const std::uint64_t counts = static_cast<std::uint64_t>(g) << 32 | static_cast<std::uint64_t>(b);
        Known& slot = known[(counts * 0x9E3779B97F4A7C15ULL) >> 56];
        if (small && slot.counts == counts) {
            f = slot.f;
        } else {
            if (!nbk_mail::robinson_f(g, b, sc.p, f)) return false;
            if (small) slot = Known{counts, f};
        }
        double d = nbk_mail::deviation(f);
        if (d >= sc.p.min_dev) clues.push_back(Clue{d, f, refs[k], g, b});
    }
    return true;
}

// One clue per ham and spam counts among those seen in both classes and in at least
// `least` messages, the greatest token of each, as nbayes.spam._filter._once_per_counts
// keeps (the clue cap's ties by token then choose alike): one pass, the counts found in an
// open-addressing table of the kept clues' indices.
void once_per_counts(std::vector<Clue>& clues, Py_ssize_t least) {
    std::size_t size = 16;
    while (size < 2 * clues.size()) size *= 2;
    std::vector<std::int32_t> slot(size, -1);
    std::size_t mask = size - 1, out = 0;
    for (std::size_t k = 0; k < clues.size(); ++k) {
        const Clue c = clues[k];
        if (c.ham <= 0 || c.spam <= 0 || c.ham + c.spam < static_cast<std::int64_t>(least)) {
            clues[out++] = c;
            continue;
        }
        std::uint64_t h = static_cast<std::uint64_t>(c.ham) * 0x9E3779B97F4A7C15ULL ^
                          static_cast<std::uint64_t>(c.spam) * 0xC2B2AE3D27D4EB4FULL;
        h ^= h >> 31;
        for (std::size_t at = static_cast<std::size_t>(h) & mask;; at = (at + 1) & mask) {
            std::int32_t j = slot[at];
            if (j < 0) {
                slot[at] = static_cast<std::int32_t>(out);
                clues[out++] = c;
                break;
            }
            Clue& kept = clues[static_cast<std::size_t>(j)];
            if (kept.ham == c.ham && kept.spam == c.spam) {
                if (nbk_mail::compare_tokens(c.token, kept.token) > 0) kept = c;
                break;
            }
        }
    }
    clues.resize(out);
}

// The two words of a bigram clue's token, as spans without a string of their own; false
// if the token is not a bigram ("bi:" + word + " " + word: a body word has no space).
bool bigram_words(const TokenRef& t, TokenRef& a, TokenRef& b) {
    if (t.b0 >= 0) {  // a bigram of a text's two words
        a = TokenRef{t.data, t.kind, t.a0, t.a1, -1, -1, nullptr};
        b = TokenRef{t.data, t.kind, t.b0, t.b1, -1, -1, nullptr};
        return true;
    }
    std::int64_t n = t.a1 - t.a0;
    if (n < 4 || t.at(0) != 'b' || t.at(1) != 'i' || t.at(2) != ':') return false;
    for (std::int64_t i = 3; i < n; ++i) {
        if (t.at(i) == ' ') {
            a = TokenRef{t.data, t.kind, t.a0 + 3, t.a0 + i, -1, -1, nullptr};
            b = TokenRef{t.data, t.kind, t.a0 + i + 1, t.a1, -1, -1, nullptr};
            return true;
        }
    }
    return false;
}

// The slot of the word `w` (of ref_hash `h`) in the open-addressing set `slot` of indices
// into `words` (-1: empty): where it is, or the empty slot where it would go.
std::size_t word_slot(const std::vector<std::int32_t>& slot, const std::vector<TokenRef>& words,
                      const TokenRef& w, std::uint64_t h) {
    std::size_t mask = slot.size() - 1;
    for (std::size_t at = static_cast<std::size_t>(h) & mask;; at = (at + 1) & mask) {
        std::int32_t j = slot[at];
        if (j < 0 || nbk_mail::same_text_tokens(words[static_cast<std::size_t>(j)], w)) return at;
    }
}

// <0, 0, >0 as the code points of x[0:n] and y[0:n] compare (storage widths kx, ky).
template <class A, class B>
int compare_n(const A* x, const B* y, std::int64_t n) {
    for (std::int64_t i = 0; i < n; ++i)
        if (static_cast<std::uint32_t>(x[i]) != static_cast<std::uint32_t>(y[i]))
            return static_cast<std::uint32_t>(x[i]) < static_cast<std::uint32_t>(y[i]) ? -1 : 1;
    return 0;
}

template <class A>
int compare_n(const A* x, int ky, const void* y, std::int64_t n) {
    if (ky == 1) return compare_n(x, static_cast<const std::uint8_t*>(y), n);
    if (ky == 2) return compare_n(x, static_cast<const std::uint16_t*>(y), n);
    return compare_n(x, static_cast<const std::uint32_t*>(y), n);
}

int compare_words(const TokenRef& x, const TokenRef& y, std::int64_t n) {
    const char* dx = static_cast<const char*>(x.data) + x.a0 * x.kind;
    const char* dy = static_cast<const char*>(y.data) + y.a0 * y.kind;
    if (x.kind == 1 && y.kind == 1) {  // (bytes compare as unsigned: as code points)
        int c = std::memcmp(dx, dy, static_cast<std::size_t>(n));
        return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    if (x.kind == 1) return compare_n(reinterpret_cast<const std::uint8_t*>(dx), y.kind, dy, n);
    if (x.kind == 2) return compare_n(reinterpret_cast<const std::uint16_t*>(dx), y.kind, dy, n);
    return compare_n(reinterpret_cast<const std::uint32_t*>(dx), y.kind, dy, n);
}

// compare_tokens of the bigrams "bi:" + a1 + " " + b1 and "bi:" + a2 + " " + b2 from their
// words (which hold no space): the words compared span to span, not code point by code
// point through TokenRef::at.
int compare_bigrams(const TokenRef& a1, const TokenRef& b1, const TokenRef& a2,
                    const TokenRef& b2) {
    std::int64_t n1 = a1.a1 - a1.a0, n2 = a2.a1 - a2.a0;
    int c = compare_words(a1, a2, std::min(n1, n2));
    if (c != 0) return c;
    if (n1 != n2) {  // one first word is a prefix of the other: " " against its next letter
        std::uint32_t next = n1 < n2 ? nbk_mail::code_point(a2.kind, a2.data, a2.a0 + n1)
                                     : nbk_mail::code_point(a1.kind, a1.data, a1.a0 + n2);
        bool space_first = ' ' < next;
        return (n1 < n2) == space_first ? -1 : 1;
    }
    n1 = b1.a1 - b1.a0;
    n2 = b2.a1 - b2.a0;
    c = compare_words(b1, b2, std::min(n1, n2));
    if (c != 0) return c;
    return n1 < n2 ? -1 : (n1 > n2 ? 1 : 0);
}

constexpr std::uint64_t kNoKey = ~std::uint64_t{0};

// The first 8 code points of a + " " + b as the bytes of a big-endian word, zeros past its
// end: ordered as the tokens "bi:" + a + " " + b are, where they differ in those code
// points (a zero byte is below every letter, so a prefix comes first); kNoKey if one of
// them is 0 or above 255 (those tokens are compared by their words).
std::uint64_t prefix_key(const TokenRef& a, const TokenRef& b) {
    std::uint64_t key = 0;
    int filled = 0;
    const TokenRef* parts[2] = {&a, &b};
    for (int p = 0; p < 2 && filled < 8; ++p) {
        if (p == 1) {
            key = key << 8 | ' ';
            ++filled;
        }
        const TokenRef& w = *parts[p];
        for (std::int64_t i = w.a0; i < w.a1 && filled < 8; ++i, ++filled) {
            std::uint32_t c = nbk_mail::code_point(w.kind, w.data, i);
            if (c == 0 || c > 255) return kNoKey;
            key = key << 8 | c;
        }
    }
    return key << (8 * (8 - filled));  // (filled < 8: shifts in the zeros past the end)
}

// The bigram clues tiled, as nbayes.spam._filter._tiled: strongest first, a bigram is kept
// only if neither of its words is a word of a bigram kept before it (overlapping bigrams
// are one piece of evidence); the other clues are kept, in their order.
void tile_bigrams(std::vector<Clue>& clues) {
    std::vector<std::size_t> at;
    std::vector<TokenRef> firsts, seconds;
    at.reserve(clues.size());
    firsts.reserve(clues.size());
    seconds.reserve(clues.size());
    TokenRef a{}, b{};
    for (std::size_t k = 0; k < clues.size(); ++k) {
        if (bigram_words(clues[k].token, a, b)) {
            at.push_back(k);
            firsts.push_back(a);
            seconds.push_back(b);
        }
    }
    if (at.size() < 2) return;
    // Stronger's order: |f - 1/2| descending, then the token. Ties are many (a bigram seen
    // once in spam has the f of every other such bigram); most are told apart by the
    // first 8 code points of "a b" packed in a word (prefix_key), the rest by their words.
    struct Entry {
        double d;
        std::uint64_t key;
        std::size_t k;  // (into at, firsts, seconds)
    };
    std::vector<Entry> order(at.size());
    for (std::size_t k = 0; k < order.size(); ++k)
        order[k] = Entry{clues[at[k]].d, prefix_key(firsts[k], seconds[k]), k};
    std::sort(order.begin(), order.end(), [&](const Entry& x, const Entry& y) {
        if (x.d != y.d) return x.d > y.d;
        if (x.key != y.key && x.key != kNoKey && y.key != kNoKey) return x.key > y.key;
        return compare_bigrams(firsts[x.k], seconds[x.k], firsts[y.k], seconds[y.k]) > 0;
    });
    std::size_t size = 16;
    while (size < 4 * at.size()) size *= 2;
    std::vector<std::int32_t> slot(size, -1);
    std::vector<TokenRef> words;
    words.reserve(2 * at.size());
    std::vector<char> dropped(clues.size(), 0);
    for (const Entry& e : order) {
        std::size_t k = e.k;
        const std::uint64_t hx = nbk_mail::ref_hash(firsts[k]), hy = nbk_mail::ref_hash(seconds[k]);
        std::size_t sx = word_slot(slot, words, firsts[k], hx);
        std::size_t sy = word_slot(slot, words, seconds[k], hy);
        if (slot[sx] >= 0 || slot[sy] >= 0) {  // a word of a stronger kept bigram
            dropped[at[k]] = 1;
            continue;
        }
        slot[sx] = static_cast<std::int32_t>(words.size());
        words.push_back(firsts[k]);
        sy = word_slot(slot, words, seconds[k], hy);  // (the same word again: found, not added)
        if (slot[sy] < 0) {
            slot[sy] = static_cast<std::int32_t>(words.size());
            words.push_back(seconds[k]);
        }
    }
    std::size_t out = 0;
    for (std::size_t k = 0; k < clues.size(); ++k)
        if (!dropped[k]) clues[out++] = clues[k];
    clues.resize(out);
}

// The `n` strongest clues (Stronger's order) moved to the front of `clues`, in no order
// (0 < n < size), as std::nth_element with Stronger leaves them: their |f - 1/2| found by
// a selection of the doubles alone, the clues moved once, and Stronger's comparison of
// tokens made only among the clues of the n-th's |f - 1/2| (the clues are 88 bytes: a
// selection that moved them about was a tenth of a message's scoring).
void strongest_first(std::vector<Clue>& clues, std::size_t n) {
    std::vector<double> ds(clues.size());
    for (std::size_t k = 0; k < clues.size(); ++k) ds[k] = clues[k].d;
    std::nth_element(ds.begin(), ds.begin() + static_cast<std::ptrdiff_t>(n - 1), ds.end(),
                     std::greater<double>());
    const double edge = ds[n - 1];
    // those above the edge first, then those at it (of which the tokens decide), then the rest
    auto above = std::partition(clues.begin(), clues.end(), [edge](const Clue& c) { return c.d > edge; });
    auto at = std::partition(above, clues.end(), [edge](const Clue& c) { return c.d == edge; });
    const auto wanted = clues.begin() + static_cast<std::ptrdiff_t>(n);
    if (wanted > above && wanted < at) std::nth_element(above, wanted, at, Stronger{});
}

// The bigrams tiled (tile), once_per_counts (least > 0), then the `cap` strongest clues
// (0: all).
void choose(std::vector<Clue>& clues, Py_ssize_t cap, Py_ssize_t least, bool tile) {
    std::size_t most = 2 * static_cast<std::size_t>(std::max<Py_ssize_t>(cap, 0)) + 16;
    if (tile && cap > 0 && clues.size() > most) {
        // Whether a clue survives the tiling and once_per_counts depends on stronger clues
        // only, so the strongest `most` decide alone which of them survive; if `cap` of
        // them do, those are the answer (a long message's many weak bigrams are not tiled).
        auto end = clues.begin() + static_cast<std::ptrdiff_t>(most);
        strongest_first(clues, most);
        std::vector<Clue> strongest(clues.begin(), end);
        tile_bigrams(strongest);
        if (least > 0) once_per_counts(strongest, least);
        if (static_cast<Py_ssize_t>(strongest.size()) >= cap) {
            clues.swap(strongest);
            tile = false;
            least = 0;
        }
    }
    if (tile) tile_bigrams(clues);
    if (least > 0) once_per_counts(clues, least);
    if (cap > 0 && static_cast<Py_ssize_t>(clues.size()) > cap) {
        strongest_first(clues, static_cast<std::size_t>(cap));
        clues.resize(static_cast<std::size_t>(cap));
    }
}

PyObject* clue_lists(std::vector<Clue>& clues, const Scoring& sc) {
    choose(clues, sc.cap, sc.same_min, sc.tile != 0);
    PyObject* lf = PyList_New(static_cast<Py_ssize_t>(clues.size()));
    PyObject* l1 = lf ? PyList_New(static_cast<Py_ssize_t>(clues.size())) : nullptr;
    bool ok = l1 != nullptr;
    for (std::size_t k = 0; ok && k < clues.size(); ++k) {
        PyObject* a = PyFloat_FromDouble(std::log(clues[k].f));
        PyObject* b = PyFloat_FromDouble(std::log1p(-clues[k].f));
        if (a == nullptr || b == nullptr) {
            Py_XDECREF(a);
            Py_XDECREF(b);
            ok = false;
            break;
        }
        PyList_SET_ITEM(lf, static_cast<Py_ssize_t>(k), a);
        PyList_SET_ITEM(l1, static_cast<Py_ssize_t>(k), b);
    }
    PyObject* result = ok ? PyTuple_Pack(2, lf, l1) : nullptr;
    Py_XDECREF(lf);
    Py_XDECREF(l1);
    return result;
}

// The chosen clues (choose) as SpamFilter._clue_values' records: a list of (|f - 0.5|,
// token, f, ln f, ln(1 - f), ham, spam), the tokens those of the set (each clue's obj).
PyObject* clue_records(std::vector<Clue>& clues, const Scoring& sc) {
    choose(clues, sc.cap, sc.same_min, sc.tile != 0);
    PyObject* out = PyList_New(static_cast<Py_ssize_t>(clues.size()));
    for (std::size_t k = 0; out != nullptr && k < clues.size(); ++k) {
        const Clue& c = clues[k];
        auto* token = static_cast<PyObject*>(c.token.obj);
        PyObject* record = token == nullptr
                               ? nullptr
                               : Py_BuildValue("(dOddd" "LL)", c.d, token, c.f, std::log(c.f),
                                               std::log1p(-c.f), static_cast<long long>(c.ham),
                                               static_cast<long long>(c.spam));
        if (record == nullptr) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_SystemError, "clue_logs: no token");
            Py_CLEAR(out);
            break;
        }
        PyList_SET_ITEM(out, static_cast<Py_ssize_t>(k), record);
    }
    return out;
}

// The count columns of a clue_logs call; false (a Python error set) if they are not.
bool columns(PyObject* ham_obj, PyObject* spam_obj, Py_buffer* hv, Py_buffer* sv, Scoring& sc) {
    if (!int64_column(ham_obj, hv)) return false;
    if (!int64_column(spam_obj, sv)) {
        PyBuffer_Release(hv);
        return false;
    }
    sc.ham = static_cast<const std::int64_t*>(hv->buf);
    sc.spam = static_cast<const std::int64_t*>(sv->buf);
    sc.rows = std::min(hv->len, sv->len) / 8;
    return true;
}

const char clue_logs_doc[] =
    "clue_logs(tokens, index, ham, spam, n_ham, n_spam, s, x, c, min_dev, max_clues,\n"
    "same_counts_min, tile_bigrams) -> (log_f, log_1mf) or None\n\n"
    "The ln f(w) and ln(1 - f(w)) of the clues of one message's `tokens` (row of each in the\n"
    "dict `index`, or in the table's TokenStore, counts in the array('q')\n"
    "columns `ham` and `spam`): those with |f - 0.5| >= min_dev, their bigrams tiled (if\n"
    "tile_bigrams: a bigram sharing a word with a stronger one dropped), one of each ham and\n"
    "spam counts seen in at least same_counts_min messages (0: all), the max_clues strongest\n"
    "(0: all). None where SpamFilter._clue_values would divide by zero, `tokens` is not a\n"
    "set or (with a TokenStore) holds other than exact str (the caller takes that path).\n"
    "With `records` (a last argument, default False): the list of SpamFilter._clue_values'\n"
    "records of those clues, (|f - 0.5|, token, f, ln f, ln(1 - f), ham, spam), instead.";

PyObject* py_clue_logs(PyObject*, PyObject* args) {
    PyObject *tokens, *index, *ham_obj, *spam_obj;
    Scoring sc;
    int records = 0;
    if (!PyArg_ParseTuple(args, "OOOOLLddddnnp|p", &tokens, &index, &ham_obj, &spam_obj,
                          &sc.p.n_ham, &sc.p.n_spam, &sc.p.s, &sc.p.x, &sc.p.c, &sc.p.min_dev,
                          &sc.cap, &sc.same_min, &sc.tile, &records))
        return nullptr;
    bool indexed = Py_IS_TYPE(index, &TokenStoreType);
    if (!indexed && !PyDict_Check(index)) {
        PyErr_SetString(PyExc_TypeError, "clue_logs: index must be a dict or a TokenStore");
        return nullptr;
    }
    Py_buffer hv, sv;
    if (!columns(ham_obj, spam_obj, &hv, &sv, sc)) return nullptr;
    std::vector<Clue> clues;
    PyObject* result = nullptr;
    bool fallback = false;
    bool failed = false;
    try {
        if (!PyAnySet_Check(tokens)) {
            fallback = true;
        } else if (indexed) {
            std::vector<TokenRef> refs;
            std::vector<Probe> probes;
            if (!set_refs(tokens, refs, probes)) {
                failed = PyErr_Occurred() != nullptr;
                fallback = !failed;
            } else {
                lookup_rows(refs, probes, store_of(index), sc.ham, sc.spam);
                clues.reserve(refs.size());  // (at most one a token: no reallocation)
                fallback = !collect(refs, probes, sc, clues);
            }
        } else {
            // a set or frozenset only: it keeps the tokens alive while the clues point at them
            PyObject* it = PyObject_GetIter(tokens);
            PyObject* t;
            while (it != nullptr && (t = PyIter_Next(it)) != nullptr) {
                Py_DECREF(t);  // the set keeps it alive
                if (!PyUnicode_Check(t)) {
                    fallback = true;
                    break;
                }
                PyObject* row = PyDict_GetItemWithError(index, t);
                std::int64_t g = 0, b = 0;
                if (row != nullptr) {
                    Py_ssize_t i = PyLong_AsSsize_t(row);
                    if (i < 0 || i >= sc.rows) {
                        if (PyErr_Occurred()) PyErr_Clear();
                        fallback = true;
                        break;
                    }
                    g = sc.ham[i];
                    b = sc.spam[i];
                } else if (PyErr_Occurred()) {
                    break;
                }
                double f;
                if (!nbk_mail::robinson_f(g, b, sc.p, f)) {
                    fallback = true;
                    break;
                }
                double d = nbk_mail::deviation(f);
                if (d >= sc.p.min_dev)
                    clues.push_back(Clue{d, f, str_ref(t), g, b});
            }
            Py_XDECREF(it);
            if (PyErr_Occurred()) failed = true;
        }
        if (!failed && !fallback)
            result = records ? clue_records(clues, sc) : clue_lists(clues, sc);
        else if (!failed)
            result = Py_NewRef(Py_None);
    } catch (const std::bad_alloc&) {
        PyErr_NoMemory();
    }
    PyBuffer_Release(&hv);
    PyBuffer_Release(&sv);
    return result;
}

// Adds refs[k] (hash hashes) to the open-addressing set `seen` of refs' indices (-1:
// empty) unless a ref of the same code points is there; true if added.
bool add_new(std::vector<std::int32_t>& seen, const std::vector<TokenRef>& refs,
             const std::vector<Probe>& probes, std::size_t k, bool check) {
    std::size_t mask = seen.size() - 1;
    std::uint64_t h = probes[k].hash;
    for (std::size_t at = static_cast<std::size_t>(h) & mask;; at = (at + 1) & mask) {
        std::int32_t j = seen[at];
        if (j < 0) {
            seen[at] = static_cast<std::int32_t>(k);
            return true;
        }
        if (check && probes[static_cast<std::size_t>(j)].hash == h &&
            nbk_mail::same_text_tokens(refs[static_cast<std::size_t>(j)], refs[k]))
            return false;
    }
}

const char clue_logs_text_doc[] =
    "clue_logs_text(tokens, text, min_length, max_length, bigrams, index, ham, spam, n_ham,\n"
    "n_spam, s, x, c, min_dev, max_clues, same_counts_min, tile_bigrams) -> (log_f, log_1mf)\n"
    "or None\n\n"
    "clue_logs of the set `tokens` with the words of `text` (and their bigrams) that\n"
    "words(text, min_length, max_length, bigrams, out) would add to it, read from the text\n"
    "without a str per word: the same values. None unless `index` is a TokenStore\n"
    "and `tokens` a set of exact str, or where clue_logs answers None.";

// The (log spamicity, log(1 - spamicity)) of the chosen clues, as
// nbayes.spam._filter._fisher computes them; None where that path must answer.
PyObject* fisher_scores(std::vector<Clue>& clues, const Scoring& sc, double tail_weight,
                        double ham_bias, const nbk_mail::Lgamma& lg, bool mean) {
    choose(clues, sc.cap, sc.same_min, sc.tile != 0);
    std::vector<double> logs, partials;
    double sum_f, sum_1mf, log_spam, log_ham;
    logs.reserve(clues.size());
    for (const Clue& c : clues) logs.push_back(std::log(c.f));
    bool ok = nbk_mail::fsum(logs, partials, sum_f);
    logs.clear();
    for (const Clue& c : clues) logs.push_back(std::log1p(-c.f));
    ok = ok && nbk_mail::fsum(logs, partials, sum_1mf);
    const auto k = static_cast<std::int64_t>(clues.size());
    if (ok && mean)  // (combining="mean": the clues' mean, no chi-square)
        nbk_mail::mean_log_scores(sum_f, sum_1mf, k, ham_bias, sc.p.n_ham, sc.p.n_spam, log_spam,
                                  log_ham);
    else
        ok = ok && nbk_mail::fisher_log_scores(sum_f, sum_1mf, k, tail_weight, ham_bias, lg,
                                               log_spam, log_ham);
    if (!ok) return Py_NewRef(Py_None);
    return Py_BuildValue("(dd)", log_spam, log_ham);
}

// Adds the str `token` (a new reference, or null with a Python error set) to the set
// `out`; false with a Python error set if that fails.
bool add_new_token(PyObject* out, PyObject* token) {
    if (token == nullptr) return false;
    int failed = PySet_Add(out, token);
    Py_DECREF(token);
    return failed == 0;
}

// A token's code points, built piece by piece, then added to a set as a str (canonical:
// PyUnicode_FromKindAndData stores it at the narrowest width).
struct TokenBuilder {
    std::vector<Py_UCS4> cps;
    void ascii(const char* s) {
        while (*s) cps.push_back(static_cast<unsigned char>(*s++));
    }
    void text(PyObject* str, Py_ssize_t from, Py_ssize_t to) {
        int kind = PyUnicode_KIND(str);
        const void* data = PyUnicode_DATA(str);
        for (Py_ssize_t i = from; i < to; ++i) cps.push_back(PyUnicode_READ(kind, data, i));
    }
    void number(long long v) { ascii(std::to_string(v).c_str()); }
    // adds the token to `out` and starts again after the first `keep` code points
    bool add_to(PyObject* out, std::size_t keep) {
        PyObject* token = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, cps.data(),
                                                    static_cast<Py_ssize_t>(cps.size()));
        cps.resize(keep);
        return add_new_token(out, token);
    }
};

// Adds the tokens of the long word w[start:end] to the set `out`, each after `prefix` (a
// str, or null: none), as _long_words_reference does.
bool long_word_tokens(PyObject* w, Py_ssize_t start, Py_ssize_t end, PyObject* out,
                      PyObject* prefix, TokenBuilder& tb) {
    Py_ssize_t n = end - start;
    if (n <= 0) {
        PyErr_SetString(PyExc_IndexError, "long_words: a word is empty");
        return false;
    }
    int kind = PyUnicode_KIND(w);
    const void* data = PyUnicode_DATA(w);
    Py_ssize_t ats = 0, at = -1, dots = 0, high = 0;
    for (Py_ssize_t i = start; i < end; ++i) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c == '@' && ats++ == 0) at = i;
        dots += c == '.';
        high += c > 127;
    }
    tb.cps.clear();
    if (prefix != nullptr) tb.text(prefix, 0, PyUnicode_GET_LENGTH(prefix));
    std::size_t base = tb.cps.size();
    if (n < 40 && ats == 1 && dots > 0) {  // an e-mail address: its name and domain's labels
        tb.ascii("email name:");
        tb.text(w, start, at);
        if (!tb.add_to(out, base)) return false;
        for (Py_ssize_t from = at + 1;;) {
            Py_ssize_t to = from;
            while (to < end && PyUnicode_READ(kind, data, to) != '.') ++to;
            tb.ascii("email addr:");
            tb.text(w, from, to);
            if (!tb.add_to(out, base)) return false;
            if (to >= end) break;
            from = to + 1;
        }
    } else {
        tb.ascii("skip:");
        tb.text(w, start, start + 1);
        tb.ascii(" ");
        tb.number(n / 10 * 10);
        if (!tb.add_to(out, base)) return false;
    }
    if (high > 0) {  // round(high * 100 / n): the same double, rounded half to even
        double share = std::nearbyint(static_cast<double>(high * 100) / static_cast<double>(n));
        tb.ascii("8bit%:");
        tb.number(static_cast<long long>(share));
        if (!tb.add_to(out, base)) return false;
    }
    return true;
}

// clue_logs_text (lgamma nullptr) or fisher_text.
PyObject* text_clues(PyObject* args, bool fisher) {
    PyObject *tokens, *text, *index, *ham_obj, *spam_obj, *lg_obj = nullptr;
    Py_ssize_t lo, hi;
    int bigrams, long_words = 0, mean = 0;
    double tail_weight = 0.0, ham_bias = 0.0;
    Scoring sc;
    bool parsed =
        fisher ? PyArg_ParseTuple(args, "OUnnpOOOLLddddnnpddO|pp", &tokens, &text, &lo, &hi,
                                  &bigrams, &index, &ham_obj, &spam_obj, &sc.p.n_ham,
                                  &sc.p.n_spam, &sc.p.s, &sc.p.x, &sc.p.c, &sc.p.min_dev, &sc.cap,
                                  &sc.same_min, &sc.tile, &tail_weight, &ham_bias, &lg_obj,
                                  &long_words, &mean)
               : PyArg_ParseTuple(args, "OUnnpOOOLLddddnnp", &tokens, &text, &lo, &hi, &bigrams,
                                  &index, &ham_obj, &spam_obj, &sc.p.n_ham, &sc.p.n_spam, &sc.p.s,
                                  &sc.p.x, &sc.p.c, &sc.p.min_dev, &sc.cap, &sc.same_min, &sc.tile);
    if (!parsed) return nullptr;
    if (!Py_IS_TYPE(index, &TokenStoreType) || !PyAnySet_Check(tokens) ||
        (long_words && !PySet_CheckExact(tokens)))
        Py_RETURN_NONE;
    Py_buffer lv{};
    nbk_mail::Lgamma lg{nullptr, 0};
    if (fisher) {
        auto fits = [](const char* f) { return f != nullptr && std::string(f) == "d"; };
        if (!typed_buffer(lg_obj, &lv, 8, fits, "fisher_text: lgamma must be an array('d')"))
            return nullptr;
        lg = nbk_mail::Lgamma{static_cast<const double*>(lv.buf), lv.len / 8};
    }
    Py_buffer hv, sv;
    if (!columns(ham_obj, spam_obj, &hv, &sv, sc)) {
        if (fisher) PyBuffer_Release(&lv);
        return nullptr;
    }
    PyObject* result = nullptr;
    try {
        std::vector<TokenRef> refs;
        std::vector<Probe> probes;
        std::vector<Span> kept, longs;
        std::vector<Clue> clues;
        split_text(text, lo, hi, kept, longs);
        bool ok = true;
        if (long_words) {  // the long words' tokens join the set (as _long_words adds them)
            TokenBuilder tb;
            for (std::size_t k = 0; ok && k < longs.size(); ++k)
                ok = long_word_tokens(text, longs[k].start, longs[k].end, tokens, nullptr, tb);
        }
        std::size_t most = static_cast<std::size_t>(PySet_GET_SIZE(tokens)) + 2 * kept.size();
        ok = ok && most <= (std::size_t{1} << 30);  // (int32 indices)
        if (ok) {
            refs.reserve(most);
            probes.reserve(most);
            ok = set_refs(tokens, refs, probes);
        }
        if (ok) {
            std::size_t size = 16;
            while (size < 2 * most) size *= 2;
            std::vector<std::int32_t> seen(size, -1);
            for (std::size_t k = 0; k < refs.size(); ++k) add_new(seen, refs, probes, k, false);
            int kind = PyUnicode_KIND(text);
            const void* data = PyUnicode_DATA(text);
            std::uint64_t prev_h = 0, prev_p = 0;
            for (std::size_t k = 0; k < kept.size(); ++k) {
                const Span& w = kept[k];
                std::uint64_t h, pw;
                nbk_mail::span_hash(kind, data, w.start, w.end, h, pw);
                refs.push_back(TokenRef{data, kind, w.start, w.end, -1, -1, nullptr});
                probes.push_back(Probe{nbk_mail::finish_hash(h, w.end - w.start), 0, -1});
                if (!add_new(seen, refs, probes, refs.size() - 1, true)) {
                    refs.pop_back();
                    probes.pop_back();
                }
                if (bigrams && k > 0) {
                    const Span& v = kept[k - 1];
                    TokenRef b{data, kind, v.start, v.end, w.start, w.end, nullptr};
                    refs.push_back(b);
                    probes.push_back(Probe{nbk_mail::bigram_hash(prev_h, prev_p, h, pw, b.size()),
                                           0, -1});
                    if (!add_new(seen, refs, probes, refs.size() - 1, true)) {
                        refs.pop_back();
                        probes.pop_back();
                    }
                }
                prev_h = h;
                prev_p = pw;
            }
            lookup_rows(refs, probes, store_of(index), sc.ham, sc.spam);
            clues.reserve(refs.size());  // (at most one a token: no reallocation)
            ok = collect(refs, probes, sc, clues);
        }
        if (ok)
            result = fisher ? fisher_scores(clues, sc, tail_weight, ham_bias, lg, mean != 0)
                            : clue_lists(clues, sc);
        else if (!PyErr_Occurred()) result = Py_NewRef(Py_None);
    } catch (const std::bad_alloc&) {
        PyErr_NoMemory();
    }
    PyBuffer_Release(&hv);
    PyBuffer_Release(&sv);
    if (fisher) PyBuffer_Release(&lv);
    return result;
}

PyObject* py_clue_logs_text(PyObject*, PyObject* args) { return text_clues(args, false); }

const char fisher_text_doc[] =
    "fisher_text(tokens, text, min_length, max_length, bigrams, index, ham, spam, n_ham,\n"
    "n_spam, s, x, c, min_dev, max_clues, same_counts_min, tile_bigrams, tail_weight, ham_bias,\n"
    "lgamma, long_words=False, mean=False)\n"
    "-> (log_spam, log_ham) or None\n\n"
    "Fisher's combining (nbayes.spam._combining.fisher_log_scores of math.fsum of the\n"
    "logs) of clue_logs_text's clues, bit for bit (with `mean`, combining=\"mean\":\n"
    "mean_log_odds there, n_ham and n_spam the filter's); `lgamma` an array('d') of\n"
    "math.lgamma(0..n-1). With `long_words`, the tokens of the text's words longer than\n"
    "max_length (long_words(...) of them) are first added to the set `tokens` (a set: None\n"
    "otherwise). None where clue_logs_text answers None, a clue count needs a longer\n"
    "lgamma, or a value is not finite (the Python path then answers).";

PyObject* py_fisher_text(PyObject*, PyObject* args) { return text_clues(args, true); }


const char count_bytes_doc[] =
    "count_bytes(data, needle, start, end) -> int\n\n"
    "data.count(needle, start, end) for bytes `data` and a non-empty `needle`, with start\n"
    "and end clipped to data as slices clip them (memchr: the MIME guards' counts); over\n"
    "64 KiB of bytes, without the GIL.";

PyObject* py_count_bytes(PyObject*, PyObject* args) {
    Py_buffer data, needle;
    Py_ssize_t start, end;
    if (!PyArg_ParseTuple(args, "y*y*nn", &data, &needle, &start, &end)) return nullptr;
    PyObject* out = nullptr;
    if (needle.len == 0) {
        PyErr_SetString(PyExc_ValueError, "count_bytes: the needle is empty");
    } else {
        const Py_ssize_t n = data.len;
        if (start < 0) start = std::max<Py_ssize_t>(start + n, 0);
        if (end < 0) end = std::max<Py_ssize_t>(end + n, 0);
        end = std::min(end, n);
        std::int64_t count = 0;
        if (start < end) {  // (10 MB of short lines: ~10 ms, other threads run meanwhile)
            WithoutGilIf released(release_for(data, end - start));
            count = nbk_mail::count_bytes(static_cast<const std::uint8_t*>(data.buf) + start, end - start,
                                          static_cast<const std::uint8_t*>(needle.buf), needle.len);
        }
        out = PyLong_FromLongLong(count);
    }
    PyBuffer_Release(&data);
    PyBuffer_Release(&needle);
    return out;
}

const char first_not_headish_doc[] =
    "first_not_headish(data) -> int\n\n"
    "The end of the first line end (LF, CRLF or a lone CR) of bytes `data` followed by\n"
    "neither \"From \", a space, a tab nor \":\", as nbayes.mail._mime's\n"
    "_NOT_HEADISH.search(data).end(); -1 if none. Without the GIL (over 64 KiB of bytes).";

PyObject* py_first_not_headish(PyObject*, PyObject* args) {
    Py_buffer data;
    if (!PyArg_ParseTuple(args, "y*:first_not_headish", &data)) return nullptr;
    std::int64_t end;
    {
        WithoutGilIf released(release_for(data, data.len));  // (bytes: nobody changes them)
        end = nbk_mail::first_not_headish(static_cast<const std::uint8_t*>(data.buf), data.len);
    }
    PyBuffer_Release(&data);
    return PyLong_FromLongLong(end);
}

const char first_non_head_line_doc[] =
    "first_non_head_line(data, start) -> int\n\n"
    "The position of the first \"\\n\" at or after `start` in bytes `data` followed by neither\n"
    "a field's name and \":\" nor a space or a tab, as nbayes.mail._mime's\n"
    "_NON_HEAD_LINE.search(data, start).start(); -1 if none. Without the GIL (over 64 KiB\n"
    "of bytes).";

// A line scan of raw mail from a position: ``scan(data, start)`` for the arguments (bytes
// `data`, int `start`) parsed with `format`, run without the GIL over 64 KiB of bytes; the
// position it returns (or -1) as a Python int.
template <class Scan>
PyObject* scan_from(PyObject* args, const char* format, Scan scan) {
    Py_buffer data;
    Py_ssize_t start;
    if (!PyArg_ParseTuple(args, format, &data, &start)) return nullptr;
    std::int64_t at;
    {
        WithoutGilIf released(release_for(data, data.len));
        at = scan(static_cast<const std::uint8_t*>(data.buf), data.len, start);
    }
    PyBuffer_Release(&data);
    return PyLong_FromLongLong(at);
}

PyObject* py_first_non_head_line(PyObject*, PyObject* args) {
    return scan_from(args, "y*n:first_non_head_line", nbk_mail::first_non_head_line);
}

const char next_postmark_end_doc[] =
    "next_postmark_end(data, start) -> int\n\n"
    "The end of the first mbox postmark after a blank line at or after `start` in bytes\n"
    "`data` (the start of the line after it), as nbayes.mail._mime's\n"
    "_NEXT_POSTMARK.search(data, start).end(); -1 if none. Linear in the data, without the\n"
    "GIL (over 64 KiB of bytes).";

PyObject* py_next_postmark_end(PyObject*, PyObject* args) {
    return scan_from(args, "y*n:next_postmark_end", nbk_mail::next_postmark_end);
}

const char strip_mime_lines_doc[] =
    "strip_mime_lines(data) -> bytes\n\n"
    "Bytes `data` without its boundary and content lines, as nbayes.mail._mime's\n"
    "_MIME_LINE.sub(b\"\", data): each line starting with \"--\", \"Content-...:\" or\n"
    "\"MIME-Version:\" (ASCII case ignored) and ended by \"\\n\", with its continuation lines.\n"
    "Scanned without the GIL (over 64 KiB of bytes).";

PyObject* py_strip_mime_lines(PyObject*, PyObject* args) {
    Py_buffer data;
    if (!PyArg_ParseTuple(args, "y*:strip_mime_lines", &data)) return nullptr;
    const auto* s = static_cast<const std::uint8_t*>(data.buf);
    std::vector<std::int64_t> spans;
    bool ok = true;
    {
        WithoutGilIf released(release_for(data, data.len));
        try {
            nbk_mail::mime_line_spans(s, data.len, spans);
        } catch (const std::bad_alloc&) {
            ok = false;
        }
    }
    PyObject* out = nullptr;
    if (!ok) {
        PyErr_NoMemory();
    } else {
        std::int64_t removed = 0;
        for (std::size_t k = 0; k < spans.size(); k += 2) removed += spans[k + 1] - spans[k];
        out = PyBytes_FromStringAndSize(nullptr, data.len - removed);
        if (out != nullptr) {
            char* to = PyBytes_AS_STRING(out);
            std::int64_t at = 0;
            for (std::size_t k = 0; k <= spans.size(); k += 2) {
                const std::int64_t end = k < spans.size() ? spans[k] : data.len;
                std::memcpy(to, s + at, static_cast<std::size_t>(end - at));
                to += end - at;
                if (k < spans.size()) at = spans[k + 1];
            }
        }
    }
    PyBuffer_Release(&data);
    return out;
}

const char head_fields_doc[] =
    "head_fields(head) -> [(name, value), ...] or None\n\n"
    "The fields of the message head `head` (a str ending in its last field's newline) as\n"
    "nbayes.mail._mime's _FIELD.findall finds them, if _SIMPLE_HEAD.fullmatch(head) holds\n"
    "(well-formed fields only: each a name, \":\", the rest of its line and its continuation\n"
    "lines); None otherwise.";

PyObject* py_head_fields(PyObject*, PyObject* args) {
    PyObject* head;
    std::vector<nbk_mail::Field> fields;
    bool simple = false;
    auto scan = [&](const auto* s, Py_ssize_t n) { simple = nbk_mail::head_fields(s, n, fields); };
    if (!PyArg_ParseTuple(args, "U:head_fields", &head) || !guarded([&] { by_width(head, scan); }))
        return nullptr;
    if (!simple) Py_RETURN_NONE;
    PyObject* out = PyList_New(static_cast<Py_ssize_t>(fields.size()));
    if (out == nullptr) return nullptr;
    for (std::size_t k = 0; k < fields.size(); ++k) {
        const nbk_mail::Field& f = fields[k];
        PyObject* name = PyUnicode_Substring(head, f.name_start, f.name_end);
        PyObject* value = name ? PyUnicode_Substring(head, f.value_start, f.value_end) : nullptr;
        PyObject* pair = value ? PyTuple_Pack(2, name, value) : nullptr;
        Py_XDECREF(name);
        Py_XDECREF(value);
        if (pair == nullptr) {
            Py_DECREF(out);
            return nullptr;
        }
        PyList_SET_ITEM(out, static_cast<Py_ssize_t>(k), pair);
    }
    return out;
}

// The list of text[spans[0]:spans[1]], text[spans[2]:spans[3]], ...
PyObject* pieces(PyObject* text, const std::vector<std::int64_t>& spans) {
    PyObject* out = PyList_New(static_cast<Py_ssize_t>(spans.size() / 2));
    if (out == nullptr) return nullptr;
    for (std::size_t k = 0; k < spans.size(); k += 2) {
        PyObject* piece = PyUnicode_Substring(text, spans[k], spans[k + 1]);
        if (piece == nullptr) {
            Py_DECREF(out);
            return nullptr;
        }
        PyList_SET_ITEM(out, static_cast<Py_ssize_t>(k / 2), piece);
    }
    return out;
}

// `text` with each of the spans [spans[0], spans[1]), [spans[2], spans[3]), ... (in order,
// not overlapping) replaced by a space (`space` false: by nothing): a str of the narrowest
// storage its code points need (as Python's own str operations make: equal strings of two
// widths would compare unequal).
PyObject* spaced_out(PyObject* text, const std::vector<std::int64_t>& spans, bool space = true) {
    if (spans.empty()) return Py_NewRef(text);
    int kind = PyUnicode_KIND(text);
    const void* data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    // the text between the spans (and a space for each): its length and largest code point
    Py_ssize_t size = 0;
    Py_UCS4 top = space ? ' ' : 0;
    bool ascii = PyUnicode_IS_ASCII(text);
    for (std::size_t k = 0; k <= spans.size(); k += 2) {
        Py_ssize_t from = k == 0 ? 0 : spans[k - 1];
        Py_ssize_t to = k < spans.size() ? spans[k] : n;
        size += to - from + (space && k < spans.size() ? 1 : 0);
        if (!ascii)
            for (Py_ssize_t i = from; i < to; ++i)
                top = std::max(top, PyUnicode_READ(kind, data, i));
    }
    PyObject* out = PyUnicode_New(size, ascii ? 127 : top);
    if (out == nullptr) return nullptr;
    int okind = PyUnicode_KIND(out);
    void* odata = PyUnicode_DATA(out);
    Py_ssize_t pos = 0;
    for (std::size_t k = 0; k <= spans.size(); k += 2) {
        Py_ssize_t from = k == 0 ? 0 : spans[k - 1];
        Py_ssize_t to = k < spans.size() ? spans[k] : n;
        if (okind == kind) {  // (the largest code point may be narrower than the input's)
            std::memcpy(static_cast<char*>(odata) + pos * kind,
                        static_cast<const char*>(data) + from * kind,
                        static_cast<std::size_t>((to - from) * kind));
            pos += to - from;
        } else {
            for (Py_ssize_t i = from; i < to; ++i)
                PyUnicode_WRITE(okind, odata, pos++, PyUnicode_READ(kind, data, i));
        }
        if (space && k < spans.size()) PyUnicode_WRITE(okind, odata, pos++, ' ');
    }
    return out;
}

const char strip_tags_doc[] =
    "strip_tags(markup, joins=False) -> str\n\n"
    "`markup` with its tags replaced by spaces, as nbayes.mail._html's _TAG.sub(\" \", markup);\n"
    "`joins`: its inline tags removed first, as _INLINE.sub(\"\", markup) (the letters either\n"
    "side of <b>, </span> join).";

PyObject* py_strip_tags(PyObject*, PyObject* args) {
    PyObject* markup;
    int joins = 0;
    if (!PyArg_ParseTuple(args, "U|p:strip_tags", &markup, &joins)) return nullptr;
    PyObject* text = Py_NewRef(markup);
    if (joins) {
        std::vector<std::int64_t> inline_tags;
        auto scan = [&](const auto* s, Py_ssize_t n) { nbk_mail::inline_tag_spans(s, n, inline_tags); };
        if (!guarded([&] { by_width(markup, scan); })) {
            Py_DECREF(text);
            return nullptr;
        }
        PyObject* joined = spaced_out(markup, inline_tags, false);
        Py_DECREF(text);
        if (joined == nullptr) return nullptr;
        text = joined;
    }
    std::vector<std::int64_t> tags;
    auto scan = [&](const auto* s, Py_ssize_t n) { nbk_mail::tag_spans(s, n, tags); };
    PyObject* out = guarded([&] { by_width(text, scan); }) ? spaced_out(text, tags) : nullptr;
    Py_DECREF(text);
    return out;
}

const char links_doc[] =
    "links(text) -> [url, ...]\n\n"
    "The URLs of the links of the ASCII text `text` (href, src, action and background\n"
    "attributes), as nbayes.mail._html's _LINK.findall(text) finds them. ValueError if\n"
    "`text` is not ASCII (_LINK ignores case beyond ASCII: findall reads such text).";

PyObject* py_links(PyObject*, PyObject* args) {
    PyObject* arg;
    if (!PyArg_ParseTuple(args, "U:links", &arg)) return nullptr;
    if (!PyUnicode_IS_ASCII(arg)) {
        PyErr_SetString(PyExc_ValueError, "links: text must be ASCII");
        return nullptr;
    }
    const auto* ascii = static_cast<const unsigned char*>(PyUnicode_DATA(arg));
    std::vector<std::int64_t> spans;
    if (!guarded([&] { nbk_mail::link_spans(ascii, PyUnicode_GET_LENGTH(arg), spans); }))
        return nullptr;
    return pieces(arg, spans);
}

const char split_urls_doc[] =
    "split_urls(text, lower) -> (text without its URLs, [url, ...])\n\n"
    "nbayes.mail._tokenizer.split_urls: the URLs (http://, https://, ftp://, www.) found\n"
    "in `lower` (`text` lower-cased code point for code point) cut out of `text`, each\n"
    "replaced by a space, and the URLs as `text` spells them, in order.";

PyObject* py_split_urls(PyObject*, PyObject* args) {
    PyObject *text, *lower;
    if (!PyArg_ParseTuple(args, "UU:split_urls", &text, &lower)) return nullptr;
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    if (PyUnicode_GET_LENGTH(lower) != n) {
        PyErr_SetString(PyExc_ValueError, "split_urls: lower must be as long as text");
        return nullptr;
    }
    std::vector<std::int64_t> spans;
    auto scan = [&](const auto* s, Py_ssize_t m) { nbk_mail::url_spans(s, m, spans); };
    if (!guarded([&] { by_width(lower, scan); })) return nullptr;
    PyObject* urls = pieces(text, spans);
    if (urls == nullptr) return nullptr;
    PyObject* rest = spaced_out(text, spans);
    if (rest == nullptr) {
        Py_DECREF(urls);
        return nullptr;
    }
    PyObject* result = PyTuple_Pack(2, rest, urls);
    Py_DECREF(rest);
    Py_DECREF(urls);
    return result;
}

// Adds prefix + text[start:end] to the set `out` (a str of the narrowest storage its code
// points need); false with a Python error set if that fails.
bool add_prefixed(PyObject* out, const char* prefix, PyObject* text, Py_ssize_t start,
                  Py_ssize_t end) {
    int kind = PyUnicode_KIND(text);
    const void* data = PyUnicode_DATA(text);
    Py_ssize_t plen = static_cast<Py_ssize_t>(std::strlen(prefix));
    Py_UCS4 top = 127;
    if (!PyUnicode_IS_ASCII(text))
        for (Py_ssize_t i = start; i < end; ++i) top = std::max(top, PyUnicode_READ(kind, data, i));
    PyObject* token = PyUnicode_New(plen + end - start, top);
    if (token == nullptr) return false;
    int tkind = PyUnicode_KIND(token);
    void* tdata = PyUnicode_DATA(token);
    for (Py_ssize_t i = 0; i < plen; ++i) PyUnicode_WRITE(tkind, tdata, i, prefix[i]);
    for (Py_ssize_t i = start; i < end; ++i)
        PyUnicode_WRITE(tkind, tdata, plen + i - start, PyUnicode_READ(kind, data, i));
    return add_new_token(out, token);
}

const char url_tokens_doc[] =
    "url_tokens(url, out)\n\n"
    "Adds to the set `out` the tokens of the (lower-cased) URL `url` that\n"
    "nbayes.mail._tokenizer's _url_tokens_reference gives: 'proto:' + its scheme, 'url:' +\n"
    "its host, its last two labels, and each piece of its path of 3 to 20 characters.";

PyObject* py_url_tokens(PyObject*, PyObject* args) {
    PyObject *url, *out;
    if (!PyArg_ParseTuple(args, "UO!:url_tokens", &url, &PySet_Type, &out)) return nullptr;
    nbk_mail::UrlParts parts;
    auto scan = [&](const auto* s, Py_ssize_t n) { nbk_mail::url_parts(s, n, parts); };
    if (!guarded([&] { by_width(url, scan); })) return nullptr;
    if (parts.proto_start >= 0 &&
        !add_prefixed(out, "proto:", url, parts.proto_start, parts.proto_end))
        return nullptr;
    if (parts.host_start >= 0 && !add_prefixed(out, "url:", url, parts.host_start, parts.host_end))
        return nullptr;
    if (parts.domain_start >= 0 &&
        !add_prefixed(out, "url:", url, parts.domain_start, parts.domain_end))
        return nullptr;
    for (std::size_t k = 0; k < parts.pieces.size(); k += 2)
        if (!add_prefixed(out, "url:", url, parts.pieces[k], parts.pieces[k + 1])) return nullptr;
    Py_RETURN_NONE;
}

// name.lower(): an ASCII str's lowered in place of a method call, anything else's by its
// own lower() (a non-ASCII str, or a name that is not a str: what Python would call).
PyObject* lowered(PyObject* name) {
    if (!PyUnicode_CheckExact(name) || !PyUnicode_IS_ASCII(name))
        return PyObject_CallMethod(name, "lower", nullptr);
    Py_ssize_t n = PyUnicode_GET_LENGTH(name);
    const auto* s = static_cast<const unsigned char*>(PyUnicode_DATA(name));
    Py_ssize_t i = 0;
    while (i < n && !(s[i] >= 'A' && s[i] <= 'Z')) ++i;
    if (i == n) return Py_NewRef(name);  // (already lower case)
    PyObject* out = PyUnicode_New(n, 127);
    if (out == nullptr) return nullptr;
    auto* d = static_cast<unsigned char*>(PyUnicode_DATA(out));
    for (Py_ssize_t k = 0; k < n; ++k) d[k] = static_cast<unsigned char>(nbk_mail::ascii_lower(s[k]));
    return out;
}

// Appends `value` to the list at `key` of the dict `d` (a new list if there is none);
// false with a Python error set if that fails.
bool append_at(PyObject* d, PyObject* key, PyObject* value) {
    PyObject* list = PyDict_GetItemWithError(d, key);  // (borrowed)
    if (list != nullptr) return PyList_Append(list, value) == 0;
    if (PyErr_Occurred()) return false;
    list = PyList_New(1);
    if (list == nullptr) return false;
    PyList_SET_ITEM(list, 0, Py_NewRef(value));
    int failed = PyDict_SetItem(d, key, list);
    Py_DECREF(list);
    return failed == 0;
}

const char fields_by_name_doc[] =
    "fields_by_name(items, counted) -> (fields, counts)\n\n"
    "nbayes.mail._tokenizer's _fields_reference: a message's raw_items() `items` by\n"
    "lower-cased name, and the number of fields of each name whose lower case is in the\n"
    "frozenset `counted`.";

PyObject* py_fields_by_name(PyObject*, PyObject* args) {
    PyObject *items, *counted;
    if (!PyArg_ParseTuple(args, "OO!:fields_by_name", &items, &PyFrozenSet_Type, &counted))
        return nullptr;
    PyObject* it = PyObject_GetIter(items);
    if (it == nullptr) return nullptr;
    PyObject* fields = PyDict_New();
    PyObject* counts = PyDict_New();
    bool ok = fields != nullptr && counts != nullptr;
    PyObject* item;
    while (ok && (item = PyIter_Next(it)) != nullptr) {
        PyObject *name, *value;
        ok = PyTuple_Check(item) && PyTuple_GET_SIZE(item) == 2;
        if (!ok) {
            PyErr_SetString(PyExc_TypeError, "fields_by_name: items must be (name, value) pairs");
        } else {
            name = PyTuple_GET_ITEM(item, 0);
            value = PyTuple_GET_ITEM(item, 1);
            PyObject* lower = lowered(name);
            ok = lower != nullptr && append_at(fields, lower, value);
            if (ok && PySet_GET_SIZE(counted) > 0) {
                int wanted = PySet_Contains(counted, lower);
                ok = wanted >= 0;
                if (wanted > 0) {
                    PyObject* n = PyDict_GetItemWithError(counts, name);
                    ok = n != nullptr || !PyErr_Occurred();
                    long k = ok && n != nullptr ? PyLong_AsLong(n) : 0;
                    PyObject* next = ok ? PyLong_FromLong(k + 1) : nullptr;
                    ok = next != nullptr && PyDict_SetItem(counts, name, next) == 0;
                    Py_XDECREF(next);
                }
            }
            Py_XDECREF(lower);
        }
        Py_DECREF(item);
    }
    Py_DECREF(it);
    if (ok && !PyErr_Occurred()) {
        PyObject* result = PyTuple_Pack(2, fields, counts);
        Py_DECREF(fields);
        Py_DECREF(counts);
        return result;
    }
    Py_XDECREF(fields);
    Py_XDECREF(counts);
    return nullptr;
}

const char long_words_doc[] =
    "long_words(words, out, prefix)\n\n"
    "Adds to the set `out` the tokens of each long word of `words` (strs) that\n"
    "nbayes.mail._tokenizer's _long_words_reference gives: an e-mail address's name and its\n"
    "domain's labels, any other word's first character and length in tens, and a non-ASCII\n"
    "word's share of 8-bit characters, each after `prefix`.";

PyObject* py_long_words(PyObject*, PyObject* args) {
    PyObject *words, *out, *prefix;
    if (!PyArg_ParseTuple(args, "OO!U:long_words", &words, &PySet_Type, &out, &prefix))
        return nullptr;
    PyObject* it = PyObject_GetIter(words);
    if (it == nullptr) return nullptr;
    PyObject* w;
    TokenBuilder tb;
    bool ok = true;
    while (ok && (w = PyIter_Next(it)) != nullptr) {
        ok = PyUnicode_Check(w);
        if (!ok)
            PyErr_Format(PyExc_TypeError, "long_words: words must be str, not %s",
                         Py_TYPE(w)->tp_name);
        else
            ok = guarded([&] {
                ok = long_word_tokens(w, 0, PyUnicode_GET_LENGTH(w), out, prefix, tb);
            }) && ok;
        Py_DECREF(w);
    }
    Py_DECREF(it);
    if (!ok || PyErr_Occurred()) return nullptr;
    Py_RETURN_NONE;
}

const char message_id_tokens_doc[] =
    "message_id_tokens(value, out) -> bool\n\n"
    "Adds to the set `out` the two tokens of the (stripped, lower-cased) Message-ID `value`\n"
    "that nbayes.mail._tokenizer's _message_id_reference gives; False, adding nothing, if\n"
    "it is not of the form left@host.";

PyObject* py_message_id_tokens(PyObject*, PyObject* args) {
    PyObject *value, *out;
    if (!PyArg_ParseTuple(args, "UO!:message_id_tokens", &value, &PySet_Type, &out))
        return nullptr;
    std::vector<std::uint32_t> host, shape;
    bool valid = false;
    auto is_digit = [](std::uint32_t c) { return Py_UNICODE_ISDECIMAL(c) != 0; };
    auto scan = [&](const auto* s, Py_ssize_t n) {
        valid = nbk_mail::message_id_parts(s, n, is_digit, 40, 30, host, shape);
    };
    if (!guarded([&] { by_width(value, scan); })) return nullptr;
    if (!valid) Py_RETURN_FALSE;
    bool ok = guarded([&] {
        TokenBuilder tb;
        tb.ascii("message-id:@");
        tb.cps.insert(tb.cps.end(), host.begin(), host.end());
        valid = tb.add_to(out, 0);
        tb.ascii("message-id:shape:");
        tb.cps.insert(tb.cps.end(), shape.begin(), shape.end());
        valid = valid && tb.add_to(out, 0);
    });
    if (!ok || !valid) return nullptr;
    Py_RETURN_TRUE;
}

const char token_hash_doc[] =
    "token_hash(data) -> int\n\n"
    "nbayes.spam._table.token_hash: the 64-bit BLAKE2b hash of the bytes-like `data`, read\n"
    "little-endian (hashlib.blake2b(data, digest_size=8)).";

PyObject* py_token_hash(PyObject*, PyObject* args) {
    Py_buffer data;
    if (!PyArg_ParseTuple(args, "y*:token_hash", &data)) return nullptr;
    std::uint64_t h = nbk_hash::blake2b_64(static_cast<const unsigned char*>(data.buf),
                                           static_cast<std::size_t>(data.len));
    PyBuffer_Release(&data);
    return PyLong_FromUnsignedLongLong(h);
}

const char token_hashes_doc[] =
    "token_hashes(blob, offsets) -> bytes\n\n"
    "token_hash of each slice blob[offsets[i]:offsets[i + 1]] (`blob` bytes-like, `offsets`\n"
    "an int64 buffer, ascending from 0 to len(blob)), as uint64 little-endian bytes: the\n"
    "hash column of a spam model file. ValueError if the offsets do not cut the blob.";

PyObject* py_token_hashes(PyObject*, PyObject* args) {
    Py_buffer blob, offsets;
    if (!PyArg_ParseTuple(args, "y*y*:token_hashes", &blob, &offsets)) return nullptr;
    PyObject* result = nullptr;
    Py_ssize_t n = offsets.len / 8 - 1;
    std::vector<std::int64_t> cuts(static_cast<std::size_t>(std::max<Py_ssize_t>(n + 1, 0)));
    bool ok = true;
    {
        WithoutGil released;  // (this call's own memory; the buffers are held)
        if (n >= 0) std::memcpy(cuts.data(), offsets.buf, cuts.size() * 8);
        ok = offsets.len % 8 == 0 && n >= 0 && cuts[0] == 0 && cuts[n] == blob.len;
        for (Py_ssize_t i = 0; ok && i < n; ++i) ok = cuts[i] <= cuts[i + 1];
    }
    if (!ok) {
        PyErr_SetString(PyExc_ValueError,
                        "token_hashes: the offsets must ascend from 0 to the blob's length");
    } else if ((result = PyBytes_FromStringAndSize(nullptr, n * 8)) != nullptr) {
        const auto* bytes = static_cast<const unsigned char*>(blob.buf);
        auto* out = reinterpret_cast<unsigned char*>(PyBytes_AS_STRING(result));
        // (the result is nobody else's yet, the buffers are held: 700k tokens take ~0.25 s,
        // which a server's fold spends beside the threads that answer)
        WithoutGil released;
        for (Py_ssize_t i = 0; i < n; ++i) {
            std::uint64_t h = nbk_hash::blake2b_64(bytes + cuts[i],
                                                   static_cast<std::size_t>(cuts[i + 1] - cuts[i]));
            for (int k = 0; k < 8; ++k) out[i * 8 + k] = static_cast<unsigned char>(h >> (8 * k));
        }
    }
    PyBuffer_Release(&blob);
    PyBuffer_Release(&offsets);
    return result;
}

const char packed_take_doc[] =
    "packed_take(blob, offsets, rows) -> (bytes, offsets)\n\n"
    "The tokens packed in `blob` cut at `offsets` (int64, ascending from 0 to len(blob)),\n"
    "taken in the order of `rows` (an int64 buffer of row numbers), packed again: their bytes\n"
    "one after the other and the bytes of the len(rows) + 1 int64 offsets (native order)\n"
    "that cut them, as TokenStore.packed(rows) gives them of a store. Without the GIL.\n"
    "ValueError if the offsets do not cut the blob, IndexError for a row out of range.";

PyObject* py_packed_take(PyObject*, PyObject* args) {
    Py_buffer blob, offsets, rows;
    if (!PyArg_ParseTuple(args, "y*y*y*:packed_take", &blob, &offsets, &rows)) return nullptr;
    const Py_ssize_t n = offsets.len / 8 - 1, k = rows.len / 8;
    std::vector<std::int64_t> off, which, cut;  // (copies: the buffers may be unaligned)
    enum { ok, no_memory, bad_offsets, bad_rows, out_of_range } status = ok;
    std::int64_t bad = 0;
    {
        // (everything here is this call's own, the buffers are held: without the GIL)
        WithoutGil released;
        if (offsets.len % 8 != 0 || n < 0) {
            status = bad_offsets;
        } else if (rows.len % 8 != 0) {
            status = bad_rows;
        } else {
            try {
                off.resize(static_cast<std::size_t>(n) + 1);
                which.resize(static_cast<std::size_t>(k));
                cut.assign(static_cast<std::size_t>(k) + 1, 0);
            } catch (const std::bad_alloc&) {
                status = no_memory;
            }
        }
        if (status == ok) {
            std::memcpy(off.data(), offsets.buf, off.size() * 8);
            if (k > 0) std::memcpy(which.data(), rows.buf, which.size() * 8);
            if (off[0] != 0 || off[n] != blob.len) status = bad_offsets;
            for (Py_ssize_t i = 0; status == ok && i < n; ++i)
                if (off[i] > off[i + 1]) status = bad_offsets;
            for (Py_ssize_t i = 0; status == ok && i < k; ++i) {
                if (which[i] < 0 || which[i] >= n) {
                    status = out_of_range;
                    bad = which[i];
                } else {
                    cut[i + 1] = cut[i] + off[which[i] + 1] - off[which[i]];
                }
            }
        }
    }
    PyObject* result = nullptr;
    if (status == no_memory) {
        PyErr_NoMemory();
    } else if (status == bad_offsets) {
        PyErr_SetString(PyExc_ValueError,
                        "packed_take: the offsets must ascend from 0 to the blob's length");
    } else if (status == bad_rows) {
        PyErr_SetString(PyExc_ValueError, "packed_take: rows must be an int64 buffer");
    } else if (status == out_of_range) {
        PyErr_Format(PyExc_IndexError, "packed_take: row %lld out of range",
                     static_cast<long long>(bad));
    } else if (PyObject* out = PyBytes_FromStringAndSize(nullptr, static_cast<Py_ssize_t>(cut.back()))) {
        char* to = PyBytes_AS_STRING(out);
        const auto* from = static_cast<const char*>(blob.buf);
        {
            WithoutGil released;  // (`out` is nobody else's yet)
            for (Py_ssize_t i = 0; i < k; ++i)
                if (cut[i + 1] > cut[i])
                    std::memcpy(to + cut[i], from + off[which[i]],
                                static_cast<std::size_t>(cut[i + 1] - cut[i]));
        }
        result = Py_BuildValue("(Ny#)", out, reinterpret_cast<const char*>(cut.data()),
                               static_cast<Py_ssize_t>(cut.size() * 8));
    }
    PyBuffer_Release(&blob);
    PyBuffer_Release(&offsets);
    PyBuffer_Release(&rows);
    return result;
}

// A contiguous buffer of `what` items of `size` bytes in the struct format `format` (a
// byte order mark "@", "=" or "<" before it, or none for "B"); false (TypeError set) if
// `obj` is not one.
bool column_buffer(PyObject* obj, Py_buffer* view, const char* format, Py_ssize_t size,
                   const char* what) {
    auto fits = [format](const char* f) {
        if (f == nullptr) f = "B";
        if (*f == '@' || *f == '=' || *f == '<') ++f;
        return std::strcmp(f, format) == 0;
    };
    std::string error =
        std::string("scorer_counts: ") + what + " must be a buffer of format '" + format + "'";
    return typed_buffer(obj, view, size, fits, error.c_str());
}

const char scorer_counts_doc[] =
    "scorer_counts(tokens, hashes, offsets, blob, ham, spam, n_ham, n_spam)\n"
    "-> (found, ham_counts, spam_counts)\n\n"
    "The tokens of the list `tokens` that a spam model file's columns hold, in order, with\n"
    "their ham and spam counts (the bytes of int64 arrays), as nbayes.spam._scorer's\n"
    "SpamScorer._counts_reference finds them: each token's hash (token_hash of its UTF-8\n"
    "bytes) searched in `hashes` (uint64, sorted), the bytes of each row of that hash\n"
    "compared with blob[offsets[r]:offsets[r + 1]] (`offsets` int64, `blob` uint8), its\n"
    "counts read from `ham` and `spam` (int64). ValueError (what the file holds wrong) if\n"
    "the offsets of a row it reads do not cut the blob, or a count is out of range.";

// A token's UTF-8 bytes (surrogates passed through): a view of an ASCII str, else the
// bytes object `holder` keeps; false with a Python error set.
bool utf8_of(PyObject* t, PyObject*& holder, const char*& bytes, Py_ssize_t& len) {
    if (!PyUnicode_Check(t)) {
        PyErr_SetString(PyExc_TypeError, "scorer_counts: tokens must be str");
        return false;
    }
    if (PyUnicode_IS_ASCII(t)) {
        bytes = static_cast<const char*>(PyUnicode_DATA(t));
        len = PyUnicode_GET_LENGTH(t);
        return true;
    }
    holder = PyUnicode_AsEncodedString(t, "utf-8", "surrogatepass");
    if (holder == nullptr) return false;
    bytes = PyBytes_AS_STRING(holder);
    len = PyBytes_GET_SIZE(holder);
    return true;
}

PyObject* py_scorer_counts(PyObject*, PyObject* args) {
    PyObject *tokens, *cols[5];
    long long n_ham, n_spam;
    if (!PyArg_ParseTuple(args, "O!OOOOOLL:scorer_counts", &PyList_Type, &tokens, &cols[0],
                          &cols[1], &cols[2], &cols[3], &cols[4], &n_ham, &n_spam))
        return nullptr;
    static const char* const formats[5] = {"Q", "q", "B", "q", "q"};
    static const char* const names[5] = {"hashes", "offsets", "blob", "ham", "spam"};
    Py_buffer views[5];
    int got = 0;
    for (; got < 5; ++got)
        if (!column_buffer(cols[got], &views[got], formats[got], got == 2 ? 1 : 8, names[got]))
            break;
    PyObject* result = nullptr;
    if (got == 5) {
        const auto* hashes = static_cast<const std::uint64_t*>(views[0].buf);
        const auto* offsets = static_cast<const std::int64_t*>(views[1].buf);
        const auto* blob = static_cast<const unsigned char*>(views[2].buf);
        const auto* ham = static_cast<const std::int64_t*>(views[3].buf);
        const auto* spam = static_cast<const std::int64_t*>(views[4].buf);
        Py_ssize_t n_rows = views[0].len / 8, n_offsets = views[1].len / 8, size = views[2].len;
        Py_ssize_t n_counts = std::min(views[3].len, views[4].len) / 8;
        PyObject* found = PyList_New(0);
        std::vector<std::int64_t> g_col, b_col;
        Py_ssize_t n = PyList_GET_SIZE(tokens);
        bool ok = found != nullptr && guarded([&] {  // (no push_back below can then throw)
            g_col.reserve(static_cast<std::size_t>(n));
            b_col.reserve(static_cast<std::size_t>(n));
        });
        for (Py_ssize_t k = 0; ok && k < n; ++k) {
            PyObject* t = PyList_GET_ITEM(tokens, k);
            PyObject* holder = nullptr;
            const char* bytes = nullptr;
            Py_ssize_t len = 0;
            ok = utf8_of(t, holder, bytes, len);
            if (!ok) break;
            std::uint64_t h = nbk_hash::blake2b_64(reinterpret_cast<const unsigned char*>(bytes),
                                                   static_cast<std::size_t>(len));
            for (Py_ssize_t r = std::lower_bound(hashes, hashes + n_rows, h) - hashes;
                 r < n_rows && hashes[r] == h; ++r) {
                std::int64_t a = r + 1 < n_offsets ? offsets[r] : -1;
                std::int64_t b = r + 1 < n_offsets ? offsets[r + 1] : -1;
                if (!(0 <= a && a <= b && b <= size)) {
                    PyErr_SetString(PyExc_ValueError,
                                    "'tokens/offsets' do not cut 'tokens/bytes' into tokens");
                    ok = false;
                    break;
                }
                if (b - a != len || std::memcmp(blob + a, bytes, static_cast<std::size_t>(len)))
                    continue;
                std::int64_t g = r < n_counts ? ham[r] : -1, s = r < n_counts ? spam[r] : -1;
                if (!(0 <= g && g <= n_ham && 0 <= s && s <= n_spam && g + s > 0)) {
                    PyErr_Format(PyExc_ValueError,
                                 "the token %R is counted in %lld ham and %lld spam messages of "
                                 "%lld ham and %lld spam learnt",
                                 t, static_cast<long long>(g), static_cast<long long>(s), n_ham,
                                 n_spam);
                    ok = false;
                } else {
                    ok = PyList_Append(found, t) == 0;
                    g_col.push_back(g);
                    b_col.push_back(s);
                }
                break;
            }
            Py_XDECREF(holder);
        }
        if (ok) {
            auto as_bytes = [](const std::vector<std::int64_t>& v) {
                return PyBytes_FromStringAndSize(reinterpret_cast<const char*>(v.data()),
                                                 static_cast<Py_ssize_t>(v.size() * 8));
            };
            PyObject* gb = as_bytes(g_col);
            PyObject* bb = gb ? as_bytes(b_col) : nullptr;
            result = bb ? PyTuple_Pack(3, found, gb, bb) : nullptr;
            Py_XDECREF(gb);
            Py_XDECREF(bb);
        }
        Py_XDECREF(found);
    }
    for (int i = 0; i < got; ++i) PyBuffer_Release(&views[i]);
    return result;
}

// ---------------------------------------------------------------------------- learning

const char learn_counts_doc[] =
    "learn_counts(store, ham, spam, messages, is_spam) -> (n, live, total)\n\n"
    "Count each message of the iterable `messages` (each an iterable of str tokens) in a\n"
    "TokenTable's columns, as nbayes.spam._table's TokenTable._learn_reference does: a\n"
    "token not in the TokenStore `store` is given the next row (appended to it, a zero\n"
    "appended to the array('q') columns `ham` and `spam`), then the row's count in `spam`\n"
    "(is_spam) or `ham` goes up by one. Return the messages counted, the rows that had no\n"
    "count before, and the tokens counted. The counts change only once every message has\n"
    "been read: an error (a message that is not iterable, a token that is not a str) leaves\n"
    "them as they were, with the rows added so far in `store` (the caller drops them,\n"
    "TokenTable._truncate).";

// Appends `n` zeros to the array('q') `column` (one frombytes call).
bool append_zeros(PyObject* column, Py_ssize_t n) {
    if (n == 0) return true;
    PyObject* zeros = PyBytes_FromStringAndSize(nullptr, n * 8);
    if (zeros == nullptr) return false;
    std::memset(PyBytes_AS_STRING(zeros), 0, static_cast<std::size_t>(n) * 8);
    PyObject* r = PyObject_CallMethod(column, "frombytes", "O", zeros);
    Py_DECREF(zeros);
    Py_XDECREF(r);
    return r != nullptr;
}

// The writable buffers of a TokenTable's count columns (array('q') `ham`, `spam`), grown
// with zeros to `n_rows` (a row for each token); false with a Python error set (`what`
// names the caller). Both views are released by the caller when true.
bool grown_columns(PyObject* ham, PyObject* spam, Py_ssize_t n_rows, Py_buffer* hv,
                   Py_buffer* sv, const char* what) {
    std::string error = std::string(what) + ": the count columns must be array('q')";
    if (!int64_column(ham, hv, error.c_str(), true)) return false;
    Py_ssize_t have = hv->len / 8;
    PyBuffer_Release(hv);
    if (have < n_rows && !(append_zeros(ham, n_rows - have) && append_zeros(spam, n_rows - have)))
        return false;
    if (!int64_column(ham, hv, error.c_str(), true)) return false;
    if (!int64_column(spam, sv, error.c_str(), true)) {
        PyBuffer_Release(hv);
        return false;
    }
    if (hv->len / 8 < n_rows || sv->len / 8 < n_rows) {
        PyBuffer_Release(hv);
        PyBuffer_Release(sv);
        PyErr_Format(PyExc_ValueError, "%s: the count columns are shorter than tokens", what);
        return false;
    }
    return true;
}

// The rows of the tokens of `message` pushed on `rows`, new tokens given new rows (in
// `store`): each token's row looked up with the prefetched pipeline of the clues
// (lookup_rows), then those not found (new, or new earlier in this message) found again
// or added; false with a Python error set.
bool message_rows(Store& store, PyObject* message, std::vector<std::int64_t>& rows,
                  std::vector<PyObject*>& held, std::vector<TokenRef>& refs,
                  std::vector<Probe>& probes, std::vector<std::uint8_t>& buf) {
    PyObject* it = PyObject_GetIter(message);
    if (it == nullptr) return false;
    PyObject* t;
    bool ok = true;
    held.clear();
    refs.clear();
    probes.clear();
    while (ok && (t = PyIter_Next(it)) != nullptr) {
        // (`held` last: a token is released here or, once held, at the end: never twice)
        ok = token_str(t, "learn_counts") && guarded([&] {
                 refs.push_back(str_ref(t));
                 probes.push_back(Probe{nbk_mail::ref_hash(refs.back()), 0, -1});
                 held.push_back(t);
             });
        if (!ok) Py_DECREF(t);
    }
    Py_DECREF(it);
    ok = ok && !PyErr_Occurred();
    if (ok) {
        lookup_rows(refs, probes, store, nullptr, nullptr);
        for (std::size_t k = 0; ok && k < refs.size(); ++k) {
            std::int64_t row = probes[k].row;
            if (row < 0) row = row_or_new(store, held[k], probes[k].hash, buf);
            ok = row >= 0 && guarded([&] { rows.push_back(row); });
        }
    }
    for (PyObject* h : held) Py_DECREF(h);
    held.clear();
    return ok;
}

PyObject* py_learn_counts(PyObject*, PyObject* args) {
    PyObject *store_obj, *ham, *spam, *messages;
    int is_spam;
    if (!PyArg_ParseTuple(args, "O!OOOp:learn_counts", &TokenStoreType, &store_obj, &ham, &spam,
                          &messages, &is_spam))
        return nullptr;
    Store& store = store_of(store_obj);
    std::vector<std::int64_t> rows;
    std::vector<PyObject*> held;
    std::vector<TokenRef> refs;
    std::vector<Probe> probes;
    std::vector<std::uint8_t> buf;
    Py_ssize_t n = 0;
    PyObject* it = PyObject_GetIter(messages);
    if (it == nullptr) return nullptr;
    PyObject* message;
    bool ok = true;
    while (ok && (message = PyIter_Next(it)) != nullptr) {
        ++n;
        ok = message_rows(store, message, rows, held, refs, probes, buf);
        Py_DECREF(message);
    }
    Py_DECREF(it);
    if (!ok || PyErr_Occurred()) return nullptr;
    for (std::int64_t r : rows) {  // (the messages' iteration ran Python code: if it cut
        // the store, these rows are past the columns about to be grown to its size)
        if (static_cast<std::size_t>(r) >= store.rows()) {
            PyErr_SetString(PyExc_RuntimeError,
                            "learn_counts: the token store was truncated while it learnt");
            return nullptr;
        }
    }
    // the columns grow to the rows (a zero for each new token), then the counts change
    Py_buffer hv, sv;
    if (!grown_columns(ham, spam, static_cast<Py_ssize_t>(store.rows()), &hv, &sv, "learn_counts"))
        return nullptr;
    auto* col = static_cast<std::int64_t*>(is_spam ? sv.buf : hv.buf);
    const auto* other = static_cast<const std::int64_t*>(is_spam ? hv.buf : sv.buf);
    Py_ssize_t live = 0;
    for (std::int64_t r : rows) {
        std::int64_t c = col[r];
        if (c == 0 && other[r] == 0) ++live;
        col[r] = c + 1;
    }
    PyBuffer_Release(&hv);
    PyBuffer_Release(&sv);
    return Py_BuildValue("(nnn)", n, live, static_cast<Py_ssize_t>(rows.size()));
}

const char merge_counts_doc[] =
    "merge_counts(store, ham, spam, other_store, other_ham, other_spam) -> int\n\n"
    "Add the counts of another table's rows (its TokenStore `other_store` and array('q')\n"
    "columns `other_ham`, `other_spam`; rows without a count skipped) to a TokenTable's, as\n"
    "nbayes.spam._table's TokenTable._merge_reference does: a token not in `store` is given\n"
    "the next row (as learn_counts does). Return the rows that had no count before. The\n"
    "counts change only once every row has been found: an error leaves them as they were,\n"
    "with the rows added so far in `store` (the caller drops them).";

PyObject* py_merge_counts(PyObject*, PyObject* args) {
    PyObject *store_obj, *ham, *spam, *other_obj, *other_ham, *other_spam;
    if (!PyArg_ParseTuple(args, "O!OOO!OO:merge_counts", &TokenStoreType, &store_obj, &ham, &spam,
                          &TokenStoreType, &other_obj, &other_ham, &other_spam))
        return nullptr;
    Store& store = store_of(store_obj);
    const Store& other = store_of(other_obj);
    Py_buffer og, ob;
    const char* error = "merge_counts: the count columns must be array('q')";
    if (!int64_column(other_ham, &og, error)) return nullptr;
    if (!int64_column(other_spam, &ob, error)) {
        PyBuffer_Release(&og);
        return nullptr;
    }
    const auto n_other = static_cast<Py_ssize_t>(other.rows());
    if (og.len / 8 < n_other || ob.len / 8 < n_other) {
        PyBuffer_Release(&og);
        PyBuffer_Release(&ob);
        PyErr_SetString(PyExc_ValueError, "merge_counts: the other columns are shorter than its tokens");
        return nullptr;
    }
    // (the other table's columns are copied: they may be this table's, which grow below)
    std::vector<std::int64_t> g_add, b_add, rows;
    bool ok = guarded([&] {
        g_add.assign(static_cast<const std::int64_t*>(og.buf),
                     static_cast<const std::int64_t*>(og.buf) + n_other);
        b_add.assign(static_cast<const std::int64_t*>(ob.buf),
                     static_cast<const std::int64_t*>(ob.buf) + n_other);
        rows.assign(static_cast<std::size_t>(n_other), -1);
    });
    PyBuffer_Release(&og);
    PyBuffer_Release(&ob);
    // (a table merged with itself finds each of its tokens: it adds none, so the bytes
    // read from `other` do not move under an append)
    ok = ok && guarded([&] {
        const auto& off = other.offsets();
        for (Py_ssize_t j = 0; j < n_other; ++j) {
            const auto q = static_cast<std::size_t>(j);
            if (g_add[q] == 0 && b_add[q] == 0) continue;
            const std::uint8_t* p = other.bytes().data() + off[q];
            const std::int64_t len = off[q + 1] - off[q];
            const std::uint64_t h = other.hash_of(q);
            std::int64_t r = store.find(p, len, h);
            if (r < 0) {
                store.append(p, len, h);
                r = static_cast<std::int64_t>(store.rows()) - 1;
            }
            rows[q] = r;
        }
    });
    if (!ok) return nullptr;
    Py_buffer hv, sv;
    if (!grown_columns(ham, spam, static_cast<Py_ssize_t>(store.rows()), &hv, &sv, "merge_counts"))
        return nullptr;
    auto* h = static_cast<std::int64_t*>(hv.buf);
    auto* b = static_cast<std::int64_t*>(sv.buf);
    Py_ssize_t live = 0;
    for (Py_ssize_t j = 0; j < n_other; ++j) {
        std::int64_t r = rows[static_cast<std::size_t>(j)];
        if (r < 0) continue;
        if (h[r] == 0 && b[r] == 0) ++live;
        h[r] += g_add[static_cast<std::size_t>(j)];
        b[r] += b_add[static_cast<std::size_t>(j)];
    }
    PyBuffer_Release(&hv);
    PyBuffer_Release(&sv);
    return PyLong_FromSsize_t(live);
}

PyMethodDef methods[] = {
    {"words", py_words, METH_VARARGS, words_doc},
    {"clue_logs", py_clue_logs, METH_VARARGS, clue_logs_doc},
    {"clue_logs_text", py_clue_logs_text, METH_VARARGS, clue_logs_text_doc},
    {"fisher_text", py_fisher_text, METH_VARARGS, fisher_text_doc},
    {"token_store", py_token_store, METH_VARARGS, token_store_doc},
    {"head_fields", py_head_fields, METH_VARARGS, head_fields_doc},
    {"count_bytes", py_count_bytes, METH_VARARGS, count_bytes_doc},
    {"first_not_headish", py_first_not_headish, METH_VARARGS, first_not_headish_doc},
    {"first_non_head_line", py_first_non_head_line, METH_VARARGS, first_non_head_line_doc},
    {"next_postmark_end", py_next_postmark_end, METH_VARARGS, next_postmark_end_doc},
    {"strip_mime_lines", py_strip_mime_lines, METH_VARARGS, strip_mime_lines_doc},
    {"strip_tags", py_strip_tags, METH_VARARGS, strip_tags_doc},
    {"links", py_links, METH_VARARGS, links_doc},
    {"split_urls", py_split_urls, METH_VARARGS, split_urls_doc},
    {"url_tokens", py_url_tokens, METH_VARARGS, url_tokens_doc},
    {"message_id_tokens", py_message_id_tokens, METH_VARARGS, message_id_tokens_doc},
    {"fields_by_name", py_fields_by_name, METH_VARARGS, fields_by_name_doc},
    {"long_words", py_long_words, METH_VARARGS, long_words_doc},
    {"token_hash", py_token_hash, METH_VARARGS, token_hash_doc},
    {"token_hashes", py_token_hashes, METH_VARARGS, token_hashes_doc},
    {"packed_take", py_packed_take, METH_VARARGS, packed_take_doc},
    {"scorer_counts", py_scorer_counts, METH_VARARGS, scorer_counts_doc},
    {"learn_counts", py_learn_counts, METH_VARARGS, learn_counts_doc},
    {"merge_counts", py_merge_counts, METH_VARARGS, merge_counts_doc},
    {nullptr, nullptr, 0, nullptr},
};

struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "_mail_native",
    "The spam filter's compiled tokenizer kernel. Internal: use nbayes.mail.", -1, methods,
    nullptr, nullptr, nullptr, nullptr,
};

}  // namespace

PyMODINIT_FUNC PyInit__mail_native(void) {
    TokenStoreType.tp_name = "nbayes._mail_native.TokenStore";
    TokenStoreType.tp_basicsize = sizeof(TokenStoreObject);
    TokenStoreType.tp_dealloc = store_dealloc;
    TokenStoreType.tp_flags = Py_TPFLAGS_DEFAULT;
    TokenStoreType.tp_doc = "A spam filter's tokens by row, packed, and their index (token_store()). Internal.";
    TokenStoreType.tp_methods = store_methods;
    if (PyType_Ready(&TokenStoreType) < 0) return nullptr;
    return PyModule_Create(&moduledef);
}
