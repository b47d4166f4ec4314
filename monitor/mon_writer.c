/*
 * mon_writer.c - the per-worker CTF log writer: events go straight into
 * fixed-size packets that are mapped from the log file.
 *
 * Why mapped packets: a trace must survive kill -9 and the OOM killer up to
 * its last flush, and a CTF reader (babeltrace2) refuses a log whose last
 * packet is cut short. So the file never holds a partial packet: each
 * packet's region (packet_bytes, a multiple of the page size) is allocated
 * in the file (fallocate) and mapped before the first event goes in, and
 * the packet header always describes a valid packet whose content_size
 * covers only events that are complete. Events are plain stores into the
 * page cache; "flushing" is updating three header fields (timestamp_end,
 * events_discarded, content_size, in that order, so a kill between them
 * still leaves a valid header). What is past content_size is padding to a
 * reader. Nothing is copied, and there is no system call per packet except
 * the mapping of the next one.
 *
 * Who writes what: the worker thread owns the events and the header fields
 * it sets when it starts a packet and when it records the packet's first
 * event. Publishing (flushing) can happen on any thread under the writer's
 * lock: the flusher thread of the monitor (every --mon-flush period), the
 * worker itself at the end of its run, the crash handler (without the lock:
 * best effort in a dying process). The worker takes the lock only when it
 * switches packets. The worker tells the others how far its events go with
 * two atomics, the position after its last complete event (release-stored)
 * and that event's time: plain stores on x86.
 *
 * When the file cannot grow (disk full, file size limit, I/O error, a file
 * that cannot be mapped), the worker goes on into an anonymous buffer of
 * the same size, counts its events as lost when that buffer is full or the
 * run ends, and tries the file again at every packet: the run is never
 * stopped and nothing is dropped silently.
 */
#include "mon_writer_internal.h"

#include "mon.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct mon_writer {
    /* Hot: touched by every event (mon_emit_internal.h), only by the
     * worker thread; pos and last_ts are read by the publishers. */
    mon_writer_hot hot;

    /* Cold. */
    uint64_t packet_first; /* events before the current packet */
    bool mapped;           /* hot.buf is a region of the file */
    uint8_t *scratch;      /* where events go while the file cannot grow */
    int fd;
    uint64_t file_end;     /* offset just past the last packet region */
    uint64_t packet_off;   /* file offset of the current (or last) packet */
    bool have_packet;      /* a packet has been mapped at least once */
    uint64_t seq;          /* packet_seq_num of the current packet */
    _Atomic uint64_t lost; /* events that could not be placed in the file */
    pthread_mutex_t lock;  /* packet switches against publishing */
    unsigned worker;
    int error;             /* errno of the first failure, 0 if none */
    char path[4096];
};

/* The worker's own view of its position and time (relaxed: it wrote them). */
static size_t pos_of(mon_writer *w) { return atomic_load_explicit(&w->hot.pos, memory_order_relaxed); }
static uint64_t last_ts_of(mon_writer *w)
{
    return atomic_load_explicit(&w->hot.last_ts, memory_order_relaxed);
}
static void set_pos(mon_writer *w, size_t pos)
{
    atomic_store_explicit(&w->hot.pos, pos, memory_order_release);
}

