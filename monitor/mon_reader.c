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

#include "mon_ends_internal.h"

#include "mon_format_internal.h"
#include "mon_ranks_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* run.json lists at most this many logs that the reader checks against. */
#define MON_RUN_JSON_MAX_LOGS 4096

/* LOG_AGAIN: follow mode, nothing more published yet (the log is in
 * progress). */
enum { LOG_EVENT = 1, LOG_END = 0, LOG_ERROR = -1, LOG_TRUNCATED = -2, LOG_AGAIN = -3 };

/* Follow mode: an event is held back until it is this much older than the
 * trace's present, beyond two flush periods (see mon_trace_options). */
#define MON_FOLLOW_MARGIN_NS UINT64_C(100000000)
/* The monitor's default --mon-flush (mon.h, which the reader does not
 * include: it is the runtime side). */
#define MON_FOLLOW_DEFAULT_FLUSH_MS 200u

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
    /* What the status reports (mon_log_status). */
    mon_log_state state;
    uint64_t events_read;  /* events decoded (each is delivered) */
    uint64_t good_end;     /* bytes read without fault */
    uint64_t file_bytes;
    uint64_t problem_off;  /* where a truncation or damage is */
    uint64_t lost_to;      /* a cut packet's declared end */
    int64_t expected_events, expected_bytes; /* run.json, -1 unknown */
    uint32_t run;          /* from the last run_start */
    bool ended;            /* the last event decoded is worker_end */
    char *message;         /* the status line, once stopped */
    /* Follow mode (mon_trace_options.follow). */
    bool follow;           /* packets are read as far as published, and re-read */
    bool live;             /* the run goes on: the end of the file is not the end */
    bool waiting;          /* at the end of what is published (MON_LOG_IN_PROGRESS) */
    char note[4200];       /* the status line while in progress */
} log_reader;

struct mon_trace {
    mon_ranks *ranks;  /* a multi-rank trace: everything is there (mon_ranks.c) */
    mon_ends_table ends; /* the tasks at each stream's ends */
    log_reader **logs; /* sorted by worker */
    unsigned nlogs;
    log_reader **heap; /* logs with a current event, min by (time, worker) */
    unsigned nheap;
    uint64_t clock_freq;   /* ticks per second, from metadata */
    uint64_t clock_offset; /* wall - trace clock, ns */
    bool worker_events;    /* the W flag was on: every log ends with worker_end */
    bool keep_going;       /* mon_trace_options.keep_going */
    bool truncated;
    bool failed;
    bool error_pending; /* an error to return on the next call */
    /* Follow mode. */
    bool follow;
    bool live;             /* run.json exists and is not complete */
    bool run_json_found, run_complete; /* from the last read of run.json */
    unsigned flush_ms;     /* --mon-flush of the run */
    bool clock_monotonic;  /* the trace clock is CLOCK_MONOTONIC itself */
    unsigned logs_cap;     /* capacity of logs */
    unsigned heap_cap;     /* capacity of heap */
    unsigned n_waiting;    /* logs at the end of what is published */
    uint64_t wait_min;     /* ticks: the earliest clock of a waiting log */
    uint64_t settled;      /* ticks: events up to here are all published */
    char trace_dir[4096], ctf_dir[4096];
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
    [MON_ID_WORKER_LOAD] = 20,    [MON_ID_RUN_START] = 4,        [MON_ID_MESSAGE_SENT] = 16,
    [MON_ID_MESSAGE_RECEIVED] = 16, [MON_ID_CHANNEL_OPEN] = 17,  [MON_ID_CHANNEL_BLOCK] = 13,
};

static const char *const kind_names[MON_EV_KIND_COUNT] = {
    "task_map",      "task_create",    "task_dispatch",   "task_block",    "task_yield",
    "task_destroy",  "worker_start",   "worker_wait",     "worker_resume", "worker_end",
    "stream_open",   "stream_close",   "stream_read",     "stream_write",  "stream_block",
    "stream_wake",   "component_begin", "component_end",  "message_read",  "message_written",
    "task_load",     "worker_load",    "run_start",       "message_sent",  "message_received",
    "channel_open",  "channel_block",
};

const char *mon_event_kind_name(mon_event_kind k)
{
    return (unsigned)k < MON_EV_KIND_COUNT ? kind_names[k] : "unknown";
}

/* ---------------------------------------------------------------------------
 * Messages
 * ------------------------------------------------------------------------- */

/* "<path>: byte <offset>: <what>" into buf; the offset is kept for the
 * log's status. */
