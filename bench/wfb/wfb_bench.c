/*
 * wfb_bench.c - benchmark of the workflow bridge: JSONL import rate, and the
 * time and memory of building a graph and computing both critical paths on
 * generated DAGs of 10^4 .. 10^7 vertices.
 *
 * One measurement per process, so that peak memory (ru_maxrss) belongs to
 * one graph size; docs/benchmarks/bridge.md shows how runs are repeated and
 * their medians taken.
 *
 *   wfb-bench wcp N [DEGREE]   N activities, each with DEGREE parents (2)
 *   wfb-bench jsonl N FILE     write N events to FILE, then time importing it
 *   wfb-bench lift N           N messages through the LPEL lifter
 */
#include "prog_opt.h"
#include "wfb.h"
#include "mon_reader.h" /* synthetic traces go in as the reader's events */

#define WFB_NS(s) ((uint64_t)llround((s)*1e9))

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double peak_rss_mb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0;
}

/* A small deterministic generator (xorshift64*), state owned by the caller. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 2685821657736338717ull;
}

/* Activities v0..vN-1; each vi (i > 0) gets up to `degree` parents among the
 * previous 1000, and times consistent with them (start after the latest
 * parent end plus a random gap). */
static int build_dag(wfb_graph *g, size_t n, int degree, double *end_times)
{
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    char id[32];
    for (size_t i = 0; i < n; i++) {
        int len = snprintf(id, sizeof id, "v%zu", i);
        uint32_t v = wfb_vertex_ref(g, id, (size_t)len, 0);
        if (v == WFB_NONE)
            return -1;
        wfb_vertex_define(g, v, WFB_VERTEX_ACTIVITY, 0);
        double start = 0;
        for (int k = 0; k < degree && i > 0; k++) {
            size_t window = i < 1000 ? i : 1000;
            uint32_t p = (uint32_t)(i - 1 - next_random(&rng) % window);
            if (wfb_edge_add(g, p, v, WFB_EDGE_DEPEND, 0.0, 0) == WFB_NONE)
                return -1;
            start = fmax(start, end_times[p]);
        }
        start += (double)(next_random(&rng) % 1000) * 1e-3;
        double dur = 1.0 + (double)(next_random(&rng) % 10000) * 1e-3;
        end_times[i] = start + dur;
        if (wfb_vertex_set_time(g, v, WFB_T_ACTIVE, start) ||
            wfb_vertex_set_time(g, v, WFB_T_END, start + dur))
            return -1;
    }
    return 0;
}

static int bench_wcp(size_t n, int degree)
{
    double *end_times = malloc(n * sizeof *end_times);
    wfb_graph *g = wfb_graph_new();
    wfb_error err;
    double t0 = now_s();
    if (!end_times || !g || build_dag(g, n, degree, end_times)) {
        fprintf(stderr, "out of memory building the graph\n");
        return 1;
    }
    free(end_times);
    double t1 = now_s();
    if (wfb_graph_finish(g, &err)) {
        wfb_error_print(&err, stderr);
        return 1;
    }
    double t2 = now_s();
    wfb_path lp, ae;
    if (wfb_longest_path(g, &lp, &err))
        return 1;
    double t3 = now_s();
    if (wfb_as_executed_path(g, &ae, &err))
        return 1;
    double t4 = now_s();
    size_t ne = wfb_edge_count(g);
    printf("wcp vertices=%zu edges=%zu build_s=%.4f finish_s=%.4f longest_s=%.4f "
           "as_executed_s=%.4f analysis_s=%.4f graph_mb=%.1f peak_rss_mb=%.1f "
           "bytes_per_edge=%.1f path_len=%zu/%zu\n",
           wfb_vertex_count(g), ne, t1 - t0, t2 - t1, t3 - t2, t4 - t3, t4 - t1,
           (double)wfb_graph_bytes(g) / 1048576.0, peak_rss_mb(),
           (double)wfb_graph_bytes(g) / (double)(ne ? ne : 1), lp.n, ae.n);
    wfb_path_free(&lp);
    wfb_path_free(&ae);
    wfb_graph_free(g);
    return 0;
}

