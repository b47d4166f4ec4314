/*
 * kit.h - the project's small container kit: growing arrays (and a whole
 * stream read into one), one hash map from keys to indices of an array the
 * caller owns, an id map built on it, the FNV-1a hash, and pools of
 * same-sized blocks for objects made and freed at a high rate. Internal to
 * the project (not installed); every layer, LPEL included, links it, so it
 * depends on nothing but libc (pthreads included).
 *
 * Why one kit: the runtime, the monitor, the bridge and the visualiser each
 * had their own copies of these (the S-Net and bridge index maps were the
 * same 40 lines); here they are written, tested and fuzzed once
 * (tests/kit, tests/fuzz/fuzz_kit.c). Arrays and sorts larger than memory,
 * through temporary files, are here too (kit_spill.c): the analysis of a
 * trace of any size needs them in more than one place.
 *
 * Errors: every function that can fail returns 0 or -1 (out of memory, or
 * a size that does not fit), and leaves its container unchanged on -1.
 */
#ifndef KIT_H
#define KIT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---------------------------------------------------------------------------
 * Growing arrays
 * ------------------------------------------------------------------------- */

/* Makes the array at *(T **)items_ptr, of *cap elements of size bytes each,
 * hold at least need elements: the capacity doubles (from 16) until it
 * does, so n pushes cost O(n) copying. items_ptr is the address of the
 * caller's pointer, of any object pointer type. 0, or -1 when out of memory
 * or when need * size overflows (the array and *cap are unchanged). */
int kit_grow(void *items_ptr, size_t *cap, size_t need, size_t size);

/* The capacity kit_grow gives an array of cap elements of size bytes that
 * must hold need: cap itself when it does, else cap (or 16) doubled until
 * it does; 0 when need * size does not fit a size_t. For arrays that share
 * one capacity (columns of a table) and grow together. */
size_t kit_grow_capacity(size_t cap, size_t need, size_t size);

/* kit_grow, and the new elements [old *cap, new *cap) are zero bytes. */
int kit_grow_zeroed(void *items_ptr, size_t *cap, size_t need, size_t size);

/* The two above for an array variable `arr` with a size_t capacity `cap`:
 * KIT_GROW(t->items, t->cap, t->n + 1). */
#define KIT_GROW(arr, cap, need) kit_grow(&(arr), &(cap), (need), sizeof *(arr))
#define KIT_GROW_ZEROED(arr, cap, need) kit_grow_zeroed(&(arr), &(cap), (need), sizeof *(arr))

/* Appends value to arr (n elements, capacity cap): 0, or -1 when out of
 * memory (nothing appended). */
#define KIT_PUSH(arr, n, cap, value) \
    (KIT_GROW(arr, cap, (n) + 1) == 0 ? ((arr)[(n)++] = (value), 0) : -1)

/* Reads `in` to its end into a new buffer: *buf (free it) holds *len bytes
 * and a NUL after them, so text can be parsed as a string. 0; or -1 with
 * *buf NULL, ferror(in) set when reading failed and clear when memory ran
 * out. */
int kit_read_all(FILE *in, char **buf, size_t *len);

/* ---------------------------------------------------------------------------
 * The index map: from keys to indices of an array the caller owns
 *
 * The entries, and so the keys, stay in the caller's array; the map holds
 * only index + 1 per slot (4 bytes, 0 = empty), which keeps millions of
 * entries compact. The caller hashes its key and, on a probe, says whether
 * the entry at an index has the key it looks for; when the map grows it
 * asks for the hash of each stored entry. Linear probing over a power-of-
 * two table at most half full; the slot comes from the top bits of
 * hash * 2^64/phi, so any 64-bit hash will do (an id itself, too). The
 * lookup is inline so the compiler sees through the comparison callback on
 * the hot paths.
 * ------------------------------------------------------------------------- */

typedef struct kit_index_map {
    uint32_t *slots; /* index + 1; 0 = empty */
    size_t nslots;   /* 0 or a power of two */
    unsigned shift;  /* 64 - log2(nslots) */
    size_t count;
} kit_index_map;

/* Does entry `index` have the key being looked up (ctx: the caller's)? */
typedef bool (*kit_index_same_fn)(const void *ctx, uint32_t index);
/* The hash of entry `index`, as given when it was inserted. */
typedef uint64_t (*kit_index_hash_fn)(const void *ctx, uint32_t index);

