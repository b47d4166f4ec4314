/*
 * sync.c - the synchro-cell [| {a}, {b, <t>} |]: one task that stores the
 * first record matching each pattern; when every pattern holds one it
 * emits their merge and from then on passes every record through.
 *
 * As in the original S-Net runtime: a record fills every free pattern it
 * matches (a record with all the labels fires the cell at once), and the
 * merge is the record stored for the first pattern, which keeps all its
 * labels, with the fields and tags the later patterns name set from the
 * records stored for them (their other labels are dropped: only the first
 * record flow-inherits; a record stored for several patterns gives the
 * labels of the first of them).
 *
 * Binding tags that every pattern names key the cell: [| {a, <#k>},
 * {b, <#k>} |] keeps one cell per value of <#k>, so records are merged only
 * with records of the same key, and each key's cell fires once (then
 * passes that key's records through), like a replica of the plain cell per
 * key. This is what a stream of independent jobs needs: each job's records
 * carry its own binding tag and meet only each other.
 *
 * The merge is one component execution that reads all stored records, so
 * the merged record's parents are all of them (an n->1 execution in the
 * trace). Storing a record emits nothing. Records that match no free
 * pattern pass through unchanged (same id). Records still stored when the
 * input ends are discarded and counted (the cell never fired).
 */
#include "snet_internal.h"

#include <stdlib.h>
#include <string.h>

/* One cell: the plain synchro-cell, or the cell of one key. */
typedef struct cell {
    long *key;            /* the key's values (keyed cells), NULL for the plain cell */
    snet_record **stored; /* one slot per pattern */
    size_t nstored;
    bool fired;
} cell;

typedef struct sync_entity {
    snet_run *run;
    const snet_net *net;
    char *path;
    lpel_stream *in, *out;
    const char **keys; /* the binding tags every pattern names */
    size_t nkeys;
    cell plain;
    cell *cells; /* keyed: one per key seen, in order */
    size_t ncells, cap_cells;
    kit_index_map by_key; /* key -> index into cells */
} sync_entity;

/* Is the record in slot i also stored in an earlier slot? */
static bool stored_before(const cell *c, size_t i)
{
    for (size_t j = 0; j < i; j++)
        if (c->stored[j] == c->stored[i])
            return true;
    return false;
}

/* Store r in every free pattern of c it matches; how many it filled. */
static size_t store(const sync_entity *s, cell *c, snet_record *r)
{
    const snet_type *p = &s->net->patterns;
    size_t filled = 0;
    for (size_t i = 0; i < p->count; i++)
        if (!c->stored[i] && snet_variant_match(&p->variants[i], r) >= 0) {
            c->stored[i] = r;
            filled++;
        }
    return filled;
}

/* Set the fields and tags pattern names from `from` in `into`. */
static int take_labels(snet_record *into, snet_record *from, const snet_variant *pattern)
{
    for (size_t k = 0; k < pattern->count; k++) {
        const snet_label *l = &pattern->labels[k];
        long e = snet_record_find(from, l->kind, l->name);
        if (e < 0 || l->kind == SNET_BTAG)
            continue;
        const snet_field_type *type = from->entries[e].type;
        int rc = l->kind == SNET_FIELD
                     ? snet_record_set_field(into, l->name, type,
                                             snet_record_take_field(from, l->name))
                     : snet_record_set_tag(into, l->name, from->entries[e].u.tag);
        if (rc != SNET_OK)
            return rc;
    }
    return SNET_OK;
}

/* Merge the stored records and emit the result. */
static void fire(sync_entity *s, cell *c)
{
    size_t n = s->net->patterns.count;
    snet_record *merged = c->stored[0];
    snet_trace_begin(s->run);
    snet_trace_read(s->run, merged->id);
    for (size_t i = 1; i < n; i++) {
        if (stored_before(c, i))
            continue;
        snet_trace_read(s->run, c->stored[i]->id);
        if (take_labels(merged, c->stored[i], &s->net->patterns.variants[i]) != SNET_OK)
            snet_run_fail(s->run, "synchro-cell '%s': out of memory merging", s->path);
    }
    for (size_t i = n; i-- > 1;) { /* each record once (by its first slot, freed last) */
        if (!stored_before(c, i))
            snet_record_free(c->stored[i]);
        c->stored[i] = NULL;
    }
    c->stored[0] = NULL;
    merged->id = snet_mig_next(s->run);
    snet_trace_written(s->run, merged->id);
    snet_trace_end(s->run);
    c->nstored = 0;
    c->fired = true;
    lpel_stream_write(s->out, merged);
}

/* ---- keyed cells ------------------------------------------------------------------ */

static uint64_t key_hash(const long *key, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint64_t)key[i]) * 0xff51afd7ed558ccdULL;
    return h ^ (h >> 33);
}

typedef struct key_probe {
    const sync_entity *s;
    const long *key;
} key_probe;

static bool same_key(const void *ctx, uint32_t i)
{
    const key_probe *p = ctx;
    return memcmp(p->s->cells[i].key, p->key, p->s->nkeys * sizeof *p->key) == 0;
}

static uint64_t stored_key_hash(const void *ctx, uint32_t i)
{
    const sync_entity *s = ctx;
    return key_hash(s->cells[i].key, s->nkeys);
}

