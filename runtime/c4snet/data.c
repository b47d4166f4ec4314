/*
 * data.c - C4SNet field data (C4SNet.h): creation, reference counting,
 * copies and accessors, and the field type that puts it into records.
 *
 * Reference counts are C11 atomics because a record's fields are shared
 * between tasks on different workers (flow inheritance and filters copy a
 * field by adding a reference). The last owner frees: when the count it
 * sees is 1 there is no other owner that could add one, so the common
 * case, a value passed from box to box, frees without an atomic
 * read-modify-write.
 *
 * Single values (and arrays as small) are the common case, one per box
 * execution in a box that computes a new value: each thread keeps freed
 * blocks of that size in a pool and reuses them, as the runtime does with
 * records, with the same mechanism (kit.h's block pools). A malloc and free
 * cost ~170 instructions per value on the 10-box C4SNet pipeline
 * (callgrind), the pool ~20. A block freed on another thread goes to that
 * thread's pool. Values made on one worker and freed on another (the input
 * task's, a box's output read by the next box) would leave one pool always
 * empty and the other always full, and every such value would go through
 * malloc on one thread and free on the other, glibc's slowest path: the
 * pools meet at one depot for the whole program (values outlive runs), a
 * lock per batch of values. A thread's pool is emptied when the thread
 * ends, the depot when the program does.
 */
#include "c4snet_internal.h"

#include <kit.h>

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const unsigned char elem_sizes[C4SNET_NTYPES] = {
    sizeof(unsigned char), sizeof(signed char), sizeof(unsigned short), sizeof(short),
    sizeof(unsigned int),  sizeof(int),         sizeof(unsigned long),  sizeof(long),
    sizeof(float),         sizeof(double),      sizeof(long double),    sizeof(void *)};

