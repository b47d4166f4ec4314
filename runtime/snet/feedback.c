/*
 * feedback.c - the feedback loop A \ {back} and its deterministic form
 * A \\ {back}: records A outputs that match a back pattern go into A again,
 * the others leave.
 *
 * Two tasks, both named "F", around one instance of A (tasks "F0:..."):
 * the entry merges the records from outside with those coming round and
 * feeds A; the exit routes A's output out or back. A cycle of bounded
 * streams can deadlock (A blocked writing to the exit, the exit blocked
 * writing back to the entry, the entry blocked writing into A), so the way
 * back never blocks: the exit appends to an unbounded queue and rings a
 * one-slot doorbell stream with a non-blocking write; the entry, woken by
 * the doorbell, drains the queue.
 *
 * The loop is finished when input has ended and nothing is inside it. The
 * entry finds out with probes: a sort marker sent through A comes out of
 * it only after every output of what went in before it (every merger in A
 * holds markers until all its inputs have delivered them). The exit puts
 * the returned probe on the way back like a record; if no record came
 * round between sending the probe and its return, A is empty. The entry
 * then closes A's input and the loop winds down.
 *
 * Control records from outside (sort markers of an enclosing deterministic
 * combinator) must leave after everything the records before them caused,
 * however many rounds that takes: the entry stops taking input, drains
 * the loop, then sends the marker through A. The deterministic variant
 * drains the loop the same way after every input record, so the outputs of
 * each record leave before those of the next.
 */
#include "snet_internal.h"

#include <stdlib.h>
#include <string.h>

/* What the two tasks share; the last to finish frees it. */
typedef struct loop {
    snet_run *run;
    const snet_net *net;
    char *path;
    pthread_mutex_t lock;
    snet_record **queue; /* records coming round, and returned probes */
    size_t head, count, cap;
    lpel_stream *doorbell; /* exit -> entry, one slot */
    uint64_t entry_id;     /* owner of the probes */
    atomic_int refs;
} loop;

/* Any non-NULL pointer rings the doorbell. */
static char doorbell_token;

static void loop_release(loop *l)
{
    if (atomic_fetch_sub(&l->refs, 1) != 1)
        return;
    for (size_t i = 0; i < l->count; i++)
        snet_record_free(l->queue[(l->head + i) % l->cap]);
    free(l->queue);
    pthread_mutex_destroy(&l->lock);
    free(l->path);
    free(l);
}

/* ---- the way back ------------------------------------------------------------------ */

static void push_back(loop *l, snet_record *r)
{
    pthread_mutex_lock(&l->lock);
    if (l->count == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        snet_record **grown = malloc(cap * sizeof *grown);
        if (!grown)
            snet_fatal_oom("a feedback loop"); /* dropping it would hang the loop */
        for (size_t i = 0; i < l->count; i++)
            grown[i] = l->queue[(l->head + i) % l->cap];
        free(l->queue);
        l->queue = grown;
        l->head = 0;
        l->cap = cap;
    }
    l->queue[(l->head + l->count++) % l->cap] = r;
    pthread_mutex_unlock(&l->lock);
    lpel_stream_try_write(l->doorbell, &doorbell_token); /* full: already rung */
}

/* Take everything queued (into a malloc'ed array, *n entries). */
static snet_record **take_all(loop *l, size_t *n)
{
    pthread_mutex_lock(&l->lock);
    *n = l->count;
    snet_record **all = l->count ? malloc(l->count * sizeof *all) : NULL;
    if (l->count && !all)
        snet_fatal_oom("a feedback loop");
    for (size_t i = 0; i < l->count; i++)
        all[i] = l->queue[(l->head + i) % l->cap];
    l->head = l->count = 0;
    pthread_mutex_unlock(&l->lock);
    return all;
}

static bool queue_empty(loop *l)
{
    pthread_mutex_lock(&l->lock);
    bool empty = l->count == 0;
    pthread_mutex_unlock(&l->lock);
    return empty;
}

/* ---- the exit ------------------------------------------------------------------------ */

typedef struct loop_exit {
    loop *l;
    lpel_stream *body_out, *out;
} loop_exit;

static void exit_task(void *arg)
{
    loop_exit *x = arg;
    loop *l = x->l;
    snet_match_cache back; /* the patterns that go round again, last match */
    snet_match_cache_init(&back, &l->net->exit);
    lpel_stream_open(x->out, LPEL_STREAM_WRITE);
    lpel_stream_open(l->doorbell, LPEL_STREAM_WRITE);
    for (snet_record *r; (r = lpel_stream_read(x->body_out)) != NULL;) {
        if (r->kind == SNET_REC_SORT && r->sort_owner == l->entry_id)
            push_back(l, r); /* a probe returned */
        else if (r->kind == SNET_REC_DATA && snet_match_cache_best(&back, r, NULL) >= 0)
            push_back(l, r);
        else
            lpel_stream_write(x->out, r);
    }
    lpel_stream_close(x->body_out, LPEL_STREAM_READ);
    lpel_stream_close(x->out, LPEL_STREAM_WRITE);
    lpel_stream_close(l->doorbell, LPEL_STREAM_WRITE);
    loop_release(l);
    free(x);
}

