/*
 * snet.h - the public interface of the S-Net coordination runtime on LPEL.
 *
 * S-Net separates computation from coordination: boxes are C functions over
 * records, and networks wire boxes together with a few combinators. Every
 * entity instance (box, filter, synchro-cell, dispatcher/collector of a
 * combinator, star replica stage) runs as one LPEL task named by its net
 * path (ARCHITECTURE.md), e.g. "S1:P0:R3:mc.acc".
 *
 * Records hold labels of three kinds:
 *   a      a field: an opaque value (void *) with a snet_field_type that
 *          knows how to copy, free and print it (the box language interface)
 *   <t>    a tag: an integer (long)
 *   <#t>   a binding tag: an integer that is never flow-inherited and that a
 *          type only matches if the type names it (see "Types" below)
 * Label names are compared by content. A record keeps the name pointer you
 * give it, so pass string literals (or strings that outlive the run); names
 * are replaced by the network's own copies when a record enters the network.
 *
 * Types are written as in S-Net: "{a, b, <t>, <#k>}" is one variant, and a
 * multivariant type separates variants with '|': "{a} | {b, <t>}". A record
 * matches a variant when it has every label of the variant (extra labels
 * are fine, they are flow-inherited) and every binding tag it carries is
 * named by the variant. Among several matching variants (or parallel
 * branches) the one with the most labels wins; ties are broken
 * non-deterministically.
 *
 * Flow inheritance: the labels of an input record that a box or filter does
 * not consume (those not in its matched input variant) are added to every
 * record it outputs, unless that output already has a label of that name.
 *
 * Task names (net paths), as monitoring shows them: a box is named by its
 * name, a filter "filter", a synchro-cell "sync", each prefixed by its
 * position: "S<i>:" in a serial composition (from 1), "P<i>:" in branch i of
 * a parallel composition (from 0), "R<i>:" in replica i of a star, "I<v>:"
 * in the split replica for tag value v. The dispatcher and the collector of
 * a parallel composition are both "P", of a split both "I"; a star's
 * collector is "R" and the stage that tests records before replica i is
 * "R<i>". The tasks feeding and draining the network are "snet.in" and
 * "snet.out". Example: "S2:R3:S3:P0:mc.acc".
 *
 * Message ids (MIG): every record gets a 64-bit id when it enters the
 * network and whenever a box, filter or synchro-cell makes it, laid out as
 * mon_msg_id_make_at(rank, worker, sequence) (rank 0 outside MPI). With monitoring on, each box/filter
 * execution and each synchro-cell merge is one component execution in the
 * trace, reading its input id(s) and writing its output ids; records from
 * outside are written by "snet.in" with no parents.
 *
 * Example: a box, a network, a run with records from C.
 *
 *     // box inc ({x} -> {x}): adds one to the int field x
 *     static int inc(snet_handle *h, snet_record *in)
 *     {
 *         snet_record *out = snet_record_new();
 *         snet_record_set_int(out, "x", snet_record_int(in, "x") + 1);
 *         return snet_out(h, out);         // any number of snet_out calls
 *     }
 *     // the same, updating its input record into the output (cheaper)
 *     static int inc_in_place(snet_handle *h, snet_record *in)
 *     {
 *         snet_record_set_int(in, "x", snet_record_int(in, "x") + 1);
 *         return snet_out(h, in);
 *     }
 *
 *     // box fan ({n} -> {x, <i>}): emits n records
 *     static int fan(snet_handle *h, snet_record *in)
 *     {
 *         for (long i = 0; i < snet_record_int(in, "n"); i++) {
 *             snet_record *out = snet_record_new();
 *             snet_record_set_int(out, "x", i);
 *             snet_record_set_tag(out, "i", i);
 *             if (snet_out(h, out) != SNET_OK) return -1;
 *         }
 *         return 0;
 *     }
 *
 *     // fan, then inc or a tag-doubling filter (in input order), then a star
 *     // whose body marks records <done> so that they leave after one round
 *     snet_net *net = snet_serial(
 *         snet_box("fan", "{n} -> {x, <i>}", fan, NULL),
 *         snet_serial(
 *             snet_parallel_det(snet_box("inc", "{x, <i>} -> {x}", inc, NULL),
 *                               snet_filter("[{<odd>} -> {<odd=odd*2>}]")),
 *             snet_star(snet_serial(snet_box("inc", "{x} -> {x}", inc, NULL),
 *                                   snet_filter("[{x} -> {x, <done=1>}]")),
 *                       "{<done>}")));
 *     // more: snet_split(A, "<i>"), snet_sync("[| {a}, {b, <t>} |]"), snet_at(A, 1),
 *     //       snet_feedback(A, "{<n>} if <n > 0>")
 *
 *     snet_run *run;
 *     char err[256];
 *     snet_config cfg = snet_config_default();      // cfg.lpel.num_workers = 2;
 *     if (snet_run_create(&run, net, &cfg, err, sizeof err) != SNET_OK) { puts(err); ... }
 *     snet_record *r = snet_record_new();
 *     snet_record_set_int(r, "n", 10);
 *     snet_run_put(run, r);                         // or snet_run_set_input_fn/_file
 *     int rc = snet_run_execute(run);               // runs until all input is processed
 *     if (rc != SNET_OK) fprintf(stderr, "%s\n", snet_run_error(run));
 *     for (snet_record *o; (o = snet_run_take_output(run)) != NULL; snet_record_free(o))
 *         printf("x=%ld\n", snet_record_int(o, "x"));
 *     snet_run_destroy(run);
 *     snet_net_free(net);
 *
 * A whole command-line program around a net (records as text on stdin,
 * monitoring options, mapping files) is program-side: snet_prog_main in
 * apps/common/snet_prog.h (library snet_prog).
 *
 * Errors are return codes (SNET_OK, SNET_E...) plus a message. A record that
 * matches no branch or no box input type is a runtime error naming the
 * entity, the record's labels and the expected types: it is reported, the
 * record is dropped, the network still winds down, and snet_run_execute
 * returns SNET_ERUNTIME. Builder calls never fail outright: a bad type or
 * filter string yields a net that snet_run_create rejects with the message.
 */
