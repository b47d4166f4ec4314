/*
 * mon_format_internal.h - the binary layout of a worker log, shared by the
 * writer, the reader and the TSDL metadata generator so the three cannot
 * disagree. docs/LOGFORMAT.md is the prose version of this file.
 *
 * A worker log is a sequence of packets. Each packet:
 *   packet header  (8 bytes)  u32 magic 0xC1FC1FC1, u32 stream_id = 0
 *   packet context (60 bytes) u64 timestamp_begin, u64 timestamp_end,
 *                             u64 content_size (bits), u64 packet_size (bits),
 *                             u64 events_discarded (cumulative), u32 cpu_id,
 *                             u64 packet_seq_num (0, 1, 2, ... in the file),
 *                             u64 run_id (run.json's run id; since 3.2)
 *   events, each a whole number of bytes, until content_size; padding until
 *   packet_size.
 * Each event (format 3): a header of 2, 3, 4 or 9 bytes - the event id (5
 * bits), the header's form (2 bits) and the low 9, 17 or 25 bits of the
 * event time, or the full 64-bit time when the time since the previous
 * event of the log does not fit - then the payload, whose integers are
 * "small integers" of 1, 2, 4 or 8 bytes (a 2-bit length code in front of
 * the value, after 0-2 flag bits). Why: a typical event took 12 bytes with
 * a 4-byte header and 32-bit ids; most events follow the previous one by
 * less than 512 clock ticks and most ids are below 64 or 16384, so most
 * events now take 4-6 bytes. All integers little endian, bit fields
 * filled from the least significant bit (CTF 1.8 little-endian bit
 * packing), so babeltrace2 decodes every field. Times are in ticks of the
 * trace clock; load durations (exec_ns, wait_ns, busy_ns) are always ns.
 */
#ifndef MON_FORMAT_INTERNAL_H
#define MON_FORMAT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the trace writer stores integers in host order and declares them little endian"
#endif

/* The format this writer writes (metadata env format_version, run.json
 * format_version). 3.1 is 3.0 with the events of runs across MPI ranks
 * (23-26) and message ids carrying the rank; 3.2 adds cpu_time (27),
 * monitor_control (28), the one-byte header of an event that shares the
 * previous event's time (the clock is read once per task switch,
 * docs/LOGFORMAT.md section 5) and the run id in every packet context. The
 * reader reads both: a 3.1 log is a 3.2 log without those
 * (MON_FORMAT_VERSION_3_1, MON_ID_COUNT_3_1, MON_PACKET_PREAMBLE_BYTES_3_1). */
#define MON_FORMAT_VERSION "3.2"
#define MON_FORMAT_VERSION_3_1 "3.1"
#define MON_CTF_MAGIC UINT32_C(0xC1FC1FC1)

/* The event classes a monitor_control event may name: mon.h's MON_FLAG_*
 * bits and their letters in bit order, which the reader does not include
 * (mon_writer.c checks that the two agree). */
#define MON_FLAG_BITS_ALL 0xffu
#define MON_FLAG_BITS_LETTERS "mtWTSMLC"

#define MON_PACKET_HEADER_BYTES 8
#define MON_PACKET_CONTEXT_BYTES 60
#define MON_PACKET_PREAMBLE_BYTES (MON_PACKET_HEADER_BYTES + MON_PACKET_CONTEXT_BYTES)
#define MON_PACKET_PREAMBLE_BYTES_3_1 60

/* Offsets inside the preamble. */
#define MON_OFF_MAGIC 0
#define MON_OFF_STREAM_ID 4
#define MON_OFF_TS_BEGIN 8
#define MON_OFF_TS_END 16
#define MON_OFF_CONTENT_SIZE 24
#define MON_OFF_PACKET_SIZE 32
#define MON_OFF_DISCARDED 40
#define MON_OFF_CPU_ID 48
#define MON_OFF_SEQ_NUM 52
#define MON_OFF_RUN_ID 60

/* Event header (docs/LOGFORMAT.md section 4.3). Bits 0-4 of the first byte
 * are the event id, bits 5-6 the form F. Forms 0-2: a (2 + F)-byte
 * little-endian integer whose bits 7 and up are the low 9 + 8F bits of the
 * event time (the writer uses form F when the time is less than 2^(9+8F)
 * ticks after the log's previous event, so the reader rebuilds it with at
 * most one wrap). Form 3: bit 7 is 0, bytes 1-8 the full time. In CTF
 * terms the 7 low bits are the event class id (id + 32F: four classes of
 * the same name per event) and select the width of the timestamp. */
