/*
 * mon_writer.c - the per-worker CTF log writer: events go into a packet
 * buffer in memory, and into the log file's packet region each time they
 * are published.
 *
 * Why: a trace must survive kill -9 and the OOM killer up to its last
 * flush, and a CTF reader (babeltrace2) refuses a log whose last packet is
 * cut short. So the file never holds a partial packet: each packet's region
 * (packet_bytes, a multiple of the page size) is allocated in the file
 * (fallocate) before its first event, and the packet header in the file
 * always describes a valid packet whose content_size covers only events
 * that are complete and already in the file. Publishing (flushing) writes
 * the events recorded since the last publication into the region (pwrite),
 * then three header fields (timestamp_end, events_discarded, content_size,
 * in that order, so a kill between them still leaves a valid header). What
 * is past content_size is padding to a reader.
 *
 * Why a buffer and pwrite rather than the region mapped into memory (as
 * before): with the region mapped, every page of every packet had to be
 * given its page, zeroed, mapped into the process and unmapped again, and
 * on the ring benchmark that was more than half of the cost of an event
 * (docs/BENCHMARKS.md, issue 12). The buffer is the same memory for every
 * packet, so the worker's stores hit warm pages, and the kernel only copies
 * the bytes into the page cache, once per flush period or packet.
 *
 * Who writes what: the worker thread owns the buffer and the events. Any
 * thread may publish, under the writer's lock: the flusher thread of the
 * monitor (every --mon-flush period), the worker itself when a packet is
 * full and at the end of its run, the crash handler (without the lock: best
 * effort in a dying process). The worker takes the lock only when it
 * switches packets (the buffer is then reused, so no publisher may be
 * reading it). It tells the publishers how far its events go with two
 * atomics, the position after its last complete event (release-stored) and
 * that event's time: plain stores on x86.
 *
 * When the file cannot grow by a whole packet (disk full, file size
 * limit), the packet is made smaller: half the size, and half again, down
 * to a page, so that the log takes what still fits instead of nothing.
 * When not even a page fits (or on an I/O error), the worker goes on in the
 * buffer, counts the packet's events as lost when it is full or the run
 * ends, and tries the file again at every packet (at the full size first):
 * the run is never stopped and nothing is dropped silently. All of this is
 * on the packet switch, never on an event's path.
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
#include <time.h>
#include <unistd.h>

/* monitor_control names the classes with the reader's copy of mon.h's. */
_Static_assert(MON_FLAG_BITS_ALL == MON_FLAG_ALL && sizeof MON_FLAG_BITS_LETTERS ==
                                                    sizeof MON_FLAG_LETTERS,
               "mon_format_internal.h's MON_FLAG_BITS_* are mon.h's MON_FLAG_ALL and letters");

struct mon_writer {
    /* Hot: touched by every event (mon_emit_internal.h), only by the
     * worker thread; pos and last_ts are read by the publishers. */
    mon_writer_hot hot;

