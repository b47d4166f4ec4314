/*
 * wire.c - the wire format of records (docs/WIRE.md) and the codecs that
 * turn field values into bytes: int, double and string built in, any other
 * field type through a codec the program registers (snet_run_register_codec).
 *
 * Integers are little-endian whatever the host, written byte by byte, so
 * ranks on different machines agree. Label and type names travel as text
 * and are looked up (interned) on arrival: ranks share no addresses.
 */
#include "wire_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- the byte buffer -------------------------------------------------------------- */

void snet_bytes_init(snet_bytes *b) { *b = (snet_bytes){0}; }

void snet_bytes_free(snet_bytes *b)
{
    free(b->data);
    *b = (snet_bytes){0};
}

static bool reserve(snet_bytes *b, size_t more)
{
    if (b->failed)
        return false;
    if (b->len + more <= b->cap)
        return true;
    if (more > SIZE_MAX - b->len || KIT_GROW(b->data, b->cap, b->len + more) != 0) {
        b->failed = true;
        return false;
    }
    return true;
}

int snet_bytes_put(snet_bytes *b, const void *data, size_t len)
{
    if (!b || (len && !data))
        return SNET_EINVAL;
    if (!reserve(b, len))
        return SNET_ENOMEM;
    if (len)
        memcpy(b->data + b->len, data, len);
    b->len += len;
    return SNET_OK;
}

static void put_le(snet_bytes *b, uint64_t v, unsigned n)
{
    if (!reserve(b, n))
        return;
    for (unsigned i = 0; i < n; i++)
        b->data[b->len++] = (unsigned char)(v >> (8 * i));
}

void snet_bytes_u8(snet_bytes *b, uint8_t v) { put_le(b, v, 1); }
void snet_bytes_u16(snet_bytes *b, uint16_t v) { put_le(b, v, 2); }
void snet_bytes_u32(snet_bytes *b, uint32_t v) { put_le(b, v, 4); }
void snet_bytes_u64(snet_bytes *b, uint64_t v) { put_le(b, v, 8); }

void snet_bytes_patch_u32(snet_bytes *b, size_t offset, uint32_t v)
{
    if (b->failed || offset + 4 > b->len)
        return;
    for (unsigned i = 0; i < 4; i++)
        b->data[offset + i] = (unsigned char)(v >> (8 * i));
}

/* ---- reading ------------------------------------------------------------------------ */

const unsigned char *snet_wire_take(snet_wire_in *in, size_t n)
{
    if (in->bad || (size_t)(in->end - in->p) < n) {
        in->bad = true;
        return NULL;
    }
    const unsigned char *at = in->p;
    in->p += n;
    return at;
}

