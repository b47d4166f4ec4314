/*
 * timeline_input.h - a trace's events into the visualiser's utilisation
 * timeline: the one adapter from the monitor's reader to viz_timeline,
 * shared by `snetmon render` (the image) and `snetmon report` (the HTML
 * report's timeline), so both draw the same periods.
 */
#ifndef SNETMON_TIMELINE_INPUT_H
#define SNETMON_TIMELINE_INPUT_H

#include <stdint.h>

#include "mon_reader.h"
#include "viz.h"

/* Task and stream ids restart with each run (docs/LOGFORMAT.md): after the
 * first run they are told apart by the run in their high bits. */
uint64_t timeline_run_key(const mon_event *ev, uint64_t id);

/* One monitor event -> one viz_timeline call (events the timeline does not
 * draw are skipped). VIZ_OK or the viz status (viz_timeline_error). */
int timeline_feed(viz_timeline *tl, const mon_event *ev);

#endif
