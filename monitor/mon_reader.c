/*
 * mon_reader.c - reads a trace directory (format 3.1, docs/LOGFORMAT.md):
 * one decoder per worker log, and a binary heap that merges them by time.
 *
 * Why a packet at a time: traces of long runs are far larger than memory
 * should be, and the format lets each log be decoded front to back with
 * only the current packet in hand. Every length, id and enum read from the
 * file is checked before use, so a damaged file gives a message with file
 * and offset, never a crash or a hang.
 *
 * Why the two decoders: `log_next` decodes any event and says exactly what
 * is wrong with a bad one; `decode_run`, the inner loop, decodes runs of the
 * common events of the log whose turn it is into a batch, as fast as it can,
 * and leaves everything unusual (and every error) to log_next. The batch
 * holds only events that come before every other log's next one, so the
 * merged order is the heap's, and events go out from it without heap work.
 */
#include "mon_reader.h"

#include "mon_ends_internal.h"

#include "mon_files_internal.h"
#include "mon_format_internal.h"
#include "mon_ranks_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The trace stores a message id as the node (rank and worker) and the
 * sequence number of mon_msg_id.h's layout. */
_Static_assert(MON_MSG_NODE_SHIFT == MON_MSG_SEQ_BITS &&
                   MON_MSG_NODE_LIMIT == UINT64_C(1) << (MON_MSG_WORKER_BITS + MON_MSG_RANK_BITS),
               "the trace's msg_node/msg_seq split is mon_msg_id_make_at's");

/* LOG_AGAIN: follow mode, nothing more published yet (the log is in
 * progress). LOG_FOREIGN: the log's first packet names another run. */
enum {
    LOG_EVENT = 1,
    LOG_END = 0,
    LOG_ERROR = -1,
    LOG_TRUNCATED = -2,
    LOG_AGAIN = -3,
    LOG_FOREIGN = -4
};

/* Which run the logs must name (format 3.2: run_id in every packet), shared
 * by the logs of a trace: run.json's run id, or without one the first
 * log's. */
typedef struct run_identity {
    bool known;  /* run.json named it, or a log has */
    bool from_run_json;
    uint64_t id; /* 0: the run names none (a trace of the tests' fixtures) */
} run_identity;

/* Follow mode: an event is held back until it is this much older than the
 * trace's present, beyond two flush periods (see mon_trace_options). */
#define MON_FOLLOW_MARGIN_NS UINT64_C(100000000)
/* The monitor's default --mon-flush (mon.h, which the reader does not
 * include: it is the runtime side). */
#define MON_FOLLOW_DEFAULT_FLUSH_MS 200u

/* Events decoded ahead from one log at most (fill_batch). */
#define MON_READ_BATCH 64

/* The decoder of one worker log. */
typedef struct log_reader {
    char path[4096];
    int fd;
    unsigned worker;     /* from the file name; every packet must agree */
    size_t preamble;     /* packet header and context: 68 bytes (3.2), 60 (3.1) */
    run_identity *run_id; /* the trace's; NULL: the format has no run ids (3.1) */
    uint8_t *pkt;        /* the current packet */
    size_t pkt_cap;
    size_t pkt_bytes;    /* packet_size / 8 */
    size_t avail;        /* bytes of the packet actually in the file */
    size_t content;      /* content_size / 8 */
    size_t pos;          /* next event inside pkt */
    uint64_t pkt_off;    /* file offset of the packet */
    uint64_t clock;      /* the stream clock in ticks (last event time) */
    uint64_t freq;       /* the trace clock's ticks per second */
    uint64_t freq_recip; /* floor((2^64 - 1) / freq), for clock_ns */
    uint64_t sec_ticks, sec_ns; /* clock_ns: a whole second, in ticks and in ns */
    uint64_t ts_end;
    unsigned id_count;   /* event ids of its format: 27 in 3.1, 29 in 3.2 */
    uint64_t pkt_events; /* events decoded from the current packet */
    uint64_t discarded;
    uint64_t discarded_json; /* what run.json says the writer lost */
    char *discard_cause;     /* and why (run.json), NULL when not said */
    bool in_packet;
    dev_t dev;             /* the file (a second name for it is a duplicate) */
    ino_t ino;
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
    bool v32;              /* format 3.2: one-byte headers (its ids: id_count) */
    char *message;         /* the status line, once stopped */
    /* Follow mode (mon_trace_options.follow). */
    bool follow;           /* packets are read as far as published, and re-read */
    bool live;             /* the run goes on: the end of the file is not the end */
    bool waiting;          /* at the end of what is published (MON_LOG_IN_PROGRESS) */
    char note[4200];       /* the status line while in progress */
} log_reader;

struct mon_trace {
    mon_ranks *ranks;  /* a multi-rank trace: everything is there (mon_ranks.c) */
    size_t preamble;   /* of the format the metadata names */
    bool run_ids;      /* the format has run ids (3.2) */
    run_identity run_id;
    mon_run_state run_state; /* from run.json */
    char *run_why;     /* why the run is not known complete; NULL when it is */
    unsigned dir_problems; /* files keep_going passed over */
    char *dir_problem; /* the first of them */
    mon_ends_table ends; /* the tasks at each stream's ends */
    log_reader **logs; /* sorted by worker */
    unsigned nlogs;
    log_reader **heap; /* logs with a current event, min by (time, worker) */
    unsigned nheap;
    uint64_t clock_freq;   /* ticks per second, from metadata */
    uint64_t clock_offset; /* wall - trace clock, ns */
    unsigned id_count;     /* event ids of the metadata's format version */
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
    bool v32;              /* format 3.2 (else 3.1) */
    bool window;           /* a flight recorder's window (run.json "window") */
    mon_run_window *windows; /* where each log's window starts */
    size_t n_windows;
    unsigned logs_cap;     /* capacity of logs */
    unsigned heap_cap;     /* capacity of heap */
    unsigned n_waiting;    /* logs at the end of what is published */
    uint64_t wait_min;     /* ticks: the earliest clock of a waiting log */
    uint64_t settled;      /* ticks: events up to here are all published */
    char trace_dir[4096], ctf_dir[4096];
    char name[MON_NAME_MAX + 1];
    char msg[4608];
    /* Events of the top log decoded ahead (fill_batch), delivered in order. */
    mon_event batch[MON_READ_BATCH];
    unsigned nbatch, ibatch;
    bool stop_pending;     /* the top log stops after the batch: stop_rc, stop_msg */
    int stop_rc;
    char stop_msg[4608];
};

