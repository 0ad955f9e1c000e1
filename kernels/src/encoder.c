/* Encoder: byte-level BPE in bulk over the pieces of a split: the GPT-2 or cl100k_base pattern
 * (scan.c), a compiled split program (program.c; a chain of up to MAX_CHAIN, each splitting the pieces
 * of the one before), or the pieces' ends given by the caller (encode_split).
 *
 * Each piece's UTF-8 bytes start as one symbol each; the adjacent pair with the lowest rank merges
 * first, the leftmost on equal ranks (a scan for short pieces, a heap over a linked list for long
 * ones, O(n log n)); results are cached per piece; the encoding's lists (ids, token strings, offsets
 * in characters, word ids) are built without a Python loop. This file holds the type: its checks, its
 * methods but encode_batch (encoder_batch.c) and the type object; encoder_init.c builds it.
 * tokenizer_core/bpe/kernel.py builds and wraps it; the Python path it is checked against is
 * tokenizer_core/fast/byte_level.py (tests/kernel/test_kernel.py). */
#include "encoder_type.h"

/* Objects come from tp_new zeroed and usable before __init__ (Encoder.__new__(Encoder)): every
 * method starts here so that such an object raises instead of following NULL tables. */
int encoder_check_ready(const Encoder *e) {
    if (e->ready) return 0;
    PyErr_SetString(PyExc_RuntimeError, "Encoder is not initialised: build it with Encoder(...)");
    return -1;
}

static int check_text(PyObject *text) {
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "text must be str, not %.100s", Py_TYPE(text)->tp_name);
        return -1;
    }
    return 0;
}

int raise_encode_error(int code, PyObject *text) {
    if (PyErr_Occurred()) return -1;
    if (code == ENC_SURROGATE) {
        /* A lone surrogate has no UTF-8: the codec's own UnicodeEncodeError, which the pipeline
         * answers by reading it as U+FFFD (as the Python path does). */
        PyObject *b = PyUnicode_AsUTF8String(text);
        Py_XDECREF(b);
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_UnicodeError, "lone surrogate");
    } else if (code == ENC_TOO_LONG) {
        PyErr_SetString(PyExc_ValueError, "a piece of 2**31-1 bytes or more is too long for the kernel");
    } else if (code == ENC_TOO_COMPLEX) {
        PyErr_SetString(PyExc_ValueError, "the split pattern backtracks too much on this text (over 2**24 steps for "
                                          "one piece)");
    } else {
        PyErr_NoMemory();
    }
    return -1;
}

/* An Encoder without a pattern of its own (PAT_EXTERNAL) only encodes pieces it is given. */
int encoder_check_own_split(const Encoder *e) {
    if (e->pattern != PAT_EXTERNAL) return 0;
    PyErr_SetString(PyExc_ValueError, "this Encoder has no split pattern of its own: give the pieces with encode_split");
    return -1;
}

/* encode_text on one text, without the GIL when it is long (on up to `threads` threads when it is
 * long enough, encode_shards.c); raises on error. */
static int encode_one(Encoder *e, PyObject *text, Py_ssize_t base, int64_t first_word, const int64_t *cuts,
                      int threads, Result *r) {
    Scratch sc = {0};
    int rc;
    if (PyUnicode_GET_LENGTH(text) >= RELEASE_GIL_CHARS) {
        Py_BEGIN_ALLOW_THREADS
        rc = threads > 1 && !cuts ? encode_text_threads(e, text, base, first_word, threads, r)
                                  : encode_text(e, &sc, text, base, first_word, cuts, r);
        Py_END_ALLOW_THREADS
    } else {
        rc = encode_text(e, &sc, text, base, first_word, cuts, r);
    }
    scratch_free(&sc);
    return rc < 0 ? raise_encode_error(rc, text) : 0;
}

PyDoc_STRVAR(encode_ids_doc, "encode_ids(text) -> list[int]: the token ids of the whole text.");

