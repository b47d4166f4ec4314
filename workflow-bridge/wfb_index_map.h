/*
 * wfb_index_map.h - the bridge's one hash map: from keys to indices of an
 * array the caller owns (interned strings, the lifter's tasks and waiting
 * relations).
 *
 * The entries, and so the keys, stay in the caller's array; the map holds
 * only index + 1 per slot (4 bytes, 0 = empty), which keeps ten million
 * vertex ids compact. The caller hashes its key, and on a probe says
 * whether the entry at an index has the key it looks for; when the map
 * grows it asks for the hash of each stored entry. Linear probing over a
 * power-of-two table at most half full; the slot comes from the top bits
 * of hash * 2^64/phi, so any 64-bit hash will do.
 *
 * wfb_index_map_find is inline so that the compiler sees through the
 * comparison callback on the hot paths (one lookup per trace event).
 */
#ifndef WFB_INDEX_MAP_H
#define WFB_INDEX_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct wfb_index_map {
    uint32_t *slots; /* index + 1; 0 = empty */
    size_t nslots;   /* 0 or a power of two */
    unsigned shift;  /* 64 - log2(nslots) */
    size_t count;
} wfb_index_map;

/* Does entry `index` have the key being looked up (ctx: the caller's)? */
typedef bool (*wfb_index_same_fn)(const void *ctx, uint32_t index);
/* The hash of entry `index`, as given when it was inserted. */
typedef uint64_t (*wfb_index_hash_fn)(const void *ctx, uint32_t index);

static inline size_t wfb_index_map_home(const wfb_index_map *m, uint64_t hash)
{
    return (size_t)((hash * UINT64_C(0x9e3779b97f4a7c15)) >> m->shift);
}

/* The index stored under a key with this hash for which same() holds, or
 * UINT32_MAX when there is none. */
static inline uint32_t wfb_index_map_find(const wfb_index_map *m, uint64_t hash,
                                          wfb_index_same_fn same, const void *ctx)
{
    if (!m->nslots)
        return UINT32_MAX;
    size_t mask = m->nslots - 1;
    for (size_t k = wfb_index_map_home(m, hash);; k = (k + 1) & mask) {
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
int wfb_index_map_reserve(wfb_index_map *m, wfb_index_hash_fn hash_of, const void *ctx);

/* Adds index under hash; the caller has found the key absent. Grows the
 * table first when it would be more than half full (rehashing through
 * hash_of). 0, or -1 when out of memory (the map is unchanged). */
int wfb_index_map_insert(wfb_index_map *m, uint64_t hash, uint32_t index,
                         wfb_index_hash_fn hash_of, const void *ctx);

/* Bytes held by the table. */
size_t wfb_index_map_bytes(const wfb_index_map *m);

void wfb_index_map_free(wfb_index_map *m);

#endif
