/* PairRanks: the (left, right) -> (rank, merged) lookup of a merge list that merge_ids.c checked,
 * answered from the packed id triples instead of two Python dicts of half a million tuples.
 *
 * The Python BPE encoder (tokenizer_core/bpe/model.py, for models the Encoder does not run, such as
 * Gemma's SentencePiece-style BPE) asks for one pair's rank at a time. Building the dicts that
 * answer it (merge_dicts in merge_ids.c, still used where a real dict is wanted) took 0.45 s for
 * Gemma 3's 514,906 merges; this table takes 0.1 s, and the loaded model holds 270 MB, not 376 MB.
 * The Python mirror is MergeTable.ranks in tokenizer_core/bpe/tables.py (tests hold the two equal).
 *
 * It holds the vocabulary dict (str -> id) and answers get((left, right)) by looking both strings
 * up in it, then the id pair in a 64-bit map, exactly what ranks.get answers for a list with no
 * pair listed twice and every token known (merge_ids answers None otherwise, and then no
 * PairRanks is built). */
#include "kernel.h"
#include "encoder.h"

typedef struct {
    PyObject_HEAD
    PyObject *vocab;   /* dict: str -> int id */
    PyObject **made;   /* per merge: the merged token (a strong reference) */
    Py_ssize_t n;      /* merges */
    U64Map ranks;      /* pair_key(left id, right id) -> rank */
} PairRanks;

static void clear_made(PairRanks *self) {
    if (self->made) {
        for (Py_ssize_t k = 0; k < self->n; k++) Py_XDECREF(self->made[k]);
        PyMem_Free(self->made);
        self->made = NULL;
    }
    self->n = 0;
}

static int PairRanks_traverse(PairRanks *self, visitproc visit, void *arg) {
    Py_VISIT(self->vocab);
    return 0;
}

static int PairRanks_clear(PairRanks *self) {
    Py_CLEAR(self->vocab);
    return 0;
}

static void PairRanks_dealloc(PairRanks *self) {
    PyObject_GC_UnTrack(self);
    PairRanks_clear(self);
    clear_made(self);
    u64map_free(&self->ranks);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* PairRanks(vocab, triples): vocab a dict of str to int, triples merge_ids' bytes. */
static int PairRanks_init(PairRanks *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"vocab", "triples", NULL};
    PyObject *vocab;
    Py_buffer buf;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!y*", kwlist, &PyDict_Type, &vocab, &buf)) return -1;
    if (self->vocab) {
        PyBuffer_Release(&buf);
        PyErr_SetString(PyExc_RuntimeError, "PairRanks is already built");
        return -1;
    }
    int status = -1;
    U64Map ids = {0};  /* token id -> position of the token in the vocabulary's walk */
    PyObject **tokens = NULL;
    Py_ssize_t size = PyDict_GET_SIZE(vocab), count = 0;
    if (buf.len % 12) {
        PyErr_SetString(PyExc_ValueError, "triples must hold (left, right, merged) int32 ids: a multiple of 12 bytes");
        goto done;
    }
    Py_ssize_t n = buf.len / 12;
    const int32_t *t = (const int32_t *)buf.buf;
    tokens = PyMem_Calloc(size ? (size_t)size : 1, sizeof(PyObject *));
    if (!tokens || u64map_init(&ids, (size_t)size) < 0 || u64map_init(&self->ranks, (size_t)n) < 0) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    /* Reading keys and ints runs no Python code: the dict keeps its size while it is walked. */
    while (PyDict_Next(vocab, &pos, &key, &value)) {
        if (!PyUnicode_CheckExact(key) || !PyLong_CheckExact(value)) continue;
        int overflow;
        long long id = PyLong_AsLongLongAndOverflow(value, &overflow);
        if (id == -1 && PyErr_Occurred()) goto done;
        if (overflow || id < 0 || id > INT32_MAX) continue;
        int created;
        int64_t *slot = u64map_slot(&ids, (uint64_t)id, &created);
        if (!slot) goto done;
        *slot = count;
        tokens[count++] = key;  /* borrowed: the dict holds it until made[] takes its own reference */
    }
    self->made = PyMem_Calloc(n ? (size_t)n : 1, sizeof(PyObject *));
    if (!self->made) {
        PyErr_NoMemory();
        goto done;
    }
    self->n = n;
    for (Py_ssize_t k = 0; k < n; k++) {
        const int64_t *at = t[3 * k + 2] >= 0 ? u64map_find(&ids, (uint64_t)t[3 * k + 2]) : NULL;
        if (!at || t[3 * k] < 0 || t[3 * k + 1] < 0) {
            PyErr_Format(PyExc_ValueError, "merge %zd names an id that is not in the vocabulary", k);
            goto done;
        }
        Py_INCREF(tokens[*at]);
        self->made[k] = tokens[*at];
        int created;
        int64_t *slot = u64map_slot(&self->ranks, pair_key(t[3 * k], t[3 * k + 1]), &created);
        if (!slot) {
            PyErr_NoMemory();
            goto done;
        }
        *slot = k;  /* a pair listed twice keeps its last rank, as ranks does */
    }
    Py_INCREF(vocab);
    self->vocab = vocab;
    status = 0;
done:
    if (status < 0) {
        clear_made(self);
        u64map_free(&self->ranks);
        memset(&self->ranks, 0, sizeof(self->ranks));
    }
    u64map_free(&ids);
    PyMem_Free(tokens);
    PyBuffer_Release(&buf);
    return status;
}