static size_t page_size(void)
{
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

/* The packet size used for a request: at least a page and room for the
 * preamble and the largest event, a whole number of pages (mappings start
 * at page boundaries), at most the format's limit. */
static size_t packet_size_for(size_t requested)
{
    size_t page = page_size();
    size_t min = MON_PACKET_PREAMBLE_BYTES + MON_EVENT_MAX_BYTES + MON_STORE_SLACK;
    if (requested == 0)
        requested = MON_DEFAULT_PACKET_BYTES;
    if (requested < min)
        requested = min;
    if (requested > MON_PACKET_MAX_BYTES)
        requested = MON_PACKET_MAX_BYTES;
    return (requested + page - 1) / page * page;
}

static void note_error(mon_writer *w, int err)
{
    if (w->error)
        return;
    w->error = err ? err : EIO;
    fprintf(stderr,
            "mon: warning: %s: the trace cannot grow (%s); this worker's events are counted "
            "as lost until it can (events_discarded in the trace and in run.json)\n",
            w->path, strerror(w->error));
}

/* ---------------------------------------------------------------------------
 * Packet headers
 * ------------------------------------------------------------------------- */

static void put_u64_at(uint8_t *buf, size_t off, uint64_t v) { (void)mon_put_u64(buf + off, v); }

/* The header of a new packet: no events yet, times at the log's clock. */
static void header_init(mon_writer *w, uint8_t *buf)
{
    uint8_t *p = buf;
    p = mon_put_u32(p, MON_CTF_MAGIC);
    p = mon_put_u32(p, 0);
    p = mon_put_u64(p, last_ts_of(w));
    p = mon_put_u64(p, last_ts_of(w));
    p = mon_put_u64(p, (uint64_t)MON_PACKET_PREAMBLE_BYTES * 8);
    p = mon_put_u64(p, (uint64_t)w->hot.cap * 8);
    p = mon_put_u64(p, atomic_load_explicit(&w->lost, memory_order_relaxed));
    p = mon_put_u32(p, w->worker);
    (void)mon_put_u64(p, w->seq);
}

/* Make the events up to pos (ending at time ts) part of the packet at buf.
 * The order matters to a reader that looks at any moment (a live view, or
 * the file after a kill between two stores): timestamp_end first, so it
 * never falls short of an event content_size covers. */
static void header_publish(uint8_t *buf, size_t pos, uint64_t ts, uint64_t lost)
{
    put_u64_at(buf, MON_OFF_TS_END, ts);
    put_u64_at(buf, MON_OFF_DISCARDED, lost);
    /* content_size is 8-byte aligned (packets start on page boundaries). */
    atomic_store_explicit((_Atomic uint64_t *)(void *)(buf + MON_OFF_CONTENT_SIZE),
                          (uint64_t)pos * 8, memory_order_release);
}

/* ---------------------------------------------------------------------------
 * Packet regions
 * ------------------------------------------------------------------------- */

/* Allocate and map the next region of the file; NULL (errno set) if the
 * file cannot grow or be mapped. */
static uint8_t *map_region(mon_writer *w)
{
    if (w->fd < 0) {
        errno = EBADF;
        return NULL;
    }
    /* Allocated up front: a store into a mapped page that the file system
     * cannot back would be a SIGBUS instead of an error. */
    int rc = posix_fallocate(w->fd, (off_t)w->file_end, (off_t)w->hot.cap);
    if (rc != 0) {
        /* Whatever part was allocated is cut off again, so that the file
         * still ends with a whole packet. */
        if (ftruncate(w->fd, (off_t)w->file_end) != 0) {
            /* Nothing better to do: the error reported is the first one. */
        }
        errno = rc;
        return NULL;
    }
    void *p = mmap(NULL, w->hot.cap, PROT_READ | PROT_WRITE, MAP_SHARED, w->fd, (off_t)w->file_end);
    if (p == MAP_FAILED) {
        int e = errno;
        if (ftruncate(w->fd, (off_t)w->file_end) != 0) {
            /* as above */
        }
        errno = e;
        return NULL;
    }
#ifdef MADV_POPULATE_WRITE
    /* Fault the pages in now, in one go, rather than one by one in the
     * middle of the events (not fatal if the kernel is older). */
    (void)madvise(p, w->hot.cap, MADV_POPULATE_WRITE);
#endif
    return p;
}

/* Start a new packet: in the file if it can grow, else in scratch. Called
 * by the worker with the lock held (or before anyone else knows w). */
static void packet_start(mon_writer *w)
{
    uint8_t *region = map_region(w);
    if (region) {
        w->hot.buf = region;
        w->mapped = true;
        w->packet_off = w->file_end;
        w->file_end += w->hot.cap;
        w->have_packet = true;
    } else {
        note_error(w, errno);
        w->hot.buf = w->scratch;
        w->mapped = false;
    }
    header_init(w, w->hot.buf);
    w->packet_first = w->hot.events;
    set_pos(w, MON_PACKET_PREAMBLE_BYTES);
}

/* End the current packet: publish everything in it, or count its events as
 * lost if it is the scratch buffer. The mapping stays until the caller has
 * started the next packet. Worker thread, lock held. */
static void packet_end(mon_writer *w)
{
    if (w->mapped) {
        header_publish(w->hot.buf, pos_of(w), last_ts_of(w),
                       atomic_load_explicit(&w->lost, memory_order_relaxed));
        w->seq++;
    } else {
        atomic_fetch_add_explicit(&w->lost, w->hot.events - w->packet_first, memory_order_relaxed);
    }
}

/* ---------------------------------------------------------------------------
 * Opening, publishing, closing
 * ------------------------------------------------------------------------- */

static void set_err(char *err, size_t errlen, const char *fmt, const char *a, const char *b)
{
    if (err && errlen)
        snprintf(err, errlen, fmt, a, b);
}

mon_writer *mon_writer_open_fd(int fd, const char *path, unsigned worker, size_t packet_bytes,
                               char *err, size_t errlen)
{
    mon_writer *w = calloc(1, sizeof *w);
    size_t cap = packet_size_for(packet_bytes);
    if (w)
        w->scratch = malloc(cap);
    if (!w || !w->scratch) {
        free(w);
        if (fd >= 0)
            close(fd);
        set_err(err, errlen, "%s: out of memory for the trace buffer%s", path, "");
        return NULL;
    }
    w->hot.cap = cap;
    w->fd = fd;
    w->worker = worker;
    pthread_mutex_init(&w->lock, NULL);
    snprintf(w->path, sizeof w->path, "%s", path);
    packet_start(w);
    return w;
}

mon_writer *mon_writer_open(const char *dir, unsigned worker, size_t packet_bytes,
                            char *err, size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s%u", dir, MON_WORKER_FILE_PREFIX, worker);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        set_err(err, errlen, "%s: cannot create trace file: %s", path, strerror(errno));
        return NULL;
    }
    return mon_writer_open_fd(fd, path, worker, packet_bytes, err, errlen);
}

