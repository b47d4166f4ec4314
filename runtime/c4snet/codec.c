/*
 * codec.c - C4SNet data across MPI ranks (snet_codec, docs/WIRE.md): the
 * bytes of a c4snet_field value are
 *
 *     type     1 byte, the CTYPE_* number
 *     array    1 byte, 1 if written as an array, else 0
 *     count    8 bytes, the number of elements (host order)
 *     elements count * the element size, as they are in memory
 *
 * Like the built-in codecs it sends numbers in the host's byte order and
 * layout (ranks run on machines of one kind). A pointer crosses as its
 * bits, which mean nothing on the other rank; the original sent them the
 * same way.
 */
#include "c4snet_internal.h"

#include <stdint.h>
#include <string.h>

#define HEAD 10

static int encode(const void *value, snet_bytes *out)
{
    const c4snet_data_t *d = value;
    unsigned char head[HEAD];
    uint64_t count = d->size;
    head[0] = d->type;
    head[1] = d->array;
    memcpy(head + 2, &count, sizeof count);
    if (snet_bytes_put(out, head, sizeof head) != SNET_OK)
        return -1;
    size_t bytes = d->size * c4snet_elem_size((c4snet_type_t)d->type);
    return bytes == 0 || snet_bytes_put(out, d->elems, bytes) == SNET_OK ? 0 : -1;
}

static int decode(const void *data, size_t len, void **value)
{
    const unsigned char *b = data;
    uint64_t count;
    if (len < HEAD || b[0] >= C4SNET_NTYPES || b[1] > 1)
        return -1;
    memcpy(&count, b + 2, sizeof count);
    size_t elem = c4snet_elem_size((c4snet_type_t)b[0]);
    if (count > (len - HEAD) / elem || count * elem != len - HEAD)
        return -1;
    c4snet_data_t *d = c4snet_data_new((c4snet_type_t)b[0], (size_t)count, b[1] != 0);
    memcpy(d->elems, b + HEAD, len - HEAD);
    *value = d;
    return 0;
}

const snet_codec c4snet_codec = {&c4snet_field, encode, decode};