static PyObject *Encoder_encode_ids(Encoder *e, PyObject *text) {
    if (encoder_check_ready(e) < 0 || encoder_check_own_split(e) < 0 || check_text(text) < 0) return NULL;
    Result r = {0};
    PyObject *ids = encode_one(e, text, 0, 0, NULL, 1, &r) < 0 ? NULL : ids_list(e, &r);
    result_free(&r);
    return ids;
}

PyDoc_STRVAR(encode_doc,
"encode(text, base, first_word, *, packed=False, threads=1) -> (ids, tokens, offsets, word_ids, pieces)\n\n"
"Token ids, token strings, (start, end) character offsets (plus base), the piece index of each\n"
"token (from first_word) and the number of pieces. A long text is encoded without the GIL, on up to\n"
"`threads` threads when it is long enough (shards cut after newlines, checked to agree with one pass).\n"
"packed: (columns, pieces, token_strs) instead: one bytes object holding n int32 ids, then n int64\n"
"starts, ends and word ids (native order: array('i') and array('q') read them), whatever the\n"
"text's length, and the Encoder's list of token strings by id.");

/* The checks and the lists of encode and encode_split (cuts: NULL, or n checked piece ends). */
static PyObject *encode_lists(Encoder *e, PyObject *text, Py_ssize_t base, long long first_word, const int64_t *cuts,
                              int packed, int threads) {
    /* Offsets (base + position) and word ids (first_word + piece number) are int64 sums that must
     * not overflow, and negative values would mean nothing to the caller. */
    Py_ssize_t len = PyUnicode_GET_LENGTH(text);
    if (base < 0 || base > PY_SSIZE_T_MAX - len) {
        PyErr_Format(PyExc_ValueError, "base must be between 0 and 2**63-1 - len(text), not %zd", base);
        return NULL;
    }
    if (first_word < 0 || first_word > INT64_MAX - len) {
        PyErr_Format(PyExc_ValueError, "first_word must be between 0 and 2**63-1 - len(text), not %lld", first_word);
        return NULL;
    }
    Result r = {0};
    PyObject *out = NULL;
    if (encode_one(e, text, base, first_word, cuts, threads, &r) == 0) {
        if (packed) {
            PyObject *cols = result_packed(&r);
            out = cols ? Py_BuildValue("(NnO)", cols, r.pieces, e->token_strs) : NULL;
        } else {
            /* Millions of new objects, none of which can form a cycle: no collections while they are made. */
            int gc_was_on = PyGC_Disable();
            out = result_lists(e, &r);
            if (gc_was_on) PyGC_Enable();
        }
    }
    result_free(&r);
    return out;
}

static PyObject *Encoder_encode(Encoder *e, PyObject *args, PyObject *kw) {
    static char *names[] = {"text", "base", "first_word", "packed", "threads", NULL};
    PyObject *text;
    Py_ssize_t base, threads = 1;
    long long first_word;
    int packed = 0;
    if (encoder_check_ready(e) < 0 || encoder_check_own_split(e) < 0 ||
        !PyArg_ParseTupleAndKeywords(args, kw, "UnL|$pn", names, &text, &base, &first_word, &packed, &threads))
        return NULL;
    if (threads < 1 || threads > 64) {
        PyErr_Format(PyExc_ValueError, "threads must be between 1 and 64, not %zd", threads);
        return NULL;
    }
    return encode_lists(e, text, base, first_word, NULL, packed, (int)threads);
}

PyDoc_STRVAR(encode_split_doc,
"encode_split(text, ends, base, first_word, *, packed=False) -> (ids, tokens, offsets, word_ids, pieces)\n\n"
"encode() with the pieces given: ends holds the end of every piece as native int64 (an\n"
"array('q') or its bytes), increasing, the last one len(text); each piece is merged as encode()\n"
"merges the pieces of its own pattern.");

