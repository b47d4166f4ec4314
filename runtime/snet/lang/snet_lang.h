/*
 * snet_lang.h - S-Net programs as written: a .snet file is parsed
 * (snet_syntax.h), its names resolved, its <metadata> read, its record
 * types inferred along the network and checked, and the network built
 * through the same builder API C programs use (snet.h), with boxes found
 * by a caller-supplied resolver (snetrun looks them up in shared
 * libraries). docs/SNET-LANGUAGE.md describes the language and what is
 * supported.
 *
 * Diagnostics are lines "FILE:LINE:COLUMN: error: ..." (or "note:")
 * written to the stream the caller gives; a program with an error is not
 * returned.
 *
 *     snet_lang_program *p;
 *     if (snet_lang_load_file("mc.snet", NULL, stderr, &p) != SNET_LANG_OK) exit(1);
 *     snet_lang_print_tree(p, stdout);                 // the network with its types
 *     snet_net *net = snet_lang_build(p, resolve, ctx, err, sizeof err);
 *     ... snet_run_create(&run, net, ...) ...
 *     snet_net_free(net);
 *     snet_lang_free(p);
 */
#ifndef SNET_LANG_H
#define SNET_LANG_H

#include <stdio.h>

#include "snet.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    SNET_LANG_OK = 0,
    SNET_LANG_ERROR = -1, /* syntax, name, metadata or type errors (reported) */
    SNET_LANG_NOMEM = -2,
    SNET_LANG_IO = -3     /* the file cannot be read */
};

typedef struct snet_lang_program snet_lang_program;

typedef struct snet_lang_options {
    const char *net; /* the net to run; NULL: the top-level net named like the file,
                        else the last top-level net (nets with a network first) */
    int max_errors;  /* stop reporting after this many (0: 20) */
} snet_lang_options;

/* Parse and check text (need not be NUL-terminated) named file in
 * messages. opt may be NULL. Diagnostics go to diag (NULL: discarded). */
int snet_lang_load(const char *text, size_t len, const char *file, const snet_lang_options *opt,
                   FILE *diag, snet_lang_program **out);
/* The same for a file ("-" is standard input). */
int snet_lang_load_file(const char *path, const snet_lang_options *opt, FILE *diag,
                        snet_lang_program **out);
void snet_lang_free(snet_lang_program *p);

/* The name of the net that runs. */
const char *snet_lang_main_net(const snet_lang_program *p);

/* The network as a tree: each combinator, filter, synchro-cell and box
 * with its declared type and the record types inferred to reach it and
 * leave it. */
int snet_lang_print_tree(const snet_lang_program *p, FILE *out);

/* Box libraries named by the metadata (<library value="NAME"/>), in the
 * order they appear; the strings belong to p. */
size_t snet_lang_library_count(const snet_lang_program *p);
const char *snet_lang_library(const snet_lang_program *p, size_t i);

/* ---- building --------------------------------------------------------------- */

/* What the resolver is asked: box `name` (as declared), declared in net
 * `net` (NULL at top level), with the C symbol and library the metadata
 * names (symbol defaults to the box name; library may be NULL), its box
 * interface, and its signature as the runtime gets it (snet_box). */
typedef struct snet_lang_box_query {
    const char *name;
    const char *net;
    const char *symbol;
    const char *library;
    const char *interface; /* "C4SNet" (the default) or "native", any case */
    const char *signature; /* "(A, <cnt>) -> (A, <cnt>) | (B)": labels in declared order */
} snet_lang_box_query;

/* Fill *fn and *user for the box, or return nonzero with a message. */
typedef int (*snet_lang_resolve_fn)(void *ctx, const snet_lang_box_query *box, snet_box_fn *fn,
                                    void **user, char *err, size_t errlen);

/* External nets: a name a program uses but defines nowhere, or a net it
 * only declares (net N ({a} -> {b});), is checked by its declared
 * signature (any record type without one). When the program is built,
 * such a net is the top-level net of that name in a program linked here
 * (the first that has one with a network), built from that program; else
 * a box: the resolver's function of that name, called with the net's
 * declared signature. other must outlive p. SNET_LANG_OK or _NOMEM. */
int snet_lang_link(snet_lang_program *p, const snet_lang_program *other);

/* Build the main net with the builder API (snet.h). Boxes get the task
 * name NET.BOX (the net they are declared in, as the C applications name
 * theirs); each branch of a parallel composition gets the routing type
 * the checker inferred for it (snet_routed). NULL with a message on
 * failure (a box the resolver cannot find, an external net that is
 * nowhere, inline box code). */
snet_net *snet_lang_build(const snet_lang_program *p, snet_lang_resolve_fn resolve, void *ctx,
                          char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* SNET_LANG_H */
