/*
 * mon_lttng_internal.h - the benchmark peer's emitters: with -DMON_LTTNG=ON
 * mon_hooks.c includes this after the writer's header, and every event its
 * hooks record goes to an LTTng-UST tracepoint (mon_lttng_tp.h) instead of
 * our writer: the same events, at the same hook points, with the same
 * selection, so that bench/monitor/lttng.sh compares only the recording.
 * LTTng reads its clock for every event, so the hooks' own readings are
 * left out in this build (mon_hooks.c, now_ticks).
 */
#ifndef MON_LTTNG_INTERNAL_H
#define MON_LTTNG_INTERNAL_H

#include "mon_lttng_tp.h"

/* A statement: lttng_ust_tracepoint is one (do ... while (0)). */
#define MON_TP(shape, ...) lttng_ust_tracepoint(snet_lpel, shape, __VA_ARGS__)
#define MON_LT(w, ts, shape, ...)                                                              \
    do {                                                                                       \
        (void)(w);                                                                             \
        (void)(ts);                                                                            \
        MON_TP(shape, __VA_ARGS__);                                                            \
    } while (0)

#define mon_emit_bare(w, id, ts) MON_LT(w, ts, e0, (uint8_t)(id))
#define mon_emit_task(w, id, ts, task) MON_LT(w, ts, e1, (uint8_t)(id), (task))
#define mon_emit_task_block(w, ts, task, cause)                                                \
    MON_LT(w, ts, e2, MON_ID_TASK_BLOCK, (task), (cause))
#define mon_emit_stream_mode(w, id, ts, task, stream, write_end)                               \
    MON_LT(w, ts, e3, (uint8_t)(id), (task), (stream), (write_end))
#define mon_emit_stream_io(w, id, ts, task, stream)                                            \
    MON_LT(w, ts, e2, (uint8_t)(id), (task), (stream))
#define mon_emit_stream_block(w, ts, task, stream, empty)                                      \
    MON_LT(w, ts, e3, MON_ID_STREAM_BLOCK, (task), (stream), (empty))
#define mon_emit_stream_wake(w, ts, waker, stream, woken)                                      \
    MON_LT(w, ts, e3, MON_ID_STREAM_WAKE, (waker), (stream), (woken))
#define mon_emit_message(w, id, ts, task, msg)                                                 \
    MON_LT(w, ts, e2, (uint8_t)(id), (task), (msg))
#define mon_emit_task_load(w, ts, task, dispatches, exec_ns)                                   \
    MON_LT(w, ts, e3, MON_ID_TASK_LOAD, (task), (dispatches), (exec_ns))
#define mon_emit_worker_load(w, ts, waits, wait_ns, busy_ns)                                   \
    MON_LT(w, ts, e3, MON_ID_WORKER_LOAD, (waits), (wait_ns), (busy_ns))
#define mon_emit_transfer(w, id, ts, task, msg, rank)                                          \
    MON_LT(w, ts, e3, (uint8_t)(id), (task), (msg), (rank))
#define mon_emit_channel_open(w, ts, task, channel, rank, sends)                               \
    MON_LT(w, ts, e4, MON_ID_CHANNEL_OPEN, (task), (channel), (rank), (sends))
#define mon_emit_channel_block(w, ts, task, channel, empty)                                    \
    MON_LT(w, ts, e3, MON_ID_CHANNEL_BLOCK, (task), (channel), (empty))
#define mon_emit_cpu_time(w, ts, cpu_ns, preemptions)                                         \
    MON_LT(w, ts, e2, MON_ID_CPU_TIME, (cpu_ns), (preemptions))
static inline const char *mon_lttng_str(const char *s) { return s ? s : ""; }

#define mon_emit_task_map(w, ts, task, name)                                                   \
    MON_LT(w, ts, named, MON_ID_TASK_MAP, (task), mon_lttng_str(name))
#define mon_emit_control(w, ts, flags, tasks)                                                  \
    MON_LT(w, ts, named, MON_ID_MONITOR_CONTROL, (flags), mon_lttng_str(tasks))

#endif /* MON_LTTNG_INTERNAL_H */
