/*
 * dist_demo.c - small S-Net networks placed across MPI ranks, for the mpi
 * tests (tests/distrib/mpi_test.sh). Each scenario prints one result line on rank
 * 0 that does not depend on how many ranks ran it, so a test compares a
 * distributed run with a run in one process; scenarios that must fail
 * (deadlock, kill, codec) are checked by their exit status and messages.
 *
 *   dist_demo [--mpi] [-w N] [-n RECORDS] [-m FLAGS --mon-dir DIR] SCENARIO
 *
 * Without --mpi the same network runs in one process (rank placements are
 * then no-ops), which is the reference.
 */
#include <mon.h>
#include <snet.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#define DIST_LEAK_CHECK 1
#else
#define DIST_LEAK_CHECK 0
#endif

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int my_rank; /* this process's rank (0 without --mpi), for the boxes */

/* ---- boxes ---------------------------------------------------------------------- */

static int out_int(snet_handle *h, const char *label, long v)
{
    snet_record *o = snet_record_new();
    snet_record_set_int(o, label, v);
    return snet_out(h, o);
}

/* inc ({x} -> {x}) */
static int inc_box(snet_handle *h, snet_record *in)
{
    return out_int(h, "x", snet_record_int(in, "x") + 1);
}

/* dbl ({x} -> {x}) */
static int dbl_box(snet_handle *h, snet_record *in)
{
    return out_int(h, "x", snet_record_int(in, "x") * 2);
}

/* where ({x} -> {x, <rank>, <worker>}): says where it ran */
static int where_box(snet_handle *h, snet_record *in)
{
    snet_record *o = snet_record_new();
    snet_record_set_int(o, "x", snet_record_int(in, "x"));
    snet_record_set_tag(o, "rank", my_rank);
    snet_record_set_tag(o, "worker", (long)lpel_task_worker(lpel_task_self()));
    return snet_out(h, o);
}

/* mka ({ga} -> {a, <ra>}), mkb ({gb} -> {b, <rb>}): one side of a sync */
static int mka_box(snet_handle *h, snet_record *in)
{
    snet_record *o = snet_record_new();
    snet_record_set_int(o, "a", snet_record_int(in, "ga") * 10);
    snet_record_set_tag(o, "ra", my_rank);
    return snet_out(h, o);
}

static int mkb_box(snet_handle *h, snet_record *in)
{
    snet_record *o = snet_record_new();
    snet_record_set_string(o, "b", snet_record_int(in, "gb") % 2 ? "odd" : "even");
    snet_record_set_tag(o, "rb", my_rank);
    return snet_out(h, o);
}

/* step ({x} -> {x} | {x, <done>}): one round of a star */
static int step_box(snet_handle *h, snet_record *in)
{
    long x = snet_record_int(in, "x") + 1;
    snet_record *o = snet_record_new();
    snet_record_set_int(o, "x", x);
    if (x % 5 == 0)
        snet_record_set_tag(o, "done", 1);
    return snet_out(h, o);
}

/* stuck ({x} -> {x}): waits for a stream nobody will ever write */
static int stuck_box(snet_handle *h, snet_record *in)
{
    (void)h, (void)in;
    lpel_stream *never = lpel_stream_create(NULL, 1);
    lpel_stream_read(never);
    return 0;
}

/* killer ({x} -> {x}): the process of its rank dies at x == 7 */
static int killer_box(snet_handle *h, snet_record *in)
{
    if (snet_record_int(in, "x") == 7) {
        fprintf(stderr, "dist_demo: rank %d: the killer box kills its process\n", my_rank);
        fflush(stderr);
        raise(SIGKILL);
    }
    return out_int(h, "x", snet_record_int(in, "x"));
}

/* ---- a field type of our own (the codec scenarios) --------------------------------- */

typedef struct pair {
    long lo, hi;
} pair;

static void *pair_copy(const void *v)
{
    pair *p = malloc(sizeof *p);
    if (p)
        *p = *(const pair *)v;
    return p;
}

