/*
 * kit_spill.c - data larger than memory: arrays of fixed-size records kept
 * in a temporary file behind a bounded cache (kit_spill), and a sort of
 * fixed-size records that merges sorted runs from a temporary file
 * (kit_sorter). See kit.h.
 *
 * Why a cache of our own and not mmap: a mapped file's pages count as the
 * process's resident memory until the kernel is short of memory, so a tool
 * that promises a bound on its resident memory cannot hand the paging to
 * the kernel; pread and pwrite through a fixed number of blocks keep the
 * bound exact. The file is unlinked as soon as it exists, so nothing is
 * left behind when the program ends, however it ends (Ctrl-C included),
 * and it is only made when a block first has to leave the cache: an array
 * that fits its cache never touches the disk.
 *
 * The cache is 4-way set associative with LRU inside a set: accesses in
 * these tools go mostly to the records written last (a moving window) and
 * now and then to an old one, which a direct-mapped cache would let evict
 * the window.
 */
#include "kit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- temporary files ---- */

const char *kit_spill_dir(const char *dir)
{
    if (dir && *dir)
        return dir;
    const char *env = getenv("TMPDIR");
    return env && *env ? env : "/tmp";
}

/* An unlinked temporary file in dir: its descriptor, or -1 with errno. */
static int temp_file(const char *dir)
{
    dir = kit_spill_dir(dir);
    size_t len = strlen(dir) + sizeof "/snetmon-spill-XXXXXX";
    char *path = malloc(len);
    if (!path)
        return -1;
    snprintf(path, len, "%s/snetmon-spill-XXXXXX", dir);
    int fd = mkostemp(path, O_CLOEXEC);
    if (fd >= 0)
        unlink(path);
    free(path);
    return fd;
}

static int write_all(int fd, const void *buf, size_t n, uint64_t off)
{
    const char *p = buf;
    while (n) {
        ssize_t w = pwrite(fd, p, n, (off_t)off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = ENOSPC;
            return -1;
        }
        p += w, n -= (size_t)w, off += (uint64_t)w;
    }
    return 0;
}

/* Reads n bytes at off; what lies past the end of the file reads as zero
 * bytes. */
