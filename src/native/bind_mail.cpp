// nbayes._mail_native: the spam filter's compiled tokenizer kernel (mail_words.hpp).
//
// A module of its own (no NumPy): the mail path (nbayes.mail, `nbayes filter`) imports it
// without the text kernels' module and NumPy's C API.
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <algorithm>
#include <vector>

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

PyMethodDef methods[] = {
    {"words", py_words, METH_VARARGS, words_doc},
    {nullptr, nullptr, 0, nullptr},
};

struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "_mail_native",
    "The spam filter's compiled tokenizer kernel. Internal: use nbayes.mail.", -1, methods,
    nullptr, nullptr, nullptr, nullptr,
};

}  // namespace

PyMODINIT_FUNC PyInit__mail_native(void) { return PyModule_Create(&moduledef); }
