/* PieceCounter: the pieces of a training corpus counted in one pass (GPT-2 split, or the word
 * splitters), in order of first appearance, as tokenizer_core/text/counting.py counts them;
 * tokenizer_core/text/native_counting.py runs one per chunk on threads and merges them.
 *
 * add() and merge() run without the GIL: the counter keeps its pieces as code points in an arena
 * of its own (raw allocations, no Python objects) and makes the Python strings only in counts()
 * (as GPT-2's byte symbols with byte_symbols.c).
 * Counting a corpus on many cores is then one counter per chunk, each filled on its own thread,
 * merged in chunk order (which keeps the order of first appearance of one pass over the corpus). */
#include "kernel.h"

typedef struct {
    PyObject_HEAD
    PyObject *classes_obj;
    const unsigned char *cls;
    int how;
    int busy;              /* a call is running (enter_call) */
    /* Entries in order of first appearance: piece k is arena[key_off[k] .. key_off[k] + key_len[k]). */
    Py_UCS4 *arena;
    size_t arena_len, arena_cap;
    size_t *key_off;
    size_t *key_len;
    uint64_t *key_hash;
    int64_t *count;
    size_t n, cap;
    /* Open addressing over the entries: slot holds entry number + 1 (0 = empty). */
    uint32_t *slot;
    size_t mask;
} PieceCounter;

/* Why a call without the GIL failed; the exception is raised once the GIL is back. */
enum { COUNT_OK = 0, COUNT_NO_MEMORY = -1, COUNT_TOO_MANY = -2 };

static int raise_count_error(int rc) {
    if (rc == COUNT_NO_MEMORY) PyErr_NoMemory();
    else if (rc == COUNT_TOO_MANY) PyErr_SetString(PyExc_OverflowError, "too many distinct pieces (2**32-2 at most)");
    return rc;
}

static uint64_t hash_span(const Text *t, Py_ssize_t i, Py_ssize_t j) {
    uint64_t h = kernel_seed ^ (uint64_t)(j - i);
    for (Py_ssize_t k = i; k < j; k++) h = (h ^ AT(t, k)) * 0x100000001b3ULL;
    return nonzero(mix64(h ^ kernel_seed));
}

static int span_equals(const PieceCounter *c, size_t k, const Text *t, Py_ssize_t i, Py_ssize_t j) {
    if (c->key_len[k] != (size_t)(j - i)) return 0;
    const Py_UCS4 *key = c->arena + c->key_off[k];
    if (t->kind == PyUnicode_4BYTE_KIND)
        return memcmp(key, (const Py_UCS4 *)t->data + i, (size_t)(j - i) * sizeof(Py_UCS4)) == 0;
    for (Py_ssize_t m = 0; m < j - i; m++)
        if (key[m] != AT(t, i + m)) return 0;
    return 1;
}

static int counter_grow(PieceCounter *c) {
    size_t cap = c->mask ? (c->mask + 1) * 2 : 1024;
    uint32_t *slot = PyMem_RawCalloc(cap, sizeof(uint32_t));
    if (!slot) return COUNT_NO_MEMORY;
    for (size_t k = 0; k < c->n; k++) {
        size_t i = c->key_hash[k] & (cap - 1);
        while (slot[i]) i = (i + 1) & (cap - 1);
        slot[i] = (uint32_t)(k + 1);
    }
    PyMem_RawFree(c->slot);
    c->slot = slot;
    c->mask = cap - 1;
    return COUNT_OK;
}

static void *grow_array(void *p, size_t cap, size_t item) {
    return cap > SIZE_MAX / item ? NULL : PyMem_RawRealloc(p, cap * item);
}

