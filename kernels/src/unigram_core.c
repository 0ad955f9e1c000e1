/* Unigram training's heavy loops, one word's lattice at a time (see unigram.h): nothing is kept per
 * corpus position but the code points, so memory grows with the longest word, not the corpus.
 *
 * The numbers follow tokenizer_core/unigram/batched_lattice.py step by step (the same edges, the
 * same order inside each node's group, numpy's way of summing a group); the E-step's sums over the
 * whole corpus go word by word instead of level by level, so expected counts may differ from numpy's
 * in the last bits (tests/kernel/test_unigram_kernel.py holds the two together). Viterbi, the splits and
 * the seeds add integers or compare, and come out exactly equal. */
#include <math.h>
#include <stdlib.h>

#include "kernel.h"
#include "unigram.h"

/* ------------------------------------------------------------------ piece table */

static size_t piece_slot(const UgPieces *t, int32_t len, uint64_t hash) {
    return (size_t)mix64(hash ^ ((uint64_t)len * 0x9E3779B97F4A7C15ULL) ^ kernel_seed) & t->mask;
}

int ug_pieces_init(UgPieces *t, size_t count) {
    size_t cap = 16;
    while (cap < 2 * count + 2) cap *= 2;
    t->hash = PyMem_RawCalloc(cap, sizeof(uint64_t));
    t->len = PyMem_RawCalloc(cap, sizeof(int32_t));
    t->id = PyMem_RawCalloc(cap, sizeof(int32_t));
    t->mask = cap - 1;
    t->max_len = 0;
    if (!t->hash || !t->len || !t->id) {
        ug_pieces_free(t);
        return -1;
    }
    return 0;
}

void ug_pieces_free(UgPieces *t) {
    PyMem_RawFree(t->hash);
    PyMem_RawFree(t->len);
    PyMem_RawFree(t->id);
    t->hash = NULL;
    t->len = t->id = NULL;
}

void ug_pieces_add(UgPieces *t, int32_t len, uint64_t hash, int32_t id) {
    size_t at = piece_slot(t, len, hash);
    while (t->len[at]) {
        if (t->len[at] == len && t->hash[at] == hash) return; /* the lower id stays, as numpy's search finds it */
        at = (at + 1) & t->mask;
    }
    t->len[at] = len;
    t->hash[at] = hash;
    t->id[at] = id;
    if (len > t->max_len) t->max_len = len;
}

static int32_t piece_find(const UgPieces *t, int32_t len, uint64_t hash) {
    size_t at = piece_slot(t, len, hash);
    while (t->len[at]) {
        if (t->len[at] == len && t->hash[at] == hash) return t->id[at];
        at = (at + 1) & t->mask;
    }
    return -1;
}

/* ------------------------------------------------------------------ one word's lattice */

typedef struct {
    int32_t start, len, id;
} Edge;

typedef struct {
    Edge *e;         /* by start, then length: backward's groups (read from their end) */
    int32_t *by_end; /* edge indices by end, then start: forward's groups, longest edge first */
    size_t n, cap;
    int64_t *end_at, *start_at; /* m + 2: first edge of each end node / start node */
    double *a, *b, *tmp;
    int32_t *back;
    int64_t nodes_cap;
    int32_t tmp_cap;
} Lattice;

static void lattice_free(Lattice *L) {
    PyMem_RawFree(L->e);
    PyMem_RawFree(L->by_end);
    PyMem_RawFree(L->end_at);
    PyMem_RawFree(L->start_at);
    PyMem_RawFree(L->a);
    PyMem_RawFree(L->b);
    PyMem_RawFree(L->tmp);
    PyMem_RawFree(L->back);
    memset(L, 0, sizeof(*L));
}

static int grow(void **p, size_t count, size_t size) {
    if (count > SIZE_MAX / size) return -1;
    void *q = PyMem_RawRealloc(*p, count * size);
    if (!q) return -1;
    *p = q;
    return 0;
}

/* The edges of the word cps[0:m] (breaks: no piece crosses a nonzero brk[i], i > its start; NULL:
 * none), without the edge over the whole word unless whole; grouped both ways. */