#define MON_HDR_ID_MASK 31u
#define MON_HDR_FORM_SHIFT 5
#define MON_HDR_TS_SHIFT 7
#define MON_HDR_FORM_FULL 3u
#define MON_HDR_FULL_BYTES 9
/* Form 3 with bit 7 set (since format 3.2): a one-byte header, the event's
 * time is the clock value C, the previous event's (or timestamp_begin). */
#define MON_HDR_SAME_BIT 0x80u
#define MON_HDR_SAME(id) ((uint8_t)((id) | MON_HDR_FORM_FULL << MON_HDR_FORM_SHIFT | MON_HDR_SAME_BIT))
#define MON_HDR_MAX_BYTES MON_HDR_FULL_BYTES
/* The time bits of form f (0-2): 9, 17, 25. */
#define MON_HDR_TS_BITS(f) (9u + 8u * (f))

/* Small integers (docs/LOGFORMAT.md section 4.4): k flag bits (0-2, fixed
 * per field), then a 2-bit length code L, then the value, in a (1 << L)-byte
 * little-endian integer: up to 6 - k, 14 - k, 30 - k or 62 - k bits of
 * value. MON_UINT_MAX(k) is the largest value; the writer saturates at it
 * (no id or duration of a run comes near 2^60). */
#define MON_UINT_MAX_BYTES 8
#define MON_UINT_MAX(k) (UINT64_MAX >> ((k) + 2))

/* Bytes the writer may store past the end of an event: small integers and
 * headers are stored as whole 64/32-bit words and the position then
 * advances by their real length. The packet keeps this much room. */
#define MON_STORE_SLACK 8

/* The trace clock (docs/LOGFORMAT.md section 3): event times are ticks of
 * a clock running at freq ticks per second, declared in the metadata's
 * clock block. CLOCK_MONOTONIC has freq 10^9 (ticks are ns); the TSC its
 * calibrated frequency. Readers accept frequencies in [MIN, MAX]: MAX keeps
 * (ticks % freq) * 10^9 within 64 bits in mon_ticks_to_ns. */
#define MON_NS_PER_S UINT64_C(1000000000)
#define MON_CLOCK_FREQ_MIN UINT64_C(1000)
#define MON_CLOCK_FREQ_MAX (UINT64_MAX / MON_NS_PER_S)

/* ticks * 10^9 / freq rounded down, exactly and without overflow for any
 * ticks (freq in [MON_CLOCK_FREQ_MIN, MON_CLOCK_FREQ_MAX]): split ticks into
 * whole seconds and a remainder, so a run of any length converts exactly.
 * Saturates at UINT64_MAX when the result itself does not fit (only
 * possible with freq below 10^9). Monotone: a later tick never gives an
 * earlier ns. */
static inline uint64_t mon_ticks_to_ns(uint64_t ticks, uint64_t freq)
{
    if (freq == MON_NS_PER_S)
        return ticks;
    uint64_t s = ticks / freq, rem = ticks % freq;
    if (s > UINT64_MAX / MON_NS_PER_S)
        return UINT64_MAX;
    uint64_t whole = s * MON_NS_PER_S, part = rem * MON_NS_PER_S / freq;
    return part > UINT64_MAX - whole ? UINT64_MAX : whole + part;
}

/* Task names longer than this are cut in the trace (at a character
 * boundary: names are UTF-8, as CTF strings are). */
#define MON_NAME_MAX 255

/* Length (1-4) of the UTF-8 character at s[0..n), or 0 when the bytes there
 * are not one: a stray continuation byte, an overlong form, a surrogate,
 * a code point above U+10FFFF, or a sequence cut short by n (n >= 1). */
static inline size_t mon_utf8_char_len(const uint8_t *s, size_t n)
{
    uint8_t c = s[0];
    size_t len;
    uint32_t cp, min;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        len = 2, cp = c & 0x1Fu, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF)
        len = 3, cp = c & 0x0Fu, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4)
        len = 4, cp = c & 0x07u, min = 0x10000;
    else
        return 0;
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

/* The largest event: full header + task_map with the longest name; every
 * other event has at most four small integers. */
#define MON_EVENT_MAX_BYTES (MON_HDR_MAX_BYTES + MON_UINT_MAX_BYTES + MON_NAME_MAX + 1)
#define MON_FIXED_EVENT_MAX_BYTES (MON_HDR_MAX_BYTES + 4 * MON_UINT_MAX_BYTES)