_Noreturn void c4snet_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("C4SNet: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static void check_type(c4snet_type_t type, const char *where)
{
    if ((unsigned)type >= (unsigned)C4SNET_NTYPES)
        c4snet_fatal("%s: unknown type %d (expected a CTYPE_* of C4SNet.h)", where, (int)type);
}

size_t c4snet_elem_size(c4snet_type_t type) { return elem_sizes[type]; }

/* ---- the pool of small blocks ------------------------------------------------------- */

#define SMALL_BYTES sizeof(long double) /* elements that fit a pooled block */
#define SMALL_BLOCK (sizeof(struct cdata) + SMALL_BYTES)
#define DEPOT_MAX 4096

static kit_depot depot = KIT_DEPOT_INIT(SMALL_BLOCK, DEPOT_MAX);
static _Thread_local kit_pool pool = KIT_POOL_INIT(SMALL_BLOCK);

static void __attribute__((destructor)) depot_empty(void) { kit_depot_empty(&depot); }

/* Open this thread's pool, once (it stays closed, and values go to malloc
 * and free, if the thread cannot empty it when it ends). */
static __attribute__((noinline)) void pool_open(void)
{
    static _Thread_local bool tried;
    if (!tried) {
        tried = true;
        (void)kit_pool_open(&pool, &depot);
    }
}

/* A block of SMALL_BLOCK bytes. */
static inline void *small_block(void)
{
    if (__builtin_expect(pool.limit == 0, 0))
        pool_open();
    return kit_pool_get(&pool);
}

static inline void small_free(void *p)
{
    if (__builtin_expect(pool.limit == 0, 0))
        pool_open();
    kit_pool_put(&pool, p);
}

static inline bool is_small(const c4snet_data_t *d)
{
    return d->size * elem_sizes[d->type] <= SMALL_BYTES;
}

/* c4snet_data_new, inline for C4SNetCreate and C4SNetAlloc (a box
 * computing a value calls one per execution). */
static inline c4snet_data_t *data_new(c4snet_type_t type, size_t size, bool array)
{
    size_t bytes;
    if (__builtin_mul_overflow(size, (size_t)elem_sizes[type], &bytes) ||
        bytes > SIZE_MAX - sizeof(struct cdata))
        c4snet_fatal("an array of %zu elements of %s is too large", size, c4snet_type_name(type));
    c4snet_data_t *d = bytes <= SMALL_BYTES ? small_block() : malloc(sizeof *d + bytes);
    if (!d)
        c4snet_fatal("out of memory for %zu elements of %s", size, c4snet_type_name(type));
    atomic_init(&d->refs, 1);
    d->type = (unsigned char)type;
    d->array = array;
    d->size = size;
    return d;
}

c4snet_data_t *c4snet_data_new(c4snet_type_t type, size_t size, bool array)
{
    return data_new(type, size, array);
}

static void data_free(c4snet_data_t *d)
{
    if (is_small(d))
        small_free(d);
    else
        free(d);
}

void C4SNetInit(int id, snet_distrib_t distImpl)
{
    (void)id;
    (void)distImpl;
}

c4snet_data_t *C4SNetAlloc(c4snet_type_t type, size_t size, void **data)
{
    check_type(type, "C4SNetAlloc");
    c4snet_data_t *d = data_new(type, size, size != 1);
    if (data)
        *data = d->elems;
    return d;
}

c4snet_data_t *C4SNetCreate(c4snet_type_t type, size_t size, const void *data)
{
    check_type(type, "C4SNetCreate");
    c4snet_data_t *d = data_new(type, size, size != 1);
    if (size == 1 && elem_sizes[type] == sizeof(int)) /* the common int: no memcpy call */
        memcpy(d->elems, data, sizeof(int));
    else if (size > 0)
        memcpy(d->elems, data, size * elem_sizes[type]);
    return d;
}

void C4SNetFree(c4snet_data_t *ptr)
{
    if (!ptr)
        return;
    /* Sole owner: nobody else can add a reference, no atomic RMW needed. */
    if (atomic_load_explicit(&ptr->refs, memory_order_acquire) == 1 ||
        atomic_fetch_sub_explicit(&ptr->refs, 1, memory_order_acq_rel) == 1)
        data_free(ptr);
}

c4snet_data_t *C4SNetShallowCopy(c4snet_data_t *ptr)
{
    if (ptr)
        atomic_fetch_add_explicit(&ptr->refs, 1, memory_order_relaxed);
    return ptr;
}

c4snet_data_t *C4SNetDeepCopy(c4snet_data_t *ptr)
{
    if (!ptr)
        return NULL;
    c4snet_data_t *d = c4snet_data_new((c4snet_type_t)ptr->type, ptr->size, ptr->array);
    memcpy(d->elems, ptr->elems, ptr->size * elem_sizes[ptr->type]);
    return d;
}

int C4SNetSizeof(c4snet_data_t *data) { return (int)elem_sizes[data->type]; }

size_t C4SNetArraySize(c4snet_data_t *data) { return data->size; }

void *C4SNetGetData(c4snet_data_t *ptr) { return ptr->elems; }

c4snet_type_t C4SNetGetType(c4snet_data_t *data) { return (c4snet_type_t)data->type; }

char *C4SNetGetString(c4snet_data_t *data)
{
    if (data->type != CTYPE_char && data->type != CTYPE_uchar)
        c4snet_fatal("C4SNetGetString: the data is of type %s, not a char array",
                     c4snet_type_name((c4snet_type_t)data->type));
    char *s = malloc(data->size + 1);
    if (!s)
        c4snet_fatal("C4SNetGetString: out of memory");
    memcpy(s, data->elems, data->size);
    s[data->size] = '\0';
    return s;
}

/* ---- native field values as C4SNet data --------------------------------------------- */

c4snet_data_t *c4snet_from_native(const snet_field_type *type, const void *value)
{
    if (type == &snet_field_int) {
        long v = (long)(intptr_t)value;
        if (v >= INT_MIN && v <= INT_MAX) {
            int i = (int)v;
            return C4SNetCreate(CTYPE_int, 1, &i);
        }
        return C4SNetCreate(CTYPE_long, 1, &v);
    }
    if (type == &snet_field_double) {
        double d;
        memcpy(&d, &value, sizeof d);
        return C4SNetCreate(CTYPE_double, 1, &d);
    }
    if (type == &snet_field_string) {
        const char *s = value ? value : "";
        c4snet_data_t *d = c4snet_data_new(CTYPE_char, strlen(s), true);
        memcpy(d->elems, s, d->size);
        return d;
    }
    return NULL;
}
