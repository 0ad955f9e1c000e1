/* Unigram seeds of one length (unigram.h): what tokenizer_core/unigram/seed.py computes with numpy,
 * with one 16-byte item per position of that length instead of its per-position hash, index,
 * order and follower arrays. The frequencies add whole word counts, so they come out exactly equal. */
#include <stdlib.h>

#include "kernel.h"
#include "unigram.h"

typedef struct {
    uint64_t h;
    uint32_t pos, word;
} Item;

static int item_less(const Item *a, const Item *b) { return a->h < b->h || (a->h == b->h && a->pos < b->pos); }

static void swap_items(Item *a, Item *b) {
    Item t = *a;
    *a = *b;
    *b = t;
}

static void sift_down(Item *v, size_t root, size_t n) {
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= n) return;
        if (child + 1 < n && item_less(&v[child], &v[child + 1])) child++;
        if (!item_less(&v[root], &v[child])) return;
        swap_items(&v[root], &v[child]);
        root = child;
    }
}

/* Quicksort (median of three), heapsort past a depth limit: n log n whatever the hashes. */
static void sort_items(Item *v, size_t n, int depth) {
    while (n > 16) {
        if (depth-- == 0) {
            for (size_t i = n / 2; i-- > 0;) sift_down(v, i, n);
            for (size_t i = n; i-- > 1;) {
                swap_items(&v[0], &v[i]);
                sift_down(v, 0, i);
            }
            return;
        }
        size_t mid = n / 2;
        if (item_less(&v[mid], &v[0])) swap_items(&v[mid], &v[0]);
        if (item_less(&v[n - 1], &v[0])) swap_items(&v[n - 1], &v[0]);
        if (item_less(&v[n - 1], &v[mid])) swap_items(&v[n - 1], &v[mid]);
        Item pivot = v[mid];
        size_t i = 0, j = n - 1;
        for (;;) {
            while (item_less(&v[i], &pivot)) i++;
            while (item_less(&pivot, &v[j])) j--;
            if (i >= j) break;
            swap_items(&v[i], &v[j]);
            i++;
            j--;
        }
        /* v[0..j] <= pivot <= v[j+1..n): recurse into the smaller side, loop on the larger. */
        size_t left = j + 1;
        if (left < n - left) {
            sort_items(v, left, depth);
            v += left;
            n -= left;
        } else {
            sort_items(v + left, n - left, depth);
            n = left;
        }
    }
    for (size_t i = 1; i < n; i++)
        for (size_t k = i; k > 0 && item_less(&v[k], &v[k - 1]); k--) swap_items(&v[k], &v[k - 1]);
}

/* The first UTF-8 byte of a code point: what a suffix array over the bytes branches on. */
static int first_byte(uint32_t cp) {
    if (cp < 0x80) return (int)cp;
    if (cp < 0x800) return 0xC0 | (int)(cp >> 6);
    if (cp < 0x10000) return 0xE0 | (int)(cp >> 12);
    return 0xF0 | (int)(cp >> 18);
}

void ug_seeds_free(UgSeeds *s) {
    PyMem_RawFree(s->pos);
    PyMem_RawFree(s->score);
    memset(s, 0, sizeof(*s));
}

static int seeds_push(UgSeeds *s, int64_t pos, double score) {
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 1024;
        int64_t *p = PyMem_RawRealloc(s->pos, cap * sizeof(int64_t));
        if (!p) return -1;
        s->pos = p;
        double *q = PyMem_RawRealloc(s->score, cap * sizeof(double));
        if (!q) return -1;
        s->score = q;
        s->cap = cap;
    }
    s->pos[s->n] = pos;
    s->score[s->n++] = score;
    return 0;
}

/* Runs the statements given for every start i of a substring of `len` inside one run of word w. */
#define FOR_EACH_WINDOW(c, len, ...)                                                  \
    for (int64_t w = 0; w < (c)->num_words; w++) {                                     \
        int64_t end = (c)->off[w + 1], next = end; /* the next run start after i */    \
        for (int64_t i = end - 1; i >= (c)->off[w]; i--) {                             \
            if (i + 1 < end && (c)->brk[i + 1]) next = i + 1;                          \
            if (i + (len) <= next) { __VA_ARGS__ }                                        \
        }                                                                              \
    }

int64_t ug_seed_length(const UgCorpus *c, const uint8_t *flags, int64_t last_word, int32_t len, UgSeeds *out) {
    out->n = 0;
    size_t count = 0;
    FOR_EACH_WINDOW(c, len, count++;)
    if (!count) return 0;
    Item *items = PyMem_RawMalloc(count * sizeof(Item));
    if (!items) return -1;
    size_t k = 0;
    FOR_EACH_WINDOW(c, len, {
        uint64_t h = 0;
        for (int32_t q = 0; q < len; q++) h = h * UG_BASE + c->cps[i + q];
        items[k++] = (Item){h, (uint32_t)i, (uint32_t)w};
    })
    int depth = 2;
    for (size_t m = count; m > 1; m >>= 1) depth += 2;
    sort_items(items, count, depth);
    for (size_t a = 0; a < count;) {
        size_t b = a;
        double freq = 0.0;
        int follower = -1, branches = 0, line_and_mid = 0, corpus_end = 0;
        for (; b < count && items[b].h == items[a].h; b++) {
            const Item *it = &items[b];
            freq += c->count[it->word];
            int f;
            if (it->pos + (int64_t)len < c->off[it->word + 1]) {
                f = first_byte(c->cps[it->pos + len]);
            } else { /* a word's end: the next word's "▁" mid-line, the line's end, or none known */
                int mid = flags[it->word] & 1, line_end = flags[it->word] & 2;
                f = mid ? 0xE2 : line_end ? 0 : -1;
                line_and_mid |= mid && line_end;
                corpus_end |= (int64_t)it->word == last_word;
            }
            if (f < 0) continue;
            if (follower < 0) follower = f;
            else if (f != follower) branches = 1;
        }
        int followers = (branches ? 2 : follower >= 0) + line_and_mid + corpus_end;
        /* Sorted by position within a hash: the first item is the first occurrence. */
        if (len == 1 ? seeds_push(out, items[a].pos, freq) < 0
                     : (freq >= 2 && followers >= 2 && seeds_push(out, items[a].pos, freq * len) < 0)) {
            PyMem_RawFree(items);
            return -1;
        }
        a = b;
    }
    PyMem_RawFree(items);
    return (int64_t)count;
}
