/*
 * wfb_strtab.c - string interning for vertex ids and attribute strings.
 *
 * Ten million vertex ids must fit in a few hundred megabytes, so strings are
 * packed in one arena and looked up through the kit's index map
 * (kit.h: 32-bit indices) instead of one malloc per string.
 */
#include "wfb_internal.h"

#include <stdlib.h>
#include <string.h>

static uint32_t hash_text(const char *s, size_t len)
{
    /* FNV-1a, folded: cheap and good enough for identifiers. */
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ull;
    }
    return (uint32_t)(h ^ (h >> 32));
}

void wfb_strtab_free(wfb_strtab *t)
{
    free(t->arena);
    free(t->offset);
    free(t->hash);
    kit_index_map_free(&t->map);
    memset(t, 0, sizeof *t);
}

/* What a lookup compares against. */
typedef struct probe_key {
    const wfb_strtab *t;
    const char *s;
    size_t len;
    uint32_t hash;
} probe_key;

static bool same_text(const void *ctx, uint32_t i)
{
    const probe_key *k = ctx;
    const char *stored = k->t->arena + k->t->offset[i];
    return k->t->hash[i] == k->hash && memcmp(stored, k->s, k->len) == 0 &&
           stored[k->len] == '\0';
}

static uint64_t stored_hash(const void *ctx, uint32_t i)
{
    const wfb_strtab *t = ctx;
    return t->hash[i];
}

uint32_t wfb_strtab_find(const wfb_strtab *t, const char *s, size_t len)
{
    probe_key k = {t, s, len, hash_text(s, len)};
    uint32_t i = kit_index_map_find(&t->map, k.hash, same_text, &k);
    return i == UINT32_MAX ? WFB_NONE : i;
}

uint32_t wfb_strtab_intern(wfb_strtab *t, const char *s, size_t len, bool *added)
{
    if (added)
        *added = false;
    probe_key k = {t, s, len, hash_text(s, len)};
    uint32_t found = kit_index_map_find(&t->map, k.hash, same_text, &k);
    if (found != UINT32_MAX)
        return found;
    if (t->count >= WFB_NONE - 1 || t->arena_len + len + 1 > UINT32_MAX)
        return WFB_NONE;
    size_t cap = t->cap;
    if (KIT_GROW(t->offset, cap, t->count + 1))
        return WFB_NONE;
    cap = t->cap;
    if (KIT_GROW(t->hash, cap, t->count + 1))
        return WFB_NONE;
    t->cap = cap;
    if (KIT_GROW(t->arena, t->arena_cap, t->arena_len + len + 1))
        return WFB_NONE;
    uint32_t i = (uint32_t)t->count++;
    t->offset[i] = (uint32_t)t->arena_len;
    t->hash[i] = k.hash;
    memcpy(t->arena + t->arena_len, s, len);
    t->arena[t->arena_len + len] = '\0';
    if (kit_index_map_insert(&t->map, t->hash[i], i, stored_hash, t) != 0) {
        t->count--;
        return WFB_NONE;
    }
    t->arena_len += len + 1;
    if (added)
        *added = true;
    return i;
}

size_t wfb_strtab_bytes(const wfb_strtab *t)
{
    return t->arena_cap + t->cap * (sizeof *t->offset + sizeof *t->hash) +
           kit_index_map_bytes(&t->map);
}
