/*
 * box.c - the box entity: one task that calls a C function once per input
 * record (one component execution each), checks what the function emits
 * against the box's declared output type, adds the flow-inherited labels,
 * and gives every output a new message id whose parent is the input.
 *
 * A box without an input type ("-> {x}") is an initialiser, as in the
 * original runtime: its function is called once with an empty record when
 * its task starts (its outputs have no parent and inherit nothing), and it
 * takes no records: one that reaches it is a runtime error.
 *
 * A box may make its input record its first output (snet_record_reuse, or
 * snet_out of the input itself): the record is then updated rather than a
 * new one built and the input freed, which is most of what a box that
 * passes its labels on costs. Its unconsumed labels are already there, so
 * inheritance has nothing to add; when it has any, a copy of them is kept
 * for the execution's later outputs (which inherit as usual) and to check
 * the reused record against (its labels beyond an output variant must be
 * inherited ones). Everything else (ids, the trace, the check) is what a
 * new record gets.
 */
#include "snet_internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The shape of the last output record that passed the output check: the
 * (kind, name) of each entry in the order the box set them, with the
 * declaration's (interned) names. A box emits
 * records of one or a few shapes, so the next output usually has the same
 * one: the check is then one name comparison per entry, not a search of
 * the output type. Names are compared by content (the box's own strings
 * may live anywhere), against the declaration's copies, which live as long
 * as the net. Measured on the 10-stage identity pipeline: ~50 instructions
 * less per box execution. */
typedef struct output_shape {
    size_t count; /* SIZE_MAX: nothing cached yet */
    snet_label_kind kinds[SNET_INLINE_ENTRIES];
    const char *names[SNET_INLINE_ENTRIES];
} output_shape;

typedef struct box_entity {
    snet_run *run;
    const snet_net *net;
    char *path;
    lpel_stream *in, *out;
    snet_mig_source ids; /* message ids of the task's worker */
    snet_match_cache input_match; /* box_in against the input records */
    output_shape last_output;
    snet_record *kept; /* a reused input's unconsumed labels (NULL until needed) */
} box_entity;

struct snet_handle {
    snet_handle_head head; /* first: what snet_internal.h reads inline */
    box_entity *box;
    const snet_record *in; /* what outputs inherit from: the input, or once
                              it is reused, kept or no_labels */
    snet_record *input;    /* the input while the runtime owns it, else NULL */
    snet_record *reused;   /* the input once the box has it, until emitted */
    size_t variant;
    bool inherits;         /* the input came with unconsumed labels */
};

/* What outputs inherit from once a reused input had nothing to give. */
static const snet_record no_labels = {.count = 0};

void *snet_handle_user(const snet_handle *h) { return h->box->net->user; }
size_t snet_handle_variant(const snet_handle *h) { return h->variant; }
const char *snet_handle_path(const snet_handle *h) { return h->box->path; }

void snet_box_fail(snet_handle *h, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snet_run_fail(h->box->run, "box '%s': %s", h->box->path, msg);
}

/* The output variant whose labels are exactly out's, or -1. On success the
 * record's names are replaced by the declaration's (interned) names. */
static long output_variant(const snet_type *t, snet_record *out)
{
    for (size_t v = 0; v < t->count; v++) {
        const snet_variant *var = &t->variants[v];
        if (var->count != out->count)
            continue;
        long found[SNET_INLINE_ENTRIES];
        size_t i;
        for (i = 0; i < var->count; i++) {
            long e = snet_record_find(out, var->labels[i].kind, var->labels[i].name);
            if (e < 0)
                break;
            if (i < SNET_INLINE_ENTRIES)
                found[i] = e;
        }
        if (i < var->count)
            continue;
        /* Same count and every label found: the sets are equal. Rename
         * (a second lookup only for variants with many labels). */
        for (i = 0; i < var->count; i++) {
            long e = i < SNET_INLINE_ENTRIES
                         ? found[i]
                         : snet_record_find(out, var->labels[i].kind, var->labels[i].name);
            out->entries[e].name = var->labels[i].name;
        }
        return (long)v;
    }
    return -1;
}

