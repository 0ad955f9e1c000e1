/* The Encoder type's own internals, shared by the three files that make it: encoder.c (its checks,
 * its methods, the type object), encoder_init.c (building and freeing it) and encoder_batch.c
 * (encode_batch). None of this is part of the module's interface. */
#ifndef TOKENIZER_KERNEL_ENCODER_TYPE_H
#define TOKENIZER_KERNEL_ENCODER_TYPE_H

#include "encoder.h"

/* Texts at least this long are encoded without the GIL (shorter ones take less time than the
 * switch costs). */
#define RELEASE_GIL_CHARS 2048

/* encoder.c: 0, or -1 with RuntimeError for an object not built by __init__. */
int encoder_check_ready(const Encoder *e);
/* encoder.c: 0, or -1 with ValueError for an Encoder without a split pattern of its own (PAT_EXTERNAL). */
int encoder_check_own_split(const Encoder *e);

/* encoder_init.c: __init__ and the deallocator. */
int Encoder_init(Encoder *e, PyObject *args, PyObject *kw);
void Encoder_dealloc(Encoder *e);

/* encoder_batch.c: encode_batch() and its docstring. */
extern const char encoder_encode_batch_doc[];
PyObject *Encoder_encode_batch(Encoder *e, PyObject *args, PyObject *kw);

#endif