#ifndef SNET_H
#define SNET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* SNET_API marks the functions libsnet exports: the libraries are built with
 * hidden visibility (cmake/Library.cmake), so what this header marks is the
 * library's whole binary interface. */
#ifndef SNET_API
#define SNET_API __attribute__((visibility("default")))
#endif

#include "lpel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes. */
/* Return codes. The first five are LPEL's (lpel.h) with the same values,
 * so a code means the same on both sides of the boundary; S-Net's own
 * start at -6 (docs/ARCHITECTURE.md, "Errors"). */
enum {
    SNET_OK = 0,
    SNET_EINVAL = -1,    /* a bad argument, type, pattern or filter */
    SNET_ENOMEM = -2,    /* an allocation failed */
    SNET_ESYSTEM = -3,   /* LPEL or the system failed (workers, files) */
    SNET_EDEADLOCK = -4, /* LPEL found every task blocked */
    SNET_ESTATE = -5,    /* the call is not allowed now (e.g. execute twice) */
    SNET_ERUNTIME = -6   /* a record matched nothing, a box failed, bad input */
};

/* Human-readable text for a return code. */
SNET_API const char *snet_strerror(int code);

/* ---------------------------------------------------------------------------
 * Field types: the box language interface
 * ------------------------------------------------------------------------- */

/*
 * How the runtime handles the value of a field. copy is needed when flow
 * inheritance or a filter duplicates a field, free when a record dies,
 * serialise/deserialise for the textual record format. copy == NULL and
 * free == NULL mean the value is plain bits stored in the pointer itself
 * (like snet_field_int). serialise writes the value only (no label), and
 * deserialise parses the text of one value, returning 0 or -1.
 */
typedef struct snet_field_type {
    const char *name; /* used in the text format: x:name=value */
    void *(*copy)(const void *value);
    void (*free)(void *value);
    int (*serialise)(FILE *out, const void *value);
    int (*deserialise)(const char *text, size_t len, void **value);
} snet_field_type;

/* Built-in field types. int: a long stored in the pointer bits. double: a
 * double stored in the pointer bits. string: a malloc'ed NUL-terminated
 * string, printed as a C-like quoted string. */
extern const snet_field_type snet_field_int;
extern const snet_field_type snet_field_double;
extern const snet_field_type snet_field_string;