/* Does out have the cached output shape? Its names then become the
 * declaration's, as output_variant would have made them. A record that
 * is already in the network (a reused input) has those names: one pointer
 * comparison per entry; a box's own strings are compared by content. */
static inline bool has_last_output_shape(output_shape *c, snet_record *out)
{
    if (out->count != c->count)
        return false;
    for (size_t i = 0; i < out->count; i++) {
        snet_entry *e = &out->entries[i];
        if (e->kind != c->kinds[i])
            return false;
        if (e->name != c->names[i]) {
            if (!snet_same_name(e->name, c->names[i]))
                return false;
            e->name = c->names[i];
        }
    }
    return true;
}

/* The output check when the cached shape is not out's: the declaration is
 * searched, and out's shape cached if it passes. */
static __attribute__((noinline)) bool output_shape_miss(box_entity *b, snet_record *out)
{
    if (output_variant(&b->net->box_out, out) < 0)
        return false;
    if (out->count <= SNET_INLINE_ENTRIES) {
        b->last_output.count = out->count;
        for (size_t i = 0; i < out->count; i++) {
            b->last_output.kinds[i] = out->entries[i].kind;
            b->last_output.names[i] = out->entries[i].name; /* the declaration's now */
        }
    }
    return true;
}

static inline bool output_allowed(box_entity *b, snet_record *out)
{
    if (snet_unlikely(out->kind != SNET_REC_DATA))
        return false;
    if (snet_likely(has_last_output_shape(&b->last_output, out)))
        return true;
    return output_shape_miss(b, out);
}

typedef enum out_problem { OUT_NOT_DECLARED, OUT_PARSED, OUT_NO_MEMORY } out_problem;

/* An output that cannot go on: reported, freed. Out of line and cold, so
 * that snet_out's common path keeps its registers and stack frame small. */
static __attribute__((cold, noinline)) int out_rejected(box_entity *b, snet_record *out,
                                                        out_problem problem)
{
    if (problem == OUT_NOT_DECLARED) {
        char labels[256], types[512];
        snet_record_labels_text(out, labels, sizeof labels);
        snet_type_text(&b->net->box_out, types, sizeof types);
        snet_run_fail(b->run, "box '%s' emitted %s, which is none of its output variants %s; "
                      "record dropped", b->path, labels, types);
    } else if (problem == OUT_PARSED) { /* its names must not die with it */
        snet_run_fail(b->run, "box '%s' emitted a parsed record; build outputs with "
                      "snet_record_new", b->path);
    } else {
        snet_run_fail(b->run, "box '%s': out of memory", b->path);
    }
    snet_record_free(out);
    return problem == OUT_NO_MEMORY ? SNET_ENOMEM : SNET_ERUNTIME;
}

/* An output with its labels and inherited ones: an id, out it goes. */
static inline int out_write(box_entity *b, snet_record *out)
{
    out->id = snet_mig_take(&b->ids);
    snet_trace_written(b->run, out->id);
    lpel_stream_write(b->out, out);
    return SNET_OK;
}

/* A new output that passed its check: inherited labels, and out. */
static inline int out_checked(snet_handle *h, snet_record *out)
{
    box_entity *b = h->box;
    /* Most boxes consume their whole input: then there is nothing to inherit
     * (nor for an initialiser's empty trigger). */
    if (h->in->count > 0 &&
        snet_inherit(out, h->in, &b->net->box_in.variants[h->variant]) != SNET_OK)
        return out_rejected(b, out, OUT_NO_MEMORY);
    return out_write(b, out);
}

/* The reused input with unconsumed labels (kept) passes if it holds one
 * of the output variants and beyond it only labels of kept; the variant's
 * labels then get the declaration's names. -1 if none fits. */