/* Packets larger than this are taken as corruption by the reader. */
#define MON_PACKET_MAX_BYTES ((size_t)64 << 20)

/* The CTF trace (metadata + worker logs) lives in this subdirectory of the
 * trace directory, next to run.json: babeltrace2 takes every file beside
 * `metadata` for a data stream, so run.json cannot share its directory. */
#define MON_CTF_SUBDIR "ctf"

/* The file name of worker N's log: "worker-N", N in decimal without
 * leading zeros, below MON_WORKER_FILE_LIMIT. */
#define MON_WORKER_FILE_PREFIX "worker-"
#define MON_WORKER_FILE_LIMIT 1000000

/* The worker number of a file named name if the writer could have made that
 * name ("worker-N" as above), else -1: the one rule by which the writer
 * clears an earlier run's logs and the reader tells a log from a copy
 * ("worker-00", "worker-1.bak"). mon_numbered_name: the same rule for
 * another prefix (the rank directories, "rank-R"). */
static inline long mon_numbered_name(const char *name, const char *prefix)
{
    const size_t plen = strlen(prefix);
    if (strncmp(name, prefix, plen) != 0)
        return -1;
    const char *p = name + plen;
    if (p[0] < '0' || p[0] > '9' || (p[0] == '0' && p[1] != '\0'))
        return -1;
    long n = 0;
    for (; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        n = n * 10 + (*p - '0');
        if (n >= MON_WORKER_FILE_LIMIT)
            return -1;
    }
    return n;
}
static inline long mon_worker_file_number(const char *name)
{
    return mon_numbered_name(name, MON_WORKER_FILE_PREFIX);
}

/* The files the writer makes in the CTF directory besides the logs: the
 * metadata, and the temporary name it is rewritten under (left behind only
 * when the process died between writing and renaming it). */
#define MON_METADATA_FILE "metadata"
#define MON_METADATA_TMP_FILE "metadata.tmp"
/* In the trace directory: run.json and its temporary name. */
#define MON_RUN_JSON_FILE "run.json"
#define MON_RUN_JSON_TMP_FILE "run.json.tmp"

/* A multi-rank trace: DIR/run.json of this format names the ranks, and
 * rank R's trace is the subdirectory "rank-R" (docs/LOGFORMAT.md 8). */
#define MON_RANKS_FORMAT "snet-lpel-ctf-ranks"
#define MON_RANK_DIR_PREFIX "rank-"
/* A flight recorder's snapshot K is the trace DIR/snapshot-K, made as
 * DIR/snapshot-K.tmp and renamed (docs/LOGFORMAT.md section 10). */
#define MON_SNAPSHOT_DIR_PREFIX "snapshot-"
#define MON_SNAPSHOT_TMP_SUFFIX ".tmp"

/* Event ids, stable: they are part of the format. Payload fields in order;
 * uint = small integer without flags, uint/mode etc. = with that flag. */
