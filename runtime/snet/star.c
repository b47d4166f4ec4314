/*
 * star.c - serial replication A * {exit} and A ** {exit}.
 *
 * The star is a chain of stages. Stage i (task "R<i>") tests each record
 * against the exit pattern: a match leaves the star, anything else goes
 * into replica i of A (tasks "R<i>:..."), created the first time it is
 * needed, whose output feeds stage i+1.
 *
 * Leaving records take a path that never loops back (a cycle of bounded
 * streams could deadlock): while stage i is the last one it writes them to
 * its own stream to the collector (task "R"); when it creates stage i+1 it
 * announces the new stage's collector stream (ADD), closes its own, and from
 * then on sends leaving records along a bypass stream to stage i+1, which
 * merges bypass and replica output. The collector therefore reads one or two
 * streams at a time however deep the star unfolds, and each stage only
 * lives until its inputs end, so the chain winds down behind the records.
 *
 * A ** {exit} keeps order: stage 0 sends a sort marker after each record
 * along every path (replica and bypass/collector); each stage merges its two
 * inputs by markers, and the collector drops the markers at the end.
 */
#include "snet_internal.h"

#include <stdlib.h>
#include <string.h>

/* What every stage of one star instance shares (read-only after creation,
 * except refs). Stage 0's task id owns the sort markers. */
typedef struct star_shared {
    snet_run *run;
    const snet_net *net;
    char *prefix; /* the star's path prefix */
    int worker;
    atomic_uint refs;
} star_shared;

typedef struct star_stage {
    star_shared *star;
    unsigned index;
    snet_merger inputs;   /* the star input (stage 0), or replica output + bypass */
    lpel_stream *exit;    /* to the collector, while this is the last stage */
    lpel_stream *replica; /* into replica index, once created */
    lpel_stream *bypass;  /* to stage index+1, once created */
    uint64_t counter;
    snet_match_cache exit_match; /* the exit type's last match */
} star_stage;

static void star_release(star_shared *s)
{
    if (atomic_fetch_sub(&s->refs, 1) == 1) {
        free(s->prefix);
        free(s);
    }
}

static void stage_task(void *arg);

static char *stage_path(const star_shared *s, const char *fmt, unsigned i)
{
    char part[32];
    snprintf(part, sizeof part, fmt, i);
    return snet_path_join(s->prefix, part);
}

/* Where replica i and stage i+1 go: with a static placement (@N) there;
 * otherwise both on the worker after the creating stage's. Keeping a
 * replica and the stage after it together halves the cross-worker hops of
 * a record going deeper (each a wake-up of the other worker), and the
 * alternation still spreads consecutive replicas over the workers. */
static int replica_worker(const star_shared *s)
{
    if (s->worker >= 0)
        return s->worker;
    return (int)((lpel_task_worker(lpel_task_self()) + 1) % s->run->workers);
}

/* Create replica index and stage index+1; hand the collector over to it. */
static int unfold(star_stage *st)
{
    star_shared *s = st->star;
    char *prefix = stage_path(s, "R%u:", st->index);
    char *next_path = stage_path(s, "R%u", st->index + 1);
    star_stage *next = calloc(1, sizeof *next);
    lpel_stream *rin = snet_new_stream(s->run), *bypass = snet_new_stream(s->run);
    lpel_stream *exit = snet_new_stream(s->run);
    snet_record *add = snet_record_add(exit);
    if (!prefix || !next_path || !next || !rin || !bypass || !exit || !add)
        goto fail;
    int worker = replica_worker(s);
    snet_place place = {s->run, prefix, worker};
    lpel_stream *rout = snet_instantiate(s->net->children[0], rin, &place);
    if (!rout)
        goto fail;
    next->star = s;
    next->index = st->index + 1;
    next->exit = exit;
    snet_merger_init(&next->inputs, 0);
    if (snet_merger_add(&next->inputs, rout) != SNET_OK ||
        snet_merger_add(&next->inputs, bypass) != SNET_OK)
        goto fail;
    atomic_fetch_add(&s->refs, 1);
    snet_place here = {s->run, s->prefix, worker};
    if (!snet_spawn(&here, next_path, stage_task, next)) {
        atomic_fetch_sub(&s->refs, 1);
        goto fail;
    }
    lpel_stream_write(st->exit, add);
    lpel_stream_close(st->exit, LPEL_STREAM_WRITE);
    st->exit = NULL;
    st->replica = rin;
    st->bypass = bypass;
    free(prefix);
    free(next_path);
    return 0;
fail:
    snet_run_fail(s->run, "star '%sR': cannot create replica %u", s->prefix, st->index);
    free(prefix);
    free(next_path);
    if (next)
        snet_merger_free(&next->inputs);
    free(next);
    snet_record_free(add);
    return -1;
}

