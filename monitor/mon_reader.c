/*
 * mon_reader.c - reads a trace directory: one decoder per worker log, and a
 * binary heap that merges them by time.
 *
 * Why a packet at a time: traces of long runs are far larger than memory
 * should be, and the format lets each log be decoded front to back with
 * only the current packet in hand. Every length, id and enum read from the
 * file is checked before use, so a damaged file gives a message with file
 * and offset, never a crash or a hang.
 */
#include "mon_reader.h"

#include "mon_format_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { LOG_EVENT = 1, LOG_END = 0, LOG_ERROR = -1, LOG_TRUNCATED = -2 };

/* The decoder of one worker log. */
typedef struct log_reader {
    char path[4096];
    int fd;
    unsigned worker;     /* from the file name; every packet must agree */
    uint8_t *pkt;        /* the current packet */
    size_t pkt_cap;
    size_t pkt_bytes;    /* packet_size / 8 */
    size_t avail;        /* bytes of the packet actually in the file */
    size_t content;      /* content_size / 8 */
    size_t pos;          /* next event inside pkt */
    uint64_t pkt_off;    /* file offset of the packet */
    uint64_t clock;      /* the stream clock in ticks (last event time) */
    uint64_t freq;       /* the trace clock's ticks per second */
    uint64_t ts_end;
    uint64_t pkt_events; /* events decoded from the current packet */
    uint64_t discarded;
    bool in_packet;
    mon_event cur;
    char name[MON_NAME_MAX + 1];
} log_reader;

/* The tasks bound to a stream's ends, learnt from stream_open events; gives
 * stream_block its peer (the writer never records it: see mon_hooks.c). */
typedef struct stream_ends {
    uint64_t stream; /* 0: empty slot */
    uint64_t reader, writer;
} stream_ends;

struct mon_trace {
    stream_ends *ends; /* open addressing, power-of-two size */
    size_t ends_cap, ends_used;
    log_reader **logs; /* sorted by worker */
    unsigned nlogs;
    log_reader **heap; /* logs with a current event, min by (time, worker) */
    unsigned nheap;
    uint64_t clock_freq;   /* ticks per second, from metadata */
    uint64_t clock_offset; /* wall - trace clock, ns */
    bool truncated;
    bool failed;
    bool error_pending; /* an error to return on the next call */
    char name[MON_NAME_MAX + 1];
    char msg[4608];
};

/* Fixed payload sizes; task_map adds its name. */
static const uint8_t payload_bytes[MON_ID_COUNT] = {
    [MON_ID_TASK_MAP] = 8,        [MON_ID_TASK_CREATE] = 4,      [MON_ID_TASK_DISPATCH] = 4,
    [MON_ID_TASK_BLOCK] = 5,      [MON_ID_TASK_YIELD] = 4,       [MON_ID_TASK_DESTROY] = 4,
    [MON_ID_WORKER_START] = 0,    [MON_ID_WORKER_WAIT] = 0,      [MON_ID_WORKER_RESUME] = 0,
    [MON_ID_WORKER_END] = 0,      [MON_ID_STREAM_OPEN] = 9,      [MON_ID_STREAM_CLOSE] = 9,
    [MON_ID_STREAM_READ] = 8,     [MON_ID_STREAM_WRITE] = 8,     [MON_ID_STREAM_BLOCK] = 9,
    [MON_ID_STREAM_WAKE] = 12,    [MON_ID_COMPONENT_BEGIN] = 4,  [MON_ID_COMPONENT_END] = 4,
    [MON_ID_MESSAGE_READ] = 12,   [MON_ID_MESSAGE_WRITTEN] = 12, [MON_ID_TASK_LOAD] = 16,
    [MON_ID_WORKER_LOAD] = 20,
};

static const char *const kind_names[MON_EV_KIND_COUNT] = {
    "task_map",      "task_create",    "task_dispatch",   "task_block",    "task_yield",
    "task_destroy",  "worker_start",   "worker_wait",     "worker_resume", "worker_end",
    "stream_open",   "stream_close",   "stream_read",     "stream_write",  "stream_block",
    "stream_wake",   "component_begin", "component_end",  "message_read",  "message_written",
    "task_load",     "worker_load",
};

const char *mon_event_kind_name(mon_event_kind k)
{
    return (unsigned)k < MON_EV_KIND_COUNT ? kind_names[k] : "unknown";
}