    /* Cold. */
    size_t full_cap;       /* the packet size asked for: the buffer's size (hot.cap is
                              the current packet's, smaller when the file had no room) */
    uint64_t run_id;       /* the run id in every packet context (0: none) */
    uint64_t packet_first; /* events before the current packet */
    bool in_file;          /* the current packet has its region in the file */
    bool write_failed;     /* a write into that region failed (error says why) */
    size_t published;      /* bytes of the current packet in the file (under lock) */
    int fd;
    uint64_t file_end;     /* offset just past the last packet region */
    uint64_t packet_off;   /* file offset of the current (or last) packet */
    bool have_packet;      /* a packet region has been allocated at least once */
    uint64_t seq;          /* packet_seq_num of the current packet */
    _Atomic uint64_t lost; /* events that could not be placed in the file */
    pthread_mutex_t lock;  /* packet switches against publishing */
    unsigned worker;
    int error;             /* errno of the first failure, 0 if none */
    /* The flight recorder (--mon-ring): the last ring_n packets in memory,
     * packet seq in ring[seq % ring_n]; nothing goes to the file until a
     * snapshot (mon_writer_ring_write). Under lock: ring_events (events of
     * each finished packet), dropped (events of the packets overwritten). */
    uint8_t **ring;
    size_t ring_n;
    uint64_t *ring_events;
    uint64_t dropped;
    uint32_t run;          /* run_start of each ring packet (mon_writer_set_run) */
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
 * preamble and the largest event, a whole number of pages (file regions
 * stay page-aligned), at most the format's limit. */
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
 * Writing into the file: only async-signal-safe calls (the crash flush uses
 * them too)
 * ------------------------------------------------------------------------- */

/* pwrite(2) all of it; 0, or -1 with errno. */
static int write_at(int fd, const void *buf, size_t len, uint64_t off)
{
    const uint8_t *p = buf;
    while (len) {
        ssize_t n = pwrite(fd, p, len, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO;
            return -1;
        }
        p += n;
        len -= (size_t)n;
        off += (uint64_t)n;
    }
    return 0;
}

static int write_u64_at(int fd, uint64_t v, uint64_t off)
{
    uint8_t b[8];
    (void)mon_put_u64(b, v);
    return write_at(fd, b, 8, off);
}

/* Put the packet buffer's bytes [from, pos) into the packet's region, then
 * make them part of the packet: timestamp_begin (set with the packet's
 * first event), timestamp_end, events_discarded, then content_size, in that
 * order, so that a reader looking at any moment (a live view, or the file
 * after a kill between two writes) never sees a content_size covering an
 * event its timestamp_end does not. Returns 0 or -1 with errno. */
static int publish_range(int fd, const uint8_t *buf, uint64_t packet_off, size_t from, size_t pos,
                         uint64_t ts_end, uint64_t lost)
{
    if (pos > from && write_at(fd, buf + from, pos - from, packet_off + from) != 0)
        return -1;
    if (write_at(fd, buf + MON_OFF_TS_BEGIN, 8, packet_off + MON_OFF_TS_BEGIN) != 0 ||
        write_u64_at(fd, ts_end, packet_off + MON_OFF_TS_END) != 0 ||
        write_u64_at(fd, lost, packet_off + MON_OFF_DISCARDED) != 0)
        return -1;
    return write_u64_at(fd, (uint64_t)pos * 8, packet_off + MON_OFF_CONTENT_SIZE);
}

/* ---------------------------------------------------------------------------
 * Packets
 * ------------------------------------------------------------------------- */

/* A packet's header and context into buf (MON_PACKET_PREAMBLE_BYTES): from
 * ts to ts, content and size in bytes, lost events so far, sequence number
 * seq, and the log's worker and run. */
static void preamble_put(const mon_writer *w, uint8_t *buf, uint64_t ts, size_t content,
                         size_t size, uint64_t lost, uint64_t seq)
{
    uint8_t *p = buf;
    p = mon_put_u32(p, MON_CTF_MAGIC);
    p = mon_put_u32(p, 0);
    p = mon_put_u64(p, ts);
    p = mon_put_u64(p, ts);
    p = mon_put_u64(p, (uint64_t)content * 8);
    p = mon_put_u64(p, (uint64_t)size * 8);
    p = mon_put_u64(p, lost);
    p = mon_put_u32(p, w->worker);
    p = mon_put_u64(p, seq);
    (void)mon_put_u64(p, w->run_id);
}

/* The header of a new packet: no events yet, times at the log's clock. */
static void header_init(mon_writer *w, uint8_t *buf)
{
    preamble_put(w, buf, last_ts_of(w), MON_PACKET_PREAMBLE_BYTES, w->hot.cap,
                 atomic_load_explicit(&w->lost, memory_order_relaxed), w->seq);
}

/* Allocate the next region of the file, of the current packet size, and
 * write the new packet's header into it. -1 (errno set) if the file cannot
 * grow by that much. */
static int region_start(mon_writer *w)
{
    if (w->fd < 0) {
        errno = EBADF;
        return -1;
    }
    header_init(w, w->hot.buf);
    /* Allocated up front, so that publishing cannot run out of space
     * half-way through a packet, and the file holds whole packets only. */
    int rc = posix_fallocate(w->fd, (off_t)w->file_end, (off_t)w->hot.cap);
    if (rc == 0 && write_at(w->fd, w->hot.buf, MON_PACKET_PREAMBLE_BYTES, w->file_end) != 0)
        rc = errno ? errno : EIO;
    if (rc != 0) {
        /* Whatever part was allocated is cut off again, so that the file
         * still ends with a whole packet. */
        if (ftruncate(w->fd, (off_t)w->file_end) != 0) {
            /* Nothing better to do: the error reported is the first one. */
        }
        errno = rc;
        return -1;
    }
    return 0;
}

/* A region for the next packet: of the full size, else (the file system or
 * the file size limit has no room for it) of half as much, and so on down
 * to the smallest packet, so that the log takes what fits. hot.cap is the
 * packet's size (the buffer's when none fits). -1 with errno. */
static int region_fitting(mon_writer *w)
{
    size_t page = page_size(), min = packet_size_for(1);
    w->hot.cap = w->full_cap;
    for (;;) {
        if (region_start(w) == 0)
            return 0;
        int err = errno;
        size_t smaller = w->hot.cap / 2 / page * page;
        if ((err != ENOSPC && err != EFBIG && err != EDQUOT) || smaller < min) {
            w->hot.cap = w->full_cap;
            header_init(w, w->hot.buf);
            errno = err;
            return -1;
        }
        w->hot.cap = smaller;
    }
}

/* Start a new packet: in the file if it can grow, else only in the buffer
 * (its events are lost). Called by the worker with the lock held (or
 * before anyone else knows w). */
static void ring_packet_start(mon_writer *w)
{
    size_t slot = (size_t)(w->seq % w->ring_n);
    if (w->seq >= w->ring_n)
        w->dropped += w->ring_events[slot]; /* the oldest packet goes */
    w->ring_events[slot] = 0;
    w->hot.buf = w->ring[slot];
    header_init(w, w->hot.buf);
    w->packet_first = w->hot.events;
    set_pos(w, MON_PACKET_PREAMBLE_BYTES);
    /* Each packet of a ring says its run: the packet that held the run's
     * run_start may be gone from the window. */
    if (w->run)
        mon_emit_task(w, MON_ID_RUN_START, last_ts_of(w), w->run);
}

/* The end of a ring packet: its header says what it holds, for the
 * snapshots (which copy it as it is). */
static void ring_packet_end(mon_writer *w)
{
    uint8_t *buf = w->hot.buf;
    (void)mon_put_u64(buf + MON_OFF_TS_END, last_ts_of(w));
    (void)mon_put_u64(buf + MON_OFF_CONTENT_SIZE, (uint64_t)pos_of(w) * 8);
    w->ring_events[w->seq % w->ring_n] = w->hot.events - w->packet_first;
    w->seq++;
}

static void packet_start(mon_writer *w)
{
    if (w->ring) {
        ring_packet_start(w);
        return;
    }
    w->packet_first = w->hot.events;
    w->write_failed = false;
    if (region_fitting(w) == 0) {
        w->in_file = true;
        w->packet_off = w->file_end;
        w->file_end += w->hot.cap;
        w->have_packet = true;
        w->published = MON_PACKET_PREAMBLE_BYTES;
    } else {
        note_error(w, errno);
        w->in_file = false;
        w->published = 0;
    }
    set_pos(w, MON_PACKET_PREAMBLE_BYTES);
}

/* Events of the current packet in the buffer from byte `from` to `to`
 * (whole events): counted on a write failure, to be reported lost. */
static uint64_t events_between(const uint8_t *buf, size_t from, size_t to)
{
    uint64_t n = 0;
    for (size_t at = from; at < to; n++) {
        size_t len = mon_event_bytes(buf + at, to - at);
        if (len == 0)
            break;
        at += len;
    }
    return n;
}

/* Publish what the worker has completed in the current packet. Lock held
 * (or the worker's own thread when nobody else can know w). */
static void publish_committed(mon_writer *w)
{
    size_t pos = atomic_load_explicit(&w->hot.pos, memory_order_acquire);
    if (!w->in_file || w->write_failed || pos <= w->published)
        return; /* nowhere to put it, or nothing new */
    if (publish_range(w->fd, w->hot.buf, w->packet_off, w->published, pos,
                      atomic_load_explicit(&w->hot.last_ts, memory_order_relaxed),
                      atomic_load_explicit(&w->lost, memory_order_relaxed)) != 0) {
        /* The region was allocated, so this is an I/O error: what the file
         * has stays valid (content_size was written last), and the rest of
         * the packet is counted lost when it ends. */
        note_error(w, errno);
        w->write_failed = true;
        return;
    }
    w->published = pos;
}

/* End the current packet: publish everything in it, or count as lost what
 * cannot reach the file. Worker thread, lock held. */
static void packet_end(mon_writer *w)
{
    if (w->ring) {
        ring_packet_end(w);
        return;
    }
    if (w->in_file)
        publish_committed(w);
    size_t pos = pos_of(w);
    if (!w->in_file) {
        atomic_fetch_add_explicit(&w->lost, w->hot.events - w->packet_first, memory_order_relaxed);
    } else if (w->write_failed) {
        atomic_fetch_add_explicit(&w->lost, events_between(w->hot.buf, w->published, pos),
                                  memory_order_relaxed);
    }
    if (w->in_file)
        w->seq++;
}

/* ---------------------------------------------------------------------------
 * Opening, publishing, closing
 * ------------------------------------------------------------------------- */

static void set_err(char *err, size_t errlen, const char *fmt, const char *a, const char *b)
{
    if (err && errlen)
        snprintf(err, errlen, fmt, a, b);
}

/* mon_writer_open_fd for run run_id (0: the packets name none). */
static mon_writer *open_fd_run(int fd, const char *path, unsigned worker, uint64_t run_id,
                               size_t packet_bytes, char *err, size_t errlen)
{
    mon_writer *w = calloc(1, sizeof *w);
    size_t cap = packet_size_for(packet_bytes);
    if (w)
        w->hot.buf = malloc(cap);
    if (!w || !w->hot.buf) {
        free(w);
        if (fd >= 0)
            close(fd);
        set_err(err, errlen, "%s: out of memory for the trace buffer%s", path, "");
        return NULL;
    }
    w->hot.cap = w->full_cap = cap;
    w->run_id = run_id;
    w->fd = fd;
    w->worker = worker;
    pthread_mutex_init(&w->lock, NULL);
    snprintf(w->path, sizeof w->path, "%s", path);
    packet_start(w);
    return w;
}

mon_writer *mon_writer_open_ring(const char *dir, unsigned worker, uint64_t run_id,
                                 size_t packet_bytes, size_t ring_bytes, char *err, size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s%u", dir, MON_WORKER_FILE_PREFIX, worker);
    /* At least two packets, so that a full one is kept while the next
     * fills: a ring smaller than two packets gets smaller packets. */
    size_t cap = packet_size_for(packet_bytes);
    if (ring_bytes / 2 < cap)
        cap = packet_size_for(ring_bytes / 2);
    size_t n = ring_bytes / cap < 2 ? 2 : ring_bytes / cap;
    mon_writer *w = calloc(1, sizeof *w);
    if (w) {
        w->ring = calloc(n, sizeof *w->ring);
        w->ring_events = calloc(n, sizeof *w->ring_events);
    }
    for (size_t i = 0; w && w->ring && i < n; i++)
        if (!(w->ring[i] = malloc(cap)))
            break;
    if (!w || !w->ring || !w->ring_events || !w->ring[n - 1]) {
        for (size_t i = 0; w && w->ring && i < n; i++)
            free(w->ring[i]);
        if (w) {
            free(w->ring);
            free(w->ring_events);
        }
        free(w);
        set_err(err, errlen, "%s: out of memory for the flight recorder%s", path, "");
        return NULL;
    }
    w->ring_n = n;
    w->hot.cap = w->full_cap = cap;
    w->run_id = run_id;
    w->fd = -1;
    w->worker = worker;
    pthread_mutex_init(&w->lock, NULL);
    snprintf(w->path, sizeof w->path, "%s", path);
    packet_start(w);
    return w;
}

void mon_writer_set_run(mon_writer *w, uint32_t run) { w->run = run; }

void mon_writer_set_timed(mon_writer *w, bool timed) { w->hot.timed = timed; }

bool mon_writer_ring_dropped(const mon_writer *w, uint64_t seq)
{
    return w->ring && seq + w->ring_n <= w->seq;
}

uint64_t mon_writer_packet_seq(const mon_writer *w) { return w->seq; }

mon_writer *mon_writer_open_fd(int fd, const char *path, unsigned worker, size_t packet_bytes,
                               char *err, size_t errlen)
{
    return open_fd_run(fd, path, worker, 0, packet_bytes, err, errlen);
}

mon_writer *mon_writer_open_run(const char *dir, unsigned worker, uint64_t run_id,
                                size_t packet_bytes, char *err, size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s%u", dir, MON_WORKER_FILE_PREFIX, worker);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        set_err(err, errlen, "%s: cannot create trace file: %s", path, strerror(errno));
        return NULL;
    }
    return open_fd_run(fd, path, worker, run_id, packet_bytes, err, errlen);
}

