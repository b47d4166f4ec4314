/*
 * app_options.c - the options and helpers both hosts of an application
 * share (snet_prog.h): the C program and the box library snetrun loads. It
 * calls no runtime function, so that a box library can link it without
 * bringing a second copy of the runtime (snetrun provides that). Options
 * are parsed with getopt_long through prog_opt.h, as in every program.
 */
#include "snet_prog.h"

#include <errno.h>
#include <limits.h>
#include <prog_opt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *app_new(const app_spec *spec)
{
    void *app = calloc(1, spec->size);
    if (!app) {
        fprintf(stderr, "%s: out of memory\n", spec->name);
        return NULL;
    }
    if (spec->init)
        spec->init(app);
    return app;
}

void app_usage(const app_spec *spec, const char *synopsis, const char *host_options, FILE *out)
{
    fprintf(out, "usage: %s\n%s\n" APP_SHARED_OPTIONS_HELP "%s%s", synopsis, spec->about,
            spec->options, host_options);
}

enum { OPT_INPUTS = PROG_OPT_OWN, OPT_PAPER, OPT_CHECK, OPT_SCALE, OPT_MAP, OPT_MPI, OPT_APP };

/* The options of the host's argv for getopt_long: the shared ones, -w N
 * and --map FILE for the C program (snetrun takes those itself), --mpi for
 * the C program of an app that runs across ranks (the program joins the
 * MPI job; snetrun does not), and the app's value options; NULL when out
 * of memory. */
static struct option *option_table(const app_spec *spec, app_host host)
{
    static const struct option shared[] = {
        PROG_OPT_STANDARD,
        {"inputs", required_argument, NULL, OPT_INPUTS},
        {"paper", no_argument, NULL, OPT_PAPER},
        {"check", no_argument, NULL, OPT_CHECK},
        {"scale", required_argument, NULL, OPT_SCALE}};
    static const struct option program[] = {
        {"workers", required_argument, NULL, 'w'},
        {"map", required_argument, NULL, OPT_MAP},
        {"mpi", no_argument, NULL, OPT_MPI}}; /* last: only with spec->mpi */
    size_t nshared = sizeof shared / sizeof shared[0], napp = 0;
    size_t nprogram = host == APP_HOST_PROGRAM ? sizeof program / sizeof program[0] : 0;
    if (nprogram && !spec->mpi)
        nprogram--;
    while (spec->value_options && spec->value_options[napp])
        napp++;
    struct option *t = calloc(nshared + nprogram + napp + 1, sizeof *t);
    if (!t)
        return NULL;
    memcpy(t, shared, sizeof shared);
    memcpy(t + nshared, program, nprogram * sizeof *program);
    for (size_t k = 0; k < napp; k++)
        t[nshared + nprogram + k] = (struct option){spec->value_options[k], required_argument,
                                                    NULL, OPT_APP + (int)k};
    return t;
}

/* The boxes --scale takes, for messages: "vcall" or "ip, round1, ...". */
static void scalable_list(const app_spec *spec, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; spec->scalable && spec->scalable[i] && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", spec->scalable[i]);
}

/* --scale BOX=F: 0, or -1 after the message. */
static int take_scale(const app_spec *spec, app_ctx *ctx, const char *arg)
{
    const char *eq = strchr(arg, '=');
    size_t k = 0, n = eq ? (size_t)(eq - arg) : 0;
    while (spec->scalable && spec->scalable[k] &&
           (strlen(spec->scalable[k]) != n || strncmp(spec->scalable[k], arg, n)))
        k++;
    char *end;
    errno = 0;
    double f = eq ? strtod(eq + 1, &end) : 0;
    char boxes[256];
    scalable_list(spec, boxes, sizeof boxes);
    if (!spec->scalable || !spec->scalable[k]) {
        fprintf(stderr, "%s: --scale expects BOX=F with BOX one of: %s; got '%s'\n", spec->name,
                boxes[0] ? boxes : "(none: no box of this app can be scaled)", arg);
        return -1;
    }
    if (errno || end == eq + 1 || *end || !(f > 0 && f <= 1)) {
        fprintf(stderr, "%s: --scale %.*s=F expects a fraction 0 < F <= 1, got '%s'\n",
                spec->name, (int)n, arg, eq + 1);
        return -1;
    }
    size_t i = 0;
    while (i < ctx->n_scales && strcmp(ctx->scales[i].box, spec->scalable[k]))
        i++;
    if (i == ctx->n_scales) {
        if (ctx->n_scales == APP_MAX_SCALES) {
            fprintf(stderr, "%s: --scale: at most %d boxes\n", spec->name, APP_MAX_SCALES);
            return -1;
        }
        ctx->n_scales++;
    }
    ctx->scales[i] = (app_scale){spec->scalable[k], f};
    return 0;
}

double app_scale_of(const app_ctx *ctx, const char *box)
{
    for (size_t i = 0; i < ctx->n_scales; i++)
        if (!strcmp(ctx->scales[i].box, box))
            return ctx->scales[i].factor;
    return 1.0;
}

/* One shared, host or app option; 0, or -1 after the message. */
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
    case OPT_SCALE:
        return take_scale(spec, ctx, optarg);
    case 'w':
        if (app_parse_long(spec->name, "-w", optarg, 1, 4096, &n) != 0)
            return -1;
        ctx->workers = (unsigned)n;
        return 0;
    case OPT_INPUTS:
        return app_parse_long(spec->name, "--inputs", optarg, 1, 100000000, &ctx->inputs);
    case OPT_MAP:
        ctx->map_path = optarg;
        return 0;
    case OPT_MPI:
        ctx->mpi = true;
        return 0;
    default: {
        char flag[64];
        snprintf(flag, sizeof flag, "--%s", spec->value_options[c - OPT_APP]);
        int used = spec->option(app, flag, optarg);
        if (used == 0) /* listed in value_options, not taken by option() */
            fprintf(stderr, "%s: unknown option '%s'\n", spec->name, flag);
        return used > 0 ? 0 : -1;
    }
    }
}

int app_parse_options(const app_spec *spec, app_host host, int argc, char **argv, void *app,
                      app_ctx *ctx)
{
    struct option *longopts = option_table(spec, host);
    if (!longopts) {
        fprintf(stderr, "%s: out of memory\n", spec->name);
        return -1;
    }
    prog_opt p;
    prog_opt_begin(&p, spec->name, argc, argv);
    int rc = 0;
    const char *shortopts = host == APP_HOST_PROGRAM ? "hw:" : "h";
    for (int c; rc == 0 && (c = prog_opt_next(&p, shortopts, longopts)) != -1;) {
        if (c == 'h')
            rc = 1;
        else if (c == PROG_OPT_VERSION)
            rc = 2 + prog_opt_version(&p);
        else if (c == PROG_OPT_ERROR || take_option(spec, app, ctx, c) != 0)
            rc = -1;
    }
    if (rc == 0 && prog_opt_npositional(&p) > 0) {
        fprintf(stderr, "%s: unexpected argument '%s' (see %s --help)\n", spec->name,
                prog_opt_positional(&p)[0],
                host == APP_HOST_PROGRAM ? spec->name : "snetrun NET.snet");
        rc = -1;
    }
    free(longopts);
    return rc;
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

uint64_t app_mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15u;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}
