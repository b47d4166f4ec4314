/*
 * record.c - S-Net records: a small array of labelled entries (fields,
 * tags, binding tags) plus the control records the combinators use.
 *
 * Records are the unit every entity reads and writes, so they are kept
 * cheap: up to SNET_INLINE_ENTRIES labels live inside the record itself
 * (one allocation per record, reused from a per-worker pool), and a label
 * is found by a linear scan that compares name pointers before contents
 * (snet_record_find in snet_internal.h: names are interned when records
 * enter the network, so the pointer test almost always decides).
 */
#include "snet_internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Each worker thread keeps freed records in a pool (kit.h) and reuses
 * them for its next allocations. An entity frees its input right after
 * allocating its output, so a box chain needs one spare per worker; but a
 * task that runs in a burst (the input task filling a stream, the output
 * task draining one) allocates or frees a stream's worth in a row, and
 * with a single spare every one of those went to malloc/free: ~250
 * instructions per record on the 10-stage pipeline, gone with the pool.
 * Only threads running S-Net tasks pool (a thread outside LPEL frees to
 * malloc): the pool is open while S-Net tasks run on the thread and closed
 * (emptied) when the last of them ends, and when the thread ends (a task
 * discarded after a deadlock never ends), so nothing is left when the
 * workers stop.
 *
 * The pools of a run's workers meet at the run's depot. A pipeline across
 * two workers frees on one worker what it allocates on the other (the
 * input task allocates, the output task frees): without the depot every
 * such record went through malloc and free, and glibc's arenas then moved
 * it back (~600 instructions per record of the 2-worker pipeline,
 * callgrind); with the depot the 2-worker S-Net pipeline ran 1.38x as many
 * records per second (median of 8 per-round ratios, interleaved) and its
 * spread over runs fell from 4.1x to 1.5x (max/min). The depot keeps at
 * most DEPOT_MAX records; beyond that they are freed. */
#define DEPOT_MAX 4096

static _Thread_local kit_pool pool = KIT_POOL_INIT(sizeof(snet_record));
static _Thread_local unsigned live_tasks; /* S-Net tasks running on this thread */

void snet_record_depot_init(kit_depot *d) { kit_depot_init(d, sizeof(snet_record), DEPOT_MAX); }

void snet_record_depot_free(kit_depot *d) { kit_depot_destroy(d); }

void snet_record_pool_task_begin(kit_depot *d)
{
    live_tasks++;
    (void)kit_pool_open(&pool, d); /* closed: this thread allocates from malloc */
}

void snet_record_pool_task_end(void)
{
    if (--live_tasks == 0)
        kit_pool_close(&pool);
}

/* Every field of a fresh record, in place (a pooled or malloc'ed block, or
 * a record inside another structure). */
static inline void record_init(snet_record *r, snet_record_kind kind)
{
    r->kind = kind;
    r->id = 0;
    r->count = 0;
    r->cap = SNET_INLINE_ENTRIES;
    r->entries = r->inline_entries;
    r->sort_owner = r->sort_counter = 0;
    r->add_stream = NULL;
    r->name_blob = NULL;
    r->blob_len = 0;
}

static snet_record *record_alloc(snet_record_kind kind)
{
    snet_record *r = kit_pool_get(&pool);
    if (r)
        record_init(r, kind);
    return r;
}

snet_record *snet_record_new(void) { return record_alloc(SNET_REC_DATA); }

snet_record *snet_record_control(snet_record_kind kind) { return record_alloc(kind); }

snet_record *snet_record_sort(uint64_t owner, uint64_t counter)
{
    snet_record *r = record_alloc(SNET_REC_SORT);
    if (r) {
        r->sort_owner = owner;
        r->sort_counter = counter;
    }
    return r;
}

snet_record *snet_record_add(lpel_stream *s)
{
    snet_record *r = record_alloc(SNET_REC_ADD);
    if (r)
        r->add_stream = s;
    return r;
}

void *snet_field_copy(const snet_field_type *t, const void *value)
{
    if (!t || !t->copy)
        return (void *)value;
    return t->copy(value);
}

void snet_field_free(const snet_field_type *t, void *value)
{
    if (t && t->free)
        t->free(value);
}

/* Free the field values of r's entries. */
static inline void free_values(snet_record *r)
{
    for (size_t i = 0; i < r->count; i++)
        if (r->entries[i].kind == SNET_FIELD)
            snet_field_free(r->entries[i].type, r->entries[i].u.value);
}

void snet_record_free(snet_record *r)
{
    if (!r)
        return;
    free_values(r);
    if (snet_unlikely(r->entries != r->inline_entries))
        free(r->entries);
    if (snet_unlikely(r->name_blob != NULL)) /* parsed records only: skip the call */
        free(r->name_blob);
    kit_pool_put(&pool, r);
}

void snet_record_clear(snet_record *r)
{
    free_values(r);
    r->count = 0;
}

