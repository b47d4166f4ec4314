/*
 * lpel_bench.c - lpel-bench: micro-benchmarks of the LPEL runtime, each
 * against a pthreads program of the same shape run in the same invocation
 * (the machines are shared and noisy; a ratio measured side by side means
 * more than an absolute time).
 *
 *   ctx     two tasks on one worker yielding to each other: cost of a task switch
 *   ring    K tasks on one worker pass a token around M times through streams
 *   pipe    source, K-2 relays and sink on two workers pass M messages
 *           through streams of 16 slots; --place decides where relays run
 *   create  one task creates N short tasks on its worker: create+run+destroy
 *
 * The timed part runs inside the tasks (first task start to last task end),
 * so starting and joining the worker threads is not counted.
 *
 * Sizes: the defaults finish in seconds, pthreads program included, so a
 * first try never looks hung (a kernel-thread switch costs 10-35 us on a
 * shared VM, a thousand times an LPEL switch); --full takes the sizes of
 * the figures in docs/BENCHMARKS.md. On a terminal a progress bar counts
 * the runs.
 */
#include "bench.h"

#include <lpel.h>
#include <mon.h>
#include <prog_opt.h>
#include <progress_bar.h>

#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum place_mode { PLACE_CONST, PLACE_RR, PLACE_PARTS } place_mode;

typedef struct options {
    const char *bench;
    long tasks, rounds, depth, messages, switches, count;
    size_t capacity;
    place_mode place;
    unsigned workers; /* 0: the benchmark's own default */
    int repeat;
    bool baseline, json, full;
    lpel_hooks hooks;
    bool has_hooks;
    progress_bar bar; /* runs done of runs to do, on a terminal */
    char bar_label[64];
    int runs_done, runs_total;
} options;

/* The sizes not given on the command line (0): the quick defaults, or with
 * --full those of docs/BENCHMARKS.md. */
static void default_sizes(options *o)
{
    if (!o->tasks)
        o->tasks = o->full ? 1000 : 100;
    if (!o->rounds)
        o->rounds = 1000;
    if (!o->depth)
        o->depth = 100;
    if (!o->messages)
        o->messages = o->full ? 100000 : 10000;
    if (!o->switches)
        o->switches = o->full ? 10000000 : 1000000;
    if (!o->count)
        o->count = o->full ? 1000000 : 100000;
}

/* The pthreads program's ctx switches: a hundredth of LPEL's, since each
 * costs a thousand times as much (the figure is per switch either way),
 * but never fewer than 10^4 (or all of them), so that starting the two
 * threads stays a small part of it. */
static long baseline_switches(const options *o)
{
    if (o->switches <= 10000)
        return o->switches;
    return o->switches / 100 > 10000 ? o->switches / 100 : 10000;
}

/* One more run done (the bar appears after the first second). */
static void run_done(options *o)
{
    progress_bar_update(&o->bar, (uint64_t)++o->runs_done, (uint64_t)o->runs_total);
}

/* Times recorded by the tasks themselves: wall clock and process CPU. */
typedef struct timing {
    double start, end;
    double cpu_start, cpu_end;
} timing;

static void timing_start(timing *t)
{
    t->cpu_start = bench_cpu_ns();
    t->start = bench_now_ns();
}

static void timing_end(timing *t)
{
    t->end = bench_now_ns();
    t->cpu_end = bench_cpu_ns();
}

/* One run's result: elapsed wall and CPU nanoseconds. */
typedef struct sample {
    double wall, cpu;
} sample;

static sample elapsed(const timing *t)
{
    return (sample){t->end - t->start, t->cpu_end - t->cpu_start};
}

/* ---- running one configuration ------------------------------------------ */

