/* A scored ChunkTable's near ties, segmented again in C (see chunks.c).
 *
 * A SentencePiece Unigram model adds float32 scores along the whole text, so which of two near-equal
 * paths through a chunk wins depends on the score before it. Where the stored entry's gap could
 * close at the running score, the chunk's normalized text (stored with the entry) is segmented
 * again from that score, as tokenizer_core.unigram.sentencepiece_unigram.SentencePieceUnigram's
 * _viterbi does it: positions left to right, pieces from each position shortest first, a sum
 * above the best so far rounded to float32 and kept only if still above (the earlier piece wins
 * ties), an unknown character where no one-character piece starts. Its tokens follow _path_tokens:
 * a run of unknown characters is one unknown token, or with byte fallback one token per UTF-8 byte,
 * each spanning the run. An unknown token without byte fallback keeps its text, which only the
 * Python side can name: that chunk still goes back to Python. */
#include "chunks.h"

#include <math.h>

const char chunks_set_lattice_doc[] =
"set_lattice(pieces, unk_id, unk_score, byte_ids=None): the Unigram model near ties are segmented\n"
"again with: pieces as (text, id, float32 score) of the normal and user-defined pieces, the unknown\n"
"piece's id and score, and with byte fallback each byte's id (256 of them).";

PyObject *ChunkTable_set_lattice(ChunkTable *c, PyObject *args, PyObject *kw) {
    static char *names[] = {"pieces", "unk_id", "unk_score", "byte_ids", NULL};
    PyObject *pieces, *bytes_o = Py_None;
    int unk_id;
    double unk_score;
    if (chunks_check_ready(c) < 0 ||
        !PyArg_ParseTupleAndKeywords(args, kw, "Oid|O", names, &pieces, &unk_id, &unk_score, &bytes_o))
        return NULL;
    if (!c->scored || c->has_lattice) {
        PyErr_SetString(PyExc_ValueError, "set_lattice is for a scored table, once");
        return NULL;
    }
    int32_t byte_ids[256];
    if (bytes_o != Py_None) {
        PyObject *seq = PySequence_Fast(bytes_o, "byte_ids must be a sequence of 256 ints");
        if (!seq) return NULL;
        int ok = PySequence_Fast_GET_SIZE(seq) == 256;
        for (int b = 0; ok && b < 256; b++) {
            long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, b));
            ok = !(v == -1 && PyErr_Occurred()) && v >= 0 && v < PyList_GET_SIZE(c->token_strs);
            byte_ids[b] = (int32_t)v;
        }
        Py_DECREF(seq);
        if (!ok) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "byte_ids must be 256 ids of the token list");
            return NULL;
        }
    }
    PyObject *seq = PySequence_Fast(pieces, "pieces must be a sequence of (str, int, float)");
    if (!seq) return NULL;
    BytesTable t;
    if (btab_init(&t, (size_t)PySequence_Fast_GET_SIZE(seq) + 16) < 0) { Py_DECREF(seq); return NULL; }
    uint32_t buf[MAX_KEY_CHARS];
    int max_piece = 0;
    for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(seq); k++) {
        PyObject *text;
        int id;
        double score;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, k), "Uid", &text, &id, &score)) goto fail;
        Py_ssize_t n = PyUnicode_GET_LENGTH(text);
        if (!n || n > MAX_KEY_CHARS || id < 0 || id >= PyList_GET_SIZE(c->token_strs)) {
            PyErr_SetString(PyExc_ValueError, "a piece is empty, over 1,024 characters, or its id is past the list");
            goto fail;
        }
        for (Py_ssize_t i = 0; i < n; i++) buf[i] = PyUnicode_READ_CHAR(text, i);
        float f = (float)score;
        uint32_t bits;
        memcpy(&bits, &f, sizeof bits);
        int64_t unused;
        if (btab_find(&t, (const unsigned char *)buf, n * 4, &unused)) continue;  /* the first id of a text */
        if (btab_put(&t, (const unsigned char *)buf, n * 4, (int64_t)(((uint64_t)(uint32_t)id << 32) | bits)) < 0)
            goto fail;
        if (n > max_piece) max_piece = (int)n;
    }
    Py_DECREF(seq);
    chunks_write_lock(c);
    c->lattice = t;
    c->max_piece = max_piece;
    c->unk_id = unk_id;
    c->unk_score = (float)unk_score;
    c->byte_fallback = bytes_o != Py_None;
    if (c->byte_fallback) memcpy(c->byte_ids, byte_ids, sizeof byte_ids);
    c->has_lattice = 1;
    chunks_unlock(c);
    Py_RETURN_NONE;
fail:
    btab_free(&t);
    Py_DECREF(seq);
    return NULL;
}

