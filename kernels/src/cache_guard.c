/* The piece cache's guard: many readers at once without touching a shared cache line, one writer.
 *
 * A read-write lock's readers all increment one counter, so on many cores every lookup bounced that
 * line between them and 16 threads encoded a batch slower than one. Here each thread counts its
 * reads in a slot of its own (64 slots, one cache line each; threads past 64 share slots, which
 * stays correct since the counts are atomic sums). A writer raises a flag, then waits for the reads
 * already in flight (each copies a few ints) to end; a reader that sees the flag goes without the
 * cache rather than wait. So a lookup never waits, and a store only tries (another writer, or reads
 * that do not end soon, and the piece is simply not remembered); clear_cache() waits its turn. */
#include "encoder.h"

#include <sched.h>

static _Atomic unsigned next_slot;
static _Thread_local int my_slot = -1;

static CacheSlot *slot_of(Encoder *e) {
    if (my_slot < 0) my_slot = (int)(atomic_fetch_add(&next_slot, 1) % CACHE_SLOTS);
    return &e->cache_readers[my_slot];
}

int cache_guard_init(Encoder *e) {
    e->cache_readers = aligned_alloc(64, CACHE_SLOTS * sizeof(CacheSlot));
    if (!e->cache_readers) return -1;
    for (int k = 0; k < CACHE_SLOTS; k++) atomic_init(&e->cache_readers[k].n, 0);
    atomic_init(&e->cache_writer, 0);
    return 0;
}

void cache_guard_free(Encoder *e) {
    free(e->cache_readers);
    e->cache_readers = NULL;
}

int cache_read_begin(Encoder *e) {
    CacheSlot *s = slot_of(e);
    atomic_fetch_add(&s->n, 1);
    if (atomic_load(&e->cache_writer)) { /* a writer is in or waiting: go without the cache */
        atomic_fetch_sub(&s->n, 1);
        return 0;
    }
    return 1;
}

void cache_read_end(Encoder *e) { atomic_fetch_sub(&slot_of(e)->n, 1); }

/* Whether every read in flight has ended within `spins` looks (forever when spins < 0). */
static int readers_gone(Encoder *e, long spins) {
    for (long tries = 0; spins < 0 || tries < spins; tries++) {
        int busy = 0;
        for (int k = 0; k < CACHE_SLOTS && !busy; k++) busy = atomic_load(&e->cache_readers[k].n) != 0;
        if (!busy) return 1;
        if (tries > 64) sched_yield();
    }
    return 0;
}

int cache_write_try(Encoder *e) {
    int expected = 0;
    if (!atomic_compare_exchange_strong(&e->cache_writer, &expected, 1)) return 0;
    if (readers_gone(e, 4096)) return 1;
    atomic_store(&e->cache_writer, 0);
    return 0;
}

void cache_write_wait(Encoder *e) {
    int expected = 0;
    while (!atomic_compare_exchange_weak(&e->cache_writer, &expected, 1)) {
        expected = 0;
        sched_yield();
    }
    readers_gone(e, -1);
}

void cache_write_end(Encoder *e) { atomic_store(&e->cache_writer, 0); }
