/*
 * snet_prog.h - the program side of an S-Net program: what a main()
 * around a network needs and the libraries (lpel, snet, mon) leave out,
 * kept here so that the S-Net library has no command-line driver in it and
 * depends on the monitor only for message ids. Two levels:
 *
 * snet_prog_main: a whole command-line program around one net, records as
 * text (docs/RECORDS.md) from stdin or -i FILE to stdout or -O FILE:
 *
 *     int main(int argc, char **argv) { return snet_prog_main(argc, argv, build_net()); }
 *
 * app_spec: what every application shares, whichever way it runs: as its
 * own C program (app_main, the network built with the builder calls) or as
 * the box library of its .snet file under snetrun (app_boxlib.h).
 *
 * An application describes itself once, with an app_spec: its help text,
 * its own options, a function that settles its sizes once all options are
 * known (so that --paper and explicit sizes combine in any order), the
 * network builder, the input records it makes, what it does with each
 * output record, and the report after the run (the result, --check). Both
 * hosts drive the same functions with the same options (--inputs N,
 * --paper, --check and the app's own), so the two ways give the same
 * results. The C program also takes -w N, --map FILE and the monitoring
 * options -m, -o, --mon-tasks; under snetrun, snetrun takes those. The C
 * programs of mc and rt also run across MPI ranks (--mpi, app_spec.mpi).
 *
 * Exit codes: 0 success, 1 failure, 2 usage error.
 */
#ifndef SNET_PROG_H
#define SNET_PROG_H

#include <lpel.h>
#include <snet.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * A complete command-line program around a net (freed before returning):
 *   -w N            workers (default: one per core)
 *   --map FILE      place tasks by the mapping file (docs/MAPPING.md)
 *   -i FILE         input records (default: stdin), docs/RECORDS.md
 *   -O FILE         output records (default: stdout)
 *   -m FLAGS, --mon-dir DIR, --mon-tasks RE, --mon-flush MS   monitoring (mon.h)
 * Returns the process exit status: 0 on success, 1 on a runtime error, 2 on
 * a usage error.
 */
int snet_prog_main(int argc, char **argv, snet_net *net);
/* The same, with field types the text reader should know. */
int snet_prog_main_types(int argc, char **argv, snet_net *net,
                         const snet_field_type *const *types, size_t ntypes);

/* Load the mapping file path and check it against net for `workers` (0 =
 * one per core): 0, or -1 after printing "PROG: FILE:LINE: ..." (a usage
 * error: nothing has run yet). *out is NULL on error. A mapping written for
 * another number of workers (its "workers N" line) gets a warning. */
int snet_prog_load_mapping(const char *prog, const char *path, const snet_net *net,
                           unsigned workers, snet_mapping **out);

/* ---- applications (app_spec) ---- */

/* Where a run's output records go: take gets each (ownership passes), in
 * the order they left the network. */
typedef void (*app_take_fn)(void *user, snet_record *rec);

typedef struct app_ctx app_ctx;

/* Run the network once more, unmonitored, over the records next returns;
 * 0, or -1 after printing "PROG: ...". */
typedef int (*app_rerun_fn)(const app_ctx *ctx, snet_input_fn next, void *in_user,
                            app_take_fn take, void *out_user);

/* --scale BOX=F: box BOX does the fraction F of its work (0 < F <= 1), so
 * that a run can be timed with a box made faster (bench/whatif checks the
 * predictions of `snetmon whatif` with it). What "its work" is, each app
 * says for the boxes it lists in app_spec.scalable. */
#define APP_MAX_SCALES 32
typedef struct app_scale {
    const char *box; /* one of app_spec.scalable */
    double factor;
} app_scale;

/* What the shared options said, and what the run needs from its host. */
struct app_ctx {
    const char *prog;
    unsigned workers;             /* -w N; 0 = one per core */
    long inputs;                  /* --inputs N; 0 when not given */
    bool paper;                   /* --paper */
    bool check;                   /* --check */
    const char *map_path;         /* --map FILE, or NULL */
    const snet_mapping *mapping;  /* its contents, or NULL */
    const lpel_hooks *hooks;      /* monitoring hooks, NULL when off */
    const snet_net *net;          /* the app's network, built by app_main */
    /* Running the network again (des --check decrypts through it); NULL
     * under snetrun, which runs a network once. */
    app_rerun_fn rerun;
    /* --mpi (the C program of an app whose spec says mpi): the run spans
     * the ranks of an MPI job; only rank 0 has the input and the results,
     * so report prints and checks on rank 0 only. */
    bool mpi;
    snet_distrib *distrib;        /* the job; NULL without --mpi */
    int rank, ranks;              /* 0 and 1 without --mpi */
    const snet_codec *const *codecs; /* the spec's, registered with each run */
    app_scale scales[APP_MAX_SCALES]; /* --scale, each box once (the last given) */
    size_t n_scales;
};

