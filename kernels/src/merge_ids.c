/* Loading a BPE model's tables (tokenizer_core/bpe/tables.py; merge_pairs for tokenizer_core/bpe/formats.py,
 * byte_level_bytes for tokenizer_core/bpe/kernel.py): a tokenizer.json's merge list read
 * into pairs, checked against the vocabulary and turned into the (left, right, merged) ids the
 * Encoder takes, in one pass in C. A 200,000-token model's 450,000 merges take a few hundred
 * milliseconds here against seconds in Python.
 *
 * Both functions answer None for anything that is not the plain, valid case (a malformed item, a
 * token missing from the vocabulary, a pair listed twice, an id past int32): the Python code, which
 * stays the reference, then does the work again and raises its precise message (or, for a pair
 * listed twice, keeps its last rank as tokenizers does). So no error message lives here.
 * byte_level_bytes turns a byte-level vocabulary's tokens into their bytes for the Encoder. */
#include "kernel.h"
#include "encoder.h"

/* merge_pairs(items) -> list of (left, right) str tuples, or None.
 * items: a list whose entries are [left, right] lists or tuples of two str, or "left right" strings
 * holding exactly one space (the older form). */
static PyObject *merge_pairs(PyObject *self, PyObject *items) {
    (void)self;
    if (!PyList_CheckExact(items)) Py_RETURN_NONE;
    Py_ssize_t n = PyList_GET_SIZE(items);
    PyObject *out = PyList_New(n);
    if (!out) return NULL;
    for (Py_ssize_t k = 0; k < n; k++) {
        /* Entries are only read (no Python code runs here), so the list keeps the size n. */
        PyObject *m = PyList_GET_ITEM(items, k), *pair = NULL;
        if (PyUnicode_CheckExact(m)) {
            Py_ssize_t len = PyUnicode_GET_LENGTH(m);
            Py_ssize_t at = PyUnicode_FindChar(m, ' ', 0, len, 1);
            if (at == -2) goto fail;
            if (at < 0 || PyUnicode_FindChar(m, ' ', at + 1, len, 1) != -1) goto plain_none;
            PyObject *left = PyUnicode_Substring(m, 0, at);
            PyObject *right = left ? PyUnicode_Substring(m, at + 1, len) : NULL;
            if (!right) { Py_XDECREF(left); goto fail; }
            pair = PyTuple_Pack(2, left, right);
            Py_DECREF(left);
            Py_DECREF(right);
            if (!pair) goto fail;
        } else if ((PyList_CheckExact(m) && PyList_GET_SIZE(m) == 2) ||
                   (PyTuple_CheckExact(m) && PyTuple_GET_SIZE(m) == 2)) {
            PyObject *left = PySequence_Fast_GET_ITEM(m, 0), *right = PySequence_Fast_GET_ITEM(m, 1);
            if (!PyUnicode_CheckExact(left) || !PyUnicode_CheckExact(right)) goto plain_none;
            if (PyTuple_CheckExact(m)) {
                Py_INCREF(m);
                pair = m;
            } else if (!(pair = PyTuple_Pack(2, left, right))) {
                goto fail;
            }
        } else {
            goto plain_none;
        }
        PyList_SET_ITEM(out, k, pair);
    }
    return out;
plain_none:
    Py_DECREF(out);
    Py_RETURN_NONE;
fail:
    Py_DECREF(out);
    return NULL;
}

/* The id of token in vocab (a dict of str to int): 1 found, 0 absent or not a plain int32, -1 error
 * (kernel.h; pair_ranks.c looks pairs up with it too). */
int vocab_token_id(PyObject *vocab, PyObject *token, int32_t *out) {
    PyObject *v = PyDict_GetItemWithError(vocab, token);
    if (!v) return PyErr_Occurred() ? -1 : 0;
    if (!PyLong_CheckExact(v)) return 0;
    int overflow;
    long long id = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (id == -1 && PyErr_Occurred()) return -1;
    if (overflow || id < 0 || id > INT32_MAX) return 0;
    *out = (int32_t)id;
    return 1;
}

