/*
 * snet_internal.h - the data structures shared by the S-Net runtime's files:
 * record layout, types, the network description tree, the run, and the
 * entity (task) plumbing. Not part of the public interface.
 */
#ifndef SNET_INTERNAL_H
#define SNET_INTERNAL_H

#include "snet.h"
#include "snet_syntax.h"

#include <kit.h>
#include <mon_msg_id.h>

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>

#define snet_likely(x) __builtin_expect(!!(x), 1)
#define snet_unlikely(x) __builtin_expect(!!(x), 0)

/* ---- records ------------------------------------------------------------- */

/* Data records carry labels; control records steer combinators:
 * SORT markers keep the deterministic combinators in order, ADD announces
 * a new stream to a collector (a new split replica, the next star stage). */
typedef enum snet_record_kind {
    SNET_REC_DATA = 0,
    SNET_REC_SORT = 1,
    SNET_REC_ADD = 2
} snet_record_kind;

typedef struct snet_entry {
    const char *name;
    snet_label_kind kind;
    const snet_field_type *type; /* fields only */
    union {
        void *value; /* field */
        long tag;    /* tag, binding tag */
    } u;
} snet_entry;

#define SNET_INLINE_ENTRIES 4

/* What every entity reads of a record comes first, the first entry right
 * behind it: records are allocated on cache-line boundaries (kit pools),
 * so the part of a one-label record that entities touch is one line, which
 * moves between workers with the record at every hop (the control
 * records' fields used to sit between the header and the entries: two
 * lines, the second not prefetched). 2-worker pipeline of boxes that pass
 * their input on: 1.065x records/s, median of 22 interleaved rounds
 * (19 faster). */
struct snet_record {
    snet_record_kind kind;
    unsigned cap;        /* entries the array holds */
    size_t count;
    uint64_t id;
    snet_entry *entries; /* inline_entries or a heap array */
    snet_entry inline_entries[SNET_INLINE_ENTRIES];
    uint64_t sort_owner, sort_counter; /* SORT */
    lpel_stream *add_stream;           /* ADD */
    char *name_blob; /* label names owned by the record (parsed records) */
    size_t blob_len;
};

snet_record *snet_record_control(snet_record_kind kind);
/* Each worker thread keeps freed records for reuse (record.c, a kit pool);
 * a worker that frees more than it allocates passes batches of them to one
 * that allocates more than it frees, through its run's depot. Every S-Net
 * task calls begin (with its run's depot) when it starts and end when it
 * ends; the last task of a worker to end frees the worker's records, and
 * the run frees its depot, so none is left when the run is destroyed.
 * Threads outside tasks neither keep nor reuse records. */
void snet_record_depot_init(kit_depot *d);
void snet_record_depot_free(kit_depot *d);
void snet_record_pool_task_begin(kit_depot *d);
void snet_record_pool_task_end(void);
/* Free r's field values and forget its labels; r itself stays. */
void snet_record_clear(snet_record *r);
snet_record *snet_record_sort(uint64_t owner, uint64_t counter);
snet_record *snet_record_add(lpel_stream *s);

/* Are two label names the same? Names inside a run are interned, so the
 * pointer test almost always decides; names are short, so an inline byte
 * loop beats a library call for the rest (a user's literal against the
 * interned copy). Inline here: every entity looks labels up per record. */