static int pair_print(FILE *out, const void *v)
{
    const pair *p = v;
    return fprintf(out, "\"%ld:%ld\"", p->lo, p->hi) < 0 ? -1 : 0;
}

static int pair_parse(const char *t, size_t n, void **v)
{
    (void)t, (void)n, (void)v;
    return -1;
}

static const snet_field_type PAIR = {"pair", pair_copy, free, pair_print, pair_parse};

static int pair_encode(const void *v, snet_bytes *out)
{
    const pair *p = v;
    long both[2] = {p->lo, p->hi};
    return snet_bytes_put(out, both, sizeof both) == SNET_OK ? 0 : -1;
}

static int pair_decode(const void *data, size_t len, void **v)
{
    if (len != 2 * sizeof(long))
        return -1;
    pair *p = malloc(sizeof *p);
    if (!p)
        return -1;
    memcpy(&p->lo, data, sizeof(long));
    memcpy(&p->hi, (const char *)data + sizeof(long), sizeof(long));
    *v = p;
    return 0;
}

static const snet_codec PAIR_CODEC = {&PAIR, pair_encode, pair_decode};

/* mkpair ({x} -> {p}), sumpair ({p} -> {x}) */
static int mkpair_box(snet_handle *h, snet_record *in)
{
    long x = snet_record_int(in, "x");
    snet_record *o = snet_record_new();
    snet_record_set_field(o, "p", &PAIR, pair_copy(&(pair){x, 2 * x}));
    return snet_out(h, o);
}

static int sumpair_box(snet_handle *h, snet_record *in)
{
    const pair *p = snet_record_field(in, "p");
    return out_int(h, "x", p->lo + p->hi);
}

/* ---- scenarios ---------------------------------------------------------------------- */

typedef struct scenario {
    const char *name;
    snet_net *(*build)(void);
    const char *input; /* "x": {x=i, <k>=i mod 8}; "ab": alternating {ga}/{gb} */
    bool codec;        /* register the pair codec */
} scenario;

static snet_net *box(const char *name, const char *sig, snet_box_fn fn)
{
    return snet_box(name, sig, fn, NULL);
}

/* inc .. (dbl @rank 1) .. (inc @rank 2): a pipeline over three ranks */
static snet_net *pipeline_net(void)
{
    return snet_serial(box("inc", "{x} -> {x}", inc_box),
                       snet_serial(snet_at_rank(box("dbl", "{x} -> {x}", dbl_box), 1),
                                   snet_at_rank(box("inc", "{x} -> {x}", inc_box), 2)));
}

/* where !@ <k>: replica k on rank k mod R */
static snet_net *split_net(void)
{
    return snet_split_at(box("where", "{x} -> {x, <rank>, <worker>}", where_box), "<k>");
}

/* ((mka @rank 1) | (mkb @rank 2)) .. [| {a}, {b, <rb>} |]: a synchro-cell on
 * rank 0 fed from two ranks (the merge takes <rb> because the pattern names
 * it: only the first record's other labels are kept) */
static snet_net *sync_net(void)
{
    return snet_serial(
        snet_parallel(snet_at_rank(box("mka", "{ga} -> {a, <ra>}", mka_box), 1),
                      snet_at_rank(box("mkb", "{gb} -> {b, <rb>}", mkb_box), 2)),
        snet_sync("[| {a}, {b, <rb>} |]"));
}

/* (inc @rank 1 || dbl @rank 2) !! <k>: order kept by sort markers that
 * travel between ranks */
static snet_net *det_net(void)
{
    return snet_split_det(snet_parallel_det(snet_at_rank(box("inc", "{x, <odd>} -> {x}",
                                                             inc_box), 1),
                                            snet_at_rank(box("dbl", "{x} -> {x}", dbl_box), 2)),
                          "<k>");
}

/* (step @rank 1) * {<done>}: every replica's body on rank 1 */
static snet_net *star_net(void)
{
    return snet_star(snet_at_rank(box("step", "{x} -> {x} | {x, <done>}", step_box), 1),
                     "{<done>}");
}