/* ---------------------------------------------------------------------------
 * Records
 * ------------------------------------------------------------------------- */

typedef struct snet_record snet_record;

typedef enum snet_label_kind {
    SNET_FIELD = 0,
    SNET_TAG = 1,
    SNET_BTAG = 2
} snet_label_kind;

/* A new empty data record (NULL only if out of memory). */
SNET_API snet_record *snet_record_new(void);
/* A deep copy (fields copied with their types' copy). */
SNET_API snet_record *snet_record_copy(const snet_record *r);
/* Free a record and its field values (NULL is fine). */
SNET_API void snet_record_free(snet_record *r);

/* Fields. set takes ownership of value and replaces a field of that name
 * (freeing the old value). get returns the stored value (still owned by the
 * record); take removes the field and hands its value to the caller. */
SNET_API int snet_record_set_field(snet_record *r, const char *label, const snet_field_type *type,
                                   void *value);
SNET_API bool snet_record_has_field(const snet_record *r, const char *label);
SNET_API void *snet_record_field(const snet_record *r, const char *label);
SNET_API const snet_field_type *snet_record_field_type(const snet_record *r, const char *label);
SNET_API void *snet_record_take_field(snet_record *r, const char *label);

/* Convenience for the built-in field types (0 / 0.0 / NULL when absent). */
SNET_API int snet_record_set_int(snet_record *r, const char *label, long value);
SNET_API long snet_record_int(const snet_record *r, const char *label);
SNET_API int snet_record_set_double(snet_record *r, const char *label, double value);
SNET_API double snet_record_double(const snet_record *r, const char *label);
SNET_API int snet_record_set_string(snet_record *r, const char *label, const char *value); /* copied */
SNET_API const char *snet_record_string(const snet_record *r, const char *label);

/* Tags <t> and binding tags <#t> (0 when absent). */
SNET_API int snet_record_set_tag(snet_record *r, const char *label, long value);
SNET_API bool snet_record_has_tag(const snet_record *r, const char *label);
SNET_API long snet_record_tag(const snet_record *r, const char *label);
SNET_API int snet_record_set_btag(snet_record *r, const char *label, long value);
SNET_API bool snet_record_has_btag(const snet_record *r, const char *label);
SNET_API long snet_record_btag(const snet_record *r, const char *label);

/* Remove a label of the given kind; false if there was none. */
SNET_API bool snet_record_remove(snet_record *r, snet_label_kind kind, const char *label);

/* Iterate over the labels: i from 0 to count-1. */
SNET_API size_t snet_record_label_count(const snet_record *r);
SNET_API const char *snet_record_label(const snet_record *r, size_t i, snet_label_kind *kind);

/* The message id (MIG): (rank, worker, sequence) as in mon_msg_id_make_at; 0 for a
 * record that has not entered a network yet. */
SNET_API uint64_t snet_record_id(const snet_record *r);

/* Write / parse one record in the text format of docs/RECORDS.md, e.g.
 *   {x=42, s:string="hi", d:double=0.5, <t>=3, <#k>=1}
 * format writes no newline. parse reads one record from text (skipping
 * leading blanks and '#' comment lines), storing where it stopped in *end;
 * extra field types (beyond int/double/string) are found in types[0..n). */
SNET_API int snet_record_format(const snet_record *r, FILE *out);
SNET_API int snet_record_parse(const char *text, const char **end, snet_record **out,
                               const snet_field_type *const *types, size_t ntypes,
                               char *err, size_t errlen);

/* ---------------------------------------------------------------------------
 * Boxes
 * ------------------------------------------------------------------------- */

/* What a box execution gets to talk to the runtime. */
typedef struct snet_handle snet_handle;

/*
 * A box: called once per input record. in belongs to the runtime (read it,
 * or take fields out of it with snet_record_take_field) unless the box
 * reuses it (snet_record_reuse); emit outputs with snet_out. Returns 0, or
 * nonzero to report a failure (the run then fails with SNET_ERUNTIME; the
 * network keeps draining).
 */
typedef int (*snet_box_fn)(snet_handle *h, snet_record *in);

