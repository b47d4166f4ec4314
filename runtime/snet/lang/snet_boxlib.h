/*
 * snet_boxlib.h - what a shared library of boxes offers snetrun.
 *
 * Boxes: box B of a .snet file is the exported C function B (or the symbol
 * its metadata names, <box name="B"><symbol value="..."/></box>) with the
 * box API of snet.h:
 *
 *     int B(snet_handle *h, snet_record *in);   // emits with snet_out(h, ...)
 *
 * The library is loaded into snetrun, which provides the snet_* functions;
 * build it with snet_add_box_library() (runtime/snet/lang/CMakeLists.txt),
 * which does not link the runtime into it.
 *
 * An application: optionally the library exports
 *
 *     const snet_boxlib_app snet_boxlib_application = {...};
 *
 * and then takes part in the run: it parses the command-line options
 * snetrun does not know (e.g. --check), may make the input records itself,
 * sees the output records, and decides the exit status (e.g. after checking
 * the result). Every box of the library gets its state as the user pointer
 * (snet_handle_user).
 */
#ifndef SNET_BOXLIB_H
#define SNET_BOXLIB_H

#include "snet.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct snet_boxlib_app {
    const char *name;
    /* Lines for snetrun --help describing the options start takes. */
    const char *options_help;
    /* Parse the remaining options (argv[0] is the program name) and make
     * the state. 0: ok; 1: help was printed (exit 0); -1: usage error
     * (message printed; exit 2). May be NULL. */
    int (*start)(int argc, char **argv, void **state);
    /* Field types the record reader and writer should know. */
    const snet_field_type *const *types;
    size_t ntypes;
    /* The input records when no input file is given (NULL when done);
     * NULL: records come from standard input. Called from a task. */
    snet_record *(*input)(void *state);
    /* Each output record (ownership passes), from the output task; NULL:
     * snetrun writes them out. */
    void (*output)(void *state, snet_record *rec);
    /* After the run. status is snetrun's exit status so far (0 when the
     * run succeeded); the result is the exit status. Frees the state. */
    int (*finish)(void *state, int status);
} snet_boxlib_app;

/* The name snetrun looks up (not the type's name, which C keeps for the type). */
#define SNET_BOXLIB_APP_SYMBOL "snet_boxlib_application"

#ifdef __cplusplus
}
#endif

#endif /* SNET_BOXLIB_H */
