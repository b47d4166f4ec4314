/*
 * app_main.c - the main() the four applications' C programs share (see
 * snet_prog.h): options, the network built and checked against the
 * mapping, the monitor opened around the run, the run and the app's
 * report. Under snetrun, app_boxlib.c plays this part.
 */
#include "snet_prog.h"

#include <mon.h>
#include <stdio.h>
#include <stdlib.h>

static void usage(const app_spec *spec, FILE *out)
{
    char synopsis[128];
    snprintf(synopsis, sizeof synopsis, "%s [options]", spec->name);
    static const char host_options[] =
        "  -w N             workers (default: one per core)\n"
        "  --map FILE       place tasks on workers by net-path patterns (docs/MAPPING.md);\n"
        "                   `snetmon advise TRACE -o FILE` writes one from a trace\n"
        MON_OPTIONS_HELP
        "  -h, --help       this text\n"
        "  --version        the version and git revision\n";
    static const char host_options_mpi[] =
        "  -w N             workers (default: one per core)\n"
        "  --map FILE       place tasks on workers by net-path patterns (docs/MAPPING.md);\n"
        "                   `snetmon advise TRACE -o FILE` writes one from a trace\n"
        APP_MPI_OPTION_HELP
        MON_OPTIONS_HELP
        "  -h, --help       this text\n"
        "  --version        the version and git revision\n";
    app_usage(spec, synopsis, spec->mpi ? host_options_mpi : host_options, out);
}

/* Build the network and load and check the mapping: 0, or -1 (printed). */
static int prepare(const app_spec *spec, void *app, app_ctx *ctx, snet_net **net,
                   snet_mapping **mapping)
{
    *net = spec->build(app);
    const char *problem = snet_net_check(*net);
    if (problem) {
        fprintf(stderr, "%s: bad network: %s\n", spec->name, problem);
        return -1;
    }
    ctx->net = *net;
    if (!ctx->map_path)
        return 0;
    if (snet_prog_load_mapping(spec->name, ctx->map_path, *net, ctx->workers, mapping) != 0)
        return -1;
    ctx->mapping = *mapping;
    return 0;
}

/* --mpi: join the job (MPI_Init through the S-Net library); this rank's
 * trace goes into DIR/rank-R. 0, or -1 after the message. */
static int join_job(const app_spec *spec, int *argc, char ***argv, app_ctx *ctx, mon_options *mo)
{
    char err[512];
    if (snet_distrib_init(&ctx->distrib, argc, argv, err, sizeof err) != SNET_OK) {
        fprintf(stderr, "%s: --mpi: %s\n", spec->name, err);
        return -1;
    }
    ctx->rank = snet_distrib_rank(ctx->distrib);
    ctx->ranks = snet_distrib_size(ctx->distrib);
    if (mon_options_set_rank(mo, ctx->rank, ctx->ranks) != 0) {
        fprintf(stderr, "%s: --mpi: MPI says rank %d of %d\n", spec->name, ctx->rank,
                ctx->ranks);
        return -1;
    }
    return 0;
}

/* ctx->rerun of the C program: the same network, unmonitored. */
static int rerun_unmonitored(const app_ctx *ctx, snet_input_fn next, void *in_user,
                             app_take_fn take, void *out_user)
{
    return app_run_network(ctx, false, next, in_user, take, out_user);
}

/* The monitored run and the report; the exit status. */
static int run_and_report(const app_spec *spec, void *app, app_ctx *ctx, const mon_options *mo,
                          int argc, char **argv)
{
    mon *m = NULL;
    lpel_hooks hooks;
    char err[512];
    if (mon_open(&m, mo, argc, argv, &hooks, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", spec->name, err);
        spec->report(app, ctx, -1);
        return 1;
    }
    ctx->hooks = mon_lpel_hooks(m);
    ctx->rerun = rerun_unmonitored;
    int run = app_run_network(ctx, true, spec->input, app, spec->output, app);
    int status = spec->report(app, ctx, run);
    if (mon_close(m) != 0 && status == 0)
        status = 1;
    return status;
}

int app_main(const app_spec *spec, int argc, char **argv)
{
    mon_options mo;
    char err[512];
    app_ctx ctx = {.prog = spec->name, .ranks = 1, .codecs = spec->codecs};
    if (mon_parse_args(&argc, argv, &mo, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", spec->name, err);
        return 2;
    }
    void *app = app_new(spec);
    if (!app)
        return 1;
    int status = 2;
    snet_net *net = NULL;
    snet_mapping *mapping = NULL;
    int parsed = app_parse_options(spec, APP_HOST_PROGRAM, argc, argv, app, &ctx);
    if (parsed != 0) {
        if (parsed == 1)
            usage(spec, stdout);
        free(app);
        return parsed > 0 ? 0 : 2;
    }
    if (ctx.mpi && join_job(spec, &argc, &argv, &ctx, &mo) != 0) {
        snet_distrib_finalize(ctx.distrib);
        free(app);
        return 1;
    }
    if (spec->finish(app, &ctx) != 0 || prepare(spec, app, &ctx, &net, &mapping) != 0)
        spec->report(app, &ctx, -1);
    else
        status = run_and_report(spec, app, &ctx, &mo, argc, argv);
    snet_mapping_free(mapping);
    snet_net_free(net);
    snet_distrib_finalize(ctx.distrib);
    free(app);
    return status;
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