/* Count `times` more of the piece t[i:j] (whose hash is h); no Python API, no GIL needed. */
static int counter_add_span(PieceCounter *c, uint64_t h, const Text *t, Py_ssize_t i, Py_ssize_t j, int64_t times) {
    size_t s = h & c->mask;
    while (c->slot[s]) {
        size_t k = c->slot[s] - 1;
        if (c->key_hash[k] == h && span_equals(c, k, t, i, j)) {
            c->count[k] += times;
            return COUNT_OK;
        }
        s = (s + 1) & c->mask;
    }
    if (c->n >= UINT32_MAX - 1) return COUNT_TOO_MANY;
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 1024;
        size_t *off = grow_array(c->key_off, cap, sizeof(size_t));
        if (!off) return COUNT_NO_MEMORY;
        c->key_off = off;
        size_t *len = grow_array(c->key_len, cap, sizeof(size_t));
        if (!len) return COUNT_NO_MEMORY;
        c->key_len = len;
        uint64_t *kh = grow_array(c->key_hash, cap, sizeof(uint64_t));
        if (!kh) return COUNT_NO_MEMORY;
        c->key_hash = kh;
        int64_t *cnt = grow_array(c->count, cap, sizeof(int64_t));
        if (!cnt) return COUNT_NO_MEMORY;
        c->count = cnt;
        c->cap = cap;
    }
    size_t n = (size_t)(j - i);
    if (c->arena_len + n > c->arena_cap) {
        size_t cap = c->arena_cap ? c->arena_cap : 1 << 16;
        while (cap < c->arena_len + n) cap *= 2;
        Py_UCS4 *a = grow_array(c->arena, cap, sizeof(Py_UCS4));
        if (!a) return COUNT_NO_MEMORY;
        c->arena = a;
        c->arena_cap = cap;
    }
    Py_UCS4 *dst = c->arena + c->arena_len;
    for (size_t m = 0; m < n; m++) dst[m] = AT(t, i + (Py_ssize_t)m);
    c->key_off[c->n] = c->arena_len;
    c->key_len[c->n] = n;
    c->key_hash[c->n] = h;
    c->count[c->n] = times;
    c->slot[s] = (uint32_t)(c->n + 1);
    c->n++;
    c->arena_len += n;
    if (c->n * 2 > c->mask + 1) return counter_grow(c);
    return COUNT_OK;
}

/* Count the pieces of a whole text (lines split on their own when per_line); no GIL needed. */
static int count_text(PieceCounter *c, const Text *whole, int per_line) {
    for (Py_ssize_t line = 0; line < whole->len;) {
        Text t = *whole;
        if (per_line) { /* scan up to and including the next "\n" */
            Py_ssize_t end = line;
            while (end < whole->len && AT(whole, end) != '\n') end++;
            t.len = end < whole->len ? end + 1 : end;
        }
        int rc;
        if (c->how == SPLIT_GPT2) {
            for (Py_ssize_t i = line; i < t.len;) {
                Py_ssize_t j = next_gpt2(c->cls, &t, i);
                if ((rc = counter_add_span(c, hash_span(&t, i, j), &t, i, j, 1)) < 0) return rc;
                i = j;
            }
        } else {
            Py_ssize_t s, e, i = line;
            while (next_word(c->cls, c->how, &t, i, &s, &e)) {
                if ((rc = counter_add_span(c, hash_span(&t, s, e), &t, s, e, 1)) < 0) return rc;
                i = e;
            }
        }
        line = t.len;
    }
    return COUNT_OK;
}

/* Objects come from tp_new zeroed and usable before __init__ (PieceCounter.__new__(PieceCounter));
 * __init__ sets classes_obj last, after the slot table exists. */
static int check_ready(const PieceCounter *c) {
    if (c->classes_obj) return 0;
    PyErr_SetString(PyExc_RuntimeError, "PieceCounter is not initialised: build it with PieceCounter(classes, how)");
    return -1;
}

static PyObject *run_add(PieceCounter *c, PyObject *args) {
    PyObject *text;
    int per_line, rc;
    if (!PyArg_ParseTuple(args, "Up", &text, &per_line)) return NULL;
    /* The text stays alive (the call's arguments hold it) and a str never changes: it is read
     * without the GIL, while other threads count other chunks. */
    Text whole = text_of(text);
    Py_BEGIN_ALLOW_THREADS
    rc = count_text(c, &whole, per_line);
    Py_END_ALLOW_THREADS
    if (rc < 0) return raise_count_error(rc), NULL;
    Py_RETURN_NONE;
}

