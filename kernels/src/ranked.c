/* The pair table of a vocabulary whose merges are ranked by token (tiktoken's rule), built in time
 * linear in the tokens' lengths. Mirror: MergeRanks.TOKENS in tokenizer_core/bpe/model.py (a pair
 * ranks as the id of the token it spells, BPE._ranker). */
#include "encoder.h"

/* Rolling hashes modulo the prime 2**61-1 with a per-process random base: the hash of any slice of
 * a token comes from its prefix hashes in O(1), so all of a token's splits are looked up in time
 * linear in its length (hashing each half afresh took time quadratic in it). */
#define P61 ((uint64_t)0x1FFFFFFFFFFFFFFFULL)

static inline uint64_t mulmod61(uint64_t a, uint64_t b) {
    __uint128_t z = (__uint128_t)a * b;
    uint64_t r = (uint64_t)(z & P61) + (uint64_t)(z >> 61);
    return r >= P61 ? r - P61 : r;
}

/* The table key of a slice with rolling hash h and length n (the length keeps equal hashes of
 * different lengths apart; any remaining clash is caught by comparing bytes). */
static inline uint64_t slice_key(uint64_t h, Py_ssize_t n) {
    uint64_t k = h ^ ((uint64_t)n * 0x9E3779B97F4A7C15ULL);
    return k == UINT64_MAX ? 0 : k;
}

/* Whether token id holds exactly the n bytes at p. */
static int token_is(PyObject *token_bytes, int64_t id, const unsigned char *p, Py_ssize_t n) {
    PyObject *b = PyList_GET_ITEM(token_bytes, id);
    return PyBytes_GET_SIZE(b) == n && memcmp(PyBytes_AS_STRING(b), p, (size_t)n) == 0;
}

/* Every split of a token into two tokens is a pair; its rank and result are the token's id
 * (tiktoken's rule). Ids are visited in increasing order so a pair keeps its lowest rank. Only a
 * token's own first spelling counts (a later id with the same bytes is a duplicate). */
int ranked_pairs(Encoder *e, PyObject *token_bytes, Py_ssize_t nv) {
    U64Map whole = {0};
    uint64_t *pre = NULL, *pw = NULL;
    int rc = -1, clash = 0;
    const uint64_t base = 256 + kernel_seed % (P61 - 512);
    Py_ssize_t longest = 0;
    if (u64map_init(&whole, (size_t)nv) < 0) return -1;
    for (Py_ssize_t k = 0; k < nv && !clash; k++) {
        PyObject *b = PyList_GET_ITEM(token_bytes, k);
        if (b == Py_None) continue;
        const unsigned char *p = (const unsigned char *)PyBytes_AS_STRING(b);
        Py_ssize_t n = PyBytes_GET_SIZE(b);
        int64_t self;
        if (!btab_find(&e->vocab, p, n, &self) || self != k) continue;
        if (n > longest) longest = n;
        uint64_t h = 0;
        for (Py_ssize_t i = 0; i < n; i++) h = (mulmod61(h, base) + p[i] + 1) % P61;
        int created;
        int64_t *v = u64map_slot(&whole, slice_key(h, n), &created);
        if (!v) goto done;
        if (created) *v = k;
        else clash = 1; /* two spellings share a key: take the direct way below */
    }
    if (clash) {
        /* Exact but quadratic in a token's length; reached only when two tokens' keys clash. */
        for (Py_ssize_t k = 0; k < nv; k++) {
            PyObject *b = PyList_GET_ITEM(token_bytes, k);
            if (b == Py_None || PyBytes_GET_SIZE(b) < 2) continue;
            const unsigned char *p = (const unsigned char *)PyBytes_AS_STRING(b);
            Py_ssize_t n = PyBytes_GET_SIZE(b);
            int64_t self, l, r;
            if (!btab_find(&e->vocab, p, n, &self) || self != k) continue;
            for (Py_ssize_t cut = 1; cut < n; cut++)
                if (btab_find(&e->vocab, p, cut, &l) && btab_find(&e->vocab, p + cut, n - cut, &r) &&
                    pairs_put(&e->pairs, (int32_t)l, (int32_t)r, (uint32_t)k, (int32_t)k) < 0)
                    goto done;
        }
        rc = 0;
        goto done;
    }
    pre = PyMem_Malloc((size_t)(longest + 1) * sizeof(uint64_t));
    pw = PyMem_Malloc((size_t)(longest + 1) * sizeof(uint64_t));
    if (!pre || !pw) { PyErr_NoMemory(); goto done; }
    pw[0] = 1;
    for (Py_ssize_t i = 1; i <= longest; i++) pw[i] = mulmod61(pw[i - 1], base);
    for (Py_ssize_t k = 0; k < nv; k++) {
        PyObject *b = PyList_GET_ITEM(token_bytes, k);
        if (b == Py_None || PyBytes_GET_SIZE(b) < 2) continue;
        const unsigned char *p = (const unsigned char *)PyBytes_AS_STRING(b);
        Py_ssize_t n = PyBytes_GET_SIZE(b);
        int64_t self;
        if (!btab_find(&e->vocab, p, n, &self) || self != k) continue;
        pre[0] = 0;
        for (Py_ssize_t i = 0; i < n; i++) pre[i + 1] = (mulmod61(pre[i], base) + p[i] + 1) % P61;
        for (Py_ssize_t cut = 1; cut < n; cut++) {
            const int64_t *l = u64map_find(&whole, slice_key(pre[cut], cut));
            if (!l || !token_is(token_bytes, *l, p, cut)) continue;
            /* hash(p[cut:n]) = pre[n] - pre[cut] * base**(n-cut) */
            uint64_t h = (pre[n] + P61 - mulmod61(pre[cut], pw[n - cut])) % P61;
            const int64_t *r = u64map_find(&whole, slice_key(h, n - cut));
            if (!r || !token_is(token_bytes, *r, p + cut, n - cut)) continue;
            if (pairs_put(&e->pairs, (int32_t)*l, (int32_t)*r, (uint32_t)k, (int32_t)k) < 0) goto done;
        }
    }
    rc = 0;
done:
    PyMem_Free(pre);
    PyMem_Free(pw);
    u64map_free(&whole);
    return rc;
}
