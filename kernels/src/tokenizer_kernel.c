/*
 * tokenizer_kernel: the compiled fast path of tokenizer_core's byte-level BPE.
 *
 * The pure-Python code in tokenizer_core (bpe/model.py, bpe/merging.py, text/byte_level.py) is
 * the reference; this module computes the same thing in bulk, and tests/test_kernel.py checks
 * the two against each other (pieces, tokens, offsets, word ids) on corpora and random text.
 *
 *   1. Pre-tokenization for the GPT-2 and cl100k_base split patterns, written out as the
 *      regex engine walks them (ordered alternatives, greedy and possessive runs). Character
 *      classes (\p{L}, \p{N}, \s, case-insensitive letters) come from a table the Python side
 *      builds with the `regex` module itself, so both paths use the same Unicode data.
 *   2. BPE over each piece's UTF-8 bytes: the adjacent pair with the lowest rank merges first,
 *      the leftmost on equal ranks; a scan for short pieces, a heap over a linked list for long
 *      ones (O(n log n)).
 *   3. A bounded cache of pieces already encoded, and the assembly of the result lists
 *      (ids, token strings, offsets in characters, word ids) without a Python loop.
 *
 * Every call holds the GIL, so one Encoder may be shared by threads.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define N_CODEPOINTS 0x110000
/* Class table bits (see tokenizer_core/kernel.py, which builds it). */
#define C_L 1u  /* \p{L} */
#define C_N 2u  /* \p{N} */
#define C_S 4u  /* \s    */
/* Bits 3..6: 1 + the index in "sdmtlver" of the letter the character matches case-insensitively.
 * Bit 7: \w (C_W, for the word splitters of training). */

enum { PAT_GPT2 = 0, PAT_CL100K = 1 };

/* ------------------------------------------------------------------ growable arrays */

typedef struct {
    int32_t *id;
    int64_t *start; /* byte offsets relative to the piece (scratch) or chars (output) */
    int64_t *end;
    Py_ssize_t n, cap;
} TokBuf;

static int tokbuf_reserve(TokBuf *b, Py_ssize_t more) {
    if (b->n + more <= b->cap) return 0;
    Py_ssize_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + more) cap *= 2;
    int32_t *id = PyMem_Realloc(b->id, cap * sizeof(int32_t));
    if (!id) { PyErr_NoMemory(); return -1; }
    b->id = id;
    int64_t *s = PyMem_Realloc(b->start, cap * sizeof(int64_t));
    if (!s) { PyErr_NoMemory(); return -1; }
    b->start = s;
    int64_t *e = PyMem_Realloc(b->end, cap * sizeof(int64_t));
    if (!e) { PyErr_NoMemory(); return -1; }
    b->end = e;
    b->cap = cap;
    return 0;
}

static void tokbuf_free(TokBuf *b) {
    PyMem_Free(b->id);
    PyMem_Free(b->start);
    PyMem_Free(b->end);
    memset(b, 0, sizeof(*b));
}

/* ------------------------------------------------------------------ hashing */

static inline uint64_t mix64(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static uint64_t hash_bytes(const unsigned char *p, Py_ssize_t n) {
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ (uint64_t)n;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = mix64(h ^ w);
        p += 8;
        n -= 8;
    }
    uint64_t w = 0;
    memcpy(&w, p, (size_t)n);
    return mix64(h ^ w ^ ((uint64_t)n << 56));
}

/* Pair table: (left id, right id) -> (rank, merged id), open addressing. */
typedef struct {
    uint64_t *keys; /* (left << 32 | right) + 1; 0 = empty */
    uint32_t *rank;
    int32_t *merged;
    size_t mask;
    size_t count;
} PairTable;

static int pairs_init(PairTable *t, size_t expected) {
    size_t cap = 16;
    while (cap < expected * 2 + 16) cap <<= 1;
    t->keys = PyMem_Calloc(cap, sizeof(uint64_t));
    t->rank = PyMem_Malloc(cap * sizeof(uint32_t));
    t->merged = PyMem_Malloc(cap * sizeof(int32_t));
    if (!t->keys || !t->rank || !t->merged) { PyErr_NoMemory(); return -1; }
    t->mask = cap - 1;
    t->count = 0;
    return 0;
}

static void pairs_free(PairTable *t) {
    PyMem_Free(t->keys);
    PyMem_Free(t->rank);
    PyMem_Free(t->merged);
    memset(t, 0, sizeof(*t));
}

static inline uint64_t pair_key(int32_t l, int32_t r) {
    return (((uint64_t)(uint32_t)l << 32) | (uint32_t)r) + 1;
}

/* Keep the first (lowest) rank of a pair, as the Python merge table does. */
static void pairs_put(PairTable *t, int32_t l, int32_t r, uint32_t rank, int32_t merged) {
    uint64_t k = pair_key(l, r);
    size_t i = mix64(k) & t->mask;
    while (t->keys[i]) {
        if (t->keys[i] == k) return;
        i = (i + 1) & t->mask;
    }
    t->keys[i] = k;
    t->rank[i] = rank;
    t->merged[i] = merged;
    t->count++;
}

static inline int pairs_get(const PairTable *t, int32_t l, int32_t r, uint32_t *rank, int32_t *merged) {
    uint64_t k = pair_key(l, r);
    size_t i = mix64(k) & t->mask;
    while (t->keys[i]) {
        if (t->keys[i] == k) {
            *rank = t->rank[i];
            *merged = t->merged[i];
            return 1;
        }
        i = (i + 1) & t->mask;
    }
    return 0;
}

/* Byte-string table: bytes -> value (a vocabulary id, or a cache slot). Keys live in an arena. */
typedef struct {
    uint64_t *hash;   /* 0 = empty */
    int64_t *off;     /* key offset in the arena */
    int32_t *len;
    int64_t *value;
    size_t mask, count;
    unsigned char *arena;
    size_t arena_len, arena_cap;
} BytesTable;

static int btab_init(BytesTable *t, size_t expected) {
    size_t cap = 16;
    while (cap < expected * 2 + 16) cap <<= 1;
    t->hash = PyMem_Calloc(cap, sizeof(uint64_t));
    t->off = PyMem_Malloc(cap * sizeof(int64_t));
    t->len = PyMem_Malloc(cap * sizeof(int32_t));
    t->value = PyMem_Malloc(cap * sizeof(int64_t));
    if (!t->hash || !t->off || !t->len || !t->value) { PyErr_NoMemory(); return -1; }
    t->mask = cap - 1;
    t->count = 0;
    t->arena = NULL;
    t->arena_len = t->arena_cap = 0;
    return 0;
}

static void btab_free(BytesTable *t) {
    PyMem_Free(t->hash);
    PyMem_Free(t->off);
    PyMem_Free(t->len);
    PyMem_Free(t->value);
    PyMem_Free(t->arena);
    memset(t, 0, sizeof(*t));
}

static inline uint64_t nonzero(uint64_t h) { return h ? h : 1; }

static int btab_find(const BytesTable *t, const unsigned char *p, Py_ssize_t n, int64_t *value) {
    uint64_t h = nonzero(hash_bytes(p, n));
    size_t i = h & t->mask;
    while (t->hash[i]) {
        if (t->hash[i] == h && t->len[i] == n && memcmp(t->arena + t->off[i], p, (size_t)n) == 0) {
            *value = t->value[i];
            return 1;
        }
        i = (i + 1) & t->mask;
    }
    return 0;
}

static int btab_grow(BytesTable *t) {
    BytesTable bigger;
    size_t cap = (t->mask + 1) * 2;
    bigger.hash = PyMem_Calloc(cap, sizeof(uint64_t));
    bigger.off = PyMem_Malloc(cap * sizeof(int64_t));
    bigger.len = PyMem_Malloc(cap * sizeof(int32_t));
    bigger.value = PyMem_Malloc(cap * sizeof(int64_t));
    if (!bigger.hash || !bigger.off || !bigger.len || !bigger.value) {
        PyMem_Free(bigger.hash); PyMem_Free(bigger.off); PyMem_Free(bigger.len); PyMem_Free(bigger.value);
        PyErr_NoMemory();
        return -1;
    }
    bigger.mask = cap - 1;
    for (size_t i = 0; i <= t->mask; i++) {
        if (!t->hash[i]) continue;
        size_t j = t->hash[i] & bigger.mask;
        while (bigger.hash[j]) j = (j + 1) & bigger.mask;
        bigger.hash[j] = t->hash[i];
        bigger.off[j] = t->off[i];
        bigger.len[j] = t->len[i];
        bigger.value[j] = t->value[i];
    }
    PyMem_Free(t->hash); PyMem_Free(t->off); PyMem_Free(t->len); PyMem_Free(t->value);
    t->hash = bigger.hash; t->off = bigger.off; t->len = bigger.len; t->value = bigger.value;
    t->mask = bigger.mask;
    return 0;
}