/* Emit an output record (ownership passes). It must match one of the box's
 * declared output variants (by its own labels); the unconsumed labels of
 * the input are added (flow inheritance). Returns SNET_OK, or SNET_ERUNTIME
 * after reporting a record that fits no output variant (it is freed).
 * snet_out(h, in) emits the input itself, as snet_record_reuse does. */
SNET_API int snet_out(snet_handle *h, snet_record *out);

/* The input record, given to the box to update into an output: cheaper
 * than a new record (no record made, no input freed, and the labels the
 * box passes on stay where they are). The box owns it from then on, as a
 * record from snet_record_new: it emits it with snet_out (or frees it).
 * It is in itself, with the labels the box has not taken or removed: the
 * box removes the consumed labels its output does not carry and sets the
 * output's; the unconsumed ones are the inherited ones, there already.
 * What goes out is exactly what a new record would be: the same check
 * (beyond an output variant it may hold only inherited labels), the
 * inherited labels (also those the box removed), a new message id whose
 * parent is the input. Once per execution: later calls return NULL, and
 * later outputs are new records (which inherit as always).
 *
 *     // box inc ({x} -> {x})
 *     snet_record *out = snet_record_reuse(h);
 *     snet_record_set_int(out, "x", snet_record_int(out, "x") + 1);
 *     return snet_out(h, out);
 *     // a box that passes its input on: return snet_out(h, in);
 */
SNET_API snet_record *snet_record_reuse(snet_handle *h);

/* The user pointer given to snet_box. */
SNET_API void *snet_handle_user(const snet_handle *h);
/* Index of the input variant the record matched (0 for one variant). */
SNET_API size_t snet_handle_variant(const snet_handle *h);
/* The box's net path (its task name). */
SNET_API const char *snet_handle_path(const snet_handle *h);
/* Report a runtime error from inside a box, "box 'PATH': " + the message:
 * the run fails with SNET_ERUNTIME and the network keeps draining (for
 * errors a box language interface finds, e.g. C4SNet's C4SNetOut). */
