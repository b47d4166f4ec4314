/*
 * mpi_bench.c - mpi-bench: what a stream between MPI ranks costs in S-Net,
 * against raw MPI moving messages of the same size in the same run (a
 * program of 2 ranks: mpirun -n 2 mpi-bench ...).
 *
 *   stream   N small records {x} from rank 0 into a box on rank 1
 *            (snet_at_rank), against N MPI_Send/MPI_Recv of a record's
 *            wire size (RECORD_BYTES, docs/WIRE.md) from rank 0 to rank
 *            1: records/s of each and their ratio. Raw MPI is measured
 *            three times per repetition and its best taken: on this shared
 *            machine its rate swings with the other tenants' load far more
 *            than S-Net's (both MPI processes poll), and the best is the
 *            harder baseline
 *   latency  records {x, t} sent one every --gap microseconds (so none
 *            waits for another), one-way latency from the moment the input
 *            made the record (t, CLOCK_MONOTONIC) to the moment the box on
 *            rank 1 gets it (the ranks share a host, so one clock), against
 *            half the round trip of an MPI ping-pong of the same size
 *   idle     two records {x, t} --gap microseconds apart (default 1 s):
 *            the CPU time rank 1 uses per second of the run while it
 *            waits for them (its communication thread, workers and all),
 *            against raw MPI's blocking receive waiting as long
 *
 * Each is repeated (--repeat R, the two sides interleaved) and the medians
 * reported by rank 0, as text or one JSON object (--json). Times are
 * wall-clock around the run (S-Net: snet_run_execute, so starting the
 * channels and the end-of-run detection are in; MPI: the loop and a final
 * acknowledgement).
 */
#include <prog_opt.h>
#include <snet.h>

#include <mpi.h>

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A data record {x} on the wire: kind, id, label count; the label's kind,
 * name "x", field type "int", length, 8 bytes (docs/WIRE.md section 4). */
#define RECORD_BYTES (1 + 8 + 4 + 1 + (2 + 1) + (2 + 3) + 4 + 8)
/* {x, t}: one more int field "t". */
#define STAMPED_RECORD_BYTES (RECORD_BYTES + 1 + (2 + 1) + (2 + 3) + 4 + 8)

typedef struct options {
    const char *bench;
    long records;
    int repeat;
    unsigned workers;
    long gap_us;
    long window; /* records in flight per channel; 0: the default */
    bool json;
} options;

static int rank, ranks;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- raw MPI ----------------------------------------------------------------------- */

