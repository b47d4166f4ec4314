/*
 * app_main.c - the main() the four applications share (see app_main.h), so
 * that each app's own file holds only its network, its options and its
 * check.
 */
#include "app_main.h"

#include <errno.h>
#include <limits.h>
#include <mon.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(const app_spec *spec, FILE *out)
{
    fprintf(out,
            "usage: %s [options]\n"
            "%s\n"
            "  -w N             workers (default: one per core)\n"
            "  --inputs N       input records in the stream (default and --paper: below)\n"
            "%s"
            "  --paper          the paper's sizes\n"
            "  --map FILE       place tasks on workers by net-path patterns (docs/MAPPING.md);\n"
            "                   `snetmon advise TRACE -o FILE` writes one from a trace\n"
            "  --check          verify every result (exit 1 if one is wrong)\n"
            "%s"
            MON_OPTIONS_HELP
            "  --help           this text\n",
            spec->name, spec->about, spec->options,
            spec->mpi ? "  --mpi            run across the ranks of an MPI job (mpirun -n R ... --mpi):\n"
                        "                   the !@ replicas go to the ranks, each rank writes its\n"
                        "                   trace into DIR/rank-R; rank 0 reads the input and prints\n"
                        : "");
}

/* The shared options; returns 0, 1 (help shown) or -1 (usage error). */
static int parse(const app_spec *spec, int argc, char **argv, void *app, app_ctx *ctx)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        long n;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(spec, stdout);
            return 1;
        } else if (!strcmp(a, "--check")) {
            ctx->check = true;
        } else if (!strcmp(a, "--paper")) {
            ctx->paper = true;
        } else if (!strcmp(a, "--mpi") && spec->mpi) {
            ctx->mpi = true;
        } else if (!strcmp(a, "-w") || !strcmp(a, "--inputs")) {
            if (app_parse_long(spec->name, a, v, 1, a[1] == 'w' ? 4096 : 100000000, &n) != 0)
                return -1;
            if (a[1] == 'w')
                ctx->workers = (unsigned)n;
            else
                ctx->inputs = n;
            i++;
        } else if (!strcmp(a, "--map")) {
            if (!v) {
                fprintf(stderr, "%s: --map expects a mapping file (docs/MAPPING.md)\n",
                        spec->name);
                return -1;
            }
            ctx->map_path = v;
            i++;
        } else {
            int used = spec->option(app, a, v);
            if (used < 0)
                return -1;
            if (used == 0) {
                fprintf(stderr, "%s: unknown option '%s' (see %s --help)\n", spec->name, a,
                        spec->name);
                return -1;
            }
            i += used - 1;
        }
    }
    return 0;
}

/* Build the network and load and check the mapping: 0, or -1 (printed). */
static int prepare(const app_spec *spec, void *app, app_ctx *ctx, snet_net **net,
                   snet_mapping **mapping)
{
    char err[1024];
    *net = spec->build(app);
    const char *problem = snet_net_check(*net);
    if (problem) {
        fprintf(stderr, "%s: bad network: %s\n", spec->name, problem);
        return -1;
    }
    ctx->net = *net;
    if (!ctx->map_path)
        return 0;
    unsigned workers = ctx->workers ? ctx->workers : lpel_core_count();
    if (snet_mapping_load(ctx->map_path, mapping, err, sizeof err) != SNET_OK ||
        snet_mapping_check(*mapping, *net, workers, err, sizeof err) != SNET_OK) {
        fprintf(stderr, "%s: %s\n", spec->name, err);
        return -1;
    }
    ctx->mapping = *mapping;
    return 0;
}

/* --mpi: join the job; the trace of this rank goes into DIR/rank-R. 0 or
 * -1 (printed). */
static int join_job(const app_spec *spec, int *argc, char ***argv, app_ctx *ctx, mon_options *mo)
{
    char err[512];
    if (snet_distrib_init(&ctx->distrib, argc, argv, err, sizeof err) != SNET_OK) {
        fprintf(stderr, "%s: --mpi: %s\n", spec->name, err);
        return -1;
    }
    ctx->rank = snet_distrib_rank(ctx->distrib);
    ctx->ranks = snet_distrib_size(ctx->distrib);
    mon_options_set_rank(mo, ctx->rank, ctx->ranks);
    return 0;
}

int app_main(const app_spec *spec, int argc, char **argv, void *app)
{
    mon_options mo;
    char err[512];
    app_ctx ctx = {.prog = spec->name, .ranks = 1, .codecs = spec->codecs};
    if (mon_parse_args(&argc, argv, &mo, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", spec->name, err);
        return 2;
    }
    int parsed = parse(spec, argc, argv, app, &ctx);
    if (parsed != 0)
        return parsed > 0 ? 0 : 2;
    if (ctx.mpi && join_job(spec, &argc, &argv, &ctx, &mo) != 0)
        return 1;
    snet_net *net = NULL;
    snet_mapping *mapping = NULL;
    int status = 2;
    if (spec->finish(app, &ctx) != 0)
        goto out;
    if (prepare(spec, app, &ctx, &net, &mapping) != 0)
        goto out;
    mon *m = NULL;
    lpel_hooks hooks;
    if (mon_open(&m, &mo, argc, argv, &hooks, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", spec->name, err);
        status = 1;
        goto out;
    }
    ctx.hooks = mon_lpel_hooks(m);
    status = spec->run(app, &ctx);
    if (mon_close(m) != 0 && status == 0)
        status = 1;
out:
    snet_mapping_free(mapping);
    snet_net_free(net);
    snet_distrib_finalize(ctx.distrib);
    return status;
}

int app_parse_long(const char *prog, const char *flag, const char *value, long min, long max,
                   long *out)
{
    char *end;
    errno = 0;
    long n = value ? strtol(value, &end, 10) : 0;
    if (!value || errno || *end || end == value || n < min || n > max) {
        if (max == LONG_MAX)
            fprintf(stderr, "%s: %s expects a whole number >= %ld, got '%s'\n", prog, flag, min,
                    value ? value : "(nothing)");
        else
            fprintf(stderr, "%s: %s expects a whole number from %ld to %ld, got '%s'\n", prog,
                    flag, min, max, value ? value : "(nothing)");
        return -1;
    }
    *out = n;
    return 0;
}

int app_run_network(const app_ctx *ctx, bool monitored, snet_input_fn next, void *in_user,
                    app_take_fn take, void *out_user)
{
    snet_config cfg = snet_config_default();
    cfg.lpel.num_workers = ctx->workers;
    cfg.lpel.hooks = monitored ? ctx->hooks : NULL;
    cfg.mapping = ctx->mapping;
    cfg.distrib = ctx->distrib;
    snet_run *run;
    char err[1024];
    if (snet_run_create(&run, ctx->net, &cfg, err, sizeof err) != SNET_OK) {
        fprintf(stderr, "%s: %s\n", ctx->prog, err);
        return -1;
    }
    for (const snet_codec *const *c = ctx->codecs; c && *c; c++)
        snet_run_register_codec(run, *c);
    snet_run_set_input_fn(run, next, in_user);
    int rc = snet_run_execute(run);
    if (rc != SNET_OK && ctx->rank == 0) /* every rank has the same error: one says it */
        fprintf(stderr, "%s: run failed: %s\n", ctx->prog, snet_run_error(run));
    for (snet_record *o; (o = snet_run_take_output(run)) != NULL;)
        take(out_user, o);
    snet_run_destroy(run);
    return rc == SNET_OK ? 0 : -1;
}

uint64_t app_mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15u;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}