/* UTF-8 of one code point into out (4 bytes at most); 0 for a surrogate. */
static int utf8(uint32_t cp, unsigned char *out) {
    if (cp < 0x80) { out[0] = (unsigned char)cp; return 1; }
    if (cp < 0x800) { out[0] = (unsigned char)(0xC0 | cp >> 6); out[1] = (unsigned char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp >= 0xD800 && cp < 0xE000) return 0;
    if (cp < 0x10000) {
        out[0] = (unsigned char)(0xE0 | cp >> 12);
        out[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (unsigned char)(0xF0 | cp >> 18);
    out[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

static int push(Row *r, int32_t id, int64_t start, int64_t end, int64_t word) {
    if (chunks_row_reserve(r, 1) < 0) return -1;
    r->id[r->n] = id;
    r->start[r->n] = start;
    r->end[r->n] = end;
    r->word[r->n] = word;
    r->n++;
    return 0;
}

/* Tokens of the path from the back-pointers (bs, bid, bsc: start, id, score of the best piece ending
 * at each position) appended to r; the score added to *f. 1, 0 (Python must) or -1. */
static int emit(const ChunkTable *c, const uint32_t *text, const int32_t *as, const int32_t *ae, Py_ssize_t n,
                const int32_t *bs, const int32_t *bid, const float *bsc, float *f, Py_ssize_t base, int64_t words,
                Row *r) {
    Py_ssize_t len = 0;
    for (Py_ssize_t pos = n; pos > 0; pos = bs[pos]) len++;
    int32_t *ends = PyMem_RawMalloc((size_t)(len ? len : 1) * sizeof(int32_t));
    if (!ends) return -1;
    Py_ssize_t k = len;
    for (Py_ssize_t pos = n; pos > 0; pos = bs[pos]) ends[--k] = (int32_t)pos;
    float total = *f;
    Py_ssize_t n0 = r->n, run = -1;
    int rc = 1;
    for (k = 0; k < len && rc == 1; k++) {
        int32_t e = ends[k], s = bs[e], id = bid[e];
        total = (float)((double)total + (double)bsc[e]);
        if (id >= 0) {
            if (push(r, id, base + as[s], base + ae[e - 1], words) < 0) rc = -1;
            continue;
        }
        if (run < 0) run = s;
        if (k + 1 < len && bid[ends[k + 1]] < 0) continue;
        if (!c->byte_fallback) { rc = 0; break; }  /* the unknown token keeps its text: Python names it */
        for (Py_ssize_t i = run; i < e && rc == 1; i++) {
            unsigned char u[4];
            int m = utf8(text[i], u);
            if (!m) rc = 0;
            for (int j = 0; j < m && rc == 1; j++)
                if (push(r, c->byte_ids[u[j]], base + as[run], base + ae[e - 1], words) < 0) rc = -1;
        }
        run = -1;
    }
    PyMem_RawFree(ends);
    if (rc == 1) *f = total;
    else r->n = n0;
    return rc;
}

int chunks_resegment(const ChunkTable *c, const ChunkTable *owner, const Entry *en, float *f, Py_ssize_t base,
                     int64_t words, Row *r) {
    if (!c->has_lattice || en->norm < 0) return 0;
    Py_ssize_t n = en->norm_len;
    const uint32_t *text = owner->form + en->norm;
    double *best = PyMem_RawMalloc((size_t)(n + 1) * sizeof(double));
    int32_t *bs = PyMem_RawMalloc((size_t)(n + 1) * sizeof(int32_t));
    int32_t *bid = PyMem_RawMalloc((size_t)(n + 1) * sizeof(int32_t));
    float *bsc = PyMem_RawMalloc((size_t)(n + 1) * sizeof(float));
    int rc = -1;
    if (!best || !bs || !bid || !bsc) goto done;
    for (Py_ssize_t i = 0; i <= n; i++) best[i] = -INFINITY, bs[i] = 0, bid[i] = -1, bsc[i] = 0.0f;
    best[0] = (double)*f;
    for (Py_ssize_t s = 0; s < n; s++) {
        double b = best[s];
        int single = 0;
        Py_ssize_t last = s + c->max_piece < n ? s + c->max_piece : n;
        for (Py_ssize_t e = s + 1; e <= last; e++) {
            int64_t v;
            if (!btab_find(&c->lattice, (const unsigned char *)(text + s), (e - s) * 4, &v)) continue;
            uint32_t bits = (uint32_t)(uint64_t)v;
            float hs;
            memcpy(&hs, &bits, sizeof hs);
            if (e == s + 1) single = 1;
            double sum = b + (double)hs;  /* two float32 add exactly in a double */
            if (sum > best[e]) {
                float rounded = (float)sum;
                if ((double)rounded > best[e]) {
                    best[e] = rounded, bs[e] = (int32_t)s, bid[e] = (int32_t)((uint64_t)v >> 32), bsc[e] = hs;
                }
            }
        }
        if (!single) {
            float rounded = (float)(b + (double)c->unk_score);
            if ((double)rounded > best[s + 1])
                best[s + 1] = rounded, bs[s + 1] = (int32_t)s, bid[s + 1] = -1, bsc[s + 1] = c->unk_score;
        }
    }
    rc = emit(c, text, owner->form_start + en->norm, owner->form_end + en->norm, n, bs, bid, bsc, f, base, words, r);
done:
    PyMem_RawFree(best);
    PyMem_RawFree(bs);
    PyMem_RawFree(bid);
    PyMem_RawFree(bsc);
    return rc;
}
