/*
 * snet_bench.c - snet-bench: what the S-Net layer costs on top of LPEL.
 *
 *   pipeline  M records through 10 identity boxes (input task, 10 boxes,
 *             output task), against a raw LPEL pipe of the same shape
 *             (source, 10 relays, sink passing integers) in the same run:
 *             records/s of each and their ratio. --box reuse (default):
 *             the box emits its input record (snet_out(h, in)); --box new:
 *             it takes the field into a new record, as boxes did before
 *             snet_record_reuse
 *   star      one record unfolds a star A * {<done>} N times (N replicas
 *             created on demand, each a box and a stage task): replicas/s
 *             and the process's peak resident memory
 *   c4snet    the pipeline with C4SNet boxes (runtime/c4snet: called
 *             by their declared signature, C4SNetOut, reference-counted
 *             data) against the same pipeline with native boxes, in the
 *             same run, runs interleaved: boxes that pass their field on,
 *             and boxes that make a new value (x + 1) per record; the
 *             native boxes update their input record (--box reuse,
 *             default) or build new ones (--box new)
 *
 * Each measurement is repeated (--repeat R) and the median reported (as
 * one JSON object with --json, pipeline only); with
 * -m FLAGS --mon-dir DIR both sides run monitored (mon1), so running once without
 * and once with -m gives the monitoring overhead. Times are wall-clock
 * around the run (worker start and stop included, on both sides alike).
 * --side raw|snet runs one side of the pipeline only, so that a run under
 * callgrind counts that side's instructions (bench/snet/ir-per-record.sh).
 *
 * The default sizes finish in seconds (10^5 records, 10^4 replicas); --full
 * takes the sizes of docs/benchmarks/snet.md (10^6, 10^5). On a terminal a
 * progress bar counts the runs.
 */
#include <c4snet_runtime.h>
#include <lpel.h>
#include <snet.h>
#include <mon.h>
#include <prog_opt.h>
#include <progress_bar.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

typedef struct options {
    const char *bench;
    long messages, replicas;
    int repeat;
    unsigned workers;
    bool json;
    const char *side; /* pipeline: "both", "raw" or "snet" (counting instructions per side) */
    bool new_records; /* --box new: native boxes build new records rather than reuse */
    const lpel_hooks *hooks;
    bool full;         /* --full: the sizes not given are those of docs/benchmarks/snet.md */
    progress_bar *bar; /* runs done of --repeat, on a terminal */
} options;

/* Run i (from 0) of --repeat is done; after the last the bar's line is
 * cleared for the results. */
