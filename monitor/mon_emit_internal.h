/*
 * mon_emit_internal.h - writing one event: the encoding of
 * docs/LOGFORMAT.md section 4.3-4.4 (format 3) as inline functions, so that each hook
 * (mon_hooks.c) compiles into one straight run of stores with no call.
 *
 * Why it is in a header: an event costs a few ns, and a call into another
 * file, its register saves, and the reloads the compiler must do after
 * byte stores through a pointer (they may alias anything) would be a large
 * part of that. Here the writer's hot fields are loaded once into locals,
 * the event is stored, and the position is published with one release
 * store. The rest of the writer (packets, files, flushing) is mon_writer.c.
 */
#ifndef MON_EMIT_INTERNAL_H
#define MON_EMIT_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mon_format_internal.h"

typedef struct mon_writer mon_writer;

/* The part of a writer every event touches; the first member of struct
 * mon_writer. Only the worker thread writes it. pos and last_ts are atomics
 * because the flusher thread and the crash handler read them to publish
 * (relaxed and release stores are plain moves on x86). */
typedef struct mon_writer_hot {
    uint8_t *buf;             /* the packet being filled */
    size_t cap;               /* its size in bytes */
    _Atomic size_t pos;       /* bytes used; every event before it is complete */
    _Atomic uint64_t last_ts; /* time of the log's last event (ticks) */
    uint64_t events;          /* events emitted, recorded or lost */
    bool timed;               /* times are clock readings, all odd: the one-byte header
                                 is allowed (mon_writer_set_timed) */
    uint64_t reading;         /* the worker's last clock reading: the time of the events
                                 between two readings (kept here, beside last_ts) */
} mon_writer_hot;

/* End the full packet and start the next (mon_writer.c; once per packet). */
void mon_writer_next_packet(mon_writer *w);

/* A packet's first event sets its time range: timestamp_end first, so the
 * header is consistent at every moment. */
static inline void mon_writer_packet_times(uint8_t *buf, uint64_t ts)
{
    memcpy(buf + MON_OFF_TS_END, &ts, 8);
    atomic_signal_fence(memory_order_release);
    memcpy(buf + MON_OFF_TS_BEGIN, &ts, 8);
}

static inline mon_writer_hot *mon_writer_hot_of(mon_writer *w)
{
    return (mon_writer_hot *)(void *)w;
}

/* An event being written: where its bytes go, and its time. */
typedef struct mon_ev {
    uint8_t *buf; /* the packet */
    uint8_t *p;   /* the next byte of the event */
    uint64_t ts;
} mon_ev;

/* Begin an event of kind id at time ts with at most `payload` bytes of
 * payload: a new packet if this one cannot hold it; times never go back
 * within a log; the smallest header that lets a reader rebuild the time
 * from the log's previous one (docs/LOGFORMAT.md section 4.3): 1 byte for
 * the same time (the common case since the clock is read once per task
 * switch), 2 bytes for a step below 2^9 ticks, 3 below 2^17, 4 below 2^25,
 * else 9 with the full time. */