/* Publish what the worker has committed into the current packet. */
static void publish_committed(mon_writer *w)
{
    size_t pos = atomic_load_explicit(&w->hot.pos, memory_order_acquire);
    if (!w->mapped || pos <= MON_PACKET_PREAMBLE_BYTES)
        return; /* nothing new, or nowhere to put it */
    header_publish(w->hot.buf, pos, atomic_load_explicit(&w->hot.last_ts, memory_order_relaxed),
                   atomic_load_explicit(&w->lost, memory_order_relaxed));
}

void mon_writer_publish(mon_writer *w)
{
    pthread_mutex_lock(&w->lock);
    publish_committed(w);
    pthread_mutex_unlock(&w->lock);
}

void mon_writer_flush(mon_writer *w)
{
    pthread_mutex_lock(&w->lock);
    if (w->mapped) {
        publish_committed(w);
    } else if (w->hot.events > w->packet_first) {
        /* The scratch buffer's events can never reach the file. */
        packet_end(w);
        w->packet_first = w->hot.events;
        set_pos(w, MON_PACKET_PREAMBLE_BYTES);
    }
    pthread_mutex_unlock(&w->lock);
}

/* The crash flush reads the other workers' positions while their threads
 * may still run: a deliberate, best-effort race in a dying process, kept
 * out of ThreadSanitizer's sight so that a report does not end the process
 * before the flush is done. Only stores into mapped memory: async-signal-
 * safe. */
#if defined(__SANITIZE_THREAD__)
#define MON_CRASH_PATH __attribute__((no_sanitize("thread")))
#else
#define MON_CRASH_PATH
#endif

MON_CRASH_PATH void mon_writer_crash_flush(mon_writer *w)
{
    size_t pos = atomic_load_explicit(&w->hot.pos, memory_order_acquire);
    if (!w->mapped || pos <= MON_PACKET_PREAMBLE_BYTES)
        return;
    uint64_t ts = atomic_load_explicit(&w->hot.last_ts, memory_order_relaxed);
    uint64_t lost = atomic_load_explicit(&w->lost, memory_order_relaxed);
    uint64_t content = (uint64_t)pos * 8;
    /* header_publish, spelt out here so that nothing instrumented runs. */
    __builtin_memcpy(w->hot.buf + MON_OFF_TS_END, &ts, 8);
    __builtin_memcpy(w->hot.buf + MON_OFF_DISCARDED, &lost, 8);
    atomic_signal_fence(memory_order_release);
    __builtin_memcpy(w->hot.buf + MON_OFF_CONTENT_SIZE, &content, 8);
}

/* A worker that lost events and ended in scratch: its last packet in the
 * file is made to say so (events_discarded is "lost so far", and its
 * timestamp_end moves to the last lost event so the count holds at that
 * time). Written in place: the blocks exist, so this works on a full disk. */