static snet_net *deadlock_net(void)
{
    return snet_serial(box("inc", "{x} -> {x}", inc_box),
                       snet_at_rank(box("stuck", "{x} -> {x}", stuck_box), 1));
}

static snet_net *kill_net(void)
{
    return snet_serial(box("inc", "{x} -> {x}", inc_box),
                       snet_at_rank(box("killer", "{x} -> {x}", killer_box), 1));
}

/* mkpair .. (sumpair @rank 1): a field of type pair crosses ranks */
static snet_net *codec_net(void)
{
    return snet_serial(box("mkpair", "{x} -> {p}", mkpair_box),
                       snet_at_rank(box("sumpair", "{p} -> {x}", sumpair_box), 1));
}

static const scenario scenarios[] = {
    {"pipeline", pipeline_net, "x", false}, {"split", split_net, "x", false},
    {"sync", sync_net, "ab", false},        {"det", det_net, "x", false},
    {"star", star_net, "x", false},         {"deadlock", deadlock_net, "x", false},
    {"kill", kill_net, "x", false},         {"codec", codec_net, "x", true},
    {"no-codec", codec_net, "x", false},
};

/* ---- checking the output ---------------------------------------------------------- */

typedef struct result {
    long count, sum, inversions, last, misplaced, synced;
} result;

static void take_outputs(snet_run *run, const scenario *sc, long n, unsigned ranks,
                         unsigned workers, result *res)
{
    res->last = LONG_MIN;
    for (snet_record *o; (o = snet_run_take_output(run)) != NULL; snet_record_free(o)) {
        long x = snet_record_int(o, "x"), i = snet_record_int(o, "i");
        res->count++;
        res->sum += x;
        if (i < res->last) /* the input index, flow-inherited through the boxes */
            res->inversions++;
        res->last = i;
        if (!strcmp(sc->name, "split")) {
            long k = snet_record_tag(o, "k"), r = snet_record_tag(o, "rank");
            long w = snet_record_tag(o, "worker");
            if (r != k % (long)ranks || w != (k / (long)ranks) % (long)workers)
                res->misplaced++;
        }
        if (snet_record_has_field(o, "a") && snet_record_has_field(o, "b")) {
            res->synced++;
            /* the two halves came from ranks 1 and 2 (mod the rank count) */
            if (snet_record_tag(o, "ra") != 1 % (long)ranks ||
                snet_record_tag(o, "rb") != 2 % (long)ranks)
                res->misplaced++;
        }
    }
    (void)n;
}

static void print_result(const scenario *sc, long n, const result *r)
{
    if (!strcmp(sc->name, "split"))
        printf("split: %ld of %ld records, sum %ld, placement %s\n", r->count, n, r->sum,
               r->misplaced ? "WRONG" : "as !@ says");
    else if (!strcmp(sc->name, "sync"))
        printf("sync: %ld records out, %ld merged from two ranks%s\n", r->count, r->synced,
               r->misplaced ? " (WRONG ranks)" : "");
    else if (!strcmp(sc->name, "pipeline") || !strcmp(sc->name, "det"))
        printf("%s: %ld of %ld records, sum %ld, %s\n", sc->name, r->count, n, r->sum,
               r->inversions ? "out of order" : "in order");
    else /* non-deterministic merges: the order may differ from run to run */
        printf("%s: %ld of %ld records, sum %ld\n", sc->name, r->count, n, r->sum);
}

static void put_input(snet_run *run, const scenario *sc, long n)
{
    for (long i = 0; i < n; i++) {
        snet_record *r = snet_record_new();
        if (!strcmp(sc->input, "ab")) {
            snet_record_set_int(r, i % 2 ? "gb" : "ga", i);
        } else {
            snet_record_set_int(r, "x", i);
            snet_record_set_int(r, "i", i);
            snet_record_set_tag(r, "k", i % 8);
            if (i % 2)
                snet_record_set_tag(r, "odd", 1);
        }
        snet_run_put(run, r);
    }
}

/* ---- main ----------------------------------------------------------------------------- */