static PyObject *run_merge(PieceCounter *c, PyObject *arg) {
    PieceCounter *o = (PieceCounter *)arg;
    if ((PyObject *)o == (PyObject *)c) {
        PyErr_SetString(PyExc_ValueError, "a PieceCounter cannot merge itself");
        return NULL;
    }
    if (check_ready(o) < 0 || enter_call(&o->busy, "PieceCounter") < 0) return NULL;
    if (o->how != c->how) {
        leave_call(&o->busy);
        PyErr_SetString(PyExc_ValueError, "both counters must split the same way");
        return NULL;
    }
    int rc = COUNT_OK;
    Py_BEGIN_ALLOW_THREADS
    Text t = {PyUnicode_4BYTE_KIND, o->arena, 0};
    for (size_t k = 0; k < o->n && rc == COUNT_OK; k++) {
        t.data = o->arena + o->key_off[k];
        t.len = (Py_ssize_t)o->key_len[k];
        rc = counter_add_span(c, o->key_hash[k], &t, 0, t.len, o->count[k]);
    }
    Py_END_ALLOW_THREADS
    leave_call(&o->busy);
    if (rc < 0) return raise_count_error(rc), NULL;
    Py_RETURN_NONE;
}

/* d[key] += count (pieces that differ only in lone surrogates meet under one byte-symbol key). */
static int add_count(PyObject *d, PyObject *key, int64_t count) {
    PyObject *old = PyDict_GetItemWithError(d, key); /* borrowed */
    if (!old && PyErr_Occurred()) return -1;
    PyObject *v;
    if (old) {
        PyObject *add = PyLong_FromLongLong(count);
        v = add ? PyNumber_Add(old, add) : NULL;
        Py_XDECREF(add);
    } else {
        v = PyLong_FromLongLong(count);
    }
    int rc = v ? PyDict_SetItem(d, key, v) : -1;
    Py_XDECREF(v);
    return rc;
}

static PyObject *run_counts(PieceCounter *c, int byte_symbols, PyObject *into) {
    PyObject *d = into ? (Py_INCREF(into), into) : PyDict_New();
    if (!d) return NULL;
    int summing = byte_symbols || into;
    Py_UCS2 table[256];
    Py_UCS2 *buf = NULL;
    size_t buf_cap = 0;
    if (byte_symbols) byte_symbol_table(table);
    for (size_t k = 0; k < c->n; k++) {
        const Py_UCS4 *cp = c->arena + c->key_off[k];
        size_t len = c->key_len[k];
        PyObject *key;
        if (byte_symbols) {
            if (len > buf_cap) {
                Py_UCS2 *grown = len > ((size_t)PY_SSIZE_T_MAX / 8) ? NULL : PyMem_Realloc(buf, 4 * len * sizeof(Py_UCS2));
                if (!grown) {
                    PyErr_NoMemory();
                    goto fail;
                }
                buf = grown;
                buf_cap = len;
            }
            key = PyUnicode_FromKindAndData(PyUnicode_2BYTE_KIND, buf, to_byte_symbols(cp, len, table, buf));
        } else {
            key = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, cp, (Py_ssize_t)len);
        }
        if (!key) goto fail;
        int rc = summing ? add_count(d, key, c->count[k]) : -1;
        if (!summing) { /* a fresh dict of distinct pieces: no lookup needed */
            PyObject *v = PyLong_FromLongLong(c->count[k]);
            rc = v ? PyDict_SetItem(d, key, v) : -1;
            Py_XDECREF(v);
        }
        Py_DECREF(key);
        if (rc < 0) goto fail;
    }
    PyMem_Free(buf);
    return d;
fail:
    PyMem_Free(buf);
    Py_DECREF(d);
    return NULL;
}

static PyObject *run_distinct(PieceCounter *c, PyObject *Py_UNUSED(ignored)) { return PyLong_FromSize_t(c->n); }

PyDoc_STRVAR(counter_add_doc,
"add(text, per_line) -> None: count the pieces of text. With per_line, each \"\\n\"-ended line is\n"
"split on its own (as tokenizers reads files); otherwise the text is split as one. Runs without\n"
"the GIL: threads may fill different counters at once.");

