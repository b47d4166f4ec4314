/*
 * viz_bench.c - how long the worker-utilisation image takes to render, and
 * how much memory it needs, as the trace grows: 10^5, 10^6, 10^7 events
 * (optionally 10^8). Never run as a test.
 *
 * Events are generated (deterministically) for 4 workers: execution periods
 * of 50 ns..5 us, occasional waits, one or two message marks per period, in
 * time order per worker, interleaved across workers as a trace reader would
 * deliver them. One measurement = create the timeline, feed every event,
 * write the PNG; it runs in a fresh child process so that the child's peak
 * resident set (ru_maxrss from wait4) is that measurement's peak memory.
 * The baseline is the first 10^5 events of the same stream, measured in the
 * same run, so the ratios do not depend on the machine's speed. A zoomed
 * render (a 1% window, full detail) of the largest size is measured too.
 */
#include "prog_opt.h"
#include "viz.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WORKERS 4
#define MAX_SIZES 8

typedef struct generator {
    uint64_t state[WORKERS];
    viz_time now[WORKERS];
    int pending_marks[WORKERS];
    viz_time period_start[WORKERS], period_end[WORKERS];
} generator;

typedef struct measurement {
    double seconds;
    long peak_kib;
} measurement;

static uint64_t next_random(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

static void generator_init(generator *g)
{
    memset(g, 0, sizeof *g);
    for (int w = 0; w < WORKERS; w++)
        g->state[w] = 0x9e3779b97f4a7c15ULL * (uint64_t)(w + 1);
}

/* One generated event. */
typedef struct bench_event {
    enum { EV_PERIOD, EV_WAIT, EV_MESSAGE } kind;
    int worker;
    uint64_t task;
    viz_time start, end;
    viz_period_end how;
    viz_message_dir dir;
} bench_event;

/* The next event of worker w: message marks of the current period first,
 * then the next period or wait. */
static bench_event next_event(generator *g, int w)
{
    uint64_t *s = &g->state[w];
    bench_event ev = {.worker = w};
    if (g->pending_marks[w] > 0) {
        g->pending_marks[w]--;
        viz_time span = g->period_end[w] - g->period_start[w];
        ev.kind = EV_MESSAGE;
        ev.start = g->period_start[w] + (viz_time)(next_random(s) % (uint64_t)(span + 1));
        ev.dir = g->pending_marks[w] % 2 ? VIZ_MSG_READ : VIZ_MSG_WRITTEN;
        return ev;
    }
    viz_time gap = 20 + (viz_time)(next_random(s) % 200);
    ev.start = g->now[w] + gap;
    if (next_random(s) % 8 == 0) {
        ev.kind = EV_WAIT;
        ev.end = ev.start + 500 + (viz_time)(next_random(s) % 20000);
        g->now[w] = ev.end;
        return ev;
    }
    ev.kind = EV_PERIOD;
    ev.task = (uint64_t)w * 16 + next_random(s) % 16;
    ev.end = ev.start + 50 + (viz_time)(next_random(s) % 4950);
    ev.how = (viz_period_end)(ev.task % 4);
    g->now[w] = ev.end;
    g->period_start[w] = ev.start;
    g->period_end[w] = ev.end;
    g->pending_marks[w] = 1 + (int)(next_random(s) % 2);
    return ev;
}

static int feed_event(viz_timeline *tl, const bench_event *ev)
{
    switch (ev->kind) {
    case EV_PERIOD:
        return viz_timeline_add_period(tl, ev->worker, ev->task, ev->start, ev->end, ev->how);
    case EV_WAIT:
        return viz_timeline_add_wait(tl, ev->worker, ev->start, ev->end);
    default:
        return viz_timeline_add_message(tl, ev->worker, ev->start, ev->dir);
    }
}

static void print_event(FILE *out, const bench_event *ev)
{
    switch (ev->kind) {
    case EV_PERIOD:
        fprintf(out, "run %d %llu %lld %lld %s\n", ev->worker, (unsigned long long)ev->task,
                (long long)ev->start, (long long)ev->end, viz_period_end_token(ev->how));
        break;
    case EV_WAIT:
        fprintf(out, "wait %d %lld %lld\n", ev->worker, (long long)ev->start, (long long)ev->end);
        break;
    default:
        fprintf(out, "%s %d %lld\n", ev->dir == VIZ_MSG_READ ? "read" : "write", ev->worker,
                (long long)ev->start);
    }
}

static int generate_event(generator *g, viz_timeline *tl, int w)
{
    bench_event ev = next_event(g, w);
    return feed_event(tl, &ev);
}

static void declare_tasks(viz_timeline *tl)
{
    static const char *const kinds[] = {"mc.gen", "mc.sim", "mc.acc", "mc.out"};
    for (uint64_t t = 0; t < WORKERS * 16; t++) {
        char name[64];
        snprintf(name, sizeof name, "S%llu:P%llu:%s", (unsigned long long)(t % 4 + 1),
                 (unsigned long long)(t / 4), kinds[t % 4]);
        viz_timeline_add_task(tl, t, name, NULL);
    }
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Writes the first events of the stream in the text timeline format. */
static int write_text_timeline(const char *path, long long events)
{
    static const char *const kinds[] = {"mc.gen", "mc.sim", "mc.acc", "mc.out"};
    FILE *out = fopen(path, "w");
    if (!out)
        return -1;
    for (uint64_t t = 0; t < WORKERS * 16; t++)
        fprintf(out, "task %llu %llu S%llu:P%llu:%s\n", (unsigned long long)t,
                (unsigned long long)(t / 16), (unsigned long long)(t % 4 + 1),
                (unsigned long long)(t / 4), kinds[t % 4]);
    generator g;
    generator_init(&g);
    for (long long i = 0; i < events; i++) {
        bench_event ev = next_event(&g, (int)(i % WORKERS));
        print_event(out, &ev);
    }
    return fclose(out) == 0 ? 0 : -1;
}

/* The text path, as "snetmon render FILE" runs it. */
static int render_text(const char *input, const char *out)
{
    viz_timeline_config cfg = {.width = 1200, .height = 900};
    viz_timeline *tl;
    char err[256];
    if (viz_timeline_create(&tl, &cfg, err, sizeof err) != VIZ_OK)
        return 1;
    FILE *in = fopen(input, "r");
    int rc = in ? viz_read_timeline_text(in, input, tl, NULL, NULL, err, sizeof err) : VIZ_EIO;
    if (in)
        fclose(in);
    if (rc == VIZ_OK)
        rc = viz_timeline_render(tl, out);
    if (rc != VIZ_OK)
        fprintf(stderr, "viz-bench: %s\n", err);
    viz_timeline_destroy(tl);
    return rc == VIZ_OK ? 0 : 1;
}

/* The work measured, run in the child: exit status 0 on success. */
static int render_events(long long events, bool zoom, viz_time zoom_to, const char *out)
{
    if (events < 0) /* startup only: the process and libraries, nothing drawn */
        return 0;
    viz_timeline_config cfg = {.width = 1200, .height = 900};
    if (zoom) {
        cfg.has_window = true;
        cfg.from = zoom_to - zoom_to / 100;
        cfg.to = zoom_to;
    }
    viz_timeline *tl;
    char err[256];
    if (viz_timeline_create(&tl, &cfg, err, sizeof err) != VIZ_OK) {
        fprintf(stderr, "viz-bench: %s\n", err);
        return 1;
    }
    if (zoom)
        viz_timeline_set_origin(tl, 0);
    declare_tasks(tl);
    generator g;
    generator_init(&g);
    for (long long i = 0; i < events; i++) {
        if (generate_event(&g, tl, (int)(i % WORKERS)) != VIZ_OK) {
            fprintf(stderr, "viz-bench: %s\n", viz_timeline_error(tl));
            return 1;
        }
    }
    int rc = viz_timeline_render(tl, out);
    if (rc != VIZ_OK)
        fprintf(stderr, "viz-bench: %s\n", viz_timeline_error(tl));
    viz_timeline_destroy(tl);
    return rc == VIZ_OK ? 0 : 1;
}

/* One measurement in a fresh child process. */
static int measure(long long events, bool zoom, viz_time zoom_to, const char *out,
                   measurement *m, const char *text_input)
{
    double start = now_seconds();
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0)
        _exit(text_input ? render_text(text_input, out) : render_events(events, zoom, zoom_to, out));
    int status;
    struct rusage usage;
    if (wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
        return -1;
    m->seconds = now_seconds() - start;
    m->peak_kib = usage.ru_maxrss;
    return 0;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int compare_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return x < y ? -1 : x > y;
}

/* Median over runs of time and of peak memory. */
static int measure_median(long long events, bool zoom, viz_time zoom_to, const char *out,
                          int runs, measurement *median, const char *text_input)
{
    double seconds[64];
    long peaks[64];
    for (int r = 0; r < runs; r++) {
        measurement m;
        if (measure(events, zoom, zoom_to, out, &m, text_input) != 0) {
            fprintf(stderr, "viz-bench: run with %lld events failed\n", events);
            return -1;
        }
        seconds[r] = m.seconds;
        peaks[r] = m.peak_kib;
    }
    qsort(seconds, (size_t)runs, sizeof *seconds, compare_double);
    qsort(peaks, (size_t)runs, sizeof *peaks, compare_long);
    median->seconds = seconds[runs / 2];
    median->peak_kib = peaks[runs / 2];
    return 0;
}

/* The time the generator reaches after events events (for the zoom). */
static viz_time stream_end(long long events)
{
    viz_timeline *tl;
    char err[64];
    viz_timeline_config cfg = {.width = 400, .height = 300};
    if (viz_timeline_create(&tl, &cfg, err, sizeof err) != VIZ_OK)
        return 1;
    generator g;
    generator_init(&g);
    for (long long i = 0; i < events; i++)
        generate_event(&g, tl, (int)(i % WORKERS));
    viz_timeline_stats s;
    viz_timeline_get_stats(tl, &s);
    viz_timeline_destroy(tl);
    return s.last;
}

static void usage(FILE *out)
{
    fprintf(out, "usage: viz-bench [--repeat N (5)] [--max EVENTS (1e7; 1e8 adds a row)] "
                 "[-o|--output DIR (.)] [-h|--help] [--version]\n");
}

int main(int argc, char **argv)
{
    int runs = 5;
    double max_events = 1e7;
    const char *dir = ".";
    /* --runs and --out: the old spellings (tools/snetmon/cli.h's table). */
    enum { OPT_REPEAT = PROG_OPT_OWN, OPT_MAX, OPT_RUNS_OLD, OPT_OUT_OLD };
    static const struct option longopts[] = {PROG_OPT_STANDARD,
                                              {"repeat", required_argument, NULL, OPT_REPEAT},
                                              {"max", required_argument, NULL, OPT_MAX},
                                              {"output", required_argument, NULL, 'o'},
                                              {"runs", required_argument, NULL, OPT_RUNS_OLD},
                                              {"out", required_argument, NULL, OPT_OUT_OLD},
                                              {NULL, 0, NULL, 0}};
    prog_opt p;
    prog_opt_begin(&p, "viz-bench", argc, argv);
    for (int c; (c = prog_opt_next(&p, "ho:", longopts)) != -1;) {
        if (c == OPT_RUNS_OLD)
            prog_opt_deprecated(&p, "--runs N", "--repeat N");
        else if (c == OPT_OUT_OLD)
            prog_opt_deprecated(&p, "--out DIR", "--output DIR");
        if (c == 'h')
            return usage(stdout), 0;
        else if (c == PROG_OPT_VERSION)
            return prog_opt_version(&p);
        else if (c == OPT_REPEAT || c == OPT_RUNS_OLD)
            runs = atoi(optarg);
        else if (c == OPT_MAX)
            max_events = atof(optarg);
        else if (c == 'o' || c == OPT_OUT_OLD)
            dir = optarg;
        else
            return usage(stderr), 2;
    }
    if (prog_opt_npositional(&p) > 0 || runs < 1 || runs > 64 || max_events < 1e5) {
        usage(stderr);
        return 2;
    }
    long long sizes[MAX_SIZES] = {0};
    int n = 0;
    for (double e = 1e5; e <= max_events * 1.0001 && n < MAX_SIZES; e *= 10)
        sizes[n++] = (long long)e;
    char out[512];
    snprintf(out, sizeof out, "%s/viz-bench.png", dir);

    measurement base, startup;
    if (measure_median(sizes[0], false, 0, out, runs, &base, NULL) != 0 ||
        measure_median(-1, false, 0, out, runs, &startup, NULL) != 0)
        return 1;
    printf("| events | render time (s) | peak RSS (MiB) | time / baseline | memory / baseline |\n");
    printf("|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < n; i++) {
        measurement m = base;
        if (i > 0 && measure_median(sizes[i], false, 0, out, runs, &m, NULL) != 0)
            return 1;
        printf("| %lld | %.3f | %.1f | %.1f | %.2f |\n", sizes[i], m.seconds, m.peak_kib / 1024.0,
               m.seconds / base.seconds, (double)m.peak_kib / (double)base.peak_kib);
        fflush(stdout);
    }
    long long largest = sizes[n - 1];
    viz_time end = stream_end(largest);
    measurement zoom;
    if (measure_median(largest, true, end, out, runs, &zoom, NULL) != 0)
        return 1;
    printf("| %lld, zoom to last 1%% | %.3f | %.1f | %.1f | %.2f |\n", largest, zoom.seconds,
           zoom.peak_kib / 1024.0, zoom.seconds / base.seconds,
           (double)zoom.peak_kib / (double)base.peak_kib);
    /* the text format, as the CLI reads it (file written once, not timed) */
    char text[512];
    snprintf(text, sizeof text, "%s/viz-bench.tl", dir);
    for (long long events = 100000; events <= 1000000 && events <= largest; events *= 10) {
        measurement m;
        if (write_text_timeline(text, events) != 0 ||
            measure_median(events, false, 0, out, runs, &m, text) != 0)
            return 1;
        printf("| %lld, text format | %.3f | %.1f | %.1f | %.2f |\n", events, m.seconds,
               m.peak_kib / 1024.0, m.seconds / base.seconds,
               (double)m.peak_kib / (double)base.peak_kib);
    }
    remove(text);
    printf("| startup only (no events, no image) | %.3f | %.1f | | |\n", startup.seconds,
           startup.peak_kib / 1024.0);
    printf("\nbaseline: the first 10^5 events of the same stream; median of %d runs each; "
           "image 1200x900 PNG; %d workers\n",
           runs, WORKERS);
    return 0;
}
