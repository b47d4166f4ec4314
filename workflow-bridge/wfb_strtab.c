/*
 * wfb_strtab.c - string interning for vertex ids and attribute strings.
 *
 * Ten million vertex ids must fit in a few hundred megabytes, so strings are
 * packed in one arena and looked up through an open-addressing table of
 * 32-bit indices instead of one malloc per string.
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
    free(t->slots);
    memset(t, 0, sizeof *t);
}

static bool same_text(const wfb_strtab *t, uint32_t i, const char *s, size_t len)
{
    const char *stored = t->arena + t->offset[i];
    return memcmp(stored, s, len) == 0 && stored[len] == '\0';
}

uint32_t wfb_strtab_find(const wfb_strtab *t, const char *s, size_t len)
{
    if (!t->nslots)
        return WFB_NONE;
    uint32_t h = hash_text(s, len);
    size_t mask = t->nslots - 1;
    for (size_t k = h & mask;; k = (k + 1) & mask) {
        uint32_t slot = t->slots[k];
        if (!slot)
            return WFB_NONE;
        if (t->hash[slot - 1] == h && same_text(t, slot - 1, s, len))
            return slot - 1;
    }
}

/* Keeps the load factor at or below one half. */
static int grow_slots(wfb_strtab *t)
{
    size_t n = t->nslots ? t->nslots * 2 : 64;
    uint32_t *slots = calloc(n, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < t->count; i++) {
        size_t k = t->hash[i] & (n - 1);
        while (slots[k])
            k = (k + 1) & (n - 1);
        slots[k] = (uint32_t)i + 1;
    }
    free(t->slots);
    t->slots = slots;
    t->nslots = n;
    return 0;
}

uint32_t wfb_strtab_intern(wfb_strtab *t, const char *s, size_t len, bool *added)
{
    if (added)
        *added = false;
    uint32_t found = wfb_strtab_find(t, s, len);
    if (found != WFB_NONE)
        return found;
    if (t->count >= WFB_NONE - 1 || t->arena_len + len + 1 > UINT32_MAX)
        return WFB_NONE;
    if ((t->count + 1) * 2 > t->nslots && grow_slots(t))
        return WFB_NONE;
    size_t cap = t->cap;
    if (wfb_grow((void **)&t->offset, &cap, t->count + 1, sizeof *t->offset))
        return WFB_NONE;
    cap = t->cap;
    if (wfb_grow((void **)&t->hash, &cap, t->count + 1, sizeof *t->hash))
        return WFB_NONE;
    t->cap = cap;
    if (wfb_grow((void **)&t->arena, &t->arena_cap, t->arena_len + len + 1, 1))
        return WFB_NONE;
    uint32_t i = (uint32_t)t->count++;
    t->offset[i] = (uint32_t)t->arena_len;
    t->hash[i] = hash_text(s, len);
    memcpy(t->arena + t->arena_len, s, len);
    t->arena[t->arena_len + len] = '\0';
    t->arena_len += len + 1;
    size_t mask = t->nslots - 1;
    size_t k = t->hash[i] & mask;
    while (t->slots[k])
        k = (k + 1) & mask;
    t->slots[k] = i + 1;
    if (added)
        *added = true;
    return i;
}

size_t wfb_strtab_bytes(const wfb_strtab *t)
{
    return t->arena_cap + t->cap * (sizeof *t->offset + sizeof *t->hash) +
           t->nslots * sizeof *t->slots;
}