/* get(pair) -> (rank, merged) or None: pair a (left, right) tuple of str. */
static PyObject *PairRanks_get(PairRanks *self, PyObject *pair) {
    if (!self->vocab) {
        PyErr_SetString(PyExc_RuntimeError, "PairRanks was not built");
        return NULL;
    }
    if (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2) Py_RETURN_NONE;
    PyObject *left = PyTuple_GET_ITEM(pair, 0), *right = PyTuple_GET_ITEM(pair, 1);
    if (!PyUnicode_CheckExact(left) || !PyUnicode_CheckExact(right)) Py_RETURN_NONE;
    int32_t l, r;
    int got = vocab_token_id(self->vocab, left, &l);
    if (got == 1) got = vocab_token_id(self->vocab, right, &r);
    if (got < 0) return NULL;
    if (!got) Py_RETURN_NONE;
    const int64_t *rank = u64map_find(&self->ranks, pair_key(l, r));
    if (!rank) Py_RETURN_NONE;
    PyObject *k = PyLong_FromLongLong(*rank);
    if (!k) return NULL;
    PyObject *out = PyTuple_Pack(2, k, self->made[*rank]);
    Py_DECREF(k);
    return out;
}

static Py_ssize_t PairRanks_len(PairRanks *self) { return (Py_ssize_t)self->ranks.count; }

static PyMethodDef PairRanks_methods[] = {
    {"get", (PyCFunction)PairRanks_get, METH_O, "get((left, right)) -> (rank, merged token) or None."},
    {NULL, NULL, 0, NULL},
};

static PySequenceMethods PairRanks_as_sequence = {.sq_length = (lenfunc)PairRanks_len};

PyTypeObject PairRanksType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tokenizer_kernel.PairRanks",
    .tp_doc = PyDoc_STR("PairRanks(vocab, triples): get((left, right)) -> (rank, merged) of a merge list "
                        "merge_ids checked (tokenizer_core/bpe/tables.py, MergeTable.rank_of)."),
    .tp_basicsize = sizeof(PairRanks),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)PairRanks_init,
    .tp_dealloc = (destructor)PairRanks_dealloc,
    .tp_traverse = (traverseproc)PairRanks_traverse,
    .tp_clear = (inquiry)PairRanks_clear,
    .tp_methods = PairRanks_methods,
    .tp_as_sequence = &PairRanks_as_sequence,
};
