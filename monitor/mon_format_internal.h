/*
 * mon_format_internal.h - the binary layout of a worker log, shared by the
 * writer, the reader and the TSDL metadata generator so the three cannot
 * disagree. docs/LOGFORMAT.md is the prose version of this file.
 *
 * A worker log is a sequence of packets. Each packet:
 *   packet header  (8 bytes)  u32 magic 0xC1FC1FC1, u32 stream_id = 0
 *   packet context (52 bytes) u64 timestamp_begin, u64 timestamp_end,
 *                             u64 content_size (bits), u64 packet_size (bits),
 *                             u64 events_discarded (cumulative), u32 cpu_id,
 *                             u64 packet_seq_num (0, 1, 2, ... in the file)
 *   events, byte aligned, until content_size; padding until packet_size.
 * Each event: a compact header u32 = id (5 bits) | low 27 bits of the
 * timestamp << 5, or the extended header: one byte 31, u32 id, u64 full
 * timestamp (13 bytes) when the time since the previous event of the
 * stream is 2^27 clock ticks or more (134 ms of CLOCK_MONOTONIC ns, ~45 ms
 * of a 3 GHz TSC); then the payload. All integers little endian. Times
 * are in ticks of the trace clock; load durations (exec_ns, wait_ns,
 * busy_ns) are always ns.
 */
#ifndef MON_FORMAT_INTERNAL_H
#define MON_FORMAT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the trace writer stores integers in host order and declares them little endian"
#endif

#define MON_FORMAT_VERSION "2.1"
#define MON_CTF_MAGIC UINT32_C(0xC1FC1FC1)

#define MON_PACKET_HEADER_BYTES 8
#define MON_PACKET_CONTEXT_BYTES 52
#define MON_PACKET_PREAMBLE_BYTES (MON_PACKET_HEADER_BYTES + MON_PACKET_CONTEXT_BYTES)

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

#define MON_COMPACT_TS_BITS 27
#define MON_COMPACT_TS_MASK ((UINT32_C(1) << MON_COMPACT_TS_BITS) - 1)
#define MON_EXTENDED_ID 31
#define MON_COMPACT_HEADER_BYTES 4
#define MON_EXTENDED_HEADER_BYTES 13

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

/* The largest event: extended header + task_map with the longest name. */
#define MON_EVENT_MAX_BYTES (MON_EXTENDED_HEADER_BYTES + 8 + MON_NAME_MAX + 1)

/* Packets larger than this are taken as corruption by the reader. */
#define MON_PACKET_MAX_BYTES ((size_t)64 << 20)

/* The CTF trace (metadata + worker logs) lives in this subdirectory of the
 * trace directory, next to run.json: babeltrace2 takes every file beside
 * `metadata` for a data stream, so run.json cannot share its directory. */
#define MON_CTF_SUBDIR "ctf"

/* The file name of worker N's log: "worker-N". */
#define MON_WORKER_FILE_PREFIX "worker-"

/* A multi-rank trace: DIR/run.json of this format names the ranks, and
 * rank R's trace is the subdirectory "rank-R" (docs/LOGFORMAT.md 8). */
#define MON_RANKS_FORMAT "snet-lpel-ctf-ranks"
#define MON_RANK_DIR_PREFIX "rank-"

/* Event ids, stable: they are part of the format. Payload fields in order
 * (u8/u32/u64 little endian, string NUL-terminated). */
typedef enum mon_event_id {
    MON_ID_TASK_MAP = 0,         /* u32 task, u32 worker, string name */
    MON_ID_TASK_CREATE = 1,      /* u32 task */
    MON_ID_TASK_DISPATCH = 2,    /* u32 task */
    MON_ID_TASK_BLOCK = 3,       /* u32 task, u8 cause (0 input, 1 output, 2 any) */
    MON_ID_TASK_YIELD = 4,       /* u32 task */
    MON_ID_TASK_DESTROY = 5,     /* u32 task */
    MON_ID_WORKER_START = 6,     /* (none) */
    MON_ID_WORKER_WAIT = 7,      /* (none) */
    MON_ID_WORKER_RESUME = 8,    /* (none) */
    MON_ID_WORKER_END = 9,       /* (none) */
    MON_ID_STREAM_OPEN = 10,     /* u32 task, u32 stream, u8 mode (0 read, 1 write) */
    MON_ID_STREAM_CLOSE = 11,    /* u32 task, u32 stream, u8 mode */
    MON_ID_STREAM_READ = 12,     /* u32 task, u32 stream */
    MON_ID_STREAM_WRITE = 13,    /* u32 task, u32 stream */
    MON_ID_STREAM_BLOCK = 14,    /* u32 task, u32 stream, u8 state (0 full, 1 empty) */
    MON_ID_STREAM_WAKE = 15,     /* u32 waker, u32 stream, u32 woken */
    MON_ID_COMPONENT_BEGIN = 16, /* u32 task */
    MON_ID_COMPONENT_END = 17,   /* u32 task */
    MON_ID_MESSAGE_READ = 18,    /* u32 task, u64 msg */
    MON_ID_MESSAGE_WRITTEN = 19, /* u32 task, u64 msg */
    MON_ID_TASK_LOAD = 20,       /* u32 task, u32 dispatches, u64 exec_ns */
    MON_ID_WORKER_LOAD = 21,     /* u32 waits, u64 wait_ns, u64 busy_ns */
    MON_ID_RUN_START = 22,       /* u32 run: the log's next events belong to runtime instance
                                    `run` (from 1), whatever the flags */
    /* Across MPI ranks (format 2.1): */
    MON_ID_MESSAGE_SENT = 23,     /* u32 task, u64 msg, u32 rank (where it goes) */
    MON_ID_MESSAGE_RECEIVED = 24, /* u32 task, u64 msg, u32 rank (where it came from) */
    MON_ID_CHANNEL_OPEN = 25,     /* u32 task, u64 channel, u32 rank (the other end's),
                                     u8 mode (0 receiving end, 1 sending end) */
    MON_ID_CHANNEL_BLOCK = 26,    /* u32 task, u64 channel, u8 state (0 full, 1 empty) */
    MON_ID_COUNT = 27
} mon_event_id;

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

#endif /* MON_FORMAT_INTERNAL_H */