static __attribute__((noinline)) int grow(snet_record *r)
{
    if (r->cap > UINT_MAX / 2)
        return SNET_ENOMEM;
    unsigned cap = r->cap * 2;
    snet_entry *grown;
    if (r->entries == r->inline_entries) {
        grown = malloc(cap * sizeof *grown);
        if (grown)
            memcpy(grown, r->entries, r->count * sizeof *grown);
    } else {
        grown = realloc(r->entries, cap * sizeof *grown);
    }
    if (!grown)
        return SNET_ENOMEM;
    r->entries = grown;
    r->cap = cap;
    return SNET_OK;
}

/* A new last entry to fill in place (NULL if out of memory). Filling it
 * field by field, rather than copying a stack temporary, avoids a
 * store-forwarding stall that was the single biggest cost of a box's
 * output record. */
static inline snet_entry *new_entry(snet_record *r)
{
    if (snet_unlikely(r->count == r->cap) && grow(r) != SNET_OK)
        return NULL;
    return &r->entries[r->count++];
}

int snet_record_append(snet_record *r, const snet_entry *e)
{
    snet_entry *slot = new_entry(r);
    if (!slot)
        return SNET_ENOMEM;
    *slot = *e;
    return SNET_OK;
}

int snet_record_append_owned(snet_record *r, const snet_entry *entries, size_t n)
{
    if (n == 0)
        return SNET_OK;
    if (r->name_blob)
        return SNET_EINVAL;
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += strlen(entries[i].name) + 1;
    while (r->cap < r->count + n)
        if (grow(r) != SNET_OK)
            return SNET_ENOMEM;
    char *blob = malloc(total);
    if (!blob)
        return SNET_ENOMEM;
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(entries[i].name) + 1;
        memcpy(blob + used, entries[i].name, len);
        snet_entry *slot = new_entry(r); /* cannot fail: capacity is there */
        *slot = entries[i];
        slot->name = blob + used;
        used += len;
    }
    r->name_blob = blob;
    r->blob_len = total;
    return SNET_OK;
}

/* A parsed record owns its label names in one blob; a copy gets its own. */
static bool copy_blob(snet_record *c, const snet_record *r)
{
    c->name_blob = malloc(r->blob_len);
    if (!c->name_blob)
        return false;
    memcpy(c->name_blob, r->name_blob, r->blob_len);
    c->blob_len = r->blob_len;
    return true;
}

snet_record *snet_record_copy(const snet_record *r)
{
    snet_record *c = record_alloc(r->kind);
    if (!c)
        return NULL;
    c->id = r->id;
    c->sort_owner = r->sort_owner;
    c->sort_counter = r->sort_counter;
    c->add_stream = r->add_stream;
    if (r->name_blob && !copy_blob(c, r)) {
        snet_record_free(c);
        return NULL;
    }
    for (size_t i = 0; i < r->count; i++) {
        snet_entry e = r->entries[i];
        if (e.kind == SNET_FIELD)
            e.u.value = snet_field_copy(e.type, e.u.value);
        if (r->name_blob && e.name >= r->name_blob && e.name < r->name_blob + r->blob_len)
            e.name = c->name_blob + (e.name - r->name_blob);
        if (snet_record_append(c, &e) != SNET_OK) {
            snet_field_free(e.type, e.u.value);
            snet_record_free(c);
            return NULL;
        }
    }
    return c;
}

bool snet_record_remove(snet_record *r, snet_label_kind kind, const char *label)
{
    long i = snet_record_find(r, kind, label);
    if (i < 0)
        return false;
    if (kind == SNET_FIELD)
        snet_field_free(r->entries[i].type, r->entries[i].u.value);
    snet_record_remove_at(r, (size_t)i);
    return true;
}

/* ---- fields ---------------------------------------------------------------- */

/* Setting a field a record already has: rare (a box sets each label of a
 * new record once), so out of line, which keeps the common path of
 * snet_record_set_field free of the registers this call needs. */
static __attribute__((noinline)) void replace_field(snet_entry *e, const snet_field_type *type,
                                                    void *value)
{
    snet_field_free(e->type, e->u.value);
    e->type = type;
    e->u.value = value;
}

int snet_record_set_field(snet_record *r, const char *label, const snet_field_type *type,
                          void *value)
{
    if (snet_unlikely(!r || !label || !type))
        return SNET_EINVAL;
    long i = snet_record_find(r, SNET_FIELD, label);
    if (snet_unlikely(i >= 0)) {
        replace_field(&r->entries[i], type, value);
        return SNET_OK;
    }
    snet_entry *e = new_entry(r);
    if (snet_unlikely(!e))
        return SNET_ENOMEM;
    e->name = label;
    e->kind = SNET_FIELD;
    e->type = type;
    e->u.value = value;
    return SNET_OK;
}

