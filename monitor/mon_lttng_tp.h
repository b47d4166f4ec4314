/*
 * mon_lttng_tp.h - the LTTng-UST tracepoint provider of the benchmark peer
 * (-DMON_LTTNG=ON, bench/monitor/lttng.sh): the monitor's events recorded
 * at the same hook points with LTTng-UST tracepoints instead of our writer,
 * so that the two can be compared per event and per application run. Not
 * a production backend: a build with it writes no trace of ours.
 *
 * One tracepoint per payload shape (the event id is a field): what LTTng
 * costs an event is its buffer reservation and clock read, not the name.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER snet_lpel

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "mon_lttng_tp.h"

#if !defined(MON_LTTNG_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define MON_LTTNG_TP_H

#include <lttng/tracepoint.h>
#include <stdint.h>

LTTNG_UST_TRACEPOINT_EVENT(snet_lpel, e0, LTTNG_UST_TP_ARGS(uint8_t, id),
                           LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(uint8_t, id, id)))

LTTNG_UST_TRACEPOINT_EVENT(snet_lpel, e1, LTTNG_UST_TP_ARGS(uint8_t, id, uint64_t, a),
                           LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(uint8_t, id, id)
                                                   lttng_ust_field_integer(uint64_t, a, a)))

LTTNG_UST_TRACEPOINT_EVENT(snet_lpel, e2, LTTNG_UST_TP_ARGS(uint8_t, id, uint64_t, a, uint64_t, b),
                           LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(uint8_t, id, id)
                                                   lttng_ust_field_integer(uint64_t, a, a)
                                                       lttng_ust_field_integer(uint64_t, b, b)))

LTTNG_UST_TRACEPOINT_EVENT(snet_lpel, e3,
                           LTTNG_UST_TP_ARGS(uint8_t, id, uint64_t, a, uint64_t, b, uint64_t, c),
                           LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(uint8_t, id, id)
                                                   lttng_ust_field_integer(uint64_t, a, a)
                                                       lttng_ust_field_integer(uint64_t, b, b)
                                                           lttng_ust_field_integer(uint64_t, c, c)))

LTTNG_UST_TRACEPOINT_EVENT(snet_lpel, e4,
                           LTTNG_UST_TP_ARGS(uint8_t, id, uint64_t, a, uint64_t, b, uint64_t, c,
                                             uint64_t, d),
                           LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(uint8_t, id, id)
                                                   lttng_ust_field_integer(uint64_t, a, a)
                                                       lttng_ust_field_integer(uint64_t, b, b)
                                                           lttng_ust_field_integer(uint64_t, c, c)
                                                               lttng_ust_field_integer(uint64_t, d,
                                                                                       d)))

LTTNG_UST_TRACEPOINT_EVENT(snet_lpel, named,
                           LTTNG_UST_TP_ARGS(uint8_t, id, uint64_t, a, const char *, name),
                           LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(uint8_t, id, id)
                                                   lttng_ust_field_integer(uint64_t, a, a)
                                                       lttng_ust_field_string(name, name)))

#endif /* MON_LTTNG_TP_H */

#include <lttng/tracepoint-event.h>