static lpel_runtime *new_runtime(const options *o, unsigned workers)
{
    lpel_config cfg = lpel_config_default();
    cfg.num_workers = workers;
    if (o->has_hooks)
        cfg.hooks = &o->hooks;
    lpel_runtime *rt;
    char err[256];
    if (lpel_runtime_create(&rt, &cfg, err, sizeof err) != LPEL_OK) {
        fprintf(stderr, "lpel-bench: cannot create the runtime: %s\n", err);
        exit(1);
    }
    return rt;
}

static void spawn_or_die(lpel_runtime *rt, const char *name, int worker, lpel_task_fn fn,
                         void *arg)
{
    lpel_task_attr attr = {.name = name, .stack_size = 64 * 1024, .worker = worker};
    if (lpel_task_create(rt, &attr, fn, arg) <= 0) {
        fprintf(stderr, "lpel-bench: cannot create task %s: %s\n", name,
                lpel_runtime_error(rt));
        exit(1);
    }
}

static void run_or_die(lpel_runtime *rt)
{
    int rc = lpel_run(rt);
    if (rc != LPEL_OK) {
        fprintf(stderr, "lpel-bench: run failed: %s\n", lpel_strerror(rc));
        exit(1);
    }
    lpel_runtime_destroy(rt);
}

/* ---- ctx ------------------------------------------------------------------ */

typedef struct ctx_bench {
    long yields_each;
    timing t;
    atomic_int finished;
} ctx_bench;

static void ctx_task(void *arg)
{
    ctx_bench *b = arg;
    if (b->t.start == 0)
        timing_start(&b->t);
    for (long i = 0; i < b->yields_each; i++)
        lpel_task_yield();
    if (atomic_fetch_add(&b->finished, 1) == 1)
        timing_end(&b->t);
}

static sample lpel_ctx(const options *o)
{
    ctx_bench b = {.yields_each = o->switches / 2};
    lpel_runtime *rt = new_runtime(o, 1);
    spawn_or_die(rt, "ctx.a", 0, ctx_task, &b);
    spawn_or_die(rt, "ctx.b", 0, ctx_task, &b);
    run_or_die(rt);
    return elapsed(&b.t);
}

/* ---- ring ----------------------------------------------------------------- */

typedef struct ring_bench {
    lpel_stream **links;
    long tasks, rounds;
    timing t;
} ring_bench;

typedef struct ring_member {
    ring_bench *ring;
    long index;
} ring_member;

static void ring_task(void *arg)
{
    ring_member *m = arg;
    ring_bench *r = m->ring;
    lpel_stream *in = r->links[m->index];
    lpel_stream *out = r->links[(m->index + 1) % r->tasks];
    static char token;
    if (m->index == 0) {
        /* Neither the first lap nor the last is timed: the first is where
         * every task first runs and maps its stack, the last where every
         * other task ends and gives its stack back (task creation and
         * destruction have their own benchmark). At 10^4 tasks x 100
         * rounds the ends were a third of the time timed. */
        lpel_stream_write(out, &token);
        for (long i = 0; i < r->rounds - 1; i++) {
            void *item = lpel_stream_read(in);
            if (i == 0)
                timing_start(&r->t);
            else if (i == r->rounds - 2)
                timing_end(&r->t);
            lpel_stream_write(out, item);
        }
        lpel_stream_read(in);
    } else {
        for (long i = 0; i < r->rounds; i++)
            lpel_stream_write(out, lpel_stream_read(in));
    }
    lpel_stream_close(out, LPEL_STREAM_WRITE);
    lpel_stream_close(in, LPEL_STREAM_READ);
}

static sample lpel_ring(const options *o)
{
    lpel_runtime *rt = new_runtime(o, 1);
    ring_bench r = {.tasks = o->tasks, .rounds = o->rounds};
    r.links = calloc((size_t)o->tasks, sizeof *r.links);
    ring_member *members = calloc((size_t)o->tasks, sizeof *members);
    for (long i = 0; i < o->tasks; i++)
        r.links[i] = lpel_stream_create(rt, o->capacity);
    char name[32];
    for (long i = 0; i < o->tasks; i++) {
        members[i] = (ring_member){&r, i};
        snprintf(name, sizeof name, "ring.%ld", i);
        spawn_or_die(rt, name, 0, ring_task, &members[i]);
    }
    run_or_die(rt);
    free(r.links);
    free(members);
    return elapsed(&r.t);
}

