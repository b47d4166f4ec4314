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
 */
#include "c4snet_internal.h"

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

c4snet_data_t *c4snet_data_new(c4snet_type_t type, size_t size, bool array)
{
    size_t elem = elem_sizes[type];
    if (size > (SIZE_MAX - sizeof(struct cdata)) / elem)
        c4snet_fatal("an array of %zu elements of %s is too large", size, c4snet_type_name(type));
    c4snet_data_t *d = malloc(sizeof *d + size * elem);
    if (!d)
        c4snet_fatal("out of memory for %zu elements of %s", size, c4snet_type_name(type));
    atomic_init(&d->refs, 1);
    d->type = (unsigned char)type;
    d->array = array;
    d->size = size;
    return d;
}

void C4SNetInit(int id, snet_distrib_t distImpl)
{
    (void)id;
    (void)distImpl;
}

c4snet_data_t *C4SNetAlloc(c4snet_type_t type, size_t size, void **data)
{
    check_type(type, "C4SNetAlloc");
    c4snet_data_t *d = c4snet_data_new(type, size, size != 1);
    if (data)
        *data = d->elems;
    return d;
}

c4snet_data_t *C4SNetCreate(c4snet_type_t type, size_t size, const void *data)
{
    check_type(type, "C4SNetCreate");
    c4snet_data_t *d = c4snet_data_new(type, size, size != 1);
    if (size > 0)
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
        free(ptr);
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