typedef enum mon_event_id {
    MON_ID_TASK_MAP = 0,         /* uint task, string name (the log's own worker) */
    MON_ID_TASK_CREATE = 1,      /* uint task */
    MON_ID_TASK_DISPATCH = 2,    /* uint task */
    MON_ID_TASK_BLOCK = 3,       /* uint/cause task (cause: 2 bits, 0 input, 1 output, 2 any) */
    MON_ID_TASK_YIELD = 4,       /* uint task */
    MON_ID_TASK_DESTROY = 5,     /* uint task */
    MON_ID_WORKER_START = 6,     /* (none) */
    MON_ID_WORKER_WAIT = 7,      /* (none) */
    MON_ID_WORKER_RESUME = 8,    /* (none) */
    MON_ID_WORKER_END = 9,       /* (none) */
    MON_ID_STREAM_OPEN = 10,     /* uint task, uint/mode stream (mode: 1 bit, 0 read, 1 write) */
    MON_ID_STREAM_CLOSE = 11,    /* uint task, uint/mode stream */
    MON_ID_STREAM_READ = 12,     /* uint task, uint stream */
    MON_ID_STREAM_WRITE = 13,    /* uint task, uint stream */
    MON_ID_STREAM_BLOCK = 14,    /* uint task, uint/state stream (state: 1 bit, 0 full, 1 empty) */
    MON_ID_STREAM_WAKE = 15,     /* uint waker, uint stream, uint woken */
    MON_ID_COMPONENT_BEGIN = 16, /* uint task */
    MON_ID_COMPONENT_END = 17,   /* uint task */
    MON_ID_MESSAGE_READ = 18,    /* uint task, uint node, uint seq (msg = node << 40 | seq) */
    MON_ID_MESSAGE_WRITTEN = 19, /* uint task, uint node, uint seq */
    MON_ID_TASK_LOAD = 20,       /* uint task, uint dispatches, uint exec_ns */
    MON_ID_WORKER_LOAD = 21,     /* uint waits, uint wait_ns, uint busy_ns */
    MON_ID_RUN_START = 22,       /* uint run: the log's next events belong to runtime instance
                                    `run` (from 1), whatever the flags */
    /* Across MPI ranks (since format 3.1): */
    MON_ID_MESSAGE_SENT = 23,     /* uint task, uint node, uint seq, uint rank (where it goes) */
    MON_ID_MESSAGE_RECEIVED = 24, /* uint task, uint node, uint seq, uint rank (where it came
                                     from) */
    MON_ID_CHANNEL_OPEN = 25,     /* uint task, uint channel_rank, uint/end channel_index,
                                     uint rank (the other end's); end: 1 bit, 0 receiving,
                                     1 sending; channel = channel_rank << 32 | channel_index */
    MON_ID_CHANNEL_BLOCK = 26,    /* uint task, uint channel_rank, uint/state channel_index
                                     (state: 1 bit, 0 full, 1 empty) */
    /* Since format 3.2: */
    MON_ID_CPU_TIME = 27,         /* uint cpu_ns, uint preemptions: the worker thread's CPU
                                     time and involuntary context switches since its
                                     worker_start (flag C) */
    MON_ID_MONITOR_CONTROL = 28,  /* uint/filter flags (the MON_FLAG_* classes on from here;
                                     filter: 1 bit, a --mon-tasks pattern in effect),
                                     string tasks (that pattern, "" without one) */
    MON_ID_COUNT = 29
} mon_event_id;

/* The event ids a log of format 3.1 may hold (0-26: the ids from 27 on
 * came with 3.2). */
#define MON_ID_COUNT_3_1 MON_ID_CPU_TIME

/* Message ids in the trace: node and sequence number, mon_msg_id.h's
 * layout (mon_msg_id_make_at): node = rank << 12 | worker in the high 24
 * bits, sequence number in the low 40. */
#define MON_MSG_NODE_SHIFT 40
#define MON_MSG_NODE_LIMIT (UINT64_C(1) << 24)
#define MON_MSG_SEQ_LIMIT (UINT64_C(1) << MON_MSG_NODE_SHIFT)
/* Channel ids (docs/WIRE.md): creator rank << 32 | index, stored as the
 * two parts, each below 2^32. */
#define MON_CHANNEL_PART_LIMIT (UINT64_C(1) << 32)

/* Little-endian stores and loads through memcpy: no alignment needed. */
static inline uint8_t *mon_put_u8(uint8_t *p, uint8_t v)
{
    *p = v;
    return p + 1;
}
static inline uint8_t *mon_put_u32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, 4);
    return p + 4;
}
static inline uint8_t *mon_put_u64(uint8_t *p, uint64_t v)
{
    memcpy(p, &v, 8);
    return p + 8;
}
static inline uint32_t mon_get_u32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}
static inline uint64_t mon_get_u64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* A small integer with k flag bits (flags < 2^k) at p; returns the byte
 * after it. Stores 8 bytes (MON_STORE_SLACK): the caller keeps room. */
static inline __attribute__((always_inline)) uint8_t *mon_put_uint_wide(uint8_t *p, uint64_t v,
                                                                         unsigned k, unsigned flags)
{
    unsigned s = k + 2;
    if (__builtin_expect(v > MON_UINT_MAX(k), 0))
        v = MON_UINT_MAX(k);
    unsigned code = (unsigned)(v >> (8 - s) != 0) + (unsigned)(v >> (16 - s) != 0) +
                    (unsigned)(v >> (32 - s) != 0);
    uint64_t w = (uint64_t)flags | (uint64_t)code << k | v << s;
    memcpy(p, &w, 8);
    return p + (1u << code);
}

/* The same, with the one-byte case first: ids and counts of a run are
 * mostly below 64 (2^(6-k)), and that case is one store. */