/* ---- pipe ----------------------------------------------------------------- */

typedef struct pipe_bench {
    lpel_stream **links; /* depth - 1 of them */
    long depth, messages;
    timing t;
} pipe_bench;

typedef struct pipe_stage {
    pipe_bench *pipe;
    long index;
} pipe_stage;

static void pipe_task(void *arg)
{
    pipe_stage *s = arg;
    pipe_bench *p = s->pipe;
    lpel_stream *in = s->index > 0 ? p->links[s->index - 1] : NULL;
    lpel_stream *out = s->index < p->depth - 1 ? p->links[s->index] : NULL;
    if (!in) { /* source */
        timing_start(&p->t);
        for (long i = 0; i < p->messages; i++)
            lpel_stream_write(out, (void *)(uintptr_t)(i + 1));
        lpel_stream_close(out, LPEL_STREAM_WRITE);
        return;
    }
    void *item;
    while ((item = lpel_stream_read(in)) != NULL)
        if (out)
            lpel_stream_write(out, item);
    if (out)
        lpel_stream_close(out, LPEL_STREAM_WRITE);
    else
        timing_end(&p->t); /* sink */
    lpel_stream_close(in, LPEL_STREAM_READ);
}

/* Where stage i of depth runs: the source on worker 0 and the sink on
 * worker 1 always; the relays as --place says. */
static int pipe_worker(place_mode mode, long i, long depth)
{
    if (i == 0)
        return 0;
    if (i == depth - 1)
        return 1;
    switch (mode) {
    case PLACE_CONST: return 0;
    case PLACE_RR: return (int)(i % 2);
    default: return i < depth / 2 ? 0 : 1;
    }
}

static sample lpel_pipe(const options *o)
{
    lpel_runtime *rt = new_runtime(o, o->workers ? o->workers : 2);
    pipe_bench p = {.depth = o->depth, .messages = o->messages};
    p.links = calloc((size_t)o->depth - 1, sizeof *p.links);
    pipe_stage *stages = calloc((size_t)o->depth, sizeof *stages);
    for (long i = 0; i < o->depth - 1; i++)
        p.links[i] = lpel_stream_create(rt, o->capacity);
    char name[32];
    for (long i = 0; i < o->depth; i++) {
        stages[i] = (pipe_stage){&p, i};
        snprintf(name, sizeof name, i == 0 ? "pipe.source" : i == o->depth - 1 ? "pipe.sink"
                                                                              : "pipe.relay%ld",
                 i);
        spawn_or_die(rt, name, pipe_worker(o->place, i, o->depth), pipe_task, &stages[i]);
    }
    run_or_die(rt);
    free(p.links);
    free(stages);
    return elapsed(&p.t);
}

/* ---- create --------------------------------------------------------------- */

typedef struct create_bench {
    long count;
    atomic_long finished;
    timing t;
} create_bench;

static void short_task(void *arg)
{
    create_bench *c = arg;
    if (atomic_fetch_add_explicit(&c->finished, 1, memory_order_relaxed) == c->count - 1)
        timing_end(&c->t);
}

static void creator_task(void *arg)
{
    create_bench *c = arg;
    lpel_task_attr attr = {.name = "short", .stack_size = 0,
                           .worker = (int)lpel_task_worker(lpel_task_self())};
    timing_start(&c->t);
    for (long i = 0; i < c->count; i++) {
        if (lpel_task_create(NULL, &attr, short_task, c) <= 0)
            abort();
        if (i % 64 == 63)
            lpel_task_yield(); /* let them run, so stacks are reused */
    }
}

