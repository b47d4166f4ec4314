/*
 * progress_bar.h - a progress bar on a terminal for the programs' long
 * work (snetmon's reads, the benchmarks' runs): drawn only when `out` is a
 * tty and the work has taken more than a second. progress_bar_update has
 * the shape of the bridge's import progress callback (wfb_progress_fn), so
 * a bar can be passed to the importers.
 */
#ifndef PROG_OPT_PROGRESS_BAR_H
#define PROG_OPT_PROGRESS_BAR_H

#include <stdint.h>
#include <stdio.h>

typedef struct progress_bar {
    FILE *out;
    const char *label; /* printed before the bar, or NULL */
    int enabled, drawn;
    double started;
} progress_bar;

void progress_bar_init(progress_bar *bar, FILE *out);
/* The same, with label (kept, not copied) before the bar: "lpel-bench ctx". */
void progress_bar_init_labelled(progress_bar *bar, FILE *out, const char *label);
/* done of total (bytes, runs), or, with total 0, done events read. */
void progress_bar_update(void *bar, uint64_t done, uint64_t total);
/* Clears the bar's line if it was drawn. */
void progress_bar_end(progress_bar *bar);

#endif