/* ---------------------------------------------------------------------------
 * Messages
 * ------------------------------------------------------------------------- */

/* "<path>: byte <offset>: <what>" into buf. */
static void corrupt(char *buf, size_t len, const log_reader *r, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void corrupt(char *buf, size_t len, const log_reader *r, uint64_t off, const char *fmt, ...)
{
    int n = snprintf(buf, len, "%s: byte %" PRIu64 ": ", r->path, off);
    if (n < 0 || (size_t)n >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, len - (size_t)n, fmt, ap);
    va_end(ap);
}

/* ---------------------------------------------------------------------------
 * One worker log
 * ------------------------------------------------------------------------- */

/* read(2) up to len bytes, stopping only at end of file. */
static ssize_t read_full(int fd, uint8_t *buf, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, buf + got, len - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        got += (size_t)n;
    }
    return (ssize_t)got;
}

static int truncated(log_reader *r, char *msg, size_t len)
{
    snprintf(msg, len,
             "%s: truncated: the file ends at byte %" PRIu64 ", inside the packet starting at "
             "byte %" PRIu64 " (%zu of its %zu bytes present, %" PRIu64 " events of it read)",
             r->path, r->pkt_off + r->avail, r->pkt_off, r->avail, r->pkt_bytes, r->pkt_events);
    return LOG_TRUNCATED;
}

static bool ensure_capacity(log_reader *r, size_t bytes)
{
    if (bytes <= r->pkt_cap)
        return true;
    uint8_t *p = realloc(r->pkt, bytes);
    if (!p)
        return false;
    r->pkt = p;
    r->pkt_cap = bytes;
    return true;
}

/* Check the preamble now in r->pkt; fills the packet fields. */
static int check_preamble(log_reader *r, char *msg, size_t len)
{
    const uint8_t *p = r->pkt;
    uint64_t o = r->pkt_off;
    uint32_t magic = mon_get_u32(p + MON_OFF_MAGIC);
    if (magic != MON_CTF_MAGIC) {
        corrupt(msg, len, r, o, "bad packet magic 0x%08" PRIx32 " (expected 0xC1FC1FC1)", magic);
        return LOG_ERROR;
    }
    uint32_t sid = mon_get_u32(p + MON_OFF_STREAM_ID);
    if (sid != 0) {
        corrupt(msg, len, r, o + MON_OFF_STREAM_ID, "unknown stream id %" PRIu32, sid);
        return LOG_ERROR;
    }
    uint64_t begin = mon_get_u64(p + MON_OFF_TS_BEGIN), end = mon_get_u64(p + MON_OFF_TS_END);
    uint64_t content = mon_get_u64(p + MON_OFF_CONTENT_SIZE);
    uint64_t size = mon_get_u64(p + MON_OFF_PACKET_SIZE);
    if (size % 8 || size / 8 < MON_PACKET_PREAMBLE_BYTES || size / 8 > MON_PACKET_MAX_BYTES) {
        corrupt(msg, len, r, o + MON_OFF_PACKET_SIZE, "impossible packet_size %" PRIu64 " bits", size);
        return LOG_ERROR;
    }
    if (content % 8 || content / 8 < MON_PACKET_PREAMBLE_BYTES || content > size) {
        corrupt(msg, len, r, o + MON_OFF_CONTENT_SIZE,
                "impossible content_size %" PRIu64 " bits (packet_size %" PRIu64 ")", content, size);
        return LOG_ERROR;
    }
    if (end < begin || begin < r->clock) {
        corrupt(msg, len, r, o + MON_OFF_TS_BEGIN,
                "packet times go back (begin %" PRIu64 ", end %" PRIu64 ", previous %" PRIu64 ")",
                begin, end, r->clock);
        return LOG_ERROR;
    }
    uint64_t discarded = mon_get_u64(p + MON_OFF_DISCARDED);
    if (discarded < r->discarded) {
        corrupt(msg, len, r, o + MON_OFF_DISCARDED, "events_discarded decreases");
        return LOG_ERROR;
    }
    uint32_t cpu = mon_get_u32(p + MON_OFF_CPU_ID);
    if (cpu != r->worker) {
        corrupt(msg, len, r, o + MON_OFF_CPU_ID, "cpu_id %" PRIu32 " in the log of worker %u", cpu,
                r->worker);
        return LOG_ERROR;
    }
    r->discarded = discarded;
    r->pkt_bytes = (size_t)(size / 8);
    r->content = (size_t)(content / 8);
    r->clock = begin;
    r->ts_end = end;
    return LOG_EVENT;
}

