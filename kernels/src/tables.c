/* Hash tables and growable token buffers shared by the kernel's types. */
#include "kernel.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

uint64_t kernel_seed = 0x9e3779b97f4a7c15ULL;

/* From /dev/urandom; where it cannot be read, from the clock, the process id and an address
 * (unpredictable enough to spoil precomputed collisions, and never part of any result). */
void kernel_seed_init(void) {
    static int done = 0; /* tables built under one seed must keep it: set once per process */
    if (done) return;
    done = 1;
    uint64_t s = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t got = read(fd, &s, sizeof(s));
        close(fd);
        if (got == (ssize_t)sizeof(s) && s) {
            kernel_seed = s;
            return;
        }
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    s = mix64((uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30)) ^ mix64((uint64_t)getpid()) ^
        mix64((uint64_t)(uintptr_t)&s);
    kernel_seed = s ? s : 0x9e3779b97f4a7c15ULL;
}

uint64_t hash_bytes(const unsigned char *p, Py_ssize_t n) {
    uint64_t h = kernel_seed ^ (uint64_t)n;
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

/* ------------------------------------------------------------------ U64Map */

static size_t capacity_for(size_t expected) {
    size_t cap = 16;
    while (cap < expected * 2 + 16) cap <<= 1;
    return cap;
}

int u64map_init(U64Map *m, size_t expected) {
    size_t cap = capacity_for(expected);
    m->keys = PyMem_RawCalloc(cap, sizeof(uint64_t));
    m->vals = PyMem_RawMalloc(cap * sizeof(int64_t));
    m->mask = cap - 1;
    m->count = 0;
    if (!m->keys || !m->vals) {
        u64map_free(m);
        kernel_no_memory();
        return -1;
    }
    return 0;
}

void u64map_free(U64Map *m) {
    PyMem_RawFree(m->keys);
    PyMem_RawFree(m->vals);
    memset(m, 0, sizeof(*m));
}

int64_t *u64map_find(const U64Map *m, uint64_t key) {
    size_t i = hash_u64(key) & m->mask;
    while (m->keys[i]) {
        if (m->keys[i] == key + 1) return &m->vals[i];
        i = (i + 1) & m->mask;
    }
    return NULL;
}

static int u64map_grow(U64Map *m) {
    size_t cap = (m->mask + 1) * 2;
    uint64_t *keys = PyMem_RawCalloc(cap, sizeof(uint64_t));
    int64_t *vals = PyMem_RawMalloc(cap * sizeof(int64_t));
    if (!keys || !vals) {
        PyMem_RawFree(keys);
        PyMem_RawFree(vals);
        kernel_no_memory();
        return -1;
    }
    for (size_t k = 0; k <= m->mask; k++) {
        if (!m->keys[k]) continue;
        size_t j = hash_u64(m->keys[k] - 1) & (cap - 1);
        while (keys[j]) j = (j + 1) & (cap - 1);
        keys[j] = m->keys[k];
        vals[j] = m->vals[k];
    }
    PyMem_RawFree(m->keys);
    PyMem_RawFree(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->mask = cap - 1;
    return 0;
}

int64_t *u64map_slot(U64Map *m, uint64_t key, int *created) {
    int64_t *v = u64map_find(m, key);
    if (created) *created = v == NULL;
    if (v) return v;
    if ((m->count + 1) * 2 > m->mask + 1 && u64map_grow(m) < 0) return NULL;
    size_t i = hash_u64(key) & m->mask;
    while (m->keys[i]) i = (i + 1) & m->mask;
    m->keys[i] = key + 1;
    m->vals[i] = 0;
    m->count++;
    return &m->vals[i];
}

/* ------------------------------------------------------------------ BytesTable */

int btab_init(BytesTable *t, size_t expected) {
    size_t cap = capacity_for(expected);
    memset(t, 0, sizeof(*t));
    t->hash = PyMem_RawCalloc(cap, sizeof(uint64_t));
    t->off = PyMem_RawMalloc(cap * sizeof(int64_t));
    t->len = PyMem_RawMalloc(cap * sizeof(int32_t));
    t->value = PyMem_RawMalloc(cap * sizeof(int64_t));
    t->mask = cap - 1;
    if (!t->hash || !t->off || !t->len || !t->value) {
        btab_free(t);
        kernel_no_memory();
        return -1;
    }
    return 0;
}

void btab_free(BytesTable *t) {
    PyMem_RawFree(t->hash);
    PyMem_RawFree(t->off);
    PyMem_RawFree(t->len);
    PyMem_RawFree(t->value);
    PyMem_RawFree(t->arena);
    memset(t, 0, sizeof(*t));
}

void btab_clear(BytesTable *t) {
    memset(t->hash, 0, (t->mask + 1) * sizeof(uint64_t));
    t->count = 0;
    t->arena_len = 0;
}

int btab_find(const BytesTable *t, const unsigned char *p, Py_ssize_t n, int64_t *value) {
    if (!t->count) return 0;
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
    size_t cap = (t->mask + 1) * 2;
    uint64_t *hash = PyMem_RawCalloc(cap, sizeof(uint64_t));
    int64_t *off = PyMem_RawMalloc(cap * sizeof(int64_t));
    int32_t *len = PyMem_RawMalloc(cap * sizeof(int32_t));
    int64_t *value = PyMem_RawMalloc(cap * sizeof(int64_t));
    if (!hash || !off || !len || !value) {
        PyMem_RawFree(hash);
        PyMem_RawFree(off);
        PyMem_RawFree(len);
        PyMem_RawFree(value);
        kernel_no_memory();
        return -1;
    }
    for (size_t i = 0; i <= t->mask; i++) {
        if (!t->hash[i]) continue;
        size_t j = t->hash[i] & (cap - 1);
        while (hash[j]) j = (j + 1) & (cap - 1);
        hash[j] = t->hash[i];
        off[j] = t->off[i];
        len[j] = t->len[i];
        value[j] = t->value[i];
    }
    PyMem_RawFree(t->hash);
    PyMem_RawFree(t->off);
    PyMem_RawFree(t->len);
    PyMem_RawFree(t->value);
    t->hash = hash;
    t->off = off;
    t->len = len;
    t->value = value;
    t->mask = cap - 1;
    return 0;
}

int btab_put(BytesTable *t, const unsigned char *p, Py_ssize_t n, int64_t value) {
    if ((t->count + 1) * 2 > t->mask + 1 && btab_grow(t) < 0) return -1;
    if (t->arena_len + (size_t)n > t->arena_cap) {
        size_t cap = t->arena_cap ? t->arena_cap : 4096;
        while (cap < t->arena_len + (size_t)n) cap *= 2;
        unsigned char *a = PyMem_RawRealloc(t->arena, cap);
        if (!a) { kernel_no_memory(); return -1; }
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

/* ------------------------------------------------------------------ TokBuf */

int tokbuf_reserve(TokBuf *b, Py_ssize_t more) {
    if (b->n + more <= b->cap) return 0;
    Py_ssize_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + more) cap *= 2;
    int32_t *id = PyMem_RawRealloc(b->id, cap * sizeof(int32_t));
    if (!id) { kernel_no_memory(); return -1; }
    b->id = id;
    int64_t *s = PyMem_RawRealloc(b->start, cap * sizeof(int64_t));
    if (!s) { kernel_no_memory(); return -1; }
    b->start = s;
    int64_t *e = PyMem_RawRealloc(b->end, cap * sizeof(int64_t));
    if (!e) { kernel_no_memory(); return -1; }
    b->end = e;
    b->cap = cap;
    return 0;
}

void tokbuf_free(TokBuf *b) {
    PyMem_RawFree(b->id);
    PyMem_RawFree(b->start);
    PyMem_RawFree(b->end);
    memset(b, 0, sizeof(*b));
}