/* ---- the entry ------------------------------------------------------------------------ */

typedef struct loop_entry {
    loop *l;
    lpel_stream *in, *body_in;
    bool input_open;
    bool draining;        /* not taking input until the loop is empty */
    bool empty;           /* the last probe found the loop empty */
    snet_record *held;    /* an outside marker waiting for the loop to empty */
    uint64_t probe;       /* the last probe sent */
    bool probe_out;       /* it has not come back yet */
    uint64_t came_round;  /* records fed in again since it was sent */
} loop_entry;

static void send_probe(loop_entry *e)
{
    snet_record *p = snet_record_sort(e->l->entry_id, ++e->probe);
    if (!p)
        snet_fatal_oom("a feedback loop");
    e->probe_out = true;
    e->came_round = 0;
    lpel_stream_write(e->body_in, p);
}

/* The loop is empty: let a held marker follow everything before it, and
 * take input again. */
static void quiescent(loop_entry *e)
{
    e->empty = true;
    if (e->held) {
        lpel_stream_write(e->body_in, e->held);
        e->held = NULL;
    }
    e->draining = false;
}

static void drain_queue(loop_entry *e)
{
    size_t n;
    snet_record **all = take_all(e->l, &n);
    for (size_t i = 0; i < n; i++) {
        snet_record *r = all[i];
        if (r->kind == SNET_REC_SORT) { /* a returned probe */
            bool current = r->sort_counter == e->probe;
            snet_record_free(r);
            if (current && e->probe_out) {
                e->probe_out = false;
                if (e->came_round == 0)
                    quiescent(e);
            }
        } else {
            e->came_round++;
            e->empty = false;
            lpel_stream_write(e->body_in, r);
        }
    }
    free(all);
}

static void take_input(loop_entry *e)
{
    snet_record *r = lpel_stream_read(e->in);
    if (!r) {
        e->input_open = false;
        lpel_stream_close(e->in, LPEL_STREAM_READ);
        return;
    }
    if (r->kind != SNET_REC_DATA) {
        e->held = r;
        e->draining = true;
        return;
    }
    e->empty = false;
    lpel_stream_write(e->body_in, r);
    if (e->l->net->det)
        e->draining = true;
}

static void entry_task(void *arg)
{
    loop_entry *e = arg;
    loop *l = e->l;
    lpel_stream_open(e->body_in, LPEL_STREAM_WRITE);
    for (;;) {
        if (e->input_open && !e->draining) {
            lpel_stream *set[2] = {e->in, l->doorbell};
            if (lpel_stream_poll(set, 2, 0) == 0) {
                take_input(e);
                continue;
            }
        } else if (!e->input_open && e->empty && !e->held && !e->probe_out) {
            break; /* input over and nothing inside */
        } else if (!e->probe_out && queue_empty(l)) {
            e->empty = false;
            send_probe(e); /* is the loop empty? */
        }
        lpel_stream_read(l->doorbell);
        drain_queue(e);
    }
    lpel_stream_close(e->body_in, LPEL_STREAM_WRITE);
    /* The exit may still ring: read until it closes its end. */
    while (lpel_stream_read(l->doorbell))
        ;
    lpel_stream_close(l->doorbell, LPEL_STREAM_READ);
    loop_release(l);
    free(e);
}

/* ---- instantiation ---------------------------------------------------------------------- */

lpel_stream *snet_feedback_instantiate(const snet_net *n, lpel_stream *in, const snet_place *at)
{
    loop *l = calloc(1, sizeof *l);
    loop_entry *e = calloc(1, sizeof *e);
    loop_exit *x = calloc(1, sizeof *x);
    lpel_stream *body_in = snet_new_stream(at->run), *out = snet_new_stream(at->run);
    lpel_stream *doorbell = lpel_stream_create(at->run->lpel, 1);
    char *body_prefix = snet_path_join(at->prefix, "F0:");
    char *path = snet_path_join(at->prefix, "F");
    if (!l || !e || !x || !body_in || !out || !doorbell || !body_prefix || !path)
        goto fail;
    *l = (loop){.run = at->run, .net = n, .path = path, .doorbell = doorbell};
    pthread_mutex_init(&l->lock, NULL);
    atomic_init(&l->refs, 2);
    snet_place body = {at->run, body_prefix, at->worker};
    lpel_stream *body_out = snet_instantiate(n->children[0], body_in, &body);
    free(body_prefix);
    body_prefix = NULL;
    if (!body_out)
        goto fail_late;
    *e = (loop_entry){.l = l, .in = in, .body_in = body_in, .input_open = true};
    *x = (loop_exit){l, body_out, out};
    uint64_t id = snet_spawn(at, path, entry_task, e);
    if (!id)
        goto fail_late;
    l->entry_id = id;
    if (!snet_spawn(at, path, exit_task, x))
        return NULL; /* reported; the entry's part belongs to a task now */
    return out;
fail:
    snet_run_fail(at->run, "cannot instantiate the feedback loop at '%sF'", at->prefix);
    free(path);
    free(l);
fail_late:
    free(body_prefix);
    free(e);
    free(x);
    return NULL;
}
