/*
 * app_boxlib.c - the hooks snetrun calls on an application's box library
 * (app_boxlib.h): the part app_main plays for the C program, minus what
 * snetrun does itself (the network, workers, monitoring, the run).
 *
 * The state snetrun keeps, and gives every box as its user pointer, is the
 * app's own state, as in the C program; the spec and the options live here
 * for the one run of the process.
 */
#include "app_boxlib.h"

#include <stdio.h>
#include <stdlib.h>

static struct {
    const app_spec *spec;
    app_ctx ctx;
} host;

int app_boxlib_start(const app_spec *spec, int argc, char **argv, void **state)
{
    void *app = app_new(spec);
    if (!app)
        return -1;
    host.spec = spec;
    host.ctx = (app_ctx){.prog = spec->name, .ranks = 1};
    int parsed = app_parse_options(spec, APP_HOST_SNETRUN, argc, argv, app, &host.ctx);
    if (parsed == 0 && spec->finish(app, &host.ctx) == 0) {
        *state = app;
        return 0;
    }
    if (parsed == 1) {
        char synopsis[128];
        snprintf(synopsis, sizeof synopsis, "snetrun apps/%s/%s.snet [snetrun options] [options]",
                 spec->name, spec->name);
        app_usage(spec, synopsis, "  (snetrun --help: snetrun's own options)\n", stdout);
    } else if (parsed == 0) {
        spec->report(app, &host.ctx, -1); /* frees what a failed finish made */
    }
    free(app);
    return parsed > 0 ? 1 : -1;
}

snet_record *app_boxlib_input(void *state) { return host.spec->input(state); }

void app_boxlib_output(void *state, snet_record *rec) { host.spec->output(state, rec); }

int app_boxlib_finish(void *state, int status)
{
    int reported = host.spec->report(state, &host.ctx, status == 0 ? 0 : -1);
    free(state);
    return status != 0 ? status : reported;
}
