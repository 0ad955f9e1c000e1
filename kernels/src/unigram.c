/* UnigramCorpus: the distinct words of a Unigram training run, and the passes over them that
 * tokenizer_core/unigram/native_lattice.py asks for (seeds, E-step, Viterbi counts, best splits of
 * pieces). The object is read-only once built, so calls may run at once on several threads; each
 * call's lattice memory is its own, and the loops run without the GIL. */
#include "kernel.h"
#include "unigram.h"

#define MAX_PIECE_CHARS (1 << 16) /* a longer piece never matches in training (max_piece_length <= 256) */

typedef struct {
    PyObject_HEAD
    UgCorpus c;
    int ready;
} UnigramCorpus;

static int check_ready(const UnigramCorpus *u) {
    if (u->ready) return 0;
    PyErr_SetString(PyExc_RuntimeError,
                    "UnigramCorpus is not initialised: build it with UnigramCorpus(text, offsets, counts, breaks)");
    return -1;
}

/* A contiguous one-dimensional buffer of `kind`: 'q' int64, 'd' float64, 'b' one byte a value. */
static int get_buffer(PyObject *o, Py_buffer *v, char kind, int writable, Py_ssize_t want, const char *name) {
    if (PyObject_GetBuffer(o, v, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0)) < 0) return -1;
    const char *f = v->format ? v->format : "B";
    if (*f == '@' || *f == '=' || *f == '<') f++;
    int ok = v->ndim <= 1 && strlen(f) == 1 &&
             (kind == 'q' ? v->itemsize == 8 && (*f == 'q' || *f == 'l')
              : kind == 'd' ? v->itemsize == 8 && *f == 'd'
                            : v->itemsize == 1 && strchr("Bbc?", *f) != NULL);
    if (!ok) {
        PyErr_Format(PyExc_ValueError, "%s must be a contiguous array of %s", name,
                     kind == 'q' ? "int64 ('q')" : kind == 'd' ? "float64 ('d')" : "bytes");
    } else if (want >= 0 && v->len / v->itemsize != want) {
        PyErr_Format(PyExc_ValueError, "%s must hold %zd values, not %zd", name, want, v->len / v->itemsize);
        ok = 0;
    }
    if (!ok) PyBuffer_Release(v);
    return ok ? 0 : -1;
}

/* The pieces' table; lp (len(pieces) float64 values) checked with it. */
static int load_pieces(PyObject *pieces, UgPieces *t, Py_ssize_t *count) {
    if (!PyList_Check(pieces)) {
        PyErr_Format(PyExc_TypeError, "pieces must be a list of str, not %.100s", Py_TYPE(pieces)->tp_name);
        return -1;
    }
    Py_ssize_t n = PyList_GET_SIZE(pieces);
    if (n >= INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "too many pieces (at most 2**31 - 2)");
        return -1;
    }
    for (Py_ssize_t p = 0; p < n; p++) { /* all checked before any is used */
        PyObject *s = PyList_GET_ITEM(pieces, p);
        if (!PyUnicode_Check(s)) {
            PyErr_Format(PyExc_TypeError, "pieces must be str, not %.100s", Py_TYPE(s)->tp_name);
            return -1;
        }
        Py_ssize_t k = PyUnicode_GET_LENGTH(s);
        if (k < 1 || k > MAX_PIECE_CHARS) {
            PyErr_Format(PyExc_ValueError, "a piece must hold 1 to %d characters, not %zd", MAX_PIECE_CHARS, k);
            return -1;
        }
    }
    if (ug_pieces_init(t, (size_t)n) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t p = 0; p < n; p++) {
        PyObject *s = PyList_GET_ITEM(pieces, p);
        Text x = text_of(s);
        uint64_t h = 0;
        for (Py_ssize_t i = 0; i < x.len; i++) h = h * UG_BASE + AT(&x, i);
        ug_pieces_add(t, (int32_t)x.len, h, (int32_t)p);
    }
    *count = n;
    return 0;
}

PyDoc_STRVAR(seed_doc,
"seed(max_len, flags, last_word) -> (pieces, scores, num_chars): every character (by code point, with\n"
"its frequency), then each length's branching substrings seen twice or more (by hash, with frequency\n"
"times length), as tokenizer_core/unigram/seed.py finds them. flags: a byte per word (1: followed by\n"
"a word of its line somewhere, 2: ends a line somewhere); last_word: the corpus' last word or -1;\n"
"scores: float64 bytes.");