static sample lpel_create(const options *o)
{
    create_bench c = {.count = o->count};
    lpel_runtime *rt = new_runtime(o, 1);
    spawn_or_die(rt, "creator", 0, creator_task, &c);
    run_or_die(rt);
    return elapsed(&c.t);
}

/* ---- reporting ------------------------------------------------------------ */

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct stats {
    double median, min, max;
    double cpu_median; /* CPU time per unit */
} stats;

static double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, compare_doubles);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static stats measure(sample (*fn)(const options *), options *o, double units)
{
    double *wall = calloc((size_t)o->repeat, sizeof *wall);
    double *cpu = calloc((size_t)o->repeat, sizeof *cpu);
    for (int i = 0; i < o->repeat; i++) {
        sample x = fn(o);
        wall[i] = x.wall / units;
        cpu[i] = x.cpu / units;
        run_done(o);
    }
    stats s;
    s.median = median_of(wall, o->repeat);
    s.min = wall[0];
    s.max = wall[o->repeat - 1];
    s.cpu_median = median_of(cpu, o->repeat);
    free(wall);
    free(cpu);
    return s;
}

static double baseline_median(double (*fn)(const options *), options *o, double units)
{
    double *v = calloc((size_t)o->repeat, sizeof *v);
    for (int i = 0; i < o->repeat; i++) {
        v[i] = fn(o) / units;
        run_done(o);
    }
    double m = median_of(v, o->repeat);
    free(v);
    return m;
}

static double pt_ctx(const options *o) { return bench_pthreads_ctx(baseline_switches(o)); }
static double pt_ring(const options *o) { return bench_pthreads_ring(o->tasks, o->rounds); }
static double pt_pipe(const options *o) { return bench_pthreads_pipe(o->depth, o->messages, o->capacity); }
static double pt_create(const options *o) { return bench_pthreads_create(o->count / 10); }

static const char *place_name(place_mode m)
{
    return m == PLACE_CONST ? "const" : m == PLACE_RR ? "rr" : "parts";
}

static void report(const options *o, const char *unit_name, const char *rate_name, stats s,
                   double baseline, const char *params_json, const char *params_text)
{
    double rate = 1e9 / s.median;
    if (o->json) {
        printf("{\"bench\":\"%s\",%s,\"repeat\":%d,\"%s\":%.3f,\"min_%s\":%.3f,\"max_%s\":%.3f,"
               "\"cpu_%s\":%.3f",
               o->bench, params_json, o->repeat, unit_name, s.median, unit_name, s.min,
               unit_name, s.max, unit_name, s.cpu_median);
        if (rate_name)
            printf(",\"%s\":%.4g", rate_name, rate);
        printf(",\"monitoring\":%s", o->has_hooks ? "true" : "false");
        if (baseline > 0)
            printf(",\"baseline_%s\":%.3f,\"speedup_vs_pthreads\":%.2f", unit_name, baseline,
                   baseline / s.median);
        printf("}\n");
        return;
    }
    printf("%s (%s, %d run%s, monitoring %s)\n", o->bench, params_text, o->repeat,
           o->repeat == 1 ? "" : "s", o->has_hooks ? "on" : "off");
    printf("  lpel:     %10.2f %s (median; min %.2f, max %.2f; CPU time %.2f)", s.median,
           unit_name, s.min, s.max, s.cpu_median);
    if (rate_name)
        printf("  = %.3g %s", rate, rate_name);
    printf("\n");
    if (baseline > 0)
        printf("  pthreads: %10.2f %s (median)  -> lpel is %.1fx faster\n", baseline, unit_name,
               baseline / s.median);
}

