/*
 * app_main.c - the main() the four applications share (see snet_prog.h),
 * so that each app's own file holds only its network, its options and its
 * check.
 */
#include "snet_prog.h"

#include <errno.h>
#include <limits.h>
#include <mon.h>
#include <prog_opt.h>
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
            MON_OPTIONS_HELP
            "  -h, --help       this text\n"
            "  --version        the version and git revision\n",
            spec->name, spec->about, spec->options);
}

enum { OPT_INPUTS = PROG_OPT_OWN, OPT_PAPER, OPT_CHECK, OPT_MAP, OPT_APP };

/* The shared options and the app's value options, for getopt_long; NULL
 * when out of memory. */
static struct option *option_table(const app_spec *spec)
{
    static const struct option shared[] = {
        PROG_OPT_STANDARD,
        {"workers", required_argument, NULL, 'w'},
        {"inputs", required_argument, NULL, OPT_INPUTS},
        {"paper", no_argument, NULL, OPT_PAPER},
        {"check", no_argument, NULL, OPT_CHECK},
        {"map", required_argument, NULL, OPT_MAP}};
    size_t nshared = sizeof shared / sizeof shared[0], napp = 0;
    while (spec->value_options && spec->value_options[napp])
        napp++;
    struct option *t = calloc(nshared + napp + 1, sizeof *t);
    if (!t)
        return NULL;
    memcpy(t, shared, sizeof shared);
    for (size_t k = 0; k < napp; k++)
        t[nshared + k] = (struct option){spec->value_options[k], required_argument, NULL,
                                         OPT_APP + (int)k};
    return t;
}

/* One shared or app option; 0, or -1 after the message. */
static int take_option(const app_spec *spec, void *app, app_ctx *ctx, int c)
{
    long n;
    switch (c) {
    case OPT_CHECK:
        ctx->check = true;
        return 0;
    case OPT_PAPER:
        ctx->paper = true;
        return 0;
    case 'w':
        if (app_parse_long(spec->name, "-w", optarg, 1, 4096, &n) != 0)
            return -1;
        ctx->workers = (unsigned)n;
        return 0;
    case OPT_INPUTS:
        if (app_parse_long(spec->name, "--inputs", optarg, 1, 100000000, &n) != 0)
            return -1;
        ctx->inputs = n;
        return 0;
    case OPT_MAP:
        ctx->map_path = optarg;
        return 0;
    default: {
        char flag[64];
        snprintf(flag, sizeof flag, "--%s", spec->value_options[c - OPT_APP]);
        return spec->option(app, flag, optarg) > 0 ? 0 : -1;
    }
    }
}

/* The shared options; returns 0, 1 (help or version shown) or -1 (usage
 * error, message printed). */
static int parse(const app_spec *spec, int argc, char **argv, void *app, app_ctx *ctx)
{
    struct option *longopts = option_table(spec);
    if (!longopts) {
        fprintf(stderr, "%s: out of memory\n", spec->name);
        return -1;
    }
    prog_opt p;
    prog_opt_begin(&p, spec->name, argc, argv);
    int rc = 0;
    for (int c; rc == 0 && (c = prog_opt_next(&p, "hw:", longopts)) != -1;) {
        if (c == 'h') {
            usage(spec, stdout);
            rc = 1;
        } else if (c == PROG_OPT_VERSION) {
            prog_opt_version(&p);
            rc = 1;
        } else if (c == PROG_OPT_ERROR) {
            rc = -1;
        } else if (take_option(spec, app, ctx, c) != 0) {
            rc = -1;
        }
    }
    if (rc == 0 && prog_opt_npositional(&p) > 0) {
        fprintf(stderr, "%s: unexpected argument '%s' (see %s --help)\n", spec->name,
                prog_opt_positional(&p)[0], spec->name);
        rc = -1;
    }
    free(longopts);
    return rc;
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

int app_main(const app_spec *spec, int argc, char **argv, void *app)
{
    mon_options mo;
    char err[512];
    app_ctx ctx = {.prog = spec->name};
    if (mon_parse_args(&argc, argv, &mo, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", spec->name, err);
        return 2;
    }
    int parsed = parse(spec, argc, argv, app, &ctx);
    if (parsed != 0)
        return parsed > 0 ? 0 : 2;
    if (spec->finish(app, &ctx) != 0)
        return 2;
    snet_net *net = NULL;
    snet_mapping *mapping = NULL;
    int status = 2;
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
    snet_run *run;
    char err[1024];
    if (snet_run_create(&run, ctx->net, &cfg, err, sizeof err) != SNET_OK) {
        fprintf(stderr, "%s: %s\n", ctx->prog, err);
        return -1;
    }
    snet_run_set_input_fn(run, next, in_user);
    int rc = snet_run_execute(run);
    if (rc != SNET_OK)
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
