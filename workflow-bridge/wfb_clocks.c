/*
 * wfb_clocks.c - the clock alignment of a multi-rank LPEL trace, carried by
 * the graph so that every report of it says how the ranks' clocks were put
 * on one time line and whether a message still arrives before it left
 * (docs/METRICS.md section 10). The figures come from the trace reader
 * (monitor/mon_ranks.c); the bridge only keeps and prints them.
 */
#include "wfb_internal.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void wfb_clock_alignment_free(wfb_clock_alignment *a)
{
    if (!a)
        return;
    free((void *)a->rank);
    free(a);
}

int wfb_graph_set_clock_alignment(wfb_graph *g, const wfb_clock_alignment *a)
{
    wfb_clock_alignment_free(g->clocks);
    g->clocks = NULL;
    if (!a)
        return 0;
    wfb_clock_alignment *c = malloc(sizeof *c);
    wfb_rank_clock *ranks = calloc(a->ranks ? a->ranks : 1, sizeof *ranks);
    if (!c || !ranks) {
        free(c);
        free(ranks);
        return -1;
    }
    *c = *a;
    if (a->ranks)
        memcpy(ranks, a->rank, a->ranks * sizeof *ranks);
    c->rank = ranks;
    g->clocks = c;
    return 0;
}

const wfb_clock_alignment *wfb_graph_clock_alignment(const wfb_graph *g) { return g->clocks; }

json_t *wfb_clock_alignment_json(wfb_json_doc *d, const wfb_clock_alignment *a)
{
    if (!a)
        return json_null();
    json_t *o = json_object(), *ranks = json_array();
    for (size_t i = 0; i < a->ranks; i++) {
        const wfb_rank_clock *r = &a->rank[i];
        json_t *rj = json_object();
        wfb_json_set(d, rj, "rank", json_integer(r->rank));
        wfb_json_set(d, rj, "samples", json_integer(r->samples));
        wfb_json_set(d, rj, "start_sample", json_boolean(r->has_start));
        wfb_json_set(d, rj, "end_sample", json_boolean(r->has_end));
        wfb_json_set(d, rj, "offset_ns", json_real(r->offset_ns));
        wfb_json_set(d, rj, "drift_ppm", json_real(r->drift_ppm));
        wfb_json_set(d, rj, "round_trip_ns", json_real(r->rtt_ns));
        wfb_json_set(d, rj, "max_shift_ns", json_real(r->shift_max_ns));
        wfb_json_append(d, ranks, rj);
    }
    wfb_json_set(d, o, "ranks", ranks);
    wfb_json_set(d, o, "messages", json_integer((json_int_t)a->messages));
    wfb_json_set(d, o, "unmatched_receives", json_integer((json_int_t)a->unmatched));
    wfb_json_set(d, o, "violations_raw", json_integer((json_int_t)a->raw_violations));
    wfb_json_set(d, o, "violations", json_integer((json_int_t)a->violations));
    wfb_json_set(d, o, "worst_violation_ns", json_real(a->worst_ns));
    wfb_json_set(d, o, "receives_moved", json_integer((json_int_t)a->fixed));
    wfb_json_set(d, o, "min_latency_ns", json_real(a->latency_ns));
    wfb_json_set(d, o, "violations_after", json_integer((json_int_t)a->after));
    return o;
}

static void alignment_text(const wfb_clock_alignment *a, FILE *out)
{
    fprintf(out, "Clock alignment of %zu ranks (rank 0's clock is the reference):\n", a->ranks);
    for (size_t i = 1; i < a->ranks; i++) {
        const wfb_rank_clock *r = &a->rank[i];
        if (!r->has_start && !r->has_end) {
            fprintf(out, "  rank %" PRIu32 ": no offset measurement (%u samples): times as "
                         "recorded\n", r->rank, r->samples);
            continue;
        }
        fprintf(out,
                "  rank %" PRIu32 ": offset %+.0f ns, drift %+.3f ppm (%u samples, %s; best "
                "round trip %.0f ns); fix-up up to %.0f ns\n",
                r->rank, r->offset_ns, r->drift_ppm, r->samples,
                r->has_end ? "start and end" : "start only: no drift", r->rtt_ns,
                r->shift_max_ns);
    }
    fprintf(out,
            "  %" PRIu64 " messages between ranks (%" PRIu64 " receives without their send): "
            "received before sent: %" PRIu64 " on the recorded clocks, %" PRIu64
            " after the linear correction (worst %.0f ns); %" PRIu64
            " receives moved to send + %.0f ns; %" PRIu64 " left\n",
            a->messages, a->unmatched, a->raw_violations, a->violations, a->worst_ns, a->fixed,
            a->latency_ns, a->after);
}

int wfb_report_clock_alignment(const wfb_clock_alignment *a, wfb_output fmt, FILE *out)
{
    if (fmt == WFB_OUT_JSON) {
        wfb_json_doc d = {0};
        json_t *o = wfb_clock_alignment_json(&d, a);
        int rc = d.failed ? -1 : json_dumpf(o, out, JSON_COMPACT | JSON_PRESERVE_ORDER);
        json_decref(o);
        return rc || ferror(out) ? -1 : 0;
    }
    if (a)
        alignment_text(a, out);
    return ferror(out) ? -1 : 0;
}