SNET_API void snet_box_fail(snet_handle *h, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---------------------------------------------------------------------------
 * Network builder
 * ------------------------------------------------------------------------- */

/*
 * A network description: a tree of entities. Builders take ownership of
 * their arguments (so calls nest) and never return NULL: an error (bad
 * syntax, NULL argument, out of memory) is kept inside the net and reported
 * by snet_net_check / snet_run_create. A description can be run any number
 * of times; free it with snet_net_free after the runs are destroyed.
 */
typedef struct snet_net snet_net;

/* box name (signature): "{a, <t>} -> {b} | {c, <t>}". The input may be a
 * multivariant type; an output of "{}" means records with only inherited
 * labels. Without an input type ("-> {seed}") the box is an initialiser:
 * fn is called once, with an empty record, when the box's task starts, and
 * the box takes no records (one that reaches it is a runtime error); in a
 * parallel composition it is never chosen. "{} -> ..." takes every record. */
SNET_API snet_net *snet_box(const char *name, const char *signature, snet_box_fn fn, void *user);

/* A filter, S-Net syntax: "[{a, <t>} -> {b=a, <t=t+1>}; {a}]".
 * The pattern names what is consumed; each ';'-separated output is one
 * record: "a" keeps field a, "b=a" copies field a as b, "<t>" keeps tag t
 * (or makes a new tag t = 0), "<t=EXPR>" / "<#t=EXPR>" set a tag from an
 * integer expression over the pattern's tags (+ - * / % == != < <= > >=
 * && || ! ?: abs min max and parentheses). Guarded branches choose the
 * outputs, the first that holds wins, none: no output:
 *     "[{<t>} -> if <t == 1> then {<one>} else if <t == 2> then {<two>} else {<t>}]"
 *     "[{<t>} if <t > 0> -> {<t=t-1>} else -> {<done>}]"
 * "[{a} -> ]" drops matching records; "[]" is the identity. Unconsumed
 * labels are flow-inherited into every output. The grammar is the one
 * of .snet files (docs/SNET-LANGUAGE.md). */
SNET_API snet_net *snet_filter(const char *spec);

/* A .. B */
SNET_API snet_net *snet_serial(snet_net *a, snet_net *b);
/* A | B (non-deterministic merge) and A || B (outputs in input order).
 * Nested parallels of the same kind are flattened into one n-way parallel. */
SNET_API snet_net *snet_parallel(snet_net *a, snet_net *b);
SNET_API snet_net *snet_parallel_det(snet_net *a, snet_net *b);
/* A * {exit} and A ** {exit}: records matching the exit pattern (a type,
 * possibly multivariant) leave; the others go through a new replica of A,
 * created on demand. Placement: all tasks of one replica (and the stage
 * after it) go to one worker, consecutive replicas to consecutive workers
 * (unless an enclosing @N fixes the worker); everything else is placed by
 * LPEL's mapper (round robin) unless @N / !@ say otherwise. */
SNET_API snet_net *snet_star(snet_net *a, const char *exit_pattern);
SNET_API snet_net *snet_star_det(snet_net *a, const char *exit_pattern);
/* A ! <t> and A !! <t>: one replica of A per distinct value of tag t
 * ("<t>" or "t"). */
SNET_API snet_net *snet_split(snet_net *a, const char *tag);
SNET_API snet_net *snet_split_det(snet_net *a, const char *tag);
/* [| {a}, {b, <t>} |]: stores the first record matching each pattern (a
 * record fills every free pattern it matches); when every pattern has one,
 * emits their merge and from then on passes every record through. As in the
 * original S-Net runtime, the merge is the first pattern's record with the
 * fields and tags the later patterns name set from theirs (their other
 * labels are dropped). Records that match no free pattern pass through.
 * The brackets are optional; patterns may
 * have guards ("{b, <t>} if <t > 0>"). Binding tags that every pattern
 * names key the cell: "[| {a, <#k>}, {b, <#k>} |]" merges records with the
 * same value of <#k>, once per value (each value has its own cell). */
SNET_API snet_net *snet_sync(const char *patterns);
/* A \ {back} and A \\ {back}: records
 * A outputs that match a back pattern (a type, possibly guarded) go into
 * A again, the others leave. The deterministic form lets the outputs of
 * each input record leave before those of the next (it runs one input
 * record's loop to its end before taking the next). */
SNET_API snet_net *snet_feedback(snet_net *a, const char *back_patterns);
SNET_API snet_net *snet_feedback_det(snet_net *a, const char *back_patterns);
/* A with a routing type: the records a parallel composition chooses A for
 * (it routes each record to the branch whose routing type it matches
 * best), instead of what A's first entity takes. "{a} | {b, <t>}", no
 * guards; "" for none: A is never chosen, and only its initialiser boxes
 * run. Give a branch the labels its later entities need: in
 *     snet_parallel(snet_routed(snet_serial(delay, show_b), "{B, D}"),
 *                   snet_routed(snet_serial(delay, show_c), "{C, D}"))
 * with delay taking {D}, records with B go left and records with C right,
 * as the .snet checker routes them (docs/SNET-LANGUAGE.md). Call it on a
 * branch before composing it; returns A (an error is kept in it). */
SNET_API snet_net *snet_routed(snet_net *a, const char *type);
/* A @ N: every task of A placed on worker N (modulo the worker count). */
SNET_API snet_net *snet_at(snet_net *a, int worker);
/* A @ N across ranks: the whole of A runs on MPI rank N (modulo the rank
 * count) when the run spans ranks (snet_config.distrib); worker placement
 * inside that rank is unchanged. On one rank this is A itself. */
SNET_API snet_net *snet_at_rank(snet_net *a, int rank);
/* A !@ <t>: like A ! <t>, and the replica for value v runs on worker v
 * (modulo the worker count). When the run spans R ranks, the replica runs
 * on rank v mod R, on worker (v div R) modulo that rank's worker count,
 * so consecutive values cover every (rank, worker) once before repeating.
 * A !!@ <t>: the same, in input order. */
SNET_API snet_net *snet_split_at(snet_net *a, const char *tag);
SNET_API snet_net *snet_split_det_at(snet_net *a, const char *tag);

/* NULL if the net is well formed, else the first error found in it. */
SNET_API const char *snet_net_check(const snet_net *net);
/* The input type of the net as text (for messages and docs): "{a} | {b}". */
SNET_API int snet_net_input_type(const snet_net *net, char *buf, size_t len);
SNET_API void snet_net_free(snet_net *net);

/* ---------------------------------------------------------------------------
 * Running a network
 * ------------------------------------------------------------------------- */

/* ---------------------------------------------------------------------------
 * Mapping files: which worker runs which task, by net-path pattern
 * ------------------------------------------------------------------------- */

/*
 * A mapping (format: docs/MAPPING.md) is a list of lines "PATTERN WORKER":
 * the first line whose pattern matches a task's net path places the task on
 * that worker, before any @N, !@ or default placement; tasks no line
 * matches are placed as without a mapping. Patterns are net paths whose
 * components may use '*' and '?', and "**" for any number of components:
 * "S2:I*:R0:**  1". parse reads text[0..len) (NUL bytes are an error) and
 * names errors "NAME:LINE: ..."; load reads a file. Returns SNET_OK or an
 * error code with the message in err.
 */
typedef struct snet_mapping snet_mapping;
SNET_API int snet_mapping_parse(const char *text, size_t len, const char *name, snet_mapping **out,
                                char *err, size_t errlen);
SNET_API int snet_mapping_load(const char *path, snet_mapping **out, char *err, size_t errlen);
SNET_API void snet_mapping_free(snet_mapping *m);
/* Number of lines with a placement. */
SNET_API size_t snet_mapping_count(const snet_mapping *m);
/* The worker the mapping gives the task named path, or -1 if none. */
SNET_API int snet_mapping_lookup(const snet_mapping *m, const char *path);
/* The number of workers the mapping was written for (its line "workers N",
 * *line set to that line's number when line is not NULL), 0 when it has
 * none. A run with another number works, but its programs warn. */
SNET_API unsigned snet_mapping_workers(const snet_mapping *m, long *line);
/* SNET_OK if every worker is below `workers` (0: not checked) and every
 * pattern can match some task of net (NULL: not checked); else SNET_EINVAL
 * and "NAME:LINE: ..." in err. snet_run_create does this check. */
SNET_API int snet_mapping_check(const snet_mapping *m, const snet_net *net, unsigned workers, char *err,
                                size_t errlen);

typedef struct snet_distrib snet_distrib;

typedef struct snet_config {
    lpel_config lpel; /* workers, hooks (monitoring), stream capacity ... */
    FILE *errors;     /* where runtime errors are reported; NULL: stderr */
    const snet_mapping *mapping; /* placement by net path; NULL: none. Borrowed:
                                    it must outlive the run */
    snet_distrib *distrib; /* the MPI job the run spans; NULL: this process only */
} snet_config;

SNET_API snet_config snet_config_default(void);

typedef struct snet_run snet_run;

/* Instantiate net (borrowed: it must outlive the run) on a new LPEL
 * runtime. Returns SNET_OK, or an error with a message in errbuf. */
SNET_API int snet_run_create(snet_run **out, const snet_net *net, const snet_config *cfg,
                             char *errbuf, size_t errlen);

/* Input, consumed in this order: the records put (ownership passes), then
 * the generator (called from a task until it returns NULL), then the text
 * file. All must be set before snet_run_execute. */
SNET_API int snet_run_put(snet_run *run, snet_record *rec);
typedef snet_record *(*snet_input_fn)(void *user);
SNET_API int snet_run_set_input_fn(snet_run *run, snet_input_fn next, void *user);
SNET_API int snet_run_set_input_file(snet_run *run, FILE *in);
/* Field types the text reader should know besides the built-in ones. */
SNET_API int snet_run_register_field_type(snet_run *run, const snet_field_type *type);

/* Output: by default collected inside the run (snet_run_take_output). A
 * callback gets each record as it leaves (on a worker thread; ownership
 * passes); a file gets each record as a line of text (and it is freed). */
typedef void (*snet_output_fn)(void *user, snet_record *rec);
SNET_API int snet_run_set_output_fn(snet_run *run, snet_output_fn fn, void *user);
SNET_API int snet_run_set_output_file(snet_run *run, FILE *out);

/* Run until every input record has been processed and every task has
 * ended. Once per run. SNET_OK, SNET_ERUNTIME (see snet_run_error),
 * SNET_EDEADLOCK (after LPEL's report of who waits for whom; the network
 * then winds down without running more boxes, and every entity frees what
 * it holds), ... */
SNET_API int snet_run_execute(snet_run *run);

/* Collected output records in the order they left the network; NULL when
 * there are no more. */
SNET_API snet_record *snet_run_take_output(snet_run *run);
/* Records that entered and left the network. */
SNET_API uint64_t snet_run_records_in(const snet_run *run);
SNET_API uint64_t snet_run_records_out(const snet_run *run);
/* The first error message of the run ("" if none). */
SNET_API const char *snet_run_error(const snet_run *run);
/* The LPEL runtime underneath (e.g. to ask for the worker count). */
SNET_API lpel_runtime *snet_run_lpel(const snet_run *run);
/* The MPI rank this process runs of the run (0 when it is not distributed). */
SNET_API int snet_run_rank(const snet_run *run);
SNET_API void snet_run_destroy(snet_run *run);

/* ---------------------------------------------------------------------------
 * Across MPI ranks (runtime/snet/distrib, docs/WIRE.md)
 * ------------------------------------------------------------------------- */

/*
 * Every rank runs the same program, builds the same network and creates
 * and executes its runs in the same order (the calls below marked
 * "collective" wait for every rank). The network's input and output are on
 * rank 0: records put or read elsewhere are ignored (freed) and other
 * ranks' runs have no output. A sub-network placed with snet_at_rank, and
 * each replica of snet_split_at, runs on its rank; the streams between
 * ranks are MPI channels: bounded (a window of records in flight, then the
 * sender blocks), in order, with end-of-stream. One communication thread
 * per rank makes every MPI call, so workers never wait for MPI.
 *
 * A run ends when every rank has finished; when every task on every rank
 * is blocked and no message is in flight, every rank's run ends with
 * SNET_EDEADLOCK and rank 0's error names, rank by rank, who waits for
 * whom. The first error of any rank becomes every rank's run error.
 *
 *     snet_distrib *d;
 *     if (snet_distrib_init(&d, &argc, &argv, err, sizeof err) != SNET_OK) ...
 *     cfg.distrib = d;            // snet_run_create is collective then
 *     ... run ...
 *     snet_distrib_finalize(d);
 *
 * Field values cross ranks as bytes: int, double and string do so by
 * themselves; any other field type needs a codec registered on every rank
 * (snet_run_register_codec), and a record with a field that has none is a
 * runtime error naming the field and its type.
 */

/* True if this build has MPI (found at configure time). */
SNET_API bool snet_distrib_available(void);

/* Join the MPI job (MPI_Init_thread unless MPI is running already), asking
 * for MPI_THREAD_SERIALIZED and refusing a library that cannot give it.
 * Returns SNET_OK, or an error with a message (also in a build without
 * MPI). */
SNET_API int snet_distrib_init(snet_distrib **out, int *argc, char ***argv, char *err, size_t errlen);
SNET_API int snet_distrib_rank(const snet_distrib *d);
SNET_API int snet_distrib_size(const snet_distrib *d);
/* Records in flight per channel before its sender waits (default 64). */
SNET_API int snet_distrib_set_window(snet_distrib *d, unsigned records);
/* MPI_Finalize if snet_distrib_init started MPI; frees d (NULL is fine). */
SNET_API void snet_distrib_finalize(snet_distrib *d);

/* A growing byte buffer that codecs append a field value to. */
typedef struct snet_bytes snet_bytes;
SNET_API int snet_bytes_put(snet_bytes *b, const void *data, size_t len);

/* How values of one field type cross ranks: encode appends the value's
 * bytes (returns 0, or -1 if it cannot), decode makes a value from len
 * bytes at data, which need not be aligned (0, or -1 for bytes it does not
 * accept). Bytes cross between machines as they are: a codec that writes
 * numbers in its host's order only works between hosts of one order. */
typedef struct snet_codec {
    const snet_field_type *type;
    int (*encode)(const void *value, snet_bytes *out);
    int (*decode)(const void *data, size_t len, void **value);
} snet_codec;

/* Register a codec for this run (the codec must outlive it). Types are
 * matched across ranks by name. */
SNET_API int snet_run_register_codec(snet_run *run, const snet_codec *codec);

#ifdef __cplusplus
}
#endif

#endif /* SNET_H */