/* Where leaving records and markers go: the collector or the next stage. */
static lpel_stream *onward(const star_stage *st)
{
    return st->bypass ? st->bypass : st->exit;
}

static void send_control(star_stage *st, const snet_record *ctl)
{
    lpel_stream *targets[2];
    size_t n = 0;
    if (st->replica)
        targets[n++] = st->replica;
    targets[n++] = onward(st);
    snet_broadcast(targets, n, ctl);
}

static void stage_record(star_stage *st, snet_record *r)
{
    star_shared *s = st->star;
    if (snet_match_cache_best(&st->exit_match, r, NULL) >= 0) {
        lpel_stream_write(onward(st), r);
    } else if (!st->replica && unfold(st) != 0) {
        snet_record_free(r); /* reported by unfold */
    } else {
        lpel_stream_write(st->replica, r);
    }
    if (s->net->det && st->index == 0) {
        snet_record *marker = snet_record_sort(lpel_task_id(lpel_task_self()), ++st->counter);
        if (!marker)
            snet_fatal_oom("a star stage");
        send_control(st, marker);
        snet_record_free(marker);
    }
}

static void stage_task(void *arg)
{
    star_stage *st = arg;
    snet_match_cache_init(&st->exit_match, &st->star->net->exit);
    lpel_stream_open(st->exit, LPEL_STREAM_WRITE);
    for (snet_record *r; (r = snet_merger_next(&st->inputs)) != NULL;) {
        if (r->kind == SNET_REC_DATA) {
            stage_record(st, r);
        } else {
            send_control(st, r);
            snet_record_free(r);
        }
    }
    if (st->replica)
        lpel_stream_close(st->replica, LPEL_STREAM_WRITE);
    lpel_stream_close(onward(st), LPEL_STREAM_WRITE);
    snet_merger_free(&st->inputs);
    star_release(st->star);
    free(st);
}

lpel_stream *snet_star_instantiate(const snet_net *n, lpel_stream *in, const snet_place *at)
{
    star_shared *s = calloc(1, sizeof *s);
    star_stage *first = calloc(1, sizeof *first);
    snet_collector *c = calloc(1, sizeof *c);
    lpel_stream *exit = snet_new_stream(at->run), *out = snet_new_stream(at->run);
    char *first_path = snet_path_join(at->prefix, "R0");
    if (!s || !first || !c || !exit || !out || !first_path)
        goto fail;
    s->run = at->run;
    s->net = n;
    s->prefix = strdup(at->prefix);
    s->worker = at->worker;
    atomic_init(&s->refs, 1);
    c->run = at->run;
    c->path = snet_path_join(at->prefix, "R");
    c->out = out;
    if (!s->prefix || !c->path)
        goto fail;
    first->star = s;
    first->index = 0;
    first->exit = exit;
    snet_merger_init(&first->inputs, 0);
    if (snet_merger_add(&first->inputs, in) != SNET_OK)
        goto fail;
    uint64_t id = snet_spawn(at, first_path, stage_task, first);
    if (!id)
        goto fail;
    snet_merger_init(&c->merger, n->det ? id : 0);
    snet_merger_add(&c->merger, exit);
    if (!snet_spawn(at, c->path, snet_collector_task, c))
        return NULL; /* reported; the parts now belong to a task that may run */
    free(first_path);
    return out;
fail:
    snet_run_fail(at->run, "cannot instantiate star at '%sR'", at->prefix);
    if (s)
        free(s->prefix);
    free(s);
    if (first)
        snet_merger_free(&first->inputs);
    free(first);
    if (c)
        free(c->path);
    free(c);
    free(first_path);
    return NULL;
}