/* Read the next packet; LOG_END at a clean end of file. */
static int load_packet(log_reader *r, char *msg, size_t len)
{
    r->pkt_off += r->in_packet ? r->pkt_bytes : 0;
    r->in_packet = false;
    r->pkt_events = 0;
    r->pkt_bytes = MON_PACKET_PREAMBLE_BYTES;
    if (!ensure_capacity(r, MON_PACKET_PREAMBLE_BYTES)) {
        snprintf(msg, len, "%s: out of memory", r->path);
        return LOG_ERROR;
    }
    ssize_t got = read_full(r->fd, r->pkt, MON_PACKET_PREAMBLE_BYTES);
    if (got < 0) {
        snprintf(msg, len, "%s: read error: %s", r->path, strerror(errno));
        return LOG_ERROR;
    }
    if (got == 0)
        return LOG_END;
    r->avail = (size_t)got;
    if (got < MON_PACKET_PREAMBLE_BYTES) {
        /* The magic can still be checked: garbage is not a truncation. */
        if (got >= 4 && mon_get_u32(r->pkt) != MON_CTF_MAGIC) {
            corrupt(msg, len, r, r->pkt_off, "bad packet magic");
            return LOG_ERROR;
        }
        return truncated(r, msg, len);
    }
    int rc = check_preamble(r, msg, len);
    if (rc != LOG_EVENT)
        return rc;
    /* Room for what the file holds, not for what a damaged packet_size
     * claims: a few bytes of garbage must not cost 64 MiB. */
    size_t rest = r->pkt_bytes - MON_PACKET_PREAMBLE_BYTES;
    struct stat st;
    uint64_t body_off = r->pkt_off + MON_PACKET_PREAMBLE_BYTES;
    if (fstat(r->fd, &st) == 0 && (uint64_t)st.st_size >= body_off &&
        (uint64_t)st.st_size - body_off < rest)
        rest = (size_t)((uint64_t)st.st_size - body_off);
    if (!ensure_capacity(r, MON_PACKET_PREAMBLE_BYTES + rest)) {
        snprintf(msg, len, "%s: out of memory for a %zu-byte packet", r->path, r->pkt_bytes);
        return LOG_ERROR;
    }
    got = read_full(r->fd, r->pkt + MON_PACKET_PREAMBLE_BYTES, rest);
    if (got < 0) {
        snprintf(msg, len, "%s: read error: %s", r->path, strerror(errno));
        return LOG_ERROR;
    }
    r->avail = MON_PACKET_PREAMBLE_BYTES + (size_t)got;
    r->pos = MON_PACKET_PREAMBLE_BYTES;
    r->in_packet = true;
    return LOG_EVENT;
}

/* The event at r->pos needs bytes more: within the packet's content? */
static int need(log_reader *r, size_t bytes, char *msg, size_t len)
{
    if (r->pos + bytes <= r->content && r->pos + bytes <= r->avail)
        return LOG_EVENT;
    if (r->pos + bytes <= r->content)
        return truncated(r, msg, len);
    corrupt(msg, len, r, r->pkt_off + r->pos, "event runs past the packet's content_size (%zu bytes)",
            r->content);
    return LOG_ERROR;
}

