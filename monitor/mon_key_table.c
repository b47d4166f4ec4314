/*
 * mon_key_table.c - the hash map of per-task (or per-stream, per-anything)
 * state that the consumers of a trace keep, found by a 64-bit key such as
 * mon_run_key(ev, task) (mon_reader.h, "per-task state").
 *
 * Values are the caller's structs of a fixed size, stored in the slots
 * (no allocation per entry). Open addressing with linear probing over a
 * power-of-two table at most half full; the slot comes from the top bits
 * of key * 2^64/phi. Removal shifts the rest of the probe run back, so
 * that lookups need no deletion markers and a table whose entries come
 * and go (mon_periods: the tasks with something open) stays short.
 */
#include "mon_reader.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Slot layout: a uint64_t used flag, the uint64_t key, the value (aligned
 * like a uint64_t, which serves every struct the subcommands keep). */
#define SLOT_HEADER (2 * sizeof(uint64_t))

static uint64_t *slot_header(const mon_key_table *t, size_t i)
{
    return (uint64_t *)(void *)(t->slots + i * t->slot_size);
}

void mon_key_table_init(mon_key_table *t, size_t value_size)
{
    memset(t, 0, sizeof *t);
    t->value_size = value_size;
    t->slot_size = SLOT_HEADER + (value_size + 7) / 8 * 8;
}

static size_t home_of(const mon_key_table *t, uint64_t key)
{
    return (size_t)((key * UINT64_C(0x9e3779b97f4a7c15)) >> t->shift);
}

/* The slot holding key, or the empty one where it would go. */
static size_t probe(const mon_key_table *t, uint64_t key)
{
    size_t mask = t->cap - 1;
    size_t i = home_of(t, key);
    for (;; i = (i + 1) & mask) {
        uint64_t *h = slot_header(t, i);
        if (!h[0] || h[1] == key)
            return i;
    }
}

static int grow(mon_key_table *t)
{
    size_t cap = t->cap ? t->cap * 2 : 256;
    unsigned char *slots = calloc(cap, t->slot_size);
    if (!slots)
        return -1;
    mon_key_table old = *t;
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

void *mon_key_table_find(const mon_key_table *t, uint64_t key)
{
    if (!t->cap)
        return NULL;
    uint64_t *h = slot_header(t, probe(t, key));
    return h[0] ? h + 2 : NULL;
}

void mon_key_table_remove(mon_key_table *t, uint64_t key)
{
    if (!t->cap)
        return;
    size_t mask = t->cap - 1, hole = probe(t, key);
    if (!slot_header(t, hole)[0])
        return;
    for (size_t j = (hole + 1) & mask; slot_header(t, j)[0]; j = (j + 1) & mask) {
        size_t home = home_of(t, slot_header(t, j)[1]);
        /* j's entry may fill the hole unless its home lies in (hole, j]. */
        bool stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (!stays) {
            memcpy(slot_header(t, hole), slot_header(t, j), t->slot_size);
            hole = j;
        }
    }
    memset(slot_header(t, hole), 0, t->slot_size); /* a new entry starts zeroed */
    t->used--;
}

void mon_key_table_each(mon_key_table *t, void (*fn)(void *ctx, uint64_t key, void *value),
                        void *ctx)
{
    for (size_t i = 0; i < t->cap; i++) {
        uint64_t *h = slot_header(t, i);
        if (h[0])
            fn(ctx, h[1], h + 2);
    }
}

void *mon_key_table_get(mon_key_table *t, uint64_t key)
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

void mon_key_table_free(mon_key_table *t, void (*release)(void *value))
{
    for (size_t i = 0; release && i < t->cap; i++) {
        uint64_t *h = slot_header(t, i);
        if (h[0])
            release(h + 2);
    }
    free(t->slots);
    memset(t, 0, sizeof *t);
}
