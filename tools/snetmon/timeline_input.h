/*
 * timeline_input.h - a trace's events into the visualiser's utilisation
 * timeline: the one adapter from the monitor's reader to viz_timeline,
 * shared by `snetmon render` (the image) and `snetmon report` (the HTML
 * report's timeline), so both draw the same periods and name the same
 * columns (one per worker; "r1.w0" per (rank, worker) of a multi-rank
 * trace).
 */
#ifndef SNETMON_TIMELINE_INPUT_H
#define SNETMON_TIMELINE_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mon_reader.h"
#include "viz.h"

/* Task and stream ids restart with each run (docs/LOGFORMAT.md): after the
 * first run they are told apart by the run in their high bits (mon_run_key,
 * which keeps the rank bits of a multi-rank trace's ids). */
uint64_t timeline_run_key(const mon_event *ev, uint64_t id);

/* One reading of a trace into a timeline: the timeline, and the workers of
 * a multi-rank trace whose columns have been labelled so far. */
typedef struct timeline_feeder {
    viz_timeline *tl;
    bool *labelled; /* [n_labelled], by mon_event.worker */
    size_t n_labelled;
} timeline_feeder;

static inline timeline_feeder timeline_feeder_make(viz_timeline *tl)
{
    return (timeline_feeder){tl, NULL, 0};
}

/* One monitor event -> one viz_timeline call (events the timeline does not
 * draw are skipped); a worker of a multi-rank trace is labelled "rR.wW" by
 * its first event. VIZ_OK or the viz status (viz_timeline_error). */
int timeline_feed(timeline_feeder *f, const mon_event *ev);

void timeline_feeder_free(timeline_feeder *f);

#endif