static uint64_t get_le(snet_wire_in *in, unsigned n)
{
    const unsigned char *p = snet_wire_take(in, n);
    uint64_t v = 0;
    for (unsigned i = 0; p && i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

uint8_t snet_wire_u8(snet_wire_in *in) { return (uint8_t)get_le(in, 1); }
uint16_t snet_wire_u16(snet_wire_in *in) { return (uint16_t)get_le(in, 2); }
uint32_t snet_wire_u32(snet_wire_in *in) { return (uint32_t)get_le(in, 4); }
uint64_t snet_wire_u64(snet_wire_in *in) { return get_le(in, 8); }

/* ---- codecs --------------------------------------------------------------------------- */

static int bits_encode(const void *value, snet_bytes *out)
{
    snet_bytes_u64(out, (uint64_t)(uintptr_t)value);
    return out->failed ? -1 : 0;
}

static int bits_decode(const void *data, size_t len, void **value)
{
    if (len != 8)
        return -1;
    snet_wire_in in = {data, (const unsigned char *)data + len, false};
    *value = (void *)(uintptr_t)snet_wire_u64(&in);
    return 0;
}

static int string_encode(const void *value, snet_bytes *out)
{
    const char *s = value ? value : "";
    return snet_bytes_put(out, s, strlen(s)) == SNET_OK ? 0 : -1;
}

static int string_decode(const void *data, size_t len, void **value)
{
    if (memchr(data, '\0', len))
        return -1;
    char *s = strndup(data, len);
    if (!s)
        return -1;
    *value = s;
    return 0;
}

/* A double lives in the pointer bits like an int, so the same 8 bytes do. */
static const snet_codec builtin_codecs[] = {
    {&snet_field_int, bits_encode, bits_decode},
    {&snet_field_double, bits_encode, bits_decode},
    {&snet_field_string, string_encode, string_decode},
};
#define NBUILTIN (sizeof builtin_codecs / sizeof builtin_codecs[0])

int snet_run_register_codec(snet_run *run, const snet_codec *codec)
{
    if (!run || !codec || !codec->type || !codec->type->name || !codec->encode ||
        !codec->decode)
        return SNET_EINVAL;
    const snet_codec **grown = realloc(run->codecs, (run->ncodecs + 1) * sizeof *grown);
    if (!grown)
        return SNET_ENOMEM;
    run->codecs = grown;
    run->codecs[run->ncodecs++] = codec;
    return SNET_OK;
}

static const snet_codec *codec_for_type(const snet_run *run, const snet_field_type *t)
{
    for (size_t i = 0; i < NBUILTIN; i++)
        if (builtin_codecs[i].type == t)
            return &builtin_codecs[i];
    for (size_t i = 0; i < run->ncodecs; i++)
        if (run->codecs[i]->type == t)
            return run->codecs[i];
    return NULL;
}

static const snet_codec *codec_for_name(const snet_run *run, const char *name, size_t len)
{
    for (size_t i = 0; i < NBUILTIN; i++) {
        const char *n = builtin_codecs[i].type->name;
        if (strlen(n) == len && !memcmp(n, name, len))
            return &builtin_codecs[i];
    }
    for (size_t i = 0; i < run->ncodecs; i++) {
        const char *n = run->codecs[i]->type->name;
        if (strlen(n) == len && !memcmp(n, name, len))
            return run->codecs[i];
    }
    return NULL;
}

/* ---- records out --------------------------------------------------------------------- */

enum { WIRE_DATA = 0, WIRE_SORT = 1 };

static void put_name(snet_bytes *b, const char *name)
{
    size_t len = strlen(name);
    snet_bytes_u16(b, (uint16_t)len);
    snet_bytes_put(b, name, len);
}

static int put_field(snet_bytes *b, const snet_entry *e, const snet_run *run, char *err,
                     size_t errlen)
{
    const snet_codec *c = codec_for_type(run, e->type);
    if (!c) {
        snet_set_error(err, errlen,
                       "field '%s' has type '%s', which has no codec to cross ranks "
                       "(register one on every rank with snet_run_register_codec)",
                       e->name, e->type && e->type->name ? e->type->name : "?");
        return SNET_ERUNTIME;
    }
    put_name(b, c->type->name);
    size_t at = b->len;
    snet_bytes_u32(b, 0);
    if (c->encode(e->u.value, b) != 0) {
        snet_set_error(err, errlen, "field '%s': the codec of type '%s' could not encode it",
                       e->name, c->type->name);
        return SNET_ERUNTIME;
    }
    size_t len = b->len - at - 4;
    if (len > UINT32_MAX) {
        snet_set_error(err, errlen, "field '%s' is larger than 4 GiB", e->name);
        return SNET_ERUNTIME;
    }
    snet_bytes_patch_u32(b, at, (uint32_t)len);
    return SNET_OK;
}

int snet_wire_put_record(snet_bytes *b, const snet_record *r, const snet_run *run, char *err,
                         size_t errlen)
{
    if (r->kind == SNET_REC_SORT) {
        uint64_t owner = r->sort_owner;
        if (owner >> SNET_WIRE_OWNER_SHIFT == 0) /* ours: say whose */
            owner |= (uint64_t)(run->rank + 1) << SNET_WIRE_OWNER_SHIFT;
        snet_bytes_u8(b, WIRE_SORT);
        snet_bytes_u64(b, owner);
        snet_bytes_u64(b, r->sort_counter);
        return b->failed ? SNET_ENOMEM : SNET_OK;
    }
    if (r->kind != SNET_REC_DATA) {
        snet_set_error(err, errlen, "a combinator's control record (kind %d) reached another "
                                    "rank; only data records and sort markers cross",
                       (int)r->kind);
        return SNET_ERUNTIME;
    }
    snet_bytes_u8(b, WIRE_DATA);
    snet_bytes_u64(b, r->id);
    snet_bytes_u32(b, (uint32_t)r->count);
    for (size_t i = 0; i < r->count; i++) {
        const snet_entry *e = &r->entries[i];
        snet_bytes_u8(b, (uint8_t)e->kind);
        put_name(b, e->name);
        if (e->kind == SNET_FIELD) {
            int rc = put_field(b, e, run, err, errlen);
            if (rc != SNET_OK)
                return rc;
        } else {
            snet_bytes_u64(b, (uint64_t)e->u.tag);
        }
    }
    return b->failed ? SNET_ENOMEM : SNET_OK;
}

/* ---- records in ------------------------------------------------------------------------ */

void snet_wire_cache_free(snet_wire_cache *c)
{
    free(c->names);
    *c = (snet_wire_cache){0};
}

/* The interned copy of a name read from the wire, remembered per reader
 * so that the run's table (and its lock) is consulted once per name. */
static const char *lookup_name(snet_wire_cache *c, snet_run *run, const char *text, size_t len)
{
    for (size_t i = 0; i < c->nnames; i++)
        if (c->names[i].len == len && !memcmp(c->names[i].interned, text, len))
            return c->names[i].interned;
    const char *interned = snet_run_intern_name(run, text, len);
    if (!interned)
        return NULL;
    if (KIT_GROW(c->names, c->capnames, c->nnames + 1) != 0)
        return interned; /* still right, only not remembered */
    c->names[c->nnames++] = (snet_wire_name){interned, len};
    return interned;
}

static const char *get_name(snet_wire_in *in, size_t *len)
{
    *len = snet_wire_u16(in);
    return (const char *)snet_wire_take(in, *len);
}

static int get_field(snet_wire_in *in, snet_entry *e, snet_run *run, char *err, size_t errlen)
{
    size_t tlen;
    const char *tname = get_name(in, &tlen);
    uint32_t vlen = snet_wire_u32(in);
    const unsigned char *value = snet_wire_take(in, vlen);
    if (in->bad) {
        snet_set_error(err, errlen, "the bytes end inside field '%s'", e->name);
        return SNET_ERUNTIME;
    }
    const snet_codec *c = codec_for_name(run, tname, tlen);
    if (!c) {
        snet_set_error(err, errlen,
                       "field '%s' has type '%.*s', which is not registered on this rank "
                       "(snet_run_register_codec)",
                       e->name, (int)tlen, tname);
        return SNET_ERUNTIME;
    }
    if (c->decode(value, vlen, &e->u.value) != 0) {
        snet_set_error(err, errlen, "field '%s': the codec of type '%s' rejected its %u bytes",
                       e->name, c->type->name, vlen);
        return SNET_ERUNTIME;
    }
    e->type = c->type;
    return SNET_OK;
}

static int get_data(snet_wire_in *in, snet_record *r, snet_wire_cache *cache, snet_run *run,
                    char *err, size_t errlen)
{
    r->id = snet_wire_u64(in);
    uint32_t n = snet_wire_u32(in);
    for (uint32_t i = 0; i < n && !in->bad; i++) {
        snet_entry e = {0};
        uint8_t kind = snet_wire_u8(in);
        size_t len;
        const char *name = get_name(in, &len);
        if (in->bad)
            break;
        if (kind > SNET_BTAG) {
            snet_set_error(err, errlen, "label %u has kind %u (expected 0-2)", i, kind);
            return SNET_ERUNTIME;
        }
        e.kind = (snet_label_kind)kind;
        e.name = lookup_name(cache, run, name, len);
        if (!e.name) {
            snet_set_error(err, errlen, "out of memory");
            return SNET_ENOMEM;
        }
        if (e.kind == SNET_FIELD) {
            int rc = get_field(in, &e, run, err, errlen);
            if (rc != SNET_OK)
                return rc;
        } else {
            e.u.tag = (long)snet_wire_u64(in);
        }
        if (in->bad)
            break;
        if (snet_record_append(r, &e) != SNET_OK) {
            if (e.kind == SNET_FIELD)
                snet_field_free(e.type, e.u.value);
            snet_set_error(err, errlen, "out of memory");
            return SNET_ENOMEM;
        }
    }
    return SNET_OK;
}

int snet_wire_get_record(snet_wire_in *in, snet_record **out, snet_wire_cache *cache,
                         snet_run *run, char *err, size_t errlen)
{
    *out = NULL;
    uint8_t kind = snet_wire_u8(in);
    snet_record *r = NULL;
    int rc = SNET_OK;
    if (kind == WIRE_SORT) {
        uint64_t owner = snet_wire_u64(in);
        uint64_t counter = snet_wire_u64(in);
        if (owner >> SNET_WIRE_OWNER_SHIFT == (uint64_t)(run->rank + 1)) /* back home */
            owner &= (UINT64_C(1) << SNET_WIRE_OWNER_SHIFT) - 1;
        r = snet_record_sort(owner, counter);
    } else if (kind == WIRE_DATA) {
        r = snet_record_new();
        if (r)
            rc = get_data(in, r, cache, run, err, errlen);
    } else if (!in->bad) {
        snet_set_error(err, errlen, "record kind %u (expected 0 data or 1 sort marker)", kind);
        return SNET_ERUNTIME;
    }
    if (!r) {
        snet_set_error(err, errlen, "out of memory");
        return SNET_ENOMEM;
    }
    if (rc == SNET_OK && in->bad) {
        snet_set_error(err, errlen, "the bytes end inside a record");
        rc = SNET_ERUNTIME;
    }
    if (rc != SNET_OK) {
        snet_record_free(r);
        return rc;
    }
    *out = r;
    return SNET_OK;
}
