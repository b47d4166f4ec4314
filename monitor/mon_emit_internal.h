/*
 * mon_emit_internal.h - writing one event: the encoding of
 * docs/LOGFORMAT.md section 4.3-4.4 as inline functions, so that each hook
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
 * within a log; the compact header (id and the time's low 27 bits) when
 * the time is less than 2^27 ticks after the log's previous event (a
 * reader rebuilds the time from the low bits, with at most one wrap), the
 * extended one (id and the full time) otherwise. */
static inline __attribute__((always_inline)) mon_ev mon_ev_begin(mon_writer *w, mon_event_id id,
                                                                 uint64_t ts, size_t payload)
{
    mon_writer_hot *h = mon_writer_hot_of(w);
    size_t pos = atomic_load_explicit(&h->pos, memory_order_relaxed);
    if (__builtin_expect(pos + MON_EXTENDED_HEADER_BYTES + payload > h->cap, 0)) {
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
    if (ts - last <= MON_COMPACT_TS_MASK) {
        p = mon_put_u32(p, (uint32_t)id | (((uint32_t)ts & MON_COMPACT_TS_MASK) << 5));
    } else {
        p = mon_put_u8(p, MON_EXTENDED_ID);
        p = mon_put_u32(p, (uint32_t)id);
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

/* Ids are stored in 32 bits (see docs/LOGFORMAT.md): keeps events small. */
static inline uint32_t mon_id32(uint64_t id) { return (uint32_t)id; }

/* Emitters, one per payload shape; id is a mon_event_id of that shape and
 * ts the event time in ticks of the trace clock (made monotonic per
 * writer). Load durations (exec_ns, wait_ns, busy_ns) are in ns. */

static inline void mon_emit_bare(mon_writer *w, mon_event_id id, uint64_t ts)
{
    mon_ev_end(w, mon_ev_begin(w, id, ts, 0));
}

static inline void mon_emit_task(mon_writer *w, mon_event_id id, uint64_t ts, uint64_t task)
{
    mon_ev e = mon_ev_begin(w, id, ts, 4);
    e.p = mon_put_u32(e.p, mon_id32(task));
    mon_ev_end(w, e);
}

static inline void mon_emit_task_block(mon_writer *w, uint64_t ts, uint64_t task, unsigned cause)
{
    mon_ev e = mon_ev_begin(w, MON_ID_TASK_BLOCK, ts, 5);
    e.p = mon_put_u32(e.p, mon_id32(task));
    e.p = mon_put_u8(e.p, (uint8_t)cause);
    mon_ev_end(w, e);
}

/* The name is stored as valid UTF-8 of at most MON_NAME_MAX bytes (cut at
 * a character boundary, stray bytes as '?'). Out of line (mon_writer.c). */
void mon_emit_task_map(mon_writer *w, uint64_t ts, uint64_t task, unsigned worker,
                       const char *name);

static inline void mon_emit_stream_mode(mon_writer *w, mon_event_id id, uint64_t ts,
                                        uint64_t task, uint64_t stream, bool write_end)
{
    mon_ev e = mon_ev_begin(w, id, ts, 9);
    e.p = mon_put_u32(e.p, mon_id32(task));
    e.p = mon_put_u32(e.p, mon_id32(stream));
    e.p = mon_put_u8(e.p, write_end ? 1 : 0);
    mon_ev_end(w, e);
}

static inline void mon_emit_stream_io(mon_writer *w, mon_event_id id, uint64_t ts, uint64_t task,
                                      uint64_t stream)
{
    mon_ev e = mon_ev_begin(w, id, ts, 8);
    e.p = mon_put_u32(e.p, mon_id32(task));
    e.p = mon_put_u32(e.p, mon_id32(stream));
    mon_ev_end(w, e);
}

static inline void mon_emit_stream_block(mon_writer *w, uint64_t ts, uint64_t task,
                                         uint64_t stream, bool empty)
{
    mon_ev e = mon_ev_begin(w, MON_ID_STREAM_BLOCK, ts, 9);
    e.p = mon_put_u32(e.p, mon_id32(task));
    e.p = mon_put_u32(e.p, mon_id32(stream));
    e.p = mon_put_u8(e.p, empty ? 1 : 0);
    mon_ev_end(w, e);
}

static inline void mon_emit_stream_wake(mon_writer *w, uint64_t ts, uint64_t waker,
                                        uint64_t stream, uint64_t woken)
{
    mon_ev e = mon_ev_begin(w, MON_ID_STREAM_WAKE, ts, 12);
    e.p = mon_put_u32(e.p, mon_id32(waker));
    e.p = mon_put_u32(e.p, mon_id32(stream));
    e.p = mon_put_u32(e.p, mon_id32(woken));
    mon_ev_end(w, e);
}

static inline void mon_emit_message(mon_writer *w, mon_event_id id, uint64_t ts, uint64_t task,
                                    uint64_t msg)
{
    mon_ev e = mon_ev_begin(w, id, ts, 12);
    e.p = mon_put_u32(e.p, mon_id32(task));
    e.p = mon_put_u64(e.p, msg);
    mon_ev_end(w, e);
}

static inline void mon_emit_task_load(mon_writer *w, uint64_t ts, uint64_t task,
                                      uint32_t dispatches, uint64_t exec_ns)
{
    mon_ev e = mon_ev_begin(w, MON_ID_TASK_LOAD, ts, 16);
    e.p = mon_put_u32(e.p, mon_id32(task));
    e.p = mon_put_u32(e.p, dispatches);
    e.p = mon_put_u64(e.p, exec_ns);
    mon_ev_end(w, e);
}

static inline void mon_emit_worker_load(mon_writer *w, uint64_t ts, uint32_t waits,
                                        uint64_t wait_ns, uint64_t busy_ns)
{
    mon_ev e = mon_ev_begin(w, MON_ID_WORKER_LOAD, ts, 20);
    e.p = mon_put_u32(e.p, waits);
    e.p = mon_put_u64(e.p, wait_ns);
    e.p = mon_put_u64(e.p, busy_ns);
    mon_ev_end(w, e);
}

/* message_sent / message_received: a message leaving for / arriving from
 * another rank. */
static inline void mon_emit_transfer(mon_writer *w, mon_event_id id, uint64_t ts, uint64_t task,
                                     uint64_t msg, uint32_t rank)
{
    mon_ev e = mon_ev_begin(w, id, ts, 16);
    e.p = mon_put_u32(e.p, mon_id32(task));
    e.p = mon_put_u64(e.p, msg);
    e.p = mon_put_u32(e.p, rank);
    mon_ev_end(w, e);
}

static inline void mon_emit_channel_open(mon_writer *w, uint64_t ts, uint64_t task,
                                         uint64_t channel, uint32_t rank, bool sends)
{
    mon_ev e = mon_ev_begin(w, MON_ID_CHANNEL_OPEN, ts, 17);
    e.p = mon_put_u32(e.p, mon_id32(task));
    e.p = mon_put_u64(e.p, channel);
    e.p = mon_put_u32(e.p, rank);
    e.p = mon_put_u8(e.p, sends ? 1 : 0);
    mon_ev_end(w, e);
}

static inline void mon_emit_channel_block(mon_writer *w, uint64_t ts, uint64_t task,
                                          uint64_t channel, bool empty)
{
    mon_ev e = mon_ev_begin(w, MON_ID_CHANNEL_BLOCK, ts, 13);
    e.p = mon_put_u32(e.p, mon_id32(task));
    e.p = mon_put_u64(e.p, channel);
    e.p = mon_put_u8(e.p, empty ? 1 : 0);
    mon_ev_end(w, e);
}

#endif /* MON_EMIT_INTERNAL_H */