static long reused_output_variant(const snet_type *t, snet_record *out, const snet_record *kept)
{
    for (size_t v = 0; v < t->count; v++) {
        const snet_variant *var = &t->variants[v];
        bool fits = true;
        for (size_t i = 0; fits && i < var->count; i++)
            fits = snet_record_find(out, var->labels[i].kind, var->labels[i].name) >= 0;
        for (size_t i = 0; fits && i < out->count; i++) {
            const snet_entry *e = &out->entries[i];
            fits = snet_variant_has(var, e->kind, e->name) ||
                   snet_record_find(kept, e->kind, e->name) >= 0;
        }
        if (!fits)
            continue;
        for (size_t i = 0; i < var->count; i++)
            out->entries[snet_record_find(out, var->labels[i].kind, var->labels[i].name)].name =
                var->labels[i].name;
        return (long)v;
    }
    return -1;
}

/* The reused input going out when the input had unconsumed labels (in
 * h->in, the kept copy): they are in it already, but the box may have
 * removed some, which come back from the copy, as they would into a new
 * record. Checked unless declared. */
static __attribute__((noinline)) int out_reused_inheriting(snet_handle *h, snet_record *out,
                                                           bool declared)
{
    box_entity *b = h->box;
    if (!declared && (out->kind != SNET_REC_DATA ||
                      reused_output_variant(&b->net->box_out, out, h->in) < 0))
        return out_rejected(b, out, OUT_NOT_DECLARED);
    if (snet_inherit(out, h->in, NULL) != SNET_OK)
        return out_rejected(b, out, OUT_NO_MEMORY);
    return out_write(b, out);
}

/* The reused input going out: once. With nothing inherited, it is checked
 * as a new record is (its labels must be exactly an output variant's). */
static inline int out_reused(snet_handle *h, snet_record *out, bool declared)
{
    h->reused = NULL;
    if (snet_unlikely(h->in->count > 0))
        return out_reused_inheriting(h, out, declared);
    box_entity *b = h->box;
    if (!declared && snet_unlikely(!output_allowed(b, out)))
        return out_rejected(b, out, OUT_NOT_DECLARED);
    return out_write(b, out);
}

/* A reused input that has unconsumed labels: a copy of them is kept, for
 * the execution's later outputs to inherit and to check it against. */
static __attribute__((noinline)) void keep_inherited(snet_handle *h, const snet_record *input)
{
    box_entity *b = h->box;
    if (!b->kept && !(b->kept = snet_record_new()))
        snet_fatal_oom("a reused record's inherited labels");
    if (snet_inherit(b->kept, input, &b->net->box_in.variants[h->variant]) != SNET_OK)
        snet_fatal_oom("a reused record's inherited labels");
    h->in = b->kept;
}

/* The input becomes the box's: what outputs inherit from now is the kept
 * copy of its unconsumed labels, or nothing. */
static inline snet_record *reuse_input(snet_handle *h)
{
    snet_record *r = h->input;
    h->input = NULL;
    h->reused = r;
    if (snet_likely(!h->inherits))
        h->in = &no_labels;
    else
        keep_inherited(h, r);
    return r;
}

snet_record *snet_record_reuse(snet_handle *h)
{
    if (snet_unlikely(!h || !h->input))
        return NULL;
    return reuse_input(h);
}

/* Is out the reused input? A box that freed it and made a new record may
 * get the same address from the pool: that record then takes this path,
 * which gives it the labels a new record gets (kept's, where it has none
 * of their names); only its check is the reused record's. */
static inline bool is_reused(snet_handle *h, const snet_record *out)
{
    return out == h->reused;
}

int snet_out(snet_handle *h, snet_record *out)
{
    if (snet_unlikely(!h || !out))
        return SNET_EINVAL;
    box_entity *b = h->box;
    if (out == h->input) { /* the input itself: reused now, and out */
        if (snet_likely(!h->inherits)) { /* reuse_input and out_reused in one */
            h->input = NULL;
            h->in = &no_labels;
            if (snet_unlikely(!output_allowed(b, out)))
                return out_rejected(b, out, OUT_NOT_DECLARED);
            return out_write(b, out);
        }
        (void)reuse_input(h);
    }
    if (is_reused(h, out))
        return out_reused(h, out, false);
    if (snet_unlikely(!output_allowed(b, out)))
        return out_rejected(b, out, OUT_NOT_DECLARED);
    if (snet_unlikely(out->name_blob != NULL))
        return out_rejected(b, out, OUT_PARSED);
    return out_checked(h, out);
}