/* merge_ids(vocab, pairs, prefix) -> bytes of int32 (left id, right id, merged id) per merge, or None.
 * vocab: dict of str to int; pairs: a list of (left, right) str tuples, in rank order; prefix: the
 * continuing-subword prefix (str) that the right part loses when glued on, or None. */
static PyObject *merge_ids(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *vocab, *pairs, *prefix;
    if (!PyArg_ParseTuple(args, "O!O!O", &PyDict_Type, &vocab, &PyList_Type, &pairs, &prefix)) return NULL;
    if (prefix != Py_None && !PyUnicode_Check(prefix)) {
        PyErr_SetString(PyExc_TypeError, "prefix must be a str or None");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(pairs);
    if (n > PY_SSIZE_T_MAX / 12) Py_RETURN_NONE;
    PyObject *out = PyBytes_FromStringAndSize(NULL, n * 12);
    if (!out) return NULL;
    int32_t *ids = (int32_t *)PyBytes_AS_STRING(out);
    U64Map seen;
    if (u64map_init(&seen, (size_t)n) < 0) {
        Py_DECREF(out);
        return NULL;
    }
    Py_ssize_t plen = prefix == Py_None ? -1 : PyUnicode_GET_LENGTH(prefix);
    /* Dict lookups of str keys and str building run no Python code: the list keeps the size n. */
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *m = PyList_GET_ITEM(pairs, k);
        if (!PyTuple_CheckExact(m) || PyTuple_GET_SIZE(m) != 2) goto none;
        PyObject *left = PyTuple_GET_ITEM(m, 0), *right = PyTuple_GET_ITEM(m, 1);
        if (!PyUnicode_CheckExact(left) || !PyUnicode_CheckExact(right)) goto none;
        int32_t l, r, v;
        int got = vocab_token_id(vocab, left, &l);
        if (got == 1) got = vocab_token_id(vocab, right, &r);
        if (got < 0) goto fail;
        if (!got) goto none;
        PyObject *tail = right;
        Py_INCREF(tail);
        if (plen >= 0) {
            Py_ssize_t starts = PyUnicode_Tailmatch(right, prefix, 0, PY_SSIZE_T_MAX, -1);
            if (starts < 0) { Py_DECREF(tail); goto fail; }
            if (starts) {
                Py_SETREF(tail, PyUnicode_Substring(right, plen, PyUnicode_GET_LENGTH(right)));
                if (!tail) goto fail;
            }
        }
        PyObject *merged = PyUnicode_Concat(left, tail);
        Py_DECREF(tail);
        if (!merged) goto fail;
        got = vocab_token_id(vocab, merged, &v);
        Py_DECREF(merged);
        if (got < 0) goto fail;
        if (!got) goto none;
        int created;
        int64_t *slot = u64map_slot(&seen, pair_key(l, r), &created);
        if (!slot) goto fail;
        if (!created) goto none; /* listed twice: the last rank wins, which the Python path handles */
        ids[3 * k] = l;
        ids[3 * k + 1] = r;
        ids[3 * k + 2] = v;
    }
    u64map_free(&seen);
    return out;
none:
    u64map_free(&seen);
    Py_DECREF(out);
    Py_RETURN_NONE;
fail:
    u64map_free(&seen);
    Py_DECREF(out);
    return NULL;
}

/* plain_vocab(vocab, max_id) -> True when every key is a non-empty str and every value a distinct
 * int in 0..max_id (the vocabulary check of tables.py's check_vocab), else False. */