mon_writer *mon_writer_open(const char *dir, unsigned worker, size_t packet_bytes,
                            char *err, size_t errlen)
{
    return mon_writer_open_run(dir, worker, 0, packet_bytes, err, errlen);
}

void mon_writer_publish(mon_writer *w)
{
    if (w->ring)
        return; /* nothing goes to the file until a snapshot */
    pthread_mutex_lock(&w->lock);
    publish_committed(w);
    pthread_mutex_unlock(&w->lock);
}

void mon_writer_flush(mon_writer *w)
{
    if (w->ring)
        return;
    pthread_mutex_lock(&w->lock);
    if (w->in_file) {
        publish_committed(w);
    } else if (w->hot.events > w->packet_first) {
        /* Events outside the file can never reach it. */
        packet_end(w);
        w->packet_first = w->hot.events;
        set_pos(w, MON_PACKET_PREAMBLE_BYTES);
    }
    pthread_mutex_unlock(&w->lock);
}

/* The crash flush reads the other workers' positions while their threads
 * may still run: a deliberate, best-effort race in a dying process, kept
 * out of ThreadSanitizer's sight so that a report does not end the process
 * before the flush is done. Only pwrite: async-signal-safe. */
#if defined(__SANITIZE_THREAD__)
#define MON_CRASH_PATH __attribute__((no_sanitize("thread")))
#else
#define MON_CRASH_PATH
#endif