static int usage(void)
{
    fprintf(stderr, "usage: dist_demo [--mpi [--window RECORDS]] [-w N] [-n RECORDS] "
                    "[-m FLAGS --mon-dir DIR] SCENARIO\n"
                    "scenarios:");
    for (size_t i = 0; i < sizeof scenarios / sizeof *scenarios; i++)
        fprintf(stderr, " %s", scenarios[i].name);
    fputc('\n', stderr);
    return 2;
}

int main(int argc, char **argv)
{
    mon_options mo;
    char err[1024];
    if (mon_parse_args(&argc, argv, &mo, err, sizeof err) != 0) {
        fprintf(stderr, "dist_demo: %s\n", err);
        return 2;
    }
    bool mpi = false;
    long n = 1000, workers = 2, window = 0;
    const scenario *sc = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--mpi")) {
            mpi = true;
        } else if (!strcmp(argv[i], "-n") && i + 1 < argc) {
            n = atol(argv[++i]);
        } else if (!strcmp(argv[i], "-w") && i + 1 < argc) {
            workers = atol(argv[++i]);
        } else if (!strcmp(argv[i], "--window") && i + 1 < argc) {
            window = atol(argv[++i]); /* records in flight per channel; one process: none */
            if (window < 1)
                return usage();
        } else {
            for (size_t s = 0; s < sizeof scenarios / sizeof *scenarios; s++)
                if (!strcmp(argv[i], scenarios[s].name))
                    sc = &scenarios[s];
            if (!sc)
                return usage();
        }
    }
    if (!sc || n < 1 || workers < 1)
        return usage();

    snet_distrib *dist = NULL;
    if (mpi && snet_distrib_init(&dist, &argc, &argv, err, sizeof err) != SNET_OK) {
        fprintf(stderr, "dist_demo: %s\n", err);
        return 1;
    }
    if (dist && window)
        snet_distrib_set_window(dist, (unsigned)window);
    my_rank = snet_distrib_rank(dist);
    unsigned ranks = (unsigned)snet_distrib_size(dist);

    if (dist) /* each rank writes its own trace, DIR/rank-<rank> */
        mon_options_set_rank(&mo, my_rank, (int)ranks);
    mon *m = NULL;
    lpel_hooks hooks;
    if (mon_open(&m, &mo, argc, argv, &hooks, err, sizeof err) != 0) {
        fprintf(stderr, "dist_demo: %s\n", err);
        snet_distrib_finalize(dist);
        return 1;
    }

    snet_net *net = sc->build();
    snet_config cfg = snet_config_default();
    cfg.lpel.num_workers = (unsigned)workers;
    cfg.lpel.pin_workers = false;
    cfg.lpel.hooks = mon_lpel_hooks(m);
    cfg.distrib = dist;
    snet_run *run;
    int status = 1;
    if (snet_run_create(&run, net, &cfg, err, sizeof err) != SNET_OK) {
        fprintf(stderr, "dist_demo: rank %d: %s\n", my_rank, err);
        goto out;
    }
    if (sc->codec)
        snet_run_register_codec(run, &PAIR_CODEC);
    put_input(run, sc, n);
    int rc = snet_run_execute(run);
    if (rc != SNET_OK) {
        if (my_rank == 0)
            fprintf(stderr, "dist_demo: run failed (%s): %s\n", snet_strerror(rc),
                    snet_run_error(run));
    } else if (my_rank == 0) {
        result r = {0};
        take_outputs(run, sc, n, ranks, (unsigned)workers, &r);
        print_result(sc, n, &r);
    }
    status = rc == SNET_OK ? 0 : 1;
    snet_run_destroy(run);
out:
    snet_net_free(net);
    if (mon_close(m) != 0 && status == 0)
        status = 1;
#if DIST_LEAK_CHECK
    /* Our leaks, checked while MPI is still up: after MPI_Finalize Open MPI
     * unloads its components, and LeakSanitizer can then neither tell
     * their allocations from ours nor match suppressions to them (the mpi
     * tests run with leak_check_at_exit=0 for that reason). */
    if (__lsan_do_recoverable_leak_check() && status == 0)
        status = 1;
#endif
    snet_distrib_finalize(dist);
    return status;
}