static inline __attribute__((always_inline)) uint8_t *mon_put_uint(uint8_t *p, uint64_t v,
                                                                    unsigned k, unsigned flags)
{
    if (__builtin_expect(v < (UINT64_C(1) << (6 - k)), 1)) {
        *p = (uint8_t)(flags | (unsigned)v << (k + 2));
        return p + 1;
    }
    return mon_put_uint_wide(p, v, k, flags);
}

/* The small integer with k flag bits at *pp: its value, its flags in
 * *flags, *pp moved past it. Loads 8 bytes: the caller's buffer has them
 * (the reader keeps MON_STORE_SLACK zero bytes after what it read). */
static inline __attribute__((always_inline)) uint64_t mon_get_uint(const uint8_t **pp, unsigned k,
                                                                    unsigned *flags)
{
    uint64_t w = mon_get_u64(*pp);
    unsigned code = (unsigned)(w >> k) & 3u;
    unsigned bytes = 1u << code;
    *pp += bytes;
    *flags = (unsigned)w & ((1u << k) - 1u);
    return (w & (UINT64_MAX >> (64 - 8 * bytes))) >> (k + 2);
}

/* The length of the event at p, of which `avail` bytes are at hand; 0 if
 * it does not fit in them or has no valid id. Walks the header and the
 * payload's small integers (and task_map's name) without decoding them:
 * for the writer, which counts the events it could not write. */
static inline size_t mon_event_bytes(const uint8_t *p, size_t avail)
{
    /* Small integers in each payload. */
    static const uint8_t uints[MON_ID_COUNT] = {
        [MON_ID_TASK_MAP] = 1,        [MON_ID_TASK_CREATE] = 1,      [MON_ID_TASK_DISPATCH] = 1,
        [MON_ID_TASK_BLOCK] = 1,      [MON_ID_TASK_YIELD] = 1,       [MON_ID_TASK_DESTROY] = 1,
        [MON_ID_STREAM_OPEN] = 2,     [MON_ID_STREAM_CLOSE] = 2,     [MON_ID_STREAM_READ] = 2,
        [MON_ID_STREAM_WRITE] = 2,    [MON_ID_STREAM_BLOCK] = 2,     [MON_ID_STREAM_WAKE] = 3,
        [MON_ID_COMPONENT_BEGIN] = 1, [MON_ID_COMPONENT_END] = 1,    [MON_ID_MESSAGE_READ] = 3,
        [MON_ID_MESSAGE_WRITTEN] = 3, [MON_ID_TASK_LOAD] = 3,        [MON_ID_WORKER_LOAD] = 3,
        [MON_ID_RUN_START] = 1,       [MON_ID_MESSAGE_SENT] = 4,     [MON_ID_MESSAGE_RECEIVED] = 4,
        [MON_ID_CHANNEL_OPEN] = 4,    [MON_ID_CHANNEL_BLOCK] = 3,    [MON_ID_CPU_TIME] = 2,
        [MON_ID_MONITOR_CONTROL] = 1,
    };
    if (avail == 0)
        return 0;
    unsigned id = p[0] & MON_HDR_ID_MASK, form = (p[0] >> MON_HDR_FORM_SHIFT) & 3u;
    if (id >= MON_ID_COUNT)
        return 0;
    size_t n = form != MON_HDR_FORM_FULL ? 2u + form
               : p[0] & MON_HDR_SAME_BIT  ? 1u
                                          : MON_HDR_FULL_BYTES;
    for (unsigned i = 0; i < uints[id]; i++) {
        unsigned k = id == MON_ID_TASK_BLOCK ? 2
                     : id == MON_ID_MONITOR_CONTROL ? 1
                     : i == 1 && (id == MON_ID_STREAM_OPEN || id == MON_ID_STREAM_CLOSE ||
                                  id == MON_ID_STREAM_BLOCK)
                         ? 1
                     : i == 2 && (id == MON_ID_CHANNEL_OPEN || id == MON_ID_CHANNEL_BLOCK)
                         ? 1
                         : 0;
        if (n >= avail)
            return 0;
        n += (size_t)1 << ((p[n] >> k) & 3u);
    }
    if (id == MON_ID_TASK_MAP || id == MON_ID_MONITOR_CONTROL) {
        const uint8_t *nul = n < avail ? memchr(p + n, 0, avail - n) : NULL;
        if (!nul)
            return 0;
        n = (size_t)(nul - p) + 1;
    }
    return n <= avail ? n : 0;
}

#endif /* MON_FORMAT_INTERNAL_H */