static int lattice_build(Lattice *L, const UgPieces *t, const uint32_t *cps, const uint8_t *brk, int64_t m,
                         int whole) {
    if (m + 2 > L->nodes_cap) {
        int64_t cap = m + 2;
        if (grow((void **)&L->end_at, (size_t)cap, sizeof(int64_t)) < 0 ||
            grow((void **)&L->start_at, (size_t)cap, sizeof(int64_t)) < 0 ||
            grow((void **)&L->a, (size_t)cap, sizeof(double)) < 0 || grow((void **)&L->b, (size_t)cap, sizeof(double)) < 0 ||
            grow((void **)&L->back, (size_t)cap, sizeof(int32_t)) < 0)
            return -1;
        L->nodes_cap = cap;
    }
    if (t->max_len + 1 > L->tmp_cap) {
        if (grow((void **)&L->tmp, (size_t)t->max_len + 1, sizeof(double)) < 0) return -1;
        L->tmp_cap = t->max_len + 1;
    }
    L->n = 0;
    memset(L->end_at, 0, (size_t)(m + 2) * sizeof(int64_t));
    for (int64_t i = 0; i < m; i++) {
        L->start_at[i] = (int64_t)L->n;
        uint64_t h = 0;
        int64_t lim = m - i < t->max_len ? m - i : t->max_len;
        for (int64_t k = 1; k <= lim; k++) {
            if (k > 1 && brk && brk[i + k - 1]) break;
            h = h * UG_BASE + cps[i + k - 1];
            if (!whole && i == 0 && k == m) continue;
            int32_t id = piece_find(t, (int32_t)k, h);
            if (id < 0) continue;
            if (L->n == L->cap) {
                size_t cap = L->cap ? L->cap * 2 : 256;
                if (grow((void **)&L->e, cap, sizeof(Edge)) < 0 || grow((void **)&L->by_end, cap, sizeof(int32_t)) < 0)
                    return -1;
                L->cap = cap;
            }
            L->e[L->n++] = (Edge){(int32_t)i, (int32_t)k, id};
            L->end_at[i + k + 1]++;
        }
    }
    L->start_at[m] = (int64_t)L->n;
    for (int64_t j = 1; j <= m + 1; j++) L->end_at[j] += L->end_at[j - 1];
    /* Placed in (start, length) order, so each end's group lists the earliest start first. */
    for (size_t k = 0; k < L->n; k++) {
        int64_t end = L->e[k].start + L->e[k].len;
        L->by_end[L->end_at[end]++] = (int32_t)k;
    }
    for (int64_t j = m + 1; j > 0; j--) L->end_at[j] = L->end_at[j - 1];
    L->end_at[0] = 0;
    return 0;
}

/* numpy's add.reduce of a[0:n] (its pairwise sum): -0.0 plus each term under 8 terms, eight running
 * sums up to 128, halves (cut at a multiple of 8) beyond. A node's group has one edge per piece length. */
static double pairwise(const double *a, int64_t n) {
    if (n < 8) {
        double r = -0.0;
        for (int64_t i = 0; i < n; i++) r += a[i];
        return r;
    }
    if (n <= 128) {
        double r[8];
        int64_t i;
        for (int j = 0; j < 8; j++) r[j] = a[j];
        for (i = 8; i < n - (n % 8); i += 8)
            for (int j = 0; j < 8; j++) r[j] += a[i + j];
        double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++) res += a[i];
        return res;
    }
    int64_t n2 = n / 2;
    n2 -= n2 % 8;
    return pairwise(a, n2) + pairwise(a + n2, n - n2);
}

/* log(sum(exp(v))) as _grouped_logsumexp does it: the max, then v[0]'s term plus the others'. */
static double logsumexp(double *v, int64_t n) {
    double mx = -INFINITY;
    for (int64_t k = 0; k < n; k++)
        if (v[k] > mx) mx = v[k];
    if (n == 0 || mx == -INFINITY) return -INFINITY;
    for (int64_t k = 0; k < n; k++) v[k] = exp(v[k] - mx);
    return mx + log(v[0] + pairwise(v + 1, n - 1));
}

static void forward(Lattice *L, const double *lp, int64_t m) {
    L->a[0] = 0.0;
    for (int64_t j = 1; j <= m; j++) {
        int64_t lo = L->end_at[j], hi = L->end_at[j + 1];
        for (int64_t k = lo; k < hi; k++) {
            const Edge *e = &L->e[L->by_end[k]];
            L->tmp[k - lo] = L->a[e->start] + lp[e->id];
        }
        L->a[j] = logsumexp(L->tmp, hi - lo);
    }
}

