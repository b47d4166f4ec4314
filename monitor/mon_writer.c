/*
 * mon_writer.c - the per-worker CTF packet writer.
 *
 * Why it looks like this: monitoring must be cheap enough to leave on, so
 * the hot path is a bounds check, a few stores into a buffer owned by one
 * thread, and (rarely) one large write(2) of a whole packet. Packets are
 * written with packet_size == content_size, so no padding is ever stored.
 * The only cross-thread access is the crash handler reading the committed
 * position, which is published with a relaxed atomic store (a plain store on
 * common hardware; no read-modify-write).
 */
#include "mon_writer_internal.h"

#include "mon.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct mon_writer {
    uint8_t *buf;         /* the packet being filled; preamble at buf[0..52) */
    size_t cap;           /* bytes in buf */
    size_t pos;           /* bytes used */
    uint64_t ts_begin;    /* time of the packet's first event */
    uint64_t last_ts;     /* time of the stream's last event */
    uint64_t packet_events;
    uint64_t events;      /* all events emitted (written or lost) */
    uint64_t lost;        /* events in packets that could not be written */
    uint64_t bytes;       /* bytes written to the file */
    _Atomic size_t committed_pos;   /* for the crash flush */
    _Atomic uint64_t committed_ts;  /* for the crash flush */
    int fd;
    unsigned worker;
    bool warned;
    char path[4096];
};

static void set_err(char *err, size_t errlen, const char *fmt, const char *a, const char *b)
{
    if (err && errlen)
        snprintf(err, errlen, fmt, a, b);
}

mon_writer *mon_writer_open_fd(int fd, const char *path, unsigned worker, size_t packet_bytes,
                               char *err, size_t errlen)
{
    if (packet_bytes == 0)
        packet_bytes = MON_DEFAULT_PACKET_BYTES;
    /* A packet must hold the preamble and at least the largest event. */
    if (packet_bytes < MON_PACKET_PREAMBLE_BYTES + MON_EVENT_MAX_BYTES)
        packet_bytes = MON_PACKET_PREAMBLE_BYTES + MON_EVENT_MAX_BYTES;
    mon_writer *w = calloc(1, sizeof *w);
    if (w)
        w->buf = malloc(packet_bytes);
    if (!w || !w->buf) {
        free(w);
        close(fd);
        set_err(err, errlen, "%s: out of memory for the trace buffer%s", path, "");
        return NULL;
    }
    w->cap = packet_bytes;
    w->pos = MON_PACKET_PREAMBLE_BYTES;
    atomic_store_explicit(&w->committed_pos, w->pos, memory_order_relaxed);
    w->fd = fd;
    w->worker = worker;
    snprintf(w->path, sizeof w->path, "%s", path);
    return w;
}

mon_writer *mon_writer_open(const char *dir, unsigned worker, size_t packet_bytes,
                            char *err, size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s%u", dir, MON_WORKER_FILE_PREFIX, worker);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        set_err(err, errlen, "%s: cannot create trace file: %s", path, strerror(errno));
        return NULL;
    }
    return mon_writer_open_fd(fd, path, worker, packet_bytes, err, errlen);
}

/* Fill the preamble of a packet holding len bytes. */
static void write_preamble(uint8_t *buf, size_t len, uint64_t ts_begin, uint64_t ts_end,
                           uint64_t discarded, unsigned worker)
{
    uint8_t *p = buf;
    p = mon_put_u32(p, MON_CTF_MAGIC);
    p = mon_put_u32(p, 0);
    p = mon_put_u64(p, ts_begin);
    p = mon_put_u64(p, ts_end);
    p = mon_put_u64(p, (uint64_t)len * 8);
    p = mon_put_u64(p, (uint64_t)len * 8);
    p = mon_put_u64(p, discarded);
    (void)mon_put_u32(p, worker);
}

/* write(2) all of buf, retrying short writes; false on failure. */
static bool write_all(int fd, const uint8_t *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        buf += n;
        len -= (size_t)n;
    }
    return true;
}

static void warn_lost(mon_writer *w, int saved_errno)
{
    if (w->warned)
        return;
    w->warned = true;
    fprintf(stderr,
            "mon: warning: writing %s failed (%s); its events are counted as lost "
            "(events_discarded in the trace and in run.json)\n",
            w->path, strerror(saved_errno ? saved_errno : EIO));
}