/* n events: n/3 data states, the rest mutations chaining them. */
static int write_events(size_t n, const char *path)
{
    FILE *out = fopen(path, "w");
    if (!out)
        return -1;
    wfb_emitter *em = wfb_emit_open(out);
    size_t states = n / 3 + 1;
    uint64_t rng = 42;
    char a[32], b[32];
    for (size_t i = 0; i < states; i++) {
        snprintf(a, sizeof a, "d%zu", i);
        wfb_emit_data(em, a, (double)i * 0.5, 1024, "producer", "w0", NULL);
    }
    for (size_t i = 1; i < states; i++) {
        snprintf(b, sizeof b, "d%zu", i);
        size_t p1 = i - 1, p2 = i - 1 - next_random(&rng) % (i < 100 ? i : 100);
        snprintf(a, sizeof a, "d%zu", p1);
        wfb_emit_mutation(em, WFB_EDGE_CONVERT, a, b, 0.25, "box");
        snprintf(a, sizeof a, "d%zu", p2);
        wfb_emit_mutation(em, WFB_EDGE_MERGE, a, b, 0.25, "box");
    }
    int rc = wfb_emit_close(em);
    return fclose(out) || rc ? -1 : 0;
}

static int bench_jsonl(size_t n, const char *path)
{
    if (write_events(n, path)) {
        fprintf(stderr, "cannot write %s\n", path);
        return 1;
    }
    FILE *in = fopen(path, "r");
    wfb_graph *g = wfb_graph_new();
    wfb_error err;
    double t0 = now_s();
    if (!in || wfb_import_jsonl(g, in, path, NULL, &err)) {
        wfb_error_print(&err, stderr);
        return 1;
    }
    double t1 = now_s();
    fclose(in);
    size_t events = wfb_vertex_count(g) + wfb_edge_count(g);
    printf("jsonl events=%zu import_s=%.3f events_per_s=%.0f peak_rss_mb=%.1f\n", events,
           t1 - t0, (double)events / (t1 - t0), peak_rss_mb());
    wfb_graph_free(g);
    return 0;
}

/* A pipeline of two tasks on two workers: source writes, box converts. */
static int bench_lift(size_t n)
{
    wfb_graph *g = wfb_graph_new();
    wfb_lifter *l = wfb_lifter_new(g);
    wfb_error err;
    double t0 = now_s();
    size_t events = 0;
    for (size_t i = 0; i < n; i++) {
        double t = (double)i * 1e-6;
        mon_event evs[] = {
            {.kind = MON_EV_MESSAGE_WRITTEN, .time = WFB_NS(t), .worker = 0, .task = 1, .msg = 2 * i},
            {.kind = MON_EV_COMPONENT_BEGIN, .time = WFB_NS(t), .worker = 1, .task = 2},
            {.kind = MON_EV_MESSAGE_READ, .time = WFB_NS(t), .worker = 1, .task = 2, .msg = 2 * i},
            {.kind = MON_EV_MESSAGE_WRITTEN, .time = WFB_NS(t + 5e-7), .worker = 1, .task = 2,
             .msg = 2 * i + 1},
            {.kind = MON_EV_COMPONENT_END, .time = WFB_NS(t + 5e-7), .worker = 1, .task = 2},
        };
        for (size_t k = 0; k < sizeof evs / sizeof evs[0]; k++, events++)
            if (wfb_lifter_feed_mon(l, &evs[k], &err)) {
                wfb_error_print(&err, stderr);
                return 1;
            }
    }
    if (wfb_lifter_finish(l, &err)) {
        wfb_error_print(&err, stderr);
        return 1;
    }
    double t1 = now_s();
    printf("lift events=%zu lift_s=%.3f events_per_s=%.0f vertices=%zu edges=%zu "
           "peak_rss_mb=%.1f\n",
           events, t1 - t0, (double)events / (t1 - t0), wfb_vertex_count(g), wfb_edge_count(g),
           peak_rss_mb());
    wfb_graph_free(g);
    return 0;
}

static void usage(FILE *out)
{
    fprintf(out, "usage: wfb-bench wcp N [DEGREE] | jsonl N FILE | lift N   (-h, --version)\n");
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {PROG_OPT_STANDARD, {NULL, 0, NULL, 0}};
    prog_opt p;
    prog_opt_begin(&p, "wfb-bench", argc, argv);
    for (int c; (c = prog_opt_next(&p, "h", longopts)) != -1;) {
        if (c == 'h')
            return usage(stdout), 0;
        if (c == PROG_OPT_VERSION)
            return prog_opt_version(&p);
        return usage(stderr), 2;
    }
    int n = prog_opt_npositional(&p);
    char **a = prog_opt_positional(&p);
    if (n >= 2 && !strcmp(a[0], "wcp"))
        return bench_wcp(strtoull(a[1], NULL, 10), n > 2 ? atoi(a[2]) : 2);
    if (n >= 3 && !strcmp(a[0], "jsonl"))
        return bench_jsonl(strtoull(a[1], NULL, 10), a[2]);
    if (n >= 2 && !strcmp(a[0], "lift"))
        return bench_lift(strtoull(a[1], NULL, 10));
    usage(stderr);
    return 2;
}
