// nbayes._mail_native: the spam filter's compiled tokenizer kernel (mail_words.hpp).
//
// A module of its own (no NumPy): the mail path (nbayes.mail, `nbayes filter`) imports it
// without the text kernels' module and NumPy's C API.
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "mail_clues.hpp"
#include "mail_words.hpp"

namespace {

using nbk_mail::Span;

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
    "consecutive such words; return the longer words, in text order.";

PyObject* py_words(PyObject*, PyObject* args) {
    PyObject* text;
    Py_ssize_t lo, hi;
    int bigrams;
    PyObject* out;
    if (!PyArg_ParseTuple(args, "UnnpO!", &text, &lo, &hi, &bigrams, &PySet_Type, &out))
        return nullptr;
    int kind = PyUnicode_KIND(text);
    const void* data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    std::vector<Span> kept, longs;
    if (kind == PyUnicode_1BYTE_KIND)
        nbk_mail::split_words(static_cast<const Py_UCS1*>(data), n, lo, hi, kept, longs);
    else if (kind == PyUnicode_2BYTE_KIND)
        nbk_mail::split_words(static_cast<const Py_UCS2*>(data), n, lo, hi, kept, longs);
    else
        nbk_mail::split_words(static_cast<const Py_UCS4*>(data), n, lo, hi, kept, longs);
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
    double log_f;
    double log_1mf;
    PyObject* token;  // borrowed: the token set holds it
};

// (d, token) descending, as Python's sort of the (d, token, ...) tuples with reverse=True.
struct Stronger {
    bool* failed;
    bool operator()(const Clue& a, const Clue& b) const {
        if (a.d != b.d) return a.d > b.d;
        int cmp = PyUnicode_Compare(a.token, b.token);
        if (cmp == -1 && PyErr_Occurred()) *failed = true;
        return cmp > 0;
    }
};

// A read-only int64 column (array('q')); false (a Python error set) if it is not one.
bool int64_column(PyObject* obj, Py_buffer* view) {
    if (PyObject_GetBuffer(obj, view, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) return false;
    if (view->itemsize != 8 || view->format == nullptr ||
        (std::string(view->format) != "q" && std::string(view->format) != "l")) {
        PyBuffer_Release(view);
        PyErr_SetString(PyExc_TypeError, "clue_logs: the count columns must be array('q')");
        return false;
    }
    return true;
}

const char clue_logs_doc[] =
    "clue_logs(tokens, index, ham, spam, n_ham, n_spam, s, x, c, min_dev, max_clues)\n"
    "-> (log_f, log_1mf) or None\n\n"
    "The ln f(w) and ln(1 - f(w)) of the clues of one message's `tokens` (row of each in the\n"
    "dict `index`, counts in the array('q') columns `ham` and `spam`): those with |f - 0.5|\n"
    ">= min_dev, the max_clues strongest (0: all). None where SpamFilter._clue_values would\n"
    "divide by zero or `tokens` is not a set (the caller takes that path).";

PyObject* py_clue_logs(PyObject*, PyObject* args) {
    PyObject *tokens, *index, *ham_obj, *spam_obj;
    nbk_mail::ClueParams p;
    Py_ssize_t cap;
    if (!PyArg_ParseTuple(args, "OO!OOLLddddn", &tokens, &PyDict_Type, &index, &ham_obj,
                          &spam_obj, &p.n_ham, &p.n_spam, &p.s, &p.x, &p.c, &p.min_dev, &cap))
        return nullptr;
    Py_buffer hv, sv;
    if (!int64_column(ham_obj, &hv)) return nullptr;
    if (!int64_column(spam_obj, &sv)) {
        PyBuffer_Release(&hv);
        return nullptr;
    }
    const auto* ham = static_cast<const std::int64_t*>(hv.buf);
    const auto* spam = static_cast<const std::int64_t*>(sv.buf);
    Py_ssize_t rows = std::min(hv.len, sv.len) / 8;
    std::vector<Clue> clues;
    PyObject* result = nullptr;
    bool fallback = false;
    bool failed = false;
    // a set or frozenset only: it keeps the tokens alive while the clues point at them
    PyObject* it = PyAnySet_Check(tokens) ? PyObject_GetIter(tokens) : nullptr;
    if (it == nullptr && !PyErr_Occurred()) fallback = true;
    if (it != nullptr) {
        PyObject* t;
        while ((t = PyIter_Next(it)) != nullptr) {
            Py_DECREF(t);  // the set keeps it alive
            if (!PyUnicode_Check(t)) {
                fallback = true;
                break;
            }
            PyObject* row = PyDict_GetItemWithError(index, t);
            std::int64_t g = 0, b = 0;
            if (row != nullptr) {
                Py_ssize_t i = PyLong_AsSsize_t(row);
                if (i < 0 || i >= rows) {
                    if (PyErr_Occurred()) PyErr_Clear();
                    fallback = true;
                    break;
                }
                g = ham[i];
                b = spam[i];
            } else if (PyErr_Occurred()) {
                failed = true;
                break;
            }
            double f;
            if (!nbk_mail::robinson_f(g, b, p, f)) {
                fallback = true;
                break;
            }
            double d = nbk_mail::deviation(f);
            if (d >= p.min_dev) clues.push_back(Clue{d, std::log(f), std::log1p(-f), t});
        }
        Py_DECREF(it);
        if (PyErr_Occurred()) failed = true;
    } else if (!fallback) {
        failed = true;
    }
    if (!failed && !fallback) {
        if (cap > 0 && static_cast<Py_ssize_t>(clues.size()) > cap) {
            std::nth_element(clues.begin(), clues.begin() + cap, clues.end(), Stronger{&failed});
            clues.resize(static_cast<std::size_t>(cap));
        }
        PyObject* lf = failed ? nullptr : PyList_New(static_cast<Py_ssize_t>(clues.size()));
        PyObject* l1 = lf ? PyList_New(static_cast<Py_ssize_t>(clues.size())) : nullptr;
        bool ok = l1 != nullptr;
        for (std::size_t k = 0; ok && k < clues.size(); ++k) {
            PyObject* a = PyFloat_FromDouble(clues[k].log_f);
            PyObject* b = PyFloat_FromDouble(clues[k].log_1mf);
            if (a == nullptr || b == nullptr) {
                Py_XDECREF(a);
                Py_XDECREF(b);
                ok = false;
                break;
            }
            PyList_SET_ITEM(lf, static_cast<Py_ssize_t>(k), a);
            PyList_SET_ITEM(l1, static_cast<Py_ssize_t>(k), b);
        }
        if (ok) result = PyTuple_Pack(2, lf, l1);
        Py_XDECREF(lf);
        Py_XDECREF(l1);
    } else if (fallback && !failed) {
        result = Py_NewRef(Py_None);
    }
    PyBuffer_Release(&hv);
    PyBuffer_Release(&sv);
    return result;
}

PyMethodDef methods[] = {
    {"words", py_words, METH_VARARGS, words_doc},
    {"clue_logs", py_clue_logs, METH_VARARGS, clue_logs_doc},
    {nullptr, nullptr, 0, nullptr},
};

struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "_mail_native",
    "The spam filter's compiled tokenizer kernel. Internal: use nbayes.mail.", -1, methods,
    nullptr, nullptr, nullptr, nullptr,
};

}  // namespace

PyMODINIT_FUNC PyInit__mail_native(void) { return PyModule_Create(&moduledef); }
