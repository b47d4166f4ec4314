/*
 * progress_bar.h - a progress bar on a terminal for snetmon's long reads:
 * drawn only when `out` is a tty and the work has taken more than a second.
 * progress_bar_update has the shape of the bridge's import progress
 * callback (wfb_progress_fn), so a bar can be passed to the importers.
 */
#ifndef SNETMON_PROGRESS_BAR_H
#define SNETMON_PROGRESS_BAR_H

#include <stdint.h>
#include <stdio.h>

typedef struct progress_bar {
    FILE *out;
    int enabled, drawn;
    double started;
} progress_bar;

void progress_bar_init(progress_bar *bar, FILE *out);
/* done of total (bytes), or, with total 0, done events read. */
void progress_bar_update(void *bar, uint64_t done, uint64_t total);
/* Clears the bar's line if it was drawn. */
void progress_bar_end(progress_bar *bar);

#endif
