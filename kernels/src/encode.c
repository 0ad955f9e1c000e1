/* A whole text through the Encoder: its pieces, their tokens (cached per piece), character offsets,
 * and the Python lists of an Encoding built without a Python loop, or its packed columns. Mirror:
 * the Python path of tokenizer_core/fast/byte_level.py (pieces, token spans, lists); the packed
 * columns' layout is tokenizer_core/fast/columns.py's. */
#include "encoder.h"

int result_reserve(Result *r, Py_ssize_t more) {
    if (tokbuf_reserve(&r->out, more) < 0) return -1;
    if (r->out.cap > r->word_cap) {
        int64_t *w = PyMem_RawRealloc(r->word, r->out.cap * sizeof(int64_t));
        if (!w) return ENC_NO_MEMORY;
        r->word = w;
        r->word_cap = r->out.cap;
    }
    return 0;
}

void result_free(Result *r) {
    tokbuf_free(&r->out);
    PyMem_RawFree(r->word);
    memset(r, 0, sizeof(*r));
}

/* The UTF-8 bytes of text[i:j] in the call's s->u8 (the Python path encodes each piece the same way). */
static const unsigned char *piece_utf8(Scratch *s, PyObject *text, const Text *t, Py_ssize_t i, Py_ssize_t j,
                                       Py_ssize_t *nbytes) {
    size_t need = 0; /* the piece's UTF-8 size exactly (a long piece's buffer stays its own size) */
    for (Py_ssize_t k = i; k < j; k++) {
        Py_UCS4 c = AT(t, k);
        need += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    }
    if (need > s->u8_cap) {
        size_t cap = s->u8_cap ? s->u8_cap : 1024;
        while (cap < need) cap *= 2;
        unsigned char *b = PyMem_RawRealloc(s->u8, cap);
        if (!b) { *nbytes = ENC_NO_MEMORY; return NULL; }
        s->u8 = b;
        s->u8_cap = cap;
    }
    unsigned char *o = s->u8;
    for (Py_ssize_t k = i; k < j; k++) {
        Py_UCS4 c = AT(t, k);
        if (c < 0x80) *o++ = (unsigned char)c;
        else if (c < 0x800) { *o++ = 0xC0 | (c >> 6); *o++ = 0x80 | (c & 0x3F); }
        else if (c < 0x10000) {
            if (c >= 0xD800 && c <= 0xDFFF) {
                /* A lone surrogate has no UTF-8: the caller raises the codec's own error. */
                *nbytes = ENC_SURROGATE;
                return NULL;
            }
            *o++ = 0xE0 | (c >> 12); *o++ = 0x80 | ((c >> 6) & 0x3F); *o++ = 0x80 | (c & 0x3F);
        } else {
            *o++ = 0xF0 | (c >> 18); *o++ = 0x80 | ((c >> 12) & 0x3F);
            *o++ = 0x80 | ((c >> 6) & 0x3F); *o++ = 0x80 | (c & 0x3F);
        }
    }
    *nbytes = o - s->u8;
    return s->u8;
}

/* Encode all of `text`: tokens with character offsets from `base`, pieces numbered from `first_word`. */
int encode_text(Encoder *e, Scratch *s, PyObject *text, Py_ssize_t base, int64_t first_word, const int64_t *cuts,
                Result *r) {
    Py_ssize_t reached;
    return encode_span(e, s, text, 0, PyUnicode_GET_LENGTH(text), base, first_word, cuts, r, &reached);
}

int encode_span(Encoder *e, Scratch *s, PyObject *text, Py_ssize_t from, Py_ssize_t to, Py_ssize_t base,
                int64_t first_word, const int64_t *cuts, Result *r, Py_ssize_t *reached) {
    Text t = text_of(text);
    int ascii = PyUnicode_IS_ASCII(text);
    int64_t word = first_word;
    Py_ssize_t i = from;
    for (; i < to && i < t.len;) {
        Py_ssize_t j = cuts ? (Py_ssize_t)cuts[word - first_word] : next_piece(e, s, &t, i);
        if (j < 0) return (int)j;
        Py_ssize_t nb = j - i;
        const unsigned char *bytes = ascii ? (const unsigned char *)t.data + i : piece_utf8(s, text, &t, i, j, &nb);
        if (!bytes) return (int)nb;
        int rc = encode_piece(e, s, bytes, nb, 1);
        if (rc < 0) return rc;
        TokBuf *pb = &s->piece;
        if (result_reserve(r, pb->n) < 0) return ENC_NO_MEMORY;
        Py_ssize_t o = r->out.n;
        int64_t cs = base + i;
        if (nb == j - i) { /* one byte per character */
            int64_t prev = 0;
            for (Py_ssize_t k = 0; k < pb->n; k++) {
                r->out.id[o + k] = pb->id[k];
                r->out.start[o + k] = cs + prev;
                r->out.end[o + k] = cs + pb->end[k];
                r->word[o + k] = word;
                prev = pb->end[k];
            }
        } else {
            /* The character of each byte, read in one walk (tokens lie end to end): a token starts
             * at its first byte's character and ends after its last byte's character (a token
             * may hold part of a character). No array per byte: a long piece costs nothing more. */
            int64_t ch = -1, prev = 0; /* ch: the character of byte k - 1 */
            Py_ssize_t k = 0;
            for (Py_ssize_t q = 0; q < pb->n; q++) {
                for (; k <= prev; k++) ch += (bytes[k] & 0xC0) != 0x80;
                int64_t first = ch;
                for (; k < pb->end[q]; k++) ch += (bytes[k] & 0xC0) != 0x80;
                r->out.id[o + q] = pb->id[q];
                r->out.start[o + q] = cs + first;
                r->out.end[o + q] = cs + ch + 1;
                r->word[o + q] = word;
                prev = pb->end[q];
            }
        }
        r->out.n += pb->n;
        word++;
        i = j;
    }
    r->pieces = word - first_word;
    *reached = i;
    return ENC_OK;
}

