/*
 * wire_internal.h - records as bytes (docs/WIRE.md): the growing byte
 * buffer, little-endian integers, and one record written to / read from a
 * buffer. Nothing here needs MPI, so the format is tested in every build.
 */
#ifndef SNET_WIRE_INTERNAL_H
#define SNET_WIRE_INTERNAL_H

#include "snet_internal.h"

struct snet_bytes {
    unsigned char *data;
    size_t len, cap;
    bool failed; /* an allocation failed: the contents are incomplete */
};

void snet_bytes_init(snet_bytes *b);
void snet_bytes_free(snet_bytes *b);
void snet_bytes_u8(snet_bytes *b, uint8_t v);
void snet_bytes_u16(snet_bytes *b, uint16_t v);
void snet_bytes_u32(snet_bytes *b, uint32_t v);
void snet_bytes_u64(snet_bytes *b, uint64_t v);
/* Overwrite 4 bytes at offset (a length written before the data). */
void snet_bytes_patch_u32(snet_bytes *b, size_t offset, uint32_t v);

/* Reading a buffer: every read past the end sets bad and yields zeros, so
 * a caller checks once at the end of a record. */
typedef struct snet_wire_in {
    const unsigned char *p, *end;
    bool bad;
} snet_wire_in;

uint8_t snet_wire_u8(snet_wire_in *in);
uint16_t snet_wire_u16(snet_wire_in *in);
uint32_t snet_wire_u32(snet_wire_in *in);
uint64_t snet_wire_u64(snet_wire_in *in);
/* n bytes in place (NULL and bad if fewer are left). */
const unsigned char *snet_wire_take(snet_wire_in *in, size_t n);

/* What one reader has looked up already: label names (interned in the
 * run's table) and field types by their wire names. */
typedef struct snet_wire_name {
    const char *interned;
    size_t len;
} snet_wire_name;

typedef struct snet_wire_cache {
    snet_wire_name *names;
    size_t nnames, capnames;
} snet_wire_cache;

void snet_wire_cache_free(snet_wire_cache *c);

/* Append record r (data or sort marker). A sort marker's owner (a task id
 * of this rank) is tagged with this rank so that it stays unique on
 * others. Returns SNET_OK, or SNET_ERUNTIME with a message (a field whose
 * type has no codec, a control record that cannot cross). */
int snet_wire_put_record(snet_bytes *b, const snet_record *r, const snet_run *run, char *err,
                         size_t errlen);

/* Read one record. SNET_OK with *out set, or SNET_ERUNTIME with a message
 * (truncated or malformed bytes, a type not registered here). */
int snet_wire_get_record(snet_wire_in *in, snet_record **out, snet_wire_cache *cache,
                         snet_run *run, char *err, size_t errlen);

/* Sort-marker owners across ranks: rank r's task t travels as
 * ((r + 1) << 48) | t, and becomes t again on rank r. */
#define SNET_WIRE_OWNER_SHIFT 48

#endif /* SNET_WIRE_INTERNAL_H */