void mon_writer_flush(mon_writer *w)
{
    if (w->packet_events == 0)
        return;
    if (atomic_load_explicit(&w->committed_pos, memory_order_relaxed) != w->pos) {
        /* The crash flush has written this packet already. */
        w->pos = MON_PACKET_PREAMBLE_BYTES;
        w->packet_events = 0;
        return;
    }
    write_preamble(w->buf, w->pos, w->ts_begin, w->last_ts, w->lost, w->worker);
    errno = 0;
    if (write_all(w->fd, w->buf, w->pos)) {
        w->bytes += w->pos;
    } else {
        w->lost += w->packet_events;
        warn_lost(w, errno);
    }
    w->pos = MON_PACKET_PREAMBLE_BYTES;
    w->packet_events = 0;
    atomic_store_explicit(&w->committed_pos, w->pos, memory_order_relaxed);
}

/* The crash flush of another worker's log reads a buffer that its thread
 * may still be filling: a deliberate, best-effort race in a dying process.
 * It is kept out of ThreadSanitizer's sight (no instrumentation, and the
 * raw system call instead of the intercepted write) so that a sanitizer
 * report does not end the process before the flush is done. */
#if defined(__SANITIZE_THREAD__)
#define MON_CRASH_PATH __attribute__((no_sanitize("thread")))
#else
#define MON_CRASH_PATH
#endif

