/*
 * export_otf2.h - `snetmon export --otf2`: a trace as an OTF2 archive, the
 * format of Score-P, which Vampir and the other Score-P tools open.
 */
#ifndef SNETMON_EXPORT_OTF2_H
#define SNETMON_EXPORT_OTF2_H

#include <stdint.h>

#include "msg_pairs.h"
#include "trace_input.h"

typedef struct export_otf2_summary {
    unsigned locations;   /* one per worker log */
    uint64_t regions;     /* task kinds, plus "waiting" */
    uint64_t periods;     /* task execution periods: Enter/Leave pairs */
    uint64_t waits;       /* worker waiting periods: Enter/Leave of "waiting" */
} export_otf2_summary;

/* Writes the archive dir/traces.otf2 (with traces.def and traces/) from the
 * second pass over in, whose messages pairs holds (msg_pairs_scan). dir
 * must exist (the caller's temporary directory, renamed into place on
 * success). Returns 0, or 1 after a one-line message "snetmon CMD: ...". */
int export_otf2(trace_input *in, msg_pairs *pairs, const char *dir, const char *cmd,
                export_otf2_summary *summary);

#endif
