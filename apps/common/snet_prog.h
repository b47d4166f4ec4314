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
 * app_main: what every application's main() shares: the options all four
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
#ifndef SNET_PROG_H
#define SNET_PROG_H

#include <lpel.h>
#include <snet.h>

#include <stdbool.h>

/*
 * A complete command-line program around a net (freed before returning):
 *   -w N            workers (default: one per core)
 *   --map FILE      place tasks by the mapping file (docs/MAPPING.md)
 *   -i FILE         input records (default: stdin), docs/RECORDS.md
 *   -O FILE         output records (default: stdout)
 *   -m FLAGS, -o DIR, --mon-tasks RE, --mon-flush MS   monitoring (mon.h)
 * Returns the process exit status: 0 on success, 1 on a runtime error, 2 on
 * a usage error.
 */
int snet_prog_main(int argc, char **argv, snet_net *net);
/* The same, with field types the text reader should know. */
int snet_prog_main_types(int argc, char **argv, snet_net *net,
                         const snet_field_type *const *types, size_t ntypes);

/* Load the mapping file path and check it against net for `workers` (0 =
 * one per core): 0, or -1 after printing "PROG: FILE:LINE: ..." (a usage
 * error: nothing has run yet). *out is NULL on error. */
int snet_prog_load_mapping(const char *prog, const char *path, const snet_net *net,
                           unsigned workers, snet_mapping **out);

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
} app_ctx;

typedef struct app_spec {
    const char *name;    /* program name in messages: "mc" */
    const char *about;   /* --help: what the program does and its network */
    const char *options; /* --help: the program's own options, one per line */
    /* The app's own options, each taking a value: their long names without
     * "--", NULL-terminated (parsed with getopt_long with the shared ones). */
    const char *const *value_options;
    /* One of the app's own options ("--name", its value): 1 or 2 = used,
     * 0 = not an option of this app, -1 = bad value (message printed). */
    int (*option)(void *app, const char *flag, const char *value);
    /* After all options: settle sizes from ctx (paper, inputs); 0 or -1
     * (message printed). */
    int (*finish)(void *app, const app_ctx *ctx);
    /* The network; its boxes may point into app. */
    snet_net *(*build)(void *app);
    /* The run: the exit status. */
    int (*run)(void *app, const app_ctx *ctx);
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

#endif /* SNET_PROG_H */