/* Decode the event header at r->pos: id and time. */
static int decode_header(log_reader *r, unsigned *id, char *msg, size_t len)
{
    uint64_t at = r->pkt_off + r->pos;
    int rc = need(r, MON_COMPACT_HEADER_BYTES, msg, len);
    if (rc != LOG_EVENT)
        return rc;
    uint32_t h = mon_get_u32(r->pkt + r->pos);
    uint64_t ts;
    if ((h & 31) == MON_EXTENDED_ID) {
        if ((rc = need(r, MON_EXTENDED_HEADER_BYTES, msg, len)) != LOG_EVENT)
            return rc;
        *id = mon_get_u32(r->pkt + r->pos + 1);
        ts = mon_get_u64(r->pkt + r->pos + 5);
        if (ts < r->clock) {
            corrupt(msg, len, r, at, "event time %" PRIu64 " before the previous one %" PRIu64, ts,
                    r->clock);
            return LOG_ERROR;
        }
        r->pos += MON_EXTENDED_HEADER_BYTES;
    } else {
        *id = h & 31;
        uint64_t low = h >> 5;
        ts = (r->clock & ~(uint64_t)MON_COMPACT_TS_MASK) | low;
        if (low < (r->clock & MON_COMPACT_TS_MASK))
            ts += (uint64_t)MON_COMPACT_TS_MASK + 1; /* the 27 bits wrapped once */
        r->pos += MON_COMPACT_HEADER_BYTES;
    }
    if (*id >= MON_ID_COUNT) {
        corrupt(msg, len, r, at, "unknown event id %u", *id);
        return LOG_ERROR;
    }
    if (ts > r->ts_end) {
        corrupt(msg, len, r, at, "event time %" PRIu64 " after the packet's timestamp_end %" PRIu64,
                ts, r->ts_end);
        return LOG_ERROR;
    }
    r->clock = ts;
    return LOG_EVENT;
}

static int bad_enum(log_reader *r, uint64_t at, const char *field, unsigned v, char *msg, size_t len)
{
    corrupt(msg, len, r, at, "%s value %u out of range", field, v);
    return LOG_ERROR;
}

/* Decode the payload of an event of kind id at r->pos into r->cur. */
static int decode_payload(log_reader *r, unsigned id, char *msg, size_t len)
{
    int rc = need(r, payload_bytes[id], msg, len);
    if (rc != LOG_EVENT)
        return rc;
    const uint8_t *p = r->pkt + r->pos;
    uint64_t at = r->pkt_off + r->pos;
    mon_event *e = &r->cur;
    switch ((mon_event_id)id) {
    case MON_ID_TASK_MAP: {
        e->task = mon_get_u32(p);
        e->worker_mapped = mon_get_u32(p + 4);
        if (e->worker_mapped != r->worker) {
            /* The writer records a mapping in the log of the worker it maps
             * to; any other number is damage (and would size the
             * consumers' per-worker tables). */
            corrupt(msg, len, r, at + 4, "task_map worker %u in the log of worker %u",
                    e->worker_mapped, r->worker);
            return LOG_ERROR;
        }
        size_t limit = (r->content < r->avail ? r->content : r->avail) - r->pos - 8;
        const uint8_t *nul = memchr(p + 8, 0, limit < MON_NAME_MAX + 1 ? limit : MON_NAME_MAX + 1);
        if (!nul) {
            if (r->avail < r->content && limit <= MON_NAME_MAX)
                return truncated(r, msg, len);
            corrupt(msg, len, r, at + 8, "task name not terminated");
            return LOG_ERROR;
        }
        size_t n = (size_t)(nul - (p + 8));
        for (size_t i = 0, c; i < n; i += c)
            if ((c = mon_utf8_char_len(p + 8 + i, n - i)) == 0) {
                corrupt(msg, len, r, at + 8 + i, "task name is not valid UTF-8 (byte 0x%02x)",
                        p[8 + i]);
                return LOG_ERROR;
            }
        memcpy(r->name, p + 8, n + 1);
        e->name = r->name;
        r->pos += n + 1;
        break;
    }
    case MON_ID_TASK_BLOCK:
        e->task = mon_get_u32(p);
        e->cause = p[4];
        if (e->cause > MON_BLOCK_ANY)
            return bad_enum(r, at + 4, "task_block cause", e->cause, msg, len);
        break;
    case MON_ID_TASK_CREATE:
    case MON_ID_TASK_DISPATCH:
    case MON_ID_TASK_YIELD:
    case MON_ID_TASK_DESTROY:
    case MON_ID_COMPONENT_BEGIN:
    case MON_ID_COMPONENT_END:
        e->task = mon_get_u32(p);
        break;
    case MON_ID_WORKER_START:
    case MON_ID_WORKER_WAIT:
    case MON_ID_WORKER_RESUME:
    case MON_ID_WORKER_END:
        break;
    case MON_ID_STREAM_OPEN:
    case MON_ID_STREAM_CLOSE:
        e->task = mon_get_u32(p);
        e->stream = mon_get_u32(p + 4);
        if (p[8] > 1)
            return bad_enum(r, at + 8, "stream mode", p[8], msg, len);
        e->write_end = p[8] == 1;
        break;
    case MON_ID_STREAM_READ:
    case MON_ID_STREAM_WRITE:
        e->task = mon_get_u32(p);
        e->stream = mon_get_u32(p + 4);
        break;
    case MON_ID_STREAM_BLOCK:
        e->task = mon_get_u32(p);
        e->stream = mon_get_u32(p + 4);
        if (p[8] > 1)
            return bad_enum(r, at + 8, "stream state", p[8], msg, len);
        e->empty = p[8] == 1;
        break;
    case MON_ID_STREAM_WAKE:
        e->task = mon_get_u32(p);
        e->stream = mon_get_u32(p + 4);
        e->peer = mon_get_u32(p + 8);
        break;
    case MON_ID_MESSAGE_READ:
    case MON_ID_MESSAGE_WRITTEN:
        e->task = mon_get_u32(p);
        e->msg = mon_get_u64(p + 4);
        break;
    case MON_ID_TASK_LOAD:
        e->task = mon_get_u32(p);
        e->dispatches = mon_get_u32(p + 4);
        e->exec_ns = mon_get_u64(p + 8);
        break;
    case MON_ID_WORKER_LOAD:
        e->waits = mon_get_u32(p);
        e->wait_ns = mon_get_u64(p + 4);
        e->busy_ns = mon_get_u64(p + 12);
        break;
    case MON_ID_COUNT:
        break;
    }
    r->pos += payload_bytes[id];
    return LOG_EVENT;
}