static PyObject *UC_seed(UnigramCorpus *u, PyObject *args) {
    if (check_ready(u) < 0) return NULL;
    Py_ssize_t max_len, last_word;
    PyObject *flags_obj;
    if (!PyArg_ParseTuple(args, "nOn:seed", &max_len, &flags_obj, &last_word)) return NULL;
    if (max_len < 1 || max_len > 1024) return PyErr_Format(PyExc_ValueError, "max_len must be 1 to 1024, not %zd", max_len);
    if (last_word < -1 || last_word >= u->c.num_words)
        return PyErr_Format(PyExc_ValueError, "last_word must be -1 or a word index below %lld, not %zd",
                            (long long)u->c.num_words, last_word);
    Py_buffer flags;
    if (get_buffer(flags_obj, &flags, 'b', 0, (Py_ssize_t)u->c.num_words, "flags") < 0) return NULL;
    PyObject *pieces = PyList_New(0), *scores = NULL;
    UgSeeds s = {0};
    PyObject *score_bytes = PyBytes_FromStringAndSize(NULL, 0);
    Py_ssize_t num_chars = 0;
    if (!pieces || !score_bytes) goto fail;
    for (int32_t len = 1; len <= max_len; len++) {
        int64_t found;
        Py_BEGIN_ALLOW_THREADS
        found = ug_seed_length(&u->c, flags.buf, last_word, len, &s);
        Py_END_ALLOW_THREADS
        if (found < 0) {
            PyErr_NoMemory();
            goto fail;
        }
        if (found == 0) break;
        for (size_t k = 0; k < s.n; k++) {
            PyObject *p = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, u->c.cps + s.pos[k], len);
            if (!p || PyList_Append(pieces, p) < 0) {
                Py_XDECREF(p);
                goto fail;
            }
            Py_DECREF(p);
        }
        Py_ssize_t old = PyBytes_GET_SIZE(score_bytes);
        if (_PyBytes_Resize(&score_bytes, old + (Py_ssize_t)(s.n * sizeof(double))) < 0) goto fail;
        memcpy(PyBytes_AS_STRING(score_bytes) + old, s.score, s.n * sizeof(double));
        if (len == 1) num_chars = (Py_ssize_t)s.n;
    }
    ug_seeds_free(&s);
    PyBuffer_Release(&flags);
    scores = Py_BuildValue("(NNn)", pieces, score_bytes, num_chars);
    return scores;
fail:
    ug_seeds_free(&s);
    PyBuffer_Release(&flags);
    Py_XDECREF(pieces);
    Py_XDECREF(score_bytes);
    return NULL;
}

/* pieces, lp and an output array of one float64 per piece: the common arguments of the passes. */
static int pass_args(PyObject *pieces, PyObject *lp_obj, PyObject *out_obj, UgPieces *t, Py_buffer *lp,
                     Py_buffer *out) {
    Py_ssize_t n;
    if (load_pieces(pieces, t, &n) < 0) return -1;
    if (get_buffer(lp_obj, lp, 'd', 0, n, "lp") < 0) goto fail_table;
    if (get_buffer(out_obj, out, 'd', 1, n, "out") < 0) goto fail_lp;
    return 0;
fail_lp:
    PyBuffer_Release(lp);
fail_table:
    ug_pieces_free(t);
    return -1;
}

static void pass_done(UgPieces *t, Py_buffer *lp, Py_buffer *out) {
    PyBuffer_Release(out);
    PyBuffer_Release(lp);
    ug_pieces_free(t);
}

PyDoc_STRVAR(expected_doc,
"expected(pieces, lp, out) -> float: the E-step over every word's lattice: each piece's expected\n"
"count (weighted by the words' counts) into out (float64, one per piece); returns the corpus\n"
"log-likelihood. lp: the pieces' log-probabilities (float64). Runs without the GIL.");

static PyObject *UC_expected(UnigramCorpus *u, PyObject *args) {
    if (check_ready(u) < 0) return NULL;
    PyObject *pieces, *lp_obj, *out_obj;
    if (!PyArg_ParseTuple(args, "OOO:expected", &pieces, &lp_obj, &out_obj)) return NULL;
    UgPieces t;
    Py_buffer lp, out;
    if (pass_args(pieces, lp_obj, out_obj, &t, &lp, &out) < 0) return NULL;
    double loglik = 0.0;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = ug_expected(&u->c, &t, lp.buf, out.buf, (int64_t)(out.len / 8), &loglik);
    Py_END_ALLOW_THREADS
    pass_done(&t, &lp, &out);
    if (rc < 0) return PyErr_NoMemory();
    return PyFloat_FromDouble(loglik);
}