PyObject *ids_list(Encoder *e, const Result *r) {
    Py_ssize_t n = r->out.n, nv = PyList_GET_SIZE(e->id_objs);
    PyObject *ids = PyList_New(n);
    if (!ids) return NULL;
    for (Py_ssize_t k = 0; k < n; k++) {
        int32_t id = r->out.id[k];
        PyObject *o;
        if (id >= 0 && id < nv) {
            o = PyList_GET_ITEM(e->id_objs, id);
            Py_INCREF(o);
        } else {
            o = PyLong_FromLong(id);
            if (!o) { Py_DECREF(ids); return NULL; }
        }
        PyList_SET_ITEM(ids, k, o);
    }
    return ids;
}

/* (ids, tokens, offsets, word_ids, pieces) of an encoded text, as Python lists. */
PyObject *result_lists(Encoder *e, const Result *r) {
    Py_ssize_t n = r->out.n, nv = PyList_GET_SIZE(e->token_strs);
    PyObject *ids = NULL, *toks = NULL, *offs = NULL, *words = NULL;
    if (!(ids = ids_list(e, r))) return NULL;
    if (!(toks = PyList_New(n)) || !(offs = PyList_New(n)) || !(words = PyList_New(n))) goto fail;
    /* The previous token's end and word id, shared when they repeat; their values count only once
     * the objects exist (no sentinel value, which a caller's base or first_word could equal). */
    PyObject *last_end = NULL, *word_obj = NULL;
    int64_t last_end_value = 0, word_value = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        int32_t id = r->out.id[k];
        PyObject *s = (id >= 0 && id < nv) ? PyList_GET_ITEM(e->token_strs, id) : Py_None;
        Py_INCREF(s);
        PyList_SET_ITEM(toks, k, s);
        /* A token usually starts where the previous one ended: share that int object. */
        PyObject *a;
        if (last_end && r->out.start[k] == last_end_value) {
            a = last_end;
            Py_INCREF(a);
        } else if (!(a = PyLong_FromLongLong(r->out.start[k]))) goto fail;
        PyObject *b = PyLong_FromLongLong(r->out.end[k]);
        if (!b) { Py_DECREF(a); goto fail; }
        PyObject *pair = PyTuple_New(2);
        if (!pair) { Py_DECREF(a); Py_DECREF(b); goto fail; }
        PyTuple_SET_ITEM(pair, 0, a);
        PyTuple_SET_ITEM(pair, 1, b);
        /* Two ints can form no reference cycle: keep these tuples out of the cyclic GC. */
        PyObject_GC_UnTrack(pair);
        PyList_SET_ITEM(offs, k, pair);
        last_end = b;
        last_end_value = r->out.end[k];
        if (!word_obj || r->word[k] != word_value) {
            if (!(word_obj = PyLong_FromLongLong(r->word[k]))) goto fail;
            word_value = r->word[k];
        } else {
            Py_INCREF(word_obj);
        }
        PyList_SET_ITEM(words, k, word_obj);
    }
    return Py_BuildValue("(NNNNn)", ids, toks, offs, words, r->pieces);
fail:
    Py_XDECREF(ids);
    Py_XDECREF(toks);
    Py_XDECREF(offs);
    Py_XDECREF(words);
    return NULL;
}

/* The columns of an encoded text in one bytes object: n int32 ids, then n int64 starts, n int64 ends and
 * n int64 word ids (native byte order: array('i') and array('q') read them). One object whatever the
 * length: the Encoding makes its lists from it when they are read. */
PyObject *result_packed(const Result *r) {
    Py_ssize_t n = r->out.n;
    if (n > PY_SSIZE_T_MAX / PACKED_ROW_BYTES) return PyErr_NoMemory();
    PyObject *out = PyBytes_FromStringAndSize(NULL, n * PACKED_ROW_BYTES);
    if (!out || !n) return out;
    char *p = PyBytes_AS_STRING(out);
    memcpy(p, r->out.id, (size_t)n * sizeof(int32_t));
    p += n * sizeof(int32_t);
    memcpy(p, r->out.start, (size_t)n * sizeof(int64_t));
    p += n * sizeof(int64_t);
    memcpy(p, r->out.end, (size_t)n * sizeof(int64_t));
    p += n * sizeof(int64_t);
    memcpy(p, r->word, (size_t)n * sizeof(int64_t));
    return out;
}