bool snet_record_has_field(const snet_record *r, const char *label)
{
    return snet_record_find(r, SNET_FIELD, label) >= 0;
}

void *snet_record_field(const snet_record *r, const char *label)
{
    long i = snet_record_find(r, SNET_FIELD, label);
    return i < 0 ? NULL : r->entries[i].u.value;
}

const snet_field_type *snet_record_field_type(const snet_record *r, const char *label)
{
    long i = snet_record_find(r, SNET_FIELD, label);
    return i < 0 ? NULL : r->entries[i].type;
}

void *snet_record_take_field(snet_record *r, const char *label)
{
    long i = snet_record_find(r, SNET_FIELD, label);
    if (i < 0)
        return NULL;
    void *v = r->entries[i].u.value;
    snet_record_remove_at(r, (size_t)i);
    return v;
}

int snet_record_set_int(snet_record *r, const char *label, long value)
{
    return snet_record_set_field(r, label, &snet_field_int, (void *)(intptr_t)value);
}

long snet_record_int(const snet_record *r, const char *label)
{
    return (long)(intptr_t)snet_record_field(r, label);
}

int snet_record_set_double(snet_record *r, const char *label, double value)
{
    void *bits;
    _Static_assert(sizeof(double) <= sizeof(void *), "double must fit in a pointer");
    memset(&bits, 0, sizeof bits);
    memcpy(&bits, &value, sizeof value);
    return snet_record_set_field(r, label, &snet_field_double, bits);
}

double snet_record_double(const snet_record *r, const char *label)
{
    double d = 0.0;
    long i = snet_record_find(r, SNET_FIELD, label);
    if (i >= 0)
        memcpy(&d, &r->entries[i].u.value, sizeof d);
    return d;
}

int snet_record_set_string(snet_record *r, const char *label, const char *value)
{
    char *copy = strdup(value ? value : "");
    if (!copy)
        return SNET_ENOMEM;
    int rc = snet_record_set_field(r, label, &snet_field_string, copy);
    if (rc != SNET_OK)
        free(copy);
    return rc;
}

const char *snet_record_string(const snet_record *r, const char *label)
{
    return snet_record_field(r, label);
}

/* ---- tags -------------------------------------------------------------------- */

static int set_tag(snet_record *r, snet_label_kind kind, const char *label, long value)
{
    if (!r || !label)
        return SNET_EINVAL;
    long i = snet_record_find(r, kind, label);
    if (i >= 0) {
        r->entries[i].u.tag = value;
        return SNET_OK;
    }
    snet_entry *e = new_entry(r);
    if (!e)
        return SNET_ENOMEM;
    e->name = label;
    e->kind = kind;
    e->type = NULL;
    e->u.tag = value;
    return SNET_OK;
}

static long get_tag(const snet_record *r, snet_label_kind kind, const char *label)
{
    long i = snet_record_find(r, kind, label);
    return i < 0 ? 0 : r->entries[i].u.tag;
}

int snet_record_set_tag(snet_record *r, const char *label, long value)
{
    return set_tag(r, SNET_TAG, label, value);
}
bool snet_record_has_tag(const snet_record *r, const char *label)
{
    return snet_record_find(r, SNET_TAG, label) >= 0;
}
long snet_record_tag(const snet_record *r, const char *label)
{
    return get_tag(r, SNET_TAG, label);
}
int snet_record_set_btag(snet_record *r, const char *label, long value)
{
    return set_tag(r, SNET_BTAG, label, value);
}
bool snet_record_has_btag(const snet_record *r, const char *label)
{
    return snet_record_find(r, SNET_BTAG, label) >= 0;
}
long snet_record_btag(const snet_record *r, const char *label)
{
    return get_tag(r, SNET_BTAG, label);
}

/* ---- inspection --------------------------------------------------------------- */

size_t snet_record_label_count(const snet_record *r) { return r->count; }

const char *snet_record_label(const snet_record *r, size_t i, snet_label_kind *kind)
{
    if (i >= r->count)
        return NULL;
    if (kind)
        *kind = r->entries[i].kind;
    return r->entries[i].name;
}

uint64_t snet_record_id(const snet_record *r) { return r->id; }

void snet_record_labels_text(const snet_record *r, char *buf, size_t len)
{
    size_t used = 0;
    if (len == 0)
        return;
    buf[0] = '\0';
    used += (size_t)snprintf(buf, len, "{");
    for (size_t i = 0; i < r->count && used < len; i++) {
        const snet_entry *e = &r->entries[i];
        const char *open = e->kind == SNET_FIELD ? "" : e->kind == SNET_TAG ? "<" : "<#";
        const char *close = e->kind == SNET_FIELD ? "" : ">";
        used += (size_t)snprintf(buf + used, len - used, "%s%s%s%s", i ? ", " : "", open,
                                 e->name, close);
    }
    if (used < len)
        snprintf(buf + used, len - used, "}");
}
