/* BPE over one piece's UTF-8 bytes: the adjacent pair with the lowest rank merges first, the leftmost
 * on equal ranks, as tokenizer_core/bpe/merging.py; a scan for short pieces, a heap over a linked list
 * for long ones (O(n log n), about 22 bytes of working memory per byte); results are remembered per piece. */
#include "encoder.h"

/* Keep the first (lowest) rank of a pair, as the Python merge table does. */
int pairs_put(U64Map *t, int32_t l, int32_t r, uint32_t rank, int32_t merged) {
    int created;
    int64_t *v = u64map_slot(t, pair_key(l, r), &created);
    if (!v) return -1;
    if (created) *v = (int64_t)(((uint64_t)rank << 32) | (uint32_t)merged);
    return 0;
}

static int scratch_reserve(Scratch *s, size_t n) {
    if (n <= s->cap) return 0;
    size_t cap = s->cap ? s->cap : 64;
    while (cap < n) cap *= 2;
    int32_t *a = PyMem_RawRealloc(s->sym, cap * sizeof(int32_t));
    if (!a) goto fail;
    s->sym = a;
    a = PyMem_RawRealloc(s->nxt, cap * sizeof(int32_t));
    if (!a) goto fail;
    s->nxt = a;
    a = PyMem_RawRealloc(s->prv, cap * sizeof(int32_t));
    if (!a) goto fail;
    s->prv = a;
    s->cap = cap;
    return 0;
fail:
    kernel_no_memory();
    return -1;
}

