/*
 * kit_pool.c - block pools (kit.h): the slow paths of a thread's pool (a
 * batch to or from the depot, malloc and free beyond it), opening and
 * closing a pool, and closing a thread's pools when the thread ends.
 *
 * S-Net records and small C4SNet values each had a pool of this shape
 * written out (per-thread array, depot, batches, a thread-end key,
 * poisoning); this is the one both use now.
 */
#include "kit.h"

#include <stdlib.h>

/* The thread's open pools, closed by the key's destructor when it ends.
 * One key for every pool: the list lives in the thread, the key only
 * makes the destructor run. */
static _Thread_local kit_pool *thread_pools;
static pthread_key_t thread_end_key;
static bool thread_end_key_made;
static pthread_once_t thread_end_once = PTHREAD_ONCE_INIT;

static void close_thread_pools(void *unused)
{
    (void)unused;
    while (thread_pools) {
        kit_pool *p = thread_pools;
        thread_pools = p->next;
        p->listed = false;
        kit_pool_close(p);
    }
}

static void make_thread_end_key(void)
{
    thread_end_key_made = pthread_key_create(&thread_end_key, close_thread_pools) == 0;
}

static void free_block(void *block, size_t size)
{
    KIT_POOL_UNPOISON(block, size);
    free(block);
}

void kit_depot_init(kit_depot *d, size_t block_size, size_t max)
{
    pthread_mutex_init(&d->lock, NULL);
    d->blocks = NULL;
    atomic_init(&d->count, 0);
    d->cap = 0;
    d->max = max;
    d->block_size = block_size;
}

void kit_depot_empty(kit_depot *d)
{
    pthread_mutex_lock(&d->lock);
    for (size_t n = atomic_load_explicit(&d->count, memory_order_relaxed); n > 0; n--)
        free_block(d->blocks[n - 1], d->block_size);
    free(d->blocks);
    d->blocks = NULL;
    d->cap = 0;
    atomic_store_explicit(&d->count, 0, memory_order_relaxed);
    pthread_mutex_unlock(&d->lock);
}

void kit_depot_destroy(kit_depot *d)
{
    kit_depot_empty(d);
    pthread_mutex_destroy(&d->lock);
}

bool kit_pool_open(kit_pool *p, kit_depot *depot)
{
    if (!p->listed) {
        pthread_once(&thread_end_once, make_thread_end_key);
        /* Any non-NULL value makes the destructor run. */
        if (!thread_end_key_made || pthread_setspecific(thread_end_key, &thread_pools) != 0)
            return false;
        p->next = thread_pools;
        thread_pools = p;
        p->listed = true;
    }
    p->depot = depot;
    p->limit = KIT_POOL_BLOCKS;
    return true;
}

void kit_pool_close(kit_pool *p)
{
    p->limit = 0;
    p->depot = NULL;
    while (p->count > 0)
        free_block(p->blocks[--p->count], p->block_size);
}

/* Take up to a batch from the depot (nothing when it is empty). */
static void refill(kit_pool *p)
{
    kit_depot *d = p->depot;
    pthread_mutex_lock(&d->lock);
    size_t n = atomic_load_explicit(&d->count, memory_order_relaxed);
    while (p->count < KIT_POOL_BATCH && n > 0)
        p->blocks[p->count++] = d->blocks[--n];
    atomic_store_explicit(&d->count, n, memory_order_relaxed);
    pthread_mutex_unlock(&d->lock);
}

void *kit_pool_get_slow(kit_pool *p)
{
    if (p->depot && atomic_load_explicit(&p->depot->count, memory_order_relaxed) > 0)
        refill(p);
    if (p->count > 0)
        return kit_pool_get(p);
    size_t lines = (p->block_size + KIT_POOL_ALIGN - 1) / KIT_POOL_ALIGN;
    return aligned_alloc(KIT_POOL_ALIGN, (lines ? lines : 1) * KIT_POOL_ALIGN);
}

/* A batch to the depot, growing it up to its max; what does not fit is
 * freed. */
static void spill(kit_pool *p)
{
    kit_depot *d = p->depot;
    unsigned n = KIT_POOL_BATCH;
    if (d) {
        pthread_mutex_lock(&d->lock);
        size_t count = atomic_load_explicit(&d->count, memory_order_relaxed);
        size_t room = d->max > count ? d->max - count : 0;
        size_t want = count + (room < n ? room : n);
        if (want > d->cap)
            (void)kit_grow(&d->blocks, &d->cap, want, sizeof *d->blocks); /* else: fewer fit */
        while (n > 0 && count < d->cap && count < d->max) {
            d->blocks[count++] = p->blocks[--p->count];
            n--;
        }
        atomic_store_explicit(&d->count, count, memory_order_relaxed);
        pthread_mutex_unlock(&d->lock);
    }
    while (n-- > 0)
        free_block(p->blocks[--p->count], p->block_size);
}

void kit_pool_put_slow(kit_pool *p, void *block)
{
    if (p->limit == 0) {
        free(block);
        return;
    }
    spill(p);
    kit_pool_put(p, block);
}