static int read_all(int fd, void *buf, size_t n, uint64_t off)
{
    char *p = buf;
    while (n) {
        ssize_t r = pread(fd, p, n, (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0) {
            memset(p, 0, n);
            return 0;
        }
        p += r, n -= (size_t)r, off += (uint64_t)r;
    }
    return 0;
}

/* ---- spill arrays ---- */

enum { SPILL_WAYS = 4, SPILL_BLOCK = 64 * 1024 };

typedef struct spill_slot {
    uint64_t block; /* UINT64_MAX: empty */
    /* data: the block's bytes, allocated when the slot is first used, so a
     * large cache costs only what the array has used of it */
    uint64_t used;  /* the access tick of its last use (LRU within a set) */
    bool dirty;
    char *data;
} spill_slot;

struct kit_spill {
    size_t rec_size, per_block, block_bytes;
    size_t nsets;     /* a power of two; SPILL_WAYS slots each */
    size_t max_sets;  /* what cache_bytes allows */
    spill_slot *slots;
    spill_slot *last; /* the slot of the last access */
    uint64_t tick;
    uint64_t count;   /* 1 + the highest index asked for */
    uint64_t file_blocks; /* blocks written to the file so far (the rest read as zeros) */
    uint64_t disk_bytes;
    int fd;           /* -1 until a block first leaves the cache */
    int err;
    char *dir;
};

static size_t set_of(uint64_t b, size_t nsets)
{
    return (size_t)((b * UINT64_C(0x9e3779b97f4a7c15)) >> 32) & (nsets - 1);
}

static spill_slot *new_slots(size_t nsets)
{
    spill_slot *slots = calloc(nsets * SPILL_WAYS, sizeof *slots);
    for (size_t i = 0; slots && i < nsets * SPILL_WAYS; i++)
        slots[i].block = UINT64_MAX;
    return slots;
}

int kit_spill_open(kit_spill **out, size_t rec_size, size_t cache_bytes, const char *dir)
{
    *out = NULL;
    if (rec_size == 0 || rec_size > SPILL_BLOCK) {
        errno = EINVAL;
        return -1;
    }
    kit_spill *s = calloc(1, sizeof *s);
    if (!s)
        return -1;
    s->rec_size = rec_size;
    /* Small caches get smaller blocks, so that they still have sets. */
    s->block_bytes = SPILL_BLOCK;
    while (s->block_bytes / 2 >= rec_size && s->block_bytes > 4096 &&
           cache_bytes / s->block_bytes < 4 * SPILL_WAYS)
        s->block_bytes /= 2;
    s->per_block = s->block_bytes / rec_size;
    s->max_sets = 1;
    while ((s->max_sets * 2) * SPILL_WAYS * s->block_bytes <= cache_bytes &&
           s->max_sets < ((size_t)1 << 40) / SPILL_WAYS / s->block_bytes)
        s->max_sets *= 2;
    s->nsets = 1; /* the cache grows with the array, up to max_sets */
    s->slots = new_slots(s->nsets);
    s->dir = dir ? strdup(dir) : NULL;
    if (!s->slots || (dir && !s->dir)) {
        kit_spill_close(s);
        return -1;
    }
    s->fd = -1;
    *out = s;
    return 0;
}

void kit_spill_close(kit_spill *s)
{
    if (!s)
        return;
    if (s->fd >= 0)
        close(s->fd);
    for (size_t i = 0; s->slots && i < s->nsets * SPILL_WAYS; i++)
        free(s->slots[i].data);
    free(s->slots);
    free(s->dir);
    free(s);
}

/* Twice the sets: each old set's blocks go to one of two new sets, so they
 * all fit. Returns -1 only when out of memory (the cache stays as it was). */
static int grow_cache(kit_spill *s)
{
    size_t nsets = s->nsets * 2;
    spill_slot *slots = new_slots(nsets);
    if (!slots)
        return -1;
    for (size_t i = 0; i < s->nsets * SPILL_WAYS; i++) {
        if (s->slots[i].block == UINT64_MAX) {
            free(s->slots[i].data);
            continue;
        }
        spill_slot *set = &slots[set_of(s->slots[i].block, nsets) * SPILL_WAYS];
        int w = 0;
        while (set[w].block != UINT64_MAX)
            w++;
        set[w] = s->slots[i];
    }
    free(s->slots);
    s->slots = slots;
    s->nsets = nsets;
    s->last = NULL;
    return 0;
}

static int evict(kit_spill *s, spill_slot *slot)
{
    if (!slot->dirty)
        return 0;
    if (s->fd < 0 && (s->fd = temp_file(s->dir)) < 0)
        return -1;
    if (write_all(s->fd, slot->data, s->block_bytes, slot->block * s->block_bytes) != 0)
        return -1;
    s->disk_bytes += s->block_bytes;
    if (slot->block >= s->file_blocks)
        s->file_blocks = slot->block + 1;
    slot->dirty = false;
    return 0;
}

/* The slot holding block b, loaded when it is not in the cache. */
static spill_slot *load(kit_spill *s, uint64_t b)
{
    spill_slot *set, *victim;
    for (;;) {
        set = victim = &s->slots[set_of(b, s->nsets) * SPILL_WAYS];
        for (int w = 0; w < SPILL_WAYS; w++) {
            if (set[w].block == b)
                return &set[w];
            if (set[w].used < victim->used)
                victim = &set[w];
        }
        /* A cache below its limit grows rather than evict. */
        if (victim->block == UINT64_MAX || s->nsets >= s->max_sets)
            break;
        if (grow_cache(s) != 0)
            return NULL;
    }
    if (!victim->data && !(victim->data = malloc(s->block_bytes)))
        return NULL;
    if (evict(s, victim) != 0)
        return NULL;
    victim->block = UINT64_MAX;
    if (b < s->file_blocks) {
        if (read_all(s->fd, victim->data, s->block_bytes, b * s->block_bytes) != 0)
            return NULL;
    } else {
        memset(victim->data, 0, s->block_bytes);
    }
    victim->block = b;
    return victim;
}

void *kit_spill_at(kit_spill *s, uint64_t i)
{
    if (s->err)
        return NULL;
    uint64_t b = i / s->per_block;
    spill_slot *slot = s->last;
    if (!slot || slot->block != b) {
        if (!(slot = load(s, b))) {
            s->err = errno ? errno : EIO;
            s->last = NULL;
            return NULL;
        }
        s->last = slot;
    }
    slot->used = ++s->tick;
    slot->dirty = true;
    if (i >= s->count)
        s->count = i + 1;
    return slot->data + (i % s->per_block) * s->rec_size;
}

int kit_spill_read(kit_spill *s, uint64_t i, void *rec)
{
    const void *p = kit_spill_at(s, i);
    if (!p)
        return -1;
    memcpy(rec, p, s->rec_size);
    return 0;
}

int kit_spill_write(kit_spill *s, uint64_t i, const void *rec)
{
    void *p = kit_spill_at(s, i);
    if (!p)
        return -1;
    memcpy(p, rec, s->rec_size);
    return 0;
}

int kit_spill_push(kit_spill *s, const void *rec) { return kit_spill_write(s, s->count, rec); }

uint64_t kit_spill_count(const kit_spill *s) { return s->count; }

int kit_spill_error(const kit_spill *s) { return s->err; }

uint64_t kit_spill_disk_bytes(const kit_spill *s) { return s->disk_bytes; }

size_t kit_spill_cache_bytes(const kit_spill *s) { return s->max_sets * SPILL_WAYS * s->block_bytes; }

/* ---- sorting ---- */

typedef struct sort_run {
    uint64_t off, n;    /* where in the file, how many records */
    uint64_t done;      /* records taken from it */
    char *buf;          /* its read buffer */
    size_t buf_n, buf_at; /* records in the buffer, the next one */
} sort_run;

struct kit_sorter {
    size_t rec_size;
    kit_cmp_fn cmp;
    size_t mem_bytes;
    char *buf;          /* records being gathered (a run), or all of them */
    size_t n, cap;      /* cap: what mem_bytes holds; the buffer grows to it */
    size_t buf_cap;
    uint64_t total;
    sort_run *runs;
    size_t nruns, cap_runs;
    uint64_t file_end;
    int fd;
    char *dir;
    bool finished, in_memory;
    size_t mem_at;      /* in memory: the next record */
    size_t *heap;       /* runs by their current record */
    size_t nheap;
    size_t per_run;     /* records per run read buffer */
    bool primed;
    int err;
};

int kit_sorter_open(kit_sorter **out, size_t rec_size, kit_cmp_fn cmp, size_t mem_bytes,
                    const char *dir)
{
    *out = NULL;
    if (rec_size == 0 || !cmp) {
        errno = EINVAL;
        return -1;
    }
    kit_sorter *s = calloc(1, sizeof *s);
    if (!s)
        return -1;
    s->rec_size = rec_size;
    s->cmp = cmp;
    s->mem_bytes = mem_bytes < 64 * rec_size ? 64 * rec_size : mem_bytes;
    s->cap = s->mem_bytes / rec_size;
    s->fd = -1;
    if (dir && !(s->dir = strdup(dir))) {
        free(s);
        return -1;
    }
    *out = s;
    return 0;
}

void kit_sorter_close(kit_sorter *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nruns; i++)
        free(s->runs[i].buf);
    free(s->runs);
    free(s->heap);
    free(s->buf);
    free(s->dir);
    if (s->fd >= 0)
        close(s->fd);
    free(s);
}

