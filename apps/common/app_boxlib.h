/*
 * app_boxlib.h - an application as the box library of its .snet file
 * (runtime/snet/lang/snet_boxlib.h): snetrun parses and builds the network
 * from apps/NAME/NAME.snet, finds the boxes in libNAME_boxes.so by the
 * symbols its metadata names, and hands the options it does not know to
 * this glue, which drives the app's own functions (app_spec) exactly as
 * the C program does: the same options, input records, output handling,
 * report and --check. Each app's NAME_boxlib.c is one line:
 *
 *     APP_BOXLIB(mc_app_spec, "mc", MC_ABOUT, MC_OPTIONS_HELP)
 *
 * One application per process: snetrun runs one network.
 */
#ifndef APP_BOXLIB_H
#define APP_BOXLIB_H

#include "snet_prog.h"

#include <snet_boxlib.h>

/* The hooks of snet_boxlib_app, for spec (start remembers it). */
int app_boxlib_start(const app_spec *spec, int argc, char **argv, void **state);
snet_record *app_boxlib_input(void *state);
void app_boxlib_output(void *state, snet_record *rec);
int app_boxlib_finish(void *state, int status);

/* Define the library's snet_boxlib_application for the app_spec SPEC named
 * NAME, described by ABOUT, whose own options are described by the help
 * lines OPTIONS_HELP (string literals: snetrun NET.snet --help shows them
 * from the constant struct). */
#define APP_BOXLIB(SPEC, NAME, ABOUT, OPTIONS_HELP)                                               \
    static int app_boxlib_start_##SPEC(int argc, char **argv, void **state)                \
    {                                                                                      \
        return app_boxlib_start(&SPEC, argc, argv, state);                                 \
    }                                                                                      \
    const snet_boxlib_app snet_boxlib_application = {                                      \
        .name = NAME,                                                                      \
        .options_help = ABOUT APP_SHARED_OPTIONS_HELP OPTIONS_HELP,                          \
        .start = app_boxlib_start_##SPEC,                                                  \
        .types = NULL,                                                                     \
        .ntypes = 0,                                                                       \
        .input = app_boxlib_input,                                                         \
        .output = app_boxlib_output,                                                       \
        .finish = app_boxlib_finish,                                                       \
    };

#endif
