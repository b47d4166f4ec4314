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
} mon_writer_hot;

/* End the full packet and start the next (mon_writer.c; once per packet). */
void mon_writer_next_packet(mon_writer *w);

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
 * from the log's previous one (docs/LOGFORMAT.md section 4.3): 2 bytes for
 * a step below 2^9 ticks, 3 below 2^17, 4 below 2^25, else 9 with the full
 * time. */
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
    if (ts < last)
        ts = last;
    if (pos == MON_PACKET_PREAMBLE_BYTES) {
        /* The packet's first event sets its time range: timestamp_end
         * first, so the header is consistent at every moment. */
        memcpy(buf + MON_OFF_TS_END, &ts, 8);
        atomic_signal_fence(memory_order_release);
        memcpy(buf + MON_OFF_TS_BEGIN, &ts, 8);
        last = ts;
    }
    uint8_t *p = buf + pos;
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

/* Emitters, one per payload shape; id is a mon_event_id of that shape and
 * ts the event time in ticks of the trace clock (made monotonic per
 * writer). Ids, counts and durations are small integers (mon_put_uint):
 * 1-8 bytes each, by size. Load durations (exec_ns, wait_ns, busy_ns) are
 * in ns. */

static inline void mon_emit_bare(mon_writer *w, mon_event_id id, uint64_t ts)
{
    mon_ev_end(w, mon_ev_begin(w, id, ts, 0));
}

static inline void mon_emit_task(mon_writer *w, mon_event_id id, uint64_t ts, uint64_t task)
{
    mon_ev e = mon_ev_begin(w, id, ts, MON_UINT_MAX_BYTES);
    e.p = mon_put_uint(e.p, task, 0, 0);
    mon_ev_end(w, e);
}

static inline void mon_emit_task_block(mon_writer *w, uint64_t ts, uint64_t task, unsigned cause)
{
    mon_ev e = mon_ev_begin(w, MON_ID_TASK_BLOCK, ts, MON_UINT_MAX_BYTES);
    e.p = mon_put_uint(e.p, task, 2, cause & 3u);
    mon_ev_end(w, e);
}

/* The name is stored as valid UTF-8 of at most MON_NAME_MAX bytes (cut at
 * a character boundary, stray bytes as '?'). Out of line (mon_writer.c).
 * The worker is the log's own (mon_writer_open's), so it is not stored. */
void mon_emit_task_map(mon_writer *w, uint64_t ts, uint64_t task, const char *name);

static inline void mon_emit_stream_mode(mon_writer *w, mon_event_id id, uint64_t ts,
                                        uint64_t task, uint64_t stream, bool write_end)
{
    mon_ev e = mon_ev_begin(w, id, ts, 2 * MON_UINT_MAX_BYTES);
    e.p = mon_put_uint(e.p, task, 0, 0);
    e.p = mon_put_uint(e.p, stream, 1, write_end ? 1u : 0u);
    mon_ev_end(w, e);
}

static inline void mon_emit_stream_io(mon_writer *w, mon_event_id id, uint64_t ts, uint64_t task,
                                      uint64_t stream)
{
    mon_ev e = mon_ev_begin(w, id, ts, 2 * MON_UINT_MAX_BYTES);
    e.p = mon_put_uint(e.p, task, 0, 0);
    e.p = mon_put_uint(e.p, stream, 0, 0);
    mon_ev_end(w, e);
}

static inline void mon_emit_stream_block(mon_writer *w, uint64_t ts, uint64_t task,
                                         uint64_t stream, bool empty)
{
    mon_ev e = mon_ev_begin(w, MON_ID_STREAM_BLOCK, ts, 2 * MON_UINT_MAX_BYTES);
    e.p = mon_put_uint(e.p, task, 0, 0);
    e.p = mon_put_uint(e.p, stream, 1, empty ? 1u : 0u);
    mon_ev_end(w, e);
}

static inline void mon_emit_stream_wake(mon_writer *w, uint64_t ts, uint64_t waker,
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