static int fail(kit_sorter *s)
{
    if (!s->err)
        s->err = errno ? errno : EIO;
    return -1;
}

/* Sorts the gathered records and writes them out as a run. */
static int flush_run(kit_sorter *s)
{
    if (!s->n)
        return 0;
    qsort(s->buf, s->n, s->rec_size, s->cmp);
    if (s->fd < 0 && (s->fd = temp_file(s->dir)) < 0)
        return fail(s);
    if (KIT_GROW(s->runs, s->cap_runs, s->nruns + 1))
        return fail(s);
    if (write_all(s->fd, s->buf, s->n * s->rec_size, s->file_end) != 0)
        return fail(s);
    s->runs[s->nruns++] = (sort_run){.off = s->file_end, .n = s->n};
    s->file_end += (uint64_t)s->n * s->rec_size;
    s->n = 0;
    return 0;
}

int kit_sorter_add(kit_sorter *s, const void *rec)
{
    if (s->err || s->finished)
        return s->err ? -1 : (errno = EINVAL, -1);
    if (s->n == s->cap && flush_run(s) != 0)
        return -1;
    if (s->n == s->buf_cap) { /* grows like an array, up to the memory given */
        size_t want = s->buf_cap ? s->buf_cap * 2 : 1024;
        if (want > s->cap)
            want = s->cap;
        char *buf = realloc(s->buf, want * s->rec_size);
        if (!buf)
            return fail(s);
        s->buf = buf;
        s->buf_cap = want;
    }
    memcpy(s->buf + s->n * s->rec_size, rec, s->rec_size);
    s->n++;
    s->total++;
    return 0;
}