MON_CRASH_PATH void mon_writer_crash_flush(mon_writer *w)
{
    if (w->ring)
        return; /* the monitor writes the ring's window instead */
    size_t pos = atomic_load_explicit(&w->hot.pos, memory_order_acquire);
    size_t from = w->published;
    if (!w->in_file || w->write_failed || pos <= from)
        return;
    int saved = errno; /* a signal handler must leave errno as it found it */
    (void)publish_range(w->fd, w->hot.buf, w->packet_off, from, pos,
                        atomic_load_explicit(&w->hot.last_ts, memory_order_relaxed),
                        atomic_load_explicit(&w->lost, memory_order_relaxed));
    errno = saved;
}

/* A worker that lost events and ended outside the file: its last packet in
 * the file is made to say so (events_discarded is "lost so far", and its
 * timestamp_end moves to the last lost event so the count holds at that
 * time). Written in place: the blocks exist, so this works on a full disk. */
static void record_final_loss(mon_writer *w)
{
    uint64_t lost = atomic_load_explicit(&w->lost, memory_order_relaxed);
    if (!lost || !w->have_packet || w->fd < 0)
        return;
    if (write_u64_at(w->fd, last_ts_of(w), w->packet_off + MON_OFF_TS_END) != 0)
        return;
    (void)write_u64_at(w->fd, lost, w->packet_off + MON_OFF_DISCARDED);
}