MON_CRASH_PATH static void crash_write(int fd, const uint8_t *buf, size_t len)
{
    while (len > 0) {
        long n = syscall(SYS_write, fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        buf += n;
        len -= (size_t)n;
    }
}

MON_CRASH_PATH void mon_writer_crash_flush(mon_writer *w)
{
    size_t len = atomic_load_explicit(&w->committed_pos, memory_order_relaxed);
    if (len <= MON_PACKET_PREAMBLE_BYTES)
        return;
    uint64_t ts_end = atomic_load_explicit(&w->committed_ts, memory_order_relaxed);
    uint64_t ts_begin = w->ts_begin <= ts_end ? w->ts_begin : ts_end;
    /* The preamble is built on the stack: the buffer's own preamble bytes
     * belong to the owner thread's next flush. Only the write system call
     * is used (async-signal-safe); a failure cannot be reported here. */
    uint8_t pre[MON_PACKET_PREAMBLE_BYTES];
    write_preamble(pre, len, ts_begin, ts_end, w->lost, w->worker);
    crash_write(w->fd, pre, sizeof pre);
    crash_write(w->fd, w->buf + MON_PACKET_PREAMBLE_BYTES, len - MON_PACKET_PREAMBLE_BYTES);
    /* Whatever happens next, these events must not be written twice. */
    atomic_store_explicit(&w->committed_pos, MON_PACKET_PREAMBLE_BYTES, memory_order_relaxed);
}

int mon_writer_close(mon_writer *w)
{
    if (!w)
        return 0;
    mon_writer_flush(w);
    if (close(w->fd) != 0 && !w->warned) {
        /* Data may still be lost at close (e.g. NFS); say so once. */
        warn_lost(w, errno);
    }
    int rc = w->lost ? -1 : 0;
    free(w->buf);
    free(w);
    return rc;
}

unsigned mon_writer_worker(const mon_writer *w) { return w->worker; }
uint64_t mon_writer_events(const mon_writer *w) { return w->events; }
uint64_t mon_writer_lost(const mon_writer *w) { return w->lost; }
uint64_t mon_writer_bytes(const mon_writer *w) { return w->bytes; }

/*
 * Start an event with payload bytes of payload: flush when the packet is
 * full, write the compact header when the time since the stream's previous
 * event fits in 27 bits (a reader reconstructs the full time from the low
 * bits, assuming at most one wrap), the extended header otherwise.
 */
/* Out of line: once per packet, and keeping it out of the inlined event
 * path keeps that path short. */
__attribute__((noinline, cold)) static void flush_full_packet(mon_writer *w)
{
    mon_writer_flush(w);
}

/* Inlined into every emitter: saves a call and its register saves per
 * event, in a path that costs ~10 ns besides the clock read. */
static inline __attribute__((always_inline)) uint8_t *
event_begin(mon_writer *w, mon_event_id id, uint64_t ts, size_t payload)
{
    if (__builtin_expect(w->pos + MON_EXTENDED_HEADER_BYTES + payload > w->cap, 0))
        flush_full_packet(w);
    if (ts < w->last_ts)
        ts = w->last_ts; /* the stream's clock never goes back */
    if (w->packet_events == 0)
        w->ts_begin = ts;
    uint8_t *p = w->buf + w->pos;
    uint64_t since = ts - (w->packet_events == 0 ? ts : w->last_ts);
    if (since <= MON_COMPACT_TS_MASK) {
        p = mon_put_u32(p, (uint32_t)id | (((uint32_t)ts & MON_COMPACT_TS_MASK) << 5));
    } else {
        p = mon_put_u8(p, MON_EXTENDED_ID);
        p = mon_put_u32(p, (uint32_t)id);
        p = mon_put_u64(p, ts);
    }
    w->last_ts = ts;
    return p;
}

static void event_commit(mon_writer *w, uint8_t *end)
{
    w->pos = (size_t)(end - w->buf);
    w->packet_events++;
    w->events++;
    atomic_store_explicit(&w->committed_ts, w->last_ts, memory_order_relaxed);
    atomic_store_explicit(&w->committed_pos, w->pos, memory_order_relaxed);
}

/* Ids are stored in 32 bits (see docs/LOGFORMAT.md): keeps events small. */
static uint32_t id32(uint64_t id) { return (uint32_t)id; }

void mon_emit_bare(mon_writer *w, mon_event_id id, uint64_t ts)
{
    event_commit(w, event_begin(w, id, ts, 0));
}

void mon_emit_task(mon_writer *w, mon_event_id id, uint64_t ts, uint64_t task)
{
    uint8_t *p = event_begin(w, id, ts, 4);
    event_commit(w, mon_put_u32(p, id32(task)));
}

void mon_emit_task_block(mon_writer *w, uint64_t ts, uint64_t task, unsigned cause)
{
    uint8_t *p = event_begin(w, MON_ID_TASK_BLOCK, ts, 5);
    p = mon_put_u32(p, id32(task));
    event_commit(w, mon_put_u8(p, (uint8_t)cause));
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

void mon_emit_task_map(mon_writer *w, uint64_t ts, uint64_t task, unsigned worker,
                       const char *name)
{
    uint8_t text[MON_NAME_MAX];
    size_t len = utf8_name(text, name);
    uint8_t *p = event_begin(w, MON_ID_TASK_MAP, ts, 8 + len + 1);
    p = mon_put_u32(p, id32(task));
    p = mon_put_u32(p, worker);
    if (len)
        memcpy(p, text, len);
    p += len;
    event_commit(w, mon_put_u8(p, 0));
}

void mon_emit_stream_mode(mon_writer *w, mon_event_id id, uint64_t ts, uint64_t task,
                          uint64_t stream, bool write_end)
{
    uint8_t *p = event_begin(w, id, ts, 9);
    p = mon_put_u32(p, id32(task));
    p = mon_put_u32(p, id32(stream));
    event_commit(w, mon_put_u8(p, write_end ? 1 : 0));
}

void mon_emit_stream_io(mon_writer *w, mon_event_id id, uint64_t ts, uint64_t task,
                        uint64_t stream)
{
    uint8_t *p = event_begin(w, id, ts, 8);
    p = mon_put_u32(p, id32(task));
    event_commit(w, mon_put_u32(p, id32(stream)));
}

void mon_emit_stream_block(mon_writer *w, uint64_t ts, uint64_t task, uint64_t stream,
                           bool empty)
{
    uint8_t *p = event_begin(w, MON_ID_STREAM_BLOCK, ts, 9);
    p = mon_put_u32(p, id32(task));
    p = mon_put_u32(p, id32(stream));
    event_commit(w, mon_put_u8(p, empty ? 1 : 0));
}

void mon_emit_stream_wake(mon_writer *w, uint64_t ts, uint64_t waker, uint64_t stream,
                          uint64_t woken)
{
    uint8_t *p = event_begin(w, MON_ID_STREAM_WAKE, ts, 12);
    p = mon_put_u32(p, id32(waker));
    p = mon_put_u32(p, id32(stream));
    event_commit(w, mon_put_u32(p, id32(woken)));
}

void mon_emit_message(mon_writer *w, mon_event_id id, uint64_t ts, uint64_t task,
                      uint64_t msg)
{
    uint8_t *p = event_begin(w, id, ts, 12);
    p = mon_put_u32(p, id32(task));
    event_commit(w, mon_put_u64(p, msg));
}

void mon_emit_task_load(mon_writer *w, uint64_t ts, uint64_t task, uint32_t dispatches,
                        uint64_t exec_ns)
{
    uint8_t *p = event_begin(w, MON_ID_TASK_LOAD, ts, 16);
    p = mon_put_u32(p, id32(task));
    p = mon_put_u32(p, dispatches);
    event_commit(w, mon_put_u64(p, exec_ns));
}

void mon_emit_worker_load(mon_writer *w, uint64_t ts, uint32_t waits, uint64_t wait_ns,
                          uint64_t busy_ns)
{
    uint8_t *p = event_begin(w, MON_ID_WORKER_LOAD, ts, 20);
    p = mon_put_u32(p, waits);
    p = mon_put_u64(p, wait_ns);
    event_commit(w, mon_put_u64(p, busy_ns));
}
