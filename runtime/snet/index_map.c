/*
 * index_map.c - growing and freeing the S-Net layer's hash map (the lookup
 * is inline in snet_index_map.h).
 */
#include "snet_index_map.h"

#include <stdlib.h>
#include <string.h>

static void place(snet_index_map *m, uint64_t hash, uint32_t index)
{
    size_t mask = m->nslots - 1;
    size_t k = snet_index_map_home(m, hash);
    while (m->slots[k])
        k = (k + 1) & mask;
    m->slots[k] = index + 1;
}

static int grow(snet_index_map *m, snet_index_hash_fn hash_of, const void *ctx)
{
    size_t n = m->nslots ? m->nslots * 2 : 16;
    if (n > (size_t)1 << 40)
        return -1;
    uint32_t *slots = calloc(n, sizeof *slots);
    if (!slots)
        return -1;
    snet_index_map old = *m;
    m->slots = slots;
    m->nslots = n;
    m->shift = 64u - (unsigned)__builtin_ctzll((unsigned long long)n);
    for (size_t i = 0; i < old.nslots; i++)
        if (old.slots[i])
            place(m, hash_of(ctx, old.slots[i] - 1), old.slots[i] - 1);
    free(old.slots);
    return 0;
}

int snet_index_map_reserve(snet_index_map *m, snet_index_hash_fn hash_of, const void *ctx)
{
    return (m->count + 1) * 2 > m->nslots ? grow(m, hash_of, ctx) : 0;
}

int snet_index_map_insert(snet_index_map *m, uint64_t hash, uint32_t index,
                          snet_index_hash_fn hash_of, const void *ctx)
{
    if (index == UINT32_MAX)
        return -1;
    if (snet_index_map_reserve(m, hash_of, ctx) != 0)
        return -1;
    place(m, hash, index);
    m->count++;
    return 0;
}

void snet_index_map_free(snet_index_map *m)
{
    free(m->slots);
    memset(m, 0, sizeof *m);
}