/* Decode the next event of r into r->cur. */
static int log_next(log_reader *r, char *msg, size_t len)
{
    for (;;) {
        if (r->in_packet && r->pos < r->content)
            break;
        if (r->in_packet && r->avail < r->pkt_bytes)
            return truncated(r, msg, len); /* content ends where the file does */
        int rc = load_packet(r, msg, len);
        if (rc != LOG_EVENT)
            return rc;
    }
    uint64_t at = r->pkt_off + r->pos;
    unsigned id;
    memset(&r->cur, 0, sizeof r->cur);
    int rc = decode_header(r, &id, msg, len);
    if (rc == LOG_EVENT)
        rc = decode_payload(r, id, msg, len);
    if (rc != LOG_EVENT)
        return rc;
    r->cur.kind = (mon_event_kind)id;
    r->cur.worker = r->worker;
    /* Logs are merged on ticks (before()), ns are for the consumers. */
    r->cur.time = mon_ticks_to_ns(r->clock, r->freq);
    r->cur.offset = at;
    r->pkt_events++;
    return LOG_EVENT;
}

static void log_free(log_reader *r)
{
    if (!r)
        return;
    if (r->fd >= 0)
        close(r->fd);
    free(r->pkt);
    free(r);
}

/* ---------------------------------------------------------------------------
 * The merge
 * ------------------------------------------------------------------------- */

/* On ticks, not on the converted ns: two TSC ticks may fall into one ns,
 * and the merge should still follow the clock. */
static bool before(const log_reader *a, const log_reader *b)
{
    if (a->clock != b->clock)
        return a->clock < b->clock;
    return a->worker < b->worker;
}

static void heap_sift_down(mon_trace *t, unsigned i)
{
    for (;;) {
        unsigned l = 2 * i + 1, m = i;
        if (l < t->nheap && before(t->heap[l], t->heap[m]))
            m = l;
        if (l + 1 < t->nheap && before(t->heap[l + 1], t->heap[m]))
            m = l + 1;
        if (m == i)
            return;
        log_reader *tmp = t->heap[i];
        t->heap[i] = t->heap[m];
        t->heap[m] = tmp;
        i = m;
    }
}

static void heap_build(mon_trace *t)
{
    for (unsigned i = t->nheap / 2; i-- > 0;)
        heap_sift_down(t, i);
}

/* The slot of stream s (created if missing); NULL when out of memory. */
static stream_ends *ends_of(mon_trace *t, uint64_t s)
{
    if (t->ends_used * 2 >= t->ends_cap) {
        size_t ncap = t->ends_cap ? t->ends_cap * 2 : 64;
        stream_ends *n = calloc(ncap, sizeof *n);
        if (!n)
            return NULL;
        for (size_t i = 0; i < t->ends_cap; i++) {
            if (!t->ends[i].stream)
                continue;
            size_t j = t->ends[i].stream & (ncap - 1);
            while (n[j].stream)
                j = (j + 1) & (ncap - 1);
            n[j] = t->ends[i];
        }
        free(t->ends);
        t->ends = n;
        t->ends_cap = ncap;
    }
    size_t j = s & (t->ends_cap - 1);
    while (t->ends[j].stream && t->ends[j].stream != s)
        j = (j + 1) & (t->ends_cap - 1);
    if (!t->ends[j].stream) {
        t->ends[j].stream = s;
        t->ends_used++;
    }
    return &t->ends[j];
}