/* A flight recorder's buffers; its window went out with the last snapshot. */
static void ring_free(mon_writer *w)
{
    for (size_t i = 0; i < w->ring_n; i++)
        free(w->ring[i]);
    free(w->ring);
    free(w->ring_events);
    pthread_mutex_destroy(&w->lock);
    free(w);
}

int mon_writer_close(mon_writer *w)
{
    if (!w)
        return 0;
    if (w->ring) {
        ring_free(w);
        return 0;
    }
    pthread_mutex_lock(&w->lock);
    /* The crash flush may have published already: the file says what it
     * published, the worker's position says what there is. */
    packet_end(w);
    if (w->in_file) {
        /* The last packet loses its padding: its size becomes its content,
         * and the file ends there. A last packet with nothing to say (no
         * event, no loss) goes altogether. */
        size_t end = w->write_failed ? w->published : pos_of(w);
        bool empty = end == MON_PACKET_PREAMBLE_BYTES &&
                     atomic_load_explicit(&w->lost, memory_order_relaxed) == 0;
        if (write_u64_at(w->fd, (uint64_t)end * 8, w->packet_off + MON_OFF_PACKET_SIZE) != 0)
            note_error(w, errno);
        if (ftruncate(w->fd, (off_t)(w->packet_off + (empty ? 0 : end))) != 0)
            note_error(w, errno);
    } else {
        record_final_loss(w);
    }
    pthread_mutex_unlock(&w->lock);
    if (w->fd >= 0 && close(w->fd) != 0)
        note_error(w, errno);
    int rc = atomic_load_explicit(&w->lost, memory_order_relaxed) ? -1 : 0;
    pthread_mutex_destroy(&w->lock);
    free(w->hot.buf);
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
    if (!w->have_packet)
        return 0;
    if (!w->in_file)
        return w->file_end; /* the last packet in the file was full: it ends there */
    return w->packet_off + (w->write_failed ? w->published : pos_of((mon_writer *)w));
}