/* Insert a key known to be absent. */
static int btab_put(BytesTable *t, const unsigned char *p, Py_ssize_t n, int64_t value) {
    if ((t->count + 1) * 2 > t->mask + 1 && btab_grow(t) < 0) return -1;
    if (t->arena_len + (size_t)n > t->arena_cap) {
        size_t cap = t->arena_cap ? t->arena_cap : 4096;
        while (cap < t->arena_len + (size_t)n) cap *= 2;
        unsigned char *a = PyMem_Realloc(t->arena, cap);
        if (!a) { PyErr_NoMemory(); return -1; }
        t->arena = a;
        t->arena_cap = cap;
    }
    memcpy(t->arena + t->arena_len, p, (size_t)n);
    uint64_t h = nonzero(hash_bytes(p, n));
    size_t i = h & t->mask;
    while (t->hash[i]) i = (i + 1) & t->mask;
    t->hash[i] = h;
    t->off[i] = (int64_t)t->arena_len;
    t->len[i] = (int32_t)n;
    t->value[i] = value;
    t->count++;
    t->arena_len += (size_t)n;
    return 0;
}

/* ------------------------------------------------------------------ the Encoder object */

typedef struct {
    PyObject_HEAD
    PyObject *classes_obj;      /* bytes, N_CODEPOINTS long */
    const unsigned char *cls;
    int pattern;
    int ignore_merges;
    int32_t byte_id[256];
    PairTable pairs;
    BytesTable vocab;           /* token bytes -> id (for ignore_merges) */
    PyObject *token_strs;       /* list: id -> str */
    PyObject *id_objs;          /* list: id -> int */
    /* The piece cache: piece bytes -> (offset, count) into the pool of (id, byte end) pairs. */
    BytesTable cache;
    int32_t *pool_id;
    int32_t *pool_end;
    size_t pool_len, pool_cap;
    size_t cache_limit;
    /* Scratch for one piece. */
    TokBuf piece;
    /* Scratch for long pieces. */
    int32_t *sym, *nxt, *prv;
    int64_t *pend;
    size_t scratch_cap;
    /* UTF-8 of the current piece (non-ASCII texts). */
    unsigned char *u8;
    size_t u8_cap;
} Encoder;

static inline unsigned cls_of(const Encoder *e, Py_UCS4 c) { return e->cls[c]; }


/* ------------------------------------------------------------------ pre-tokenization */

typedef struct {
    int kind;
    const void *data;
    Py_ssize_t len;
} Text;

#define AT(t, i) PyUnicode_READ((t)->kind, (t)->data, (i))

static inline Py_ssize_t run_of(const Encoder *e, const Text *t, Py_ssize_t i, unsigned bit) {
    while (i < t->len && (cls_of(e, AT(t, i)) & bit)) i++;
    return i;
}

/* Characters that are none of \s, \p{L}, \p{N}. */
static inline int is_other(unsigned c) { return (c & (C_L | C_N | C_S)) == 0; }

static inline Py_ssize_t run_of_other(const Encoder *e, const Text *t, Py_ssize_t i) {
    while (i < t->len && is_other(cls_of(e, AT(t, i)))) i++;
    return i;
}

/* 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+ */
static Py_ssize_t next_gpt2(const Encoder *e, const Text *t, Py_ssize_t i) {
    Py_UCS4 c = AT(t, i);
    Py_ssize_t n = t->len;
    if (c == '\'' && i + 1 < n) {
        Py_UCS4 d = AT(t, i + 1);
        if (d == 's' || d == 't' || d == 'm' || d == 'd') return i + 2;
        if (i + 2 < n) {
            Py_UCS4 f = AT(t, i + 2);
            if ((d == 'r' && f == 'e') || (d == 'v' && f == 'e') || (d == 'l' && f == 'l')) return i + 3;
        }
    }
    unsigned k = cls_of(e, c);
    Py_ssize_t j = i;
    if (c == ' ' && i + 1 < n) {
        unsigned k2 = cls_of(e, AT(t, i + 1));
        if (k2 & C_L) return run_of(e, t, i + 1, C_L);
        if (k2 & C_N) return run_of(e, t, i + 1, C_N);
        if (is_other(k2)) return run_of_other(e, t, i + 1);
    }
    if (k & C_L) return run_of(e, t, i, C_L);
    if (k & C_N) return run_of(e, t, i, C_N);
    if (is_other(k)) return run_of_other(e, t, i);
    /* Whitespace: \s+(?!\S) keeps the last space for the next piece, unless the run ends the text. */
    j = run_of(e, t, i, C_S);
    if (j == n || j - i == 1) return j;
    return j - 1;
}

static inline int ci_letter(const Encoder *e, const Text *t, Py_ssize_t i, char want) {
    static const char letters[] = "sdmtlver";
    unsigned code = (cls_of(e, AT(t, i)) >> 3) & 15;
    return code && letters[code - 1] == want;
}

static inline int is_crlf(Py_UCS4 c) { return c == '\r' || c == '\n'; }

/* '(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+
 * |\s++$|\s*[\r\n]|\s+(?!\S)|\s */
static Py_ssize_t next_cl100k(const Encoder *e, const Text *t, Py_ssize_t i) {
    Py_UCS4 c = AT(t, i);
    Py_ssize_t n = t->len;
    if (c == '\'' && i + 1 < n) {
        if (ci_letter(e, t, i + 1, 's') || ci_letter(e, t, i + 1, 'd') || ci_letter(e, t, i + 1, 'm') ||
            ci_letter(e, t, i + 1, 't'))
            return i + 2;
        if (i + 2 < n &&
            ((ci_letter(e, t, i + 1, 'l') && ci_letter(e, t, i + 2, 'l')) ||
             (ci_letter(e, t, i + 1, 'v') && ci_letter(e, t, i + 2, 'e')) ||
             (ci_letter(e, t, i + 1, 'r') && ci_letter(e, t, i + 2, 'e'))))
            return i + 3;
    }
    unsigned k = cls_of(e, c);
    if (k & C_L) return run_of(e, t, i, C_L);
    if (!(k & C_N) && !is_crlf(c) && i + 1 < n && (cls_of(e, AT(t, i + 1)) & C_L))
        return run_of(e, t, i + 1, C_L);
    if (k & C_N) {
        Py_ssize_t j = i + 1;
        while (j < n && j < i + 3 && (cls_of(e, AT(t, j)) & C_N)) j++;
        return j;
    }
    Py_ssize_t o = -1; /* start of the run of "other" characters, if the 4th alternative applies */
    if (c == ' ' && i + 1 < n && is_other(cls_of(e, AT(t, i + 1)))) o = i + 1;
    else if (is_other(k)) o = i;
    if (o >= 0) {
        Py_ssize_t j = run_of_other(e, t, o);
        while (j < n && is_crlf(AT(t, j))) j++;
        return j;
    }
    /* c is whitespace. */
    Py_ssize_t j = run_of(e, t, i, C_S);
    if (j == n) return j;                      /* \s++$ */
    for (Py_ssize_t m = j - 1; m >= i; m--)    /* \s*[\r\n]: up to the run's last line break */
        if (is_crlf(AT(t, m))) return m + 1;
    if (j - i >= 2) return j - 1;              /* \s+(?!\S) */
    return i + 1;                              /* \s */
}

static inline Py_ssize_t next_piece(const Encoder *e, const Text *t, Py_ssize_t i) {
    return e->pattern == PAT_GPT2 ? next_gpt2(e, t, i) : next_cl100k(e, t, i);
}

/* ------------------------------------------------------------------ BPE on one piece */

static int scratch_reserve(Encoder *e, size_t n) {
    if (n <= e->scratch_cap) return 0;
    size_t cap = e->scratch_cap ? e->scratch_cap : 64;
    while (cap < n) cap *= 2;
    int32_t *a = PyMem_Realloc(e->sym, cap * sizeof(int32_t));
    if (!a) goto fail;
    e->sym = a;
    a = PyMem_Realloc(e->nxt, cap * sizeof(int32_t));
    if (!a) goto fail;
    e->nxt = a;
    a = PyMem_Realloc(e->prv, cap * sizeof(int32_t));
    if (!a) goto fail;
    e->prv = a;
    int64_t *b = PyMem_Realloc(e->pend, cap * sizeof(int64_t));
    if (!b) goto fail;
    e->pend = b;
    e->scratch_cap = cap;
    return 0;
fail:
    PyErr_NoMemory();
    return -1;
}

#define SCAN_LIMIT 48 /* pieces up to this many bytes merge by repeated minimum search */

/* Merge by repeated minimum search: (ids, ends) edited in place; returns the new length. */
static Py_ssize_t merge_scan(const Encoder *e, int32_t *ids, int64_t *ends, Py_ssize_t n) {
    uint32_t rank[SCAN_LIMIT];
    int32_t merged[SCAN_LIMIT];
    const uint32_t NONE = UINT32_MAX;
    for (Py_ssize_t i = 0; i + 1 < n; i++)
        if (!pairs_get(&e->pairs, ids[i], ids[i + 1], &rank[i], &merged[i])) rank[i] = NONE;
    while (n > 1) {
        Py_ssize_t best = -1;
        uint32_t br = NONE;
        for (Py_ssize_t i = 0; i + 1 < n; i++)
            if (rank[i] < br) { br = rank[i]; best = i; }
        if (best < 0) break;
        Py_ssize_t i = best;
        ids[i] = merged[i];
        ends[i] = ends[i + 1];
        /* Remove symbol i+1 and pair i (pair i+1 becomes pair i). */
        memmove(ids + i + 1, ids + i + 2, (n - i - 2) * sizeof(int32_t));
        memmove(ends + i + 1, ends + i + 2, (n - i - 2) * sizeof(int64_t));
        memmove(rank + i, rank + i + 1, (n - i - 2) * sizeof(uint32_t));
        memmove(merged + i, merged + i + 1, (n - i - 2) * sizeof(int32_t));
        n--;
        if (i > 0 && !pairs_get(&e->pairs, ids[i - 1], ids[i], &rank[i - 1], &merged[i - 1])) rank[i - 1] = NONE;
        if (i + 1 < n && !pairs_get(&e->pairs, ids[i], ids[i + 1], &rank[i], &merged[i])) rank[i] = NONE;
    }
    return n;
}