static void corrupt(char *buf, size_t len, log_reader *r, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void corrupt(char *buf, size_t len, log_reader *r, uint64_t off, const char *fmt, ...)
{
    r->problem_off = off;
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
    r->problem_off = r->pkt_off + r->avail;
    r->lost_to = r->pkt_off + r->pkt_bytes;
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
    r->good_end = r->pkt_off; /* every earlier packet was read whole */
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

/* ---------------------------------------------------------------------------
 * Follow mode: a log its writer is still publishing (docs/LOGFORMAT.md
 * section 4). The current packet is read only up to its content_size and
 * re-read from there when that grows; a packet is finished once the file
 * goes on past it (the writer allocates the next region only after it
 * published the last events of this one) or its size was cut to its
 * content (the end of the run). While the run goes on (r->live), the end of
 * what is published is LOG_AGAIN, never an end, a truncation or damage.
 * ------------------------------------------------------------------------- */

/* pread(2) up to len bytes, stopping only at end of file. */
static ssize_t pread_full(int fd, uint8_t *buf, size_t len, uint64_t off)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = pread(fd, buf + got, len - got, (off_t)(off + got));
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

static int read_error(log_reader *r, char *msg, size_t len)
{
    snprintf(msg, len, "%s: read error: %s", r->path, strerror(errno));
    return LOG_ERROR;
}

/* The preamble of the packet at off into buf, content_size read first: the
 * writer stores timestamp_end before content_size, so a content_size read
 * before the rest never covers an event later than the timestamp_end read
 * after it (one read(2) of both may see the new size with the old end).
 * Returns the bytes of the preamble present, or -1. */
static ssize_t read_preamble(log_reader *r, uint8_t *buf, uint64_t off)
{
    uint8_t first[8];
    ssize_t n = pread_full(r->fd, first, sizeof first, off + MON_OFF_CONTENT_SIZE);
    if (n < 0)
        return -1;
    ssize_t got = pread_full(r->fd, buf, MON_PACKET_PREAMBLE_BYTES, off);
    if (got == MON_PACKET_PREAMBLE_BYTES && n == 8 &&
        mon_get_u64(first) <= mon_get_u64(buf + MON_OFF_CONTENT_SIZE))
        memcpy(buf + MON_OFF_CONTENT_SIZE, first, 8);
    return got;
}

/* The current packet again: its content_size may have grown, its
 * packet_size been cut to its content (end of run). New events are read
 * into r->pkt after the old ones. LOG_EVENT (in_packet false when the
 * packet was removed: an empty last packet at the end of the run), or
 * LOG_AGAIN / LOG_ERROR / LOG_TRUNCATED. */
static int refresh_packet(log_reader *r, char *msg, size_t len)
{
    uint8_t pre[MON_PACKET_PREAMBLE_BYTES];
    ssize_t got = read_preamble(r, pre, r->pkt_off);
    if (got < 0)
        return read_error(r, msg, len);
    if (got < MON_PACKET_PREAMBLE_BYTES) {
        if (r->pkt_events == 0 && got == 0) {
            r->in_packet = false; /* an empty last packet, removed at the end */
            r->pkt_bytes = 0;
            return LOG_EVENT;
        }
        if (r->live)
            return LOG_AGAIN;
        r->avail = (size_t)got;
        return truncated(r, msg, len);
    }
    uint64_t content = mon_get_u64(pre + MON_OFF_CONTENT_SIZE) / 8;
    uint64_t size = mon_get_u64(pre + MON_OFF_PACKET_SIZE) / 8;
    uint64_t begin = mon_get_u64(pre + MON_OFF_TS_BEGIN), end = mon_get_u64(pre + MON_OFF_TS_END);
    uint64_t discarded = mon_get_u64(pre + MON_OFF_DISCARDED);
    /* The writer sets timestamp_begin with the packet's first event: the
     * compact headers that follow count from it. */
    uint64_t clock = r->pkt_events == 0 && begin > r->clock ? begin : r->clock;
    bool sane = mon_get_u32(pre + MON_OFF_MAGIC) == MON_CTF_MAGIC && content >= r->content &&
                content <= size && size <= r->pkt_bytes && end >= clock &&
                discarded >= r->discarded;
    if (!sane) {
        if (r->live)
            return LOG_AGAIN; /* a header caught between two stores */
        corrupt(msg, len, r, r->pkt_off + MON_OFF_CONTENT_SIZE,
                "the packet header changed inconsistently while the log was read");
        return LOG_ERROR;
    }
    if (content > r->content) {
        if (!ensure_capacity(r, (size_t)content)) {
            snprintf(msg, len, "%s: out of memory for a %zu-byte packet", r->path, (size_t)content);
            return LOG_ERROR;
        }
        size_t want = (size_t)content - r->content;
        got = pread_full(r->fd, r->pkt + r->content, want, r->pkt_off + r->content);
        if (got < 0)
            return read_error(r, msg, len);
        if ((size_t)got < want && r->live)
            return LOG_AGAIN;
        r->avail = r->content + (size_t)got;
        r->content = (size_t)content;
    }
    r->pkt_bytes = (size_t)size;
    r->clock = clock;
    r->ts_end = end;
    r->discarded = discarded;
    return LOG_EVENT;
}

/* The next packet, read up to its content_size. */
static int load_packet_follow(log_reader *r, char *msg, size_t len)
{
    r->pkt_off += r->in_packet ? r->pkt_bytes : 0;
    r->good_end = r->pkt_off;
    r->in_packet = false;
    r->pkt_events = 0;
    r->pkt_bytes = MON_PACKET_PREAMBLE_BYTES;
    uint64_t have = r->file_bytes > r->pkt_off ? r->file_bytes - r->pkt_off : 0;
    if (have == 0)
        return r->live ? LOG_AGAIN : LOG_END;
    if (!ensure_capacity(r, MON_PACKET_PREAMBLE_BYTES)) {
        snprintf(msg, len, "%s: out of memory", r->path);
        return LOG_ERROR;
    }
    ssize_t got = read_preamble(r, r->pkt, r->pkt_off);
    if (got < 0)
        return read_error(r, msg, len);
    r->avail = (size_t)got;
    if (got < MON_PACKET_PREAMBLE_BYTES) {
        if (r->live)
            return LOG_AGAIN;
        if (got >= 4 && mon_get_u32(r->pkt) != MON_CTF_MAGIC) {
            corrupt(msg, len, r, r->pkt_off, "bad packet magic");
            return LOG_ERROR;
        }
        return got ? truncated(r, msg, len) : LOG_END;
    }
    int rc = check_preamble(r, msg, len);
    if (rc != LOG_EVENT) {
        /* The last region of a live log may be a header being written (the
         * region is allocated, then its header stored field by field). */
        uint64_t size = mon_get_u64(r->pkt + MON_OFF_PACKET_SIZE) / 8;
        if (r->live && (size < MON_PACKET_PREAMBLE_BYTES || r->pkt_off + size >= r->file_bytes)) {
            r->pkt_bytes = MON_PACKET_PREAMBLE_BYTES;
            r->problem_off = 0;
            return LOG_AGAIN;
        }
        return rc;
    }
    size_t want = r->content - MON_PACKET_PREAMBLE_BYTES;
    if (!ensure_capacity(r, r->content)) {
        snprintf(msg, len, "%s: out of memory for a %zu-byte packet", r->path, r->content);
        return LOG_ERROR;
    }
    got = pread_full(r->fd, r->pkt + MON_PACKET_PREAMBLE_BYTES, want,
                     r->pkt_off + MON_PACKET_PREAMBLE_BYTES);
    if (got < 0)
        return read_error(r, msg, len);
    if ((size_t)got < want && r->live) {
        r->pkt_bytes = MON_PACKET_PREAMBLE_BYTES;
        return LOG_AGAIN;
    }
    r->avail = MON_PACKET_PREAMBLE_BYTES + (size_t)got;
    r->pos = MON_PACKET_PREAMBLE_BYTES;
    r->in_packet = true;
    return LOG_EVENT;
}

/* More events for a followed log: the current packet's growth, else the
 * next packet. LOG_EVENT when r->pos has an event to decode (or more is to
 * be tried), LOG_AGAIN at the end of what is published, else as
 * load_packet. */
static int follow_packet(log_reader *r, char *msg, size_t len)
{
    struct stat st;
    if (fstat(r->fd, &st) != 0)
        return read_error(r, msg, len);
    /* The size first: a file that has grown past the packet was grown after
     * the packet's last publication, which the refresh below then sees. */
    r->file_bytes = (uint64_t)st.st_size;
    if (r->in_packet) {
        int rc = refresh_packet(r, msg, len);
        if (rc != LOG_EVENT || !r->in_packet || r->pos < r->content)
            return rc;
        uint64_t end = r->pkt_off + r->pkt_bytes;
        bool finished = r->content == r->pkt_bytes || r->file_bytes > end;
        if (!finished && r->live)
            return LOG_AGAIN;
        if (!finished && r->file_bytes < end) {
            r->avail = (size_t)(r->file_bytes - r->pkt_off);
            return truncated(r, msg, len);
        }
    }
    return load_packet_follow(r, msg, len);
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
    case MON_ID_MESSAGE_SENT:
    case MON_ID_MESSAGE_RECEIVED:
        e->task = mon_get_u32(p);
        e->msg = mon_get_u64(p + 4);
        e->peer_rank = mon_get_u32(p + 12);
        break;
    case MON_ID_CHANNEL_OPEN:
        e->task = mon_get_u32(p);
        e->channel = mon_get_u64(p + 4);
        e->peer_rank = mon_get_u32(p + 12);
        if (p[16] > 1)
            return bad_enum(r, at + 16, "channel mode", p[16], msg, len);
        e->write_end = p[16] == 1;
        break;
    case MON_ID_CHANNEL_BLOCK:
        e->task = mon_get_u32(p);
        e->channel = mon_get_u64(p + 4);
        if (p[12] > 1)
            return bad_enum(r, at + 12, "channel state", p[12], msg, len);
        e->empty = p[12] == 1;
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
    case MON_ID_RUN_START: {
        uint32_t run = mon_get_u32(p);
        if (run == 0 || run < r->run) {
            corrupt(msg, len, r, at, "run number %" PRIu32 " after run %" PRIu32
                    " (runs count up from 1)", run, r->run);
            return LOG_ERROR;
        }
        r->run = run;
        break;
    }
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
        int rc;
        if (r->follow) {
            rc = follow_packet(r, msg, len);
        } else {
            if (r->in_packet && r->avail < r->pkt_bytes)
                return truncated(r, msg, len); /* content ends where the file does */
            rc = load_packet(r, msg, len);
        }
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
    r->cur.rank_worker = r->worker;
    r->cur.run = r->run;
    /* Logs are merged on ticks (before()), ns are for the consumers. */
    r->cur.time = mon_ticks_to_ns(r->clock, r->freq);
    r->cur.offset = at;
    r->pkt_events++;
    r->events_read++;
    r->good_end = r->pkt_off + r->pos;
    r->ended = id == MON_ID_WORKER_END;
    return LOG_EVENT;
}

static void log_free(log_reader *r)
{
    if (!r)
        return;
    if (r->fd >= 0)
        close(r->fd);
    free(r->pkt);
    free(r->message);
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

static size_t ends_slot(uint32_t run, uint64_t id, size_t cap)
{
    return (size_t)((id ^ (uint64_t)run << 40) * 0x9E3779B97F4A7C15ull >> 16) & (cap - 1);
}

mon_ends *mon_ends_of(mon_ends_table *t, uint32_t run, uint64_t id)
{
    if (t->used * 2 >= t->cap) {
        size_t ncap = t->cap ? t->cap * 2 : 64;
        mon_ends *n = calloc(ncap, sizeof *n);
        if (!n)
            return NULL;
        for (size_t i = 0; i < t->cap; i++) {
            if (!t->slots[i].used)
                continue;
            size_t j = ends_slot(t->slots[i].run, t->slots[i].id, ncap);
            while (n[j].used)
                j = (j + 1) & (ncap - 1);
            n[j] = t->slots[i];
        }
        free(t->slots);
        t->slots = n;
        t->cap = ncap;
    }
    size_t j = ends_slot(run, id, t->cap);
    while (t->slots[j].used && (t->slots[j].id != id || t->slots[j].run != run))
        j = (j + 1) & (t->cap - 1);
    if (!t->slots[j].used) {
        t->slots[j] = (mon_ends){.id = id, .run = run, .used = true};
        t->used++;
    }
    return &t->slots[j];
}

void mon_ends_table_free(mon_ends_table *t)
{
    free(t->slots);
    *t = (mon_ends_table){0};
}

/* Learn stream ends from stream_open; fill in stream_block's peer. */
static void track_stream_ends(mon_trace *t, mon_event *ev)
{
    if (ev->stream == 0 || (ev->kind != MON_EV_STREAM_OPEN && ev->kind != MON_EV_STREAM_BLOCK))
        return;
    mon_ends *e = mon_ends_of(&t->ends, ev->run, ev->stream);
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

/* ---------------------------------------------------------------------------
 * Log states: what a log that stopped lacks
 * ------------------------------------------------------------------------- */

static const char *const state_names[] = {"reading",    "complete", "truncated", "damaged",
                                          "unfinished", "missing",  "discarded", "in progress"};

const char *mon_log_state_name(mon_log_state s)
{
    return (unsigned)s < sizeof state_names / sizeof state_names[0] ? state_names[s] : "unknown";
}

/* A log that ended cleanly may still lack events: run.json (of a finished
 * run) says how much the writer wrote, worker_end closes every run that
 * recorded worker events, and the writer counts what it could not write. */
static mon_log_state clean_end_state(const mon_trace *t, log_reader *r, char *msg, size_t len)
{
    if (r->expected_bytes >= 0 && r->file_bytes < (uint64_t)r->expected_bytes) {
        r->problem_off = r->file_bytes;
        snprintf(msg, len,
                 "%s: truncated: the file ends at byte %" PRIu64 " at a packet boundary, but "
                 "the writer wrote %" PRId64 " bytes (run.json)",
                 r->path, r->file_bytes, r->expected_bytes);
        return MON_LOG_TRUNCATED;
    }
    if (r->expected_events >= 0 && r->events_read != (uint64_t)r->expected_events) {
        r->problem_off = r->file_bytes;
        snprintf(msg, len,
                 "%s: byte %" PRIu64 ": %" PRIu64 " events read, but the writer wrote %" PRId64
                 " (run.json)",
                 r->path, r->file_bytes, r->events_read, r->expected_events);
        return MON_LOG_DAMAGED;
    }
    /* A writer that lost events lost worker_end too, most likely: the loss
     * is the cause to name. */
    if (r->discarded) {
        snprintf(msg, len,
                 "%s: the writer lost %" PRIu64 " events (events_discarded: disk full or a "
                 "write error during the run)",
                 r->path, r->discarded);
        return MON_LOG_DISCARDED;
    }
    if (t->worker_events && !r->ended) {
        r->problem_off = r->file_bytes;
        snprintf(msg, len,
                 "%s: unfinished: the log ends at byte %" PRIu64 " without worker_end, although "
                 "worker events were recorded: the run did not finish (crash, kill) or the file "
                 "was cut at a packet boundary",
                 r->path, r->file_bytes);
        return MON_LOG_UNFINISHED;
    }
    return MON_LOG_COMPLETE;
}

/* Note why a log stopped (rc is not LOG_EVENT); its events are all
 * delivered. The trace remembers the first problem for mon_trace_error; a
 * damaged log stops the trace unless it keeps going. */
static void log_stopped(mon_trace *t, log_reader *r, int rc, const char *msg)
{
    char buf[sizeof t->msg];
    mon_log_state st = rc == LOG_TRUNCATED ? MON_LOG_TRUNCATED
                       : rc == LOG_ERROR   ? MON_LOG_DAMAGED
                                           : clean_end_state(t, r, buf, sizeof buf);
    if (rc == LOG_END)
        msg = buf;
    r->state = st;
    if (st == MON_LOG_COMPLETE)
        return;
    r->message = strdup(msg);
    if (st == MON_LOG_DAMAGED && !t->keep_going && !t->error_pending) {
        t->error_pending = true;
        snprintf(t->msg, sizeof t->msg, "%s", msg);
    } else if (!t->truncated && !t->error_pending) {
        t->truncated = true;
        snprintf(t->msg, sizeof t->msg, "%s", msg);
    }
}

static int follow_poll(mon_trace *t);
static bool deliverable(const mon_trace *t);
static void note_waiting(mon_trace *t, log_reader *r);

int mon_trace_next(mon_trace *t, mon_event *ev)
{
    if (t->ranks)
        return mon_ranks_next(t->ranks, ev);
    if (t->failed)
        return MON_TRACE_ERROR;
    if (t->error_pending) {
        t->failed = true;
        return MON_TRACE_ERROR;
    }
    if (t->follow && !deliverable(t)) {
        int rc = follow_poll(t);
        if (rc != MON_TRACE_EVENT)
            return rc;
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
    if (rc == LOG_AGAIN) {
        note_waiting(t, r);
        t->heap[0] = t->heap[--t->nheap];
    } else if (rc != LOG_EVENT) {
        log_stopped(t, r, rc, msg);
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
    char line[512], flags[16] = "";
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
        sscanf(line, " monitor_flags = \"%15[A-Za-z]\";", flags);
        if (strstr(line, "name = \"monotonic\";")) /* the clock block's; events have others */
            t->clock_monotonic = true;
    }
    t->worker_events = strchr(flags, 'W') != NULL;
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
    char own[64];
    snprintf(own, sizeof own, "%s%ld", MON_WORKER_FILE_PREFIX, worker);
    if (snprintf(r->path, sizeof r->path, "%s/%s", dir, name ? name : own) >= (int)sizeof r->path) {
        snprintf(err, errlen, "%s: path too long", dir);
        free(r);
        return -1;
    }
    r->worker = (unsigned)worker;
    r->freq = t->clock_freq;
    r->run = 1;
    r->expected_events = r->expected_bytes = -1;
    r->fd = name ? open(r->path, O_RDONLY | O_CLOEXEC) : -1;
    struct stat st;
    if (name && (r->fd < 0 || fstat(r->fd, &st) != 0)) {
        snprintf(err, errlen, "%s: cannot open: %s", r->path, strerror(errno));
        log_free(r);
        return -1;
    }
    r->file_bytes = name ? (uint64_t)st.st_size : 0;
    t->logs[t->nlogs++] = r;
    return 0;
}

/* ---- run.json: what the writer wrote, when the run finished ---- */

/* The log of worker w, NULL if none. */
static log_reader *log_of_worker(const mon_trace *t, unsigned w)
{
    for (unsigned i = 0; i < t->nlogs; i++)
        if (t->logs[i]->worker == w)
            return t->logs[i];
    return NULL;
}

/* One "logs" entry of run.json, {"worker": W, "events": E, "bytes": B}:
 * the counts go to W's log; a log the file system lacks is added as
 * missing. Returns -1 only when out of memory. */
static int expect_log(mon_trace *t, const char *dir, unsigned w, unsigned long long events,
                      unsigned long long bytes, unsigned *cap, char *err, size_t errlen)
{
    log_reader *r = log_of_worker(t, w);
    if (!r) {
        if (add_log(t, dir, NULL, w, cap, err, errlen) != 0)
            return -1;
        r = t->logs[t->nlogs - 1];
        r->state = MON_LOG_MISSING;
        char msg[sizeof r->path + 128];
        snprintf(msg, sizeof msg, "%s: missing: run.json lists worker %u's log (%llu events)", r->path,
                 w, events);
        r->message = strdup(msg);
        if (!r->message) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        if (!t->truncated) {
            t->truncated = true;
            snprintf(t->msg, sizeof t->msg, "%s", msg);
        }
    }
    if (events > INT64_MAX || bytes > INT64_MAX)
        return 0;
    r->expected_events = (int64_t)events;
    r->expected_bytes = (int64_t)bytes;
    return 0;
}

/* The per-log counts of run.json, written when the run finished (mon_close):
 * they tell a log cut at a packet boundary, or missing, from a whole one. A
 * run.json that is absent, of an unfinished run, or without counts (older
 * traces) gives no expectations. */
static FILE *open_run_json(const char *trace_dir, const char *ctf_dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/run.json", trace_dir);
    FILE *f = fopen(path, "r");
    if (!f && strcmp(trace_dir, ctf_dir) == 0) {
        snprintf(path, sizeof path, "%s/../run.json", trace_dir); /* given DIR/ctf */
        f = fopen(path, "r");
    }
    return f;
}

/* The --mon-flush period on run.json's command line (one line), if any. */
static void parse_flush(mon_trace *t, const char *line)
{
    const char *key = "\"--mon-flush\", \"";
    const char *p = strstr(line, key);
    unsigned ms;
    if (p && sscanf(p + strlen(key), "%u", &ms) == 1)
        t->flush_ms = ms;
}

static int read_run_json(mon_trace *t, const char *trace_dir, const char *ctf_dir, unsigned *cap,
                         char *err, size_t errlen)
{
    FILE *f = open_run_json(trace_dir, ctf_dir);
    t->run_json_found = f != NULL;
    if (!f)
        return 0;
    char line[512];
    bool complete = false, in_logs = false;
    unsigned long long(*entries)[3] = malloc(MON_RUN_JSON_MAX_LOGS * sizeof *entries);
    unsigned n = 0;
    while (entries && fgets(line, sizeof line, f)) {
        unsigned w;
        unsigned long long ev, by;
        if (strstr(line, "\"complete\": true"))
            complete = true;
        if (strstr(line, "\"command_line\": ["))
            parse_flush(t, line);
        if (strstr(line, "\"logs\": ["))
            in_logs = true;
        else if (in_logs && n < MON_RUN_JSON_MAX_LOGS &&
                 sscanf(line, " {\"worker\": %u, \"events\": %llu, \"bytes\": %llu}", &w, &ev,
                        &by) == 3 && w <= 1000000) {
            entries[n][0] = w;
            entries[n][1] = ev;
            entries[n][2] = by;
            n++;
        } else if (in_logs && strchr(line, ']'))
            in_logs = false;
    }
    fclose(f);
    t->run_complete = complete;
    int rc = entries ? 0 : -1;
    if (!entries)
        snprintf(err, errlen, "out of memory");
    for (unsigned i = 0; complete && rc == 0 && i < n; i++)
        rc = expect_log(t, ctf_dir, (unsigned)entries[i][0], entries[i][1], entries[i][2], cap, err,
                        errlen);
    free(entries);
    return rc;
}

static int find_logs(mon_trace *t, const char *trace_dir, const char *dir, char *err,
                     size_t errlen)
{
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "%s: cannot open directory: %s", dir, strerror(errno));
        return -1;
    }
    struct dirent *de;
    int rc = 0;
    while (rc == 0 && (de = readdir(d)) != NULL) {
        long n = worker_number(de->d_name);
        if (n >= 0)
            rc = add_log(t, dir, de->d_name, n, &t->logs_cap, err, errlen);
    }
    closedir(d);
    if (rc == 0)
        rc = read_run_json(t, trace_dir, dir, &t->logs_cap, err, errlen);
    /* No logs is an empty trace, not an error: a runtime built with its
     * hooks compiled out starts no worker log. */
    if (rc == 0 && t->nlogs)
        qsort(t->logs, t->nlogs, sizeof *t->logs, by_worker);
    return rc;
}

/* Decode the first event of every log and build the heap. */
static int prime(mon_trace *t, char *err, size_t errlen)
{
    t->heap_cap = t->nlogs ? t->nlogs : 1;
    t->heap = calloc(t->heap_cap, sizeof *t->heap);
    if (!t->heap) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    char msg[sizeof t->msg];
    for (unsigned i = 0; i < t->nlogs; i++) {
        log_reader *r = t->logs[i];
        if (r->state == MON_LOG_MISSING)
            continue;
        int rc = log_next(r, msg, sizeof msg);
        if (rc == LOG_EVENT) {
            t->heap[t->nheap++] = r;
            continue;
        }
        if (rc == LOG_AGAIN) {
            note_waiting(t, r);
            continue;
        }
        log_stopped(t, r, rc, msg);
        if (rc == LOG_ERROR && !t->keep_going) {
            snprintf(err, errlen, "%s", msg);
            return -1;
        }
    }
    heap_build(t);
    return 0;
}

/* ---------------------------------------------------------------------------
 * Following a run in progress (mon_trace_options.follow)
 * ------------------------------------------------------------------------- */

/* Follow only a run that is going on: run.json there, not complete. */
static void start_follow(mon_trace *t, bool follow)
{
    t->follow = follow;
    t->live = follow && t->run_json_found && !t->run_complete;
    for (unsigned i = 0; i < t->nlogs; i++) {
        t->logs[i]->follow = follow;
        t->logs[i]->live = t->live;
    }
}

/* r is at the end of what its writer has published. */
static void note_waiting(mon_trace *t, log_reader *r)
{
    if (!r->waiting) {
        r->waiting = true;
        if (t->n_waiting++ == 0 || r->clock < t->wait_min)
            t->wait_min = r->clock;
    }
}

/* Can the heap's first event go out now? Not while some log in progress
 * may still publish an earlier one. */
static bool deliverable(const mon_trace *t)
{
    if (t->nheap == 0)
        return false;
    uint64_t c = t->heap[0]->clock;
    return t->n_waiting == 0 || c <= t->wait_min || c <= t->settled;
}

static void heap_push(mon_trace *t, log_reader *r)
{
    unsigned i = t->nheap++;
    t->heap[i] = r;
    while (i > 0 && before(t->heap[i], t->heap[(i - 1) / 2])) {
        log_reader *tmp = t->heap[i];
        t->heap[i] = t->heap[(i - 1) / 2];
        t->heap[(i - 1) / 2] = tmp;
        i = (i - 1) / 2;
    }
}

/* ns -> ticks, rounded down, saturating (the inverse of mon_ticks_to_ns). */
static uint64_t ns_to_ticks(uint64_t ns, uint64_t freq)
{
    if (freq == MON_NS_PER_S)
        return ns;
    uint64_t s = ns / MON_NS_PER_S, rem = ns % MON_NS_PER_S;
    if (s > UINT64_MAX / freq)
        return UINT64_MAX;
    /* rem * freq < 10^9 * MON_CLOCK_FREQ_MAX fits in 64 bits. */
    uint64_t whole = s * freq, part = rem * freq / MON_NS_PER_S;
    return part > UINT64_MAX - whole ? UINT64_MAX : whole + part;
}

/* Now on the trace clock, in ns: CLOCK_MONOTONIC itself, or the wall clock
 * less the trace's offset (a TSC trace; on the host that writes it). */
static uint64_t trace_now_ns(const mon_trace *t)
{
    struct timespec ts;
    clock_gettime(t->clock_monotonic ? CLOCK_MONOTONIC : CLOCK_REALTIME, &ts);
    uint64_t ns = (uint64_t)ts.tv_sec * MON_NS_PER_S + (uint64_t)ts.tv_nsec;
    if (t->clock_monotonic)
        return ns;
    return ns > t->clock_offset ? ns - t->clock_offset : 0;
}

/* The settle time: every event older than two flush periods and a margin
 * has been published. "Now" is the later of this host's clock and the
 * newest event read (a trace from another host's clock still advances). */
static void settle(mon_trace *t)
{
    t->settled = 0;
    if (!t->live || t->flush_ms == 0)
        return;
    uint64_t newest = 0;
    for (unsigned i = 0; i < t->nlogs; i++)
        if (t->logs[i]->clock > newest)
            newest = t->logs[i]->clock;
    uint64_t now = trace_now_ns(t), latest = mon_ticks_to_ns(newest, t->clock_freq);
    if (latest > now)
        now = latest;
    uint64_t lag = 2 * (uint64_t)t->flush_ms * 1000000u + MON_FOLLOW_MARGIN_NS;
    if (now > lag)
        t->settled = ns_to_ticks(now - lag, t->clock_freq);
}

/* Has the run finished (run.json rewritten with "complete": true)? */
static bool run_now_complete(const mon_trace *t)
{
    FILE *f = open_run_json(t->trace_dir, t->ctf_dir);
    if (!f)
        return false;
    char line[512];
    bool complete = false;
    while (!complete && fgets(line, sizeof line, f))
        complete = strstr(line, "\"complete\": true") != NULL;
    fclose(f);
    return complete;
}

static void follow_fail(mon_trace *t, const char *msg)
{
    if (!t->error_pending) {
        t->error_pending = true;
        snprintf(t->msg, sizeof t->msg, "%s", msg);
    }
}

/* Worker logs that appeared since the last look, added in progress. */
static void rescan(mon_trace *t)
{
    DIR *d = opendir(t->ctf_dir);
    if (!d)
        return; /* it was there at open: try again next time */
    struct dirent *de;
    char err[4400];
    bool added = false;
    while ((de = readdir(d)) != NULL) {
        long n = worker_number(de->d_name);
        if (n < 0 || log_of_worker(t, (unsigned)n))
            continue;
        if (add_log(t, t->ctf_dir, de->d_name, n, &t->logs_cap, err, sizeof err) != 0) {
            follow_fail(t, err);
            break;
        }
        log_reader *r = t->logs[t->nlogs - 1];
        r->follow = r->live = true;
        note_waiting(t, r);
        added = true;
    }
    closedir(d);
    if (added)
        qsort(t->logs, t->nlogs, sizeof *t->logs, by_worker);
}

/* The run ended since the last look: the logs are final now, and run.json
 * says what each should hold. */
static void finish_follow(mon_trace *t)
{
    t->live = false;
    for (unsigned i = 0; i < t->nlogs; i++)
        t->logs[i]->live = false;
    char err[4400];
    if (read_run_json(t, t->trace_dir, t->ctf_dir, &t->logs_cap, err, sizeof err) != 0)
        follow_fail(t, err);
    else
        qsort(t->logs, t->nlogs, sizeof *t->logs, by_worker);
}

/* Read what the waiting logs have published since; they rejoin the heap. */
static void repoll(mon_trace *t)
{
    if (t->heap_cap < t->nlogs) {
        log_reader **h = realloc(t->heap, t->nlogs * sizeof *h);
        if (!h) {
            follow_fail(t, "out of memory");
            return;
        }
        t->heap = h;
        t->heap_cap = t->nlogs;
    }
    t->n_waiting = 0;
    char msg[sizeof t->msg];
    for (unsigned i = 0; i < t->nlogs; i++) {
        log_reader *r = t->logs[i];
        if (!r->waiting)
            continue;
        r->waiting = false;
        int rc = log_next(r, msg, sizeof msg);
        if (rc == LOG_EVENT)
            heap_push(t, r);
        else if (rc == LOG_AGAIN)
            note_waiting(t, r);
        else
            log_stopped(t, r, rc, msg);
    }
}

/* The next event cannot go out yet: look for what was published since.
 * MON_TRACE_EVENT when it can now (or when the trace has ended: nothing
 * waits any more), MON_TRACE_AGAIN, or MON_TRACE_ERROR. */
static int follow_poll(mon_trace *t)
{
    if (t->live) {
        if (run_now_complete(t))
            finish_follow(t);
        else
            rescan(t);
    }
    settle(t);
    repoll(t);
    if (t->error_pending) {
        t->failed = true;
        return MON_TRACE_ERROR;
    }
    if (deliverable(t) || (t->n_waiting == 0 && !t->live))
        return MON_TRACE_EVENT;
    return MON_TRACE_AGAIN;
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

int mon_trace_open_with(mon_trace **out, const char *trace_dir, const mon_trace_options *opt,
                        char *err, size_t errlen)
{
    *out = NULL;
    char dir[4096];
    ctf_dir_of(trace_dir, dir, sizeof dir);
    mon_trace *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    t->keep_going = opt && opt->keep_going;
    t->flush_ms = MON_FOLLOW_DEFAULT_FLUSH_MS;
    snprintf(t->trace_dir, sizeof t->trace_dir, "%s", trace_dir);
    snprintf(t->ctf_dir, sizeof t->ctf_dir, "%s", dir);
    unsigned ranks = mon_ranks_detect(trace_dir);
    if (ranks) {
        if (mon_ranks_open(&t->ranks, trace_dir, ranks, opt, err, errlen) != 0) {
            mon_trace_close(t);
            return -1;
        }
        *out = t;
        return 0;
    }
    if (read_metadata(t, dir, err, errlen) != 0 || find_logs(t, trace_dir, dir, err, errlen) != 0 ||
        (start_follow(t, opt && opt->follow), prime(t, err, errlen)) != 0) {
        mon_trace_close(t);
        return -1;
    }
    *out = t;
    return 0;
}

int mon_trace_open(mon_trace **out, const char *trace_dir, char *err, size_t errlen)
{
    return mon_trace_open_with(out, trace_dir, NULL, err, errlen);
}

void mon_trace_log_status(const mon_trace *t, unsigned i, mon_log_status *out)
{
    if (t->ranks) {
        mon_ranks_log_status(t->ranks, i, out);
        return;
    }
    memset(out, 0, sizeof *out);
    if (i >= t->nlogs)
        return;
    log_reader *r = t->logs[i];
    out->worker = r->worker;
    out->path = r->path;
    out->state = r->state;
    out->offset = r->problem_off;
    if (t->live && r->state == MON_LOG_READING) {
        out->state = MON_LOG_IN_PROGRESS;
        out->offset = r->good_end;
        snprintf(r->note, sizeof r->note,
                 "%s: in progress: read to byte %" PRIu64 " of %" PRIu64
                 "; the run is still writing it (run.json is not complete)",
                 r->path, r->good_end, r->file_bytes);
        out->message = r->note;
    }
    out->events_read = r->events_read;
    out->bytes_read = r->state == MON_LOG_COMPLETE ? r->file_bytes : r->good_end;
    out->file_bytes = r->file_bytes;
    out->events_expected = r->expected_events;
    out->bytes_expected = r->expected_bytes;
    out->events_discarded = r->discarded;
    if (out->state != MON_LOG_IN_PROGRESS)
        out->message = r->message;
    bool whole = r->state == MON_LOG_COMPLETE || r->state == MON_LOG_DISCARDED;
    if (r->expected_events >= 0)
        out->events_lost = r->expected_events > (int64_t)r->events_read
                               ? r->expected_events - (int64_t)r->events_read
                               : 0;
    else
        out->events_lost = whole || r->state == MON_LOG_READING ? 0 : -1;
    /* Bytes the writer wrote, as far as anything tells: run.json, else the
     * file and the declared end of a packet it cuts. */
    uint64_t written = r->file_bytes > r->lost_to ? r->file_bytes : r->lost_to;
    if (r->expected_bytes >= 0 && (uint64_t)r->expected_bytes > written)
        written = (uint64_t)r->expected_bytes;
    out->bytes_lost = out->state == MON_LOG_READING || out->state == MON_LOG_IN_PROGRESS ||
                              written < out->bytes_read
                          ? 0
                          : written - out->bytes_read;
}

const char *mon_trace_error(const mon_trace *t)
{
    return t->ranks ? mon_ranks_error(t->ranks) : t->msg;
}
unsigned mon_trace_num_workers(const mon_trace *t)
{
    return t->ranks ? mon_ranks_num_workers(t->ranks) : t->nlogs;
}
unsigned mon_trace_worker_id(const mon_trace *t, unsigned i)
{
    if (t->ranks)
        return mon_ranks_worker_id(t->ranks, i);
    return i < t->nlogs ? t->logs[i]->worker : 0;
}
uint64_t mon_trace_clock_offset_ns(const mon_trace *t)
{
    return t->ranks ? mon_ranks_clock_offset_ns(t->ranks) : t->clock_offset;
}
uint64_t mon_trace_clock_freq(const mon_trace *t)
{
    return t->ranks ? mon_ranks_clock_freq(t->ranks) : t->clock_freq;
}

unsigned mon_trace_num_ranks(const mon_trace *t)
{
    return t->ranks ? mon_ranks_num_ranks(t->ranks) : 1;
}

void mon_trace_worker_place(const mon_trace *t, unsigned i, unsigned *rank,
                            unsigned *rank_worker)
{
    if (t->ranks) {
        mon_ranks_worker_place(t->ranks, i, rank, rank_worker);
        return;
    }
    *rank = 0;
    *rank_worker = mon_trace_worker_id(t, i);
}

const char *mon_trace_worker_label(const mon_trace *t, unsigned worker, char *buf, size_t len)
{
    unsigned rank, local;
    if (t && t->ranks && mon_ranks_worker_of(t->ranks, worker, &rank, &local))
        snprintf(buf, len, "r%u.w%u", rank, local);
    else
        snprintf(buf, len, "w%u", worker);
    return buf;
}

const mon_clock_alignment *mon_trace_clock_alignment(const mon_trace *t)
{
    return t->ranks ? mon_ranks_clock_alignment(t->ranks) : NULL;
}
bool mon_trace_live(const mon_trace *t) { return !t->ranks && t->live; }
unsigned mon_trace_flush_ms(const mon_trace *t) { return t->ranks ? 0 : t->flush_ms; }
uint64_t mon_trace_now_ns(const mon_trace *t)
{
    return t->ranks ? mon_ranks_now_ns(t->ranks) : trace_now_ns(t);
}

uint64_t mon_trace_events_discarded(const mon_trace *t)
{
    if (t->ranks)
        return mon_ranks_events_discarded(t->ranks);
    uint64_t n = 0;
    for (unsigned i = 0; i < t->nlogs; i++)
        n += t->logs[i]->discarded;
    return n;
}

void mon_trace_close(mon_trace *t)
{
    if (!t)
        return;
    mon_ranks_close(t->ranks);
    for (unsigned i = 0; i < t->nlogs; i++)
        log_free(t->logs[i]);
    free(t->logs);
    free(t->heap);
    mon_ends_table_free(&t->ends);
    free(t);
}

/* ---------------------------------------------------------------------------
 * Formatting
 * ------------------------------------------------------------------------- */

static const char *const cause_names[] = {"input", "output", "any"};

const char *mon_msg_id_format(uint64_t id, char *buf, size_t len)
{
    unsigned rank = mon_msg_id_rank(id);
    if (rank)
        snprintf(buf, len, "%u:%u.%" PRIu64, rank, mon_msg_id_node(id), mon_msg_id_seq(id));
    else
        snprintf(buf, len, "%u.%" PRIu64, mon_msg_id_node(id), mon_msg_id_seq(id));
    return buf;
}

/* "channel=C.I": the creator rank and index of a channel id. */
static void channel_text(uint64_t channel, char *buf, size_t len)
{
    snprintf(buf, len, "%" PRIu64 ".%" PRIu64, channel >> 32, channel & 0xffffffffu);
}

int mon_event_format(const mon_event *e, char *buf, size_t len)
{
    char head[80], id[48], where[32];
    if (e->ranked)
        snprintf(where, sizeof where, "r%u.w%u", e->rank, e->rank_worker);
    else
        snprintf(where, sizeof where, "w%u", e->worker);
    snprintf(head, sizeof head, "%" PRIu64 " %s %s", e->time, where,
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
        return snprintf(buf, len, "%s task=%" PRIu64 " msg=%s", head, e->task,
                        mon_msg_id_format(e->msg, id, sizeof id));
    case MON_EV_MESSAGE_SENT:
    case MON_EV_MESSAGE_RECEIVED:
        return snprintf(buf, len, "%s task=%" PRIu64 " msg=%s %s=%" PRIu32, head, e->task,
                        mon_msg_id_format(e->msg, id, sizeof id),
                        e->kind == MON_EV_MESSAGE_SENT ? "to" : "from", e->peer_rank);
    case MON_EV_CHANNEL_OPEN:
        channel_text(e->channel, id, sizeof id);
        return snprintf(buf, len, "%s task=%" PRIu64 " channel=%s end=%s rank=%" PRIu32, head,
                        e->task, id, e->write_end ? "sending" : "receiving", e->peer_rank);
    case MON_EV_CHANNEL_BLOCK:
        channel_text(e->channel, id, sizeof id);
        return snprintf(buf, len, "%s task=%" PRIu64 " channel=%s peer=%" PRIu64 " state=%s",
                        head, e->task, id, e->peer, e->empty ? "empty" : "full");
    case MON_EV_TASK_LOAD:
        return snprintf(buf, len, "%s task=%" PRIu64 " dispatches=%" PRIu32 " exec_ns=%" PRIu64,
                        head, e->task, e->dispatches, e->exec_ns);
    case MON_EV_WORKER_LOAD:
        return snprintf(buf, len, "%s waits=%" PRIu32 " wait_ns=%" PRIu64 " busy_ns=%" PRIu64, head,
                        e->waits, e->wait_ns, e->busy_ns);
    case MON_EV_RUN_START:
        return snprintf(buf, len, "%s run=%" PRIu32, head, e->run);
    default:
        return snprintf(buf, len, "%s", head);
    }
}