static inline __attribute__((always_inline)) mon_ev mon_ev_begin(mon_writer *w, mon_event_id id,
                                                                 uint64_t ts, size_t payload)
{
    mon_writer_hot *h = mon_writer_hot_of(w);
    size_t pos = atomic_load_explicit(&h->pos, memory_order_relaxed);
    if (__builtin_expect(pos + MON_HDR_MAX_BYTES + payload + MON_STORE_SLACK > h->cap, 0)) {
        mon_writer_next_packet(w);
        pos = atomic_load_explicit(&h->pos, memory_order_relaxed);
    }
    uint64_t last = atomic_load_explicit(&h->last_ts, memory_order_relaxed);
    uint8_t *buf = h->buf;
    uint8_t *p = buf + pos;
    if (__builtin_expect(ts <= last && h->timed, 1)) {
        /* The time of the previous event (a reading shared since the last
         * switch; or a TSC read a few cycles early on another CPU, clamped
         * so that times never go back). A packet starts with its times at
         * the log's last (header_init), so its first event needs nothing. */
        *p = MON_HDR_SAME(id);
        return (mon_ev){buf, p + 1, last};
    }
    if (ts < last)
        ts = last;
    if (pos == MON_PACKET_PREAMBLE_BYTES) {
        /* The packet's first event sets its time range. */
        mon_writer_packet_times(buf, ts);
        last = ts;
    }
    uint64_t step = ts - last;
    unsigned form = (unsigned)(step >> MON_HDR_TS_BITS(0) != 0) +
                    (unsigned)(step >> MON_HDR_TS_BITS(1) != 0) +
                    (unsigned)(step >> MON_HDR_TS_BITS(2) != 0);
    if (__builtin_expect(form < MON_HDR_FORM_FULL, 1)) {
        uint32_t low = (uint32_t)ts & ((UINT32_C(1) << MON_HDR_TS_BITS(form)) - 1);
        (void)mon_put_u32(p, (uint32_t)id | form << MON_HDR_FORM_SHIFT | low << MON_HDR_TS_SHIFT);
        p += 2 + form;
    } else {
        p = mon_put_u8(p, (uint8_t)((unsigned)id | MON_HDR_FORM_FULL << MON_HDR_FORM_SHIFT));
        p = mon_put_u64(p, ts);
    }
    return (mon_ev){buf, p, ts};
}

/* The event is complete: it becomes visible to whoever publishes. */
static inline __attribute__((always_inline)) void mon_ev_end(mon_writer *w, mon_ev e)
{
    mon_writer_hot *h = mon_writer_hot_of(w);
    h->events++;
    atomic_store_explicit(&h->last_ts, e.ts, memory_order_relaxed);
    atomic_store_explicit(&h->pos, (size_t)(e.p - e.buf), memory_order_release);
}

/* The common event, at once: a time at most 2^9 ticks after the log's last
 * (a one-byte header at the same time, else two) and at most 3 small
 * integers below 2^(14-k) (one or two bytes each), packed into an 8-byte
 * word with no branch per field and stored at once. The caller builds the
 * word (mon_fast_begin, mon_fast_uint) and stores it (mon_fast_end); when
 * the event is not such, it writes it with the general encoding, out of
 * line, whose registers the common case does not pay for. */
typedef struct mon_fast {
    uint64_t word; /* the event's bytes so far */
    unsigned bits; /* their number, in bits */
    uint64_t big;  /* non-zero: some field needs more than two bytes */
    bool ok;       /* the time and the room allow it */
} mon_fast;

static inline __attribute__((always_inline)) mon_fast mon_fast_begin(mon_writer *w,
                                                                     mon_event_id id, uint64_t ts)
{
    mon_writer_hot *h = mon_writer_hot_of(w);
    size_t pos = atomic_load_explicit(&h->pos, memory_order_relaxed);
    uint64_t last = atomic_load_explicit(&h->last_ts, memory_order_relaxed);
    mon_fast e;
    e.ok = ts >= last && ts - last < (UINT64_C(1) << MON_HDR_TS_BITS(0)) &&
           pos != MON_PACKET_PREAMBLE_BYTES && pos + 8 + MON_STORE_SLACK <= h->cap;
    bool same = ts == last && h->timed;
    e.word = same ? MON_HDR_SAME(id) : (uint64_t)id | (ts & 511u) << MON_HDR_TS_SHIFT;
    e.bits = same ? 8 : 16;
    e.big = 0;
    return e;
}

static inline __attribute__((always_inline)) void mon_fast_uint(mon_fast *e, uint64_t v,
                                                                unsigned k, unsigned flags)
{
    unsigned two = v >= (UINT64_C(1) << (6 - k));
    e->big |= v >> (14 - k);
    e->word |= ((uint64_t)flags | (uint64_t)two << k | v << (k + 2)) << e->bits;
    e->bits += 8u << two;
}