static void run_bench(options *o)
{
    char pj[256], pt[256];
    o->runs_total = o->repeat * (o->baseline ? 2 : 1);
    snprintf(o->bar_label, sizeof o->bar_label, "lpel-bench %s", o->bench);
    progress_bar_init_labelled(&o->bar, stderr, o->bar_label);
    if (!strcmp(o->bench, "ctx")) {
        stats s = measure(lpel_ctx, o, (double)o->switches);
        double b = o->baseline ? baseline_median(pt_ctx, o, (double)baseline_switches(o)) : 0;
        progress_bar_end(&o->bar);
        snprintf(pj, sizeof pj, "\"switches\":%ld,\"baseline_switches\":%ld", o->switches,
                 o->baseline ? baseline_switches(o) : 0);
        snprintf(pt, sizeof pt, "%ld switches, pthreads %ld", o->switches,
                 o->baseline ? baseline_switches(o) : 0);
        report(o, "ns_per_switch", "switches_per_s", s, b, pj, pt);
    } else if (!strcmp(o->bench, "ring")) {
        /* Timed from the end of the first lap to the start of the last
         * (see ring_task). */
        double hops = (double)o->tasks * (double)(o->rounds - 2);
        stats s = measure(lpel_ring, o, hops);
        double b = o->baseline ? baseline_median(pt_ring, o, hops) : 0;
        progress_bar_end(&o->bar);
        snprintf(pj, sizeof pj, "\"tasks\":%ld,\"rounds\":%ld,\"hops\":%.0f", o->tasks, o->rounds, hops);
        snprintf(pt, sizeof pt, "%ld tasks, %ld rounds", o->tasks, o->rounds);
        report(o, "ns_per_hop", "hops_per_s", s, b, pj, pt);
    } else if (!strcmp(o->bench, "pipe")) {
        double hops = (double)o->messages * (double)(o->depth - 1);
        stats s = measure(lpel_pipe, o, hops);
        double b = o->baseline ? baseline_median(pt_pipe, o, hops) : 0;
        progress_bar_end(&o->bar);
        snprintf(pj, sizeof pj,
                 "\"depth\":%ld,\"messages\":%ld,\"capacity\":%zu,\"place\":\"%s\",\"hops\":%.0f",
                 o->depth, o->messages, o->capacity, place_name(o->place), hops);
        snprintf(pt, sizeof pt, "depth %ld, %ld messages, %zu slots, place %s", o->depth,
                 o->messages, o->capacity, place_name(o->place));
        report(o, "ns_per_hop", "hops_per_s", s, b, pj, pt);
    } else {
        stats s = measure(lpel_create, o, (double)o->count);
        double b = o->baseline ? baseline_median(pt_create, o, (double)(o->count / 10)) : 0;
        progress_bar_end(&o->bar);
        snprintf(pj, sizeof pj, "\"count\":%ld", o->count);
        snprintf(pt, sizeof pt, "%ld tasks", o->count);
        report(o, "ns_per_task", "tasks_per_s", s, b, pj, pt);
    }
}

