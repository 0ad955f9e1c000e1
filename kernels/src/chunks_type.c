/* The ChunkTable type (see chunks.c): building it, missing(), put() and size(), and its methods table
 * (encode() and encode_batch() are in chunks_encode.c, set_lattice() in chunks_viterbi.c). Its Python
 * half, tokenizer_core/fast/chunk_table.py (CompiledChunks), fills it through missing() and put(). */
#include "chunks.h"

#include <math.h>
#include <structmember.h>

static int ChunkTable_init(ChunkTable *c, PyObject *args, PyObject *kw) {
    static char *names[] = {"token_strs", "rule", "first_entries", "scored", "max_score", "budget", "splitter", NULL};
    PyObject *strs, *splitter = NULL;
    int rule = -1, first = 0, scored = 0;
    double max_score = 0.0;
    Py_ssize_t budget = (Py_ssize_t)128 << 20;
    if (c->ready) {
        PyErr_SetString(PyExc_RuntimeError, "a ChunkTable is built once");
        return -1;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!|$ippdnO", names, &PyList_Type, &strs, &rule, &first, &scored,
                                     &max_score, &budget, &splitter))
        return -1;
    if (rule != RULE_WORDS && rule != RULE_SPACES && rule != RULE_PIECES) {
        PyErr_SetString(PyExc_ValueError, "rule must be 0 (words), 1 (spaces) or 2 (pieces)");
        return -1;
    }
    if (splitter == Py_None) splitter = NULL;
    if ((rule == RULE_PIECES) != (splitter != NULL) ||
        (splitter && (!PyObject_TypeCheck(splitter, &EncoderType) || !((Encoder *)splitter)->ready ||
                      ((Encoder *)splitter)->pattern != PAT_PROGRAM))) {
        PyErr_SetString(PyExc_ValueError, "a RULE_PIECES table needs a splitter (a built Encoder with a split program), "
                                          "and only it");
        return -1;
    }
    if (budget < 0 || !isfinite(max_score) || max_score < 0) {
        PyErr_SetString(PyExc_ValueError, "budget and max_score must be finite and not negative");
        return -1;
    }
    if (btab_init(&c->keys, 1024) < 0) return -1;
    if (pthread_rwlock_init(&c->lock, NULL) != 0) {
        btab_free(&c->keys);
        PyErr_SetString(PyExc_RuntimeError, "could not make a lock");
        return -1;
    }
    c->token_strs = Py_NewRef(strs);
    c->splitter = Py_XNewRef(splitter);
    c->n_real = PyList_GET_SIZE(strs);
    c->rule = rule;
    c->first_entries = first;
    c->scored = scored;
    c->max_score = max_score;
    c->budget = (size_t)budget;
    c->ready = 1;
    return 0;
}

static void ChunkTable_dealloc(ChunkTable *c) {
    if (c->ready) {
        btab_free(&c->keys);
        pthread_rwlock_destroy(&c->lock);
    }
    PyMem_RawFree(c->entries);
    PyMem_RawFree(c->tok_id);
    PyMem_RawFree(c->tok_start);
    PyMem_RawFree(c->tok_end);
    PyMem_RawFree(c->tok_word);
    PyMem_RawFree(c->scores);
    PyMem_RawFree(c->form);
    PyMem_RawFree(c->form_start);
    PyMem_RawFree(c->form_end);
    if (c->has_lattice) btab_free(&c->lattice);
    Py_XDECREF(c->token_strs);
    Py_XDECREF(c->splitter);
    Py_TYPE(c)->tp_free((PyObject *)c);
}

/* Grows *p (elements of size `size`, capacity *cap) to hold `need`; -1 when out of memory. */
static int grow(void **p, size_t *cap, size_t need, size_t size) {
    if (need <= *cap) return 0;
    size_t n = *cap ? *cap : 256;
    while (n < need) n *= 2;
    void *q = PyMem_RawRealloc(*p, n * size);
    if (!q) return -1;
    *p = q;
    *cap = n;
    return 0;
}

PyDoc_STRVAR(missing_doc,
"missing(texts, *, spaces=None) -> list[tuple[str, bool]]: the distinct chunks of the texts that the\n"
"table lacks, each with whether it is a text's first chunk (first_entries), in order of appearance;\n"
"chunks over 1,024 characters are never stored and not named.");

