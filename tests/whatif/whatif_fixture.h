/*
 * whatif_fixture.h - hand-made traces for the what-if tests, each a run
 * whose replay and predictions are worked out on paper in whatif_fixture.c:
 * as the events the trace reader would deliver (for the library's tests,
 * in memory) and as a trace directory written through the monitor's own
 * writer (for the command-line tests).
 */
#ifndef WHATIF_FIXTURE_H
#define WHATIF_FIXTURE_H

#include "mon_reader.h"

#include <stddef.h>

/* The traces (times in microseconds; every worker starts at 0):
 *   "pipeline"      src -> A (100 us an item, worker 0) -> B (40 us, worker
 *                   1) -> sink, 4 items: A sets the pace; B is the faster
 *                   stage, and making it faster gains nothing
 *   "forkjoin"      src sends one item to each of three branches of 100,
 *                   200 and 300 us on workers 1-3, a join reads all three:
 *                   only the slowest branch matters, and only down to the
 *                   next slowest
 *   "shared"        two independent stages A and B of 4 x 100 us on one
 *                   worker: making either faster shortens the run, because
 *                   the other waits for the worker
 *   "backpressure"  P writes 6 items (10 us each) into a stream of 2 slots
 *                   read by C (100 us each) on another worker; when P is
 *                   done, D (400 us, P's worker) starts: P's end, and so D,
 *                   wait for C's reads
 *   "tworuns"       "pipeline" twice (whatif refuses it: one run only)
 */
typedef struct whatif_fixture {
    mon_event *ev; /* in the reader's merged order */
    size_t n;
    unsigned workers;
} whatif_fixture;

/* The events of trace `name`: 0, or -1 (unknown name, out of memory). */
int whatif_fixture_make(const char *name, whatif_fixture *out);
void whatif_fixture_free(whatif_fixture *f);

/* The same trace written into dir (created): 0 or -1. */
int whatif_fixture_write(const char *name, const char *dir);

#endif