/* ---- command line --------------------------------------------------------- */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: lpel-bench ctx|ring|pipe|create [options]\n"
            "\n"
            "Micro-benchmarks of the LPEL runtime, each beside a pthreads program of\n"
            "the same shape measured in the same invocation. The default sizes finish in\n"
            "seconds; --full takes those of docs/BENCHMARKS.md (seconds per --repeat; ring\n"
            "with its 1000-thread pthreads program half a minute).\n"
            "On a terminal a progress bar counts the runs.\n"
            "\n"
            "  ctx      two tasks on one worker yield to each other (ns per switch)\n"
            "  ring     K tasks on one worker pass a token M times round (ns per hop,\n"
            "           timed from the end of the first lap to the start of the\n"
            "           last: M >= 3)\n"
            "  pipe     source, K-2 relays and a sink on two workers pass M messages\n"
            "  create   one task creates N tasks on its worker (ns per create+destroy)\n"
            "\n"
            "options:\n"
            "  --full           the full sizes (below in brackets) for every size not given\n"
            "  --ring-size K    ring size (default 100; --full 1000)\n"
            "  --rounds M       ring rounds (default 1000)\n"
            "  --stages K       pipe stages including source and sink (default 100)\n"
            "  --messages M     pipe messages (default 10000; --full 100000)\n"
            "  --capacity N     stream slots (default 16)\n"
            "  --place P        pipe relays: const (all on worker 0), rr (alternating),\n"
            "                   parts (two contiguous halves; default)\n"
            "  --switches N     ctx switches (default 1000000; --full 10000000; the\n"
            "                   pthreads program takes N/100, at least 10000)\n"
            "  --creates N      create: tasks (default 100000; --full 1000000; the\n"
            "                   pthreads program takes N/10)\n"
            "  --workers N      pipe workers (default 2)\n"
            "  --repeat R       runs to take the median of (default 1)\n"
            "  --no-baseline    skip the pthreads program (a 1000-thread ring takes ~30 s)\n"
            "  --json           print one JSON object\n"
            MON_OPTIONS_HELP
            "  -h, --help, --version\n"
            "\n"
            "examples:\n"
            "  lpel-bench ctx --repeat 5          median of 5 runs of each, a few seconds\n"
            "  lpel-bench ring --full --no-baseline --json\n");
}

static long parse_count(const char *flag, const char *value, long min)
{
    char *end;
    errno = 0;
    long v = value ? strtol(value, &end, 10) : 0;
    if (!value || errno || *end || v < min) {
        fprintf(stderr, "lpel-bench: %s expects a whole number >= %ld, got '%s'\n", flag, min,
                value ? value : "(nothing)");
        exit(2);
    }
    return v;
}

enum {
    OPT_NO_BASELINE = PROG_OPT_OWN,
    OPT_JSON,
    OPT_FULL,
    OPT_RING_SIZE,
    OPT_ROUNDS,
    OPT_STAGES,
    OPT_MESSAGES,
    OPT_CAPACITY,
    OPT_SWITCHES,
    OPT_CREATES,
    OPT_WORKERS,
    OPT_REPEAT,
    OPT_PLACE,
    /* old spellings (tools/snetmon/cli.h's table of flags): a warning each */
    OPT_TASKS_OLD,
    OPT_COUNT_OLD,
    OPT_DEPTH_OLD
};

/* One option with a number (or --place) as its value. */
static void take_value(options *o, int c, const char *v)
{
    switch (c) {
    case OPT_RING_SIZE: o->tasks = parse_count("--ring-size", v, 2); break;
    case OPT_TASKS_OLD: o->tasks = parse_count("--tasks", v, 2); break;
    case OPT_ROUNDS: o->rounds = parse_count("--rounds", v, 3); break;
    case OPT_STAGES: o->depth = parse_count("--stages", v, 2); break;
    case OPT_DEPTH_OLD: o->depth = parse_count("--depth", v, 2); break;
    case OPT_MESSAGES: o->messages = parse_count("--messages", v, 1); break;
    case OPT_CAPACITY: o->capacity = (size_t)parse_count("--capacity", v, 1); break;
    case OPT_SWITCHES: o->switches = parse_count("--switches", v, 2); break;
    case OPT_CREATES: o->count = parse_count("--creates", v, 10); break;
    case OPT_COUNT_OLD: o->count = parse_count("--count", v, 10); break;
    case OPT_WORKERS: o->workers = (unsigned)parse_count("--workers", v, 2); break;
    case OPT_REPEAT: o->repeat = (int)parse_count("--repeat", v, 1); break;
    default: /* OPT_PLACE */
        if (!strcmp(v, "const")) o->place = PLACE_CONST;
        else if (!strcmp(v, "rr")) o->place = PLACE_RR;
        else if (!strcmp(v, "parts")) o->place = PLACE_PARTS;
        else {
            fprintf(stderr, "lpel-bench: --place expects const, rr or parts, got '%s'\n", v);
            exit(2);
        }
    }
}

