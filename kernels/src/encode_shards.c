/* One long text on several threads (Encoder.encode(..., threads=n)): exact by construction, with no
 * proof about the split pattern needed.
 *
 * The text is cut into shards that start just after a newline, near equal in length. Each thread
 * splits and encodes its shard from that start, the whole text in view (the pattern may look past
 * the shard), up to the first piece end at or past the next shard's start. Shard 0 starts where one
 * pass over the text starts, so its pieces are that pass's; if it stops exactly at shard 1's start
 * (every level of a chain of programs ending there too), that start is a piece boundary of the one
 * pass, so shard 1's pieces are the pass's own; and so on. When any shard stops elsewhere (a piece
 * runs across the cut), or fails, the text is encoded again in one pass, which is then the answer.
 * Mirror: none in Python (the Python path is one pass); tests/kernel/test_kernel_shards.py checks
 * the two against each other. */
#include "encoder.h"
#include <pthread.h>
#include <stdatomic.h>

#define SHARD_MIN_CHARS ((Py_ssize_t)1 << 16) /* a thread gets at least this much text */
#define MAX_SHARDS 64

typedef struct {
    Py_ssize_t from, to;  /* starts at from; stops at the first piece end at or past to */
    Scratch s;
    Result r;
    Py_ssize_t reached;
    int rc, aligned;
} Shard;

typedef struct {
    Encoder *e;
    PyObject *text;
    Py_ssize_t base;
    Shard *shards;
    int n;
    atomic_int next;
} ShardJob;

static void *shard_worker(void *arg) {
    ShardJob *job = arg;
    for (;;) {
        int k = atomic_fetch_add(&job->next, 1);
        if (k >= job->n) return NULL;
        Shard *sh = &job->shards[k];
        sh->rc = encode_span(job->e, &sh->s, job->text, sh->from, sh->to, job->base, 0, NULL, &sh->r, &sh->reached);
        sh->aligned = sh->rc == ENC_OK && sh->reached == sh->to &&
                      (job->e->pattern != PAT_PROGRAM || program_ends_all_at(job->e, &sh->s, sh->reached));
    }
}

/* Shard starts: just after the first newline at or past each k-th part of the text; fewer shards
 * when the newlines are too few. Returns the number of shards. */
static int plan_shards(const Text *t, int threads, Shard *shards) {
    int n = 0;
    Py_ssize_t prev = 0;
    for (int k = 1; k < threads; k++) {
        Py_ssize_t at = t->len / threads * k;
        if (at <= prev) at = prev + 1;
        while (at < t->len && AT(t, at - 1) != '\n') at++;
        if (at >= t->len || at - prev < SHARD_MIN_CHARS / 2) continue;
        shards[n++].from = prev;
        shards[n - 1].to = at;
        prev = at;
    }
    shards[n].from = prev;
    shards[n].to = t->len;
    return n + 1;
}

/* The shards' results one after the other in r, word ids numbered on from first_word. */
static int join_shards(Shard *shards, int n, int64_t first_word, Result *r) {
    Py_ssize_t total = 0;
    for (int k = 0; k < n; k++) total += shards[k].r.out.n;
    if (result_reserve(r, total) < 0) return ENC_NO_MEMORY;
    int64_t word = first_word;
    for (int k = 0; k < n; k++) {
        const Result *p = &shards[k].r;
        Py_ssize_t o = r->out.n, m = p->out.n;
        memcpy(r->out.id + o, p->out.id, (size_t)m * sizeof(int32_t));
        memcpy(r->out.start + o, p->out.start, (size_t)m * sizeof(int64_t));
        memcpy(r->out.end + o, p->out.end, (size_t)m * sizeof(int64_t));
        for (Py_ssize_t q = 0; q < m; q++) r->word[o + q] = word + p->word[q];
        r->out.n += m;
        word += p->pieces;
    }
    r->pieces = word - first_word;
    return ENC_OK;
}

int encode_text_threads(Encoder *e, PyObject *text, Py_ssize_t base, int64_t first_word, int threads, Result *r) {
    Text t = text_of(text);
    Scratch one = {0};
    int rc;
    if (threads > MAX_SHARDS) threads = MAX_SHARDS;
    if (threads > 1 && t.len / threads < SHARD_MIN_CHARS) threads = (int)(t.len / SHARD_MIN_CHARS);
    if (threads > 1) {
        Shard *shards = PyMem_RawCalloc((size_t)threads + 1, sizeof(Shard));
        if (!shards) return ENC_NO_MEMORY;
        ShardJob job = {.e = e, .text = text, .base = base, .shards = shards};
        job.n = plan_shards(&t, threads, shards);
        atomic_init(&job.next, 0);
        int aligned = 1;
        if (job.n > 1) {
            batch_run_threads(shard_worker, &job, job.n);
            for (int k = 0; k < job.n && aligned; k++) aligned = shards[k].aligned;
        } else {
            aligned = 0;
        }
        rc = aligned ? join_shards(shards, job.n, first_word, r) : ENC_OK;
        for (int k = 0; k < job.n; k++) {
            scratch_free(&shards[k].s);
            result_free(&shards[k].r);
        }
        PyMem_RawFree(shards);
        if (aligned) return rc;
    }
    rc = encode_text(e, &one, text, base, first_word, NULL, r);
    scratch_free(&one);
    return rc;
}
