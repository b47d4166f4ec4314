/*
 * split.c - parallel replication A ! <t>, A !! <t> and A !@ <t>.
 *
 * A dispatcher task ("I") keeps one replica of A per distinct value of tag
 * t (tasks "I<v>:..."), creating it the first time the value is seen, and
 * announces each new replica's output to the collector ("I") with an ADD
 * record on a control stream. With !@ the replica for value v is placed on
 * worker v (dynamic placement), or across MPI ranks (distrib/). A !! <t> keeps input order with sort
 * markers sent to every replica and the control stream (merger.c).
 */
#include "kit.h"
#include "snet_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct split_entity {
    snet_run *run;
    const snet_net *net;
    char *path, *prefix;
    int worker; /* placement hint of the enclosing @N */
    lpel_stream *in, *control;
    kit_index_map replicas; /* tag value -> replica index */
    long *values;            /* per replica: its tag value */
    size_t nreplicas;
    lpel_stream **all; /* every replica input, and the control stream last */
    uint64_t counter;
} split_entity;

static uint64_t value_hash(long value) { return (uint64_t)value; }

typedef struct value_probe {
    const split_entity *s;
    long value;
} value_probe;

static bool same_value(const void *ctx, uint32_t i)
{
    const value_probe *p = ctx;
    return p->s->values[i] == p->value;
}

static uint64_t stored_value_hash(const void *ctx, uint32_t i)
{
    const split_entity *s = ctx;
    return value_hash(s->values[i]);
}

/* The input stream of the replica for value, NULL when there is none yet. */
static lpel_stream *replica_of(const split_entity *s, long value)
{
    value_probe p = {s, value};
    uint32_t i = kit_index_map_find(&s->replicas, value_hash(value), same_value, &p);
    return i == UINT32_MAX ? NULL : s->all[i];
}

static int worker_for(const split_entity *s, long value)
{
    if (!s->net->placed)
        return s->worker;
    long n = (long)s->run->workers;
    return (int)(((value % n) + n) % n);
}

/* Create the replica for value; returns its input stream or NULL. */
static lpel_stream *new_replica(split_entity *s, long value)
{
    lpel_stream **all = realloc(s->all, (s->nreplicas + 2) * sizeof *all);
    if (!all)
        return NULL;
    s->all = all;
    long *values = realloc(s->values, (s->nreplicas + 1) * sizeof *values);
    if (!values)
        return NULL;
    s->values = values;
    if (kit_index_map_reserve(&s->replicas, stored_value_hash, s) != 0)
        return NULL;
    char part[48];
    snprintf(part, sizeof part, "I%ld:", value);
    char *full = snet_path_join(s->prefix, part);
    lpel_stream *rin = snet_new_stream(s->run);
    snet_record *add = snet_record_add(NULL);
    if (!full || !rin || !add) {
        free(full);
        snet_record_free(add);
        return NULL;
    }
    snet_place place = {s->run, full, worker_for(s, value)};
    int rank;
    lpel_stream *rout = s->net->placed && s->run->dist &&
                                snet_dist_split_place(s->run, value, &rank, &place.worker)
                            ? snet_dist_remote(s->net->children[0], rin, &place, rank)
                            : snet_instantiate(s->net->children[0], rin, &place);
    free(full);
    if (!rout) {
        snet_record_free(add);
        return NULL;
    }
    add->add_stream = rout;
    lpel_stream_write(s->control, add);
    s->all[s->nreplicas] = rin;
    s->values[s->nreplicas] = value;
    /* Cannot fail: reserved above. */
    kit_index_map_insert(&s->replicas, value_hash(value), (uint32_t)s->nreplicas,
                          stored_value_hash, s);
    s->nreplicas++;
    lpel_stream_open(rin, LPEL_STREAM_WRITE);
    return rin;
}

static void route(split_entity *s, snet_record *r)
{
    long i = snet_record_find(r, SNET_TAG, s->net->tag);
    if (i < 0) {
        snet_type need = {0};
        snet_variant v = {&(snet_label){s->net->tag, SNET_TAG}, 1, NULL};
        need.variants = &v;
        need.count = 1;
        snet_report_no_match(s->run, s->path, "split", r, &need);
        snet_record_free(r);
        return;
    }
    long value = r->entries[i].u.tag;
    lpel_stream *target = replica_of(s, value);
    if (!target)
        target = new_replica(s, value);
    if (!target) {
        snet_run_fail(s->run, "split '%s': cannot create the replica for <%s>=%ld", s->path,
                      s->net->tag, value);
        snet_record_free(r);
        return;
    }
    lpel_stream_write(target, r);
}

/* Control records (own markers and outer ones) go to every replica and to
 * the collector's control stream. */
static void broadcast(split_entity *s, const snet_record *ctl)
{
    s->all[s->nreplicas] = s->control;
    snet_broadcast(s->all, s->nreplicas + 1, ctl);
}

static void split_task(void *arg)
{
    split_entity *s = arg;
    lpel_stream_open(s->control, LPEL_STREAM_WRITE);
    for (snet_record *r; (r = lpel_stream_read(s->in)) != NULL;) {
        if (r->kind != SNET_REC_DATA) {
            broadcast(s, r);
            snet_record_free(r);
            continue;
        }
        route(s, r);
        if (s->net->det) {
            snet_record *marker = snet_record_sort(lpel_task_id(lpel_task_self()), ++s->counter);
            if (!marker)
                snet_fatal_oom("the split dispatcher");
            broadcast(s, marker);
            snet_record_free(marker);
        }
    }
    lpel_stream_close(s->in, LPEL_STREAM_READ);
    for (size_t i = 0; i < s->nreplicas; i++)
        lpel_stream_close(s->all[i], LPEL_STREAM_WRITE);
    lpel_stream_close(s->control, LPEL_STREAM_WRITE);
    kit_index_map_free(&s->replicas);
    free(s->values);
    free(s->all);
    free(s->path);
    free(s->prefix);
    free(s);
}

lpel_stream *snet_split_instantiate(const snet_net *n, lpel_stream *in, const snet_place *at)
{
    split_entity *s = calloc(1, sizeof *s);
    snet_collector *c = calloc(1, sizeof *c);
    lpel_stream *control = snet_new_stream(at->run), *out = snet_new_stream(at->run);
    if (!s || !c || !control || !out)
        goto fail;
    s->all = malloc(sizeof *s->all);
    s->path = snet_path_join(at->prefix, "I");
    s->prefix = strdup(at->prefix);
    c->path = snet_path_join(at->prefix, "I");
    if (!s->all || !s->path || !s->prefix || !c->path)
        goto fail;
    s->run = at->run;
    s->net = n;
    s->worker = at->worker;
    s->in = in;
    s->control = control;
    c->run = at->run;
    c->out = out;
    uint64_t id = snet_spawn(at, s->path, split_task, s);
    if (!id)
        goto fail;
    snet_merger_init(&c->merger, n->det ? id : 0);
    snet_merger_add(&c->merger, control);
    if (!snet_spawn(at, c->path, snet_collector_task, c))
        return NULL;
    return out;
fail:
    snet_run_fail(at->run, "cannot instantiate split at '%sI'", at->prefix);
    if (s) {
        free(s->all);
        free(s->path);
        free(s->prefix);
    }
    free(s);
    if (c)
        free(c->path);
    free(c);
    return NULL;
}
