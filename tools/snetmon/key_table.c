/*
 * key_table.c - snetmon's hash map (key_table.h).
 */
#include "key_table.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Slot layout: a uint64_t used flag, the uint64_t key, the value (aligned
 * like a uint64_t, which serves every struct the subcommands keep). */
#define SLOT_HEADER (2 * sizeof(uint64_t))

static uint64_t *slot_header(const key_table *t, size_t i)
{
    return (uint64_t *)(void *)(t->slots + i * t->slot_size);
}

void key_table_init(key_table *t, size_t value_size)
{
    memset(t, 0, sizeof *t);
    t->value_size = value_size;
    t->slot_size = SLOT_HEADER + (value_size + 7) / 8 * 8;
}

/* The slot holding key, or the empty one where it would go. */
static size_t probe(const key_table *t, uint64_t key)
{
    size_t mask = t->cap - 1;
    size_t i = (size_t)((key * UINT64_C(0x9e3779b97f4a7c15)) >> t->shift);
    for (;; i = (i + 1) & mask) {
        uint64_t *h = slot_header(t, i);
        if (!h[0] || h[1] == key)
            return i;
    }
}

static int grow(key_table *t)
{
    size_t cap = t->cap ? t->cap * 2 : 256;
    unsigned char *slots = calloc(cap, t->slot_size);
    if (!slots)
        return -1;
    key_table old = *t;
    t->slots = slots;
    t->cap = cap;
    t->shift = 64u - (unsigned)__builtin_ctzll((unsigned long long)cap);
    for (size_t i = 0; i < old.cap; i++) {
        uint64_t *h = slot_header(&old, i);
        if (h[0])
            memcpy(slot_header(t, probe(t, h[1])), h, t->slot_size);
    }
    free(old.slots);
    return 0;
}

void *key_table_get(key_table *t, uint64_t key)
{
    if ((t->used + 1) * 2 > t->cap && grow(t) != 0)
        return NULL;
    uint64_t *h = slot_header(t, probe(t, key));
    if (!h[0]) {
        h[0] = 1;
        h[1] = key;
        t->used++;
    }
    return h + 2;
}

void key_table_free(key_table *t, void (*release)(void *value))
{
    for (size_t i = 0; release && i < t->cap; i++) {
        uint64_t *h = slot_header(t, i);
        if (h[0])
            release(h + 2);
    }
    free(t->slots);
    memset(t, 0, sizeof *t);
}