/* Store the event if it is the common kind; false if not (nothing done). */
static inline __attribute__((always_inline)) bool mon_fast_end(mon_writer *w, mon_fast e,
                                                               uint64_t ts)
{
    if (__builtin_expect(!e.ok || e.big != 0, 0))
        return false;
    mon_writer_hot *h = mon_writer_hot_of(w);
    size_t pos = atomic_load_explicit(&h->pos, memory_order_relaxed);
    memcpy(h->buf + pos, &e.word, 8);
    h->events++;
    atomic_store_explicit(&h->last_ts, ts, memory_order_relaxed);
    atomic_store_explicit(&h->pos, pos + e.bits / 8, memory_order_release);
    return true;
}

/* The writer's current reading: the time of an event between readings. */
static inline uint64_t mon_writer_reading(mon_writer *w) { return mon_writer_hot_of(w)->reading; }

/* Emitters, one per payload shape; id is a mon_event_id of that shape and
 * ts the event time in ticks of the trace clock (made monotonic per
 * writer). Ids, counts and durations are small integers (mon_put_uint):
 * 1-8 bytes each, by size. Load durations (exec_ns, wait_ns, busy_ns) are
 * in ns. */

static inline void mon_emit_bare(mon_writer *w, mon_event_id id, uint64_t ts)
{
    mon_ev_end(w, mon_ev_begin(w, id, ts, 0));
}

static __attribute__((noinline, unused)) void mon_emit_task_any(mon_writer *w, mon_event_id id, uint64_t ts, uint64_t task)
{
    mon_ev e = mon_ev_begin(w, id, ts, MON_UINT_MAX_BYTES);
    e.p = mon_put_uint(e.p, task, 0, 0);
    mon_ev_end(w, e);
}

static __attribute__((noinline, unused)) void mon_emit_task_block_any(mon_writer *w, uint64_t ts, uint64_t task, unsigned cause)
{
    mon_ev e = mon_ev_begin(w, MON_ID_TASK_BLOCK, ts, MON_UINT_MAX_BYTES);
    e.p = mon_put_uint(e.p, task, 2, cause & 3u);
    mon_ev_end(w, e);
}

/* The name is stored as valid UTF-8 of at most MON_NAME_MAX bytes (cut at
 * a character boundary, stray bytes as '?'). Out of line (mon_writer.c).
 * The worker is the log's own (mon_writer_open's), so it is not stored. */
void mon_emit_task_map(mon_writer *w, uint64_t ts, uint64_t task, const char *name);

static __attribute__((noinline, unused)) void mon_emit_stream_mode_any(mon_writer *w, mon_event_id id, uint64_t ts,
                                        uint64_t task, uint64_t stream, bool write_end)
{
    mon_ev e = mon_ev_begin(w, id, ts, 2 * MON_UINT_MAX_BYTES);
    e.p = mon_put_uint(e.p, task, 0, 0);
    e.p = mon_put_uint(e.p, stream, 1, write_end ? 1u : 0u);
    mon_ev_end(w, e);
}

static __attribute__((noinline, unused)) void mon_emit_stream_io_any(mon_writer *w, mon_event_id id, uint64_t ts, uint64_t task,
                                      uint64_t stream)
{
    mon_ev e = mon_ev_begin(w, id, ts, 2 * MON_UINT_MAX_BYTES);
    e.p = mon_put_uint(e.p, task, 0, 0);
    e.p = mon_put_uint(e.p, stream, 0, 0);
    mon_ev_end(w, e);
}

static __attribute__((noinline, unused)) void mon_emit_stream_block_any(mon_writer *w, uint64_t ts, uint64_t task,
                                         uint64_t stream, bool empty)
{
    mon_ev e = mon_ev_begin(w, MON_ID_STREAM_BLOCK, ts, 2 * MON_UINT_MAX_BYTES);
    e.p = mon_put_uint(e.p, task, 0, 0);
    e.p = mon_put_uint(e.p, stream, 1, empty ? 1u : 0u);
    mon_ev_end(w, e);
}

static __attribute__((noinline, unused)) void mon_emit_stream_wake_any(mon_writer *w, uint64_t ts, uint64_t waker,
                                        uint64_t stream, uint64_t woken)
{
    mon_ev e = mon_ev_begin(w, MON_ID_STREAM_WAKE, ts, 3 * MON_UINT_MAX_BYTES);
    e.p = mon_put_uint(e.p, waker, 0, 0);
    e.p = mon_put_uint(e.p, stream, 0, 0);
    e.p = mon_put_uint(e.p, woken, 0, 0);
    mon_ev_end(w, e);
}