static PyObject *plain_vocab(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *vocab;
    unsigned long long max_id;
    if (!PyArg_ParseTuple(args, "O!K", &PyDict_Type, &vocab, &max_id)) return NULL;
    U64Map ids;
    if (u64map_init(&ids, (size_t)PyDict_GET_SIZE(vocab)) < 0) return NULL;
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    int plain = 1;
    /* Reading keys and ints runs no Python code: the dict does not change while it is walked. */
    while (plain && PyDict_Next(vocab, &pos, &key, &value)) {
        if (!PyUnicode_CheckExact(key) || PyUnicode_GET_LENGTH(key) == 0 || !PyLong_CheckExact(value)) {
            plain = 0;
            break;
        }
        int overflow;
        long long id = PyLong_AsLongLongAndOverflow(value, &overflow);
        if (id == -1 && PyErr_Occurred()) { u64map_free(&ids); return NULL; }
        if (overflow || id < 0 || (unsigned long long)id > max_id) { plain = 0; break; }
        int created;
        if (!u64map_slot(&ids, (uint64_t)id, &created)) { u64map_free(&ids); return NULL; }
        if (!created) plain = 0;
    }
    u64map_free(&ids);
    return PyBool_FromLong(plain);
}

/* merge_dicts(pairs, prefix) -> (ranks, producers): tables.py's two dicts of a merge list, built
 * here for a model the Python encoder runs (no kernel encoder: Gemma's and other SentencePiece-style
 * BPE): ranks maps (left, right) -> (rank, merged), the last rank of a pair listed twice winning;
 * producers maps merged -> (rank, left, right) of the first merge making it. pairs: a list of
 * (left, right) str tuples, every one checked already (merge_ids or the Python check). */
static PyObject *merge_dicts(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *pairs, *prefix;
    if (!PyArg_ParseTuple(args, "O!O", &PyList_Type, &pairs, &prefix)) return NULL;
    if (prefix != Py_None && !PyUnicode_Check(prefix)) {
        PyErr_SetString(PyExc_TypeError, "prefix must be a str or None");
        return NULL;
    }
    PyObject *ranks = PyDict_New(), *producers = PyDict_New();
    if (!ranks || !producers) goto fail;
    Py_ssize_t plen = prefix == Py_None ? -1 : PyUnicode_GET_LENGTH(prefix);
    Py_ssize_t n = PyList_GET_SIZE(pairs);
    for (Py_ssize_t k = 0; k < n; k++) {
        /* Setting items of our own dicts with str keys runs no Python code: pairs keeps its size. */
        PyObject *m = PyList_GET_ITEM(pairs, k);
        if (!PyTuple_CheckExact(m) || PyTuple_GET_SIZE(m) != 2 || !PyUnicode_CheckExact(PyTuple_GET_ITEM(m, 0)) ||
            !PyUnicode_CheckExact(PyTuple_GET_ITEM(m, 1))) {
            PyErr_SetString(PyExc_TypeError, "pairs must hold (left, right) tuples of str");
            goto fail;
        }
        PyObject *left = PyTuple_GET_ITEM(m, 0), *right = PyTuple_GET_ITEM(m, 1);
        PyObject *merged;
        int starts = 0;
        if (plen >= 0) {
            Py_ssize_t t = PyUnicode_Tailmatch(right, prefix, 0, PY_SSIZE_T_MAX, -1);
            if (t < 0) goto fail;
            starts = t > 0;
        }
        if (starts) {
            PyObject *tail = PyUnicode_Substring(right, plen, PyUnicode_GET_LENGTH(right));
            if (!tail) goto fail;
            merged = PyUnicode_Concat(left, tail);
            Py_DECREF(tail);
        } else {
            merged = PyUnicode_Concat(left, right);
        }
        if (!merged) goto fail;
        PyObject *rank = PyLong_FromSsize_t(k);
        PyObject *value = rank ? PyTuple_Pack(2, rank, merged) : NULL;
        int bad = !value || PyDict_SetItem(ranks, m, value) < 0;
        Py_XDECREF(value);
        if (!bad) {
            int has = PyDict_Contains(producers, merged);
            PyObject *made = has == 0 ? PyTuple_Pack(3, rank, left, right) : NULL;
            bad = has < 0 || (has == 0 && (!made || PyDict_SetItem(producers, merged, made) < 0));
            Py_XDECREF(made);
        }
        Py_XDECREF(rank);
        Py_DECREF(merged);
        if (bad) goto fail;
    }
    PyObject *out = PyTuple_Pack(2, ranks, producers);
    Py_DECREF(ranks);
    Py_DECREF(producers);
    return out;
fail:
    Py_XDECREF(ranks);
    Py_XDECREF(producers);
    return NULL;
}