/* Heap entries ordered by (rank, position). */
typedef struct { uint32_t rank; int32_t pos, left, right, merged; } HeapItem;

static inline int heap_less(const HeapItem *a, const HeapItem *b) {
    return a->rank < b->rank || (a->rank == b->rank && a->pos < b->pos);
}

static void heap_push(HeapItem *h, size_t *n, HeapItem x) {
    size_t i = (*n)++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!heap_less(&x, &h[p])) break;
        h[i] = h[p];
        i = p;
    }
    h[i] = x;
}

static HeapItem heap_pop(HeapItem *h, size_t *n) {
    HeapItem top = h[0];
    HeapItem x = h[--(*n)];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1;
        if (l >= *n) break;
        size_t r = l + 1, m = (r < *n && heap_less(&h[r], &h[l])) ? r : l;
        if (!heap_less(&h[m], &x)) break;
        h[i] = h[m];
        i = m;
    }
    if (*n) h[i] = x;
    return top;
}

/* Merge a long piece with a heap over a linked list; returns the new length. */
static Py_ssize_t merge_heap(Encoder *e, int32_t *ids, int64_t *ends, Py_ssize_t n) {
    if (scratch_reserve(e, (size_t)n) < 0) return -1;
    int32_t *sym = e->sym, *nxt = e->nxt, *prv = e->prv;
    int64_t *pend = e->pend;
    /* At most n-1 initial entries and two per merge (n-1 merges). */
    size_t hcap = 3 * (size_t)n + 4, hn = 0;
    HeapItem *heap = PyMem_Malloc(hcap * sizeof(HeapItem));
    if (!heap) { PyErr_NoMemory(); return -1; }
    for (Py_ssize_t i = 0; i < n; i++) {
        sym[i] = ids[i];
        pend[i] = ends[i];
        nxt[i] = (int32_t)(i + 1 < n ? i + 1 : -1);
        prv[i] = (int32_t)(i - 1);
    }
    HeapItem it;
    for (Py_ssize_t i = 0; i + 1 < n; i++) {
        if (pairs_get(&e->pairs, sym[i], sym[i + 1], &it.rank, &it.merged)) {
            it.pos = (int32_t)i; it.left = sym[i]; it.right = sym[i + 1];
            heap_push(heap, &hn, it);
        }
    }
    while (hn) {
        HeapItem x = heap_pop(heap, &hn);
        int32_t i = x.pos;
        /* A symbol only grows, so an entry whose ids still match is current. */
        if (sym[i] != x.left) continue;
        int32_t j = nxt[i];
        if (j < 0 || sym[j] != x.right) continue;
        sym[i] = x.merged;
        sym[j] = -1;
        pend[i] = pend[j];
        int32_t k = nxt[j];
        nxt[i] = k;
        if (k >= 0) prv[k] = i;
        int32_t p = prv[i];
        if (p >= 0 && pairs_get(&e->pairs, sym[p], sym[i], &it.rank, &it.merged)) {
            it.pos = p; it.left = sym[p]; it.right = sym[i];
            heap_push(heap, &hn, it);
        }
        if (k >= 0 && pairs_get(&e->pairs, sym[i], sym[k], &it.rank, &it.merged)) {
            it.pos = i; it.left = sym[i]; it.right = sym[k];
            heap_push(heap, &hn, it);
        }
    }
    PyMem_Free(heap);
    Py_ssize_t m = 0;
    for (Py_ssize_t i = 0; i >= 0 && i < n; i = nxt[i]) {
        ids[m] = sym[i];
        ends[m] = pend[i];
        m++;
    }
    return m;
}

#define CACHE_MAX_PIECE 256 /* longer pieces are encoded every time (they rarely repeat) */

