// nbayes._native, binding of the documents (doc_set) as the kernels read them; the character
// tables of the scanners (scan.hpp); the cancel flag.
#include "binding.hpp"
#include "scan.hpp"

using namespace nbk;

PyDoc_STRVAR(doc_set_doc,
             "doc_set(docs, lowercase) -> (DocSet, lengths)\n\n"
             "Views of the str objects of ``docs`` for the kernels (kept alive with them).\n"
             "With ``lowercase``, documents holding U+0130 or U+03A3 are lowercased by\n"
             "Python's str.lower first; ``lengths`` are the lengths the kernels read.");

static PyObject* py_doc_set(PyObject*, PyObject* args) {
    PyObject* docs;
    int lowercase;
    if (!PyArg_ParseTuple(args, "Op", &docs, &lowercase)) return nullptr;
    PyObject* hold = PySequence_Tuple(docs);
    if (hold == nullptr) return nullptr;
    auto* box = new (std::nothrow) DocSetBox;
    if (box == nullptr) {
        Py_DECREF(hold);
        return PyErr_NoMemory();
    }
    box->hold = hold;
    PyObject* cap = PyCapsule_New(box, DOCSET, docset_free);
    if (cap == nullptr) {
        Py_DECREF(hold);
        delete box;
        return nullptr;
    }
    // from here on, releasing cap frees everything
    const Py_ssize_t n = PyTuple_GET_SIZE(hold);
    std::vector<i64> lengths;
    try {
        box->ds.views.resize(static_cast<std::size_t>(n));
        box->ds.nolow.assign(static_cast<std::size_t>(n), 0);
        lengths.resize(static_cast<std::size_t>(n));
    } catch (const std::bad_alloc&) {
        Py_DECREF(cap);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < n; ++i) {
        PyObject* s = PyTuple_GET_ITEM(hold, i);
        StrView v;
        if (!PyUnicode_Check(s)) {
            PyErr_Format(PyExc_TypeError, "docs[%zd] is of type %s, expected str", i,
                         Py_TYPE(s)->tp_name);
            Py_DECREF(cap);
            return nullptr;
        }
        if (!str_view(s, v)) {
            Py_DECREF(cap);
            return nullptr;
        }
        if (lowercase && needs_python_lower(v)) {
            PyObject* low = PyObject_CallMethod(reinterpret_cast<PyObject*>(&PyUnicode_Type),
                                                "lower", "O", s);
            if (low == nullptr) {
                Py_DECREF(cap);
                return nullptr;
            }
            box->keep.push_back(low);
            if (!str_view(low, v)) {
                Py_DECREF(cap);
                return nullptr;
            }
            box->ds.nolow[static_cast<std::size_t>(i)] = 1;
        }
        box->ds.views[static_cast<std::size_t>(i)] = v;
        lengths[static_cast<std::size_t>(i)] = v.n;
    }
    PyObject* lens = to_np(std::move(lengths));
    if (lens == nullptr) {
        Py_DECREF(cap);
        return nullptr;
    }
    return Py_BuildValue("(NN)", cap, lens);
}
NBK_ENTRY(doc_set, METH_VARARGS, doc_set_doc);

PyDoc_STRVAR(word_table_doc,
             "word_table() -> uint8 array of 0x110000: 1 where re's \\w matches (str patterns).\n\n"
             "sre's definition: Py_UNICODE_ISALNUM(ch) or ch == '_'.");

static inline u32 word_flag(u32 c) {
    return (Py_UNICODE_ISALNUM(static_cast<Py_UCS4>(c)) || c == '_') ? WORD : 0u;
}

static PyObject* py_word_table(PyObject*, PyObject*) {
    std::vector<u8> t(static_cast<std::size_t>(MAX_CP));
    for (i64 c = 0; c < MAX_CP; ++c) t[static_cast<std::size_t>(c)] = word_flag(static_cast<u32>(c)) ? 1 : 0;
    return to_np(std::move(t));
}
NBK_ENTRY(word_table, METH_NOARGS, word_table_doc);

PyDoc_STRVAR(char_table_doc,
             "char_table(lowercase) -> uint32 array of 0x110000 (empty if it cannot be built)\n\n"
             "t[cp] = (lowercased) code point | 1 << 31 if that is a word character. The\n"
             "lowercase is str.lower of every code point but U+0130 (two characters) and\n"
             "U+03A3 (context-dependent), which map to themselves: documents holding them\n"
             "are lowercased by Python first. Empty when str.lower maps another code point\n"
             "to several (a Unicode version this table cannot follow).");

static PyObject* py_char_table(PyObject*, PyObject* arg) {
    const int lowercase = PyObject_IsTrue(arg);
    if (lowercase < 0) return nullptr;
    std::vector<u32> t;
    try {
        t.resize(static_cast<std::size_t>(MAX_CP));
    } catch (const std::bad_alloc&) {
        return PyErr_NoMemory();
    }
    if (!lowercase) {
        for (i64 c = 0; c < MAX_CP; ++c) t[static_cast<std::size_t>(c)] = static_cast<u32>(c) | word_flag(static_cast<u32>(c));
        return to_np(std::move(t));
    }
    // str.lower of the code points, 64 Ki at a time (little memory beside the table;
    // no lowercase mapping depends on context but final sigma, U+03A3, which maps to
    // itself here), U+0130 left out
    constexpr i64 STEP = 1 << 16;
    for (i64 lo = 0; lo < MAX_CP; lo += STEP) {
        const i64 hi = lo + STEP < MAX_CP ? lo + STEP : MAX_CP;
        const i64 n = hi - lo - ((lo <= 0x130 && 0x130 < hi) ? 1 : 0);
        PyObject* chunk = PyUnicode_New(n, 0x10FFFF);
        if (chunk == nullptr) return nullptr;
        Py_UCS4* w = PyUnicode_4BYTE_DATA(chunk);
        i64 o = 0;
        for (i64 c = lo; c < hi; ++c)
            if (c != 0x130) w[o++] = static_cast<Py_UCS4>(c);
        PyObject* low = PyObject_CallMethod(chunk, "lower", nullptr);
        Py_DECREF(chunk);
        if (low == nullptr) return nullptr;
        if (PyUnicode_GET_LENGTH(low) != n) {  // another one-to-many lowercase mapping
            Py_DECREF(low);
            t.clear();
            return to_np(std::move(t));
        }
        const int kind = PyUnicode_KIND(low);
        const void* data = PyUnicode_DATA(low);
        o = 0;
        for (i64 c = lo; c < hi; ++c) {
            u32 l = static_cast<u32>(c);
            if (c != 0x130) l = static_cast<u32>(PyUnicode_READ(kind, data, o++));
            if (c == 0x3A3) l = 0x3A3;
            t[static_cast<std::size_t>(c)] = l | word_flag(l);
        }
        Py_DECREF(low);
    }
    return to_np(std::move(t));
}
NBK_ENTRY(char_table, METH_O, char_table_doc);

static PyObject* py_cancel(PyObject*, PyObject*) {
    g_cancel.store(true);
    Py_RETURN_NONE;
}
NBK_ENTRY(cancel, METH_NOARGS, "Ask every running kernel to stop (KeyboardInterrupt).");

static PyObject* py_reset_cancel(PyObject*, PyObject*) {
    g_cancel.store(false);
    Py_RETURN_NONE;
}
NBK_ENTRY(reset_cancel, METH_NOARGS, "Clear the cancel flag.");