/* byte_level_bytes(strs, inverse) -> list: each token's bytes under the byte-level alphabet, or None
 * (for None, or a token with a character that is no byte symbol). strs: a list of str or None;
 * inverse: a list of ints, inverse[c] the byte that code point c stands for or -1 (code points past
 * its end stand for no byte). Mirror: token_bytes in tokenizer_core/bpe/kernel.py (the reference
 * when the kernel is missing; tests hold the two equal). */
static PyObject *byte_level_bytes(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *strs, *inverse;
    if (!PyArg_ParseTuple(args, "O!O!", &PyList_Type, &strs, &PyList_Type, &inverse)) return NULL;
    Py_ssize_t span = PyList_GET_SIZE(inverse);
    if (span > 0x110000) {
        PyErr_SetString(PyExc_ValueError, "inverse is longer than the code points");
        return NULL;
    }
    int16_t *to_byte = PyMem_Malloc(span ? (size_t)span * sizeof(int16_t) : 1);
    if (!to_byte) return PyErr_NoMemory();
    for (Py_ssize_t c = 0; c < span; c++) {
        long b = PyLong_AsLong(PyList_GET_ITEM(inverse, c));
        if (b == -1 && PyErr_Occurred()) { PyMem_Free(to_byte); return NULL; }
        to_byte[c] = (int16_t)(b >= 0 && b < 256 ? b : -1);
    }
    Py_ssize_t n = PyList_GET_SIZE(strs);
    PyObject *out = PyList_New(n);
    if (!out) { PyMem_Free(to_byte); return NULL; }
    for (Py_ssize_t k = 0; k < n; k++) {
        /* Items are only read and no Python code runs: strs keeps its size. */
        PyObject *s = PyList_GET_ITEM(strs, k), *raw = NULL;
        if (PyUnicode_Check(s)) {
            Text t = text_of(s);
            raw = PyBytes_FromStringAndSize(NULL, t.len);
            if (!raw) goto fail;
            char *dst = PyBytes_AS_STRING(raw);
            for (Py_ssize_t i = 0; i < t.len; i++) {
                Py_UCS4 c = AT(&t, i);
                int b = (Py_ssize_t)c < span ? to_byte[c] : -1;
                if (b < 0) { Py_CLEAR(raw); break; }
                dst[i] = (char)b;
            }
        } else if (s != Py_None) {
            PyErr_SetString(PyExc_TypeError, "strs must hold str or None");
            goto fail;
        }
        if (!raw) { Py_INCREF(Py_None); raw = Py_None; }
        PyList_SET_ITEM(out, k, raw);
    }
    PyMem_Free(to_byte);
    return out;
fail:
    PyMem_Free(to_byte);
    Py_DECREF(out);
    return NULL;
}

PyMethodDef merge_ids_methods[] = {
    {"byte_level_bytes", (PyCFunction)byte_level_bytes, METH_VARARGS,
     "byte_level_bytes(strs, inverse) -> each token's bytes under the byte-level alphabet, or None."},
    {"merge_dicts", (PyCFunction)merge_dicts, METH_VARARGS,
     "merge_dicts(pairs, prefix) -> (ranks, producers) dicts of a checked merge list."},
    {"plain_vocab", (PyCFunction)plain_vocab, METH_VARARGS,
     "plain_vocab(vocab, max_id) -> whether every key is a non-empty str and every value a distinct int in 0..max_id."},
    {"merge_pairs", (PyCFunction)merge_pairs, METH_O,
     "merge_pairs(items) -> [(left, right), ...] from [left, right] lists or \"left right\" strings, or None."},
    {"merge_ids", (PyCFunction)merge_ids, METH_VARARGS,
     "merge_ids(vocab, pairs, prefix) -> bytes of int32 (left, right, merged) ids per merge, or None."},
    {NULL, NULL, 0, NULL},
};
