/* PieceCounter: the pieces of a training corpus counted in one pass (GPT-2 split, or the word
 * splitters), in order of first appearance, as tokenizer_core/text/counting.py counts them. */
#include "kernel.h"

typedef struct {
    PyObject_HEAD
    PyObject *classes_obj;
    const unsigned char *cls;
    int how;
    int busy;              /* a call is running (enter_call) */
    /* Entries in order of first appearance; the slot table maps hashes to entry numbers + 1. */
    PyObject **key;
    uint64_t *key_hash;
    int64_t *count;
    size_t n, cap;
    uint32_t *slot;
    size_t mask;
} PieceCounter;

static uint64_t hash_span(const Text *t, Py_ssize_t i, Py_ssize_t j) {
    uint64_t h = kernel_seed ^ (uint64_t)(j - i);
    for (Py_ssize_t k = i; k < j; k++) h = (h ^ AT(t, k)) * 0x100000001b3ULL;
    return nonzero(mix64(h ^ kernel_seed));
}

static int span_equals(PyObject *key, const Text *t, Py_ssize_t i, Py_ssize_t j) {
    if (PyUnicode_GET_LENGTH(key) != j - i) return 0;
    int kk = PyUnicode_KIND(key);
    const void *kd = PyUnicode_DATA(key);
    if (kk == t->kind) return memcmp(kd, (const char *)t->data + i * kk, (size_t)(j - i) * kk) == 0;
    for (Py_ssize_t k = 0; k < j - i; k++)
        if (PyUnicode_READ(kk, kd, k) != AT(t, i + k)) return 0;
    return 1;
}

static int counter_grow(PieceCounter *c) {
    size_t cap = c->mask ? (c->mask + 1) * 2 : 1024;
    uint32_t *slot = PyMem_Calloc(cap, sizeof(uint32_t));
    if (!slot) { PyErr_NoMemory(); return -1; }
    for (size_t k = 0; k < c->n; k++) {
        size_t i = c->key_hash[k] & (cap - 1);
        while (slot[i]) i = (i + 1) & (cap - 1);
        slot[i] = (uint32_t)(k + 1);
    }
    PyMem_Free(c->slot);
    c->slot = slot;
    c->mask = cap - 1;
    return 0;
}

static int counter_add_span(PieceCounter *c, PyObject *text, const Text *t, Py_ssize_t i, Py_ssize_t j) {
    uint64_t h = hash_span(t, i, j);
    size_t s = h & c->mask;
    while (c->slot[s]) {
        size_t k = c->slot[s] - 1;
        if (c->key_hash[k] == h && span_equals(c->key[k], t, i, j)) {
            c->count[k]++;
            return 0;
        }
        s = (s + 1) & c->mask;
    }
    if (c->n >= UINT32_MAX - 1) {
        PyErr_SetString(PyExc_OverflowError, "too many distinct pieces");
        return -1;
    }
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 1024;
        PyObject **key = PyMem_Realloc(c->key, cap * sizeof(PyObject *));
        if (!key) { PyErr_NoMemory(); return -1; }
        c->key = key;
        uint64_t *kh = PyMem_Realloc(c->key_hash, cap * sizeof(uint64_t));
        if (!kh) { PyErr_NoMemory(); return -1; }
        c->key_hash = kh;
        int64_t *cnt = PyMem_Realloc(c->count, cap * sizeof(int64_t));
        if (!cnt) { PyErr_NoMemory(); return -1; }
        c->count = cnt;
        c->cap = cap;
    }
    PyObject *key = PyUnicode_Substring(text, i, j);
    if (!key) return -1;
    c->key[c->n] = key;
    c->key_hash[c->n] = h;
    c->count[c->n] = 1;
    c->slot[s] = (uint32_t)(c->n + 1);
    c->n++;
    if (c->n * 2 > c->mask + 1) return counter_grow(c);
    return 0;
}

/* Objects come from tp_new zeroed and usable before __init__ (PieceCounter.__new__(PieceCounter));
 * __init__ sets classes_obj last, after the slot table exists. */
static int check_ready(const PieceCounter *c) {
    if (c->classes_obj) return 0;
    PyErr_SetString(PyExc_RuntimeError, "PieceCounter is not initialised: build it with PieceCounter(classes, how)");
    return -1;
}

PyDoc_STRVAR(counter_add_doc,
"add(text, per_line) -> None: count the pieces of text. With per_line, each \"\\n\"-ended line is\n"
"split on its own (as tokenizers reads files); otherwise the text is split as one.");