/* Learn stream ends from stream_open; fill in stream_block's peer. */
static void track_stream_ends(mon_trace *t, mon_event *ev)
{
    if (ev->stream == 0 || (ev->kind != MON_EV_STREAM_OPEN && ev->kind != MON_EV_STREAM_BLOCK))
        return;
    stream_ends *e = ends_of(t, ev->stream);
    if (!e)
        return;
    if (ev->kind == MON_EV_STREAM_OPEN) {
        if (ev->write_end)
            e->writer = ev->task;
        else
            e->reader = ev->task;
    } else {
        ev->peer = ev->empty ? e->writer : e->reader;
    }
}

/* Note the outcome of advancing a log that is not LOG_EVENT. */
static void log_stopped(mon_trace *t, int rc, const char *msg)
{
    if (rc == LOG_TRUNCATED && !t->truncated && !t->error_pending) {
        t->truncated = true;
        snprintf(t->msg, sizeof t->msg, "%s", msg);
    } else if (rc == LOG_ERROR && !t->error_pending) {
        t->error_pending = true;
        snprintf(t->msg, sizeof t->msg, "%s", msg);
    }
}

int mon_trace_next(mon_trace *t, mon_event *ev)
{
    if (t->failed)
        return MON_TRACE_ERROR;
    if (t->error_pending) {
        t->failed = true;
        return MON_TRACE_ERROR;
    }
    if (t->nheap == 0)
        return t->truncated ? MON_TRACE_TRUNCATED : MON_TRACE_END;
    log_reader *r = t->heap[0];
    *ev = r->cur;
    track_stream_ends(t, ev);
    if (ev->kind == MON_EV_TASK_MAP) {
        memcpy(t->name, r->name, sizeof t->name);
        ev->name = t->name;
    }
    char msg[sizeof t->msg];
    int rc = log_next(r, msg, sizeof msg);
    if (rc != LOG_EVENT) {
        log_stopped(t, rc, msg);
        t->heap[0] = t->heap[--t->nheap];
    }
    heap_sift_down(t, 0);
    return MON_TRACE_EVENT;
}

/* ---------------------------------------------------------------------------
 * Opening a directory
 * ------------------------------------------------------------------------- */

/* N if name is "worker-N" (decimal), else -1. */
static long worker_number(const char *name)
{
    size_t plen = strlen(MON_WORKER_FILE_PREFIX);
    if (strncmp(name, MON_WORKER_FILE_PREFIX, plen) != 0 || !name[plen])
        return -1;
    long n = 0;
    for (const char *p = name + plen; *p; p++) {
        if (*p < '0' || *p > '9' || n > 1000000)
            return -1;
        n = n * 10 + (*p - '0');
    }
    return n;
}

static int by_worker(const void *a, const void *b)
{
    const log_reader *x = *(log_reader *const *)a, *y = *(log_reader *const *)b;
    return (x->worker > y->worker) - (x->worker < y->worker);
}