uint64_t kit_sorter_count(const kit_sorter *s) { return s->total; }

int kit_sorter_error(const kit_sorter *s) { return s->err; }

static const void *run_head(const kit_sorter *s, const sort_run *r)
{
    return r->buf + r->buf_at * s->rec_size;
}

/* Refills r's buffer when it is used up; 0 at the run's end too. */
static int run_fill(kit_sorter *s, sort_run *r)
{
    if (r->buf_at < r->buf_n || r->done == r->n)
        return 0;
    uint64_t left = r->n - r->done;
    size_t take = left < s->per_run ? (size_t)left : s->per_run;
    if (read_all(s->fd, r->buf, take * s->rec_size, r->off + r->done * s->rec_size) != 0)
        return fail(s);
    r->buf_n = take;
    r->buf_at = 0;
    return 0;
}

static bool run_before(const kit_sorter *s, size_t a, size_t b)
{
    int c = s->cmp(run_head(s, &s->runs[a]), run_head(s, &s->runs[b]));
    return c < 0 || (c == 0 && a < b); /* ties: the earlier run first */
}

static void sift_down(kit_sorter *s, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < s->nheap && run_before(s, s->heap[l], s->heap[m]))
            m = l;
        if (r < s->nheap && run_before(s, s->heap[r], s->heap[m]))
            m = r;
        if (m == i)
            return;
        size_t t = s->heap[i];
        s->heap[i] = s->heap[m];
        s->heap[m] = t;
        i = m;
    }
}

/* Every run from its start, its first record in the heap. */
static int prime(kit_sorter *s)
{
    s->nheap = 0;
    for (size_t i = 0; i < s->nruns; i++) {
        sort_run *r = &s->runs[i];
        r->done = 0;
        r->buf_n = r->buf_at = 0;
        if (run_fill(s, r) != 0)
            return -1;
        if (r->buf_n)
            s->heap[s->nheap++] = i;
    }
    for (size_t i = s->nheap / 2; i-- > 0;)
        sift_down(s, i);
    s->primed = true;
    return 0;
}

int kit_sorter_finish(kit_sorter *s)
{
    if (s->err)
        return -1;
    s->finished = true;
    if (!s->nruns) { /* everything fits: sort it where it is */
        if (s->n)
            qsort(s->buf, s->n, s->rec_size, s->cmp);
        s->in_memory = true;
        s->mem_at = 0;
        return 0;
    }
    if (flush_run(s) != 0)
        return -1;
    free(s->buf);
    s->buf = NULL;
    s->buf_cap = 0;
    /* One merge pass: the memory is shared out among the runs' buffers
     * (runs are as large as the memory, so each gets a fair part of one
     * run even for a file thousands of times the memory). */
    s->per_run = s->mem_bytes / s->nruns / s->rec_size;
    if (s->per_run < 16)
        s->per_run = 16;
    s->heap = malloc(s->nruns * sizeof *s->heap);
    if (!s->heap)
        return fail(s);
    for (size_t i = 0; i < s->nruns; i++)
        if (!(s->runs[i].buf = malloc(s->per_run * s->rec_size)))
            return fail(s);
    return prime(s);
}

const void *kit_sorter_next(kit_sorter *s)
{
    if (s->err || !s->finished)
        return NULL;
    if (s->in_memory)
        return s->mem_at < s->n ? s->buf + s->mem_at++ * s->rec_size : NULL;
    if (!s->nheap)
        return NULL;
    /* The previous record stays valid until this call: advance its run now. */
    size_t top = s->heap[0];
    sort_run *r = &s->runs[top];
    if (s->primed) {
        s->primed = false;
    } else {
        r->buf_at++;
        r->done++;
        if (run_fill(s, r) != 0)
            return NULL;
        if (r->buf_at >= r->buf_n)
            s->heap[0] = s->heap[--s->nheap];
        if (!s->nheap)
            return NULL;
        sift_down(s, 0);
        top = s->heap[0];
        r = &s->runs[top];
    }
    return run_head(s, r);
}

int kit_sorter_rewind(kit_sorter *s)
{
    if (s->err || !s->finished)
        return -1;
    if (s->in_memory) {
        s->mem_at = 0;
        return 0;
    }
    return prime(s);
}