/* No entry: what kit_index_map_find returns for an absent key. */
#define KIT_INDEX_NONE UINT32_MAX

static inline size_t kit_index_map_home(const kit_index_map *m, uint64_t hash)
{
    return (size_t)((hash * UINT64_C(0x9e3779b97f4a7c15)) >> m->shift);
}

/* The index stored under a key with this hash for which same() holds, or
 * KIT_INDEX_NONE when there is none. */
static inline uint32_t kit_index_map_find(const kit_index_map *m, uint64_t hash,
                                          kit_index_same_fn same, const void *ctx)
{
    if (!m->nslots)
        return KIT_INDEX_NONE;
    size_t mask = m->nslots - 1;
    for (size_t k = kit_index_map_home(m, hash);; k = (k + 1) & mask) {
        uint32_t s = m->slots[k];
        if (!s)
            return KIT_INDEX_NONE;
        if (same(ctx, s - 1))
            return s - 1;
    }
}

/* Room for one more entry (grows the table when it would be more than half
 * full, rehashing through hash_of): 0, or -1 when out of memory (the map is
 * unchanged). After a successful reserve the next insert cannot fail. */
int kit_index_map_reserve(kit_index_map *m, kit_index_hash_fn hash_of, const void *ctx);

/* Adds index (below KIT_INDEX_NONE) under hash; the caller has found the
 * key absent. Reserves first. 0, or -1 when out of memory or index is
 * KIT_INDEX_NONE (the map is unchanged). */
int kit_index_map_insert(kit_index_map *m, uint64_t hash, uint32_t index,
                         kit_index_hash_fn hash_of, const void *ctx);

/* Forgets every entry, keeping the table's memory. */
void kit_index_map_clear(kit_index_map *m);

/* Bytes held by the table. */
size_t kit_index_map_bytes(const kit_index_map *m);

void kit_index_map_free(kit_index_map *m);

/* ---------------------------------------------------------------------------
 * The id map: from 64-bit ids to values (usually indices), the ids held
 * by the map itself
 *
 * For callers whose entries are not in an array of their own (ids of tasks,
 * streams, vertices met in a trace): an array of (id, value) pairs in
 * insertion order and an index map over it.
 * ------------------------------------------------------------------------- */

typedef struct kit_id_entry {
    uint64_t id;
    size_t value;
} kit_id_entry;

typedef struct kit_id_map {
    kit_id_entry *entries; /* in insertion order */
    size_t count, cap;
    kit_index_map index;
} kit_id_map;

/* What an id map's lookup compares against. */
typedef struct kit_id_probe {
    const kit_id_entry *entries;
    uint64_t id;
} kit_id_probe;

static inline bool kit_id_same(const void *ctx, uint32_t i)
{
    const kit_id_probe *p = ctx;
    return p->entries[i].id == p->id;
}

/* The entry of id, or NULL; valid until the next put or find_or_add. */
static inline kit_id_entry *kit_id_map_find(const kit_id_map *m, uint64_t id)
{
    kit_id_probe probe = {m->entries, id};
    uint32_t i = kit_index_map_find(&m->index, id, kit_id_same, &probe);
    return i == KIT_INDEX_NONE ? NULL : &m->entries[i];
}

/* Is id there? Then *value is its value. */
static inline bool kit_id_map_get(const kit_id_map *m, uint64_t id, size_t *value)
{
    const kit_id_entry *e = kit_id_map_find(m, id);
    if (e)
        *value = e->value;
    return e != NULL;
}

/* Sets id's value (adding id when absent): 0, or -1 when out of memory (the
 * map is unchanged). */
int kit_id_map_put(kit_id_map *m, uint64_t id, size_t value);

/* The entry of id, added with value 0 when absent; NULL when out of memory.
 * Valid until the next put or find_or_add. */
kit_id_entry *kit_id_map_find_or_add(kit_id_map *m, uint64_t id);

void kit_id_map_free(kit_id_map *m);

/* ---------------------------------------------------------------------------
 * FNV-1a (64-bit): a cheap byte hash, and the checksum the applications
 * print, so it must not change. Incremental: start from KIT_FNV1A_INIT and
 * feed the bytes in any number of pieces.
 * ------------------------------------------------------------------------- */

#define KIT_FNV1A_INIT UINT64_C(0xcbf29ce484222325)