static void parse_options(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        PROG_OPT_STANDARD,
        {"no-baseline", no_argument, NULL, OPT_NO_BASELINE},
        {"json", no_argument, NULL, OPT_JSON},
        {"full", no_argument, NULL, OPT_FULL},
        {"ring-size", required_argument, NULL, OPT_RING_SIZE},
        {"rounds", required_argument, NULL, OPT_ROUNDS},
        {"stages", required_argument, NULL, OPT_STAGES},
        {"messages", required_argument, NULL, OPT_MESSAGES},
        {"capacity", required_argument, NULL, OPT_CAPACITY},
        {"switches", required_argument, NULL, OPT_SWITCHES},
        {"creates", required_argument, NULL, OPT_CREATES},

        {"workers", required_argument, NULL, OPT_WORKERS},
        {"repeat", required_argument, NULL, OPT_REPEAT},
        {"place", required_argument, NULL, OPT_PLACE},
        {"tasks", required_argument, NULL, OPT_TASKS_OLD},
        {"count", required_argument, NULL, OPT_COUNT_OLD},
        {"depth", required_argument, NULL, OPT_DEPTH_OLD},
        {NULL, 0, NULL, 0}};
    static const char *const old_spellings[][2] = {{"--tasks K", "--ring-size K"},
                                                   {"--count N", "--creates N"},
                                                   {"--depth K", "--stages K"}};
    prog_opt p;
    prog_opt_begin(&p, "lpel-bench", argc, argv);
    for (int c; (c = prog_opt_next(&p, "h", longopts)) != -1;) {
        if (c == 'h') {
            usage(stdout);
            exit(0);
        } else if (c == PROG_OPT_VERSION) {
            exit(prog_opt_version(&p));
        } else if (c == OPT_NO_BASELINE) {
            o->baseline = false;
        } else if (c == OPT_JSON) {
            o->json = true;
        } else if (c == OPT_FULL) {
            o->full = true;
        } else if (c >= OPT_RING_SIZE && c <= OPT_DEPTH_OLD) {
            if (c >= OPT_TASKS_OLD)
                prog_opt_deprecated(&p, old_spellings[c - OPT_TASKS_OLD][0],
                                    old_spellings[c - OPT_TASKS_OLD][1]);
            take_value(o, c, optarg);
        } else {
            exit(2);
        }
    }
    if (prog_opt_npositional(&p) != 1) {
        usage(stderr);
        exit(2);
    }
    o->bench = prog_opt_positional(&p)[0];

    if (strcmp(o->bench, "ctx") && strcmp(o->bench, "ring") && strcmp(o->bench, "pipe") &&
        strcmp(o->bench, "create")) {
        fprintf(stderr, "lpel-bench: unknown benchmark '%s' (expected ctx, ring, pipe or create)\n",
                o->bench);
        exit(2);
    }
}

int main(int argc, char **argv)
{
    options o = {.capacity = 16, .place = PLACE_PARTS, .repeat = 1, .baseline = true};
    mon_options mo;
    char err[512];
    if (mon_parse_args(&argc, argv, &mo, err, sizeof err) != 0) {
        fprintf(stderr, "lpel-bench: %s\n", err);
        return 2;
    }
    parse_options(argc, argv, &o);
    default_sizes(&o);
    mon *m = NULL;
    if (mon_open(&m, &mo, argc, argv, &o.hooks, err, sizeof err) != 0) {
        fprintf(stderr, "lpel-bench: %s\n", err);
        return 1;
    }
    o.has_hooks = mon_lpel_hooks(m) != NULL;
    if (o.has_hooks && o.repeat > 1) {
        fprintf(stderr, "lpel-bench: with -m, --repeat must be 1 (one trace per run)\n");
        return 2;
    }
    run_bench(&o);
    return mon_close(m) == 0 ? 0 : 1;
}
