/*
 * filter.c - the filter entity: one task applying a parsed filter spec to
 * each record. The first branch whose guard holds is taken (none: the
 * record is consumed without output); each of its ';'-separated outputs
 * builds one new record from the pattern's labels (kept, renamed/copied
 * fields, computed tags); the labels outside the pattern are
 * flow-inherited into each. One record in, n out is one component
 * execution, so the trace shows the outputs' parent.
 */
#include "snet_internal.h"

#include <stdlib.h>

typedef struct filter_entity {
    snet_run *run;
    const snet_net *net;
    char *path;
    lpel_stream *in, *out;
    unsigned worker; /* the task's worker, for message ids */
    snet_type pattern;           /* the filter's pattern as a one-variant type */
    snet_match_cache pattern_match; /* its last match */
} filter_entity;

static int apply_op(filter_entity *f, const snet_filter_op *op, const snet_record *in,
                    snet_record *out)
{
    snet_entry e = {.name = op->name, .kind = op->label_kind, .type = NULL, .u.tag = 0};
    if (op->kind == SNET_FOP_FIELD) {
        long i = snet_record_find(in, SNET_FIELD, op->source);
        e.type = in->entries[i].type;
        e.u.value = snet_field_copy(e.type, in->entries[i].u.value);
    } else {
        bool ok = true;
        e.u.tag = snet_expr_eval(op->expr, in, &ok);
        if (!ok)
            snet_run_fail(f->run, "filter '%s': division by zero computing <%s>; set to 0",
                          f->path, op->name);
    }
    if (snet_record_append(out, &e) != SNET_OK) {
        snet_field_free(e.type, e.u.value);
        return SNET_ENOMEM;
    }
    return SNET_OK;
}

static snet_record *build_output(filter_entity *f, const snet_filter_output *o,
                                 const snet_record *in)
{
    snet_record *out = snet_record_new();
    if (!out)
        return NULL;
    for (size_t i = 0; i < o->count; i++)
        if (apply_op(f, &o->ops[i], in, out) != SNET_OK)
            goto fail;
    if (snet_inherit(out, in, &f->net->filter.pattern) != SNET_OK)
        goto fail;
    return out;
fail:
    snet_record_free(out);
    return NULL;
}

/* The first branch whose guard holds, or NULL. */
static const snet_filter_branch *choose(filter_entity *f, const snet_record *r)
{
    const snet_filter_spec *spec = &f->net->filter;
    for (size_t b = 0; b < spec->count; b++) {
        const snet_filter_branch *br = &spec->branches[b];
        bool ok = true;
        if (!br->guard || snet_expr_eval(br->guard, r, &ok))
            return br;
        if (!ok)
            snet_run_fail(f->run, "filter '%s': division by zero in a guard; taken as false",
                          f->path);
    }
    return NULL;
}

static void filter_execute(filter_entity *f, snet_record *r)
{
    const snet_filter_spec *spec = &f->net->filter;
    if (spec->identity) {
        lpel_stream_write(f->out, r); /* [] passes records unchanged, ids too */
        return;
    }
    if (snet_match_cache_best(&f->pattern_match, r, NULL) < 0) {
        snet_report_no_match(f->run, f->path, "filter", r, &f->net->in_type);
        snet_record_free(r);
        return;
    }
    snet_trace_begin(f->run);
    snet_trace_read(f->run, r->id);
    const snet_filter_branch *br = choose(f, r);
    for (size_t k = 0; br && k < br->count; k++) {
        snet_record *out = build_output(f, &br->outputs[k], r);
        if (!out) {
            snet_run_fail(f->run, "filter '%s': out of memory; output dropped", f->path);
            continue;
        }
        out->id = snet_mig_next_on(f->run, f->worker);
        snet_trace_written(f->run, out->id);
        lpel_stream_write(f->out, out);
    }
    snet_trace_end(f->run);
    snet_record_free(r);
}

static void filter_task(void *arg)
{
    filter_entity *f = arg;
    f->worker = lpel_task_worker(lpel_task_self());
    lpel_stream_open(f->out, LPEL_STREAM_WRITE);
    for (snet_record *r; (r = lpel_stream_read(f->in)) != NULL;) {
        if (r->kind == SNET_REC_DATA)
            filter_execute(f, r);
        else
            lpel_stream_write(f->out, r);
    }
    lpel_stream_close(f->in, LPEL_STREAM_READ);
    lpel_stream_close(f->out, LPEL_STREAM_WRITE);
    free(f->path);
    free(f);
}

lpel_stream *snet_filter_instantiate(const snet_net *n, lpel_stream *in, const snet_place *at)
{
    filter_entity *f = malloc(sizeof *f);
    lpel_stream *out = snet_new_stream(at->run);
    char *path = snet_path_join(at->prefix, "filter");
    if (!f || !out || !path) {
        free(f);
        free(path);
        snet_run_fail(at->run, "out of memory instantiating a filter");
        return NULL;
    }
    *f = (filter_entity){.run = at->run, .net = n, .path = path, .in = in, .out = out};
    f->pattern = (snet_type){(snet_variant *)&n->filter.pattern, 1};
    snet_match_cache_init(&f->pattern_match, &f->pattern);
    if (!snet_spawn(at, path, filter_task, f)) {
        free(path);
        free(f);
        return NULL;
    }
    return out;
}
