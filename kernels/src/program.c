/* Split patterns as programs (PAT_PROGRAM): a Perl-style backtracking matcher over the int32 words
 * that tokenizer_core/text/regex_program.py compiles, with its table of character classes (bit k of
 * table[c]: class k matches c, as the regex module reads it). The first MATCH reached, trying
 * alternatives in order, is the match: the regex module's leftmost-first semantics.
 *
 * Programs come from Python and are checked once (program_check): every opcode known, every operand
 * in range, every jump onto an instruction. A budget of steps bounds each match (a pattern that
 * backtracks without end raises instead of hanging). */
#include "encoder.h"

/* OP_FIRST bit a b: SPLIT a b where the character here is in class `bit` (all that alternative a can
 * start with); elsewhere straight to b, with no backtrack frame (an alternative that cannot start
 * here costs one table read, not a push, a pop and a failed step). */
enum { OP_MATCH, OP_CHAR, OP_CLASS, OP_SPLIT, OP_JMP, OP_POSS, OP_LOOK, OP_END, OP_SET, OP_FIRST, OP_COUNT };

#define STEP_BUDGET ((int64_t)1 << 24) /* steps for one match attempt */
#define MAX_LOOK_DEPTH 8

/* The words an instruction takes, or 0 when it runs past n (code[pc] is a known opcode). */
static Py_ssize_t op_size(const int32_t *code, Py_ssize_t n, Py_ssize_t pc) {
    Py_ssize_t size;
    switch (code[pc]) {
    case OP_MATCH: case OP_END: size = 1; break;
    case OP_CHAR: case OP_CLASS: case OP_JMP: size = 2; break;
    case OP_SPLIT: case OP_LOOK: size = 3; break;
    case OP_FIRST: size = 4; break;
    case OP_POSS: size = 5; break;
    case OP_SET: size = pc + 1 < n && code[pc + 1] >= 1 && code[pc + 1] <= 16 ? 2 + code[pc + 1] : 0; break;
    default: return 0;
    }
    return pc + size <= n ? size : 0;
}

static int bad_program(const char *why, Py_ssize_t pc) {
    PyErr_Format(PyExc_ValueError, "program: %s (at word %zd)", why, pc);
    return -1;
}

int program_check(const int32_t *code, Py_ssize_t n) {
    if (n < 1 || n > (1 << 20)) return bad_program("1 to 2**20 words", 0);
    unsigned char *start = PyMem_Calloc((size_t)n + 1, 1);
    if (!start) { PyErr_NoMemory(); return -1; }
    int rc = -1;
    Py_ssize_t pc = 0;
    for (; pc < n;) {
        if (code[pc] < 0 || code[pc] >= OP_COUNT) { bad_program("an unknown opcode", pc); goto done; }
        Py_ssize_t size = op_size(code, n, pc);
        if (!size) { bad_program("an instruction cut short", pc); goto done; }
        start[pc] = 1;
        pc += size;
    }
    start[n] = 1; /* a look-ahead's continuation may be the end only if a MATCH precedes it: checked below */
    for (pc = 0; pc < n; pc += op_size(code, n, pc)) {
        const int32_t *w = code + pc;
        switch (w[0]) {
        case OP_CHAR: if (w[1] < 0 || w[1] > 0x10FFFF) { bad_program("a code point out of range", pc); goto done; } break;
        case OP_CLASS: if (w[1] < 0 || w[1] >= 16) { bad_program("a class bit out of range", pc); goto done; } break;
        case OP_SPLIT:
            if (w[1] < 0 || w[1] >= n || !start[w[1]] || w[2] < 0 || w[2] >= n || !start[w[2]]) {
                bad_program("a split to nowhere", pc); goto done;
            }
            break;
        case OP_JMP: if (w[1] < 0 || w[1] >= n || !start[w[1]]) { bad_program("a jump to nowhere", pc); goto done; } break;
        case OP_FIRST:
            if (w[1] < 0 || w[1] >= 16) { bad_program("a class bit out of range", pc); goto done; }
            if (w[2] < 0 || w[2] >= n || !start[w[2]] || w[3] < 0 || w[3] >= n || !start[w[3]]) {
                bad_program("a split to nowhere", pc); goto done;
            }
            break;
        case OP_POSS:
            if ((w[1] != 0 && w[1] != 1) || (w[1] == 0 && (w[2] < 0 || w[2] >= 16)) ||
                (w[1] == 1 && (w[2] < 0 || w[2] > 0x10FFFF)) || w[3] < 0 || (w[4] != -1 && w[4] < w[3])) {
                bad_program("a possessive repeat out of range", pc); goto done;
            }
            break;
        case OP_LOOK:
            if ((w[1] != 0 && w[1] != 1) || w[2] <= pc + 3 || w[2] >= n || !start[w[2]]) {
                bad_program("a look-ahead that goes on nowhere", pc); goto done;
            }
            break;
        case OP_SET:
            for (int32_t k = 0; k < w[1]; k++)
                if (w[2 + k] < 0 || w[2 + k] > 0x10FFFF) { bad_program("a code point out of range", pc); goto done; }
            break;
        default: break;
        }
    }
    if (code[n - 1] != OP_MATCH) { bad_program("the last word must be MATCH", n - 1); goto done; }
    rc = 0;
done:
    PyMem_Free(start);
    return rc;
}