/* Tokens of one piece into e->piece: ids and byte ends relative to the piece. */
static int encode_piece(Encoder *e, const unsigned char *p, Py_ssize_t n) {
    TokBuf *b = &e->piece;
    b->n = 0;
    int64_t hit;
    if (n <= CACHE_MAX_PIECE && e->cache.count && btab_find(&e->cache, p, n, &hit)) {
        Py_ssize_t off = (Py_ssize_t)(hit >> 8), cnt = (Py_ssize_t)(hit & 0xff);
        if (tokbuf_reserve(b, cnt) < 0) return -1;
        for (Py_ssize_t k = 0; k < cnt; k++) {
            b->id[k] = e->pool_id[off + k];
            b->end[k] = e->pool_end[off + k];
        }
        b->n = cnt;
        return 0;
    }
    if (tokbuf_reserve(b, n) < 0) return -1;
    int64_t whole;
    if (e->ignore_merges && btab_find(&e->vocab, p, n, &whole)) {
        b->id[0] = (int32_t)whole;
        b->end[0] = n;
        b->n = 1;
    } else {
        for (Py_ssize_t k = 0; k < n; k++) {
            b->id[k] = e->byte_id[p[k]];
            b->end[k] = k + 1;
        }
        Py_ssize_t m = n <= SCAN_LIMIT ? merge_scan(e, b->id, b->end, n) : merge_heap(e, b->id, b->end, n);
        if (m < 0) return -1;
        b->n = m;
    }
    if (n <= CACHE_MAX_PIECE && e->cache.count < e->cache_limit) {
        if (e->pool_len + (size_t)b->n > e->pool_cap) {
            size_t cap = e->pool_cap ? e->pool_cap * 2 : 4096;
            while (cap < e->pool_len + (size_t)b->n) cap *= 2;
            int32_t *a = PyMem_Realloc(e->pool_id, cap * sizeof(int32_t));
            if (!a) { PyErr_NoMemory(); return -1; }
            e->pool_id = a;
            a = PyMem_Realloc(e->pool_end, cap * sizeof(int32_t));
            if (!a) { PyErr_NoMemory(); return -1; }
            e->pool_end = a;
            e->pool_cap = cap;
        }
        for (Py_ssize_t k = 0; k < b->n; k++) {
            e->pool_id[e->pool_len + k] = b->id[k];
            e->pool_end[e->pool_len + k] = (int32_t)b->end[k];
        }
        /* n <= 256 bytes gives at most 256 tokens: the count fits the low byte when below 256;
         * a piece of exactly 256 one-byte tokens is simply not cached. */
        if (b->n < 256) {
            if (btab_put(&e->cache, p, n, ((int64_t)e->pool_len << 8) | b->n) < 0) return -1;
            e->pool_len += (size_t)b->n;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ encoding a text */

typedef struct {
    TokBuf out;          /* ids, character starts and ends */
    int64_t *word;       /* piece index of each token */
    Py_ssize_t word_cap;
    Py_ssize_t pieces;
} Result;

static int result_reserve(Result *r, Py_ssize_t more) {
    if (tokbuf_reserve(&r->out, more) < 0) return -1;
    if (r->out.cap > r->word_cap) {
        int64_t *w = PyMem_Realloc(r->word, r->out.cap * sizeof(int64_t));
        if (!w) { PyErr_NoMemory(); return -1; }
        r->word = w;
        r->word_cap = r->out.cap;
    }
    return 0;
}

static void result_free(Result *r) {
    tokbuf_free(&r->out);
    PyMem_Free(r->word);
    memset(r, 0, sizeof(*r));
}

/* The UTF-8 bytes of text[i:j] in e->u8 (the Python path encodes each piece the same way). */
static const unsigned char *piece_utf8(Encoder *e, PyObject *text, const Text *t, Py_ssize_t i, Py_ssize_t j,
                                       Py_ssize_t *nbytes) {
    size_t need = (size_t)(j - i) * 4;
    if (need > e->u8_cap) {
        size_t cap = e->u8_cap ? e->u8_cap : 1024;
        while (cap < need) cap *= 2;
        unsigned char *b = PyMem_Realloc(e->u8, cap);
        if (!b) { PyErr_NoMemory(); return NULL; }
        e->u8 = b;
        e->u8_cap = cap;
    }
    unsigned char *o = e->u8;
    for (Py_ssize_t k = i; k < j; k++) {
        Py_UCS4 c = AT(t, k);
        if (c < 0x80) *o++ = (unsigned char)c;
        else if (c < 0x800) { *o++ = 0xC0 | (c >> 6); *o++ = 0x80 | (c & 0x3F); }
        else if (c < 0x10000) {
            if (c >= 0xD800 && c <= 0xDFFF) {
                /* A lone surrogate has no UTF-8: raise the codec's own UnicodeEncodeError, which
                 * the pipeline answers by reading it as U+FFFD (as the Python path does). */
                PyObject *b = PyUnicode_AsUTF8String(text);
                Py_XDECREF(b);
                if (!PyErr_Occurred()) PyErr_SetString(PyExc_UnicodeError, "lone surrogate");
                return NULL;
            }
            *o++ = 0xE0 | (c >> 12); *o++ = 0x80 | ((c >> 6) & 0x3F); *o++ = 0x80 | (c & 0x3F);
        } else {
            *o++ = 0xF0 | (c >> 18); *o++ = 0x80 | ((c >> 12) & 0x3F);
            *o++ = 0x80 | ((c >> 6) & 0x3F); *o++ = 0x80 | (c & 0x3F);
        }
    }
    *nbytes = o - e->u8;
    return e->u8;
}

/* Encode all of `text`: tokens with character offsets from `base`, pieces numbered from `first_word`. */
static int encode_text(Encoder *e, PyObject *text, Py_ssize_t base, int64_t first_word, Result *r) {
    Text t = {PyUnicode_KIND(text), PyUnicode_DATA(text), PyUnicode_GET_LENGTH(text)};
    int ascii = PyUnicode_IS_ASCII(text);
    int64_t word = first_word;
    int64_t charpos[CACHE_MAX_PIECE + 1];
    for (Py_ssize_t i = 0; i < t.len;) {
        Py_ssize_t j = next_piece(e, &t, i), nb = j - i;
        const unsigned char *bytes = ascii ? (const unsigned char *)t.data + i : piece_utf8(e, text, &t, i, j, &nb);
        if (!bytes || encode_piece(e, bytes, nb) < 0) return -1;
        TokBuf *pb = &e->piece;
        if (result_reserve(r, pb->n) < 0) return -1;
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
            /* The character of each byte: a token starts at its first byte's character and ends
             * after its last byte's character (a token may hold part of a character). */
            int64_t *cp = charpos, *heap_cp = NULL;
            if (nb > CACHE_MAX_PIECE) {
                heap_cp = PyMem_Malloc((size_t)nb * sizeof(int64_t));
                if (!heap_cp) { PyErr_NoMemory(); return -1; }
                cp = heap_cp;
            }
            int64_t ch = -1;
            for (Py_ssize_t k = 0; k < nb; k++) {
                if ((bytes[k] & 0xC0) != 0x80) ch++;
                cp[k] = ch;
            }
            int64_t prev = 0;
            for (Py_ssize_t k = 0; k < pb->n; k++) {
                r->out.id[o + k] = pb->id[k];
                r->out.start[o + k] = cs + cp[prev];
                r->out.end[o + k] = cs + cp[pb->end[k] - 1] + 1;
                r->word[o + k] = word;
                prev = pb->end[k];
            }
            PyMem_Free(heap_cp);
        }
        r->out.n += pb->n;
        word++;
        i = j;
    }
    r->pieces = word - first_word;
    return 0;
}

/* ------------------------------------------------------------------ Python API */

static PyObject *ids_list(Encoder *e, const Result *r) {
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

static int check_text(PyObject *text) {
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "text must be str, not %.100s", Py_TYPE(text)->tp_name);
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(encode_ids_doc, "encode_ids(text) -> list[int]: the token ids of the whole text.");

static PyObject *Encoder_encode_ids(Encoder *e, PyObject *text) {
    if (check_text(text) < 0) return NULL;
    Result r = {0};
    if (encode_text(e, text, 0, 0, &r) < 0) { result_free(&r); return NULL; }
    PyObject *ids = ids_list(e, &r);
    result_free(&r);
    return ids;
}

/* (ids, tokens, offsets, word_ids, pieces) of an encoded text, as Python lists. */
static PyObject *result_lists(Encoder *e, const Result *r) {
    Py_ssize_t n = r->out.n, nv = PyList_GET_SIZE(e->token_strs);
    PyObject *ids = NULL, *toks = NULL, *offs = NULL, *words = NULL;
    if (!(ids = ids_list(e, r))) return NULL;
    if (!(toks = PyList_New(n)) || !(offs = PyList_New(n)) || !(words = PyList_New(n))) goto fail;
    PyObject *last_end = NULL, *word_obj = NULL;
    int64_t last_end_value = -1, word_value = -1;
    for (Py_ssize_t k = 0; k < n; k++) {
        int32_t id = r->out.id[k];
        PyObject *s = (id >= 0 && id < nv) ? PyList_GET_ITEM(e->token_strs, id) : Py_None;
        Py_INCREF(s);
        PyList_SET_ITEM(toks, k, s);
        /* A token usually starts where the previous one ended: share that int object. */
        PyObject *a;
        if (r->out.start[k] == last_end_value) {
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
        if (r->word[k] != word_value) {
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

PyDoc_STRVAR(encode_doc,
"encode(text, base, first_word) -> (ids, tokens, offsets, word_ids, pieces)\n\n"
"Token ids, token strings, (start, end) character offsets (plus base), the piece index of each\n"
"token (from first_word) and the number of pieces.");

static PyObject *Encoder_encode(Encoder *e, PyObject *args) {
    PyObject *text;
    Py_ssize_t base;
    long long first_word;
    if (!PyArg_ParseTuple(args, "UnL", &text, &base, &first_word)) return NULL;
    Result r = {0};
    PyObject *out = NULL;
    if (encode_text(e, text, base, first_word, &r) == 0) {
        /* Millions of new objects, none of which can form a cycle: no collections while they are made. */
        int gc_was_on = PyGC_Disable();
        out = result_lists(e, &r);
        if (gc_was_on) PyGC_Enable();
    }
    result_free(&r);
    return out;
}

/* A list of n references to one object. */
static PyObject *repeated(PyObject *o, Py_ssize_t n) {
    PyObject *l = PyList_New(n);
    if (!l) return NULL;
    for (Py_ssize_t k = 0; k < n; k++) {
        Py_INCREF(o);
        PyList_SET_ITEM(l, k, o);
    }
    return l;
}

PyDoc_STRVAR(encode_batch_doc,
"encode_batch(texts, sequence_id) -> one row per text:\n"
"(ids, tokens, offsets, type_ids, attention_mask, special_tokens_mask, word_ids, sequence_ids),\n"
"the fields of an Encoding in order (type and sequence ids are sequence_id).\n\n"
"The lists hold only ints, strs and tuples of ints, so they can be in no reference cycle; they\n"
"are left out of the cyclic GC, which would otherwise walk every token of a large batch again\n"
"at each collection.");

static PyObject *Encoder_encode_batch(Encoder *e, PyObject *args) {
    PyObject *texts, *seq_obj;
    if (!PyArg_ParseTuple(args, "OO!", &texts, &PyLong_Type, &seq_obj)) return NULL;
    PyObject *seq = PySequence_Fast(texts, "encode_batch takes a sequence of str");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject *out = PyList_New(n);
    if (!out) { Py_DECREF(seq); return NULL; }
    PyObject *zero = PyLong_FromLong(0), *one = PyLong_FromLong(1);
    int gc_was_on = PyGC_Disable();
    Result r = {0};
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *text = PySequence_Fast_GET_ITEM(seq, k);
        if (check_text(text) < 0) goto fail;
        r.out.n = 0;
        if (encode_text(e, text, 0, 0, &r) < 0) goto fail;
        PyObject *lists = result_lists(e, &r);
        if (!lists) goto fail;
        Py_ssize_t m = r.out.n;
        PyObject *row = PyTuple_New(8);
        if (!row) { Py_DECREF(lists); goto fail; }
        for (int f = 0; f < 3; f++) {          /* ids, tokens, offsets */
            PyObject *l = PyTuple_GET_ITEM(lists, f);
            Py_INCREF(l);
            PyTuple_SET_ITEM(row, f, l);
        }
        PyObject *w = PyTuple_GET_ITEM(lists, 3);
        Py_INCREF(w);
        PyTuple_SET_ITEM(row, 6, w);           /* word_ids */
        Py_DECREF(lists);
        PyObject *type_ids = repeated(seq_obj, m), *mask = repeated(one, m), *special = repeated(zero, m),
                 *seq_ids = repeated(seq_obj, m);
        if (type_ids) PyTuple_SET_ITEM(row, 3, type_ids);
        if (mask) PyTuple_SET_ITEM(row, 4, mask);
        if (special) PyTuple_SET_ITEM(row, 5, special);
        if (seq_ids) PyTuple_SET_ITEM(row, 7, seq_ids);
        if (!type_ids || !mask || !special || !seq_ids) { Py_DECREF(row); goto fail; }
        for (int f = 0; f < 8; f++) PyObject_GC_UnTrack(PyTuple_GET_ITEM(row, f));
        PyObject_GC_UnTrack(row);
        PyList_SET_ITEM(out, k, row);
    }
    result_free(&r);
    if (gc_was_on) PyGC_Enable();
    Py_DECREF(zero);
    Py_DECREF(one);
    Py_DECREF(seq);
    return out;
fail:
    result_free(&r);
    if (gc_was_on) PyGC_Enable();
    Py_XDECREF(zero);
    Py_XDECREF(one);
    Py_DECREF(seq);
    Py_DECREF(out);
    return NULL;
}

PyDoc_STRVAR(split_doc, "split(text) -> list[str]: the pieces of the split pattern, in order.");

static PyObject *Encoder_split(Encoder *e, PyObject *text) {
    if (check_text(text) < 0) return NULL;
    Text t = {PyUnicode_KIND(text), PyUnicode_DATA(text), PyUnicode_GET_LENGTH(text)};
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    for (Py_ssize_t i = 0; i < t.len;) {
        Py_ssize_t j = next_piece(e, &t, i);
        PyObject *s = PyUnicode_Substring(text, i, j);
        if (!s || PyList_Append(out, s) < 0) { Py_XDECREF(s); Py_DECREF(out); return NULL; }
        Py_DECREF(s);
        i = j;
    }
    return out;
}

PyDoc_STRVAR(encode_piece_doc, "encode_piece(data: bytes) -> list[int]: BPE token ids of one piece's bytes (no cache).");

static PyObject *Encoder_encode_piece(Encoder *e, PyObject *data) {
    if (!PyBytes_Check(data)) {
        PyErr_SetString(PyExc_TypeError, "encode_piece takes bytes");
        return NULL;
    }
    size_t saved = e->cache_limit;
    BytesTable empty = e->cache;
    e->cache_limit = 0; /* neither read nor fill the cache */
    e->cache.count = 0;
    int rc = encode_piece(e, (const unsigned char *)PyBytes_AS_STRING(data), PyBytes_GET_SIZE(data));
    e->cache_limit = saved;
    e->cache.count = empty.count;
    if (rc < 0) return NULL;
    PyObject *out = PyList_New(e->piece.n);
    if (!out) return NULL;
    for (Py_ssize_t k = 0; k < e->piece.n; k++) {
        PyObject *o = PyLong_FromLong(e->piece.id[k]);
        if (!o) { Py_DECREF(out); return NULL; }
        PyList_SET_ITEM(out, k, o);
    }
    return out;
}

PyDoc_STRVAR(cache_size_doc, "cache_size() -> int: the number of pieces remembered.");

static PyObject *Encoder_cache_size(Encoder *e, PyObject *Py_UNUSED(ignored)) {
    return PyLong_FromSize_t(e->cache.count);
}

PyDoc_STRVAR(clear_cache_doc, "clear_cache(): forget every remembered piece.");

static PyObject *Encoder_clear_cache(Encoder *e, PyObject *Py_UNUSED(ignored)) {
    memset(e->cache.hash, 0, (e->cache.mask + 1) * sizeof(uint64_t));
    e->cache.count = 0;
    e->cache.arena_len = 0;
    e->pool_len = 0;
    Py_RETURN_NONE;
}

static PyMethodDef Encoder_methods[] = {
    {"encode", (PyCFunction)Encoder_encode, METH_VARARGS, encode_doc},
    {"encode_batch", (PyCFunction)Encoder_encode_batch, METH_VARARGS, encode_batch_doc},
    {"encode_ids", (PyCFunction)Encoder_encode_ids, METH_O, encode_ids_doc},
    {"split", (PyCFunction)Encoder_split, METH_O, split_doc},
    {"encode_piece", (PyCFunction)Encoder_encode_piece, METH_O, encode_piece_doc},
    {"cache_size", (PyCFunction)Encoder_cache_size, METH_NOARGS, cache_size_doc},
    {"clear_cache", (PyCFunction)Encoder_clear_cache, METH_NOARGS, clear_cache_doc},
    {NULL, NULL, 0, NULL},
};

static void Encoder_dealloc(Encoder *e) {
    Py_XDECREF(e->classes_obj);
    Py_XDECREF(e->token_strs);
    Py_XDECREF(e->id_objs);
    pairs_free(&e->pairs);
    btab_free(&e->vocab);
    btab_free(&e->cache);
    PyMem_Free(e->pool_id);
    PyMem_Free(e->pool_end);
    tokbuf_free(&e->piece);
    PyMem_Free(e->sym);
    PyMem_Free(e->nxt);
    PyMem_Free(e->prv);
    PyMem_Free(e->pend);
    PyMem_Free(e->u8);
    Py_TYPE(e)->tp_free((PyObject *)e);
}

static int read_id(PyObject *o, int32_t *out, const char *what) {
    long v = PyLong_AsLong(o);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (v < 0 || v > INT32_MAX) {
        PyErr_Format(PyExc_ValueError, "%s %ld is outside 0..2**31-1", what, v);
        return -1;
    }
    *out = (int32_t)v;
    return 0;
}

/* Encoder(classes, pattern, byte_ids, merges, token_bytes, token_strs, *, tokens_rank, ignore_merges, cache_limit)
 *   classes: bytes of N_CODEPOINTS class codes; pattern: 0 GPT-2, 1 cl100k;
 *   byte_ids: 256 ids of the byte symbols; merges: list of (left id, right id, merged id) in rank order;
 *   token_bytes: list (by id) of each token's bytes or None; token_strs: list (by id) of token strings;
 *   tokens_rank: derive the pairs from the vocabulary, rank = merged id (tiktoken's rule). */
static int Encoder_init(Encoder *e, PyObject *args, PyObject *kw) {
    static char *names[] = {"classes", "pattern", "byte_ids", "merges", "token_bytes", "token_strs",
                            "tokens_rank", "ignore_merges", "cache_limit", NULL};
    PyObject *classes, *byte_ids, *merges, *token_bytes, *token_strs;
    int pattern, tokens_rank = 0, ignore_merges = 0;
    Py_ssize_t cache_limit = 200000;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "SiOO!O!O!|$ppn", names, &classes, &pattern, &byte_ids,
                                     &PyList_Type, &merges, &PyList_Type, &token_bytes, &PyList_Type,
                                     &token_strs, &tokens_rank, &ignore_merges, &cache_limit))
        return -1;
    if (e->classes_obj) {
        PyErr_SetString(PyExc_RuntimeError, "Encoder is already initialised");
        return -1;
    }
    if (PyBytes_GET_SIZE(classes) != N_CODEPOINTS) {
        PyErr_SetString(PyExc_ValueError, "classes must hold one byte per code point (0x110000)");
        return -1;
    }
    if (pattern != PAT_GPT2 && pattern != PAT_CL100K) {
        PyErr_SetString(PyExc_ValueError, "pattern must be 0 (GPT-2) or 1 (cl100k_base)");
        return -1;
    }
    PyObject *seq = PySequence_Fast(byte_ids, "byte_ids must be a sequence of 256 ids");
    if (!seq) return -1;
    if (PySequence_Fast_GET_SIZE(seq) != 256) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "byte_ids must hold 256 ids");
        return -1;
    }
    for (int b = 0; b < 256; b++)
        if (read_id(PySequence_Fast_GET_ITEM(seq, b), &e->byte_id[b], "byte id") < 0) { Py_DECREF(seq); return -1; }
    Py_DECREF(seq);
    Py_INCREF(classes);
    e->classes_obj = classes;
    e->cls = (const unsigned char *)PyBytes_AS_STRING(classes);
    e->pattern = pattern;
    e->ignore_merges = ignore_merges;
    e->cache_limit = cache_limit < 0 ? 0 : (size_t)cache_limit;
    Py_INCREF(token_strs);
    e->token_strs = token_strs;
    Py_ssize_t nv = PyList_GET_SIZE(token_bytes);
    if (!(e->id_objs = PyList_New(nv))) return -1;
    for (Py_ssize_t k = 0; k < nv; k++) {
        PyObject *o = PyLong_FromSsize_t(k);
        if (!o) return -1;
        PyList_SET_ITEM(e->id_objs, k, o);
    }
    if (btab_init(&e->vocab, (size_t)nv) < 0 || btab_init(&e->cache, 1024) < 0) return -1;
    for (Py_ssize_t k = 0; k < nv; k++) {
        PyObject *b = PyList_GET_ITEM(token_bytes, k);
        if (b == Py_None) continue;
        if (!PyBytes_Check(b)) {
            PyErr_SetString(PyExc_TypeError, "token_bytes must hold bytes or None");
            return -1;
        }
        int64_t old;
        if (btab_find(&e->vocab, (const unsigned char *)PyBytes_AS_STRING(b), PyBytes_GET_SIZE(b), &old)) continue;
        if (btab_put(&e->vocab, (const unsigned char *)PyBytes_AS_STRING(b), PyBytes_GET_SIZE(b), k) < 0) return -1;
    }
    Py_ssize_t nm = PyList_GET_SIZE(merges);
    if (pairs_init(&e->pairs, tokens_rank ? (size_t)nv * 4 : (size_t)nm) < 0) return -1;
    if (tokens_rank) {
        /* Every split of a token into two tokens is a pair; its rank is the token's id. Ids are
         * visited in increasing order so a pair keeps its lowest rank. */
        for (Py_ssize_t k = 0; k < nv; k++) {
            PyObject *b = PyList_GET_ITEM(token_bytes, k);
            if (b == Py_None || PyBytes_GET_SIZE(b) < 2) continue;
            const unsigned char *p = (const unsigned char *)PyBytes_AS_STRING(b);
            Py_ssize_t n = PyBytes_GET_SIZE(b);
            int64_t self;
            if (!btab_find(&e->vocab, p, n, &self) || self != k) continue; /* a duplicate spelling */
            for (Py_ssize_t cut = 1; cut < n; cut++) {
                int64_t l, r;
                if (btab_find(&e->vocab, p, cut, &l) && btab_find(&e->vocab, p + cut, n - cut, &r)) {
                    if ((size_t)(e->pairs.count + 1) * 2 > e->pairs.mask + 1) {
                        PyErr_SetString(PyExc_RuntimeError, "pair table full");
                        return -1;
                    }
                    pairs_put(&e->pairs, (int32_t)l, (int32_t)r, (uint32_t)k, (int32_t)k);
                }
            }
        }
    } else {
        for (Py_ssize_t k = 0; k < nm; k++) {
            PyObject *m = PyList_GET_ITEM(merges, k);
            int32_t l, r, v;
            if (!PyTuple_Check(m) || PyTuple_GET_SIZE(m) != 3) {
                PyErr_SetString(PyExc_TypeError, "merges must hold (left id, right id, merged id) tuples");
                return -1;
            }
            if (read_id(PyTuple_GET_ITEM(m, 0), &l, "merge id") < 0 || read_id(PyTuple_GET_ITEM(m, 1), &r, "merge id") < 0 ||
                read_id(PyTuple_GET_ITEM(m, 2), &v, "merge id") < 0)
                return -1;
            pairs_put(&e->pairs, l, r, (uint32_t)k, v);
        }
    }
    return 0;
}

static PyTypeObject EncoderType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tokenizer_kernel.Encoder",
    .tp_doc = PyDoc_STR("Byte-level BPE over the GPT-2 or cl100k_base split, in bulk (see tokenizer_core/kernel.py)."),
    .tp_basicsize = sizeof(Encoder),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Encoder_init,
    .tp_dealloc = (destructor)Encoder_dealloc,
    .tp_methods = Encoder_methods,
};

/* ------------------------------------------------------------------ counting pieces for training */

#define C_W 128u /* \w */
enum { SPLIT_GPT2 = 0, SPLIT_WHITESPACE = 2, SPLIT_WORDSPLIT = 3, SPLIT_WHITESPACESPLIT = 4 };

/* The next match of a word splitter at or after i: [*s, *e); 0 when there is none. */
static int next_word(const unsigned char *cls, int how, const Text *t, Py_ssize_t i, Py_ssize_t *s, Py_ssize_t *e) {
    Py_ssize_t n = t->len;
    while (i < n && (cls[AT(t, i)] & C_S)) i++; /* every splitter drops whitespace between matches */
    if (i >= n) return 0;
    Py_ssize_t j = i + 1;
    unsigned k = cls[AT(t, i)];
    if (how == SPLIT_WHITESPACESPLIT) {                 /* \S+ */
        while (j < n && !(cls[AT(t, j)] & C_S)) j++;
    } else if (k & C_W) {                               /* \w+ */
        while (j < n && (cls[AT(t, j)] & C_W)) j++;
    } else if (how == SPLIT_WHITESPACE) {               /* [^\w\s]+ */
        while (j < n && !(cls[AT(t, j)] & (C_W | C_S))) j++;
    }                                                   /* WordSplit: [^\w\s], one character */
    *s = i;
    *e = j;
    return 1;
}

typedef struct {
    PyObject_HEAD
    PyObject *classes_obj;
    const unsigned char *cls;
    int how;
    /* Entries in order of first appearance; the slot table maps hashes to entry numbers + 1. */
    PyObject **key;
    uint64_t *key_hash;
    int64_t *count;
    size_t n, cap;
    uint32_t *slot;
    size_t mask;
    Encoder scan; /* only its class table and pattern, for next_piece() */
} PieceCounter;

static uint64_t hash_span(const Text *t, Py_ssize_t i, Py_ssize_t j) {
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ (uint64_t)(j - i);
    for (Py_ssize_t k = i; k < j; k++) h = (h ^ AT(t, k)) * 0x100000001b3ULL;
    return nonzero(mix64(h));
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

PyDoc_STRVAR(counter_add_doc,
"add(text, per_line) -> None: count the pieces of text. With per_line, each \"\\n\"-ended line is\n"
"split on its own (as tokenizers reads files); otherwise the text is split as one.");

static PyObject *PieceCounter_add(PieceCounter *c, PyObject *args) {
    PyObject *text;
    int per_line;
    if (!PyArg_ParseTuple(args, "Up", &text, &per_line)) return NULL;
    Text whole = {PyUnicode_KIND(text), PyUnicode_DATA(text), PyUnicode_GET_LENGTH(text)};
    for (Py_ssize_t line = 0; line < whole.len;) {
        Text t = whole;
        if (per_line) { /* scan up to and including the next "\n" */
            Py_ssize_t end = line;
            while (end < whole.len && AT(&whole, end) != '\n') end++;
            t.len = end < whole.len ? end + 1 : end;
        }
        if (c->how == SPLIT_GPT2) {
            for (Py_ssize_t i = line; i < t.len;) {
                Py_ssize_t j = next_gpt2(&c->scan, &t, i);
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

static PyObject *PieceCounter_counts(PieceCounter *c, PyObject *Py_UNUSED(ignored)) {
    PyObject *d = PyDict_New();
    if (!d) return NULL;
    for (size_t k = 0; k < c->n; k++) {
        PyObject *v = PyLong_FromLongLong(c->count[k]);
        if (!v || PyDict_SetItem(d, c->key[k], v) < 0) { Py_XDECREF(v); Py_DECREF(d); return NULL; }
        Py_DECREF(v);
    }
    return d;
}

static PyObject *PieceCounter_len(PieceCounter *c, PyObject *Py_UNUSED(ignored)) {
    return PyLong_FromSize_t(c->n);
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
    Py_INCREF(classes);
    c->classes_obj = classes;
    c->cls = (const unsigned char *)PyBytes_AS_STRING(classes);
    c->how = how;
    c->scan.cls = c->cls;
    c->scan.pattern = PAT_GPT2;
    return counter_grow(c);
}

static PyTypeObject PieceCounterType = {
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

/* ------------------------------------------------------------------ the BPE training merge loop */
/*
 * MergeState mirrors tokenizer_core/bpe/pair_stats.py and merge_loop.py (top_k = 0, ties by ids)
 * step for step: the same pair counts, the same queue entries (-count, key, sequence number,
 * word list), the same lazy correction of stale entries, and the same in-place edits of the
 * words, so it picks the same pair at every step (tests/test_kernel.py compares whole runs).
 */

typedef struct { int64_t neg; uint64_t key; uint64_t seq; int32_t list; } QEntry;

typedef struct { int32_t *w; int32_t n, cap; } WordList;

typedef struct {
    PyObject_HEAD
    int shift;
    uint64_t mask;
    /* Words: symbols of word k are sym[start[k] .. start[k] + len[k]). */
    int32_t *sym;
    int64_t *start;
    int32_t *len;
    int64_t *cnt;
    Py_ssize_t nwords;
    /* Pair counts: open addressing, key + 1 (0 = empty). */
    uint64_t *pkey;
    int64_t *pcount;
    size_t pmask, pn;
    /* The queue. */
    QEntry *heap;
    size_t hn, hcap;
    uint64_t seq;
    /* Word lists, referenced by queue entries. */
    WordList *lists;
    size_t ln, lcap;
    /* The chosen entry's list (set by best(), used by merge()). */
    int32_t chosen;
    /* Scratch for one merge: keys that gained, in first-gain order, and their lists. */
    uint64_t *gkey;
    int32_t *glist;
    size_t gn, gcap;
    uint64_t *gslot_key;   /* key + 1 */
    int32_t *gslot_idx;
    size_t *gpos;          /* the slot of each gained key, to clear just those */
    size_t gmask;
    int32_t *out;          /* scratch for a word with several occurrences */
    size_t out_cap;
} MergeState;

static int64_t *pair_slot(MergeState *m, uint64_t key, int create) {
    size_t i = mix64(key) & m->pmask;
    while (m->pkey[i]) {
        if (m->pkey[i] == key + 1) return &m->pcount[i];
        i = (i + 1) & m->pmask;
    }
    if (!create) return NULL;
    if ((m->pn + 1) * 2 > m->pmask + 1) {
        size_t cap = (m->pmask + 1) * 2;
        uint64_t *nk = PyMem_Calloc(cap, sizeof(uint64_t));
        int64_t *nc = PyMem_Malloc(cap * sizeof(int64_t));
        if (!nk || !nc) { PyMem_Free(nk); PyMem_Free(nc); PyErr_NoMemory(); return NULL; }
        for (size_t k = 0; k <= m->pmask; k++) {
            if (!m->pkey[k]) continue;
            size_t j = mix64(m->pkey[k] - 1) & (cap - 1);
            while (nk[j]) j = (j + 1) & (cap - 1);
            nk[j] = m->pkey[k];
            nc[j] = m->pcount[k];
        }
        PyMem_Free(m->pkey);
        PyMem_Free(m->pcount);
        m->pkey = nk;
        m->pcount = nc;
        m->pmask = cap - 1;
        i = mix64(key) & m->pmask;
        while (m->pkey[i]) i = (i + 1) & m->pmask;
    }
    m->pkey[i] = key + 1;
    m->pcount[i] = 0;
    m->pn++;
    return &m->pcount[i];
}

static inline int64_t pair_count(MergeState *m, uint64_t key) {
    int64_t *c = pair_slot(m, key, 0);
    return c ? *c : 0;
}

static inline int qless(const QEntry *a, const QEntry *b) {
    if (a->neg != b->neg) return a->neg < b->neg;
    if (a->key != b->key) return a->key < b->key;
    return a->seq < b->seq;
}

static int qpush(MergeState *m, QEntry x) {
    if (m->hn == m->hcap) {
        size_t cap = m->hcap ? m->hcap * 2 : 1024;
        QEntry *h = PyMem_Realloc(m->heap, cap * sizeof(QEntry));
        if (!h) { PyErr_NoMemory(); return -1; }
        m->heap = h;
        m->hcap = cap;
    }
    size_t i = m->hn++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!qless(&x, &m->heap[p])) break;
        m->heap[i] = m->heap[p];
        i = p;
    }
    m->heap[i] = x;
    return 0;
}

static QEntry qpop(MergeState *m) {
    QEntry top = m->heap[0];
    QEntry x = m->heap[--m->hn];
    size_t i = 0, n = m->hn;
    for (;;) {
        size_t l = 2 * i + 1;
        if (l >= n) break;
        size_t r = l + 1, c = (r < n && qless(&m->heap[r], &m->heap[l])) ? r : l;
        if (!qless(&m->heap[c], &x)) break;
        m->heap[i] = m->heap[c];
        i = c;
    }
    if (n) m->heap[i] = x;
    return top;
}

static int32_t new_list(MergeState *m) {
    if (m->ln == m->lcap) {
        size_t cap = m->lcap ? m->lcap * 2 : 1024;
        WordList *l = PyMem_Realloc(m->lists, cap * sizeof(WordList));
        if (!l) { PyErr_NoMemory(); return -1; }
        m->lists = l;
        m->lcap = cap;
    }
    m->lists[m->ln].w = NULL;
    m->lists[m->ln].n = m->lists[m->ln].cap = 0;
    return (int32_t)m->ln++;
}

/* Append word wi unless it is already the list's last word. */
static int list_add(MergeState *m, int32_t li, int32_t wi) {
    WordList *l = &m->lists[li];
    if (l->n && l->w[l->n - 1] == wi) return 0;
    if (l->n == l->cap) {
        int32_t cap = l->cap ? l->cap * 2 : 4;
        int32_t *w = PyMem_Realloc(l->w, (size_t)cap * sizeof(int32_t));
        if (!w) { PyErr_NoMemory(); return -1; }
        l->w = w;
        l->cap = cap;
    }
    l->w[l->n++] = wi;
    return 0;
}

static void list_free(MergeState *m, int32_t li) {
    PyMem_Free(m->lists[li].w);
    m->lists[li].w = NULL;
    m->lists[li].n = m->lists[li].cap = 0;
}

/* The list of words where `key` gained in this merge (created in first-gain order). */
static int32_t gained_list(MergeState *m, uint64_t key) {
    size_t i = mix64(key) & m->gmask;
    while (m->gslot_key[i]) {
        if (m->gslot_key[i] == key + 1) return m->glist[m->gslot_idx[i]];
        i = (i + 1) & m->gmask;
    }
    if ((m->gn + 1) * 2 > m->gmask + 1) {
        size_t cap = (m->gmask + 1) * 2;
        uint64_t *nk = PyMem_Calloc(cap, sizeof(uint64_t));
        int32_t *ni = PyMem_Malloc(cap * sizeof(int32_t));
        if (!nk || !ni) { PyMem_Free(nk); PyMem_Free(ni); PyErr_NoMemory(); return -1; }
        for (size_t k = 0; k <= m->gmask; k++) {
            if (!m->gslot_key[k]) continue;
            size_t j = mix64(m->gslot_key[k] - 1) & (cap - 1);
            while (nk[j]) j = (j + 1) & (cap - 1);
            nk[j] = m->gslot_key[k];
            ni[j] = m->gslot_idx[k];
        }
        PyMem_Free(m->gslot_key);
        PyMem_Free(m->gslot_idx);
        m->gslot_key = nk;
        m->gslot_idx = ni;
        m->gmask = cap - 1;
        for (size_t k = 0; k < m->gn; k++) { /* where each key lives now */
            size_t j = mix64(m->gkey[k]) & m->gmask;
            while (m->gslot_key[j] != m->gkey[k] + 1) j = (j + 1) & m->gmask;
            m->gpos[k] = j;
        }
        i = mix64(key) & m->gmask;
        while (m->gslot_key[i]) i = (i + 1) & m->gmask;
    }
    if (m->gn == m->gcap) {
        size_t cap = m->gcap ? m->gcap * 2 : 256;
        uint64_t *gk = PyMem_Realloc(m->gkey, cap * sizeof(uint64_t));
        if (!gk) { PyErr_NoMemory(); return -1; }
        m->gkey = gk;
        int32_t *gl = PyMem_Realloc(m->glist, cap * sizeof(int32_t));
        if (!gl) { PyErr_NoMemory(); return -1; }
        m->glist = gl;
        size_t *gp = PyMem_Realloc(m->gpos, cap * sizeof(size_t));
        if (!gp) { PyErr_NoMemory(); return -1; }
        m->gpos = gp;
        m->gcap = cap;
    }
    int32_t li = new_list(m);
    if (li < 0) return -1;
    m->gslot_key[i] = key + 1;
    m->gslot_idx[i] = (int32_t)m->gn;
    m->gkey[m->gn] = key;
    m->glist[m->gn] = li;
    m->gpos[m->gn] = i;
    m->gn++;
    return li;
}

/* Forget the last merge's gained keys (only their slots: the table may be large). */
static void gained_clear(MergeState *m) {
    for (size_t k = 0; k < m->gn; k++) m->gslot_key[m->gpos[k]] = 0;
    m->gn = 0;
}

/* (prev, a) loses c and (prev, new) gains c in word wi; likewise on the right. */
static inline int neighbour(MergeState *m, uint64_t lose, uint64_t gain, int64_t c, int32_t wi) {
    int64_t *pc = pair_slot(m, lose, 1);
    if (!pc) return -1;
    *pc -= c;
    pc = pair_slot(m, gain, 1);
    if (!pc) return -1;
    *pc += c;
    int32_t li = gained_list(m, gain);
    if (li < 0) return -1;
    return list_add(m, li, wi);
}

PyDoc_STRVAR(ms_best_doc,
"best() -> (key, count) of the next pair to merge, or None when the queue is empty.\n"
"Stale entries met on the way go back with their current count, as the Python loop does.");

static PyObject *MergeState_best(MergeState *m, PyObject *Py_UNUSED(ignored)) {
    while (m->hn) {
        QEntry e = qpop(m);
        int64_t cur = pair_count(m, e.key);
        if (cur != -e.neg) {
            e.neg = -cur;
            if (qpush(m, e) < 0) return NULL;
            continue;
        }
        if (m->chosen >= 0) list_free(m, m->chosen);
        m->chosen = e.list;
        return Py_BuildValue("(KL)", (unsigned long long)e.key, (long long)cur);
    }
    Py_RETURN_NONE;
}

PyDoc_STRVAR(ms_merge_doc,
"merge(a, b, new_id) -> tokens saved: merge (a, b) in the words of the entry best() chose.");

static PyObject *MergeState_merge(MergeState *m, PyObject *args) {
    long long a_, b_, n_;
    if (!PyArg_ParseTuple(args, "LLL", &a_, &b_, &n_)) return NULL;
    if (m->chosen < 0) {
        PyErr_SetString(PyExc_RuntimeError, "merge() needs a pair from best() first");
        return NULL;
    }
    int32_t a = (int32_t)a_, b = (int32_t)b_, nid = (int32_t)n_;
    uint64_t sh = (uint64_t)m->shift;
    int64_t saved = 0;
    gained_clear(m);
    WordList pos = m->lists[m->chosen];
    for (int32_t t = 0; t < pos.n; t++) {
        int32_t wi = pos.w[t];
        int32_t *w = m->sym + m->start[wi];
        int32_t n = m->len[wi];
        int64_t c = m->cnt[wi];
        int32_t na = 0, first = -1;
        for (int32_t i = 0; i < n; i++)
            if (w[i] == a) { if (!na) first = i; na++; }
        if (!na) continue;
        if (na == 1) {
            int32_t i = first;
            if (i + 1 == n || w[i + 1] != b) continue;
            if (i && neighbour(m, ((uint64_t)w[i - 1] << sh) | (uint64_t)a, ((uint64_t)w[i - 1] << sh) | (uint64_t)nid, c, wi) < 0)
                return NULL;
            if (i + 2 < n && neighbour(m, ((uint64_t)b << sh) | (uint64_t)w[i + 2], ((uint64_t)nid << sh) | (uint64_t)w[i + 2], c, wi) < 0)
                return NULL;
            w[i] = nid;
            memmove(w + i + 1, w + i + 2, (size_t)(n - i - 2) * sizeof(int32_t));
            m->len[wi] = n - 1;
            saved += c;
            continue;
        }
        if ((size_t)n > m->out_cap) {
            int32_t *o = PyMem_Realloc(m->out, (size_t)n * sizeof(int32_t));
            if (!o) { PyErr_NoMemory(); return NULL; }
            m->out = o;
            m->out_cap = (size_t)n;
        }
        int32_t *out = m->out, on = 0, i = 0, j = 0;
        while (i < n - 1) {
            if (w[i] == a && w[i + 1] == b) {
                while (j < i) out[on++] = w[j++];
                if (on && neighbour(m, ((uint64_t)out[on - 1] << sh) | (uint64_t)a, ((uint64_t)out[on - 1] << sh) | (uint64_t)nid, c, wi) < 0)
                    return NULL;
                if (i + 2 < n && neighbour(m, ((uint64_t)b << sh) | (uint64_t)w[i + 2], ((uint64_t)nid << sh) | (uint64_t)w[i + 2], c, wi) < 0)
                    return NULL;
                out[on++] = nid;
                saved += c;
                i += 2;
                j = i;
            } else {
                i++;
            }
        }
        if (j) {
            while (j < n) out[on++] = w[j++];
            memcpy(w, out, (size_t)on * sizeof(int32_t));
            m->len[wi] = on;
        }
    }
    for (size_t g = 0; g < m->gn; g++) {
        int64_t cnt = pair_count(m, m->gkey[g]);
        if (cnt > 0) {
            QEntry e = {-cnt, m->gkey[g], m->seq++, m->glist[g]};
            if (qpush(m, e) < 0) return NULL;
        } else {
            list_free(m, m->glist[g]);
        }
    }
    return PyLong_FromLongLong(saved);
}

PyDoc_STRVAR(ms_words_doc, "words() -> list[list[int]]: the words' symbols now.");

static PyObject *MergeState_words(MergeState *m, PyObject *Py_UNUSED(ignored)) {
    PyObject *out = PyList_New(m->nwords);
    if (!out) return NULL;
    for (Py_ssize_t k = 0; k < m->nwords; k++) {
        PyObject *w = PyList_New(m->len[k]);
        if (!w) { Py_DECREF(out); return NULL; }
        for (int32_t i = 0; i < m->len[k]; i++) {
            PyObject *v = PyLong_FromLong(m->sym[m->start[k] + i]);
            if (!v) { Py_DECREF(w); Py_DECREF(out); return NULL; }
            PyList_SET_ITEM(w, i, v);
        }
        PyList_SET_ITEM(out, k, w);
    }
    return out;
}

static PyMethodDef MergeState_methods[] = {
    {"best", (PyCFunction)MergeState_best, METH_NOARGS, ms_best_doc},
    {"merge", (PyCFunction)MergeState_merge, METH_VARARGS, ms_merge_doc},
    {"words", (PyCFunction)MergeState_words, METH_NOARGS, ms_words_doc},
    {NULL, NULL, 0, NULL},
};

static void MergeState_dealloc(MergeState *m) {
    PyMem_Free(m->sym);
    PyMem_Free(m->start);
    PyMem_Free(m->len);
    PyMem_Free(m->cnt);
    PyMem_Free(m->pkey);
    PyMem_Free(m->pcount);
    PyMem_Free(m->heap);
    for (size_t k = 0; k < m->ln; k++) PyMem_Free(m->lists[k].w);
    PyMem_Free(m->lists);
    PyMem_Free(m->gkey);
    PyMem_Free(m->glist);
    PyMem_Free(m->gslot_key);
    PyMem_Free(m->gslot_idx);
    PyMem_Free(m->gpos);
    PyMem_Free(m->out);
    Py_TYPE(m)->tp_free((PyObject *)m);
}

/* MergeState(words, counts, shift): words are lists of symbol ids (< 2**31), counts whole numbers. */
static int MergeState_init(MergeState *m, PyObject *args, PyObject *kw) {
    static char *names[] = {"words", "counts", "shift", NULL};
    PyObject *words, *counts;
    int shift;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!O!i", names, &PyList_Type, &words, &PyList_Type, &counts, &shift))
        return -1;
    if (m->sym) {
        PyErr_SetString(PyExc_RuntimeError, "MergeState is already initialised");
        return -1;
    }
    Py_ssize_t nw = PyList_GET_SIZE(words);
    if (PyList_GET_SIZE(counts) != nw || shift < 1 || shift > 31 || nw >= INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "one count per word, and 1 <= shift <= 31");
        return -1;
    }
    m->shift = shift;
    m->mask = ((uint64_t)1 << shift) - 1;
    m->nwords = nw;
    m->chosen = -1;
    int64_t total = 0;
    for (Py_ssize_t k = 0; k < nw; k++) {
        PyObject *w = PyList_GET_ITEM(words, k);
        if (!PyList_Check(w)) { PyErr_SetString(PyExc_TypeError, "words must be lists of ids"); return -1; }
        total += PyList_GET_SIZE(w);
    }
    m->sym = PyMem_Malloc((size_t)(total ? total : 1) * sizeof(int32_t));
    m->start = PyMem_Malloc((size_t)(nw ? nw : 1) * sizeof(int64_t));
    m->len = PyMem_Malloc((size_t)(nw ? nw : 1) * sizeof(int32_t));
    m->cnt = PyMem_Malloc((size_t)(nw ? nw : 1) * sizeof(int64_t));
    size_t pcap = 1024; /* grows with the distinct pairs */
    while (pcap < (size_t)total && pcap < ((size_t)1 << 16)) pcap <<= 1;
    m->pkey = PyMem_Calloc(pcap, sizeof(uint64_t));
    m->pcount = PyMem_Malloc(pcap * sizeof(int64_t));
    m->pmask = pcap - 1;
    m->gslot_key = PyMem_Calloc(1024, sizeof(uint64_t));
    m->gslot_idx = PyMem_Malloc(1024 * sizeof(int32_t));
    m->gmask = 1023;
    if (!m->sym || !m->start || !m->len || !m->cnt || !m->pkey || !m->pcount || !m->gslot_key || !m->gslot_idx) {
        PyErr_NoMemory();
        return -1;
    }
    int64_t at = 0;
    for (Py_ssize_t k = 0; k < nw; k++) {
        PyObject *w = PyList_GET_ITEM(words, k);
        Py_ssize_t n = PyList_GET_SIZE(w);
        if (n >= INT32_MAX) { PyErr_SetString(PyExc_ValueError, "word too long"); return -1; }
        long long c = PyLong_AsLongLong(PyList_GET_ITEM(counts, k));
        if (c == -1 && PyErr_Occurred()) return -1;
        if (c < 0) { PyErr_SetString(PyExc_ValueError, "counts must be >= 0"); return -1; }
        m->start[k] = at;
        m->len[k] = (int32_t)n;
        m->cnt[k] = c;
        for (Py_ssize_t i = 0; i < n; i++) {
            long v = PyLong_AsLong(PyList_GET_ITEM(w, i));
            if (v == -1 && PyErr_Occurred()) return -1;
            if (v < 0 || (uint64_t)v > m->mask) { PyErr_SetString(PyExc_ValueError, "symbol id out of range for shift"); return -1; }
            m->sym[at + i] = (int32_t)v;
        }
        at += n;
    }
    /* count_pairs(): counts and, per pair, the words holding it (each word once, in order);
     * pairs are numbered in order of first appearance, as the Python dict keeps them. */
    uint64_t *order = NULL;
    int32_t *order_list = NULL;
    size_t on = 0, ocap = 0;
    /* The first-appearance lists, found through the gained-list table (reused as a scratch map). */
    m->gn = 0;
    for (Py_ssize_t k = 0; k < nw; k++) {
        int32_t n = m->len[k];
        if (n < 2) continue;
        int32_t *w = m->sym + m->start[k];
        for (int32_t i = 0; i + 1 < n; i++) {
            uint64_t key = ((uint64_t)w[i] << shift) | (uint64_t)w[i + 1];
            int64_t *pc = pair_slot(m, key, 1);
            if (!pc) goto fail;
            *pc += m->cnt[k];
            size_t before = m->gn;
            int32_t li = gained_list(m, key);
            if (li < 0 || list_add(m, li, (int32_t)k) < 0) goto fail;
            if (m->gn > before) {
                if (on == ocap) {
                    ocap = ocap ? ocap * 2 : 1024;
                    uint64_t *o = PyMem_Realloc(order, ocap * sizeof(uint64_t));
                    int32_t *ol = o ? PyMem_Realloc(order_list, ocap * sizeof(int32_t)) : NULL;
                    if (o) order = o;
                    if (!o || !ol) { PyErr_NoMemory(); goto fail; }
                    order_list = ol;
                }
                order[on] = key;
                order_list[on] = li;
                on++;
            }
        }
    }
    for (size_t k = 0; k < on; k++) {
        int64_t cnt = pair_count(m, order[k]);
        if (cnt > 0) {
            QEntry e = {-cnt, order[k], m->seq++, order_list[k]};
            if (qpush(m, e) < 0) goto fail;
        }
    }
    gained_clear(m);
    PyMem_Free(order);
    PyMem_Free(order_list);
    return 0;
fail:
    PyMem_Free(order);
    PyMem_Free(order_list);
    return -1;
}

static PyTypeObject MergeStateType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tokenizer_kernel.MergeState",
    .tp_doc = PyDoc_STR("The BPE training loop's pair counts, queue and words (see tokenizer_core/bpe/merge_loop.py)."),
    .tp_basicsize = sizeof(MergeState),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)MergeState_init,
    .tp_dealloc = (destructor)MergeState_dealloc,
    .tp_methods = MergeState_methods,
};

static struct PyModuleDef kernel_module = {
    PyModuleDef_HEAD_INIT, "tokenizer_kernel",
    "Compiled fast path of tokenizer_core's byte-level BPE (the Python code is the reference).", -1, NULL,
};

PyMODINIT_FUNC PyInit_tokenizer_kernel(void) {
    if (PyType_Ready(&EncoderType) < 0 || PyType_Ready(&PieceCounterType) < 0 || PyType_Ready(&MergeStateType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&kernel_module);
    if (!m) return NULL;
    Py_INCREF(&EncoderType);
    if (PyModule_AddObject(m, "Encoder", (PyObject *)&EncoderType) < 0) {
        Py_DECREF(&EncoderType);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&PieceCounterType);
    if (PyModule_AddObject(m, "PieceCounter", (PyObject *)&PieceCounterType) < 0) {
        Py_DECREF(&PieceCounterType);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&MergeStateType);
    if (PyModule_AddObject(m, "MergeState", (PyObject *)&MergeStateType) < 0) {
        Py_DECREF(&MergeStateType);
        Py_DECREF(m);
        return NULL;
    }
    if (PyModule_AddIntConstant(m, "ABI", 3) < 0) { Py_DECREF(m); return NULL; }
    return m;
}