static PyObject *ChunkTable_missing(ChunkTable *c, PyObject *args, PyObject *kw) {
    static char *names[] = {"texts", "spaces", NULL};
    PyObject *texts, *spaces = NULL;
    Spaces sp;
    if (chunks_check_ready(c) < 0 || !PyArg_ParseTupleAndKeywords(args, kw, "O|$O", names, &texts, &spaces) ||
        chunks_read_spaces(c, spaces, &sp) < 0)
        return NULL;
    PyObject *seq = PySequence_Fast(texts, "missing takes a sequence of str");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    for (Py_ssize_t k = 0; k < n; k++)
        if (!PyUnicode_Check(PySequence_Fast_GET_ITEM(seq, k))) {
            PyErr_SetString(PyExc_TypeError, "missing takes a sequence of str");
            Py_DECREF(seq);
            return NULL;
        }
    BytesTable seen;
    if (btab_init(&seen, 256) < 0) { Py_DECREF(seq); return NULL; }
    int64_t *found = NULL;  /* text, start, end, first: four a chunk */
    size_t n_found = 0, cap_found = 0;
    uint32_t buf[MAX_KEY_CHARS + 1];
    int failed = 0;
    Scratch sc = {0};
    chunks_read_lock(c);
    for (Py_ssize_t k = 0; k < n && !failed; k++) {
        Text t = text_of(PySequence_Fast_GET_ITEM(seq, k));
        Py_ssize_t s, e, i = 0;
        /* (a split program's error ends this text's chunks here: encoding it reports the error) */
        while (chunks_next_chunk(c, &sp, &sc, &t, i, &s, &e) > 0) {
            i = e;
            if (e - s > MAX_KEY_CHARS || chunks_lookup(c, NULL, &t, s, e, buf)) continue;
            int first = c->first_entries && s == 0;
            Py_ssize_t len = chunks_chunk_key(&t, s, e, first, buf);
            int64_t unused;
            if (btab_find(&seen, (const unsigned char *)buf, len, &unused)) continue;
            if (btab_put(&seen, (const unsigned char *)buf, len, 0) < 0 ||
                grow((void **)&found, &cap_found, 4 * (n_found + 1), sizeof(int64_t)) < 0) {
                failed = 1;
                break;
            }
            int64_t *q = found + 4 * n_found++;
            q[0] = k, q[1] = s, q[2] = e, q[3] = first;
        }
    }
    chunks_unlock(c);
    scratch_free(&sc);
    btab_free(&seen);
    PyObject *out = failed ? PyErr_NoMemory() : PyList_New((Py_ssize_t)n_found);
    for (size_t j = 0; out && j < n_found; j++) {
        int64_t *q = found + 4 * j;
        PyObject *chunk = PyUnicode_Substring(PySequence_Fast_GET_ITEM(seq, q[0]), q[1], q[2]);
        PyObject *pair = chunk ? Py_BuildValue("(NO)", chunk, q[3] ? Py_True : Py_False) : NULL;
        if (!pair) Py_CLEAR(out);
        else PyList_SET_ITEM(out, (Py_ssize_t)j, pair);
    }
    PyMem_RawFree(found);
    Py_DECREF(seq);
    return out;
}

/* The ints of a sequence into a new int32 array of *n (NULL and an exception on error). */
static int32_t *int_column(PyObject *o, Py_ssize_t *n, const char *what) {
    PyObject *seq = PySequence_Fast(o, what);
    if (!seq) return NULL;
    *n = PySequence_Fast_GET_SIZE(seq);
    int32_t *out = PyMem_RawMalloc((size_t)(*n ? *n : 1) * sizeof(int32_t));
    if (!out) { Py_DECREF(seq); PyErr_NoMemory(); return NULL; }
    for (Py_ssize_t k = 0; k < *n; k++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, k));
        if ((v == -1 && PyErr_Occurred()) || v < 0 || v > INT32_MAX) {
            if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "%s must hold ints from 0 to 2**31-1", what);
            PyMem_RawFree(out);
            Py_DECREF(seq);
            return NULL;
        }
        out[k] = (int32_t)v;
    }
    Py_DECREF(seq);
    return out;
}