static PyObject *run_add(PieceCounter *c, PyObject *args) {
    PyObject *text;
    int per_line;
    if (!PyArg_ParseTuple(args, "Up", &text, &per_line)) return NULL;
    Text whole = text_of(text);
    for (Py_ssize_t line = 0; line < whole.len;) {
        Text t = whole;
        if (per_line) { /* scan up to and including the next "\n" */
            Py_ssize_t end = line;
            while (end < whole.len && AT(&whole, end) != '\n') end++;
            t.len = end < whole.len ? end + 1 : end;
        }
        if (c->how == SPLIT_GPT2) {
            for (Py_ssize_t i = line; i < t.len;) {
                Py_ssize_t j = next_gpt2(c->cls, &t, i);
                if (counter_add_span(c, text, &t, i, j) < 0) return NULL;
                i = j;
            }
        } else {
            Py_ssize_t s, e, i = line;
            while (next_word(c->cls, c->how, &t, i, &s, &e)) {
                if (counter_add_span(c, text, &t, s, e) < 0) return NULL;
                i = e;
            }
        }
        line = t.len;
    }
    Py_RETURN_NONE;
}

PyDoc_STRVAR(counter_counts_doc, "counts() -> dict[str, int]: every piece seen, in order of first appearance.");

static PyObject *run_counts(PieceCounter *c, PyObject *Py_UNUSED(ignored)) {
    PyObject *d = PyDict_New();
    if (!d) return NULL;
    for (size_t k = 0; k < c->n; k++) {
        PyObject *v = PyLong_FromLongLong(c->count[k]);
        if (!v || PyDict_SetItem(d, c->key[k], v) < 0) { Py_XDECREF(v); Py_DECREF(d); return NULL; }
        Py_DECREF(v);
    }
    return d;
}

static PyObject *run_len(PieceCounter *c, PyObject *Py_UNUSED(ignored)) {
    return PyLong_FromSize_t(c->n);
}

static PyObject *PieceCounter_add(PieceCounter *c, PyObject *args) {
    if (check_ready(c) < 0 || enter_call(&c->busy, "PieceCounter") < 0) return NULL;
    PyObject *out = run_add(c, args);
    leave_call(&c->busy);
    return out;
}

static PyObject *PieceCounter_counts(PieceCounter *c, PyObject *ignored) {
    if (check_ready(c) < 0 || enter_call(&c->busy, "PieceCounter") < 0) return NULL;
    PyObject *out = run_counts(c, ignored);
    leave_call(&c->busy);
    return out;
}

static PyObject *PieceCounter_len(PieceCounter *c, PyObject *ignored) {
    if (check_ready(c) < 0 || enter_call(&c->busy, "PieceCounter") < 0) return NULL;
    PyObject *out = run_len(c, ignored);
    leave_call(&c->busy);
    return out;
}

static PyMethodDef PieceCounter_methods[] = {
    {"add", (PyCFunction)PieceCounter_add, METH_VARARGS, counter_add_doc},
    {"counts", (PyCFunction)PieceCounter_counts, METH_NOARGS, counter_counts_doc},
    {"distinct", (PyCFunction)PieceCounter_len, METH_NOARGS, "distinct() -> int: the number of distinct pieces."},
    {NULL, NULL, 0, NULL},
};

static void PieceCounter_dealloc(PieceCounter *c) {
    for (size_t k = 0; k < c->n; k++) Py_DECREF(c->key[k]);
    PyMem_Free(c->key);
    PyMem_Free(c->key_hash);
    PyMem_Free(c->count);
    PyMem_Free(c->slot);
    Py_XDECREF(c->classes_obj);
    Py_TYPE(c)->tp_free((PyObject *)c);
}

/* PieceCounter(classes, how): how is 0 (GPT-2), 2 (Whitespace \w+|[^\w\s]+), 3 (WordSplit
 * \w+|[^\w\s]) or 4 (WhitespaceSplit \S+). */
static int PieceCounter_init(PieceCounter *c, PyObject *args, PyObject *kw) {
    static char *names[] = {"classes", "how", NULL};
    PyObject *classes;
    int how;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Si", names, &classes, &how)) return -1;
    if (c->classes_obj) {
        PyErr_SetString(PyExc_RuntimeError, "PieceCounter is already initialised");
        return -1;
    }
    if (PyBytes_GET_SIZE(classes) != N_CODEPOINTS) {
        PyErr_SetString(PyExc_ValueError, "classes must hold one byte per code point (0x110000)");
        return -1;
    }
    if (how != SPLIT_GPT2 && how != SPLIT_WHITESPACE && how != SPLIT_WORDSPLIT && how != SPLIT_WHITESPACESPLIT) {
        PyErr_SetString(PyExc_ValueError, "how must be 0, 2, 3 or 4");
        return -1;
    }
    if (counter_grow(c) < 0) return -1; /* nothing else set yet: the object stays not initialised */
    Py_INCREF(classes);
    c->cls = (const unsigned char *)PyBytes_AS_STRING(classes);
    c->how = how;
    c->classes_obj = classes;
    return 0;
}

PyTypeObject PieceCounterType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tokenizer_kernel.PieceCounter",
    .tp_doc = PyDoc_STR("Counts of pre-tokenized pieces for training (see tokenizer_core/text/counting.py)."),
    .tp_basicsize = sizeof(PieceCounter),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)PieceCounter_init,
    .tp_dealloc = (destructor)PieceCounter_dealloc,
    .tp_methods = PieceCounter_methods,
};
