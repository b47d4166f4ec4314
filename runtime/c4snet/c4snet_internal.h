/*
 * c4snet_internal.h - the layout of C4SNet data, shared by the files of
 * the c4snet library (data.c, text.c, codec.c, box.c). Not installed.
 *
 * One allocation per value: the header and the elements behind it, for a
 * single value and for an array alike (the original allocated an array's
 * elements apart). The elements are aligned for any C type, so
 * C4SNetGetData's pointer may be used as a long double * or a struct *.
 * refs counts the owners; the data is immutable once it has more than one
 * (a box that writes into data it was given owns it alone, as in the
 * original), so only the count needs atomics.
 */
#ifndef C4SNET_INTERNAL_H
#define C4SNET_INTERNAL_H

#include "c4snet_runtime.h"

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

struct cdata {
    atomic_uint refs;
    unsigned char type; /* c4snet_type_t */
    bool array;         /* written as (TYPE[N]) even when N is 1 */
    size_t size;        /* elements */
    alignas(max_align_t) unsigned char elems[];
};

#define C4SNET_NTYPES ((int)CTYPE_pointer + 1)

/* Bytes of one element of type (which must be valid). */
size_t c4snet_elem_size(c4snet_type_t type);
/* New data with one reference and uninitialised elements; array: written
 * as an array whatever the size (C4SNetAlloc makes size 1 a single value).
 * Ends the program, as the original did, when memory runs out. */
c4snet_data_t *c4snet_data_new(c4snet_type_t type, size_t size, bool array);
/* Print one line and end the program: C4SNet calls have no error results. */
_Noreturn void c4snet_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* C4SNET_INTERNAL_H */
