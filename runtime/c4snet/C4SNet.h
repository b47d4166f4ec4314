/*
 * C4SNet.h - the C4SNet box interface, as boxes written for the original
 * S-Net runtime (snetdev/snet-rts) call it, so that their sources compile
 * here unchanged:
 *
 *     cc -shared -fPIC $(pkg-config --cflags c4snet) foo.c -o libfoo.so
 *     snetrun NET.snet --boxes libfoo.so -i input.xml
 *
 * A box declared in a .snet file as
 *
 *     box foo ((A, <cnt>) -> (A, <cnt>) | (B));
 *
 * is the C function
 *
 *     void *foo(void *hnd, c4snet_data_t *A, int cnt);
 *
 * called once per input record with the labels of its input type in the
 * order the signature names them (fields as c4snet_data_t *, tags and
 * binding tags as int). The box owns the fields it is given: it frees
 * them (C4SNetFree) or passes them on to C4SNetOut. It emits records with
 * C4SNetOut(hnd, V, ...): output variant V of the signature (numbered from
 * 1), then that variant's labels in order, a field as a c4snet_data_t *
 * whose ownership passes to the record, a tag as an int. Labels of the
 * input record that the box does not take are added to every output
 * (flow inheritance). The box returns hnd.
 *
 * Field data is reference counted (C11 atomics): C4SNetShallowCopy adds a
 * reference, C4SNetFree drops one and frees the data with the last, from
 * any thread. docs/C4SNET.md describes the interface and what differs
 * from the original runtime; the functions are provided by the program
 * that loads the box library (snetrun), so a box library links nothing.
 */
#ifndef C4SNET_H
#define C4SNET_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A field's value: one element or an array of one C type. */
typedef struct cdata c4snet_data_t;

/* The C types of field data, in the original runtime's order (their
 * numbers are part of its binary encodings). */
typedef enum {
    CTYPE_uchar,   /* unsigned char */
    CTYPE_char,    /* signed char */
    CTYPE_ushort,  /* unsigned short */
    CTYPE_short,   /* short */
    CTYPE_uint,    /* unsigned int */
    CTYPE_int,     /* int */
    CTYPE_ulong,   /* unsigned long */
    CTYPE_long,    /* long */
    CTYPE_float,   /* float */
    CTYPE_double,  /* double */
    CTYPE_ldouble, /* long double */
    CTYPE_pointer  /* void * */
} c4snet_type_t;

/* The distribution layers the original runtime could be built with; only
 * C4SNetInit's signature uses it here. */
typedef enum { nodist = 0, mpi, scc, zmq } snet_distrib_t;

/* The interface's start-up in the original runtime; nothing to do here
 * (the runtime registers the field type itself). */
void C4SNetInit(int id, snet_distrib_t distImpl);

/* New data of size elements of type (size 1: a single value, else an
 * array), uninitialised; *data points at the elements. */
c4snet_data_t *C4SNetAlloc(c4snet_type_t type, size_t size, void **data);

/* New data of size elements of type, copied from data. */
c4snet_data_t *C4SNetCreate(c4snet_type_t type, size_t size, const void *data);

/* Drop one reference; the last frees the data. */
void C4SNetFree(c4snet_data_t *ptr);

/* One more reference to the same data (nothing is copied). */
c4snet_data_t *C4SNetShallowCopy(c4snet_data_t *ptr);

/* A new copy of the data, with one reference. */
c4snet_data_t *C4SNetDeepCopy(c4snet_data_t *ptr);

/* The size in bytes of one element. */
int C4SNetSizeof(c4snet_data_t *data);

/* The number of elements (1 for a single value). */
size_t C4SNetArraySize(c4snet_data_t *data);

/* The elements. */
void *C4SNetGetData(c4snet_data_t *ptr);

/* The C type of the elements. */
c4snet_type_t C4SNetGetType(c4snet_data_t *data);

/* A char array (CTYPE_char or CTYPE_uchar) as a new NUL-terminated string
 * (free it with SNetMemFree or free). */
char *C4SNetGetString(c4snet_data_t *data);

/* Emit a record of output variant `variant` (from 1), its labels' values
 * following in the order of the signature. */
void C4SNetOut(void *hnd, int variant, ...);

#ifdef __cplusplus
}
#endif

#endif /* C4SNET_H */