static PyObject *Encoder_encode_split(Encoder *e, PyObject *args, PyObject *kw) {
    static char *names[] = {"text", "ends", "base", "first_word", "packed", NULL};
    PyObject *text;
    Py_buffer ends;
    Py_ssize_t base;
    long long first_word;
    int packed = 0;
    if (encoder_check_ready(e) < 0 ||
        !PyArg_ParseTupleAndKeywords(args, kw, "Uy*nL|$p", names, &text, &ends, &base, &first_word, &packed))
        return NULL;
    PyObject *out = NULL;
    Py_ssize_t len = PyUnicode_GET_LENGTH(text), n = ends.len / (Py_ssize_t)sizeof(int64_t);
    /* The ends are copied (aligned, and safe from a caller changing the buffer meanwhile), then
     * checked: each piece non-empty and inside the text, the last one ending it. */
    int64_t *cuts = NULL;
    if (ends.len % (Py_ssize_t)sizeof(int64_t) != 0) {
        PyErr_SetString(PyExc_ValueError, "ends must hold whole int64 values (array('q'))");
        goto done;
    }
    if ((len == 0) != (n == 0)) {
        PyErr_SetString(PyExc_ValueError, "ends must cover the text: none for an empty text, else the last is len(text)");
        goto done;
    }
    cuts = PyMem_Malloc(n ? (size_t)n * sizeof(int64_t) : 1);
    if (!cuts) { PyErr_NoMemory(); goto done; }
    memcpy(cuts, ends.buf, (size_t)n * sizeof(int64_t));
    for (Py_ssize_t k = 0; k < n; k++) {
        int64_t prev = k ? cuts[k - 1] : 0;
        if (cuts[k] <= prev || cuts[k] > len || (k == n - 1 && cuts[k] != len)) {
            PyErr_Format(PyExc_ValueError, "ends must increase from above 0 to len(text) = %zd (end %zd is %lld)",
                         len, k, (long long)cuts[k]);
            goto done;
        }
    }
    out = encode_lists(e, text, base, first_word, cuts, packed, 1);
done:
    PyMem_Free(cuts);
    PyBuffer_Release(&ends);
    return out;
}

PyDoc_STRVAR(split_doc, "split(text) -> list[str]: the pieces of the split pattern, in order.");

static PyObject *Encoder_split(Encoder *e, PyObject *text) {
    if (encoder_check_ready(e) < 0 || encoder_check_own_split(e) < 0 || check_text(text) < 0) return NULL;
    Text t = text_of(text);
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    Scratch sc = {0};
    for (Py_ssize_t i = 0; i < t.len;) {
        Py_ssize_t j = next_piece(e, &sc, &t, i);
        if (j < 0) { scratch_free(&sc); Py_DECREF(out); raise_encode_error((int)j, text); return NULL; }
        PyObject *s = PyUnicode_Substring(text, i, j);
        if (!s || PyList_Append(out, s) < 0) { Py_XDECREF(s); Py_DECREF(out); scratch_free(&sc); return NULL; }
        Py_DECREF(s);
        i = j;
    }
    scratch_free(&sc);
    return out;
}

PyDoc_STRVAR(encode_piece_doc, "encode_piece(data: bytes) -> list[int]: BPE token ids of one piece's bytes (no cache).");

static PyObject *Encoder_encode_piece(Encoder *e, PyObject *data) {
    if (encoder_check_ready(e) < 0) return NULL;
    if (!PyBytes_Check(data)) {
        PyErr_SetString(PyExc_TypeError, "encode_piece takes bytes");
        return NULL;
    }
    Scratch sc = {0};
    PyObject *out = NULL;
    int rc = encode_piece(e, &sc, (const unsigned char *)PyBytes_AS_STRING(data), PyBytes_GET_SIZE(data), 0);
    if (rc < 0) raise_encode_error(rc, NULL);
    else if ((out = PyList_New(sc.piece.n))) {
        for (Py_ssize_t k = 0; k < sc.piece.n; k++) {
            PyObject *o = PyLong_FromLong(sc.piece.id[k]);
            if (!o) { Py_CLEAR(out); break; }
            PyList_SET_ITEM(out, k, o);
        }
    }
    scratch_free(&sc);
    return out;
}