static int push(Scratch *s, int32_t pc, Py_ssize_t pos) {
    if (s->bt_n == s->bt_cap) {
        size_t cap = s->bt_cap ? s->bt_cap * 2 : 64;
        BtFrame *b = PyMem_RawRealloc(s->bt, cap * sizeof(BtFrame));
        if (!b) return ENC_NO_MEMORY;
        s->bt = b;
        s->bt_cap = cap;
    }
    s->bt[s->bt_n].pc = pc;
    s->bt[s->bt_n].pos = pos;
    s->bt_n++;
    return 0;
}

static inline int in_class(const uint16_t *table, Py_UCS4 c, int32_t bit) {
    return c < N_CODEPOINTS && (table[c] >> bit) & 1;
}

/* Run program `level` from pc at pos: 1 and *end on a match, 0 on none, an ENC_ code on error. */
static int vm_run(const Encoder *e, int level, Scratch *s, const Text *t, int32_t pc0, Py_ssize_t pos0,
                  Py_ssize_t *end, int64_t *budget, int depth) {
    const int32_t *code = e->prog[level];
    const uint16_t *table = e->prog_table[level];
    Py_ssize_t n = t->len;
    size_t base = s->bt_n;
    int rc = push(s, pc0, pos0);
    if (rc < 0) return rc;
    while (s->bt_n > base) {
        s->bt_n--;
        int32_t pc = s->bt[s->bt_n].pc;
        Py_ssize_t pos = s->bt[s->bt_n].pos;
        for (int alive = 1; alive;) {
            if (--*budget < 0) { s->bt_n = base; return ENC_TOO_COMPLEX; }
            const int32_t *w = code + pc;
            switch (w[0]) {
            case OP_MATCH:
                *end = pos;
                s->bt_n = base;
                return 1;
            case OP_CHAR:
                if (pos < n && AT(t, pos) == (Py_UCS4)w[1]) { pos++; pc += 2; } else alive = 0;
                break;
            case OP_CLASS:
                if (pos < n && in_class(table, AT(t, pos), w[1])) { pos++; pc += 2; } else alive = 0;
                break;
            case OP_SET: {
                int hit = 0;
                if (pos < n)
                    for (int32_t k = 0; k < w[1] && !hit; k++) hit = AT(t, pos) == (Py_UCS4)w[2 + k];
                if (hit) { pos++; pc += 2 + w[1]; } else alive = 0;
                break;
            }
            case OP_SPLIT:
                if ((rc = push(s, w[2], pos)) < 0) { s->bt_n = base; return rc; }
                pc = w[1];
                break;
            case OP_JMP:
                pc = w[1];
                break;
            case OP_FIRST:
                if (pos < n && in_class(table, AT(t, pos), w[1])) {
                    if ((rc = push(s, w[3], pos)) < 0) { s->bt_n = base; return rc; }
                    pc = w[2];
                } else {
                    pc = w[3];
                }
                break;
            case OP_POSS: {
                int64_t count = 0;
                while ((w[4] < 0 || count < w[4]) && pos < n &&
                       (w[1] == 0 ? in_class(table, AT(t, pos), w[2]) : AT(t, pos) == (Py_UCS4)w[2])) {
                    pos++;
                    count++;
                }
                if (count < w[3]) alive = 0; else pc += 5;
                break;
            }
            case OP_LOOK: {
                if (depth >= MAX_LOOK_DEPTH) { s->bt_n = base; return ENC_TOO_COMPLEX; }
                Py_ssize_t ignored;
                int r = vm_run(e, level, s, t, pc + 3, pos, &ignored, budget, depth + 1);
                if (r < 0) { s->bt_n = base; return r; }
                if ((r == 1) != (w[1] == 1)) pc = w[2]; else alive = 0;
                break;
            }
            case OP_END:
                if (pos == n || (pos == n - 1 && AT(t, pos) == '\n')) pc += 1; else alive = 0;
                break;
            default: /* program_check rules this out */
                alive = 0;
            }
        }
    }
    return 0;
}

