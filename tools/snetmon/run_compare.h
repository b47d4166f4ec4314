/*
 * run_compare.h - comparing runs: two runs side by side (`snetmon compare
 * A B`), and a series of runs along one label (`snetmon compare --series`).
 *
 * Both work on run records (run_record.h), so a stored run and a trace
 * directory compare alike. Matching between runs never uses message or
 * task ids, which mean nothing across runs: LPEL tasks are matched by net
 * path (S2:I3:R0:S1:P0:mc.vcall), by its prefixes (sub-graphs) and by
 * entity kind (mc.vcall, sync, filter); activities by id. Every figure is
 * defined in docs/METRICS.md, section 7.
 */
#ifndef SNETMON_RUN_COMPARE_H
#define SNETMON_RUN_COMPARE_H

#include <stddef.h>
#include <stdio.h>

#include "run_record.h"
#include "wfb.h"

typedef struct cmp_options {
    int depth;  /* sub-graphs: net-path prefixes of at most this many components (default 2) */
    size_t top; /* tasks listed as gaining or losing most (default 5) */
    const char *subgraph; /* activities: also the speedup over the common
                             activities whose id matches this pcre2 pattern */
} cmp_options;

/* The comparison of run A (the baseline) with run B, as text, one JSON
 * object or CSV rows (section,name,figure,a,b,ratio). 0, or -1 with one
 * line in err. */
int run_compare_write(const run_record *a, const run_record *b, const cmp_options *opt,
                      wfb_output fmt, FILE *out, char *err, size_t errlen);

/* One point of a series: the runs whose label has one value. Each figure
 * is the median over those runs (docs/METRICS.md). */
typedef struct series_point {
    char value[256];          /* the label's value */
    size_t runs;
    long long first_id, last_id;
    double throughput_per_s;  /* eq. 1 */
    double latency_median_s, latency_p95_s, latency_p99_s; /* eq. 2 percentiles */
    double wait_s;            /* waiting time of all workers */
    double span_s;
} series_point;

/* The points of recs along label key (a user label or a run field), in
 * order of the values: numerically when every value is a number, else in
 * the order each value was first stored. Runs without the label are left
 * out. *points is malloc'ed. 0, or -1 with one line in err. */
int run_series(const run_record *recs, size_t n, const char *key, series_point **points,
               size_t *n_points, char *err, size_t errlen);

/* The series as a table (text, JSON, CSV). */
int run_series_write(const series_point *p, size_t n, const char *key, wfb_output fmt, FILE *out);

#endif