/* One put()'s columns, read and checked (raw allocations, freed by put_columns_free). */
typedef struct {
    int32_t *ids, *st, *en, *wo;    /* the tokens' ids, starts, ends and word ids */
    Py_ssize_t n;
    double *sc;                     /* scores */
    Py_ssize_t ns;
    PyObject *form;                 /* the normalized text (borrowed), or NULL */
    int32_t *fs, *fe;               /* each of its characters' span in the chunk */
    Py_ssize_t nf;
} PutColumns;

/* The columns' memory released (the form is borrowed). */
static void put_columns_free(PutColumns *p) {
    PyMem_RawFree(p->ids);
    PyMem_RawFree(p->st);
    PyMem_RawFree(p->en);
    PyMem_RawFree(p->wo);
    PyMem_RawFree(p->sc);
    PyMem_RawFree(p->fs);
    PyMem_RawFree(p->fe);
}

/* A scored entry's form_starts and form_ends read, checked against the form (norm_len long, each span
 * inside the chunk of len characters). */
static int read_form(const ChunkTable *c, PutColumns *p, PyObject *fs_o, PyObject *fe_o, int norm_len,
                     Py_ssize_t len) {
    Py_ssize_t nfs = 0, nfe = 0;
    p->fs = fs_o ? int_column(fs_o, &nfs, "form_starts") : NULL;
    p->fe = p->fs ? (fe_o ? int_column(fe_o, &nfe, "form_ends") : NULL) : NULL;
    if (!p->fe) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "form needs form_starts and form_ends");
        return -1;
    }
    Py_ssize_t nf = p->nf;
    int ok = c->scored && nfs == nf && nfe == nf && nf == norm_len;
    for (Py_ssize_t k = 0; ok && k < nf; k++) ok = p->fs[k] <= p->fe[k] && p->fe[k] <= len;
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "form is for scored tables, norm_len long, its spans inside the chunk");
        return -1;
    }
    return 0;
}

/* The scores (any sequence of floats). */
static int read_scores(PutColumns *p, PyObject *scores_o) {
    PyObject *seq = PySequence_Fast(scores_o, "scores must be a sequence of floats");
    if (!seq) return -1;
    p->ns = PySequence_Fast_GET_SIZE(seq);
    p->sc = PyMem_RawMalloc((size_t)(p->ns ? p->ns : 1) * sizeof(double));
    /* The first bad score ends the reading: a later one's __float__ is Python code, never to run with
     * an error set. */
    for (Py_ssize_t k = 0; p->sc && k < p->ns; k++) {
        p->sc[k] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, k));
        if (p->sc[k] == -1.0 && PyErr_Occurred()) break;
    }
    Py_DECREF(seq);
    if (!p->sc) { PyErr_NoMemory(); return -1; }
    if (PyErr_Occurred()) return -1;
    return 0;
}

/* put()'s columns into p, in the order of their checks: the four token columns, the form's spans,
 * the columns' lengths, each id and span, the scores. */
static int read_put_columns(const ChunkTable *c, PutColumns *p, PyObject *const cols[4], PyObject *scores_o,
                            PyObject *fs_o, PyObject *fe_o, int norm_len, Py_ssize_t len) {
    Py_ssize_t n2 = 0, n3 = 0, n4 = 0;
    p->ids = int_column(cols[0], &p->n, "ids");
    p->st = p->ids ? int_column(cols[1], &n2, "starts") : NULL;
    p->en = p->st ? int_column(cols[2], &n3, "ends") : NULL;
    p->wo = p->en ? int_column(cols[3], &n4, "words") : NULL;
    if (!p->wo) return -1;
    if (p->form && read_form(c, p, fs_o, fe_o, norm_len, len) < 0) return -1;
    Py_ssize_t n = p->n;
    if (n2 != n || n3 != n || n4 != n) {
        PyErr_SetString(PyExc_ValueError, "ids, starts, ends and words must be as long as each other");
        return -1;
    }
    for (Py_ssize_t k = 0; k < n; k++)
        if (p->ids[k] >= PyList_GET_SIZE(c->token_strs) || p->st[k] > p->en[k] || p->en[k] > len) {
            PyErr_SetString(PyExc_ValueError, "an id is past the token list, or a span is outside the chunk");
            return -1;
        }
    if (scores_o && read_scores(p, scores_o) < 0) return -1;
    return 0;
}

/* Room in every pool for p's entry: 0, or -1 when out of memory. A pool shared by several arrays
 * (the form's, the tokens') records its new capacity only once all of them have grown. */