static inline uint64_t kit_fnv1a(uint64_t h, const void *bytes, size_t n)
{
    const unsigned char *p = bytes;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * UINT64_C(0x100000001b3);
    return h;
}

/* ---------------------------------------------------------------------------
 * Block pools: a thread's cache of free blocks of one size, over a depot
 * that the threads share
 *
 * For objects made and freed at a high rate on hot paths (S-Net records,
 * small C4SNet values): malloc and free cost ~170-250 instructions a pair
 * there, a pool's get and put about ten. Each thread has its own kit_pool
 * (declared _Thread_local by its user) and takes blocks from it and gives
 * them back without a lock. A thread that makes more blocks than it frees
 * and one that frees more than it makes (a producer and a consumer on two
 * workers) would otherwise send every block through malloc on one thread
 * and free on the other, glibc's slowest path; they meet at a kit_depot
 * instead: a full pool passes KIT_POOL_BATCH blocks there and an empty one
 * takes as many back, one lock per batch. A depot keeps at most its max;
 * beyond that, and whenever a pool is closed, blocks go to free().
 *
 * Blocks start on a cache line and fill whole lines (KIT_POOL_ALIGN): an
 * object handed between threads moves in as few lines as its size needs,
 * and shares none with another object.
 *
 * A pool keeps blocks only while it is open (kit_pool_open); closed, a put
 * frees and a get allocates. An open pool is closed when its thread ends, so
 * nothing is left behind by threads that end (kit_pool_open registers the
 * pool with the thread for that, and fails, keeping it closed, when it
 * cannot). Under AddressSanitizer a pooled block is poisoned, so that a
 * block used after it was put back is still reported.
 * ------------------------------------------------------------------------- */

#define KIT_POOL_BLOCKS 64
#define KIT_POOL_BATCH (KIT_POOL_BLOCKS / 2)
#define KIT_POOL_ALIGN 64

/* Spare blocks of one size shared by the threads' pools. */
typedef struct kit_depot {
    pthread_mutex_t lock;
    void **blocks;
    atomic_size_t count; /* read without the lock to pass an empty depot by */
    size_t cap, max;
    size_t block_size;
} kit_depot;

/* A static depot: static kit_depot d = KIT_DEPOT_INIT(sizeof(T), 4096); */
#define KIT_DEPOT_INIT(size, most) {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, (most), (size)}

/* A depot for blocks of block_size bytes, keeping at most max of them. */
void kit_depot_init(kit_depot *d, size_t block_size, size_t max);
/* Frees the blocks it keeps; the depot stays usable (for a static depot at
 * the program's end, when a late put may still come). */
void kit_depot_empty(kit_depot *d);
/* kit_depot_empty, and the depot is gone (no pool may use it any more). */
void kit_depot_destroy(kit_depot *d);

/* A thread's pool: static _Thread_local kit_pool p = KIT_POOL_INIT(sizeof(T)); */
typedef struct kit_pool {
    unsigned count, limit; /* blocks kept; how many it may keep (0: closed) */
    size_t block_size;
    kit_depot *depot;      /* NULL: none */
    struct kit_pool *next; /* the thread's pools, closed when it ends */
    bool listed;
    void *blocks[KIT_POOL_BLOCKS];
} kit_pool;

#define KIT_POOL_INIT(size) {.block_size = (size)}

/* Opens p (the calling thread's) to keep up to KIT_POOL_BLOCKS blocks,
 * meeting other pools at depot (NULL: none; a pool already open changes
 * its depot). false if the thread cannot close it when it ends: p then
 * stays closed. */
bool kit_pool_open(kit_pool *p, kit_depot *depot);
/* Frees every block p keeps; p keeps none until it is opened again. */
void kit_pool_close(kit_pool *p);

/* The slow paths of get (p empty: a batch from the depot, else a new
 * block; NULL when out of memory) and put (p full: a batch to the depot, whose excess
 * is freed; p closed: free). */
void *kit_pool_get_slow(kit_pool *p);
void kit_pool_put_slow(kit_pool *p, void *block);

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define KIT_POOL_POISON(b, n) ASAN_POISON_MEMORY_REGION((b), (n))
#define KIT_POOL_UNPOISON(b, n) ASAN_UNPOISON_MEMORY_REGION((b), (n))
#else
#define KIT_POOL_POISON(b, n) ((void)(b), (void)(n))
#define KIT_POOL_UNPOISON(b, n) ((void)(b), (void)(n))
#endif