/* N messages of `bytes` from rank 0 to rank 1, then one back: messages/s. */
static double mpi_stream(long n, int bytes)
{
    char buf[256] = {0};
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now();
    if (rank == 0) {
        for (long i = 0; i < n; i++)
            MPI_Send(buf, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
        MPI_Recv(buf, 0, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        for (long i = 0; i < n; i++)
            MPI_Recv(buf, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, 0, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
    }
    return (double)n / (now() - t0);
}

/* Half the median round trip of n ping-pongs of `bytes`, in seconds. */
static double mpi_pingpong(long n, int bytes)
{
    char buf[256] = {0};
    double *rtt = malloc((size_t)n * sizeof *rtt);
    if (!rtt)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    for (long i = 0; i < n; i++) {
        if (rank == 0) {
            double t0 = now();
            MPI_Send(buf, bytes, MPI_BYTE, 1, 3, MPI_COMM_WORLD);
            MPI_Recv(buf, bytes, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            rtt[i] = now() - t0;
        } else if (rank == 1) {
            MPI_Recv(buf, bytes, MPI_BYTE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, bytes, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
        }
    }
    double half = rank == 0 ? median(rtt, (size_t)n) / 2 : 0;
    free(rtt);
    return half;
}

/* CPU seconds this process has used. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Rank 1 waits in MPI_Recv for a message rank 0 sends after `gap`
 * seconds: the share of a core rank 1 used meanwhile, on rank 0. */
static double mpi_idle(double gap)
{
    char buf[256] = {0};
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now(), c0 = cpu_now(), share = 0;
    if (rank == 0) {
        struct timespec ts = {(time_t)gap, (long)((gap - (double)(time_t)gap) * 1e9)};
        nanosleep(&ts, NULL);
        MPI_Send(buf, STAMPED_RECORD_BYTES, MPI_BYTE, 1, 4, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Recv(buf, STAMPED_RECORD_BYTES, MPI_BYTE, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        share = (cpu_now() - c0) / (now() - t0);
    }
    MPI_Bcast(&share, 1, MPI_DOUBLE, 1, MPI_COMM_WORLD);
    return share;
}

/* ---- S-Net ---------------------------------------------------------------------------- */

typedef struct feed {
    long next, n;
    bool stamped;
    double gap, start;
} feed;

static snet_record *next_record(void *arg)
{
    feed *f = arg;
    if (f->next >= f->n)
        return NULL;
    snet_record *r = snet_record_new();
    snet_record_set_int(r, "x", f->next);
    if (f->stamped) {
        /* Paced: the input task yields once, so that the tasks carrying
         * the last record on this worker run, then sleeps until this one
         * is due (sleeping, not spinning: a spinning input would take the
         * core the other rank needs on this 2-core machine). */
        lpel_task_yield();
        double due = f->start + (double)f->next * f->gap;
        for (double left; (left = due - now()) > 0;) {
            struct timespec ts = {0, (long)(left * 1e9)};
            nanosleep(&ts, NULL);
        }
        snet_record_set_int(r, "t", (long)(now() * 1e9));
    }
    f->next++;
    return r;
}

/* The box on rank 1: consumes; with a stamp, notes the one-way latency. */
static double *latencies;
static atomic_long n_latencies;

static int sink_box(snet_handle *h, snet_record *in)
{
    (void)h;
    if (snet_record_has_field(in, "t")) {
        long i = atomic_fetch_add(&n_latencies, 1);
        latencies[i] = now() - (double)snet_record_int(in, "t") * 1e-9;
    }
    return 0;
}

/* One run of rank 0's records into the box on rank 1: its wall time. */
static double snet_stream(snet_distrib *d, const options *o, bool stamped)
{
    const char *type = stamped ? "{x, t} -> {x}" : "{x} -> {x}";
    snet_net *net = snet_at_rank(snet_box("sink", type, sink_box, NULL), 1);
    snet_config cfg = snet_config_default();
    cfg.lpel.num_workers = o->workers;
    cfg.lpel.pin_workers = false;
    cfg.distrib = d;
    snet_run *run;
    char err[512];
    if (snet_run_create(&run, net, &cfg, err, sizeof err) != SNET_OK) {
        fprintf(stderr, "mpi-bench: rank %d: %s\n", rank, err);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    feed f = {0, o->records, stamped, (double)o->gap_us * 1e-6, 0};
    snet_run_set_input_fn(run, next_record, &f);
    atomic_store(&n_latencies, 0);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now();
    f.start = t0;
    int rc = snet_run_execute(run);
    double t = now() - t0;
    if (rc != SNET_OK) {
        if (rank == 0)
            fprintf(stderr, "mpi-bench: run failed: %s\n", snet_run_error(run));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    snet_run_destroy(run);
    snet_net_free(net);
    return t;
}

/* Rank 1's CPU share over an S-Net run (the caller's t, c: wall and CPU
 * seconds before it), on rank 0. */
static double gather_share(double t, double c)
{
    double share = rank == 1 ? (cpu_now() - c) / (now() - t) : 0;
    MPI_Bcast(&share, 1, MPI_DOUBLE, 1, MPI_COMM_WORLD);
    return share;
}

/* Rank 1's median latency, on rank 0. */
static double gather_latency(void)
{
    double m = 0;
    if (rank == 1)
        m = median(latencies, (size_t)atomic_load(&n_latencies));
    MPI_Bcast(&m, 1, MPI_DOUBLE, 1, MPI_COMM_WORLD);
    return m;
}

/* ---- main ----------------------------------------------------------------------------- */

static void usage(FILE *out)
{
    if (rank == 0)
        fprintf(out,
                "usage: mpirun -n 2 mpi-bench stream|latency|idle [--records N] [--repeat R]\n"
                "                                [-w W] [--gap US] [--window RECORDS] [--json]\n"
                "  stream: S-Net records/s from rank 0 to rank 1 vs MPI messages/s of the\n"
                "          same size (%d bytes); latency: one-way latency of paced records\n"
                "          ({x, t}, %d bytes) vs half an MPI ping-pong of the same size;\n"
                "          idle: the CPU share rank 1 uses while it waits --gap us (default\n"
                "          1 s) for each of 2 records vs MPI_Recv waiting as long\n"
                "  -h, --help       this text\n"
                "  --version        the version and git revision\n",
                RECORD_BYTES, STAMPED_RECORD_BYTES);
}

/* A whole number >= 1 of option flag; -1 after the message when not. */
static long number(const char *flag, const char *v)
{
    char *end;
    long n = strtol(v, &end, 10);
    if (end == v || *end || n < 1) {
        if (rank == 0)
            fprintf(stderr, "mpi-bench: %s expects a whole number >= 1, got '%s'\n", flag, v);
        return -1;
    }
    return n;
}

enum { OPT_RECORDS = PROG_OPT_OWN, OPT_REPEAT, OPT_GAP, OPT_WINDOW, OPT_JSON };

/* 0: run; 1: --help or --version done; 2: usage error (message printed). */
static int parse(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {PROG_OPT_STANDARD,
                                              {"records", required_argument, NULL, OPT_RECORDS},
                                              {"repeat", required_argument, NULL, OPT_REPEAT},
                                              {"gap", required_argument, NULL, OPT_GAP},
                                              {"window", required_argument, NULL, OPT_WINDOW},
                                              {"json", no_argument, NULL, OPT_JSON},
                                              {NULL, 0, NULL, 0}};
    *o = (options){NULL, 0, 5, 1, 100, 0, false};
    prog_opt p;
    prog_opt_begin(&p, "mpi-bench", argc, argv);
    long n = 0;
    bool gap_given = false;
    for (int c; n >= 0 && (c = prog_opt_next(&p, "hw:", longopts)) != -1;) {
        switch (c) {
        case 'h': usage(stdout); return 1;
        case PROG_OPT_VERSION: if (rank == 0) prog_opt_version(&p); return 1;
        case 'w': o->workers = (unsigned)(n = number("-w", optarg)); break;
        case OPT_RECORDS: o->records = n = number("--records", optarg); break;
        case OPT_REPEAT: o->repeat = (int)(n = number("--repeat", optarg)); break;
        case OPT_GAP: o->gap_us = n = number("--gap", optarg); gap_given = true; break;
        case OPT_WINDOW: o->window = n = number("--window", optarg); break;
        case OPT_JSON: o->json = true; break;
        default: return 2;
        }
    }
    char **args = prog_opt_positional(&p);
    if (n < 0 || prog_opt_npositional(&p) != 1 ||
        (strcmp(args[0], "stream") && strcmp(args[0], "latency") && strcmp(args[0], "idle"))) {
        usage(stderr);
        return 2;
    }
    o->bench = args[0];
    bool idle = !strcmp(o->bench, "idle");
    if (idle && !gap_given)
        o->gap_us = 1000000;
    if (!o->records)
        o->records = !strcmp(o->bench, "stream") ? 1000000 : idle ? 2 : 2000;
    return 0;
}

int main(int argc, char **argv)
{
    snet_distrib *d;
    char err[512];
    if (snet_distrib_init(&d, &argc, &argv, err, sizeof err) != SNET_OK) {
        fprintf(stderr, "mpi-bench: %s\n", err);
        return 1;
    }
    rank = snet_distrib_rank(d);
    ranks = snet_distrib_size(d);
    options o;
    int parsed = parse(argc, argv, &o);
    if (parsed == 0 && ranks != 2) {
        if (rank == 0)
            fprintf(stderr, "mpi-bench: needs exactly 2 ranks (mpirun -n 2), has %d\n", ranks);
        parsed = 2;
    }
    if (parsed != 0) {
        snet_distrib_finalize(d);
        return parsed == 1 ? 0 : 2;
    }
    if (o.window)
        snet_distrib_set_window(d, (unsigned)o.window);
    bool stream = !strcmp(o.bench, "stream");
    latencies = calloc((size_t)o.records, sizeof *latencies);
    double *mine = calloc((size_t)o.repeat, sizeof *mine);
    double *raw = calloc((size_t)o.repeat, sizeof *raw);
    if (!latencies || !mine || !raw)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int r = 0; r < o.repeat; r++) {
        if (stream) {
            raw[r] = 0;
            for (int k = 0; k < 3; k++) {
                double v = mpi_stream(o.records, RECORD_BYTES);
                raw[r] = v > raw[r] ? v : raw[r];
            }
            mine[r] = (double)o.records / snet_stream(d, &o, false);
        } else if (!strcmp(o.bench, "latency")) {
            raw[r] = mpi_pingpong(o.records, STAMPED_RECORD_BYTES);
            snet_stream(d, &o, true);
            mine[r] = gather_latency();
        } else {
            raw[r] = mpi_idle((double)o.gap_us * 1e-6);
            double t = now(), c = cpu_now();
            snet_stream(d, &o, true);
            mine[r] = gather_share(t, c);
        }
    }
    if (rank == 0) {
        double m = median(mine, (size_t)o.repeat), b = median(raw, (size_t)o.repeat);
        qsort(mine, (size_t)o.repeat, sizeof *mine, by_value);
        bool idle = !strcmp(o.bench, "idle");
        const char *unit = stream ? "records_per_s" : idle ? "cpu_share" : "latency_s";
        if (o.json)
            printf("{\"bench\": \"%s\", \"records\": %ld, \"repeat\": %d, \"workers\": %u, "
                   "\"bytes\": %d, \"snet_%s\": %.6g, \"snet_min\": %.6g, \"snet_max\": %.6g, "
                   "\"mpi_%s\": %.6g, \"ratio\": %.4f}\n",
                   o.bench, o.records, o.repeat, o.workers,
                   stream ? RECORD_BYTES : STAMPED_RECORD_BYTES, unit, m, mine[0],
                   mine[o.repeat - 1], unit, b, m / b);
        else if (idle)
            printf("rank 1 waiting for %ld records {x, t} one every %ld us, median of %d: "
                   "S-Net uses %.2f %% of a core, raw MPI_Recv %.1f %%\n",
                   o.records, o.gap_us, o.repeat, 100 * m, 100 * b);
        else if (stream)
            printf("stream of %ld records {x} (%d bytes on the wire), %u worker(s) per rank, "
                   "median of %d: S-Net %.4g records/s, raw MPI (best of 3 each time) %.4g "
                   "messages/s: %.1f %%\n",
                   o.records, RECORD_BYTES, o.workers, o.repeat, m, b, 100 * m / b);
        else
            printf("one-way latency of %ld records {x, t} (%d bytes), one every %ld us, median "
                   "of %d: S-Net %.3g us, raw MPI (half a ping-pong) %.3g us: %.1fx\n",
                   o.records, STAMPED_RECORD_BYTES, o.gap_us, o.repeat, m * 1e6, b * 1e6, m / b);
    }
    free(latencies);
    free(mine);
    free(raw);
    snet_distrib_finalize(d);
    return 0;
}