/* The two numbers a message id is stored as: node (rank << 12 | worker,
 * the id's high 24 bits) and sequence number (its low 40), the layout of
 * mon_msg_id_make_at. */
static inline __attribute__((always_inline)) uint8_t *mon_put_msg(uint8_t *p, uint64_t msg)
{
    p = mon_put_uint(p, msg >> MON_MSG_NODE_SHIFT, 0, 0);
    return mon_put_uint(p, msg & (MON_MSG_SEQ_LIMIT - 1), 0, 0);
}

static inline void mon_emit_message(mon_writer *w, mon_event_id id, uint64_t ts, uint64_t task,
                                    uint64_t msg)
{
    mon_ev e = mon_ev_begin(w, id, ts, 3 * MON_UINT_MAX_BYTES);
    e.p = mon_put_uint(e.p, task, 0, 0);
    e.p = mon_put_msg(e.p, msg);
    mon_ev_end(w, e);
}

static inline void mon_emit_task_load(mon_writer *w, uint64_t ts, uint64_t task,
                                      uint32_t dispatches, uint64_t exec_ns)
{
    mon_ev e = mon_ev_begin(w, MON_ID_TASK_LOAD, ts, 3 * MON_UINT_MAX_BYTES);
    e.p = mon_put_uint(e.p, task, 0, 0);
    e.p = mon_put_uint(e.p, dispatches, 0, 0);
    e.p = mon_put_uint(e.p, exec_ns, 0, 0);
    mon_ev_end(w, e);
}

static inline void mon_emit_worker_load(mon_writer *w, uint64_t ts, uint32_t waits,
                                        uint64_t wait_ns, uint64_t busy_ns)
{
    mon_ev e = mon_ev_begin(w, MON_ID_WORKER_LOAD, ts, 3 * MON_UINT_MAX_BYTES);
    e.p = mon_put_uint(e.p, waits, 0, 0);
    e.p = mon_put_uint(e.p, wait_ns, 0, 0);
    e.p = mon_put_uint(e.p, busy_ns, 0, 0);
    mon_ev_end(w, e);
}

/* cpu_time: the worker thread's CPU time (ns) and involuntary context
 * switches since its worker_start (flag C, mon_cpu.c). */
static inline void mon_emit_cpu_time(mon_writer *w, uint64_t ts, uint64_t cpu_ns,
                                     uint64_t preemptions)
{
    mon_ev e = mon_ev_begin(w, MON_ID_CPU_TIME, ts, 2 * MON_UINT_MAX_BYTES);
    e.p = mon_put_uint(e.p, cpu_ns, 0, 0);
    e.p = mon_put_uint(e.p, preemptions, 0, 0);
    mon_ev_end(w, e);
}

/* The hot emitters: the one-store case first (mon_fast_*), else the
 * general encoding out of line. */
static inline __attribute__((always_inline)) void mon_emit_task(mon_writer *w, mon_event_id id,
                                                                uint64_t ts, uint64_t task)
{
    mon_fast e = mon_fast_begin(w, id, ts);
    mon_fast_uint(&e, task, 0, 0);
    if (!mon_fast_end(w, e, ts))
        mon_emit_task_any(w, id, ts, task);
}

static inline __attribute__((always_inline)) void mon_emit_task_block(mon_writer *w, uint64_t ts,
                                                                      uint64_t task, unsigned cause)
{
    mon_fast e = mon_fast_begin(w, MON_ID_TASK_BLOCK, ts);
    mon_fast_uint(&e, task, 2, cause & 3u);
    if (!mon_fast_end(w, e, ts))
        mon_emit_task_block_any(w, ts, task, cause);
}