/* A block of p's size (NULL only when out of memory), uninitialised. */
static inline void *kit_pool_get(kit_pool *p)
{
    if (__builtin_expect(p->count == 0, 0))
        return kit_pool_get_slow(p);
    void *b = p->blocks[--p->count];
    KIT_POOL_UNPOISON(b, p->block_size);
    return b;
}

/* Gives back a block of p's size (from any thread's pool of the size). */
static inline void kit_pool_put(kit_pool *p, void *block)
{
    if (__builtin_expect(p->count >= p->limit, 0)) {
        kit_pool_put_slow(p, block);
        return;
    }
    KIT_POOL_POISON(block, p->block_size);
    p->blocks[p->count++] = block;
}

/* ---------------------------------------------------------------------------
 * Data larger than memory (kit_spill.c)
 *
 * A spill array is a growing array of fixed-size records that lives in an
 * unlinked temporary file behind a cache of at most a given size: resident
 * memory stays at the cache however many records there are, and an array
 * that fits its cache never touches the disk (the file is made when a block
 * first has to leave the cache). Records never written read as zero bytes.
 * For the analysis of traces larger than memory: per-message and
 * per-period state that cannot be bounded, read mostly near where it was
 * written last.
 *
 * A sorter sorts fixed-size records in at most a given amount of memory:
 * what does not fit goes to a temporary file as sorted runs, merged as
 * they are read back. Equal records come out in no particular order, so a
 * caller who needs one gives a total order.
 *
 * The temporary files go to dir, else $TMPDIR, else /tmp. Errors are -1 (or
 * NULL) with errno set; a failed spill array or sorter stays failed, and
 * its error says why (ENOSPC: the disk is full).
 * ------------------------------------------------------------------------- */

/* Where temporary files go for dir (NULL: $TMPDIR, else /tmp). */
const char *kit_spill_dir(const char *dir);

typedef struct kit_spill kit_spill;

/* An empty array of records of rec_size bytes (at most 64 KiB), with at
 * most about cache_bytes of it in memory (at least a few blocks). */
int kit_spill_open(kit_spill **out, size_t rec_size, size_t cache_bytes, const char *dir);
void kit_spill_close(kit_spill *s);
/* Record i, to read or change in place: valid until the next call on s.
 * NULL when the temporary file cannot be written or read. */
void *kit_spill_at(kit_spill *s, uint64_t i);
/* Copy record i out, or in: 0 or -1. */
int kit_spill_read(kit_spill *s, uint64_t i, void *rec);
int kit_spill_write(kit_spill *s, uint64_t i, const void *rec);
/* Appends a record at index kit_spill_count: 0 or -1. */
int kit_spill_push(kit_spill *s, const void *rec);
/* 1 + the highest index used. */
uint64_t kit_spill_count(const kit_spill *s);
/* The errno of the failure that stopped s, 0 while it works. */
int kit_spill_error(const kit_spill *s);
/* Bytes written to the temporary file so far, and the cache's size. */
uint64_t kit_spill_disk_bytes(const kit_spill *s);
size_t kit_spill_cache_bytes(const kit_spill *s);

typedef int (*kit_cmp_fn)(const void *a, const void *b);
typedef struct kit_sorter kit_sorter;

/* A sorter of records of rec_size bytes in the order of cmp, holding at
 * most about mem_bytes in memory. */
int kit_sorter_open(kit_sorter **out, size_t rec_size, kit_cmp_fn cmp, size_t mem_bytes,
                    const char *dir);
void kit_sorter_close(kit_sorter *s);
/* Adds a record (before kit_sorter_finish): 0 or -1. */
int kit_sorter_add(kit_sorter *s, const void *rec);
/* No more records: from now on kit_sorter_next gives them in order. */
int kit_sorter_finish(kit_sorter *s);
/* The next record in order (valid until the next call), NULL after the last
 * one, or on an error (kit_sorter_error). */
const void *kit_sorter_next(kit_sorter *s);
/* From the first record again: 0 or -1. */
int kit_sorter_rewind(kit_sorter *s);
uint64_t kit_sorter_count(const kit_sorter *s);
int kit_sorter_error(const kit_sorter *s);

#endif /* KIT_H */