static int reserve_entry(ChunkTable *c, const PutColumns *p) {
    int fail = grow((void **)&c->entries, &c->cap_entries, c->n_entries + 1, sizeof(Entry)) < 0 ||
               grow((void **)&c->scores, &c->cap_scores, c->n_scores + (size_t)p->ns, sizeof(double)) < 0;
    if (!fail && p->form) {
        size_t need_f = c->n_form + (size_t)p->nf, cap_f = c->cap_form;
        fail = grow((void **)&c->form, &cap_f, need_f, sizeof(uint32_t)) < 0;
        size_t cap_s = c->cap_form, cap_e = c->cap_form;
        fail = fail || grow((void **)&c->form_start, &cap_s, need_f, sizeof(int32_t)) < 0 ||
               grow((void **)&c->form_end, &cap_e, need_f, sizeof(int32_t)) < 0;
        if (!fail) c->cap_form = cap_f;
    }
    size_t cap = c->cap_tok, need = c->n_tok + (size_t)p->n;
    for (int k = 0; k < 4 && !fail; k++) {
        int32_t **col = k == 0 ? &c->tok_id : k == 1 ? &c->tok_start : k == 2 ? &c->tok_end : &c->tok_word;
        size_t cap_k = c->cap_tok;
        fail = grow((void **)col, &cap_k, need, sizeof(int32_t)) < 0;
        cap = cap_k;
    }
    if (fail) return -1;
    c->cap_tok = cap;
    return 0;
}

/* p's entry stored under the key buf[0 .. klen), the write lock held: 0 (also when the key is there
 * already: nothing stored), or -1 when out of memory (nothing counted then). */
static int store_entry(ChunkTable *c, const PutColumns *p, const uint32_t *buf, Py_ssize_t klen, int pieces,
                       int norm_len, double gap, size_t cost) {
    int64_t at;
    if (btab_find(&c->keys, (const unsigned char *)buf, klen, &at)) return 0;
    if (reserve_entry(c, p) < 0) return -1;
    Py_ssize_t n = p->n, ns = p->ns, nf = p->nf;
    Entry *ent = &c->entries[c->n_entries];
    *ent = (Entry){(int64_t)c->n_tok, (int32_t)n, pieces, (int64_t)c->n_scores, (int32_t)ns, norm_len, gap,
                   p->form ? (int64_t)c->n_form : -1};
    for (Py_ssize_t k = 0; k < nf; k++) c->form[c->n_form + k] = PyUnicode_READ_CHAR(p->form, k);
    if (nf) {
        memcpy(c->form_start + c->n_form, p->fs, (size_t)nf * 4);
        memcpy(c->form_end + c->n_form, p->fe, (size_t)nf * 4);
    }
    memcpy(c->tok_id + c->n_tok, p->ids, (size_t)n * 4);
    memcpy(c->tok_start + c->n_tok, p->st, (size_t)n * 4);
    memcpy(c->tok_end + c->n_tok, p->en, (size_t)n * 4);
    memcpy(c->tok_word + c->n_tok, p->wo, (size_t)n * 4);
    if (ns) memcpy(c->scores + c->n_scores, p->sc, (size_t)ns * sizeof(double));
    if (btab_put(&c->keys, (const unsigned char *)buf, klen, (int64_t)c->n_entries) < 0) return -1;
    c->n_entries++;
    c->n_tok += (size_t)n;
    c->n_scores += (size_t)ns;
    c->n_form += (size_t)nf;
    c->used += cost;
    return 0;
}

PyDoc_STRVAR(put_doc,
"put(chunk, first, ids, starts, ends, words, pieces, scores=(), gap=inf, norm_len=0, form=None,\n"
"form_starts=None, form_ends=None) -> bool: store a\n"
"chunk's tokens (starts and ends relative to the chunk, word ids relative to its first piece, and\n"
"how many pieces it holds); False when it is too long or the budget is spent (nothing stored).");