static inline __attribute__((always_inline)) void mon_emit_stream_mode(mon_writer *w,
                                                                       mon_event_id id, uint64_t ts,
                                                                       uint64_t task,
                                                                       uint64_t stream,
                                                                       bool write_end)
{
    mon_fast e = mon_fast_begin(w, id, ts);
    mon_fast_uint(&e, task, 0, 0);
    mon_fast_uint(&e, stream, 1, write_end);
    if (!mon_fast_end(w, e, ts))
        mon_emit_stream_mode_any(w, id, ts, task, stream, write_end);
}

static inline __attribute__((always_inline)) void mon_emit_stream_io(mon_writer *w, mon_event_id id,
                                                                     uint64_t ts, uint64_t task,
                                                                     uint64_t stream)
{
    mon_fast e = mon_fast_begin(w, id, ts);
    mon_fast_uint(&e, task, 0, 0);
    mon_fast_uint(&e, stream, 0, 0);
    if (!mon_fast_end(w, e, ts))
        mon_emit_stream_io_any(w, id, ts, task, stream);
}

static inline __attribute__((always_inline)) void mon_emit_stream_block(mon_writer *w, uint64_t ts,
                                                                        uint64_t task,
                                                                        uint64_t stream, bool empty)
{
    mon_fast e = mon_fast_begin(w, MON_ID_STREAM_BLOCK, ts);
    mon_fast_uint(&e, task, 0, 0);
    mon_fast_uint(&e, stream, 1, empty);
    if (!mon_fast_end(w, e, ts))
        mon_emit_stream_block_any(w, ts, task, stream, empty);
}

static inline __attribute__((always_inline)) void mon_emit_stream_wake(mon_writer *w, uint64_t ts,
                                                                       uint64_t waker,
                                                                       uint64_t stream,
                                                                       uint64_t woken)
{
    mon_fast e = mon_fast_begin(w, MON_ID_STREAM_WAKE, ts);
    mon_fast_uint(&e, waker, 0, 0);
    mon_fast_uint(&e, stream, 0, 0);
    mon_fast_uint(&e, woken, 0, 0);
    if (!mon_fast_end(w, e, ts))
        mon_emit_stream_wake_any(w, ts, waker, stream, woken);
}

/* message_sent / message_received: a message leaving for / arriving from
 * rank `rank`. */
static inline void mon_emit_transfer(mon_writer *w, mon_event_id id, uint64_t ts, uint64_t task,
                                     uint64_t msg, uint32_t rank)
{
    mon_ev e = mon_ev_begin(w, id, ts, 4 * MON_UINT_MAX_BYTES);
    e.p = mon_put_uint(e.p, task, 0, 0);
    e.p = mon_put_msg(e.p, msg);
    e.p = mon_put_uint(e.p, rank, 0, 0);
    mon_ev_end(w, e);
}

/* A channel id (creator rank << 32 | index) is stored as its two halves,
 * the index with the event's flag (end or state). */
static inline void mon_emit_channel_open(mon_writer *w, uint64_t ts, uint64_t task,
                                         uint64_t channel, uint32_t rank, bool sends)
{
    mon_ev e = mon_ev_begin(w, MON_ID_CHANNEL_OPEN, ts, 4 * MON_UINT_MAX_BYTES);
    e.p = mon_put_uint(e.p, task, 0, 0);
    e.p = mon_put_uint(e.p, channel >> 32, 0, 0);
    e.p = mon_put_uint(e.p, channel & 0xffffffffu, 1, sends ? 1u : 0u);
    e.p = mon_put_uint(e.p, rank, 0, 0);
    mon_ev_end(w, e);
}

static inline void mon_emit_channel_block(mon_writer *w, uint64_t ts, uint64_t task,
                                          uint64_t channel, bool empty)
{
    mon_ev e = mon_ev_begin(w, MON_ID_CHANNEL_BLOCK, ts, 3 * MON_UINT_MAX_BYTES);
    e.p = mon_put_uint(e.p, task, 0, 0);
    e.p = mon_put_uint(e.p, channel >> 32, 0, 0);
    e.p = mon_put_uint(e.p, channel & 0xffffffffu, 1, empty ? 1u : 0u);
    mon_ev_end(w, e);
}

#endif /* MON_EMIT_INTERNAL_H */
