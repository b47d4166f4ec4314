/*
 * kit_map.c - growing and freeing the index map, and the id map on top of
 * it (kit.h; the lookups are inline there).
 */
#include "kit.h"

#include <stdlib.h>
#include <string.h>

static void place(kit_index_map *m, uint64_t hash, uint32_t index)
{
    size_t mask = m->nslots - 1;
    size_t k = kit_index_map_home(m, hash);
    while (m->slots[k])
        k = (k + 1) & mask;
    m->slots[k] = index + 1;
}

static int grow(kit_index_map *m, kit_index_hash_fn hash_of, const void *ctx)
{
    size_t n = m->nslots ? m->nslots * 2 : 16;
    /* Indices are 32-bit, so a table of 2^33 slots already has room for
     * every one of them. */
    if (n > (size_t)1 << 33)
        return -1;
    uint32_t *slots = calloc(n, sizeof *slots);
    if (!slots)
        return -1;
    kit_index_map old = *m;
    m->slots = slots;
    m->nslots = n;
    m->shift = 64u - (unsigned)__builtin_ctzll((unsigned long long)n);
    for (size_t i = 0; i < old.nslots; i++)
        if (old.slots[i])
            place(m, hash_of(ctx, old.slots[i] - 1), old.slots[i] - 1);
    free(old.slots);
    return 0;
}

int kit_index_map_reserve(kit_index_map *m, kit_index_hash_fn hash_of, const void *ctx)
{
    return (m->count + 1) * 2 > m->nslots ? grow(m, hash_of, ctx) : 0;
}

int kit_index_map_insert(kit_index_map *m, uint64_t hash, uint32_t index,
                         kit_index_hash_fn hash_of, const void *ctx)
{
    if (index == KIT_INDEX_NONE)
        return -1;
    if (kit_index_map_reserve(m, hash_of, ctx) != 0)
        return -1;
    place(m, hash, index);
    m->count++;
    return 0;
}

void kit_index_map_clear(kit_index_map *m)
{
    if (m->slots)
        memset(m->slots, 0, m->nslots * sizeof *m->slots);
    m->count = 0;
}

size_t kit_index_map_bytes(const kit_index_map *m) { return m->nslots * sizeof *m->slots; }

void kit_index_map_free(kit_index_map *m)
{
    free(m->slots);
    memset(m, 0, sizeof *m);
}

/* ---- the id map ---------------------------------------------------------------------- */

static uint64_t stored_id(const void *ctx, uint32_t i)
{
    const kit_id_entry *entries = ctx;
    return entries[i].id;
}

kit_id_entry *kit_id_map_find_or_add(kit_id_map *m, uint64_t id)
{
    kit_id_entry *e = kit_id_map_find(m, id);
    if (e)
        return e;
    if (m->count >= KIT_INDEX_NONE || KIT_GROW(m->entries, m->cap, m->count + 1) != 0 ||
        kit_index_map_reserve(&m->index, stored_id, m->entries) != 0)
        return NULL;
    uint32_t i = (uint32_t)m->count++;
    m->entries[i] = (kit_id_entry){id, 0};
    kit_index_map_insert(&m->index, id, i, stored_id, m->entries); /* reserved: cannot fail */
    return &m->entries[i];
}

int kit_id_map_put(kit_id_map *m, uint64_t id, size_t value)
{
    kit_id_entry *e = kit_id_map_find_or_add(m, id);
    if (!e)
        return -1;
    e->value = value;
    return 0;
}

void kit_id_map_free(kit_id_map *m)
{
    free(m->entries);
    kit_index_map_free(&m->index);
    memset(m, 0, sizeof *m);
}