static inline bool snet_same_name(const char *a, const char *b)
{
    if (a == b)
        return true;
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

/* Index of the label (kind, name) or -1. */
static inline long snet_record_find(const snet_record *r, snet_label_kind kind, const char *name)
{
    for (size_t i = 0; i < r->count; i++)
        if (r->entries[i].kind == kind && snet_same_name(r->entries[i].name, name))
            return (long)i;
    return -1;
}
/* Remove entry i (its value stays the caller's): the last takes its place. */
static inline void snet_record_remove_at(snet_record *r, size_t i)
{
    r->entries[i] = r->entries[--r->count];
}
/* Append an entry without looking for duplicates (the caller knows). */
int snet_record_append(snet_record *r, const snet_entry *e);
/* Append entries whose names are copied into the record (a record read
 * from outside owns its names until the run interns them). Only for a
 * record that owns no names yet; on failure nothing is appended. */
int snet_record_append_owned(snet_record *r, const snet_entry *entries, size_t n);
/* Copy a field value with its type (plain bits when copy is NULL). */
void *snet_field_copy(const snet_field_type *t, const void *value);
void snet_field_free(const snet_field_type *t, void *value);
/* Write the labels as "{a, <t>}" into buf (for error messages). */
void snet_record_labels_text(const snet_record *r, char *buf, size_t len);

/* ---- types --------------------------------------------------------------- */

typedef struct snet_label {
    char *name;
    snet_label_kind kind;
} snet_label;

typedef struct snet_expr snet_expr;

/* A variant, or a pattern: with a guard it only matches records for which
 * the guard (over the variant's tags) is not 0. */
typedef struct snet_variant {
    snet_label *labels;
    size_t count;
    snet_expr *guard;
} snet_variant;

typedef struct snet_type {
    snet_variant *variants;
    size_t count;
} snet_type;

/* A type from its syntax tree (guards allowed only if guards is true).
 * Returns 0 or -1 with a message. */
int snet_type_from_ast(const snet_ast_type *t, bool guards, snet_type *out, char *err,
                       size_t errlen);
int snet_variant_from_ast(const snet_ast_variant *v, snet_variant *out, char *err, size_t errlen);
/* Parse builder text with the S-Net grammar (runtime/snet/lang). what
 * names the string in messages ("filter", "box signature", ...). */
int snet_parse_fragment(snet_fragment_kind kind, const char *text, const char *what,
                        snet_fragment *out, char *err, size_t errlen);
void snet_type_free(snet_type *t);
void snet_variant_free(snet_variant *v);
int snet_type_append(snet_type *dst, const snet_type *src); /* deep copy */
bool snet_variant_has(const snet_variant *v, snet_label_kind kind, const char *name);
/* Number of labels matched (>= 0) if r matches v, else -1. */
long snet_variant_match(const snet_variant *v, const snet_record *r);
/* Best matching variant index (most labels) or -1; *score gets its size. */
long snet_type_best(const snet_type *t, const snet_record *r, long *score);

/* The match of a type against the last record shape seen, so that an entity
 * reading a stream of records of one shape (the common case) matches once,
 * not per record. A shape is the sequence of (kind, name) of a record's
 * entries; for a type without guards the best variant depends on nothing
 * else. Names are compared by pointer only: every record inside a running
 * network carries label names owned by the net's intern table (the input
 * task interns them, snet_out renames a box's labels to its declaration's,
 * filters and the wire use canonical names), and those live as long as the
 * net, so one pointer never stands for two names. A record with an equal
 * name at another address merely misses the cache.
 * Measured on the 10-stage identity pipeline: ~90 instructions less per box
 * execution (snet_type_best + snet_variant_match per record). */
typedef struct snet_match_cache {
    const snet_type *type;
    bool usable;  /* the type has no guards */
    size_t count; /* entries of the cached shape; SIZE_MAX: nothing cached */
    snet_label_kind kinds[SNET_INLINE_ENTRIES];
    const char *names[SNET_INLINE_ENTRIES];
    long variant, score;
} snet_match_cache;

void snet_match_cache_init(snet_match_cache *c, const snet_type *t);
/* The miss: snet_type_best, and r's shape cached (types.c). */
long snet_match_cache_fill(snet_match_cache *c, const snet_record *r, long *score);

/* snet_type_best(c->type, r, score), from the cache when r has its shape.
 * The hit is inline (a dozen instructions for a one-label record): out of
 * line, saving and restoring the registers the miss needs cost as much. */
static inline long snet_match_cache_best(snet_match_cache *c, const snet_record *r, long *score)
{
    if (snet_likely(c->usable && r->count == c->count)) {
        size_t i = 0;
        while (i < r->count && r->entries[i].kind == c->kinds[i] &&
               r->entries[i].name == c->names[i])
            i++;
        if (snet_likely(i == r->count)) {
            if (score)
                *score = c->score;
            return c->variant;
        }
    }
    return snet_match_cache_fill(c, r, score);
}
void snet_type_text(const snet_type *t, char *buf, size_t len);
void snet_variant_text(const snet_variant *v, char *buf, size_t len);
/* Skip blanks. */
const char *snet_skip_space(const char *p);
/* Parse a label name [A-Za-z_][A-Za-z0-9_.]*; returns its length (0: none). */
size_t snet_name_length(const char *p);
/* The label names of a type's variants and guards, for interning. */
void snet_type_visit_names(snet_type *t, void (*fn)(char **slot, void *ctx), void *ctx);

/* ---- filters ------------------------------------------------------------- */

/* An expression from its syntax tree: every name must be a tag or binding
 * tag of pattern (NULL with a message otherwise). */
snet_expr *snet_expr_from_ast(const snet_ast_expr *a, const snet_variant *pattern, char *err,
                              size_t errlen);
/* The constant n. */
snet_expr *snet_expr_const(long n);
snet_expr *snet_expr_copy(const snet_expr *e);
/* Evaluate over the tags of r; *ok false on division by zero. */
long snet_expr_eval(const snet_expr *e, const snet_record *r, bool *ok);
void snet_expr_free(snet_expr *e);
void snet_expr_visit_names(snet_expr *e, void (*fn)(char **slot, void *ctx), void *ctx);

typedef enum snet_filter_op_kind {
    SNET_FOP_FIELD, /* b=a (or a=a): field copy */
    SNET_FOP_TAG    /* <t=expr>, <#t=expr>, <t> */
} snet_filter_op_kind;

typedef struct snet_filter_op {
    snet_filter_op_kind kind;
    snet_label_kind label_kind; /* SNET_FIELD, SNET_TAG or SNET_BTAG */
    char *name;                 /* output label */
    char *source;               /* field copied (fields) */
    snet_expr *expr;            /* tags */
} snet_filter_op;

typedef struct snet_filter_output {
    snet_filter_op *ops;
    size_t count;
} snet_filter_output;

/* The outputs made when guard holds (guard NULL: always). */
typedef struct snet_filter_branch {
    snet_expr *guard;
    snet_filter_output *outputs;
    size_t count;
} snet_filter_branch;

/* The first branch whose guard holds makes the outputs; none: no output. */
typedef struct snet_filter_spec {
    bool identity; /* "[]" */
    snet_variant pattern;
    snet_filter_branch *branches;
    size_t count;
} snet_filter_spec;

int snet_filter_spec_parse(const char *text, snet_filter_spec *out, char *err, size_t errlen);
void snet_filter_spec_free(snet_filter_spec *f);

/* ---- the network description ---------------------------------------------- */

typedef enum snet_node_kind {
    SNET_NODE_BOX,
    SNET_NODE_FILTER,
    SNET_NODE_SERIAL,
    SNET_NODE_PARALLEL,
    SNET_NODE_STAR,
    SNET_NODE_SPLIT,
    SNET_NODE_SYNC,
    SNET_NODE_AT,
    SNET_NODE_FEEDBACK
} snet_node_kind;

struct snet_net {
    snet_node_kind kind;
    char *error;       /* first error in this subtree, or NULL */
    snet_type in_type; /* what the net accepts (for routing and messages) */
    bool routed;       /* in_type given by snet_routed (kept whole in a parallel) */
    /* box */
    char *name;
    snet_box_fn fn;
    void *user;
    snet_type box_in, box_out;
    /* filter */
    snet_filter_spec filter;
    /* serial, parallel: children; star, split, at: children[0] */
    snet_net **children;
    size_t nchildren;
    bool det;
    /* star: the exit patterns; feedback: the patterns that go round again */
    snet_type exit;
    /* split */
    char *tag;
    bool placed; /* !@ */
    /* sync */
    snet_type patterns;
    /* at */
    int worker;
    bool at_rank; /* snet_at_rank: worker is an MPI rank */
    /* Label names of records from outside, interned so that they live as
     * long as the net (records leaving a run outlive it). Any node can be
     * a root, so every node has the table; runs of one net share it. */
    pthread_mutex_t intern_lock;
    char **interned;
    size_t ninterned, capinterned;
    bool canonical; /* every label name in the tree points into interned */
};

/* Point every label name of the tree at the root's table (intern.c); once,
 * on the first run. release_names, before freeing the tree, forgets them. */
int snet_net_canonicalise(snet_net *root);
void snet_net_release_names(snet_net *root);

/* ---- the run --------------------------------------------------------------- */

/* One message-id counter per worker, each on its own cache line: only the
 * worker's own tasks touch it, so it needs no atomics. */
typedef struct snet_mig_slot {
    _Alignas(64) uint64_t seq;
    char pad[64 - sizeof(uint64_t)];
} snet_mig_slot;

struct snet_run {
    const snet_net *net;
    lpel_runtime *lpel;
    unsigned workers;
    size_t stream_capacity;
    FILE *errors;
    bool executed;

    /* input */
    snet_record **puts;
    size_t nputs, capputs;
    snet_input_fn input_fn;
    void *input_user;
    FILE *input_file;
    const snet_field_type **types;
    size_t ntypes;

    /* output */
    snet_output_fn output_fn;
    void *output_user;
    FILE *output_file;
    snet_record **outputs;
    size_t noutputs, capoutputs, taken;

    uint64_t records_in, records_out; /* written by the input / output task */
    bool traced; /* monitoring hooks installed: message traces are wanted */
    const snet_mapping *mapping; /* placement by net path (mapping.c), or NULL */
    snet_mig_slot *mig;

    /* across MPI ranks (distrib/): NULL and 0 for a run of one process */
    struct snet_dist *dist;
    int rank;
    const snet_codec **codecs;
    size_t ncodecs;


    kit_depot records; /* spare records between workers (record.c) */

    /* errors */
    pthread_mutex_t error_lock;
    atomic_int failed;
    char error[1024];
    uint64_t sync_discarded; /* records left in unfired synchro-cells */
};

/* Report a runtime error: printed, the first kept, the run marked failed. */
void snet_run_fail(snet_run *run, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void snet_run_note_discard(snet_run *run, uint64_t n);
/* Report a record that matched none of the expected types. */
void snet_report_no_match(snet_run *run, const char *path, const char *what,
                          const snet_record *r, const snet_type *expected);
/* The names a task interned last, by content: records from one source
 * carry the same few names, so the input task finds them here without the
 * table's lock and search (those cost ~150 instructions per record on the
 * pipeline; the lookup here ~60). */
#define SNET_INTERN_CACHE_NAMES 8
typedef struct snet_intern_cache {
    const char *names[SNET_INTERN_CACHE_NAMES]; /* interned; NULL: free slot */
    unsigned next;                              /* slot replaced next */
} snet_intern_cache;

/* Replace the label names of r by interned copies owned by the run,
 * looking in cache (may be NULL) first. */
int snet_run_intern_record(snet_run *run, snet_intern_cache *cache, snet_record *r);
/* The interned copy of the name name[0..len) (NULL if out of memory). */
const char *snet_run_intern_name(snet_run *run, const char *name, size_t len);
_Noreturn void snet_fatal_oom(const char *where);
void snet_set_error(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The input and output tasks at the edges of a run (run_io.c). */
typedef struct snet_io_task {
    snet_run *run;
    lpel_stream *stream;
} snet_io_task;
void snet_input_task(void *arg);
void snet_output_task(void *arg);

/* ---- message ids and traces (mig.c) ---------------------------------------- */

uint64_t snet_mig_next(snet_run *run);

/* An id is (rank, worker, sequence): 12 bits of MPI rank (0 for a run in
 * one process), 12 of worker, 40 of sequence, made by the monitor's
 * mon_msg_id_make_at (inline, from mon_msg_id.h) so that the two cannot disagree;
 * SNET_MSG_SEQ_BITS is its sequence width (mig.c checks that it is). */
#define SNET_MSG_SEQ_BITS 40

/* snet_mig_next for a caller that knows its worker (tasks never move).
 * Inline: one per record per entity. */
static inline uint64_t snet_mig_next_on(snet_run *run, unsigned worker)
{
    uint64_t seq = ++run->mig[worker].seq;
    return mon_msg_id_make_at((unsigned)run->rank, worker, seq);
}
/* A task's message ids: its worker's counter and the id's other bits,
 * found once when the task starts, so that an id is an increment and an
 * or (snet_mig_next_on finds both per id). Same ids as snet_mig_next_on. */
typedef struct snet_mig_source {
    uint64_t *seq;
    uint64_t base;
} snet_mig_source;

static inline void snet_mig_source_init(snet_mig_source *s, snet_run *run, unsigned worker)
{
    s->seq = &run->mig[worker].seq;
    s->base = mon_msg_id_make_at((unsigned)run->rank, worker, 0);
}

static inline uint64_t snet_mig_take(snet_mig_source *s)
{
    return s->base | (++*s->seq & MON_MSG_SEQ_MASK);
}
void snet_mon_begin(void);
void snet_mon_read(uint64_t id);
void snet_mon_written(uint64_t id);
void snet_mon_end(void);
/* Across ranks (distrib/): a record leaving for / arriving from a rank, the
 * ends of channels, and the clock measurements against rank 0 (each sample
 * local send, reference, local receive, in trace clock ticks). */
void snet_mon_sent(uint64_t id, int rank);
void snet_mon_received(uint64_t id, int rank);
void snet_mon_channel_open(uint64_t channel, int rank, bool sends);
void snet_mon_channel_block(uint64_t channel, bool empty);
bool snet_mon_clock(uint64_t *ticks);
void snet_mon_clock_samples(const char *phase, const uint64_t (*s)[3], size_t n);
/* Without monitoring hooks the monitor would drop these anyway: skip the
 * calls (four per record per entity on the hot path). */
static inline void snet_trace_begin(const snet_run *run)
{
    if (run->traced)
        snet_mon_begin();
}
static inline void snet_trace_read(const snet_run *run, uint64_t id)
{
    if (run->traced)
        snet_mon_read(id);
}
static inline void snet_trace_written(const snet_run *run, uint64_t id)
{
    if (run->traced)
        snet_mon_written(id);
}
static inline void snet_trace_end(const snet_run *run)
{
    if (run->traced)
        snet_mon_end();
}

/* ---- entities ----------------------------------------------------------------- */

/* Where an entity instance goes: its net path prefix ("" or "S1:P0:") and
 * the worker hint its tasks get. */
typedef struct snet_place {
    snet_run *run;
    const char *prefix;
    int worker;
} snet_place;

/* Instantiate net reading in; returns the output stream (NULL on error,
 * reported on the run). Callable from the main thread before the run and
 * from tasks during it. */
lpel_stream *snet_instantiate(const snet_net *net, lpel_stream *in, const snet_place *at);
lpel_stream *snet_new_stream(snet_run *run);
/* "prefix" + suffix, malloc'ed. */
char *snet_path_join(const char *prefix, const char *suffix);
/* Create a task named path on at->worker; returns its id or 0 on error. */
uint64_t snet_spawn(const snet_place *at, const char *path, lpel_task_fn fn, void *arg);

lpel_stream *snet_box_instantiate(const snet_net *n, lpel_stream *in, const snet_place *at);
lpel_stream *snet_filter_instantiate(const snet_net *n, lpel_stream *in, const snet_place *at);
lpel_stream *snet_parallel_instantiate(const snet_net *n, lpel_stream *in, const snet_place *at);
lpel_stream *snet_star_instantiate(const snet_net *n, lpel_stream *in, const snet_place *at);
lpel_stream *snet_split_instantiate(const snet_net *n, lpel_stream *in, const snet_place *at);
lpel_stream *snet_sync_instantiate(const snet_net *n, lpel_stream *in, const snet_place *at);
lpel_stream *snet_feedback_instantiate(const snet_net *n, lpel_stream *in, const snet_place *at);

/* The first member of a box execution's handle (box.c), which other
 * layers read inline: the box node the execution belongs to. */
typedef struct snet_handle_head {
    const snet_net *net;
} snet_handle_head;

/* The box node a box execution belongs to: its declared types, whose
 * label names are the interned ones records carry (for a box language
 * interface that reads and builds records by the declaration: C4SNet,
 * once per execution). */
static inline const snet_net *snet_handle_net(const snet_handle *h)
{
    return ((const snet_handle_head *)(const void *)h)->net;
}
/* snet_out for a record built with exactly the labels, and the interned
 * names, of one of the box's declared output variants (C4SNetOut builds
 * them so): the check against the output type is skipped. */
int snet_out_declared(snet_handle *h, snet_record *out);

/* Copy the labels of in that are not in consumed (NULL: none consumed) and
 * not yet in out into out: flow inheritance. */
int snet_inherit(snet_record *out, const snet_record *in, const snet_variant *consumed);

/* ---- across MPI ranks (distrib/, only when run->dist is set) -------------------- */

struct snet_dist;
/* Collective, first in snet_run_create: every rank checks that the others
 * build the same network (problem: this rank's net_check result) and gets
 * the run's communication state. */
int snet_dist_begin(struct snet_dist **out, snet_distrib *job, const snet_net *net,
                    const char *problem, unsigned workers, char *err, size_t errlen);
/* Bind the state to the run (its LPEL runtime exists): the spawner task. */
int snet_dist_attach(snet_run *run, struct snet_dist *d, char *err, size_t errlen);
/* Collective, last in snet_run_create: SNET_OK only if every rank created
 * its run (else the message names a rank that did not). */
int snet_dist_agree(struct snet_dist *d, bool ok, char *err, size_t errlen);
void snet_dist_free(struct snet_dist *d);
/* Instantiate n (an snet_at_rank node) here or on its rank. */
lpel_stream *snet_dist_at_rank(const snet_net *n, lpel_stream *in, const snet_place *at);
/* Where the !@ replica for value goes: true if on another rank (*rank,
 * *worker set); false: here, on *worker. */
bool snet_dist_split_place(snet_run *run, long value, int *rank, int *worker);
/* Instantiate n on another rank: in is sent there, the returned stream
 * receives n's output from there. */
lpel_stream *snet_dist_remote(const snet_net *n, lpel_stream *in, const snet_place *at, int rank);
/* snet_run_execute for a distributed run. */
int snet_dist_execute(snet_run *run);
void snet_dist_destroy(snet_run *run);

/* ---- collectors (merger.c) ------------------------------------------------------ */

/* Merges a growing set of input streams. Sort markers: a stream that
 * delivers one waits until every live stream has delivered it; then the
 * marker is forwarded once (or dropped, if this merger's owner made it).
 * ADD records add their stream to the set. */
typedef struct snet_merger {
    lpel_stream **active;
    size_t nactive, capactive;
    lpel_stream **waiting;
    size_t nwaiting, capwaiting;
    snet_record *marker;
    uint64_t own;
    size_t start;
} snet_merger;

int snet_merger_init(snet_merger *m, uint64_t own);
int snet_merger_add(snet_merger *m, lpel_stream *s);
/* The next data record or forwarded marker; NULL when every stream ended. */
snet_record *snet_merger_next(snet_merger *m);
void snet_merger_free(snet_merger *m);

/* Write a control record to each stream (copies). */
void snet_broadcast(lpel_stream *const *streams, size_t n, const snet_record *ctl);

/* ---- the task of the merger/collector shared by parallel, split and star ---- */
typedef struct snet_collector {
    snet_run *run;
    char *path;
    snet_merger merger;
    lpel_stream *out;
} snet_collector;
void snet_collector_task(void *arg);

#endif /* SNET_INTERNAL_H */
