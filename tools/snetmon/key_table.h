/*
 * key_table.h - snetmon's one hash map: per-task (or per-anything) state
 * of the subcommands, found by a 64-bit key such as mon_run_key(ev, task).
 *
 * Values are the caller's structs of a fixed size, stored in the table and
 * zeroed when first looked up. Open addressing with linear probing over a
 * power-of-two table at most half full (the slot comes from the top bits of
 * key * 2^64/phi). A pointer returned by key_table_get stays valid until
 * the next key_table_get (growing moves the values).
 */
#ifndef SNETMON_KEY_TABLE_H
#define SNETMON_KEY_TABLE_H

#include <stddef.h>
#include <stdint.h>

typedef struct key_table {
    unsigned char *slots; /* per slot: used flag, key, value */
    size_t value_size, slot_size;
    size_t cap, used;
    unsigned shift;
} key_table;

/* An empty table of values of value_size bytes (nothing allocated yet). */
void key_table_init(key_table *t, size_t value_size);

/* The value of key, created zeroed when new; NULL when out of memory. */
void *key_table_get(key_table *t, uint64_t key);

/* Calls release(value) for every value (to free what they own), then frees
 * the table. release may be NULL. */
void key_table_free(key_table *t, void (*release)(void *value));

#endif