static PyObject *PieceCounter_add(PieceCounter *c, PyObject *args) {
    if (check_ready(c) < 0 || enter_call(&c->busy, "PieceCounter") < 0) return NULL;
    PyObject *out = run_add(c, args);
    leave_call(&c->busy);
    return out;
}

PyDoc_STRVAR(counter_merge_doc,
"merge(other) -> None: add another counter's counts (same split), its new pieces after this\n"
"one's, in its order: merging the counters of consecutive chunks in chunk order gives the counts\n"
"and the order of first appearance of one pass over the whole text.");

static PyObject *PieceCounter_merge(PieceCounter *c, PyObject *other) {
    if (check_ready(c) < 0) return NULL;
    if (!PyObject_TypeCheck(other, &PieceCounterType)) {
        PyErr_Format(PyExc_TypeError, "merge takes a PieceCounter, not %.100s", Py_TYPE(other)->tp_name);
        return NULL;
    }
    if (enter_call(&c->busy, "PieceCounter") < 0) return NULL;
    PyObject *out = run_merge(c, other);
    leave_call(&c->busy);
    return out;
}

PyDoc_STRVAR(counter_counts_doc,
"counts(*, byte_symbols=False, into=None) -> dict[str, int]: every piece seen, in order of first\n"
"appearance. byte_symbols: each piece as GPT-2's byte symbols (its UTF-8 bytes through\n"
"bytes_to_unicode, a lone surrogate read as U+FFFD; pieces that meet under one key are summed).\n"
"into: a dict (or a dict subclass such as Counter) to add them to, returned.");

static PyObject *PieceCounter_counts(PieceCounter *c, PyObject *args, PyObject *kw) {
    static char *names[] = {"byte_symbols", "into", NULL};
    int byte_symbols = 0;
    PyObject *into = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|$pO", names, &byte_symbols, &into)) return NULL;
    if (into == Py_None) into = NULL;
    if (into && !PyDict_Check(into)) {
        PyErr_Format(PyExc_TypeError, "into must be a dict, not %.100s", Py_TYPE(into)->tp_name);
        return NULL;
    }
    if (check_ready(c) < 0 || enter_call(&c->busy, "PieceCounter") < 0) return NULL;
    PyObject *out = run_counts(c, byte_symbols, into);
    leave_call(&c->busy);
    return out;
}

static PyObject *PieceCounter_distinct(PieceCounter *c, PyObject *ignored) {
    if (check_ready(c) < 0 || enter_call(&c->busy, "PieceCounter") < 0) return NULL;
    PyObject *out = run_distinct(c, ignored);
    leave_call(&c->busy);
    return out;
}

static PyMethodDef PieceCounter_methods[] = {
    {"add", (PyCFunction)PieceCounter_add, METH_VARARGS, counter_add_doc},
    {"merge", (PyCFunction)PieceCounter_merge, METH_O, counter_merge_doc},
    {"counts", (PyCFunction)(void (*)(void))PieceCounter_counts, METH_VARARGS | METH_KEYWORDS, counter_counts_doc},
    {"distinct", (PyCFunction)PieceCounter_distinct, METH_NOARGS, "distinct() -> int: the number of distinct pieces."},
    {NULL, NULL, 0, NULL},
};

static void PieceCounter_dealloc(PieceCounter *c) {
    PyMem_RawFree(c->arena);
    PyMem_RawFree(c->key_off);
    PyMem_RawFree(c->key_len);
    PyMem_RawFree(c->key_hash);
    PyMem_RawFree(c->count);
    PyMem_RawFree(c->slot);
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
    if (how != SPLIT_GPT2 && how != SPLIT_WHITESPACE && how != SPLIT_WORDSPLIT && how != SPLIT_WHITESPACESPLIT
        && how != SPLIT_SPACES) {
        PyErr_SetString(PyExc_ValueError, "how must be 0, 2, 3 or 4");
        return -1;
    }
    /* nothing else set yet on failure: the object stays not initialised */
    if (counter_grow(c) < 0) return raise_count_error(COUNT_NO_MEMORY);
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