/* ---------------------------------------------------------------------------
 * The flight recorder's window
 * ------------------------------------------------------------------------- */

/* One packet of the window into fd at *off: its preamble with the given
 * end, content and sequence number (packet_size = content_size: no
 * padding), then its events. */
static int ring_put_packet(int fd, const uint8_t *buf, size_t content, uint64_t ts_end,
                           uint64_t seq, uint64_t *off)
{
    uint8_t pre[MON_PACKET_PREAMBLE_BYTES];
    memcpy(pre, buf, sizeof pre);
    (void)mon_put_u64(pre + MON_OFF_TS_END, ts_end);
    (void)mon_put_u64(pre + MON_OFF_CONTENT_SIZE, (uint64_t)content * 8);
    (void)mon_put_u64(pre + MON_OFF_PACKET_SIZE, (uint64_t)content * 8);
    (void)mon_put_u64(pre + MON_OFF_DISCARDED, 0);
    (void)mon_put_u64(pre + MON_OFF_SEQ_NUM, seq);
    if (write_at(fd, pre, sizeof pre, *off) != 0 ||
        write_at(fd, buf + sizeof pre, content - sizeof pre, *off + sizeof pre) != 0)
        return -1;
    *off += content;
    return 0;
}

/* The prefix packet: events (whole, with one-byte headers) at the window's
 * start, so that the tasks mapped before it keep their names. */
static int ring_put_prefix(int fd, const mon_writer *w, uint64_t start, const uint8_t *events,
                           size_t len, uint64_t *off)
{
    uint8_t pre[MON_PACKET_PREAMBLE_BYTES];
    preamble_put(w, pre, start, sizeof pre + len, sizeof pre + len, 0, 0);
    if (write_at(fd, pre, sizeof pre, *off) != 0 ||
        (len && write_at(fd, events, len, *off + sizeof pre) != 0))
        return -1;
    *off += sizeof pre + len;
    return 0;
}

/* The bytes of ring packet buf that the window copies: the current
 * packet's up to the published position pos, a finished one's all. */
static size_t ring_content(const uint8_t *buf, bool current, size_t pos)
{
    return current ? pos : (size_t)(mon_get_u64(buf + MON_OFF_CONTENT_SIZE) / 8);
}

/* The window, with the lock held (or by a crash handler that could not
 * take it). Every byte copied is ordered before the copy: the finished
 * packets by the lock (the worker changes a packet only while it fills it,
 * and takes the lock to switch), the current packet up to the position the
 * worker published (acquired here; its events below it, and its times if
 * it has an event, are complete and no longer written). So the window's
 * start is read from the first packet that has an event: a packet with
 * none may be the current one, whose times its first event is setting. */
