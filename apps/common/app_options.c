/*
 * app_options.c - the options and helpers both hosts of an application
 * share (app_main.h): the C program and the box library snetrun loads. It
 * calls no runtime function, so that a box library can link it without
 * bringing a second copy of the runtime (snetrun provides that).
 */
#include "app_main.h"

#include <errno.h>
#include <limits.h>
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

/* -w N or --map FILE, which only the C program takes: 0 not one of them,
 * 2 used with its value, -1 bad value (printed). */
static int program_option(const app_spec *spec, const char *a, const char *v, app_ctx *ctx)
{
    long n;
    if (!strcmp(a, "-w")) {
        if (app_parse_long(spec->name, a, v, 1, 4096, &n) != 0)
            return -1;
        ctx->workers = (unsigned)n;
        return 2;
    }
    if (!strcmp(a, "--map")) {
        if (!v) {
            fprintf(stderr, "%s: --map expects a mapping file (docs/MAPPING.md)\n", spec->name);
            return -1;
        }
        ctx->map_path = v;
        return 2;
    }
    return 0;
}

int app_parse_options(const app_spec *spec, app_host host, int argc, char **argv, void *app,
                      app_ctx *ctx)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int used;
        if (!strcmp(a, "--help") || !strcmp(a, "-h"))
            return 1;
        if (!strcmp(a, "--check")) {
            ctx->check = true;
            used = 1;
        } else if (!strcmp(a, "--paper")) {
            ctx->paper = true;
            used = 1;
        } else if (!strcmp(a, "--inputs")) {
            if (app_parse_long(spec->name, a, v, 1, 100000000, &ctx->inputs) != 0)
                return -1;
            used = 2;
        } else if (host == APP_HOST_PROGRAM &&
                   (used = program_option(spec, a, v, ctx)) != 0) {
            if (used < 0)
                return -1;
        } else if ((used = spec->option(app, a, v)) == 0) {
            fprintf(stderr, "%s: unknown option '%s' (see %s --help)\n", spec->name, a,
                    host == APP_HOST_PROGRAM ? spec->name : "snetrun NET.snet");
            return -1;
        } else if (used < 0) {
            return -1;
        }
        i += used - 1;
    }
    return 0;
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