static PyObject *ChunkTable_put(ChunkTable *c, PyObject *args, PyObject *kw) {
    static char *names[] = {"chunk", "first", "ids", "starts", "ends", "words", "pieces", "scores", "gap",
                            "norm_len", "form", "form_starts", "form_ends", NULL};
    PyObject *chunk, *cols[4], *scores_o = NULL, *form = NULL, *fs_o = NULL, *fe_o = NULL;
    int first, pieces, norm_len = 0;
    double gap = INFINITY;
    if (chunks_check_ready(c) < 0 ||
        !PyArg_ParseTupleAndKeywords(args, kw, "O!pOOOOi|OdiO!OO", names, &PyUnicode_Type, &chunk, &first, &cols[0],
                                     &cols[1], &cols[2], &cols[3], &pieces, &scores_o, &gap, &norm_len,
                                     &PyUnicode_Type, &form, &fs_o, &fe_o))
        return NULL;
    Py_ssize_t len = PyUnicode_GET_LENGTH(chunk);
    if (len > MAX_KEY_CHARS) Py_RETURN_FALSE;
    if (pieces < 0 || norm_len < 0) {
        PyErr_SetString(PyExc_ValueError, "pieces and norm_len must not be negative");
        return NULL;
    }
    PutColumns p = {.form = form, .nf = form ? PyUnicode_GET_LENGTH(form) : 0};
    PyObject *result = NULL;
    if (read_put_columns(c, &p, cols, scores_o, fs_o, fe_o, norm_len, len) < 0) goto done;
    size_t cost = (size_t)(len + 1) * 4 + (size_t)p.n * 16 + (size_t)p.ns * 8 + (size_t)p.nf * 12 + sizeof(Entry) + 40;
    if (c->used + cost > c->budget) { result = Py_NewRef(Py_False); goto done; }
    uint32_t buf[MAX_KEY_CHARS + 1];
    Text t = text_of(chunk);
    Py_ssize_t klen = chunks_chunk_key(&t, 0, len, first && c->first_entries, buf);
    chunks_write_lock(c);
    int fail = store_entry(c, &p, buf, klen, pieces, norm_len, gap, cost) < 0;
    chunks_unlock(c);
    result = fail ? PyErr_NoMemory() : Py_NewRef(Py_True);
done:
    put_columns_free(&p);
    return result;
}

PyDoc_STRVAR(size_doc, "size() -> tuple[int, int]: the chunks stored and the bytes they take (the budget's count).");

static PyObject *ChunkTable_size(ChunkTable *c, PyObject *Py_UNUSED(ignored)) {
    if (chunks_check_ready(c) < 0) return NULL;
    chunks_read_lock(c);
    PyObject *out = Py_BuildValue("(nn)", (Py_ssize_t)c->n_entries, (Py_ssize_t)c->used);
    chunks_unlock(c);
    return out;
}

static PyMethodDef ChunkTable_methods[] = {
    {"missing", (PyCFunction)(void (*)(void))ChunkTable_missing, METH_VARARGS | METH_KEYWORDS, missing_doc},
    {"put", (PyCFunction)(void (*)(void))ChunkTable_put, METH_VARARGS | METH_KEYWORDS, put_doc},
    {"encode", (PyCFunction)(void (*)(void))ChunkTable_encode, METH_VARARGS | METH_KEYWORDS, chunks_encode_doc},
    {"encode_batch", (PyCFunction)(void (*)(void))ChunkTable_encode_batch, METH_VARARGS | METH_KEYWORDS,
     chunks_encode_batch_doc},
    {"encode_joined", (PyCFunction)(void (*)(void))ChunkTable_encode_joined, METH_VARARGS | METH_KEYWORDS,
     chunks_encode_joined_doc},
    {"size", (PyCFunction)ChunkTable_size, METH_NOARGS, size_doc},
    {"set_lattice", (PyCFunction)(void (*)(void))ChunkTable_set_lattice, METH_VARARGS | METH_KEYWORDS,
     chunks_set_lattice_doc},
    {NULL, NULL, 0, NULL},
};

PyTypeObject ChunkTableType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tokenizer_kernel.ChunkTable",
    .tp_doc = PyDoc_STR("ChunkTable(token_strs, *, rule, first_entries=False, scored=False, max_score=0.0, "
                        "budget=128 MiB, splitter=None): texts encoded from the stored encodings of their chunks "
                        "(tokenizer_core/fast/chunk_table.py drives it)."),
    .tp_basicsize = sizeof(ChunkTable),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)ChunkTable_init,
    .tp_dealloc = (destructor)ChunkTable_dealloc,
    .tp_methods = ChunkTable_methods,
};
