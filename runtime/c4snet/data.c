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
 * execution in a box that computes a new value: each thread keeps up to
 * POOL_BLOCKS freed blocks of that size and reuses them, as the runtime
 * does with records. A malloc and free cost ~170 instructions per value
 * on the 10-box C4SNet pipeline (callgrind), the pool ~20. A block freed
 * on another thread goes to that thread's pool. Values made on one worker
 * and freed on another (the input task's, a box's output read by the next
 * box) would leave one pool always empty and the other always full, and
 * every such value would go through malloc on one thread and free on the
 * other, glibc's slowest path: so, as the runtime does with records, a
 * full pool passes half its blocks to a shared depot and an empty one
 * takes them from there, a lock per DEPOT_BATCH values. A thread's pool
 * is emptied when the thread ends, the depot when the program does.
 * Under AddressSanitizer pooled blocks are poisoned, so a use after
 * C4SNetFree is still reported.
 */
#include "c4snet_internal.h"

#include <limits.h>
#include <pthread.h>
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

#define POOL_BLOCKS 64
#define SMALL_BYTES sizeof(long double) /* elements that fit a pooled block */
#define SMALL_BLOCK (sizeof(struct cdata) + SMALL_BYTES)

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define BLOCK_POISON(p) ASAN_POISON_MEMORY_REGION((p), SMALL_BLOCK)
#define BLOCK_UNPOISON(p) ASAN_UNPOISON_MEMORY_REGION((p), SMALL_BLOCK)
#else
#define BLOCK_POISON(p) ((void)(p))
#define BLOCK_UNPOISON(p) ((void)(p))
#endif

static _Thread_local void *pool[POOL_BLOCKS];
static _Thread_local unsigned pooled;
static _Thread_local bool pool_registered; /* pool_key set for this thread */
static pthread_key_t pool_key;
static bool pool_key_made;
static pthread_once_t pool_once = PTHREAD_ONCE_INIT;

/* The depot between the threads' pools: at most DEPOT_MAX blocks. */
#define DEPOT_BATCH (POOL_BLOCKS / 2)
#define DEPOT_MAX 4096
static pthread_mutex_t depot_lock = PTHREAD_MUTEX_INITIALIZER;
static void *depot[DEPOT_MAX];
static atomic_size_t depot_count; /* read without the lock to skip an empty depot */

static void pool_empty(void *unused)
{
    (void)unused;
    while (pooled > 0) {
        void *p = pool[--pooled];
        BLOCK_UNPOISON(p);
        free(p);
    }
}

static void __attribute__((destructor)) depot_empty(void)
{
    pthread_mutex_lock(&depot_lock);
    for (size_t n = atomic_load(&depot_count); n > 0; n--) {
        BLOCK_UNPOISON(depot[n - 1]);
        free(depot[n - 1]);
    }
    atomic_store(&depot_count, 0);
    pthread_mutex_unlock(&depot_lock);
}

static void make_pool_key(void) { pool_key_made = pthread_key_create(&pool_key, pool_empty) == 0; }

/* The pool is empty: take a batch from the depot, if it has any. */
static __attribute__((noinline)) void pool_refill(void)
{
    pthread_mutex_lock(&depot_lock);
    size_t n = atomic_load_explicit(&depot_count, memory_order_relaxed);
    while (pooled < DEPOT_BATCH && n > 0)
        pool[pooled++] = depot[--n];
    atomic_store_explicit(&depot_count, n, memory_order_relaxed);
    pthread_mutex_unlock(&depot_lock);
}

/* The pool is full: half of it to the depot (what does not fit is freed). */
static __attribute__((noinline)) void pool_spill(void)
{
    unsigned moved = 0;
    pthread_mutex_lock(&depot_lock);
    size_t n = atomic_load_explicit(&depot_count, memory_order_relaxed);
    while (moved < DEPOT_BATCH && n < DEPOT_MAX) {
        depot[n++] = pool[--pooled];
        moved++;
    }
    atomic_store_explicit(&depot_count, n, memory_order_relaxed);
    pthread_mutex_unlock(&depot_lock);
    for (; moved < DEPOT_BATCH; moved++) {
        void *p = pool[--pooled];
        BLOCK_UNPOISON(p);
        free(p);
    }
}

/* A block of SMALL_BLOCK bytes, from the pool if it has one. */
static inline void *small_block(void)
{
    if (__builtin_expect(pooled == 0, 0) && atomic_load_explicit(&depot_count, memory_order_relaxed))
        pool_refill();
    if (pooled > 0) {
        void *p = pool[--pooled];
        BLOCK_UNPOISON(p);
        return p;
    }
    return malloc(SMALL_BLOCK);
}

/* Keep a freed small block, if this thread's pool can empty itself when
 * the thread ends. */
static __attribute__((noinline)) bool pool_register(void)
{
    pthread_once(&pool_once, make_pool_key);
    pool_registered = pool_key_made && pthread_setspecific(pool_key, &pooled) == 0;
    return pool_registered;
}

static inline void small_free(void *p)
{
    if (__builtin_expect(pool_registered, 1) || pool_register()) {
        if (__builtin_expect(pooled == POOL_BLOCKS, 0))
            pool_spill();
        BLOCK_POISON(p);
        pool[pooled++] = p;
    } else {
        free(p);
    }
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