/* The factor --scale gave box `box`, 1 when none. */
double app_scale_of(const app_ctx *ctx, const char *box);

typedef struct app_spec {
    const char *name;    /* program name in messages: "mc" */
    const char *about;   /* --help: what the program does and its network */
    const char *options; /* --help: the program's own options, one per line */
    size_t size;         /* the app's state: allocated zeroed, then init */
    void (*init)(void *app); /* defaults before the options; may be NULL */
    /* The app's own options, each taking a value: their long names without
     * "--", NULL-terminated (parsed with getopt_long with the shared ones). */
    const char *const *value_options;
    /* One of the app's own options ("--name", its value): 1 or 2 = used,
     * 0 = not an option of this app, -1 = bad value (message printed). */
    int (*option)(void *app, const char *flag, const char *value);
    /* After all options: settle sizes from ctx (paper, inputs) and make
     * what the run needs; 0 or -1 (message printed). */
    int (*finish)(void *app, const app_ctx *ctx);
    /* The network; every box gets the app's state as its user pointer. */
    snet_net *(*build)(void *app);
    /* The input records, one per call (NULL: no more); called from a task. */
    snet_input_fn input;
    /* Each output record (ownership passes). */
    app_take_fn output;
    /* After the run (run: 0 when it succeeded, -1 when it failed or never
     * happened): print the result, check it with --check, free what finish
     * made (also after a failed finish). Returns the exit status. */
    int (*report)(void *app, const app_ctx *ctx, int run);
    /* The network places parts on MPI ranks (snet_at_rank, snet_split_at)
     * when finish saw ctx->mpi: the C program takes --mpi. The app's field
     * types that cross ranks have these codecs (NULL-terminated, or NULL),
     * registered with every run. */
    bool mpi;
    const snet_codec *const *codecs;
    /* The boxes --scale takes (NULL-terminated; NULL: none); the app's
     * `options` text says what a factor does to each. */
    const char *const *scalable;
} app_spec;

/* The C program: options, network, monitor, run, report. */
int app_main(const app_spec *spec, int argc, char **argv);

/* The app's state: spec->size bytes zeroed, then spec->init; NULL if out
 * of memory (message printed). */
void *app_new(const app_spec *spec);

/* Which options the host leaves to the app. */
typedef enum app_host {
    APP_HOST_PROGRAM, /* the C program: also -w N, --map FILE and (spec->mpi) --mpi */
    APP_HOST_SNETRUN  /* snetrun takes -w itself */
} app_host;

/* The shared options and the app's own in argv[1..], with getopt_long
 * (prog_opt.h: one wording for usage errors): 0 ok, 1 --help was given
 * (nothing printed), 2 --version was given (printed), -1 usage error
 * (message printed). */
int app_parse_options(const app_spec *spec, app_host host, int argc, char **argv, void *app,
                      app_ctx *ctx);

/* The --help lines of the options both hosts hand to the app. */
#define APP_SHARED_OPTIONS_HELP                                                             \
    "  --inputs N       input records in the stream (default and --paper: above)\n"        \
    "  --paper          the paper's sizes\n"                                                \
    "  --check          verify every result (exit 1 if one is wrong)\n"                    \
    "  --scale BOX=F    box BOX does the fraction F (0 < F <= 1) of its work, to time\n"   \
    "                   what a faster box gains (snetmon whatif); repeatable\n"

/* The --help lines of --mpi (the C program of an app whose spec says mpi). */
#define APP_MPI_OPTION_HELP                                                                 \
    "  --mpi            run across the ranks of an MPI job (mpirun -n R PROG --mpi ...):\n"  \
    "                   the !@ replicas go to the ranks, each rank writes its trace\n"      \
    "                   into DIR/rank-R; rank 0 makes the input and reports\n"

/* Print the app's --help: "usage: SYNOPSIS", what it does, the shared
 * options, the app's own, then host_options (the host's own lines). */
void app_usage(const app_spec *spec, const char *synopsis, const char *host_options, FILE *out);

/* Parse value of option flag as a whole number in [min, max] into *out;
 * on error print "PROG: FLAG expects ..." and return -1. */
int app_parse_long(const char *prog, const char *flag, const char *value, long min, long max,
                   long *out);

/*
 * Run ctx->net once with ctx's workers and mapping, monitored with
 * ctx->hooks when `monitored`: the records next(in_user) returns (until
 * NULL) are the input stream; every output record goes to take. Returns
 * 0, or -1 after printing "PROG: ..." (the outputs of a failed run are
 * still handed to take).
 */
int app_run_network(const app_ctx *ctx, bool monitored, snet_input_fn next, void *in_user,
                    app_take_fn take, void *out_user);

/* SplitMix64: the apps' deterministic per-input variation (sizes, seeds). */
uint64_t app_mix64(uint64_t x);

#endif /* SNET_PROG_H */