/* Check DIR/metadata is ours and take the clock offset from it. */
static int read_metadata(mon_trace *t, const char *dir, char *err, size_t errlen)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s/metadata", dir) >= (int)sizeof path) {
        snprintf(err, errlen, "%s: path too long", dir);
        return -1;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s (not a trace directory?)", path, strerror(errno));
        return -1;
    }
    char line[512];
    bool first = true, ok = false;
    /* Traces of format 1.0 before the TSC clock have freq = 10^9 too. */
    unsigned long long off_s = 0, off = 0, freq = MON_NS_PER_S;
    while (fgets(line, sizeof line, f)) {
        if (first && strncmp(line, "/* CTF 1.8", 10) != 0)
            break;
        first = false;
        if (strstr(line, "tracer_name = \"snet-lpel-mon\""))
            ok = true;
        /* Our metadata has one clock block, so these names are unique. */
        sscanf(line, " offset_s = %llu;", &off_s);
        sscanf(line, " offset = %llu;", &off);
        sscanf(line, " freq = %llu;", &freq);
    }
    fclose(f);
    if (!ok) {
        snprintf(err, errlen, "%s: not the metadata of an LPEL monitor trace (CTF 1.8, tracer snet-lpel-mon)",
                 path);
        return -1;
    }
    if (freq < MON_CLOCK_FREQ_MIN || freq > MON_CLOCK_FREQ_MAX) {
        snprintf(err, errlen, "%s: unsupported clock frequency %llu Hz (expected %llu to %llu)", path,
                 freq, (unsigned long long)MON_CLOCK_FREQ_MIN,
                 (unsigned long long)MON_CLOCK_FREQ_MAX);
        return -1;
    }
    t->clock_freq = freq;
    t->clock_offset = (uint64_t)off_s * MON_NS_PER_S + mon_ticks_to_ns(off, freq);
    return 0;
}

static int add_log(mon_trace *t, const char *dir, const char *name, long worker, unsigned *cap,
                   char *err, size_t errlen)
{
    if (t->nlogs == *cap) {
        unsigned ncap = *cap ? *cap * 2 : 16;
        log_reader **n = realloc(t->logs, ncap * sizeof *n);
        if (!n) {
            snprintf(err, errlen, "%s: out of memory", dir);
            return -1;
        }
        t->logs = n;
        *cap = ncap;
    }
    log_reader *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, errlen, "%s: out of memory", dir);
        return -1;
    }
    if (snprintf(r->path, sizeof r->path, "%s/%s", dir, name) >= (int)sizeof r->path) {
        snprintf(err, errlen, "%s: path too long", dir);
        free(r);
        return -1;
    }
    r->worker = (unsigned)worker;
    r->freq = t->clock_freq;
    r->fd = open(r->path, O_RDONLY | O_CLOEXEC);
    if (r->fd < 0) {
        snprintf(err, errlen, "%s: cannot open: %s", r->path, strerror(errno));
        free(r);
        return -1;
    }
    t->logs[t->nlogs++] = r;
    return 0;
}

static int find_logs(mon_trace *t, const char *dir, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "%s: cannot open directory: %s", dir, strerror(errno));
        return -1;
    }
    unsigned cap = 0;
    struct dirent *de;
    int rc = 0;
    while (rc == 0 && (de = readdir(d)) != NULL) {
        long n = worker_number(de->d_name);
        if (n >= 0)
            rc = add_log(t, dir, de->d_name, n, &cap, err, errlen);
    }
    closedir(d);
    /* No logs is an empty trace, not an error: a runtime built with its
     * hooks compiled out starts no worker log. */
    if (rc == 0)
        qsort(t->logs, t->nlogs, sizeof *t->logs, by_worker);
    return rc;
}

/* Decode the first event of every log and build the heap. */
static int prime(mon_trace *t, char *err, size_t errlen)
{
    t->heap = calloc(t->nlogs ? t->nlogs : 1, sizeof *t->heap);
    if (!t->heap) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    char msg[sizeof t->msg];
    for (unsigned i = 0; i < t->nlogs; i++) {
        int rc = log_next(t->logs[i], msg, sizeof msg);
        if (rc == LOG_EVENT)
            t->heap[t->nheap++] = t->logs[i];
        else if (rc == LOG_ERROR) {
            snprintf(err, errlen, "%s", msg);
            return -1;
        } else
            log_stopped(t, rc, msg);
    }
    heap_build(t);
    return 0;
}

/* The directory holding metadata: DIR/ctf, or DIR itself when given the
 * CTF directory directly. */
static void ctf_dir_of(const char *dir, char *out, size_t len)
{
    snprintf(out, len, "%s/%s/metadata", dir, MON_CTF_SUBDIR);
    if (access(out, F_OK) == 0)
        snprintf(out, len, "%s/%s", dir, MON_CTF_SUBDIR);
    else
        snprintf(out, len, "%s", dir);
}

int mon_trace_open(mon_trace **out, const char *trace_dir, char *err, size_t errlen)
{
    *out = NULL;
    char dir[4096];
    ctf_dir_of(trace_dir, dir, sizeof dir);
    mon_trace *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (read_metadata(t, dir, err, errlen) != 0 || find_logs(t, dir, err, errlen) != 0 ||
        prime(t, err, errlen) != 0) {
        mon_trace_close(t);
        return -1;
    }
    *out = t;
    return 0;
}