int snet_out_declared(snet_handle *h, snet_record *out)
{
    if (is_reused(h, out))
        return out_reused(h, out, true);
    return out_checked(h, out);
}

static void box_execute(box_entity *b, snet_record *r)
{
    long score;
    long variant = snet_match_cache_best(&b->input_match, r, &score);
    if (snet_unlikely(variant < 0)) {
        snet_report_no_match(b->run, b->path, "box", r, &b->net->box_in);
        snet_record_free(r);
        return;
    }
    /* score: the labels of the variant, each one of r's */
    snet_handle h = {.head = {b->net}, .box = b, .in = r, .input = r, .variant = (size_t)variant,
                     .inherits = r->count > (size_t)score};
    int rc;
    if (snet_likely(!b->run->traced)) { /* one test per execution, not three */
        rc = b->net->fn(&h, r);
    } else {
        snet_mon_begin();
        snet_mon_read(r->id);
        rc = b->net->fn(&h, r);
        snet_mon_end();
    }
    if (snet_unlikely(rc != 0))
        snet_run_fail(b->run, "box '%s' failed (it returned %d)", b->path, rc);
    if (snet_likely(h.input != NULL)) /* else reused: the box's */
        snet_record_free(h.input);
    if (snet_unlikely(h.in == b->kept))
        snet_record_clear(b->kept);
}

/* An initialiser's one execution, on an empty record (the trigger). */
static void box_initialise(box_entity *b)
{
    snet_record *trigger = snet_record_new();
    if (!trigger)
        snet_fatal_oom("an initialiser box");
    snet_handle h = {.head = {b->net}, .box = b, .in = trigger, .input = trigger};
    snet_trace_begin(b->run);
    int rc = b->net->fn(&h, trigger);
    snet_trace_end(b->run);
    if (rc != 0)
        snet_run_fail(b->run, "box '%s' failed (it returned %d)", b->path, rc);
    if (h.input != NULL) /* else reused as an output: no longer ours */
        snet_record_free(h.input);
}

static void box_task(void *arg)
{
    box_entity *b = arg;
    snet_mig_source_init(&b->ids, b->run, lpel_task_worker(lpel_task_self()));
    lpel_stream_open(b->out, LPEL_STREAM_WRITE);
    if (b->net->box_in.count == 0)
        box_initialise(b);
    for (snet_record *r; (r = lpel_stream_read(b->in)) != NULL;) {
        /* The record was last written on the writer's worker, and the box
         * writes to it (taking fields): ask for the line to write at once,
         * rather than reading it and then taking it over a second time
         * (2-worker pipeline: +3 % records/s, median of 8 interleaved runs;
         * one instruction per record on one worker). And start on the next
         * record while this one is processed: two workers +18 % records/s
         * (8 interleaved runs), one worker 6 instructions more per box
         * (-3 % records/s, inside the +-5 % noise of those runs). */
        __builtin_prefetch(r, 1, 3);
        lpel_stream_prefetch_next(b->in);
        if (r->kind == SNET_REC_DATA)
            box_execute(b, r);
        else
            lpel_stream_write(b->out, r); /* control records keep their place */
    }
    lpel_stream_close(b->in, LPEL_STREAM_READ);
    lpel_stream_close(b->out, LPEL_STREAM_WRITE);
    snet_record_free(b->kept);
    free(b->path);
    free(b);
}

lpel_stream *snet_box_instantiate(const snet_net *n, lpel_stream *in, const snet_place *at)
{
    box_entity *b = malloc(sizeof *b);
    lpel_stream *out = snet_new_stream(at->run);
    char *path = snet_path_join(at->prefix, n->name);
    if (!b || !out || !path) {
        free(b);
        free(path);
        snet_run_fail(at->run, "out of memory instantiating box '%s'", n->name);
        return NULL;
    }
    *b = (box_entity){.run = at->run, .net = n, .path = path, .in = in, .out = out};
    snet_match_cache_init(&b->input_match, &n->box_in);
    b->last_output.count = SIZE_MAX;
    if (!snet_spawn(at, path, box_task, b)) {
        free(path);
        free(b);
        return NULL;
    }
    return out;
}