static const char *const kind_names[MON_EV_KIND_COUNT] = {
    "task_map",      "task_create",    "task_dispatch",   "task_block",    "task_yield",
    "task_destroy",  "worker_start",   "worker_wait",     "worker_resume", "worker_end",
    "stream_open",   "stream_close",   "stream_read",     "stream_write",  "stream_block",
    "stream_wake",   "component_begin", "component_end",  "message_read",  "message_written",
    "task_load",     "worker_load",    "run_start",       "message_sent",  "message_received",
    "channel_open",  "channel_block",  "cpu_time",        "monitor_control",
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

/* The decoder reads an event's fields as whole 32/64-bit words without
 * checking each against the end of the data (decode_event checks the
 * event's end once): the packet buffer has this many bytes beyond what was
 * read, zeroed. */
#define READ_SLACK 64
_Static_assert(READ_SLACK >= MON_FIXED_EVENT_MAX_BYTES + MON_STORE_SLACK,
               "the decoder may load a word starting at the last byte of the largest event");

static bool ensure_capacity(log_reader *r, size_t bytes)
{
    if (bytes <= r->pkt_cap)
        return true;
    uint8_t *p = realloc(r->pkt, bytes + READ_SLACK);
    if (!p)
        return false;
    r->pkt = p;
    r->pkt_cap = bytes;
    return true;
}

/* The packet's bytes [0, n) have been read into r->pkt. */
static void set_avail(log_reader *r, size_t n)
{
    r->avail = n;
    memset(r->pkt + n, 0, READ_SLACK);
}

/* The run id of the packet at r->pkt_off: the trace's (the first log read
 * names it when run.json does not). Another in the first packet is a log
 * of another run (LOG_FOREIGN), in a later one damage. */
static int check_run_id(log_reader *r, uint64_t id, char *msg, size_t len)
{
    run_identity *want = r->run_id;
    if (!want->known) {
        want->known = true;
        want->id = id;
    }
    if (id == want->id)
        return LOG_EVENT;
    uint64_t at = r->pkt_off + MON_OFF_RUN_ID;
    char named[64] = "none";
    if (want->id)
        snprintf(named, sizeof named, "%016" PRIx64, want->id);
    if (r->pkt_off == 0) {
        r->problem_off = at;
        snprintf(msg, len,
                 "%s: not a log of this run: its packets name run %016" PRIx64 ", %s names %s "
                 "(a log another run left here?)",
                 r->path, id, want->from_run_json ? "run.json" : "the trace's first log", named);
        return LOG_FOREIGN;
    }
    corrupt(msg, len, r, at, "run id %016" PRIx64 " after packets of run %s (two runs in one log)",
            id, named);
    return LOG_ERROR;
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
    if (size % 8 || size / 8 < r->preamble || size / 8 > MON_PACKET_MAX_BYTES) {
        corrupt(msg, len, r, o + MON_OFF_PACKET_SIZE, "impossible packet_size %" PRIu64 " bits", size);
        return LOG_ERROR;
    }
    if (content % 8 || content / 8 < r->preamble || content > size) {
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
    if (r->run_id) {
        int rc = check_run_id(r, mon_get_u64(p + MON_OFF_RUN_ID), msg, len);
        if (rc != LOG_EVENT)
            return rc;
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
    r->pkt_bytes = r->preamble;
    if (!ensure_capacity(r, r->preamble)) {
        snprintf(msg, len, "%s: out of memory", r->path);
        return LOG_ERROR;
    }
    /* Packets follow each other: each is read at its own offset (pread,
     * like every other read of a log, so no file position is kept). */
    ssize_t got = pread_full(r->fd, r->pkt, r->preamble, r->pkt_off);
    if (got < 0)
        return read_error(r, msg, len);
    if (got == 0)
        return LOG_END;
    set_avail(r, (size_t)got);
    if (got < (ssize_t)r->preamble) {
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
    size_t rest = r->pkt_bytes - r->preamble;
    struct stat st;
    uint64_t body_off = r->pkt_off + r->preamble;
    if (fstat(r->fd, &st) == 0 && (uint64_t)st.st_size >= body_off &&
        (uint64_t)st.st_size - body_off < rest)
        rest = (size_t)((uint64_t)st.st_size - body_off);
    if (!ensure_capacity(r, r->preamble + rest)) {
        snprintf(msg, len, "%s: out of memory for a %zu-byte packet", r->path, r->pkt_bytes);
        return LOG_ERROR;
    }
    got = pread_full(r->fd, r->pkt + r->preamble, rest, body_off);
    if (got < 0)
        return read_error(r, msg, len);
    set_avail(r, r->preamble + (size_t)got);
    r->pos = r->preamble;
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
    ssize_t got = pread_full(r->fd, buf, r->preamble, off);
    if (got == (ssize_t)r->preamble && n == 8 &&
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
    if (got < (ssize_t)r->preamble) {
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
     * headers that follow count from it. */
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
        set_avail(r, r->content + (size_t)got);
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
    r->pkt_bytes = r->preamble;
    uint64_t have = r->file_bytes > r->pkt_off ? r->file_bytes - r->pkt_off : 0;
    if (have == 0)
        return r->live ? LOG_AGAIN : LOG_END;
    if (!ensure_capacity(r, r->preamble)) {
        snprintf(msg, len, "%s: out of memory", r->path);
        return LOG_ERROR;
    }
    ssize_t got = read_preamble(r, r->pkt, r->pkt_off);
    if (got < 0)
        return read_error(r, msg, len);
    set_avail(r, (size_t)got);
    if (got < (ssize_t)r->preamble) {
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
        if (r->live && (size < r->preamble || r->pkt_off + size >= r->file_bytes)) {
            r->pkt_bytes = r->preamble;
            r->problem_off = 0;
            return LOG_AGAIN;
        }
        return rc;
    }
    size_t want = r->content - r->preamble;
    if (!ensure_capacity(r, r->content)) {
        snprintf(msg, len, "%s: out of memory for a %zu-byte packet", r->path, r->content);
        return LOG_ERROR;
    }
    got = pread_full(r->fd, r->pkt + r->preamble, want,
                     r->pkt_off + r->preamble);
    if (got < 0)
        return read_error(r, msg, len);
    if ((size_t)got < want && r->live) {
        r->pkt_bytes = r->preamble;
        return LOG_AGAIN;
    }
    set_avail(r, r->preamble + (size_t)got);
    r->pos = r->preamble;
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

/* The event at r->pos ends at byte `next` of the packet, beyond the data:
 * a truncation if the packet's content goes on past the file's end, else
 * damage. */
static int past_end(log_reader *r, size_t next, char *msg, size_t len)
{
    if (next <= r->content)
        return truncated(r, msg, len);
    corrupt(msg, len, r, r->pkt_off + r->pos, "event runs past the packet's content_size (%zu bytes)",
            r->content);
    return LOG_ERROR;
}

static int bad_field(log_reader *r, uint64_t at, const char *field, uint64_t v, char *msg,
                     size_t len)
{
    corrupt(msg, len, r, at, "%s value %" PRIu64 " out of range", field, v);
    return LOG_ERROR;
}

/* task_map's name at p (byte `at` of the file), NUL-terminated, valid
 * UTF-8, within the packet's data; copied to r->name. Returns its length
 * + 1, or -1 with the log's status set (rc in *rc). */
static long decode_name(log_reader *r, const uint8_t *p, uint64_t at, int *rc, char *msg, size_t len)
{
    size_t end = r->content < r->avail ? r->content : r->avail;
    size_t off = (size_t)(p - r->pkt);
    size_t limit = off < end ? end - off : 0;
    const uint8_t *nul = memchr(p, 0, limit < MON_NAME_MAX + 1 ? limit : MON_NAME_MAX + 1);
    if (!nul) {
        if (r->avail < r->content && limit <= MON_NAME_MAX)
            *rc = truncated(r, msg, len);
        else if (off > end)
            *rc = past_end(r, off, msg, len);
        else {
            corrupt(msg, len, r, at, "task name not terminated");
            *rc = LOG_ERROR;
        }
        return -1;
    }
    size_t n = (size_t)(nul - p);
    for (size_t i = 0, c; i < n; i += c)
        if ((c = mon_utf8_char_len(p + i, n - i)) == 0) {
            corrupt(msg, len, r, at + i, "task name is not valid UTF-8 (byte 0x%02x)", p[i]);
            *rc = LOG_ERROR;
            return -1;
        }
    memcpy(r->name, p, n + 1);
    return (long)n + 1;
}

/* A message id stored as node and sequence number (msg_node, msg_seq) at
 * *pp into *id: false with *rc set when a part is out of its range. */
static inline __attribute__((always_inline)) bool decode_msg(log_reader *r, const uint8_t **pp,
                                                             uint64_t *id, int *rc, char *msg,
                                                             size_t len)
{
    unsigned f;
    const uint8_t *at = *pp;
    uint64_t node = mon_get_uint(pp, 0, &f);
    if (node >= MON_MSG_NODE_LIMIT) {
        *rc = bad_field(r, r->pkt_off + (size_t)(at - r->pkt), "message node", node, msg, len);
        return false;
    }
    at = *pp;
    uint64_t seq = mon_get_uint(pp, 0, &f);
    if (seq >= MON_MSG_SEQ_LIMIT) {
        *rc = bad_field(r, r->pkt_off + (size_t)(at - r->pkt), "message sequence number", seq, msg,
                        len);
        return false;
    }
    *id = node << MON_MSG_NODE_SHIFT | seq;
    return true;
}

/* A rank number (message_sent/received, channel_open) at *pp into *rank:
 * false with *rc set when it is not one (>= 2^32). */
static inline bool decode_rank(log_reader *r, const uint8_t **pp, uint32_t *rank, int *rc, char *msg,
                        size_t len)
{
    unsigned f;
    const uint8_t *at = *pp;
    uint64_t v = mon_get_uint(pp, 0, &f);
    if (v > UINT32_MAX) {
        *rc = bad_field(r, r->pkt_off + (size_t)(at - r->pkt), "rank", v, msg, len);
        return false;
    }
    *rank = (uint32_t)v;
    return true;
}

/* The name at p (task_map, monitor_control) into e->name; the byte after
 * it, or NULL with the log's status set. */
static const uint8_t *take_name(log_reader *r, const uint8_t *p, mon_event *e, int *rc,
                                char *msg, size_t len)
{
    long n = decode_name(r, p, r->pkt_off + (size_t)(p - r->pkt), rc, msg, len);
    if (n < 0)
        return NULL;
    e->name = r->name;
    return p + n;
}

/* The payload of an event of kind id at p into e; returns the byte after
 * it (bounds are checked by the caller, READ_SLACK covers the loads), or
 * NULL with *rc set when a value is out of range. One switch, no calls:
 * this is the reader's inner loop. */
static inline const uint8_t *decode_payload(log_reader *r, unsigned id, const uint8_t *p,
                                            mon_event *e, int *rc, char *msg, size_t len)
{
    unsigned f;
    uint64_t v;
    const uint8_t *field = p;
    switch ((mon_event_id)id) {
    case MON_ID_TASK_CREATE:
    case MON_ID_TASK_DISPATCH:
    case MON_ID_TASK_YIELD:
    case MON_ID_TASK_DESTROY:
    case MON_ID_COMPONENT_BEGIN:
    case MON_ID_COMPONENT_END:
        e->task = mon_get_uint(&p, 0, &f);
        break;
    case MON_ID_STREAM_READ:
    case MON_ID_STREAM_WRITE:
        e->task = mon_get_uint(&p, 0, &f);
        e->stream = mon_get_uint(&p, 0, &f);
        break;
    case MON_ID_STREAM_OPEN:
    case MON_ID_STREAM_CLOSE:
        e->task = mon_get_uint(&p, 0, &f);
        e->stream = mon_get_uint(&p, 1, &f);
        e->write_end = f;
        break;
    case MON_ID_STREAM_BLOCK:
        e->task = mon_get_uint(&p, 0, &f);
        e->stream = mon_get_uint(&p, 1, &f);
        e->empty = f;
        break;
    case MON_ID_TASK_BLOCK:
        e->task = mon_get_uint(&p, 2, &f);
        e->cause = f;
        if (f > MON_BLOCK_ANY) {
            *rc = bad_field(r, r->pkt_off + (size_t)(field - r->pkt), "task_block cause", f, msg, len);
            return NULL;
        }
        break;
    case MON_ID_STREAM_WAKE:
        e->task = mon_get_uint(&p, 0, &f);
        e->stream = mon_get_uint(&p, 0, &f);
        e->peer = mon_get_uint(&p, 0, &f);
        break;
    case MON_ID_MESSAGE_READ:
    case MON_ID_MESSAGE_WRITTEN:
        e->task = mon_get_uint(&p, 0, &f);
        if (!decode_msg(r, &p, &e->msg, rc, msg, len))
            return NULL;
        break;
    case MON_ID_WORKER_START:
    case MON_ID_WORKER_WAIT:
    case MON_ID_WORKER_RESUME:
    case MON_ID_WORKER_END:
        break;
    case MON_ID_MESSAGE_SENT:
    case MON_ID_MESSAGE_RECEIVED:
        e->task = mon_get_uint(&p, 0, &f);
        if (!decode_msg(r, &p, &e->msg, rc, msg, len) ||
            !decode_rank(r, &p, &e->peer_rank, rc, msg, len))
            return NULL;
        break;
    case MON_ID_CHANNEL_OPEN:
    case MON_ID_CHANNEL_BLOCK: {
        e->task = mon_get_uint(&p, 0, &f);
        const uint8_t *at = p;
        uint64_t creator = mon_get_uint(&p, 0, &f);
        if (creator >= MON_CHANNEL_PART_LIMIT) {
            *rc = bad_field(r, r->pkt_off + (size_t)(at - r->pkt), "channel rank", creator, msg,
                            len);
            return NULL;
        }
        at = p;
        uint64_t index = mon_get_uint(&p, 1, &f);
        if (index >= MON_CHANNEL_PART_LIMIT) {
            *rc = bad_field(r, r->pkt_off + (size_t)(at - r->pkt), "channel index", index, msg,
                            len);
            return NULL;
        }
        e->channel = creator << 32 | index;
        if (id == MON_ID_CHANNEL_BLOCK) {
            e->empty = f;
            break;
        }
        e->write_end = f;
        if (!decode_rank(r, &p, &e->peer_rank, rc, msg, len))
            return NULL;
        break;
    }
    case MON_ID_TASK_LOAD:
        e->task = mon_get_uint(&p, 0, &f);
        field = p;
        v = mon_get_uint(&p, 0, &f);
        if (v > UINT32_MAX) {
            *rc = bad_field(r, r->pkt_off + (size_t)(field - r->pkt), "task_load dispatches", v, msg, len);
            return NULL;
        }
        e->dispatches = (uint32_t)v;
        e->exec_ns = mon_get_uint(&p, 0, &f);
        break;
    case MON_ID_WORKER_LOAD:
        v = mon_get_uint(&p, 0, &f);
        if (v > UINT32_MAX) {
            *rc = bad_field(r, r->pkt_off + (size_t)(field - r->pkt), "worker_load waits", v, msg, len);
            return NULL;
        }
        e->waits = (uint32_t)v;
        e->wait_ns = mon_get_uint(&p, 0, &f);
        e->busy_ns = mon_get_uint(&p, 0, &f);
        break;
    case MON_ID_RUN_START:
        v = mon_get_uint(&p, 0, &f);
        if (v == 0 || v < r->run || v > UINT32_MAX) {
            corrupt(msg, len, r, r->pkt_off + (size_t)(field - r->pkt),
                    "run number %" PRIu64 " after run %" PRIu32 " (runs count up from 1)", v, r->run);
            *rc = LOG_ERROR;
            return NULL;
        }
        r->run = (uint32_t)v; /* the log's run from here on (the event's own run too) */
        break;
    case MON_ID_TASK_MAP: {
        e->task = mon_get_uint(&p, 0, &f);
        e->worker_mapped = r->worker; /* written in the log of the worker it maps to */
        if (!(p = take_name(r, p, e, rc, msg, len)))
            return NULL;
        break;
    }
    case MON_ID_CPU_TIME:
        e->cpu_ns = mon_get_uint(&p, 0, &f);
        field = p;
        v = mon_get_uint(&p, 0, &f);
        if (v > UINT32_MAX) {
            *rc = bad_field(r, r->pkt_off + (size_t)(field - r->pkt), "cpu_time preemptions", v,
                            msg, len);
            return NULL;
        }
        e->preemptions = (uint32_t)v;
        break;
    case MON_ID_MONITOR_CONTROL: {
        v = mon_get_uint(&p, 1, &f);
        if (v > MON_FLAG_BITS_ALL) {
            *rc = bad_field(r, r->pkt_off + (size_t)(field - r->pkt), "monitor_control flags", v,
                            msg, len);
            return NULL;
        }
        e->classes = (unsigned)v;
        e->filtered = f;
        if (!(p = take_name(r, p, e, rc, msg, len)))
            return NULL;
        break;
    }
    case MON_ID_COUNT:
        break;
    }
    return p;
}

/* Decode the event at r->pos into *e and move r->pos and the stream
 * clock past it. The header gives the id and the time: its low 9, 17 or 25
 * bits, the rest from the clock (the step from the previous event is less
 * than 2^bits, so `(low - clock) mod 2^bits` is that step), or the full
 * time. */
static inline int decode_event(log_reader *r, mon_event *e, char *msg, size_t len)
{
    const uint8_t *p = r->pkt + r->pos;
    size_t end = r->content < r->avail ? r->content : r->avail;
    uint32_t h = mon_get_u32(p);
    unsigned id = h & MON_HDR_ID_MASK, form = (h >> MON_HDR_FORM_SHIFT) & 3u;
    uint64_t ts;
    size_t hdr;
    if (__builtin_expect(form != MON_HDR_FORM_FULL, 1)) {
        uint64_t mask = (UINT64_C(1) << MON_HDR_TS_BITS(form)) - 1;
        ts = r->clock + (((h >> MON_HDR_TS_SHIFT) - r->clock) & mask);
        hdr = 2 + form;
    } else if (h & MON_HDR_SAME_BIT) {
        if (!r->v32) {
            corrupt(msg, len, r, r->pkt_off + r->pos, "a one-byte event header in a format "
                    MON_FORMAT_VERSION_3_1 " log");
            return LOG_ERROR;
        }
        ts = r->clock;
        hdr = 1;
    } else {
        ts = mon_get_u64(p + 1);
        hdr = MON_HDR_FULL_BYTES;
    }
    if (__builtin_expect(r->pos + hdr > end, 0))
        return past_end(r, r->pos + hdr, msg, len);
    uint64_t at = r->pkt_off + r->pos;
    if (__builtin_expect(id >= r->id_count, 0)) {
        corrupt(msg, len, r, at, "unknown event id %u", id);
        return LOG_ERROR;
    }
    if (__builtin_expect(ts > r->ts_end || ts < r->clock, 0)) {
        if (ts < r->clock)
            corrupt(msg, len, r, at, "event time %" PRIu64 " before the previous one %" PRIu64, ts,
                    r->clock);
        else
            corrupt(msg, len, r, at,
                    "event time %" PRIu64 " after the packet's timestamp_end %" PRIu64, ts,
                    r->ts_end);
        return LOG_ERROR;
    }
    memset(e, 0, sizeof *e);
    int rc = LOG_EVENT;
    const uint8_t *next = decode_payload(r, id, p + hdr, e, &rc, msg, len);
    if (__builtin_expect(!next, 0))
        return rc;
    size_t after = (size_t)(next - r->pkt);
    if (__builtin_expect(after > end, 0))
        return past_end(r, after, msg, len);
    e->kind = (mon_event_kind)id;
    e->worker = r->worker;
    e->rank_worker = r->worker;
    e->run = r->run;
    e->offset = at;
    r->pos = after;
    r->clock = ts;
    return LOG_EVENT;
}

/* ns of the log's clock value r->clock (mon_ticks_to_ns, exactly), fast:
 * the whole seconds of the last conversion are kept, and the rest is
 * divided by the frequency with a multiplication by its reciprocal and at
 * most two corrections. */
static inline uint64_t clock_ns(log_reader *r)
{
    uint64_t t = r->clock;
    if (r->freq == MON_NS_PER_S)
        return t;
    uint64_t rem = t - r->sec_ticks;
    if (__builtin_expect(t < r->sec_ticks || rem >= r->freq || r->sec_ns == UINT64_MAX, 0)) {
        uint64_t s = t / r->freq;
        r->sec_ticks = s * r->freq;
        r->sec_ns = s > UINT64_MAX / MON_NS_PER_S - 1 ? UINT64_MAX : s * MON_NS_PER_S;
        if (r->sec_ns == UINT64_MAX)
            return mon_ticks_to_ns(t, r->freq);
        rem = t - r->sec_ticks;
    }
    uint64_t x = rem * MON_NS_PER_S; /* < freq * 10^9 <= UINT64_MAX (MON_CLOCK_FREQ_MAX) */
    __extension__ typedef unsigned __int128 u128;
    uint64_t q = (uint64_t)(((u128)x * r->freq_recip) >> 64);
    uint64_t left = x - q * r->freq;
    if (left >= r->freq) {
        q++;
        left -= r->freq;
        if (left >= r->freq)
            q++;
    }
    return r->sec_ns + q;
}

/* The fast path of fill_batch: decode the events at r->pos into out[0..max)
 * while they are the common kinds, in the packet's data, valid, and come
 * before (other_clock, other_worker) in the merged order. Stops without a
 * word at anything else - a rare kind (task_map, run_start, loads), a full
 * header, the end of the packet's data, a value that might be damage, an
 * event of another log's turn - and leaves it to log_next, which decodes
 * it or reports what is wrong. The stream state lives in locals here:
 * this is the loop that decides the reader's speed. Returns the number of
 * events decoded. */
_Static_assert(sizeof(mon_event) == 152 && offsetof(mon_event, cpu_ns) == 144,
               "decode_run sets every field of mon_event: add new fields there");

/* Small integers for decode_run: the length code of the one starting at
 * byte `off` of the event at p, whose first 8 bytes are w (most fields
 * start there: no load needed), and its value. Taking the lengths from w
 * keeps the loads of one event independent of each other: only the next
 * event's position depends on this one. */
static inline unsigned uint_code(uint64_t w, const uint8_t *p, size_t off, unsigned k)
{
    unsigned b = off < 8 ? (unsigned)(w >> (8 * off)) : p[off];
    return (b >> k) & 3u;
}

static inline uint64_t uint_value(const uint8_t *q, unsigned code, unsigned k)
{
    return (mon_get_u64(q) & (UINT64_MAX >> (64 - (8u << code)))) >> (k + 2);
}

/* One small integer at p + *off with k flag bits: its value, flags in *f. */
static inline uint64_t uint_next(uint64_t w, const uint8_t *p, size_t *off, unsigned k,
                                 unsigned *f)
{
    size_t o = *off;
    unsigned code = uint_code(w, p, o, k);
    *off = o + (1u << code);
    if (k)
        *f = (unsigned)(o < 8 ? w >> (8 * o) : p[o]) & ((1u << k) - 1u);
    return uint_value(p + o, code, k);
}

static unsigned decode_run(log_reader *r, mon_event *out, unsigned max, uint64_t other_clock,
                           bool worker_first)
{
    const uint8_t *base = r->pkt;
    size_t end = r->content < r->avail ? r->content : r->avail;
    size_t pos = r->pos;
    uint64_t clock = r->clock;
    const uint64_t pkt_off = r->pkt_off;
    /* Events after this tick are another log's turn or damage (after
     * timestamp_end): either way not for this loop. */
    uint64_t limit = r->ts_end;
    if (other_clock < limit || (other_clock == limit && !worker_first)) {
        if (!worker_first && other_clock == 0)
            return 0;
        limit = worker_first ? other_clock : other_clock - 1;
    }
    const uint32_t run = r->run;
    const unsigned worker = r->worker;
    unsigned n = 0;
    while (n < max && pos < end) {
        const uint8_t *p = base + pos;
        uint64_t w = mon_get_u64(p);
        unsigned id = (unsigned)w & MON_HDR_ID_MASK, form = (unsigned)(w >> MON_HDR_FORM_SHIFT) & 3u;
        if (id >= MON_ID_TASK_LOAD || id == MON_ID_TASK_MAP)
            break;
        uint64_t ts;
        size_t o;
        if (form != MON_HDR_FORM_FULL) {
            uint64_t mask = (UINT64_C(1) << MON_HDR_TS_BITS(form)) - 1;
            ts = clock + ((((uint32_t)w >> MON_HDR_TS_SHIFT) - clock) & mask);
            o = 2 + form;
        } else if ((w & MON_HDR_SAME_BIT) && r->v32) {
            ts = clock; /* the one-byte header: the previous event's time */
            o = 1;
        } else {
            break;
        }
        if (ts > limit)
            break;
        /* The fields into locals, then every field of the event stored
         * once: a memset or a compound literal is a `rep stos` per event
         * (gcc), the slowest part of the loop. */
        uint64_t task = 0, stream = 0, peer = 0, msg = 0;
        unsigned f = 0, cause = 0;
        bool write_end = false, empty = false;
        bool odd = false; /* a value out of range: log_next reports it */
        switch ((mon_event_id)id) {
        case MON_ID_STREAM_READ:
        case MON_ID_STREAM_WRITE:
            task = uint_next(w, p, &o, 0, &f);
            stream = uint_next(w, p, &o, 0, &f);
            break;
        case MON_ID_STREAM_OPEN:
        case MON_ID_STREAM_CLOSE:
            task = uint_next(w, p, &o, 0, &f);
            stream = uint_next(w, p, &o, 1, &f);
            write_end = f;
            break;
        case MON_ID_STREAM_BLOCK:
            task = uint_next(w, p, &o, 0, &f);
            stream = uint_next(w, p, &o, 1, &f);
            empty = f;
            break;
        case MON_ID_STREAM_WAKE:
            task = uint_next(w, p, &o, 0, &f);
            stream = uint_next(w, p, &o, 0, &f);
            peer = uint_next(w, p, &o, 0, &f);
            break;
        case MON_ID_TASK_BLOCK:
            task = uint_next(w, p, &o, 2, &cause);
            odd = cause > MON_BLOCK_ANY;
            break;
        case MON_ID_MESSAGE_READ:
        case MON_ID_MESSAGE_WRITTEN: {
            task = uint_next(w, p, &o, 0, &f);
            uint64_t node = uint_next(w, p, &o, 0, &f);
            uint64_t seq = uint_next(w, p, &o, 0, &f);
            msg = node << MON_MSG_NODE_SHIFT | seq;
            odd = node >= MON_MSG_NODE_LIMIT || seq >= MON_MSG_SEQ_LIMIT;
            break;
        }
        case MON_ID_WORKER_START:
        case MON_ID_WORKER_WAIT:
        case MON_ID_WORKER_RESUME:
        case MON_ID_WORKER_END:
            break;
        default: /* task_create/dispatch/yield/destroy, component_begin/end */
            task = uint_next(w, p, &o, 0, &f);
            break;
        }
        size_t after = pos + o;
        if (after > end || odd)
            break;
        r->clock = ts;
        mon_event *e = &out[n];
        e->kind = (mon_event_kind)id;
        e->worker = worker;
        e->run = run;
        e->classes = 0;
        e->filtered = false;
        e->time = clock_ns(r);
        e->task = task;
        e->stream = stream;
        e->peer = peer;
        e->msg = msg;
        e->worker_mapped = 0;
        e->cause = cause;
        e->write_end = write_end;
        e->empty = empty;
        e->dispatches = e->waits = e->preemptions = 0;
        e->exec_ns = e->wait_ns = e->busy_ns = e->cpu_ns = 0;
        e->name = NULL;
        e->offset = pkt_off + pos;
        e->channel = 0;
        e->peer_rank = 0;
        e->ranked = false;
        e->rank = 0;
        e->rank_worker = worker;
        clock = ts;
        pos = after;
        n++;
    }
    if (n) {
        r->pos = pos;
        r->pkt_events += n;
        r->events_read += n;
        r->good_end = pkt_off + pos;
        r->ended = out[n - 1].kind == MON_EV_WORKER_END;
    }
    return n;
}

/* Decode the next event of r into *e (r->cur, or a slot of the batch). */
static int log_next(log_reader *r, mon_event *e, char *msg, size_t len)
{
    if (__builtin_expect(!r->in_packet || r->pos >= r->content, 0)) {
        for (;;) {
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
            if (r->in_packet && r->pos < r->content)
                break;
        }
    }
    int rc = decode_event(r, e, msg, len);
    if (__builtin_expect(rc != LOG_EVENT, 0))
        return rc;
    /* Logs are merged on ticks (before()), ns are for the consumers. */
    e->time = clock_ns(r);
    r->pkt_events++;
    r->events_read++;
    r->good_end = r->pkt_off + r->pos;
    r->ended = e->kind == MON_EV_WORKER_END;
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
    free(r->discard_cause);
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

static uint64_t ends_hash(uint32_t run, uint64_t id) { return id ^ (uint64_t)run << 40; }

/* What a lookup compares against. */
typedef struct ends_probe {
    const mon_ends *entries;
    uint32_t run;
    uint64_t id;
} ends_probe;

static bool same_ends(const void *ctx, uint32_t i)
{
    const ends_probe *p = ctx;
    return p->entries[i].id == p->id && p->entries[i].run == p->run;
}

static uint64_t stored_ends_hash(const void *ctx, uint32_t i)
{
    const mon_ends *e = &((const mon_ends *)ctx)[i];
    return ends_hash(e->run, e->id);
}

mon_ends *mon_ends_of(mon_ends_table *t, uint32_t run, uint64_t id)
{
    uint64_t hash = ends_hash(run, id);
    ends_probe probe = {t->entries, run, id};
    uint32_t i = kit_index_map_find(&t->index, hash, same_ends, &probe);
    if (i != KIT_INDEX_NONE)
        return &t->entries[i];
    if (t->count >= KIT_INDEX_NONE || KIT_GROW(t->entries, t->cap, t->count + 1) != 0 ||
        kit_index_map_insert(&t->index, hash, (uint32_t)t->count, stored_ends_hash, t->entries))
        return NULL;
    t->entries[t->count] = (mon_ends){.id = id, .run = run};
    return &t->entries[t->count++];
}

void mon_ends_table_free(mon_ends_table *t)
{
    free(t->entries);
    kit_index_map_free(&t->index);
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

static const char *const state_names[] = {"reading",   "complete",    "truncated",
                                          "damaged",   "unfinished",  "missing",
                                          "discarded", "in progress", "foreign"};

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
     * is the cause to name. The packets count it (events_discarded); the
     * final run.json too, with the reason, also when nothing reached the
     * file at all. */
    if (r->discarded_json > r->discarded)
        r->discarded = r->discarded_json;
    if (r->discarded) {
        if (r->discard_cause)
            snprintf(msg, len, "%s: the writer lost %" PRIu64 " events (%s; run.json)", r->path,
                     r->discarded, r->discard_cause);
        else
            snprintf(msg, len,
                     "%s: the writer lost %" PRIu64 " events (events_discarded: disk full or a "
                     "write error during the run)",
                     r->path, r->discarded);
        return MON_LOG_DISCARDED;
    }
    if (t->worker_events && !r->ended && !t->window) {
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
                       : rc == LOG_FOREIGN ? MON_LOG_FOREIGN
                                           : clean_end_state(t, r, buf, sizeof buf);
    if (rc == LOG_END)
        msg = buf;
    r->state = st;
    if (st == MON_LOG_COMPLETE)
        return;
    r->message = strdup(msg);
    if ((st == MON_LOG_DAMAGED || st == MON_LOG_FOREIGN) && !t->keep_going && !t->error_pending) {
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

/* r, at the top of the heap, could not decode its next event (rc): it
 * leaves the heap, waiting for more (follow mode) or stopped. */
static void log_leaves_heap(mon_trace *t, log_reader *r, int rc, const char *msg)
{
    if (rc == LOG_AGAIN)
        note_waiting(t, r);
    else
        log_stopped(t, r, rc, msg);
    t->heap[0] = t->heap[--t->nheap];
    heap_sift_down(t, 0);
}

/* The log after the top of the heap: the earliest next event of all the
 * other logs (its tick and worker), UINT64_MAX when there is none. */
static void runner_up(const mon_trace *t, uint64_t *clock, unsigned *worker)
{
    *clock = UINT64_MAX;
    *worker = UINT_MAX;
    for (unsigned i = 1; i <= 2 && i < t->nheap; i++) {
        const log_reader *o = t->heap[i];
        if (o->clock < *clock || (o->clock == *clock && o->worker < *worker)) {
            *clock = o->clock;
            *worker = o->worker;
        }
    }
}

/* The top log r's look-ahead event has just been delivered: decode its next
 * events. Those that come before every other log's next event in the
 * merged order go into the batch (delivered by mon_trace_next without
 * touching the heap); the first that does not, or a task_map (its name
 * lives in r->name), becomes r's look-ahead, and the heap is put in order.
 * A decoding failure after some batched events is applied when the last
 * of them is delivered: as if each event were decoded when the one before
 * it is delivered (that is what the reader promises about damage). In
 * follow mode nothing is batched: what may go out depends on the other
 * logs' publishing at each call. */
static void fill_batch(mon_trace *t, log_reader *r)
{
    uint64_t other_clock;
    unsigned other_worker, n = 0, limit = t->follow ? 0 : MON_READ_BATCH;
    runner_up(t, &other_clock, &other_worker);
    bool worker_first = r->worker < other_worker;
    for (;;) {
        if (n < limit && r->in_packet)
            n += decode_run(r, t->batch + n, limit - n, other_clock, worker_first);
        mon_event *e = n < limit ? &t->batch[n] : &r->cur;
        int rc = log_next(r, e, t->stop_msg, sizeof t->stop_msg);
        if (__builtin_expect(rc != LOG_EVENT, 0)) {
            t->nbatch = n;
            t->ibatch = 0;
            if (n == 0) {
                log_leaves_heap(t, r, rc, t->stop_msg);
            } else {
                t->stop_rc = rc;
                t->stop_pending = true;
            }
            return;
        }
        if (e == &r->cur)
            break;
        if (__builtin_expect(e->kind == MON_EV_TASK_MAP || e->kind == MON_EV_MONITOR_CONTROL, 0) ||
            r->clock > other_clock || (r->clock == other_clock && !worker_first)) {
            r->cur = *e; /* the look-ahead */
            break;
        }
        n++;
    }
    t->nbatch = n;
    t->ibatch = 0;
    heap_sift_down(t, 0);
}

/* Deliver the heap's top log's look-ahead event and decode what follows. */
static __attribute__((noinline)) int next_from_heap(mon_trace *t, mon_event *ev)
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
    if (ev->kind == MON_EV_TASK_MAP || ev->kind == MON_EV_MONITOR_CONTROL) {
        memcpy(t->name, r->name, sizeof t->name);
        ev->name = t->name;
    }
    fill_batch(t, r);
    return MON_TRACE_EVENT;
}

int mon_trace_next(mon_trace *t, mon_event *ev)
{
    if (__builtin_expect(t->ibatch < t->nbatch, 1)) {
        *ev = t->batch[t->ibatch++];
        if (__builtin_expect(t->ibatch == t->nbatch && t->stop_pending, 0)) {
            t->stop_pending = false;
            log_leaves_heap(t, t->heap[0], t->stop_rc, t->stop_msg);
        }
        if (__builtin_expect(ev->kind == MON_EV_STREAM_OPEN || ev->kind == MON_EV_STREAM_BLOCK, 0))
            track_stream_ends(t, ev);
        return MON_TRACE_EVENT;
    }
    return next_from_heap(t, ev);
}

/* ---------------------------------------------------------------------------
 * Opening a directory (docs/LOGFORMAT.md sections 1, 2 and 6): the
 * metadata, run.json and the worker logs, each checked against the others
 * before the first event is read, so that no stale, duplicate, special or
 * mislabelled file changes a figure.
 * ------------------------------------------------------------------------- */

static int by_worker(const void *a, const void *b)
{
    const log_reader *x = *(log_reader *const *)a, *y = *(log_reader *const *)b;
    return (x->worker > y->worker) - (x->worker < y->worker);
}

/* The trace's first problem for mon_trace_error, when it has none yet (a
 * line longer than the buffer is cut). */
static void note_truncated(mon_trace *t, const char *msg)
{
    if (!t->truncated && !t->error_pending) {
        t->truncated = true;
        snprintf(t->msg, sizeof t->msg, "%.*s", (int)sizeof t->msg - 1, msg);
    }
}

/* A file of the directory that is not what the trace needs (one the run
 * did not write, a duplicate, a special file): the trace does not open,
 * unless keep_going, which passes over the file and counts it
 * (mon_trace_dir_problems). 0 or -1 with err. */
static int dir_problem(mon_trace *t, const char *msg, char *err, size_t errlen)
{
    if (!t->keep_going) {
        snprintf(err, errlen, "%s", msg);
        return -1;
    }
    if (t->dir_problems++ == 0 && !(t->dir_problem = strdup(msg))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    note_truncated(t, msg);
    return 0;
}

/* What the metadata says: ours (the tracer), the format, the flags, and the
 * clock block's name, frequency and offset (only lines inside the block
 * count: the events have "name" lines too). */
typedef struct metadata_facts {
    bool ours, clock, monotonic;
    char flags[16], version[16];
    unsigned long long off_s, off, freq;
} metadata_facts;

static void scan_metadata(FILE *f, metadata_facts *m)
{
    char line[512];
    bool first = true, in_clock = false;
    while (fgets(line, sizeof line, f)) {
        if (first && strncmp(line, "/* CTF 1.8", 10) != 0)
            break;
        first = false;
        if (strstr(line, "tracer_name = \"snet-lpel-mon\""))
            m->ours = true;
        sscanf(line, " monitor_flags = \"%15[A-Za-z]\";", m->flags);
        sscanf(line, " format_version = \"%15[0-9.]\";", m->version);
        if (!strncmp(line, "clock {", 7))
            in_clock = true;
        else if (in_clock && !strncmp(line, "};", 2))
            in_clock = false;
        if (!in_clock)
            continue;
        sscanf(line, " offset_s = %llu;", &m->off_s);
        sscanf(line, " offset = %llu;", &m->off);
        if (sscanf(line, " freq = %llu;", &m->freq) == 1)
            m->clock = true;
        if (strstr(line, "name = \"monotonic\";"))
            m->monotonic = true;
    }
}

/* The format named: its packet preamble, whether packets name the run and
 * its event ids. One decoder for both formats: 3.1 is 3.2 without the run
 * id at the end of the packet context and without its last event id
 * (cpu_time, 27), which in a 3.1 log is damage (section 9). */
static int take_version(mon_trace *t, const char *path, const char *version, char *err,
                        size_t errlen)
{
    t->v32 = !strcmp(version, MON_FORMAT_VERSION);
    if (t->v32) {
        t->preamble = MON_PACKET_PREAMBLE_BYTES;
        t->run_ids = true;
        t->id_count = MON_ID_COUNT;
    } else if (!strcmp(version, MON_FORMAT_VERSION_3_1)) {
        t->preamble = MON_PACKET_PREAMBLE_BYTES_3_1;
        t->id_count = MON_ID_COUNT_3_1;
    } else {
        /* Older traces are refused by name (babeltrace2 still reads them
         * with their own metadata). */
        snprintf(err, errlen,
                 "%s: trace format %s, but this reader reads formats " MON_FORMAT_VERSION_3_1
                 " and " MON_FORMAT_VERSION " only (docs/LOGFORMAT.md); record the run again, "
                 "or read it with babeltrace2",
                 path, *version ? version : "before 2.0");
        return -1;
    }
    return 0;
}

/* Check DIR/metadata is ours, take the format and the clock from it. The
 * clock block is required: without it every time would be read as ns,
 * whatever the clock counted. */
static int read_metadata(mon_trace *t, const char *dir, char *err, size_t errlen)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%s", dir, MON_METADATA_FILE) >= (int)sizeof path) {
        snprintf(err, errlen, "%s: path too long", dir);
        return -1;
    }
    struct stat st;
    int fd = mon_open_regular(path, &st, err, errlen);
    if (fd < 0) {
        if (errno == ENOENT)
            snprintf(err, errlen, "%s: cannot open: %s (not a trace directory?)", path,
                     strerror(ENOENT));
        return -1;
    }
    FILE *f = fdopen(fd, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    metadata_facts m = {0};
    scan_metadata(f, &m);
    fclose(f);
    if (!m.ours) {
        snprintf(err, errlen, "%s: not the metadata of an LPEL monitor trace (CTF 1.8, tracer snet-lpel-mon)",
                 path);
        return -1;
    }
    if (take_version(t, path, m.version, err, errlen) != 0)
        return -1;
    if (!m.clock) {
        snprintf(err, errlen,
                 "%s: no clock block with a frequency (expected 'clock { name = ...; freq = F; "
                 "... };', docs/LOGFORMAT.md section 3.1): the event times cannot be converted",
                 path);
        return -1;
    }
    if (m.freq < MON_CLOCK_FREQ_MIN || m.freq > MON_CLOCK_FREQ_MAX) {
        snprintf(err, errlen, "%s: unsupported clock frequency %llu Hz (expected %llu to %llu)", path,
                 m.freq, (unsigned long long)MON_CLOCK_FREQ_MIN,
                 (unsigned long long)MON_CLOCK_FREQ_MAX);
        return -1;
    }
    t->worker_events = strchr(m.flags, 'W') != NULL;
    t->clock_monotonic = m.monotonic;
    t->clock_freq = m.freq;
    t->clock_offset = (uint64_t)m.off_s * MON_NS_PER_S + mon_ticks_to_ns(m.off, m.freq);
    return 0;
}

/* The log already open on the same file (a hard or symbolic link), NULL
 * if none. */
static const log_reader *log_with_inode(const mon_trace *t, dev_t dev, ino_t ino)
{
    for (unsigned i = 0; i < t->nlogs; i++)
        if (t->logs[i]->fd >= 0 && t->logs[i]->dev == dev && t->logs[i]->ino == ino)
            return t->logs[i];
    return NULL;
}

/* Open the log of worker `worker`, dir/name: a regular file, not one that
 * is open already under another name. name NULL: a log run.json lists but
 * the directory lacks (missing: no file). 0 added; 1 passed over (a
 * directory problem, keep_going); -1 with err. */
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
    r->v32 = t->v32;
    r->freq = t->clock_freq;
    r->freq_recip = UINT64_MAX / t->clock_freq;
    r->id_count = t->id_count;
    r->run = 1;
    r->expected_events = r->expected_bytes = -1;
    r->preamble = t->preamble;
    r->run_id = t->run_ids ? &t->run_id : NULL;
    r->fd = -1;
    if (name) {
        struct stat st;
        char msg[2 * sizeof r->path + 256];
        r->fd = mon_open_regular(r->path, &st, msg, sizeof msg);
        const log_reader *same = r->fd >= 0 ? log_with_inode(t, st.st_dev, st.st_ino) : NULL;
        if (same)
            snprintf(msg, sizeof msg, "%s: the same file as %s (a link): a log counted twice",
                     r->path, same->path);
        if (r->fd < 0 || same) {
            log_free(r);
            return dir_problem(t, msg, err, errlen) == 0 ? 1 : -1;
        }
        r->dev = st.st_dev;
        r->ino = st.st_ino;
        r->file_bytes = (uint64_t)st.st_size;
    }
    t->logs[t->nlogs++] = r;
    return 0;
}

/* ---- run.json: how the run ended, its clock, its run id, its logs ---- */

/* The log of worker w, NULL if none. */
static log_reader *log_of_worker(const mon_trace *t, unsigned w)
{
    for (unsigned i = 0; i < t->nlogs; i++)
        if (t->logs[i]->worker == w)
            return t->logs[i];
    return NULL;
}

/* One "logs" entry of run.json: the counts and losses go to the worker's
 * log; a log the file system lacks is added as missing. Returns -1 only
 * when out of memory. */
static int expect_log(mon_trace *t, const char *dir, const mon_run_log *e, unsigned *cap,
                      char *err, size_t errlen)
{
    log_reader *r = log_of_worker(t, e->worker);
    if (!r) {
        if (add_log(t, dir, NULL, e->worker, cap, err, errlen) != 0)
            return -1;
        r = t->logs[t->nlogs - 1];
        r->state = MON_LOG_MISSING;
        char msg[sizeof r->path + 128];
        snprintf(msg, sizeof msg, "%s: missing: run.json lists worker %u's log (%" PRIu64 " events)",
                 r->path, e->worker, e->events);
        r->message = strdup(msg);
        if (!r->message) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        note_truncated(t, msg);
    }
    if (e->error && !r->discard_cause && !(r->discard_cause = strdup(e->error))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    r->discarded_json = e->discarded;
    if (e->events > INT64_MAX || e->bytes > INT64_MAX)
        return 0;
    r->expected_events = (int64_t)e->events;
    r->expected_bytes = (int64_t)e->bytes;
    return 0;
}

static bool run_lists_worker(const mon_run_json *run, unsigned w)
{
    for (size_t i = 0; i < run->n_logs; i++)
        if (run->logs[i].worker == w)
            return true;
    return false;
}

/* A log of a worker the finished run does not list was left by another
 * run: foreign, not read. -1 (with err) unless keep_going. */
static int unlisted_logs(mon_trace *t, const mon_run_json *run, char *err, size_t errlen)
{
    for (unsigned i = 0; i < t->nlogs; i++) {
        log_reader *r = t->logs[i];
        if (r->state != MON_LOG_READING || r->fd < 0 || run_lists_worker(run, r->worker))
            continue;
        char msg[sizeof r->path + 200];
        snprintf(msg, sizeof msg,
                 "%s: not a log of this run: run.json of the finished run lists no log of "
                 "worker %u (a log another run left here?)",
                 r->path, r->worker);
        if (!t->keep_going) {
            snprintf(err, errlen, "%s", msg);
            return -1;
        }
        r->state = MON_LOG_FOREIGN;
        if (!(r->message = strdup(msg))) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        note_truncated(t, msg);
    }
    return 0;
}

/* What the final run.json says about the logs: the events, bytes and
 * losses the writer counted (they tell a log cut at a packet boundary,
 * emptied or missing from a whole one), and that there are no others. An
 * unfinished run's run.json lists none. */
static int apply_run_logs(mon_trace *t, const mon_run_json *run, unsigned *cap, char *err,
                          size_t errlen)
{
    if (!run->complete)
        return 0;
    if (unlisted_logs(t, run, err, errlen) != 0)
        return -1;
    for (size_t i = 0; i < run->n_logs; i++)
        if (expect_log(t, t->ctf_dir, &run->logs[i], cap, err, errlen) != 0)
            return -1;
    return 0;
}

/* The run's state and, when it is not complete, one line saying why. */
static int set_run_state(mon_trace *t, mon_run_state state, const char *why, char *err,
                         size_t errlen)
{
    free(t->run_why);
    t->run_why = NULL;
    t->run_state = state;
    if (why && !(t->run_why = strdup(why))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

/* How the run ended, from its run.json (found in dir). */
static int take_run_end(mon_trace *t, const mon_run_json *run, const char *dir, char *err,
                        size_t errlen)
{
    t->run_complete = run->complete;
    if (run->complete)
        return set_run_state(t, MON_RUN_COMPLETE, NULL, err, errlen);
    char why[4500];
    if (run->ended_by)
        snprintf(why, sizeof why,
                 "%s/" MON_RUN_JSON_FILE ": the run did not finish: it ended on %s "
                 "(\"complete\": false)",
                 dir, run->ended_by);
    else
        snprintf(why, sizeof why,
                 "%s/" MON_RUN_JSON_FILE ": the run did not finish (\"complete\": false): it was "
                 "killed (SIGKILL, the OOM killer) or is still running",
                 dir);
    return set_run_state(t, MON_RUN_UNFINISHED, why, err, errlen);
}

/* The clock the metadata declares against the one run.json records: a
 * metadata file without its clock, or of another run, makes every time
 * wrong by a constant factor. A finished run writes both from one value;
 * an unfinished one may have died between the rewrites at the end (the
 * metadata then has the frequency measured over the whole run, run.json
 * the one from the start: a few ppm apart), so they must agree to 0.1 %. */
static int check_clock(const mon_trace *t, const mon_run_json *run, char *err, size_t errlen)
{
    if (run->clock_frequency_hz == 0)
        return 0; /* not recorded */
    uint64_t a = t->clock_freq, b = run->clock_frequency_hz, diff = a > b ? a - b : b - a;
    bool freq_agrees = run->complete ? diff == 0 : diff <= b / 1000;
    bool source_agrees =
        !run->clock_source || !strcmp(run->clock_source, "CLOCK_MONOTONIC") == t->clock_monotonic;
    if (freq_agrees && source_agrees)
        return 0;
    snprintf(err, errlen,
             "%s/" MON_METADATA_FILE ": clock %s at %" PRIu64 " Hz, but run.json says %s at %" PRIu64
             " Hz: the metadata and run.json are not of one run",
             t->ctf_dir, t->clock_monotonic ? "monotonic" : "tsc", a,
             run->clock_source ? run->clock_source : "a clock", b);
    return -1;
}

/* run.json of the trace into *out: DIR's, or DIR/..'s when given DIR/ctf;
 * where it was looked for goes into where. As mon_run_json_read. */
static int load_run_json(const char *trace_dir, const char *ctf_dir, mon_run_json **out,
                         char *where, size_t wlen, char *err, size_t errlen)
{
    snprintf(where, wlen, "%s", trace_dir);
    int rc = mon_run_json_read(trace_dir, out, err, errlen);
    if (rc == 1 && strcmp(trace_dir, ctf_dir) == 0) {
        snprintf(where, wlen, "%s/..", trace_dir);
        rc = mon_run_json_read(where, out, err, errlen);
    }
    return rc;
}

/* Read run.json for opening: the run's state, its clock and run id now
 * (checked before any log is read); *out keeps the rest for
 * apply_run_logs. A run.json that cannot be read stops the trace, unless
 * keep_going, which reads the logs without it (the run's state then
 * unknown, and the trace's first problem). */
static int open_run_json(mon_trace *t, mon_run_json **out, char *err, size_t errlen)
{
    char where[4200];
    int rc = load_run_json(t->trace_dir, t->ctf_dir, out, where, sizeof where, err, errlen);
    t->run_json_found = rc == 0;
    if (rc == 1) {
        char why[4500];
        snprintf(why, sizeof why,
                 "%s: no run.json: nothing says whether the run finished (a trace directory "
                 "holds run.json beside ctf/, docs/LOGFORMAT.md section 1)",
                 t->trace_dir);
        return set_run_state(t, MON_RUN_UNKNOWN, why, err, errlen);
    }
    if (rc < 0) {
        if (!t->keep_going)
            return -1;
        note_truncated(t, err);
        return set_run_state(t, MON_RUN_UNKNOWN, err, err, errlen);
    }
    if ((*out)->flush_ms >= 0)
        t->flush_ms = (unsigned)(*out)->flush_ms;
    if ((*out)->window_why) {
        /* A window ends within the run: no worker_end is missing. */
        t->window = true;
        t->windows = (*out)->window;
        t->n_windows = (*out)->n_window;
        (*out)->window = NULL;
    }
    if (take_run_end(t, *out, where, err, errlen) != 0 || check_clock(t, *out, err, errlen) != 0)
        return -1;
    t->run_id = (run_identity){.known = true, .from_run_json = true, .id = (*out)->run_id};
    return 0;
}

/* A name in the CTF directory that is not a file of the trace. */
static int other_file(mon_trace *t, const char *dir, const char *name, char *err, size_t errlen)
{
    char msg[4608];
    if (!strncmp(name, MON_WORKER_FILE_PREFIX, sizeof MON_WORKER_FILE_PREFIX - 1))
        snprintf(msg, sizeof msg,
                 "%s/%s: not a log the monitor writes (worker N's log is %sN, N without "
                 "leading zeros): a copy of a log would count twice",
                 dir, name, MON_WORKER_FILE_PREFIX);
    else
        snprintf(msg, sizeof msg,
                 "%s/%s: not a file of a trace (a trace's CTF directory holds %s and %sN only): "
                 "a copy, or a file of something else?",
                 dir, name, MON_METADATA_FILE, MON_WORKER_FILE_PREFIX);
    return dir_problem(t, msg, err, errlen);
}

/* The worker numbers of the logs a directory holds, in order. */
typedef struct log_names {
    long *workers;
    size_t n, cap;
} log_names;

static int by_number(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* Every file of the CTF directory: the logs are opened in worker order (so
 * that of two names of one file the higher is the duplicate), the metadata
 * was read, anything else is a directory problem. */
static int find_logs(mon_trace *t, const char *dir, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "%s: cannot open directory: %s", dir, strerror(errno));
        return -1;
    }
    struct dirent *de;
    log_names names = {0};
    int rc = 0;
    while (rc == 0 && (de = readdir(d)) != NULL) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        long n;
        mon_ctf_name kind = mon_ctf_name_kind(de->d_name, &n);
        if (kind == MON_CTF_LOG && KIT_GROW(names.workers, names.cap, names.n + 1) != 0) {
            snprintf(err, errlen, "%s: out of memory", dir);
            rc = -1;
        } else if (kind == MON_CTF_LOG) {
            names.workers[names.n++] = n;
        } else if (kind == MON_CTF_OTHER) {
            rc = other_file(t, dir, de->d_name, err, errlen);
        }
    }
    closedir(d);
    if (names.n)
        qsort(names.workers, names.n, sizeof *names.workers, by_number);
    for (size_t i = 0; rc == 0 && i < names.n; i++) {
        char name[64];
        snprintf(name, sizeof name, "%s%ld", MON_WORKER_FILE_PREFIX, names.workers[i]);
        rc = add_log(t, dir, name, names.workers[i], &t->logs_cap, err, errlen) < 0 ? -1 : 0;
    }
    free(names.workers);
    return rc;
}

/* Decode the first event of every log and build the heap. A log whose first
 * packet names another run is foreign: the trace does not open, unless
 * keep_going, which leaves it unread. */
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
        if (r->state != MON_LOG_READING)
            continue; /* missing or foreign */
        int rc = log_next(r, &r->cur, msg, sizeof msg);
        if (rc == LOG_EVENT) {
            t->heap[t->nheap++] = r;
            continue;
        }
        if (rc == LOG_AGAIN) {
            note_waiting(t, r);
            continue;
        }
        log_stopped(t, r, rc, msg);
        if ((rc == LOG_ERROR || rc == LOG_FOREIGN) && !t->keep_going) {
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

/* After MON_TRACE_AGAIN: a waiting log's next event is no earlier than its
 * last, the heap's are later still, and whatever is older than the settle
 * time has been published (mon_ranks.c merges ranks by this). */
uint64_t mon_trace_follow_floor_ns(const mon_trace *t)
{
    uint64_t lowest = UINT64_MAX;
    if (t->n_waiting)
        lowest = t->wait_min;
    if (t->nheap && t->heap[0]->clock < lowest)
        lowest = t->heap[0]->clock;
    if (lowest == UINT64_MAX || lowest < t->settled)
        lowest = t->settled;
    return mon_ticks_to_ns(lowest, t->clock_freq);
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

/* Has the run finished (run.json rewritten with "complete": true)? A
 * run.json that cannot be read now says no: the next look reads it again. */
static bool run_now_complete(const mon_trace *t)
{
    char err[4400], where[4200];
    mon_run_json *run;
    if (load_run_json(t->trace_dir, t->ctf_dir, &run, where, sizeof where, err, sizeof err) != 0)
        return false;
    bool complete = run->complete;
    mon_run_json_free(run);
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
        long n;
        if (mon_ctf_name_kind(de->d_name, &n) != MON_CTF_LOG || log_of_worker(t, (unsigned)n))
            continue;
        int rc = add_log(t, t->ctf_dir, de->d_name, n, &t->logs_cap, err, sizeof err);
        if (rc < 0) {
            follow_fail(t, err);
            break;
        }
        if (rc > 0)
            continue; /* passed over (keep_going): counted */
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
    char err[4400], where[4200];
    mon_run_json *run = NULL;
    if (load_run_json(t->trace_dir, t->ctf_dir, &run, where, sizeof where, err, sizeof err) != 0 ||
        take_run_end(t, run, where, err, sizeof err) != 0 ||
        apply_run_logs(t, run, &t->logs_cap, err, sizeof err) != 0)
        follow_fail(t, err);
    else
        qsort(t->logs, t->nlogs, sizeof *t->logs, by_worker);
    mon_run_json_free(run);
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
        int rc = log_next(r, &r->cur, msg, sizeof msg);
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
    mon_run_json *run = NULL;
    int rc = read_metadata(t, dir, err, errlen);
    if (rc == 0)
        rc = open_run_json(t, &run, err, errlen);
    if (rc == 0)
        rc = find_logs(t, dir, err, errlen);
    if (rc == 0 && run)
        rc = apply_run_logs(t, run, &t->logs_cap, err, errlen);
    mon_run_json_free(run);
    /* No logs is an empty trace, not an error: a runtime built with its
     * hooks compiled out starts no worker log. */
    if (rc == 0 && t->nlogs)
        qsort(t->logs, t->nlogs, sizeof *t->logs, by_worker);
    if (rc == 0) {
        start_follow(t, opt && opt->follow);
        rc = prime(t, err, errlen);
    }
    if (rc != 0) {
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
    out->window = t->window;
    for (size_t k = 0; k < t->n_windows; k++)
        if (t->windows[k].worker == r->worker) {
            out->events_before = t->windows[k].events_before;
            out->window_start_ns = mon_ticks_to_ns(t->windows[k].start_ticks, t->clock_freq);
        }
    if (out->state != MON_LOG_IN_PROGRESS)
        out->message = r->message;
    bool whole = r->state == MON_LOG_COMPLETE || r->state == MON_LOG_DISCARDED;
    if (r->state == MON_LOG_FOREIGN) {
        /* Its bytes and events are another run's: this run lost only what
         * run.json says its own log of that worker held. */
        out->events_lost = r->expected_events > 0 ? r->expected_events : 0;
        out->bytes_lost = r->expected_bytes > 0 ? (uint64_t)r->expected_bytes : 0;
        return;
    }
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
bool mon_trace_live(const mon_trace *t) { return t->ranks ? mon_ranks_live(t->ranks) : t->live; }
unsigned mon_trace_flush_ms(const mon_trace *t) { return t->ranks ? 0 : t->flush_ms; }
uint64_t mon_trace_now_ns(const mon_trace *t)
{
    return t->ranks ? mon_ranks_now_ns(t->ranks) : trace_now_ns(t);
}

mon_run_state mon_trace_run_state(const mon_trace *t, const char **why)
{
    if (t->ranks)
        return mon_ranks_run_state(t->ranks, why);
    if (why)
        *why = t->run_why;
    return t->run_state;
}

unsigned mon_trace_dir_problems(const mon_trace *t, const char **first)
{
    if (t->ranks)
        return mon_ranks_dir_problems(t->ranks, first);
    if (first)
        *first = t->dir_problem;
    return t->dir_problems;
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
    free(t->run_why);
    free(t->dir_problem);
    free(t->windows);
    mon_ends_table_free(&t->ends);
    free(t);
}

/* ---------------------------------------------------------------------------
 * Formatting
 * ------------------------------------------------------------------------- */

static const char *const cause_names[] = {"input", "output", "any"};

const char *mon_task_kind(const char *name)
{
    if (!name || !*name)
        return "(unnamed)";
    const char *colon = strrchr(name, ':');
    const char *last = colon && colon[1] ? colon + 1 : name;
    /* S<i>, P<i>, R<i>, I<v> (a tag may be negative): a combinator's part,
     * one kind per combinator whatever the index. */
    static const char letters[] = "SPRI";
    static const char *const parts[] = {"S", "P", "R", "I"};
    const char *part = last[0] ? strchr(letters, last[0]) : NULL;
    if (part) {
        const char *rest = last + 1 + (last[1] == '-');
        if (strspn(rest, "0123456789") == strlen(rest))
            return parts[part - letters];
    }
    return last;
}

const char *mon_msg_id_format(uint64_t id, char *buf, size_t len)
{
    unsigned rank = mon_msg_id_rank(id);
    if (rank)
        snprintf(buf, len, "%u:%u.%" PRIu64, rank, mon_msg_id_worker(id), mon_msg_id_seq(id));
    else
        snprintf(buf, len, "%u.%" PRIu64, mon_msg_id_worker(id), mon_msg_id_seq(id));
    return buf;
}

/* The line of mon_event_format is built by hand, not with snprintf: `snetmon
 * dump` prints one per event, and two snprintf calls were most of its
 * time. The text is exactly what the format strings in the comments say. */

static const char digit_pairs[201] = "00010203040506070809101112131415161718192021222324"
                                     "25262728293031323334353637383940414243444546474849"
                                     "50515253545556575859606162636465666768697071727374"
                                     "75767778798081828384858687888990919293949596979899";

/* "%" PRIu64 */
static char *fmt_u64(char *p, uint64_t v)
{
    char tmp[20];
    char *t = tmp + sizeof tmp;
    while (v >= 100) {
        unsigned d = (unsigned)(v % 100) * 2;
        v /= 100;
        *--t = digit_pairs[d + 1];
        *--t = digit_pairs[d];
    }
    if (v >= 10) {
        *--t = digit_pairs[v * 2 + 1];
        *--t = digit_pairs[v * 2];
    } else {
        *--t = (char)('0' + v);
    }
    size_t n = (size_t)(tmp + sizeof tmp - t);
    memcpy(p, t, n);
    return p + n;
}

static char *fmt_str(char *p, const char *s, size_t n)
{
    memcpy(p, s, n);
    return p + n;
}

/* A string literal without its NUL. */
#define FMT_LIT(p, lit) fmt_str((p), (lit), sizeof(lit) - 1)

static char *fmt_field(char *p, const char *key, size_t keylen, uint64_t v)
{
    return fmt_u64(fmt_str(p, key, keylen), v);
}
#define FMT_FIELD(p, key, v) fmt_field((p), (key), sizeof(key) - 1, (v))

/* " msg=" and mon_msg_id_format's text: "worker.seq", "rank:worker.seq"
 * for ranks above 0. */
static char *fmt_msg(char *p, uint64_t msg)
{
    p = FMT_LIT(p, " msg=");
    unsigned rank = mon_msg_id_rank(msg);
    if (rank) {
        p = fmt_u64(p, rank);
        *p++ = ':';
    }
    p = fmt_u64(p, mon_msg_id_worker(msg));
    *p++ = '.';
    return fmt_u64(p, mon_msg_id_seq(msg));
}

/* " channel=C.I": the creator rank and index of a channel id. */
static char *fmt_channel(char *p, uint64_t channel)
{
    p = FMT_FIELD(p, " channel=", channel >> 32);
    *p++ = '.';
    return fmt_u64(p, channel & 0xffffffffu);
}

int mon_event_format(const mon_event *e, char *buf, size_t len)
{
    /* The longest line: a task_map with a name of MON_NAME_MAX bytes (a
     * longer name, only in an event not from the reader, is cut here). */
    char line[MON_NAME_MAX + 160];
    char *p = line;
    const char *kind = mon_event_kind_name(e->kind);
    /* "<time> w<worker> <kind>", or "<time> r<rank>.w<worker> <kind>" for
     * an event of a multi-rank trace (its rank's own worker number) */
    p = fmt_u64(p, e->time);
    if (e->ranked) {
        p = FMT_FIELD(p, " r", e->rank);
        p = FMT_FIELD(p, ".w", e->rank_worker);
    } else {
        p = FMT_FIELD(p, " w", e->worker);
    }
    *p++ = ' ';
    p = fmt_str(p, kind, strlen(kind));
    switch (e->kind) {
    case MON_EV_TASK_MAP: { /* " task=%llu worker=%u name=%s" */
        p = FMT_FIELD(p, " task=", e->task);
        p = FMT_FIELD(p, " worker=", e->worker_mapped);
        p = FMT_LIT(p, " name=");
        const char *name = e->name ? e->name : "";
        p = fmt_str(p, name, strnlen(name, MON_NAME_MAX));
        break;
    }
    case MON_EV_TASK_BLOCK: { /* " task=%llu cause=%s" */
        p = FMT_FIELD(p, " task=", e->task);
        const char *c = e->cause <= 2 ? cause_names[e->cause] : "?";
        p = FMT_LIT(p, " cause=");
        p = fmt_str(p, c, strlen(c));
        break;
    }
    case MON_EV_TASK_CREATE:
    case MON_EV_TASK_DISPATCH:
    case MON_EV_TASK_YIELD:
    case MON_EV_TASK_DESTROY:
    case MON_EV_COMPONENT_BEGIN:
    case MON_EV_COMPONENT_END: /* " task=%llu" */
        p = FMT_FIELD(p, " task=", e->task);
        break;
    case MON_EV_STREAM_OPEN:
    case MON_EV_STREAM_CLOSE: /* " task=%llu stream=%llu mode=%s" */
        p = FMT_FIELD(p, " task=", e->task);
        p = FMT_FIELD(p, " stream=", e->stream);
        p = e->write_end ? FMT_LIT(p, " mode=write") : FMT_LIT(p, " mode=read");
        break;
    case MON_EV_STREAM_READ:
    case MON_EV_STREAM_WRITE: /* " task=%llu stream=%llu" */
        p = FMT_FIELD(p, " task=", e->task);
        p = FMT_FIELD(p, " stream=", e->stream);
        break;
    case MON_EV_STREAM_BLOCK: /* " task=%llu stream=%llu peer=%llu state=%s" */
        p = FMT_FIELD(p, " task=", e->task);
        p = FMT_FIELD(p, " stream=", e->stream);
        p = FMT_FIELD(p, " peer=", e->peer);
        p = e->empty ? FMT_LIT(p, " state=empty") : FMT_LIT(p, " state=full");
        break;
    case MON_EV_STREAM_WAKE: /* " waker=%llu stream=%llu woken=%llu" */
        p = FMT_FIELD(p, " waker=", e->task);
        p = FMT_FIELD(p, " stream=", e->stream);
        p = FMT_FIELD(p, " woken=", e->peer);
        break;
    case MON_EV_MESSAGE_READ:
    case MON_EV_MESSAGE_WRITTEN: /* " task=%llu msg=%s": mon_msg_id_format */
        p = FMT_FIELD(p, " task=", e->task);
        p = fmt_msg(p, e->msg);
        break;
    case MON_EV_MESSAGE_SENT:
    case MON_EV_MESSAGE_RECEIVED: /* " task=%llu msg=%s to=%u" ("from=" for received) */
        p = FMT_FIELD(p, " task=", e->task);
        p = fmt_msg(p, e->msg);
        p = e->kind == MON_EV_MESSAGE_SENT ? FMT_FIELD(p, " to=", e->peer_rank)
                                           : FMT_FIELD(p, " from=", e->peer_rank);
        break;
    case MON_EV_CHANNEL_OPEN: /* " task=%llu channel=C.I end=sending|receiving rank=%u" */
        p = FMT_FIELD(p, " task=", e->task);
        p = fmt_channel(p, e->channel);
        p = e->write_end ? FMT_LIT(p, " end=sending") : FMT_LIT(p, " end=receiving");
        p = FMT_FIELD(p, " rank=", e->peer_rank);
        break;
    case MON_EV_CHANNEL_BLOCK: /* " task=%llu channel=C.I peer=%llu state=%s" */
        p = FMT_FIELD(p, " task=", e->task);
        p = fmt_channel(p, e->channel);
        p = FMT_FIELD(p, " peer=", e->peer);
        p = e->empty ? FMT_LIT(p, " state=empty") : FMT_LIT(p, " state=full");
        break;
    case MON_EV_TASK_LOAD: /* " task=%llu dispatches=%u exec_ns=%llu" */
        p = FMT_FIELD(p, " task=", e->task);
        p = FMT_FIELD(p, " dispatches=", e->dispatches);
        p = FMT_FIELD(p, " exec_ns=", e->exec_ns);
        break;
    case MON_EV_WORKER_LOAD: /* " waits=%u wait_ns=%llu busy_ns=%llu" */
        p = FMT_FIELD(p, " waits=", e->waits);
        p = FMT_FIELD(p, " wait_ns=", e->wait_ns);
        p = FMT_FIELD(p, " busy_ns=", e->busy_ns);
        break;
    case MON_EV_RUN_START: /* " run=%u" */
        p = FMT_FIELD(p, " run=", e->run);
        break;
    case MON_EV_CPU_TIME: /* " cpu_ns=%llu preemptions=%u" */
        p = FMT_FIELD(p, " cpu_ns=", e->cpu_ns);
        p = FMT_FIELD(p, " preemptions=", e->preemptions);
        break;
    case MON_EV_MONITOR_CONTROL: { /* " classes=LETTERS" (mtWTSMLC, "-" for none)
                                      [" tasks=PATTERN"] */
        static const char letters[] = MON_FLAG_BITS_LETTERS;
        p = FMT_LIT(p, " classes=");
        char *first = p;
        for (unsigned i = 0; i < sizeof letters - 1; i++)
            if (e->classes & 1u << i)
                *p++ = letters[i];
        if (p == first)
            *p++ = '-';
        if (e->filtered) {
            const char *pat = e->name ? e->name : "";
            p = FMT_LIT(p, " tasks=");
            p = fmt_str(p, pat, strnlen(pat, MON_NAME_MAX));
        }
        break;
    }
    default:
        break;
    }
    size_t n = (size_t)(p - line);
    if (len) {
        size_t c = n < len ? n : len - 1;
        memcpy(buf, line, c);
        buf[c] = '\0';
    }
    return (int)n;
}