static int ring_window(mon_writer *w, int fd, const uint8_t *prefix, size_t prefix_len,
                       mon_ring_window *out)
{
    uint64_t cur = w->seq, first = cur >= w->ring_n - 1 ? cur - (w->ring_n - 1) : 0;
    size_t pos = atomic_load_explicit(&w->hot.pos, memory_order_acquire);
    uint64_t last = atomic_load_explicit(&w->hot.last_ts, memory_order_relaxed);
    uint64_t start = last, off = 0, seq = 0, events = 0;
    for (uint64_t s = first; s <= cur; s++) {
        const uint8_t *buf = w->ring[s % w->ring_n];
        if (ring_content(buf, s == cur, pos) > MON_PACKET_PREAMBLE_BYTES) {
            start = mon_get_u64(buf + MON_OFF_TS_BEGIN);
            break;
        }
    }
    int rc = ring_put_prefix(fd, w, start, prefix, prefix_len, &off);
    for (uint64_t s = first; rc == 0 && s <= cur; s++) {
        const uint8_t *buf = w->ring[s % w->ring_n];
        bool now = s == cur;
        size_t content = ring_content(buf, now, pos);
        uint64_t end = now ? last : mon_get_u64(buf + MON_OFF_TS_END);
        if (content <= MON_PACKET_PREAMBLE_BYTES)
            continue;
        rc = ring_put_packet(fd, buf, content, end, ++seq, &off);
        events += now ? events_between(buf, MON_PACKET_PREAMBLE_BYTES, content)
                      : w->ring_events[s % w->ring_n];
    }
    if (out)
        *out = (mon_ring_window){.first_packet = first, .events_before = w->dropped,
                                 .start_ticks = start, .events = events, .bytes = off};
    if (rc == 0 && ftruncate(fd, (off_t)off) != 0)
        rc = -1;
    return rc;
}

/* The crash handler's window: with the lock if it comes free within a
 * few ms, so that the window is the one a snapshot would write (a worker
 * holds it only while it switches packets, the control thread while it
 * copies). pthread_mutex_trylock is not on POSIX's async-signal-safe list,
 * but it never waits (one compare-and-swap in glibc), and a lock the
 * crashed thread itself holds only makes it fail. When it stays taken, its
 * holder is stopped (the crashed thread) or stuck, so the packets do not
 * change under the copy and it is made without the lock: best effort, as
 * the crash flush's (mon_writer_crash_flush). errno is kept. */
static int ring_crash_window(mon_writer *w, int fd, const uint8_t *prefix, size_t prefix_len,
                             mon_ring_window *out)
{
    int saved = errno;
    bool locked = false;
    for (int i = 0; i < 100 && !(locked = pthread_mutex_trylock(&w->lock) == 0); i++) {
        struct timespec pause = {0, 20000};
        (void)nanosleep(&pause, NULL);
    }
    int rc = ring_window(w, fd, prefix, prefix_len, out);
    if (locked)
        pthread_mutex_unlock(&w->lock);
    errno = saved;
    return rc;
}

int mon_writer_ring_write(mon_writer *w, int fd, const uint8_t *prefix, size_t prefix_len,
                          bool lock, mon_ring_window *out)
{
    if (!lock)
        return ring_crash_window(w, fd, prefix, prefix_len, out);
    pthread_mutex_lock(&w->lock);
    int rc = ring_window(w, fd, prefix, prefix_len, out);
    pthread_mutex_unlock(&w->lock);
    return rc;
}

/* The packet is full: end it and start the next. Called from the inlined
 * event path (mon_emit_internal.h) once per packet. */
void mon_writer_next_packet(mon_writer *w)
{
    pthread_mutex_lock(&w->lock);
    packet_end(w);
    packet_start(w);
    pthread_mutex_unlock(&w->lock);
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

/* Out of line: once per change of what is recorded. */
void mon_emit_control(mon_writer *w, uint64_t ts, unsigned flags, const char *tasks)
{
    uint8_t text[MON_NAME_MAX];
    size_t len = tasks ? utf8_name(text, tasks) : 0;
    mon_ev e = mon_ev_begin(w, MON_ID_MONITOR_CONTROL, ts, MON_UINT_MAX_BYTES + len + 1);
    e.p = mon_put_uint(e.p, flags & MON_FLAG_BITS_ALL, 1, tasks ? 1u : 0u);
    if (len)
        memcpy(e.p, text, len);
    e.p += len;
    e.p = mon_put_u8(e.p, 0);
    mon_ev_end(w, e);
}

size_t mon_encode_task_map(uint8_t *p, bool timed, uint64_t ts, uint64_t task, const char *name)
{
    uint8_t *q = p;
    if (timed)
        *q++ = MON_HDR_SAME(MON_ID_TASK_MAP);
    else
        q += 2, (void)mon_put_u32(p, MON_ID_TASK_MAP | (uint32_t)(ts & 511u) << MON_HDR_TS_SHIFT);
    q = mon_put_uint_wide(q, task, 0, 0);
    size_t len = utf8_name(q, name);
    q += len;
    *q++ = 0;
    return (size_t)(q - p);
}