/* A new cell for key k at the end of cells; NULL if out of memory. */
static cell *add_cell(sync_entity *s, const long *k, uint64_t hash)
{
    if (KIT_GROW(s->cells, s->cap_cells, s->ncells + 1) != 0)
        return NULL;
    if (kit_index_map_reserve(&s->by_key, stored_key_hash, s) != 0)
        return NULL;
    cell *c = &s->cells[s->ncells];
    *c = (cell){0};
    c->key = malloc(s->nkeys * sizeof *c->key);
    c->stored = calloc(s->net->patterns.count, sizeof *c->stored);
    if (!c->key || !c->stored) {
        free(c->key);
        free(c->stored);
        return NULL;
    }
    memcpy(c->key, k, s->nkeys * sizeof *k);
    /* Cannot fail: reserved above. */
    kit_index_map_insert(&s->by_key, hash, (uint32_t)s->ncells, stored_key_hash, s);
    s->ncells++;
    return c;
}

/* The cell for r's key (made on first use), NULL if out of memory. */
static cell *keyed_cell(sync_entity *s, const snet_record *r)
{
    long key[8], *k = s->nkeys <= 8 ? key : malloc(s->nkeys * sizeof *k);
    if (!k)
        return NULL;
    for (size_t i = 0; i < s->nkeys; i++) {
        long e = snet_record_find(r, SNET_BTAG, s->keys[i]);
        k[i] = e < 0 ? 0 : r->entries[e].u.tag;
    }
    uint64_t hash = key_hash(k, s->nkeys);
    key_probe probe = {s, k};
    uint32_t i = kit_index_map_find(&s->by_key, hash, same_key, &probe);
    cell *c = i != UINT32_MAX ? &s->cells[i] : add_cell(s, k, hash);
    if (k != key)
        free(k);
    return c;
}

/* ---- the task ------------------------------------------------------------------------ */

static void sync_record(sync_entity *s, snet_record *r)
{
    cell *c = &s->plain;
    if (s->nkeys) {
        /* Only records some pattern takes have a key (patterns name it). */
        if (snet_type_best(&s->net->patterns, r, NULL) < 0) {
            lpel_stream_write(s->out, r);
            return;
        }
        if (!(c = keyed_cell(s, r))) {
            snet_run_fail(s->run, "synchro-cell '%s': out of memory; record passed on", s->path);
            lpel_stream_write(s->out, r);
            return;
        }
    }
    size_t filled = c->fired ? 0 : store(s, c, r);
    if (filled == 0) {
        lpel_stream_write(s->out, r);
        return;
    }
    c->nstored += filled;
    if (c->nstored == s->net->patterns.count)
        fire(s, c);
}

static void cell_discard(sync_entity *s, cell *c)
{
    size_t records = 0;
    for (size_t i = c->stored ? s->net->patterns.count : 0; i-- > 0;)
        if (c->stored[i] && !stored_before(c, i)) { /* each record once, as in fire */
            records++;
            snet_record_free(c->stored[i]);
        }
    if (records)
        snet_run_note_discard(s->run, records);
    free(c->stored);
    free(c->key);
}

static void sync_free(sync_entity *s)
{
    cell_discard(s, &s->plain);
    for (size_t i = 0; i < s->ncells; i++)
        cell_discard(s, &s->cells[i]);
    free(s->cells);
    kit_index_map_free(&s->by_key);
    free(s->keys);
    free(s->path);
    free(s);
}

static void sync_task(void *arg)
{
    sync_entity *s = arg;
    lpel_stream_open(s->out, LPEL_STREAM_WRITE);
    for (snet_record *r; (r = lpel_stream_read(s->in)) != NULL;) {
        if (r->kind == SNET_REC_DATA)
            sync_record(s, r);
        else
            lpel_stream_write(s->out, r);
    }
    lpel_stream_close(s->in, LPEL_STREAM_READ);
    lpel_stream_close(s->out, LPEL_STREAM_WRITE);
    sync_free(s);
}

/* The binding tags every pattern names. */
static int find_keys(sync_entity *s)
{
    const snet_type *p = &s->net->patterns;
    if (p->count == 0)
        return 0;
    s->keys = malloc((p->variants[0].count + 1) * sizeof *s->keys);
    if (!s->keys)
        return -1;
    const snet_variant *first = &p->variants[0];
    for (size_t i = 0; i < first->count; i++) {
        if (first->labels[i].kind != SNET_BTAG)
            continue;
        bool everywhere = true;
        for (size_t v = 1; v < p->count && everywhere; v++)
            everywhere = snet_variant_has(&p->variants[v], SNET_BTAG, first->labels[i].name);
        if (everywhere)
            s->keys[s->nkeys++] = first->labels[i].name;
    }
    return 0;
}

lpel_stream *snet_sync_instantiate(const snet_net *n, lpel_stream *in, const snet_place *at)
{
    sync_entity *s = calloc(1, sizeof *s);
    lpel_stream *out = snet_new_stream(at->run);
    if (s) {
        s->net = n;
        s->run = at->run;
        s->plain.stored = calloc(n->patterns.count ? n->patterns.count : 1, sizeof(snet_record *));
        s->path = snet_path_join(at->prefix, "sync");
    }
    if (!s || !out || !s->plain.stored || !s->path || find_keys(s) != 0) {
        if (s)
            sync_free(s);
        snet_run_fail(at->run, "out of memory instantiating a synchro-cell");
        return NULL;
    }
    s->in = in;
    s->out = out;
    if (!snet_spawn(at, s->path, sync_task, s)) {
        sync_free(s);
        return NULL;
    }
    return out;
}
