/* WordSet: how many distinct whitespace-separated words a corpus holds, without keeping them.
 *
 * Training refuses a corpus with more distinct words than a trainer's memory allows before it starts
 * (tokenizer_core/training.py, within_word_limit). Only each word's 64-bit hash is kept (seeded per
 * process, kernel.h): 16 bytes per distinct word, counted without the GIL. Two different words whose
 * hashes collide count once, which only matters for a limit in the millions (odds about n^2 / 2^65). */
#include "kernel.h"

typedef struct {
    PyObject_HEAD
    PyObject *classes_obj;
    const unsigned char *cls;
    int busy;              /* a call is running (enter_call) */
    uint64_t *slot;        /* hashes (never 0); 0 = empty */
    size_t mask, count;
} WordSet;

static int wordset_grow(WordSet *w) {
    size_t cap = w->mask ? (w->mask + 1) * 2 : 1 << 12;
    uint64_t *slot = PyMem_RawCalloc(cap, sizeof(uint64_t));
    if (!slot) return -1;
    for (size_t k = 0; w->slot && k <= w->mask; k++) {
        uint64_t h = w->slot[k];
        if (!h) continue;
        size_t i = h & (cap - 1);
        while (slot[i]) i = (i + 1) & (cap - 1);
        slot[i] = h;
    }
    PyMem_RawFree(w->slot);
    w->slot = slot;
    w->mask = cap - 1;
    return 0;
}

/* Every \S+ word of the text (\s as the regex module reads it); no GIL needed. */
static int wordset_add_text(WordSet *w, const Text *t) {
    Py_ssize_t s, e, i = 0;
    while (next_word(w->cls, SPLIT_WHITESPACESPLIT, t, i, &s, &e)) {
        uint64_t h = kernel_seed ^ (uint64_t)(e - s);
        for (Py_ssize_t k = s; k < e; k++) h = (h ^ AT(t, k)) * 0x100000001b3ULL;
        h = nonzero(mix64(h ^ kernel_seed));
        size_t at = h & w->mask;
        while (w->slot[at] && w->slot[at] != h) at = (at + 1) & w->mask;
        if (!w->slot[at]) {
            w->slot[at] = h;
            if (++w->count * 2 > w->mask + 1 && wordset_grow(w) < 0) return -1;
        }
        i = e;
    }
    return 0;
}

static int check_ready(const WordSet *w) {
    if (w->classes_obj) return 0;
    PyErr_SetString(PyExc_RuntimeError, "WordSet is not initialised: build it with WordSet(classes)");
    return -1;
}

PyDoc_STRVAR(wordset_add_doc,
"add(text) -> int: take in the text's whitespace-separated words; returns how many distinct words\n"
"have been seen so far. Runs without the GIL.");

static PyObject *WordSet_add(WordSet *w, PyObject *text) {
    if (check_ready(w) < 0) return NULL;
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "text must be str, not %.100s", Py_TYPE(text)->tp_name);
        return NULL;
    }
    if (enter_call(&w->busy, "WordSet") < 0) return NULL;
    Text t = text_of(text);
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = wordset_add_text(w, &t);
    Py_END_ALLOW_THREADS
    leave_call(&w->busy);
    if (rc < 0) return PyErr_NoMemory();
    return PyLong_FromSize_t(w->count);
}

static PyObject *WordSet_distinct(WordSet *w, PyObject *Py_UNUSED(ignored)) {
    if (check_ready(w) < 0) return NULL;
    return PyLong_FromSize_t(w->count);
}

static PyMethodDef WordSet_methods[] = {
    {"add", (PyCFunction)WordSet_add, METH_O, wordset_add_doc},
    {"distinct", (PyCFunction)WordSet_distinct, METH_NOARGS, "distinct() -> int: distinct words seen so far."},
    {NULL, NULL, 0, NULL},
};

static void WordSet_dealloc(WordSet *w) {
    PyMem_RawFree(w->slot);
    Py_XDECREF(w->classes_obj);
    Py_TYPE(w)->tp_free((PyObject *)w);
}

/* WordSet(classes): classes is the class table (one byte per code point). */
static int WordSet_init(WordSet *w, PyObject *args, PyObject *kw) {
    static char *names[] = {"classes", NULL};
    PyObject *classes;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "S", names, &classes)) return -1;
    if (w->classes_obj) {
        PyErr_SetString(PyExc_RuntimeError, "WordSet is already initialised");
        return -1;
    }
    if (PyBytes_GET_SIZE(classes) != N_CODEPOINTS) {
        PyErr_SetString(PyExc_ValueError, "classes must hold one byte per code point (0x110000)");
        return -1;
    }
    if (wordset_grow(w) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    Py_INCREF(classes);
    w->cls = (const unsigned char *)PyBytes_AS_STRING(classes);
    w->classes_obj = classes; /* last: the object is ready */
    return 0;
}

PyTypeObject WordSetType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tokenizer_kernel.WordSet",
    .tp_doc = PyDoc_STR("Distinct whitespace-separated words of a corpus, counted by hash (see tokenizer_core/training.py)."),
    .tp_basicsize = sizeof(WordSet),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)WordSet_init,
    .tp_dealloc = (destructor)WordSet_dealloc,
    .tp_methods = WordSet_methods,
};
