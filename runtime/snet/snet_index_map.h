/*
 * snet_index_map.h - the S-Net layer's one hash map (internal): from keys
 * to indices of an array the caller owns. Used by the split's replicas (tag
 * value -> replica), the keyed synchro-cell (key tuple -> cell) and the
 * language's type inference (variant -> record type).
 *
 * The entries, and so the keys, stay in the caller's array; the map holds
 * only index + 1 per slot (0 = empty). The caller hashes its key and, on a
 * probe, says whether the entry at an index has the key it looks for; when
 * the map grows it asks for the hash of each stored entry. Linear probing
 * over a power-of-two table at most half full; the slot comes from the top
 * bits of hash * 2^64/phi, so any 64-bit hash will do. The lookup is
 * inline so the compiler sees through the comparison callback.
 */
#ifndef SNET_INDEX_MAP_H
#define SNET_INDEX_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct snet_index_map {
    uint32_t *slots; /* index + 1; 0 = empty */
    size_t nslots;   /* 0 or a power of two */
    unsigned shift;  /* 64 - log2(nslots) */
    size_t count;
} snet_index_map;

typedef bool (*snet_index_same_fn)(const void *ctx, uint32_t index);
typedef uint64_t (*snet_index_hash_fn)(const void *ctx, uint32_t index);

static inline size_t snet_index_map_home(const snet_index_map *m, uint64_t hash)
{
    return (size_t)((hash * UINT64_C(0x9e3779b97f4a7c15)) >> m->shift);
}

/* The index stored under a key with this hash for which same() holds, or
 * UINT32_MAX when there is none. */
static inline uint32_t snet_index_map_find(const snet_index_map *m, uint64_t hash,
                                           snet_index_same_fn same, const void *ctx)
{
    if (!m->nslots)
        return UINT32_MAX;
    size_t mask = m->nslots - 1;
    for (size_t k = snet_index_map_home(m, hash);; k = (k + 1) & mask) {
        uint32_t s = m->slots[k];
        if (!s)
            return UINT32_MAX;
        if (same(ctx, s - 1))
            return s - 1;
    }
}

/* Room for one more entry (grows the table when it would be more than
 * half full): 0, or -1 when out of memory (the map is unchanged). After a
 * successful reserve the next insert cannot fail. */
int snet_index_map_reserve(snet_index_map *m, snet_index_hash_fn hash_of, const void *ctx);

/* Adds index under hash; the caller has found the key absent. Grows first
 * when the table would be more than half full (rehashing through
 * hash_of). 0, or -1 when out of memory (the map is unchanged). */
int snet_index_map_insert(snet_index_map *m, uint64_t hash, uint32_t index,
                          snet_index_hash_fn hash_of, const void *ctx);

void snet_index_map_free(snet_index_map *m);

#endif