PyDoc_STRVAR(viterbi_doc,
"viterbi(pieces, lp, out) -> None: how often each piece is on the words' best segmentations\n"
"(weighted by the words' counts; ties go to the earliest start) into out. Runs without the GIL.");

static PyObject *UC_viterbi(UnigramCorpus *u, PyObject *args) {
    if (check_ready(u) < 0) return NULL;
    PyObject *pieces, *lp_obj, *out_obj;
    if (!PyArg_ParseTuple(args, "OOO:viterbi", &pieces, &lp_obj, &out_obj)) return NULL;
    UgPieces t;
    Py_buffer lp, out;
    if (pass_args(pieces, lp_obj, out_obj, &t, &lp, &out) < 0) return NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = ug_viterbi(&u->c, &t, lp.buf, out.buf, (int64_t)(out.len / 8));
    Py_END_ALLOW_THREADS
    pass_done(&t, &lp, &out);
    if (rc < 0) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

PyDoc_STRVAR(splits_doc,
"splits(pieces, lp, multi, out) -> (owners, alts): for each piece p with multi[p] nonzero, the best\n"
"segmentation of the piece itself into two or more pieces: its score into out[p] (-inf elsewhere)\n"
"and its tokens, last first, as pairs (p, token) in owners and alts (int64 bytes).");

static PyObject *UC_splits(UnigramCorpus *u, PyObject *args) {
    if (check_ready(u) < 0) return NULL;
    PyObject *pieces, *lp_obj, *multi_obj, *out_obj;
    if (!PyArg_ParseTuple(args, "OOOO:splits", &pieces, &lp_obj, &multi_obj, &out_obj)) return NULL;
    UgPieces t;
    Py_buffer lp, out, multi;
    if (pass_args(pieces, lp_obj, out_obj, &t, &lp, &out) < 0) return NULL;
    Py_ssize_t n = PyList_GET_SIZE(pieces), total = 0, count = 0;
    if (get_buffer(multi_obj, &multi, 'b', 0, n, "multi") < 0) {
        pass_done(&t, &lp, &out);
        return NULL;
    }
    const char *is_multi = multi.buf;
    double *score = out.buf;
    for (Py_ssize_t p = 0; p < n; p++) {
        score[p] = -INFINITY;
        if (is_multi[p]) {
            total += PyUnicode_GET_LENGTH(PyList_GET_ITEM(pieces, p));
            count++;
        }
    }
    /* The pieces to split, packed (the list may not be read without the GIL). */
    uint32_t *cps = PyMem_RawMalloc(((size_t)total + 1) * sizeof(uint32_t));
    int64_t *off = PyMem_RawMalloc(((size_t)count + 1) * sizeof(int64_t));
    int64_t *owner = PyMem_RawMalloc(((size_t)count + 1) * sizeof(int64_t));
    double *got = PyMem_RawMalloc(((size_t)count + 1) * sizeof(double));
    UgPairs pairs = {0};
    PyObject *result = NULL;
    int rc = -1;
    if (cps && off && owner && got) {
        Py_ssize_t at = 0, q = 0;
        off[0] = 0;
        for (Py_ssize_t p = 0; p < n; p++) {
            if (!is_multi[p]) continue;
            Text x = text_of(PyList_GET_ITEM(pieces, p));
            for (Py_ssize_t i = 0; i < x.len; i++) cps[at++] = AT(&x, i);
            owner[q] = p;
            off[++q] = at;
        }
        Py_BEGIN_ALLOW_THREADS
        rc = ug_splits(&t, lp.buf, cps, off, owner, count, got, &pairs);
        Py_END_ALLOW_THREADS
        for (Py_ssize_t k = 0; rc == 0 && k < count; k++) score[owner[k]] = got[k];
    }
    if (rc < 0) PyErr_NoMemory();
    else
        result = Py_BuildValue("(y#y#)", pairs.n ? (const char *)pairs.owner : "", /* NULL would give None */
                               (Py_ssize_t)(pairs.n * sizeof(int64_t)), pairs.n ? (const char *)pairs.alt : "",
                               (Py_ssize_t)(pairs.n * sizeof(int64_t)));
    ug_pairs_free(&pairs);
    PyMem_RawFree(cps);
    PyMem_RawFree(off);
    PyMem_RawFree(owner);
    PyMem_RawFree(got);
    PyBuffer_Release(&multi);
    pass_done(&t, &lp, &out);
    return result;
}

static PyMethodDef UC_methods[] = {
    {"seed", (PyCFunction)UC_seed, METH_VARARGS, seed_doc},
    {"expected", (PyCFunction)UC_expected, METH_VARARGS, expected_doc},
    {"viterbi", (PyCFunction)UC_viterbi, METH_VARARGS, viterbi_doc},
    {"splits", (PyCFunction)UC_splits, METH_VARARGS, splits_doc},
    {NULL, NULL, 0, NULL},
};

static void corpus_free(UgCorpus *c) {
    PyMem_RawFree(c->cps);
    PyMem_RawFree(c->brk);
    PyMem_RawFree(c->off);
    PyMem_RawFree(c->count);
    memset(c, 0, sizeof(*c));
}

static void UC_dealloc(UnigramCorpus *u) {
    corpus_free(&u->c);
    Py_TYPE(u)->tp_free((PyObject *)u);
}

/* UnigramCorpus(text, offsets, counts, breaks): the words end to end in text, word w being
 * text[offsets[w]:offsets[w + 1]] (int64, increasing from 0 to len(text)); counts (float64, finite,
 * >= 0) one per word; breaks a byte per character, nonzero where a run starts (no piece crosses it). */
static int UC_init(UnigramCorpus *u, PyObject *args, PyObject *kw) {
    static char *names[] = {"text", "offsets", "counts", "breaks", NULL};
    PyObject *text, *off_obj, *count_obj, *brk_obj;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "UOOO", names, &text, &off_obj, &count_obj, &brk_obj)) return -1;
    if (u->ready) {
        PyErr_SetString(PyExc_RuntimeError, "UnigramCorpus is already initialised");
        return -1;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    if (n >= INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "text too long for one UnigramCorpus (at most 2**31 - 2 characters)");
        return -1;
    }
    Py_buffer off, cnt, brk;
    if (get_buffer(off_obj, &off, 'q', 0, -1, "offsets") < 0) return -1;
    Py_ssize_t words = off.len / 8 - 1;
    if (words < 0) {
        PyBuffer_Release(&off);
        PyErr_SetString(PyExc_ValueError, "offsets must hold at least one value (0)");
        return -1;
    }
    if (get_buffer(count_obj, &cnt, 'd', 0, words, "counts") < 0) {
        PyBuffer_Release(&off);
        return -1;
    }
    if (get_buffer(brk_obj, &brk, 'b', 0, n, "breaks") < 0) {
        PyBuffer_Release(&cnt);
        PyBuffer_Release(&off);
        return -1;
    }
    const int64_t *o = off.buf;
    const double *w = cnt.buf;
    const char *why = o[0] != 0 || o[words] != n ? "offsets must run from 0 to len(text)" : NULL;
    for (Py_ssize_t k = 0; !why && k < words; k++) {
        if (o[k + 1] <= o[k]) why = "offsets must increase (no empty word)";
        else if (!(w[k] >= 0.0 && w[k] < INFINITY)) why = "counts must be finite and not negative";
    }
    int rc = -1;
    UgCorpus c = {0};
    if (why) {
        PyErr_SetString(PyExc_ValueError, why);
    } else {
        c.cps = PyMem_RawMalloc(((size_t)n + 1) * sizeof(uint32_t));
        c.brk = PyMem_RawMalloc((size_t)n + 1);
        c.off = PyMem_RawMalloc(((size_t)words + 1) * sizeof(int64_t));
        c.count = PyMem_RawMalloc(((size_t)words + 1) * sizeof(double));
        if (!c.cps || !c.brk || !c.off || !c.count) {
            corpus_free(&c);
            PyErr_NoMemory();
        } else {
            Text t = text_of(text);
            for (Py_ssize_t i = 0; i < n; i++) c.cps[i] = AT(&t, i);
            memcpy(c.brk, brk.buf, (size_t)n);
            memcpy(c.off, o, ((size_t)words + 1) * sizeof(int64_t));
            memcpy(c.count, w, (size_t)words * sizeof(double));
            c.n = n;
            c.num_words = words;
            for (Py_ssize_t k = 0; k < words; k++)
                if (o[k + 1] - o[k] > c.max_word) c.max_word = o[k + 1] - o[k];
            u->c = c;
            u->ready = 1; /* last: the object is ready */
            rc = 0;
        }
    }
    PyBuffer_Release(&brk);
    PyBuffer_Release(&cnt);
    PyBuffer_Release(&off);
    return rc;
}

PyTypeObject UnigramCorpusType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tokenizer_kernel.UnigramCorpus",
    .tp_doc = PyDoc_STR("The distinct words of a Unigram training run and its passes over them "
                        "(see tokenizer_core/unigram/native_lattice.py)."),
    .tp_basicsize = sizeof(UnigramCorpus),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)UC_init,
    .tp_dealloc = (destructor)UC_dealloc,
    .tp_methods = UC_methods,
};
