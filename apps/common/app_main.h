/*
 * app_main.h - what every application's main() shares: the options all four
 * take (-w N, --inputs N, --paper, --check, --map FILE, and the monitoring
 * options -m, -o, --mon-tasks), the network built once and checked against
 * the mapping before anything is written, the monitor opened around the run
 * and closed after it, one way to push a stream of input records through
 * the network, and the exit codes (0 success, 1 failure, 2 usage error).
 *
 * An application describes itself with an app_spec: its help text, a
 * function for its own options, one that settles its sizes once all options
 * are known (so that --paper and explicit sizes combine in any order), the
 * network builder (named C box functions, so that an .snet version of the
 * same network can use them), and the run.
 */
#ifndef APP_MAIN_H
#define APP_MAIN_H

#include <lpel.h>
#include <snet.h>

#include <stdbool.h>

/* What the shared options said, and what the run needs from main. */
typedef struct app_ctx {
    const char *prog;
    unsigned workers;             /* -w N; 0 = one per core */
    long inputs;                  /* --inputs N; 0 when not given */
    bool paper;                   /* --paper */
    bool check;                   /* --check */
    const char *map_path;         /* --map FILE, or NULL */
    const snet_mapping *mapping;  /* its contents, or NULL */
    const lpel_hooks *hooks;      /* monitoring hooks, NULL when off */
    const snet_net *net;          /* the app's network, built by app_main */
    /* --mpi: the run spans the ranks of an MPI job (apps whose spec says
     * mpi); only rank 0 has the input and the results. */
    bool mpi;
    snet_distrib *distrib;        /* NULL without --mpi */
    int rank, ranks;              /* 0 and 1 without --mpi */
    const snet_codec *const *codecs; /* the spec's, registered with each run */
} app_ctx;

typedef struct app_spec {
    const char *name;    /* program name in messages: "mc" */
    const char *about;   /* --help: what the program does and its network */
    const char *options; /* --help: the program's own options, one per line */
    /* One of the app's own options: 1 = flag used, 2 = flag and value used,
     * 0 = not an option of this app, -1 = bad value (message printed). */
    int (*option)(void *app, const char *flag, const char *value);
    /* After all options: settle sizes from ctx (paper, inputs); 0 or -1
     * (message printed). */
    int (*finish)(void *app, const app_ctx *ctx);
    /* The network; its boxes may point into app. (finish has seen ctx, so an
     * app that takes --mpi knows whether to place parts on ranks.) */
    snet_net *(*build)(void *app);
    /* The run: the exit status. */
    int (*run)(void *app, const app_ctx *ctx);
    /* The network places parts on MPI ranks (snet_at_rank, snet_split_at)
     * when built with ctx->mpi: the app takes --mpi. Its field types that
     * cross ranks have these codecs (NULL-terminated list, or NULL). */
    bool mpi;
    const snet_codec *const *codecs;
} app_spec;

int app_main(const app_spec *spec, int argc, char **argv, void *app);

/* Parse value of option flag as a whole number in [min, max] into *out;
 * on error print "PROG: FLAG expects ..." and return -1. */
int app_parse_long(const char *prog, const char *flag, const char *value, long min, long max,
                   long *out);

/* Where a run's output records go: take gets each (ownership passes), in
 * the order they left the network. */
typedef void (*app_take_fn)(void *user, snet_record *rec);

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

#endif
