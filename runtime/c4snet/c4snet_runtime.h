/*
 * c4snet_runtime.h - the runtime's side of the C4SNet box interface
 * (library c4snet): what snetrun, the XML records and the tests use to run
 * boxes written against C4SNet.h. Box code never includes this.
 *
 *   field type   c4snet_field: C4SNet data as a field of a record (copy =
 *                C4SNetShallowCopy, free = C4SNetFree), and its codec for
 *                records that cross MPI ranks (docs/WIRE.md)
 *   text         the original runtime's textual form of a value,
 *                "(int)5", "(double[2])1.0...e+00,2.0...e+00", "(char)x",
 *                written and read exactly as it did (docs/C4SNET.md)
 *   boxes        c4snet_box_new: a C function with a C4SNet signature as a
 *                box of the builder API (snet_box), called through libffi
 *                with the labels of its declared input type in order
 *
 *     c4snet_box *cb;
 *     if (c4snet_box_new(&cb, "foo", (void (*)(void))foo,
 *                        "(A, <cnt>) -> (A, <cnt>) | (B)", err, sizeof err) != SNET_OK) ...
 *     snet_net *net = snet_box("foo", "(A, <cnt>) -> (A, <cnt>) | (B)",
 *                              c4snet_box_call, cb);
 *     ... runs ...
 *     snet_net_free(net);
 *     c4snet_box_free(cb);          // after every net using it is freed
 */
#ifndef C4SNET_RUNTIME_H
#define C4SNET_RUNTIME_H

#include "C4SNet.h"

#include <snet.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- field type and codec ---------------------------------------------------- */

/* Fields holding C4SNet data. In the text format of docs/RECORDS.md the
 * value is the original's text quoted as a string: x:c4snet="(int[2])1,2". */
extern const snet_field_type c4snet_field;
/* How c4snet_field values cross MPI ranks (snet_run_register_codec). */
extern const snet_codec c4snet_codec;

/* ---- text --------------------------------------------------------------------- */

/* The C type of a name as the original writes it ("unsigned char", "int",
 * "long double", "pointer"), also accepting "unsigned", "signed char",
 * "long int", "long long" and their unsigned forms; -1 if none. */
int c4snet_type_from_name(const char *name, size_t len);
/* The original's name of a type ("unsigned short"). */
const char *c4snet_type_name(c4snet_type_t type);

/* Write the value as the original did: "(int)5", "(int[3])1,2,3",
 * "(char)x", floats "%.32f", doubles "%.32le", long doubles "%.32Le".
 * Characters are written as they are (the XML writer escapes them). 0 or
 * -1 on a write error. */
int c4snet_text_write(FILE *out, const c4snet_data_t *data);

/* Read text[0..len), "(TYPE)VALUE" or "(TYPE[N])V1,...,VN", into new data
 * (one reference). Whole numbers are decimal (or 0x hexadecimal) and must
 * fit their type; a char is exactly one byte. 0, or -1 with a message in
 * err ("expected ..."). */
int c4snet_text_read(const char *text, size_t len, c4snet_data_t **out, char *err,
                     size_t errlen);

/* ---- boxes -------------------------------------------------------------------- */

typedef struct c4snet_box c4snet_box;

/* A box whose C function fn takes (void *hnd, then each label of the input
 * type of signature, in order: fields as c4snet_data_t *, tags as int) and
 * returns void *. signature is a box signature in S-Net syntax with one
 * input variant (possibly empty: fn(hnd)); name is used in messages. How
 * to call fn is decided here, once (a direct call for up to 4 labels, a
 * libffi call description beyond). snet_box must be given the same
 * signature: the call reads the box node's labels by position. SNET_OK,
 * or SNET_EINVAL / SNET_ENOMEM with a message. */
int c4snet_box_new(c4snet_box **out, const char *name, void (*fn)(void), const char *signature,
                   char *err, size_t errlen);
void c4snet_box_free(c4snet_box *b);

/* The snet_box_fn of every C4SNet box; its user pointer is the c4snet_box.
 * Takes the input's fields (native int, double and string fields are
 * converted to C4SNet data) and tags, calls the function; the box's
 * C4SNetOut calls become snet_out. Errors (a variant out of range, a NULL
 * field, a field of another type) are runtime errors naming the box. */
int c4snet_box_call(snet_handle *h, snet_record *in);

/* Native int, double and string values as C4SNet data (int: CTYPE_int if
 * the value fits, else CTYPE_long; string: a char array without the NUL);
 * NULL for other field types. The value stays the caller's. */
c4snet_data_t *c4snet_from_native(const snet_field_type *type, const void *value);

#ifdef __cplusplus
}
#endif

#endif /* C4SNET_RUNTIME_H */
