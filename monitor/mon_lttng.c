/*
 * mon_lttng.c - the probes of the LTTng-UST benchmark peer's tracepoints
 * (mon_lttng_tp.h), compiled only with -DMON_LTTNG=ON.
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "mon_lttng_tp.h"
