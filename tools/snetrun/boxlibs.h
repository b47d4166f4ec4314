/*
 * boxlibs.h - snetrun's box libraries: shared objects loaded with dlopen,
 * found by path (--boxes) or by the name the .snet metadata gives
 * (<library value="NAME"/> -> libNAME.so, searched in -L directories,
 * $SNET_BOX_PATH, the .snet file's directory, the build tree's box
 * directory when snetrun runs from its build tree or PREFIX/lib/snet-boxes
 * when it is installed as PREFIX/bin/snetrun, then the system's library
 * path). Boxes are native (snet.h's box API) or C4SNet (C4SNet.h), as the
 * metadata's <interface> says.
 */
#ifndef SNETRUN_BOXLIBS_H
#define SNETRUN_BOXLIBS_H

#include <snet_boxlib.h>
#include <snet_lang.h>

typedef struct boxlibs boxlibs;

/* dirs: -L directories (borrowed); snet_dir: the .snet file's directory. */
boxlibs *boxlibs_new(const char *const *dirs, size_t ndirs, const char *snet_dir);
void boxlibs_free(boxlibs *b);

/* Load a library by path (--boxes). 0, or -1 with a message. Libraries
 * given this way replace the ones the metadata names. */
int boxlibs_load_path(boxlibs *b, const char *path, char *err, size_t errlen);
/* Load the library the metadata names, searching for it. */
int boxlibs_load_name(boxlibs *b, const char *name, char *err, size_t errlen);

/* The first loaded library's application hooks (NULL if none). */
const snet_boxlib_app *boxlibs_app(const boxlibs *b);
/* The pointer the app's boxes get (its state). */
void boxlibs_set_app_state(boxlibs *b, void *state);

/* A snet_lang_resolve_fn over the loaded libraries (ctx = boxlibs). A box
 * of the interface "native" is its function; a C4SNet box (any other
 * interface the language lets through) is called by its signature
 * through c4snet_box_call, its description kept here until boxlibs_free. */
int boxlibs_resolve(void *ctx, const snet_lang_box_query *box, snet_box_fn *fn, void **user,
                    char *err, size_t errlen);
/* How many native boxes were resolved: with none, the program's fields
 * are C4SNet data. */
size_t boxlibs_native_count(const boxlibs *b);

#endif