static void record_final_loss(mon_writer *w)
{
    uint64_t lost = atomic_load_explicit(&w->lost, memory_order_relaxed);
    if (!lost || !w->have_packet || w->fd < 0)
        return;
    uint8_t v[8];
    (void)mon_put_u64(v, last_ts_of(w));
    if (pwrite(w->fd, v, 8, (off_t)(w->packet_off + MON_OFF_TS_END)) != 8)
        return;
    (void)mon_put_u64(v, lost);
    if (pwrite(w->fd, v, 8, (off_t)(w->packet_off + MON_OFF_DISCARDED)) != 8)
        return;
}

int mon_writer_close(mon_writer *w)
{
    if (!w)
        return 0;
    pthread_mutex_lock(&w->lock);
    /* The crash flush may have published already: the header says what it
     * published, the worker's position says what there is. */
    packet_end(w);
    if (w->mapped) {
        /* The last packet loses its padding: its size becomes its content,
         * and the file ends there. A last packet with nothing to say (no
         * event, no loss) goes altogether. */
        size_t pos = pos_of(w);
        bool empty = pos == MON_PACKET_PREAMBLE_BYTES &&
                     atomic_load_explicit(&w->lost, memory_order_relaxed) == 0;
        put_u64_at(w->hot.buf, MON_OFF_PACKET_SIZE, (uint64_t)pos * 8);
        munmap(w->hot.buf, w->hot.cap);
        if (ftruncate(w->fd, (off_t)(w->packet_off + (empty ? 0 : pos))) != 0)
            note_error(w, errno);
    } else {
        record_final_loss(w);
    }
    pthread_mutex_unlock(&w->lock);
    if (w->fd >= 0 && close(w->fd) != 0)
        note_error(w, errno);
    int rc = atomic_load_explicit(&w->lost, memory_order_relaxed) ? -1 : 0;
    pthread_mutex_destroy(&w->lock);
    free(w->scratch);
    free(w);
    return rc;
}

unsigned mon_writer_worker(const mon_writer *w) { return w->worker; }
uint64_t mon_writer_events(const mon_writer *w) { return w->hot.events; }
uint64_t mon_writer_lost(const mon_writer *w)
{
    return atomic_load_explicit(&((mon_writer *)w)->lost, memory_order_relaxed);
}
const char *mon_writer_error(const mon_writer *w) { return w->error ? strerror(w->error) : NULL; }
uint64_t mon_writer_bytes(const mon_writer *w)
{
    return w->have_packet ? w->packet_off + (w->mapped ? pos_of((mon_writer *)w) : 0) : 0;
}

/* The packet is full: end it and start the next. Called from the inlined
 * event path (mon_emit_internal.h) once per packet. */
void mon_writer_next_packet(mon_writer *w)
{
    pthread_mutex_lock(&w->lock);
    uint8_t *old = w->hot.buf;
    bool old_mapped = w->mapped;
    packet_end(w);
    packet_start(w);
    pthread_mutex_unlock(&w->lock);
    /* Nobody else looks at the old region once hot.buf has moved on. */
    if (old_mapped)
        munmap(old, w->hot.cap);
}

/* Copies name (at most MON_NAME_MAX bytes) as valid UTF-8 into out: a byte
 * that starts no character becomes '?', and a character the length limit
 * would split is left out. Returns the bytes written (no NUL). */
static size_t utf8_name(uint8_t *out, const char *name)
{
    const uint8_t *s = (const uint8_t *)name;
    size_t len = name ? strnlen(name, MON_NAME_MAX + 3) : 0, n = 0;
    for (size_t i = 0; i < len;) {
        size_t c = mon_utf8_char_len(s + i, len - i);
        if (n + (c ? c : 1) > MON_NAME_MAX)
            break;
        if (c)
            memcpy(out + n, s + i, c);
        else
            out[n] = '?';
        n += c ? c : 1;
        i += c ? c : 1;
    }
    return n;
}

/* Out of line: once per task, and the name needs checking. */
void mon_emit_task_map(mon_writer *w, uint64_t ts, uint64_t task, const char *name)
{
    uint8_t text[MON_NAME_MAX];
    size_t len = utf8_name(text, name);
    mon_ev e = mon_ev_begin(w, MON_ID_TASK_MAP, ts, MON_UINT_MAX_BYTES + len + 1);
    e.p = mon_put_uint(e.p, task, 0, 0);
    if (len)
        memcpy(e.p, text, len);
    e.p += len;
    e.p = mon_put_u8(e.p, 0);
    mon_ev_end(w, e);
}