static void run_done(const options *o, int i)
{
    progress_bar_update(o->bar, (uint64_t)i + 1, (uint64_t)o->repeat);
    if (i + 1 == o->repeat)
        progress_bar_end(o->bar);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU seconds of the whole process: on a busy machine this leaves out the
 * time the workers waited for a core. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A rate measured both ways: per wall second and per CPU second. */
typedef struct rate {
    double wall, cpu;
} rate;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#define STAGES 10

/* ---- raw LPEL pipe ------------------------------------------------------------------ */

typedef struct raw_pipe {
    lpel_stream *links[STAGES + 1];
    long messages, received;
} raw_pipe;

typedef struct raw_stage {
    raw_pipe *p;
    int index; /* 0 source, 1..STAGES relays, STAGES+1 sink */
} raw_stage;

static void raw_task(void *arg)
{
    raw_stage *s = arg;
    raw_pipe *p = s->p;
    if (s->index == 0) {
        for (long i = 1; i <= p->messages; i++)
            lpel_stream_write(p->links[0], (void *)(intptr_t)i);
        lpel_stream_close(p->links[0], LPEL_STREAM_WRITE);
    } else if (s->index <= STAGES) {
        lpel_stream *in = p->links[s->index - 1], *out = p->links[s->index];
        lpel_stream_open(out, LPEL_STREAM_WRITE);
        for (void *item; (item = lpel_stream_read(in)) != NULL;)
            lpel_stream_write(out, item);
        lpel_stream_close(in, LPEL_STREAM_READ);
        lpel_stream_close(out, LPEL_STREAM_WRITE);
    } else {
        for (void *item; (item = lpel_stream_read(p->links[STAGES])) != NULL;)
            p->received++;
        lpel_stream_close(p->links[STAGES], LPEL_STREAM_READ);
    }
}

static rate raw_pipe_rate(const options *o)
{
    lpel_config cfg = lpel_config_default();
    cfg.num_workers = o->workers;
    cfg.hooks = o->hooks;
    lpel_runtime *rt;
    char err[256];
    if (lpel_runtime_create(&rt, &cfg, err, sizeof err) != LPEL_OK) {
        fprintf(stderr, "snet-bench: %s\n", err);
        exit(1);
    }
    raw_pipe p = {.messages = o->messages};
    raw_stage stages[STAGES + 2];
    for (int i = 0; i <= STAGES; i++)
        p.links[i] = lpel_stream_create(rt, 0);
    for (int i = 0; i < STAGES + 2; i++) {
        char name[32];
        snprintf(name, sizeof name, "raw%d", i);
        stages[i] = (raw_stage){&p, i};
        lpel_task_attr attr = {.name = name, .stack_size = 0, .worker = LPEL_ANY_WORKER};
        lpel_task_create(rt, &attr, raw_task, &stages[i]);
    }
    double c0 = cpu_now(), t0 = now();
    int rc = lpel_run(rt);
    double t = now() - t0, c = cpu_now() - c0;
    lpel_runtime_destroy(rt);
    if (rc != LPEL_OK || p.received != o->messages) {
        fprintf(stderr, "snet-bench: raw pipe failed (%d, %ld received)\n", rc, p.received);
        exit(1);
    }
    return (rate){(double)o->messages / t, (double)o->messages / c};
}

/* ---- S-Net pipeline ------------------------------------------------------------------- */

/* The identity box as written with snet_record_reuse: the input goes on. */
static int forward(snet_handle *h, snet_record *in) { return snet_out(h, in); }

/* ... and as written without: the field taken into a new record. */
static int identity(snet_handle *h, snet_record *in)
{
    snet_record *out = snet_record_new();
    snet_record_set_field(out, "x", &snet_field_int, snet_record_take_field(in, "x"));
    return snet_out(h, out);
}

typedef struct source {
    long next, n;
    bool c4snet; /* x as C4SNet data rather than a native int */
} source;

static snet_record *next_record(void *user)
{
    source *s = user;
    if (s->next >= s->n)
        return NULL;
    snet_record *r = snet_record_new();
    if (s->c4snet) {
        int v = (int)s->next++;
        snet_record_set_field(r, "x", &c4snet_field, C4SNetCreate(CTYPE_int, 1, &v));
    } else {
        snet_record_set_int(r, "x", s->next++);
    }
    return r;
}

typedef struct sink {
    long count;
} sink;

static void take(void *user, snet_record *r)
{
    ((sink *)user)->count++;
    snet_record_free(r);
}

/* Run net over the source; returns the wall and CPU seconds the run took. */
static rate run_snet(const options *o, const snet_net *net, source *src, sink *dst)
{
    snet_config cfg = snet_config_default();
    cfg.lpel.num_workers = o->workers;
    cfg.lpel.hooks = o->hooks;
    snet_run *run;
    char err[512];
    if (snet_run_create(&run, net, &cfg, err, sizeof err) != SNET_OK) {
        fprintf(stderr, "snet-bench: %s\n", err);
        exit(1);
    }
    snet_run_set_input_fn(run, next_record, src);
    snet_run_set_output_fn(run, take, dst);
    double c0 = cpu_now(), t0 = now();
    int rc = snet_run_execute(run);
    double t = now() - t0, c = cpu_now() - c0;
    if (rc != SNET_OK) {
        fprintf(stderr, "snet-bench: run failed: %s\n", snet_run_error(run));
        exit(1);
    }
    snet_run_destroy(run);
    return (rate){t, c};
}

static rate snet_pipe_rate(const options *o)
{
    snet_box_fn fn = o->new_records ? identity : forward;
    snet_net *net = snet_box("id1", "{x} -> {x}", fn, NULL);
    for (int i = 2; i <= STAGES; i++) {
        char name[16];
        snprintf(name, sizeof name, "id%d", i);
        net = snet_serial(net, snet_box(name, "{x} -> {x}", fn, NULL));
    }
    source src = {0, o->messages, false};
    sink dst = {0};
    rate t = run_snet(o, net, &src, &dst);
    snet_net_free(net);
    if (dst.count != o->messages) {
        fprintf(stderr, "snet-bench: %ld of %ld records came out\n", dst.count, o->messages);
        exit(1);
    }
    return (rate){(double)o->messages / t.wall, (double)o->messages / t.cpu};
}

/* One side only (--side raw|snet): a run under callgrind then counts the
 * instructions of that side alone; two runs with different --messages give
 * the exact instructions per record, whatever the machine's load. */
static int bench_one_side(const options *o)
{
    bool raw = !strcmp(o->side, "raw");
    double rates[64];
    for (int i = 0; i < o->repeat; i++) {
        rates[i] = raw ? raw_pipe_rate(o).wall : snet_pipe_rate(o).wall;
        run_done(o, i);
    }
    printf("pipeline, %s side only: %d stages, %ld records, %d runs (median)\n", o->side, STAGES,
           o->messages, o->repeat);
    printf("  %s %12.0f %s/s\n", raw ? "raw lpel pipe " : "snet pipeline ",
           median(rates, o->repeat), raw ? "msgs" : "records");
    return 0;
}

static int bench_pipeline(const options *o)
{
    double raw[64], sn[64], ratio[64], cpu_ratio[64];
    if (strcmp(o->side, "both"))
        return bench_one_side(o);
    for (int i = 0; i < o->repeat; i++) {
        rate r = raw_pipe_rate(o), n = snet_pipe_rate(o);
        raw[i] = r.wall;
        sn[i] = n.wall;
        ratio[i] = n.wall / r.wall;
        cpu_ratio[i] = n.cpu / r.cpu;
        run_done(o, i);
    }
    if (o->json) {
        printf("{\"bench\":\"pipeline\",\"box\":\"%s\",\"stages\":%d,\"messages\":%ld,"
               "\"workers\":%u,\"repeat\":%d,\"raw_per_s\":%.0f,\"snet_per_s\":%.0f,\"ratio_pct\":%.2f,"
               "\"cpu_ratio_pct\":%.2f}\n",
               o->new_records ? "new" : "reuse", STAGES, o->messages,
               o->workers ? o->workers : lpel_core_count(), o->repeat,
               median(raw, o->repeat), median(sn, o->repeat), 100 * median(ratio, o->repeat),
               100 * median(cpu_ratio, o->repeat));
        return 0;
    }
    printf("pipeline: %d stages, %ld records, %d runs (median), boxes %s\n", STAGES, o->messages,
           o->repeat, o->new_records ? "build new records" : "reuse their input");
    printf("  raw lpel pipe  %12.0f msgs/s\n", median(raw, o->repeat));
    printf("  snet pipeline  %12.0f records/s\n", median(sn, o->repeat));
    printf("  ratio snet/raw %12.1f %%  (median of per-run ratios)\n",
           100 * median(ratio, o->repeat));
    printf("  same, CPU time %12.1f %%  (records per CPU second)\n",
           100 * median(cpu_ratio, o->repeat));
    return 0;
}

/* ---- C4SNet boxes against native boxes ---------------------------------------------------- */

static int native_inc(snet_handle *h, snet_record *in)
{
    (void)in; /* it is out */
    snet_record *out = snet_record_reuse(h);
    snet_record_set_int(out, "x", snet_record_int(out, "x") + 1);
    return snet_out(h, out);
}

static int native_inc_new(snet_handle *h, snet_record *in)
{
    snet_record *out = snet_record_new();
    snet_record_set_int(out, "x", snet_record_int(in, "x") + 1);
    return snet_out(h, out);
}

/* The same boxes as an original C4SNet box library writes them. */
static void *c4_pass(void *hnd, c4snet_data_t *x)
{
    C4SNetOut(hnd, 1, x);
    return hnd;
}

static void *c4_inc(void *hnd, c4snet_data_t *x)
{
    int v = *(int *)C4SNetGetData(x) + 1;
    C4SNetFree(x);
    C4SNetOut(hnd, 1, C4SNetCreate(CTYPE_int, 1, &v));
    return hnd;
}

static c4snet_box *c4_box(const char *name, void (*fn)(void))
{
    c4snet_box *cb;
    char err[256];
    if (c4snet_box_new(&cb, name, fn, "{x} -> {x}", err, sizeof err) != SNET_OK) {
        fprintf(stderr, "snet-bench: %s\n", err);
        exit(1);
    }
    return cb;
}

/* STAGES boxes {x} -> {x} in a row: fn, or (if c4) the C4SNet function c4
 * with a description per box, as snetrun makes them (kept in cbs). */
static snet_net *box_pipe(snet_box_fn fn, void (*c4)(void), c4snet_box **cbs)
{
    snet_net *net = NULL;
    for (int i = 1; i <= STAGES; i++) {
        char name[16];
        snprintf(name, sizeof name, "b%d", i);
        snet_net *b;
        if (c4) {
            cbs[i - 1] = c4_box(name, c4);
            b = snet_box(name, "{x} -> {x}", c4snet_box_call, cbs[i - 1]);
        } else {
            b = snet_box(name, "{x} -> {x}", fn, NULL);
        }
        net = net ? snet_serial(net, b) : b;
    }
    return net;
}

static double pipe_rate(const options *o, const snet_net *net, bool c4snet)
{
    source src = {0, o->messages, c4snet};
    sink dst = {0};
    rate t = run_snet(o, net, &src, &dst);
    if (dst.count != o->messages) {
        fprintf(stderr, "snet-bench: %ld of %ld records came out\n", dst.count, o->messages);
        exit(1);
    }
    return (double)o->messages / t.wall;
}

static int bench_c4snet(const options *o)
{
    c4snet_box *cbs[2][STAGES];
    snet_net *nets[4] = {box_pipe(o->new_records ? identity : forward, NULL, NULL),
                         box_pipe(NULL, (void (*)(void))c4_pass, cbs[0]),
                         box_pipe(o->new_records ? native_inc_new : native_inc, NULL, NULL),
                         box_pipe(NULL, (void (*)(void))c4_inc, cbs[1])};
    double rates[4][64] = {{0}}, ratio[2][64];
    /* --side native|c4snet: one kind only (instruction counts, callgrind) */
    bool want[2] = {strcmp(o->side, "c4snet") != 0, strcmp(o->side, "native") != 0};
    for (int i = 0; i < o->repeat; i++) {
        for (int k = 0; k < 4; k++)
            rates[k][i] = want[k % 2] ? pipe_rate(o, nets[k], k % 2 == 1) : 1;
        ratio[0][i] = rates[1][i] / rates[0][i];
        ratio[1][i] = rates[3][i] / rates[2][i];
        run_done(o, i);
    }
    for (int k = 0; k < 4; k++)
        snet_net_free(nets[k]);
    for (int i = 0; i < STAGES; i++) {
        c4snet_box_free(cbs[0][i]);
        c4snet_box_free(cbs[1][i]);
    }
    printf("c4snet: %d-box pipelines, %ld records, %d interleaved runs (median), native boxes "
           "%s\n", STAGES, o->messages, o->repeat,
           o->new_records ? "build new records" : "reuse their input");
    const char *shape[2] = {"field passed on", "new value (x+1)"};
    for (int j = 0; j < 2; j++) {
        printf("  %s: native %10.0f records/s, C4SNet %10.0f records/s, C4SNet/native %5.1f %%\n",
               shape[j], median(rates[2 * j], o->repeat), median(rates[2 * j + 1], o->repeat),
               100 * median(ratio[j], o->repeat));
    }
    return 0;
}

/* ---- star unfolding --------------------------------------------------------------------- */

static int countdown(snet_handle *h, snet_record *in)
{
    long n = snet_record_tag(in, "n");
    snet_record *out = snet_record_new();
    if (n <= 1)
        snet_record_set_tag(out, "done", 1);
    else
        snet_record_set_tag(out, "n", n - 1);
    return snet_out(h, out);
}

typedef struct one_record {
    long n;
    bool sent;
} one_record;

static snet_record *deep_record(void *user)
{
    one_record *s = user;
    if (s->sent)
        return NULL;
    s->sent = true;
    snet_record *r = snet_record_new();
    snet_record_set_tag(r, "n", s->n);
    return r;
}

static int bench_star(const options *o)
{
    double rates[64];
    snet_net *net = snet_star(snet_box("cd", "{<n>} -> {<n>} | {<done>}", countdown, NULL),
                              "{<done>}");
    for (int i = 0; i < o->repeat; i++) {
        snet_config cfg = snet_config_default();
        cfg.lpel.num_workers = o->workers;
        cfg.lpel.hooks = o->hooks;
        snet_run *run;
        char err[512];
        if (snet_run_create(&run, net, &cfg, err, sizeof err) != SNET_OK) {
            fprintf(stderr, "snet-bench: %s\n", err);
            return 1;
        }
        one_record src = {o->replicas, false};
        sink dst = {0};
        snet_run_set_input_fn(run, deep_record, &src);
        snet_run_set_output_fn(run, take, &dst);
        double t0 = now();
        int rc = snet_run_execute(run);
        double t = now() - t0;
        snet_run_destroy(run);
        if (rc != SNET_OK || dst.count != 1) {
            fprintf(stderr, "snet-bench: star run failed (%d, %ld out)\n", rc, dst.count);
            return 1;
        }
        rates[i] = (double)o->replicas / t;
        run_done(o, i);
    }
    snet_net_free(net);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("star: one record unfolds %ld replicas, %d runs (median)\n", o->replicas, o->repeat);
    printf("  replicas/s     %12.0f\n", median(rates, o->repeat));
    printf("  peak RSS       %12.1f MiB (whole process)\n", (double)ru.ru_maxrss / 1024.0);
    return 0;
}

/* ---- command line ------------------------------------------------------------------------- */

static long number(const char *flag, const char *v, long min, long max)
{
    char *end;
    errno = 0;
    long n = v ? strtol(v, &end, 10) : 0;
    if (!v || errno || *end || n < min || n > max) {
        fprintf(stderr, "snet-bench: %s expects a number in [%ld, %ld]\n", flag, min, max);
        exit(2);
    }
    return n;
}

static void usage(FILE *out)
{
    fputs("usage: snet-bench pipeline|star|c4snet [-w N] [--full] [--messages M] [--replicas N]\n"
          "                  [--repeat R] [--json] [--side both|raw|snet|native|c4snet]\n"
          "                  [--box reuse|new] [-m FLAGS --mon-dir DIR] [-h|--help] [--version]\n"
          "\n"
          "What the S-Net layer costs on top of LPEL: pipeline (10 identity boxes against a\n"
          "raw LPEL pipe of the same shape), star (one record unfolding N replicas), c4snet\n"
          "(the pipeline with C4SNet boxes against native ones); medians of --repeat runs\n"
          "(default 5). --box new: the native boxes build new records instead of reusing\n"
          "their input (snet_record_reuse). The default sizes finish in seconds: --messages\n"
          "100000, --replicas 10000; --full takes those of docs/benchmarks/snet.md (1000000,\n"
          "100000) for the sizes not given. On a terminal a progress bar counts the runs.\n"
          "\n"
          "examples:\n"
          "  snet-bench pipeline -w 2\n"
          "  snet-bench star --full --repeat 3\n",
          out);
}

/* 0 to run, else the exit status + 1 (help and version: 1). */
static int parse_options(int argc, char **argv, options *o)
{
    enum { OPT_MESSAGES = PROG_OPT_OWN, OPT_REPLICAS, OPT_REPEAT, OPT_JSON, OPT_SIDE, OPT_FULL,
           OPT_BOX };
    static const struct option longopts[] = {PROG_OPT_STANDARD,
                                              {"workers", required_argument, NULL, 'w'},
                                              {"messages", required_argument, NULL, OPT_MESSAGES},
                                              {"replicas", required_argument, NULL, OPT_REPLICAS},
                                              {"repeat", required_argument, NULL, OPT_REPEAT},
                                              {"json", no_argument, NULL, OPT_JSON},
                                              {"side", required_argument, NULL, OPT_SIDE},
                                              {"full", no_argument, NULL, OPT_FULL},
                                              {"box", required_argument, NULL, OPT_BOX},
                                              {NULL, 0, NULL, 0}};
    prog_opt p;
    prog_opt_begin(&p, "snet-bench", argc, argv);
    for (int c; (c = prog_opt_next(&p, "hw:", longopts)) != -1;) {
        switch (c) {
        case 'h': usage(stdout); return 1;
        case PROG_OPT_VERSION: prog_opt_version(&p); return 1;
        case 'w': o->workers = (unsigned)number("-w", optarg, 1, 1024); break;
        case OPT_MESSAGES: o->messages = number("--messages", optarg, 1, 1L << 40); break;
        case OPT_REPLICAS: o->replicas = number("--replicas", optarg, 1, 1L << 30); break;
        case OPT_REPEAT: o->repeat = (int)number("--repeat", optarg, 1, 64); break;
        case OPT_JSON: o->json = true; break;
        case OPT_FULL: o->full = true; break;
        case OPT_SIDE:
            if (strcmp(optarg, "both") && strcmp(optarg, "raw") && strcmp(optarg, "snet") &&
                strcmp(optarg, "native") && strcmp(optarg, "c4snet")) {
                fprintf(stderr, "snet-bench: --side takes both, raw or snet (pipeline), native "
                        "or c4snet (c4snet), not '%s'\n", optarg);
                return 3;
            }
            o->side = optarg;
            break;
        case OPT_BOX:
            if (strcmp(optarg, "reuse") && strcmp(optarg, "new")) {
                fprintf(stderr, "snet-bench: --box takes reuse or new, not '%s'\n", optarg);
                return 3;
            }
            o->new_records = !strcmp(optarg, "new");
            break;
        default: usage(stderr); return 3;
        }
    }
    char **args = prog_opt_positional(&p);
    if (prog_opt_npositional(&p) != 1 ||
        (strcmp(args[0], "pipeline") && strcmp(args[0], "star") && strcmp(args[0], "c4snet"))) {
        usage(stderr);
        return 3;
    }
    o->bench = args[0];
    if (!o->messages)
        o->messages = o->full ? 1000000 : 100000;
    if (!o->replicas)
        o->replicas = o->full ? 100000 : 10000;
    return 0;
}

int main(int argc, char **argv)
{
    progress_bar bar;
    options o = {.repeat = 5, .side = "both", .bar = &bar};
    mon_options mo;
    char err[512];
    if (mon_parse_args(&argc, argv, &mo, err, sizeof err) != 0) {
        fprintf(stderr, "snet-bench: %s\n", err);
        return 2;
    }
    int parsed = parse_options(argc, argv, &o);
    if (parsed)
        return parsed - 1;
    mon *m = NULL;
    lpel_hooks hooks;
    if (mon_open(&m, &mo, argc, argv, &hooks, err, sizeof err) != 0) {
        fprintf(stderr, "snet-bench: %s\n", err);
        return 1;
    }
    o.hooks = mon_lpel_hooks(m);
    char label[32];
    snprintf(label, sizeof label, "snet-bench %s", o.bench);
    progress_bar_init_labelled(&bar, stderr, label);
    if (!o.json)
        printf("workers: %u, monitoring: %s\n", o.workers ? o.workers : lpel_core_count(),
               o.hooks ? "on (mon1)" : "off");
    int rc = !strcmp(o.bench, "pipeline") ? bench_pipeline(&o)
             : !strcmp(o.bench, "c4snet") ? bench_c4snet(&o)
                                          : bench_star(&o);
    if (mon_close(m) != 0 && rc == 0)
        rc = 1;
    return rc;
}