PyDoc_STRVAR(cache_size_doc, "cache_size() -> int: the number of pieces remembered.");

/* Holds the cache as its writer, waiting for its turn without the GIL (another call may need the GIL
 * to finish). */
static void lock_cache(Encoder *e) {
    if (cache_write_try(e)) return;
    Py_BEGIN_ALLOW_THREADS
    cache_write_wait(e);
    Py_END_ALLOW_THREADS
}

static PyObject *Encoder_cache_size(Encoder *e, PyObject *Py_UNUSED(ignored)) {
    if (encoder_check_ready(e) < 0) return NULL;
    lock_cache(e);
    size_t n = e->cache.count;
    cache_write_end(e);
    return PyLong_FromSize_t(n);
}

PyDoc_STRVAR(cache_bytes_doc,
"cache_bytes() -> int: the bytes the piece cache holds (its table, keys and tokens); never more\n"
"than the Encoder's cache_bytes budget (64 MB unless given): a piece that would pass it first\n"
"clears the cache.");

static PyObject *Encoder_cache_bytes(Encoder *e, PyObject *Py_UNUSED(ignored)) {
    if (encoder_check_ready(e) < 0) return NULL;
    lock_cache(e);
    size_t n = cache_bytes(e);
    cache_write_end(e);
    return PyLong_FromSize_t(n);
}

PyDoc_STRVAR(clear_cache_doc, "clear_cache(): forget every remembered piece.");

static PyObject *Encoder_clear_cache(Encoder *e, PyObject *Py_UNUSED(ignored)) {
    if (encoder_check_ready(e) < 0) return NULL;
    lock_cache(e);
    btab_clear(&e->cache);
    e->pool_len = 0;
    cache_write_end(e);
    Py_RETURN_NONE;
}

static PyMethodDef Encoder_methods[] = {
    {"encode", (PyCFunction)(void (*)(void))Encoder_encode, METH_VARARGS | METH_KEYWORDS, encode_doc},
    {"encode_split", (PyCFunction)(void (*)(void))Encoder_encode_split, METH_VARARGS | METH_KEYWORDS, encode_split_doc},
    {"encode_batch", (PyCFunction)(void (*)(void))Encoder_encode_batch, METH_VARARGS | METH_KEYWORDS,
     encoder_encode_batch_doc},
    {"encode_ids", (PyCFunction)Encoder_encode_ids, METH_O, encode_ids_doc},
    {"split", (PyCFunction)Encoder_split, METH_O, split_doc},
    {"encode_piece", (PyCFunction)Encoder_encode_piece, METH_O, encode_piece_doc},
    {"cache_size", (PyCFunction)Encoder_cache_size, METH_NOARGS, cache_size_doc},
    {"cache_bytes", (PyCFunction)Encoder_cache_bytes, METH_NOARGS, cache_bytes_doc},
    {"clear_cache", (PyCFunction)Encoder_clear_cache, METH_NOARGS, clear_cache_doc},
    {NULL, NULL, 0, NULL},
};

PyTypeObject EncoderType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tokenizer_kernel.Encoder",
    .tp_doc = PyDoc_STR("Byte-level BPE in bulk over the pieces of a split: GPT-2's or cl100k_base's, a compiled "
                        "split program (or a chain of them), or pieces given by the caller (encode_split); see "
                        "tokenizer_core/bpe/kernel.py."),
    .tp_basicsize = sizeof(Encoder),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Encoder_init,
    .tp_dealloc = (destructor)Encoder_dealloc,
    .tp_methods = Encoder_methods,
};