/* The end of program `level`'s piece at i, in t cut at `stop` (the piece being split further). */
static Py_ssize_t level_next(const Encoder *e, int level, Scratch *s, const Text *whole, Py_ssize_t i,
                             Py_ssize_t stop, unsigned char *gap) {
    Text t = *whole;
    t.len = stop; /* a Split sees only its piece: matching ends where the piece does */
    int64_t budget = STEP_BUDGET;
    Py_ssize_t end;
    int r = vm_run(e, level, s, &t, 0, i, &end, &budget, 0);
    if (r < 0) return r;
    *gap = r != 1;
    if (r == 1) return end > i ? end : i + 1; /* an empty match cannot be a piece (programs never make one) */
    /* No match here: a gap, up to where the pattern matches next (the gaps are pieces too). */
    Py_ssize_t j = i + 1;
    for (; j < stop; j++) {
        budget = STEP_BUDGET;
        r = vm_run(e, level, s, &t, 0, j, &end, &budget, 0);
        if (r < 0) return r;
        if (r == 1) break;
    }
    return j;
}

Py_ssize_t program_next(const Encoder *e, Scratch *s, const Text *t, Py_ssize_t i) {
    if (i == 0) /* a new text: no level has a current piece */
        for (int k = 0; k < MAX_CHAIN; k++) s->chain_end[k] = 0;
    Py_ssize_t stop = t->len;
    for (int k = 0; k < e->nprog; k++) {
        /* Pieces nest: a level whose piece still goes on past i keeps it; else (and then every
         * level below it) a new piece starts at i, inside the piece of the level above. */
        if (s->chain_end[k] <= i) {
            Py_ssize_t end = level_next(e, k, s, t, i, stop, &s->chain_gap[k]);
            if (end < 0) return end;
            s->chain_end[k] = end;
            for (int d = k + 1; d < MAX_CHAIN; d++) s->chain_end[d] = 0;
        }
        stop = s->chain_end[k];
    }
    return stop;
}

int program_ends_all_at(const Encoder *e, const Scratch *s, Py_ssize_t j) {
    /* A level whose piece goes on past j may do so only as a gap: no match starts anywhere inside a
     * gap, so a split started afresh at j finds the same gap, ending where this one does. */
    for (int k = 0; k < e->nprog; k++)
        if (s->chain_end[k] != j && !(s->chain_gap[k] && s->chain_end[k] > j)) return 0;
    return 1;
}