const char *mon_trace_error(const mon_trace *t) { return t->msg; }
unsigned mon_trace_num_workers(const mon_trace *t) { return t->nlogs; }
unsigned mon_trace_worker_id(const mon_trace *t, unsigned i)
{
    return i < t->nlogs ? t->logs[i]->worker : 0;
}
uint64_t mon_trace_clock_offset_ns(const mon_trace *t) { return t->clock_offset; }
uint64_t mon_trace_clock_freq(const mon_trace *t) { return t->clock_freq; }

uint64_t mon_trace_events_discarded(const mon_trace *t)
{
    uint64_t n = 0;
    for (unsigned i = 0; i < t->nlogs; i++)
        n += t->logs[i]->discarded;
    return n;
}

void mon_trace_close(mon_trace *t)
{
    if (!t)
        return;
    for (unsigned i = 0; i < t->nlogs; i++)
        log_free(t->logs[i]);
    free(t->logs);
    free(t->heap);
    free(t->ends);
    free(t);
}

/* ---------------------------------------------------------------------------
 * Formatting
 * ------------------------------------------------------------------------- */

static const char *const cause_names[] = {"input", "output", "any"};

int mon_event_format(const mon_event *e, char *buf, size_t len)
{
    char head[64];
    snprintf(head, sizeof head, "%" PRIu64 " w%u %s", e->time, e->worker,
             mon_event_kind_name(e->kind));
    switch (e->kind) {
    case MON_EV_TASK_MAP:
        return snprintf(buf, len, "%s task=%" PRIu64 " worker=%u name=%s", head, e->task,
                        e->worker_mapped, e->name ? e->name : "");
    case MON_EV_TASK_BLOCK:
        return snprintf(buf, len, "%s task=%" PRIu64 " cause=%s", head, e->task,
                        e->cause <= 2 ? cause_names[e->cause] : "?");
    case MON_EV_TASK_CREATE:
    case MON_EV_TASK_DISPATCH:
    case MON_EV_TASK_YIELD:
    case MON_EV_TASK_DESTROY:
    case MON_EV_COMPONENT_BEGIN:
    case MON_EV_COMPONENT_END:
        return snprintf(buf, len, "%s task=%" PRIu64, head, e->task);
    case MON_EV_STREAM_OPEN:
    case MON_EV_STREAM_CLOSE:
        return snprintf(buf, len, "%s task=%" PRIu64 " stream=%" PRIu64 " mode=%s", head, e->task,
                        e->stream, e->write_end ? "write" : "read");
    case MON_EV_STREAM_READ:
    case MON_EV_STREAM_WRITE:
        return snprintf(buf, len, "%s task=%" PRIu64 " stream=%" PRIu64, head, e->task, e->stream);
    case MON_EV_STREAM_BLOCK:
        return snprintf(buf, len, "%s task=%" PRIu64 " stream=%" PRIu64 " peer=%" PRIu64 " state=%s",
                        head, e->task, e->stream, e->peer, e->empty ? "empty" : "full");
    case MON_EV_STREAM_WAKE:
        return snprintf(buf, len, "%s waker=%" PRIu64 " stream=%" PRIu64 " woken=%" PRIu64, head,
                        e->task, e->stream, e->peer);
    case MON_EV_MESSAGE_READ:
    case MON_EV_MESSAGE_WRITTEN:
        return snprintf(buf, len, "%s task=%" PRIu64 " msg=%u.%" PRIu64, head, e->task,
                        (unsigned)(e->msg >> 48), e->msg & ((UINT64_C(1) << 48) - 1));
    case MON_EV_TASK_LOAD:
        return snprintf(buf, len, "%s task=%" PRIu64 " dispatches=%" PRIu32 " exec_ns=%" PRIu64,
                        head, e->task, e->dispatches, e->exec_ns);
    case MON_EV_WORKER_LOAD:
        return snprintf(buf, len, "%s waits=%" PRIu32 " wait_ns=%" PRIu64 " busy_ns=%" PRIu64, head,
                        e->waits, e->wait_ns, e->busy_ns);
    default:
        return snprintf(buf, len, "%s", head);
    }
}
