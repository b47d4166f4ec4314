/*
 * lang_internal.h - what the parts of snet_lang share: the checked program
 * (scopes, resolved definitions, metadata), diagnostics, and the record
 * types of the inference (sets of labels). Not part of the interface.
 *
 *   check.c     loading, scopes, name resolution, static filter checks
 *   metadata.c  <metadata> blocks (libxml2)
 *   infer.c     record types along the network
 *   tree.c      snet_lang_print_tree
 *   build.c     snet_lang_build
 */
#ifndef SNET_LANG_INTERNAL_H
#define SNET_LANG_INTERNAL_H

#include "kit.h"
#include "snet_lang.h"
#include "syntax_internal.h"

/* ---- record types of the inference ------------------------------------------ */

/* A record type: the set of its labels, as ids of the program's label
 * table, ascending. An open record type ({a, ...}) comes out of an
 * external net of unknown type: it has these labels and perhaps any
 * others, so it matches every variant and is never a type error. */
typedef struct rtype {
    size_t n;
    bool open;
    int ids[];
} rtype;

/* A set of record types (no duplicates). */
typedef struct tset {
    rtype **items;
    size_t n;
} tset;

/* ---- metadata ---------------------------------------------------------------- */

typedef struct box_meta {
    const char *name; /* NULL: the defaults (<boxdefault>, <default>) */
    const char *interface, *library, *symbol;
} box_meta;

/* ---- scopes and definitions -------------------------------------------------------- */

typedef struct scope scope;
struct scope {
    scope *parent;
    snet_ast_def *owner; /* the net whose body this is; NULL at top level */
    snet_ast_def **defs;
    size_t ndefs;
    box_meta *meta;
    size_t nmeta;
};

/* What the checker knows about a definition (def->info). */
typedef struct def_info {
    scope *where;  /* the scope it is defined in */
    scope *body;   /* nets: the scope of its body */
    int state;     /* resolution: 0 new, 1 in progress, 2 done */
    snet_ast_type box_in, box_out; /* boxes: declared types, type names expanded */
    snet_ast_sig sig;      /* nets: signature expanded (no typesig names, no type names);
                              typesigs: the same */
    snet_ast_type type;    /* types: expanded */
    bool has_sig;
    bool used;
    bool external;  /* a name defined nowhere in the file (check.c makes the def) */
    bool boxable;   /* a net without a network whose box_in -> box_out is its
                       signature: it may run as a box of a box library */
    int visiting; /* cycle search and inference recursion guard */
    bool in_cycle; /* on a reported cycle of nets */
    /* memo of the body's inference (nets without a signature) */
    struct memo_entry *memo;
    size_t nmemo;
    tset in, out; /* nets: record types seen entering and leaving it */
} def_info;

/* What the checker knows about a network node (node->info). */
typedef struct node_info {
    snet_ast_def *def; /* SNET_N_REF: the box or net */
    tset in, out;      /* record types seen reaching it and leaving it */
    bool reported;     /* one type error per node is enough */
    /* A branch of a parallel composition: the record types it is chosen
     * for (its routing type), what the whole branch needs (infer.c). */
    bool routed;
    tset route;
} node_info;

/* ---- the program ---------------------------------------------------------------------- */

struct snet_lang_program {
    snet_ast_program *ast;
    snet_arena *arena; /* everything the checker allocates */
    const char *file;
    FILE *diag;
    int errors, max_errors;
    bool nomem;
    scope *top;
    snet_ast_def *main;
    snet_ast_def **externals; /* names defined nowhere, in order of first use */
    size_t nexternals;
    const snet_lang_program **linked; /* snet_lang_link: where external nets are */
    size_t nlinked;
    const char **libraries;
    size_t nlibraries;
    /* label table of the inference */
    const char **label_names;
    snet_ast_label_kind *label_kinds;
    size_t nlabels;
    size_t budget; /* record types the inference may still create */
    bool gave_up;
    /* Trial runs (infer.c) report no errors and record nothing; at the
     * first record type an entity refuses they note the labels it lacks
     * for the closest of the types the entity takes (one set per equally
     * close type). */
    bool quiet;
    tset missing;
    /* the record type of each declared variant, by address (infer.c) */
    struct variant_slot *vcache; /* in the arena */
    size_t vcache_used;
    kit_index_map vcache_map;   /* variant -> index into vcache */
};

/* Diagnostics "FILE:L:C: error: ..." (counted) and "...: note: ...". */
void lang_error(snet_lang_program *p, snet_src at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void lang_note(snet_lang_program *p, snet_src at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Allocation in the program's arena; on failure the program is marked
 * out of memory (checked at the end) and NULL returned. */
void *lang_alloc(snet_lang_program *p, size_t size);
bool lang_push(snet_lang_program *p, void **items, size_t *count, size_t elem, const void *item);

def_info *lang_def(const snet_ast_def *d);
node_info *lang_node(snet_lang_program *p, snet_ast_net *n);
/* The net a box definition is declared in (NULL at top level). */
const snet_ast_def *lang_box_net(const snet_ast_def *box);
/* The metadata entry that applies to box (defaults filled in). */
box_meta lang_box_meta(const snet_ast_def *box);

/* metadata.c: read one block into s->meta; errors are reported. */
void lang_metadata(snet_lang_program *p, scope *s, const snet_ast_def *block);

/* infer.c: infer the main net and check every net's signature. */
void lang_infer(snet_lang_program *p);
/* The record types a variant list accepts, for printing. */
void lang_print_tset(const snet_lang_program *p, const tset *t, FILE *out);

/* A list of declared variants (pointers into the tree). */
typedef struct vlist {
    const snet_ast_variant **v;
    size_t n;
} vlist;

/* The variants a net's first entities take, like the runtime's input types
 * (net.c): where a branch's routing type starts from (infer.c completes it
 * with what the rest of the branch needs). None for an initialiser box, the
 * empty variant for [] and for an external net of unknown type. */
void lang_accepts(snet_lang_program *p, const snet_ast_net *n, vlist *out);
/* The same, leaving out the exit patterns of stars if exits is false (the
 * records a network is meant for, rather than all it lets through). */
void lang_accepts_ex(snet_lang_program *p, const snet_ast_net *n, vlist *out, bool exits);

#endif /* SNET_LANG_INTERNAL_H */