void scratch_free(Scratch *s) {
    tokbuf_free(&s->piece);
    PyMem_RawFree(s->sym);
    PyMem_RawFree(s->nxt);
    PyMem_RawFree(s->prv);
    PyMem_RawFree(s->u8);
    PyMem_RawFree(s->bt);
    memset(s, 0, sizeof(*s));
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

/* Heap entries ordered by (rank, position): 8 bytes each. Whether an entry is still current is
 * read off the list when it comes out (the pair now at its position has its rank), so it need not
 * carry the pair. */
typedef struct { uint32_t rank; int32_t pos; } HeapItem;

static inline int heap_less(const HeapItem *a, const HeapItem *b) {
    return a->rank < b->rank || (a->rank == b->rank && a->pos < b->pos);
}

static void heap_sift_down(HeapItem *h, size_t n, size_t i) {
    HeapItem x = h[i];
    for (;;) {
        size_t l = 2 * i + 1;
        if (l >= n) break;
        size_t r = l + 1, m = (r < n && heap_less(&h[r], &h[l])) ? r : l;
        if (!heap_less(&h[m], &x)) break;
        h[i] = h[m];
        i = m;
    }
    h[i] = x;
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
    h[0] = h[--(*n)];
    if (*n) heap_sift_down(h, *n, 0);
    return top;
}

/* The heap made again from the pairs now in the list, stale entries dropped (O(n)). */
static size_t heap_rebuild(const Encoder *e, const int32_t *sym, const int32_t *nxt, HeapItem *h) {
    size_t hn = 0;
    int32_t merged;
    HeapItem it;
    for (int32_t i = 0; i >= 0 && nxt[i] >= 0; i = nxt[i])
        if (pairs_get(&e->pairs, sym[i], sym[nxt[i]], &it.rank, &merged)) {
            it.pos = i;
            h[hn++] = it;
        }
    for (size_t k = hn / 2; k-- > 0;) heap_sift_down(h, hn, k);
    return hn;
}

/* BPE of a long piece (n > SCAN_LIMIT bytes) into b: a heap over a linked list of the piece's
 * byte positions (a symbol starts at its node's position and ends where the next node starts).
 * Memory: 12 bytes per byte for the list and 10 for the heap, which is compacted when full (every
 * entry ever pushed would need 24); the tokens are written once their number is known. */
static int merge_long(const Encoder *e, Scratch *s, const unsigned char *p, Py_ssize_t n, TokBuf *b) {
    if (scratch_reserve(s, (size_t)n) < 0) return -1;
    int32_t *sym = s->sym, *nxt = s->nxt, *prv = s->prv;
    size_t hcap = (size_t)n + (size_t)n / 4 + 64, hn = 0;
    HeapItem *heap = PyMem_RawMalloc(hcap * sizeof(HeapItem));
    if (!heap) { kernel_no_memory(); return -1; }
    for (Py_ssize_t i = 0; i < n; i++) {
        sym[i] = e->byte_id[p[i]];
        nxt[i] = (int32_t)(i + 1 < n ? i + 1 : -1);
        prv[i] = (int32_t)(i - 1);
    }
    hn = heap_rebuild(e, sym, nxt, heap);
    int32_t merged;
    HeapItem it;
    while (hn) {
        HeapItem x = heap_pop(heap, &hn);
        int32_t i = x.pos, j = sym[i] < 0 ? -1 : nxt[i];
        /* Current when the pair at i still has this rank (symbols only grow; a pair of another
         * rank, or none, means the entry is stale). */
        if (j < 0 || !pairs_get(&e->pairs, sym[i], sym[j], &it.rank, &merged) || it.rank != x.rank) continue;
        sym[i] = merged;
        sym[j] = -1;
        int32_t k = nxt[j];
        nxt[i] = k;
        if (k >= 0) prv[k] = i;
        int32_t q = prv[i];
        if (hn + 2 > hcap) hn = heap_rebuild(e, sym, nxt, heap); /* at most n-1 pairs: room again */
        if (q >= 0 && pairs_get(&e->pairs, sym[q], sym[i], &it.rank, &merged)) {
            it.pos = q;
            heap_push(heap, &hn, it);
        }
        if (k >= 0 && pairs_get(&e->pairs, sym[i], sym[k], &it.rank, &merged)) {
            it.pos = i;
            heap_push(heap, &hn, it);
        }
    }
    PyMem_RawFree(heap);
    Py_ssize_t m = 0;
    for (int32_t i = 0; i >= 0; i = nxt[i]) m++;
    if (tokbuf_reserve(b, m) < 0) return -1;
    m = 0;
    for (int32_t i = 0; i >= 0; i = nxt[i]) {
        b->id[m] = sym[i];
        b->end[m] = nxt[i] < 0 ? n : nxt[i];
        m++;
    }
    b->n = m;
    return 0;
}

/* Per slot of the cache's table: hash, offset, length and value. */
#define CACHE_SLOT_BYTES (sizeof(uint64_t) + sizeof(int64_t) + sizeof(int32_t) + sizeof(int64_t))
#define POOL_ITEM_BYTES (2 * sizeof(int32_t))

size_t cache_bytes(const Encoder *e) {
    const BytesTable *c = &e->cache;
    return (c->hash ? (c->mask + 1) * CACHE_SLOT_BYTES : 0) + c->arena_cap + e->pool_cap * POOL_ITEM_BYTES;
}

/* The capacity a buffer of `cap` (doubling from `first`) grows to so as to hold `need`. */
static size_t grown(size_t cap, size_t first, size_t need) {
    if (need <= cap) return cap;
    cap = cap ? cap : first;
    while (cap < need) cap *= 2;
    return cap;
}

/* The bytes the cache would hold after storing a piece of n bytes and m tokens. */
static size_t cache_bytes_after(const Encoder *e, Py_ssize_t n, Py_ssize_t m) {
    const BytesTable *c = &e->cache;
    size_t slots = c->mask + 1;
    if ((c->count + 1) * 2 > slots) slots *= 2;
    return slots * CACHE_SLOT_BYTES + grown(c->arena_cap, 4096, c->arena_len + (size_t)n) +
           grown(e->pool_cap, 4096, e->pool_len + (size_t)m) * POOL_ITEM_BYTES;
}

/* Remember a piece's tokens (n <= CACHE_MAX_PIECE bytes, fewer than 256 tokens, so the count
 * fits the value's low byte); the caller is the cache's writer (cache_guard.c). The cache never holds more than cache_budget bytes: when this
 * piece would take it past the budget, every remembered piece is forgotten first (the memory
 * is kept and reused), and a piece that does not fit even an empty cache is not remembered. */
static int cache_store(Encoder *e, const unsigned char *p, Py_ssize_t n, const TokBuf *b) {
    if (cache_bytes_after(e, n, b->n) > e->cache_budget) {
        btab_clear(&e->cache);
        e->pool_len = 0;
        if (cache_bytes_after(e, n, b->n) > e->cache_budget) return 0;
    }
    if (e->pool_len + (size_t)b->n > e->pool_cap) {
        size_t cap = grown(e->pool_cap, 4096, e->pool_len + (size_t)b->n);
        int32_t *a = PyMem_RawRealloc(e->pool_id, cap * sizeof(int32_t));
        if (!a) { kernel_no_memory(); return -1; }
        e->pool_id = a;
        a = PyMem_RawRealloc(e->pool_end, cap * sizeof(int32_t));
        if (!a) { kernel_no_memory(); return -1; }
        e->pool_end = a;
        e->pool_cap = cap;
    }
    for (Py_ssize_t k = 0; k < b->n; k++) {
        e->pool_id[e->pool_len + k] = b->id[k];
        e->pool_end[e->pool_len + k] = (int32_t)b->end[k];
    }
    if (btab_put(&e->cache, p, n, ((int64_t)e->pool_len << 8) | b->n) < 0) return -1;
    e->pool_len += (size_t)b->n;
    return 0;
}

/* The cached tokens of a piece into b: 1 when found, 0 when not cached (or a store is under way), -1 on
 * error. Reads never wait and share nothing they write (cache_guard.c). */
static int cache_lookup(Encoder *e, const unsigned char *p, Py_ssize_t n, TokBuf *b) {
    if (!cache_read_begin(e)) return 0;
    int64_t hit;
    int found = btab_find(&e->cache, p, n, &hit);
    if (found) {
        Py_ssize_t off = (Py_ssize_t)(hit >> 8), cnt = (Py_ssize_t)(hit & 0xff);
        if (tokbuf_reserve(b, cnt) < 0) {
            found = -1;
        } else {
            for (Py_ssize_t k = 0; k < cnt; k++) {
                b->id[k] = e->pool_id[off + k];
                b->end[k] = e->pool_end[off + k];
            }
            b->n = cnt;
        }
    }
    cache_read_end(e);
    return found;
}

/* Tokens of one piece into s->piece: ids and byte ends relative to the piece. */
int encode_piece(Encoder *e, Scratch *s, const unsigned char *p, Py_ssize_t n, int use_cache) {
    if (n >= INT32_MAX) return ENC_TOO_LONG; /* merge_heap's positions and links are int32 */
    TokBuf *b = &s->piece;
    b->n = 0;
    use_cache = use_cache && e->cache_budget && n <= CACHE_MAX_PIECE;
    if (use_cache) {
        int found = cache_lookup(e, p, n, b);
        if (found) return found < 0 ? ENC_NO_MEMORY : ENC_OK;
    }
    int64_t whole;
    if (e->ignore_merges && btab_find(&e->vocab, p, n, &whole)) {
        if (tokbuf_reserve(b, 1) < 0) return ENC_NO_MEMORY;
        b->id[0] = (int32_t)whole;
        b->end[0] = n;
        b->n = 1;
    } else if (n > SCAN_LIMIT) {
        if (merge_long(e, s, p, n, b) < 0) return ENC_NO_MEMORY;
    } else {
        if (tokbuf_reserve(b, n) < 0) return ENC_NO_MEMORY;
        for (Py_ssize_t k = 0; k < n; k++) {
            b->id[k] = e->byte_id[p[k]];
            b->end[k] = k + 1;
        }
        b->n = merge_scan(e, b->id, b->end, n);
    }
    /* Stored only when the lock is free at once: a busy cache costs this piece its place, never a wait. */
    if (use_cache && b->n < 256 && cache_write_try(e)) {
        int rc = cache_store(e, p, n, b);
        cache_write_end(e);
        return rc < 0 ? ENC_NO_MEMORY : ENC_OK;
    }
    return ENC_OK;
}