static void backward(Lattice *L, const double *lp, int64_t m) {
    L->b[m] = 0.0;
    for (int64_t i = m - 1; i >= 0; i--) {
        int64_t lo = L->start_at[i], hi = L->start_at[i + 1];
        for (int64_t k = hi - 1; k >= lo; k--) { /* longest edge first */
            const Edge *e = &L->e[k];
            L->tmp[hi - 1 - k] = L->b[e->start + e->len] + lp[e->id];
        }
        L->b[i] = logsumexp(L->tmp, hi - lo);
    }
}

/* Best incoming edge of every node, the earliest start winning ties; the best score of the end. */
static double viterbi(Lattice *L, const double *lp, int64_t m) {
    L->a[0] = 0.0;
    for (int64_t j = 1; j <= m; j++) {
        int64_t lo = L->end_at[j], hi = L->end_at[j + 1];
        double best = -INFINITY;
        int32_t arg = -1;
        for (int64_t k = lo; k < hi; k++) {
            const Edge *e = &L->e[L->by_end[k]];
            double v = L->a[e->start] + lp[e->id];
            if (arg < 0 || v > best) {
                best = v;
                arg = L->by_end[k];
            }
        }
        L->a[j] = arg < 0 ? -INFINITY : best;
        L->back[j] = arg;
    }
    return L->a[m];
}

/* ------------------------------------------------------------------ the corpus passes */

int ug_expected(const UgCorpus *c, const UgPieces *t, const double *lp, double *out, int64_t num_pieces,
                double *loglik) {
    Lattice L = {0};
    memset(out, 0, (size_t)num_pieces * sizeof(double));
    double total = 0.0;
    for (int64_t w = 0; w < c->num_words; w++) {
        int64_t s = c->off[w], m = c->off[w + 1] - s;
        if (lattice_build(&L, t, c->cps + s, c->brk + s, m, 1) < 0) {
            lattice_free(&L);
            return -1;
        }
        forward(&L, lp, m);
        backward(&L, lp, m);
        double z = L.a[m], count = c->count[w];
        total += count * z;
        if (z == -INFINITY) continue; /* no segmentation (a character that is no piece): nothing to expect */
        for (size_t k = 0; k < L.n; k++) {
            const Edge *e = &L.e[k];
            double post = lp[e->id];
            post += L.a[e->start];
            post += L.b[e->start + e->len];
            post -= z;
            out[e->id] += exp(post) * count;
        }
    }
    lattice_free(&L);
    *loglik = total;
    return 0;
}

int ug_viterbi(const UgCorpus *c, const UgPieces *t, const double *lp, double *out, int64_t num_pieces) {
    Lattice L = {0};
    memset(out, 0, (size_t)num_pieces * sizeof(double));
    for (int64_t w = 0; w < c->num_words; w++) {
        int64_t s = c->off[w], m = c->off[w + 1] - s;
        if (lattice_build(&L, t, c->cps + s, c->brk + s, m, 1) < 0) {
            lattice_free(&L);
            return -1;
        }
        if (viterbi(&L, lp, m) == -INFINITY) continue;
        for (int64_t j = m; j > 0;) {
            const Edge *e = &L.e[L.back[j]];
            out[e->id] += c->count[w];
            j = e->start;
        }
    }
    lattice_free(&L);
    return 0;
}

void ug_pairs_free(UgPairs *p) {
    PyMem_RawFree(p->owner);
    PyMem_RawFree(p->alt);
    memset(p, 0, sizeof(*p));
}

int ug_splits(const UgPieces *t, const double *lp, const uint32_t *cps, const int64_t *off, const int64_t *owner,
              int64_t count, double *score, UgPairs *pairs) {
    Lattice L = {0};
    for (int64_t p = 0; p < count; p++) {
        int64_t k = off[p + 1] - off[p];
        if (lattice_build(&L, t, cps + off[p], NULL, k, 0) < 0) goto nomem;
        score[p] = viterbi(&L, lp, k);
        if (score[p] == -INFINITY) continue;
        for (int64_t j = k; j > 0;) {
            const Edge *e = &L.e[L.back[j]];
            if (pairs->n == pairs->cap) {
                size_t cap = pairs->cap ? pairs->cap * 2 : 1024;
                if (grow((void **)&pairs->owner, cap, sizeof(int64_t)) < 0 ||
                    grow((void **)&pairs->alt, cap, sizeof(int64_t)) < 0)
                    goto nomem;
                pairs->cap = cap;
            }
            pairs->owner[pairs->n] = owner[p];
            pairs->alt[pairs->n++] = e->id;
            j = e->start;
        }
    }
    lattice_free(&L);
    return 0;
nomem:
    lattice_free(&L);
    return -1;
}
