/*
 * wfb_online.c - an LPEL trace's message graph analysed as the lifter
 * builds it, in memory bounded by what is live: the bounded lifter's
 * backend (wfb_lifter_new_bounded). The reference, the graph in memory and
 * its walks (wfb_graph.c, wfb_messages.c, wfb_wcp.c), gives the same
 * figures; tests/bridge/test_wfb_bounded.c and the bounded-vs-reference CLI
 * test check that on real traces.
 *
 * What the walks over the finished graph compute, this computes once per
 * vertex and per execution, at the moment they are final:
 *   - which inputs reach a vertex (S(v): the inputs, i.e. the data states
 *     without predecessor, it descends from), so that each input's
 *     lifeline (eq. 2: the execution times reached from it, each shared
 *     execution split among the inputs reaching it; its descendants; its
 *     last descendant's time) adds up as executions end;
 *   - the longest path's distance of each vertex and the in-edge it comes
 *     through, and the predecessor that ended last (the as-executed path
 *     over the message graph), kept per vertex for the walk back at the
 *     end;
 *   - the counts of vertices and edges.
 * A vertex is final when every in-edge it will have is known: in the
 * lifter that is when the execution that wrote it ends (or at once, for an
 * input). An execution that read a message whose writer has not ended yet
 * waits (a batch) until it has; what waits is live state.
 *
 * Why the results are the reference's, figure for figure: the vertices are
 * created in the same order (the lifter's one sequence of references), the
 * edges of a vertex come in the same order, eq. 2's sums are exact
 * (wfb_xsum: the order of their terms does not matter), and the longest
 * path's end is a rule independent of order (wfb_path_last). The trace must
 * give each vertex its in-edges once: a message read before it was written,
 * written twice, or a cycle makes the bounded analysis give up (the caller
 * then lifts the trace in memory, wfb_lifter_finish says so).
 *
 * What grows with the trace goes to spill arrays (kit.h): per vertex its
 * record and back-pointers, per message the vertices of its id, per input
 * its lifeline, the input sets of merges. Everything else is live state.
 */
#include "wfb_internal.h"

#include "mon_reader.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- records ---- */

enum { VF_DEFINED = 1, VF_FINAL = 2, VF_HAS_OUT = 4, VF_ONLY_READ = 8 };

typedef struct on_vertex {
    uint64_t msg;      /* message id; DELETED: the execution */
    uint64_t inputs;   /* S(v): the input's ordinal when n_inputs is 1, else where
                          its ordinals start in the set store */
    double time;       /* its one time, NAN until defined */
    double dist;       /* the longest path's distance (once final) */
    uint32_t run;
    uint32_t aux;      /* MOVED: the reader's worker; DEPARTURE, ARRIVAL: the rank */
    uint32_t worker;   /* where it is (its location), WFB_NONE */
    uint32_t origin;   /* the writing task's name (g->strs), WFB_NONE */
    uint32_t n_inputs;
    uint8_t kind;      /* wfb_mv_kind */
    uint8_t flags;     /* VF_* */
    uint8_t label;     /* wfb_mv_label */
} on_vertex;

/* How a final vertex was reached: its in-edges all come from one batch
 * (one execution, or one transfer), so they share kind, execution, label
 * and cost; which source the longest path and the latest end pick. */
typedef struct on_back {
    uint32_t dp_src, ae_src; /* WFB_NONE: none (an input) */
    uint32_t exec, label;
    double cost;
    uint8_t kind, untimed;
} on_back;

/* The vertices of one message id: v + 1 each, 0 none. */
typedef struct on_message {
    uint32_t plain, moved, moved_worker, departure, departure_rank, arrival, arrival_rank;
} on_message;

/* An input's lifeline while it grows. */
typedef struct on_input {
    uint32_t vertex, run;
    double t0, last;
    uint64_t descendants;
    wfb_xsum latency, latency_cpu;
    uint8_t missing, only_read;
} on_input;

/* A vertex of a message beyond the one of each kind on_message holds (a
 * message read on two workers, sent to two ranks). */
typedef struct on_extra {
    uint64_t msg;
    uint32_t run, aux, v;
    uint8_t kind;
} on_extra;

/* Edges waiting for their sources to be final. */
typedef struct on_batch {
    uint32_t exec, label, n_reads, n_writes, waits;
    double cost;
    wfb_edge_kind kind;
    uint32_t *v; /* reads, then writes */
} on_batch;

/* A batch waiting for vertex `vertex`: a list per vertex. */
typedef struct on_waiter {
    uint32_t batch, next; /* next: index + 1, 0 at the end */
} on_waiter;

/* An execution whose inputs are known before its CPU time is, or the
 * other way round. */
typedef struct on_cpu {
    uint64_t inputs;
    uint32_t n_inputs;
    bool has_inputs;
} on_cpu;

/* A vertex the longest path may end at: not clearly shorter than the
 * longest so far. */
typedef struct on_candidate {
    uint32_t v;
    double dist;
} on_candidate;

struct wfb_online {
    wfb_graph *g;
    kit_spill *vtx, *back, *msgs, *sets, *lives;
    kit_id_map chunks;  /* (run, node, seq >> 16) -> chunk of msgs */
    uint64_t n_chunks;
    on_extra *extra;
    size_t n_extra, cap_extra;
    kit_index_map extra_map;
    uint32_t n_vertices, n_inputs;
    uint64_t n_edges, n_sets;
    on_batch *batches;
    size_t n_batches, cap_batches, live_batches;
    uint32_t *free_batches;
    size_t n_free_batches, cap_free_batches;
    mon_key_table waiting; /* vertex -> its first waiter + 1 (uint32_t) */
    on_waiter *waiters;
    size_t n_waiters, cap_waiters;
    uint32_t free_waiter; /* + 1 */
    uint32_t *ready;     /* batches whose sources all became final */
    size_t n_ready, cap_ready;
    mon_key_table cpu;   /* exec -> on_cpu, while its CPU time is not known */
    on_candidate *cands;
    size_t n_cands, cap_cands;
    double max_dist;
    uint32_t *kbuf;      /* a union of input sets */
    size_t n_kbuf, cap_kbuf;
    uint32_t *scratch;
    size_t cap_scratch;
    bool failed;         /* out of memory or a temporary file */
    const char *irregular; /* why the trace cannot be analysed this way, NULL */
    uint64_t irregular_v;
};

/* What each table may take of the graph's memory limit. */
#define SHARE_VTX 0.25
#define SHARE_BACK 0.1
#define SHARE_MSGS 0.15
#define SHARE_SETS 0.05
#define SHARE_LIVES 0.1

wfb_online *wfb_online_new(wfb_graph *g)
{
    wfb_online *o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    o->g = g;
    mon_key_table_init(&o->waiting, sizeof(uint32_t));
    mon_key_table_init(&o->cpu, sizeof(on_cpu));
    o->vtx = wfb_graph_spill(g, sizeof(on_vertex), SHARE_VTX);
    o->back = wfb_graph_spill(g, sizeof(on_back), SHARE_BACK);
    o->msgs = wfb_graph_spill(g, sizeof(on_message), SHARE_MSGS);
    o->sets = wfb_graph_spill(g, sizeof(uint32_t), SHARE_SETS);
    o->lives = wfb_graph_spill(g, sizeof(on_input), SHARE_LIVES);
    if (!o->vtx || !o->back || !o->msgs || !o->sets || !o->lives) {
        wfb_online_free(o);
        return NULL;
    }
    return o;
}

void wfb_online_free(wfb_online *o)
{
    if (!o)
        return;
    kit_spill_close(o->vtx);
    kit_spill_close(o->back);
    kit_spill_close(o->msgs);
    kit_spill_close(o->sets);
    kit_spill_close(o->lives);
    kit_id_map_free(&o->chunks);
    free(o->extra);
    kit_index_map_free(&o->extra_map);
    for (size_t i = 0; i < o->n_batches; i++)
        free(o->batches[i].v);
    free(o->batches);
    free(o->free_batches);
    mon_key_table_free(&o->waiting, NULL);
    free(o->waiters);
    free(o->ready);
    mon_key_table_free(&o->cpu, NULL);
    free(o->cands);
    free(o->kbuf);
    free(o->scratch);
    free(o);
}

const char *wfb_online_irregular(const wfb_online *o) { return o->irregular; }

static void give_up(wfb_online *o, const char *why, uint64_t v)
{
    if (!o->irregular) {
        o->irregular = why;
        o->irregular_v = v;
    }
}

/* Spill records; NULL marks the analysis failed (the graph's io_err says
 * why when a temporary file failed, else memory ran out). */
static void *at(wfb_online *o, kit_spill *s, uint64_t i)
{
    void *p = wfb_graph_spill_at(o->g, s, i);
    if (!p)
        o->failed = true;
    return p;
}

static on_vertex *vertex(wfb_online *o, uint32_t v) { return at(o, o->vtx, v); }

/* ---- names ---- */

void wfb_mv_name(char *buf, size_t len, wfb_mv_kind kind, uint32_t run, uint64_t msg,
                 uint32_t aux)
{
    if (kind == WFB_MV_DELETED) {
        snprintf(buf, len, "x%" PRIu64 ".deleted", msg);
        return;
    }
    char prefix[24] = "", id[40];
    if (run > 1)
        snprintf(prefix, sizeof prefix, "r%" PRIu32 ".", run);
    mon_msg_id_format(msg, id, sizeof id);
    switch (kind) {
    case WFB_MV_MOVED:
        snprintf(buf, len, "%sm%s@w%" PRIu32, prefix, id, aux);
        break;
    case WFB_MV_DEPARTURE:
        snprintf(buf, len, "%sm%s>rank%" PRIu32, prefix, id, aux);
        break;
    case WFB_MV_ARRIVAL:
        snprintf(buf, len, "%sm%s@rank%" PRIu32, prefix, id, aux);
        break;
    default:
        snprintf(buf, len, "%sm%s", prefix, id);
        break;
    }
}

/* ---- finding a message's vertices ---- */

/* The message's slots, NULL when out of memory. */
static on_message *message(wfb_online *o, uint32_t run, uint64_t msg, bool create)
{
    uint64_t seq = mon_msg_id_seq(msg);
    uint64_t key = (uint64_t)(run & 0xffffu) << 48 | (uint64_t)mon_msg_id_node(msg) << 24 |
                   (seq >> 16);
    uint64_t chunk;
    kit_id_entry *e = kit_id_map_find(&o->chunks, key);
    if (e) {
        chunk = e->value;
    } else {
        if (!create)
            return NULL;
        if (kit_id_map_put(&o->chunks, key, (size_t)o->n_chunks)) {
            o->failed = true;
            return NULL;
        }
        chunk = o->n_chunks++;
    }
    return at(o, o->msgs, chunk << 16 | (seq & 0xffff));
}

typedef struct extra_probe {
    const wfb_online *o;
    uint64_t msg;
    uint32_t run, aux;
    uint8_t kind;
} extra_probe;

static uint64_t extra_hash(uint64_t msg, uint32_t run, uint32_t aux, uint8_t kind)
{
    return msg * 0x9e3779b97f4a7c15ull ^ (uint64_t)run << 40 ^ (uint64_t)aux << 8 ^ kind;
}

static bool same_extra(const void *ctx, uint32_t i)
{
    const extra_probe *p = ctx;
    const on_extra *e = &p->o->extra[i];
    return e->msg == p->msg && e->run == p->run && e->aux == p->aux && e->kind == p->kind;
}

static uint64_t stored_extra_hash(const void *ctx, uint32_t i)
{
    const on_extra *e = &((const wfb_online *)ctx)->extra[i];
    return extra_hash(e->msg, e->run, e->aux, e->kind);
}

static uint32_t *slot_of(on_message *m, wfb_mv_kind kind, uint32_t **aux)
{
    switch (kind) {
    case WFB_MV_MOVED:
        *aux = &m->moved_worker;
        return &m->moved;
    case WFB_MV_DEPARTURE:
        *aux = &m->departure_rank;
        return &m->departure;
    case WFB_MV_ARRIVAL:
        *aux = &m->arrival_rank;
        return &m->arrival;
    default:
        *aux = NULL;
        return &m->plain;
    }
}

/* The vertex of (kind, run, msg, aux): WFB_NONE when absent and not
 * `create`d (or on failure); *created says it is new. */
static uint32_t lookup(wfb_online *o, wfb_mv_kind kind, uint32_t run, uint64_t msg, uint32_t aux,
                       bool create, bool *created)
{
    *created = false;
    on_message *m = message(o, run, msg, create);
    if (!m)
        return WFB_NONE;
    uint32_t *aux_slot, *slot = slot_of(m, kind, &aux_slot);
    if (*slot && (!aux_slot || *aux_slot == aux))
        return *slot - 1;
    extra_probe probe = {o, msg, run, aux, (uint8_t)kind};
    uint64_t h = extra_hash(msg, run, aux, (uint8_t)kind);
    if (*slot) { /* the slot holds another worker's or rank's */
        uint32_t i = kit_index_map_find(&o->extra_map, h, same_extra, &probe);
        if (i != KIT_INDEX_NONE)
            return o->extra[i].v;
    }
    if (!create || o->n_vertices >= WFB_NONE - 1)
        return WFB_NONE;
    uint32_t v = o->n_vertices;
    if (!*slot) {
        *slot = v + 1;
        if (aux_slot)
            *aux_slot = aux;
    } else if (KIT_PUSH(o->extra, o->n_extra, o->cap_extra,
                        ((on_extra){msg, run, aux, v, (uint8_t)kind})) ||
               kit_index_map_insert(&o->extra_map, h, (uint32_t)o->n_extra - 1, stored_extra_hash,
                                    o)) {
        o->failed = true;
        return WFB_NONE;
    }
    on_vertex *r = vertex(o, v);
    if (!r)
        return WFB_NONE;
    *r = (on_vertex){.msg = msg, .time = NAN, .run = run, .aux = aux, .worker = WFB_NONE,
                     .origin = WFB_NONE, .kind = (uint8_t)kind};
    o->n_vertices++;
    *created = true;
    return v;
}

uint32_t wfb_online_find(wfb_online *o, wfb_mv_kind kind, uint32_t run, uint64_t msg,
                         uint32_t aux)
{
    bool created;
    return lookup(o, kind, run, msg, aux, false, &created);
}

uint32_t wfb_online_ref(wfb_online *o, wfb_mv_kind kind, uint32_t run, uint64_t msg,
                        uint32_t aux)
{
    bool created;
    return lookup(o, kind, run, msg, aux, true, &created);
}

uint32_t wfb_online_deleted(wfb_online *o, uint32_t run, uint32_t exec)
{
    if (o->n_vertices >= WFB_NONE - 1)
        return WFB_NONE;
    on_vertex *r = vertex(o, o->n_vertices);
    if (!r)
        return WFB_NONE;
    *r = (on_vertex){.msg = exec, .time = NAN, .run = run, .worker = WFB_NONE,
                     .origin = WFB_NONE, .kind = WFB_MV_DELETED};
    return o->n_vertices++;
}

bool wfb_online_defined(wfb_online *o, uint32_t v)
{
    const on_vertex *r = vertex(o, v);
    return r && (r->flags & VF_DEFINED);
}

uint32_t wfb_online_worker(wfb_online *o, uint32_t v)
{
    const on_vertex *r = vertex(o, v);
    return r ? r->worker : WFB_NONE;
}

/* ---- inputs and their lifelines ---- */

/* Vertex v (record r) is an input: a lifeline of its own. */
static int become_input(wfb_online *o, uint32_t v, on_vertex *r)
{
    uint32_t k = o->n_inputs++;
    r->inputs = k;
    r->n_inputs = 1;
    r->dist = 0;
    r->flags |= VF_FINAL;
    on_input in = {.vertex = v, .run = r->run, .t0 = r->time, .last = r->time,
                   .missing = isnan(r->time), .only_read = (r->flags & VF_ONLY_READ) != 0};
    on_back b = {WFB_NONE, WFB_NONE, WFB_NONE, WFB_NONE, 0, 0, 0};
    on_input *l = at(o, o->lives, k);
    if (!l)
        return -1;
    *l = in;
    on_back *bp = at(o, o->back, v);
    if (!bp)
        return -1;
    *bp = b;
    return 0;
}

/* The input set (ref, n) into o->kbuf, appended. */
static int load_set(wfb_online *o, uint64_t ref, uint32_t n)
{
    if (KIT_GROW(o->kbuf, o->cap_kbuf, o->n_kbuf + n)) {
        o->failed = true;
        return -1;
    }
    if (n == 1) {
        o->kbuf[o->n_kbuf++] = (uint32_t)ref;
        return 0;
    }
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t *k = at(o, o->sets, ref + i);
        if (!k)
            return -1;
        o->kbuf[o->n_kbuf++] = *k;
    }
    return 0;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* kbuf sorted, without repeats, stored as a set: *ref, *n. */
static int store_set(wfb_online *o, uint64_t *ref, uint32_t *n)
{
    qsort(o->kbuf, o->n_kbuf, sizeof *o->kbuf, cmp_u32);
    size_t m = 0;
    for (size_t i = 0; i < o->n_kbuf; i++)
        if (!m || o->kbuf[i] != o->kbuf[m - 1])
            o->kbuf[m++] = o->kbuf[i];
    o->n_kbuf = m;
    *n = (uint32_t)m;
    if (m == 1) {
        *ref = o->kbuf[0];
        return 0;
    }
    *ref = o->n_sets;
    for (size_t i = 0; i < m; i++) {
        uint32_t *k = at(o, o->sets, o->n_sets++);
        if (!k)
            return -1;
        *k = o->kbuf[i];
    }
    return 0;
}

/* A vertex of time t reached from each input in kbuf. */
static int add_descendant(wfb_online *o, double t)
{
    for (size_t i = 0; i < o->n_kbuf; i++) {
        on_input *l = at(o, o->lives, o->kbuf[i]);
        if (!l)
            return -1;
        l->descendants++;
        if (isnan(t))
            l->missing = 1;
        else if (t > l->last || isnan(l->last))
            l->last = t;
    }
    return 0;
}

/* Execution cost c (or its CPU time), shared by the inputs in kbuf. */
static int add_cost(wfb_online *o, double c, bool cpu)
{
    double share = c / (double)o->n_kbuf;
    for (size_t i = 0; i < o->n_kbuf; i++) {
        on_input *l = at(o, o->lives, o->kbuf[i]);
        if (!l)
            return -1;
        wfb_xsum_add(cpu ? &l->latency_cpu : &l->latency, share);
    }
    return 0;
}

/* ---- the CPU time of executions ---- */

void wfb_online_exec_cpu_pending(wfb_online *o, uint32_t exec)
{
    if (!mon_key_table_get(&o->cpu, exec))
        o->failed = true;
}

void wfb_online_exec_cpu_final(wfb_online *o, uint32_t exec)
{
    on_cpu *c = mon_key_table_find(&o->cpu, exec);
    if (!c)
        return;
    if (c->has_inputs) {
        uint64_t ref = c->inputs;
        uint32_t n = c->n_inputs;
        o->n_kbuf = 0;
        if (load_set(o, ref, n) == 0)
            add_cost(o, wfb_exec_at(o->g, exec)->cpu_s, true);
    }
    mon_key_table_remove(&o->cpu, exec);
}

/* The inputs in kbuf (stored as ref, n) reach execution `exec`: its CPU
 * time goes to them now, or once it is known. */
static int exec_cpu_reached(wfb_online *o, uint32_t exec, uint64_t ref, uint32_t n)
{
    on_cpu *c = mon_key_table_find(&o->cpu, exec);
    if (!c)
        return add_cost(o, wfb_exec_at(o->g, exec)->cpu_s, true);
    *c = (on_cpu){ref, n, true};
    return 0;
}

/* ---- the longest path's end ---- */

static bool clearly_greater(double a, double b) { return a > b + 1e-9 * fmax(1.0, fabs(b)); }

static void path_end_candidate(wfb_online *o, uint32_t v, double dist)
{
    if (!o->n_cands || dist > o->max_dist) {
        o->max_dist = dist;
        size_t m = 0; /* those now clearly shorter drop out, for ever */
        for (size_t i = 0; i < o->n_cands; i++)
            if (!clearly_greater(dist, o->cands[i].dist))
                o->cands[m++] = o->cands[i];
        o->n_cands = m;
    }
    if (!clearly_greater(o->max_dist, dist) &&
        KIT_PUSH(o->cands, o->n_cands, o->cap_cands, ((on_candidate){v, dist})))
        o->failed = true;
}

static uint32_t path_end(const wfb_online *o)
{
    uint32_t last = WFB_NONE;
    for (size_t i = 0; i < o->n_cands; i++)
        if (!clearly_greater(o->max_dist, o->cands[i].dist) && o->cands[i].v < last)
            last = o->cands[i].v;
    return last;
}

/* ---- defining vertices ---- */

int wfb_online_define(wfb_online *o, uint32_t v, const wfb_mv_define *d)
{
    on_vertex *r = vertex(o, v);
    if (!r)
        return -1;
    if (r->flags & VF_DEFINED) {
        give_up(o, "a message is defined twice (read before it was written, written or moved twice)", v);
        return 0;
    }
    r->flags |= VF_DEFINED | (d->only_read ? VF_ONLY_READ : 0);
    r->time = d->time;
    r->worker = d->worker;
    r->origin = d->origin;
    r->label = (uint8_t)d->label;
    if (d->pending)
        return 0; /* its in-edges come with a batch */
    if (become_input(o, v, r))
        return -1;
    path_end_candidate(o, v, 0);
    return 0;
}

/* ---- batches: in-edges ---- */

static int wait_for(wfb_online *o, uint32_t v, uint32_t batch)
{
    uint32_t w;
    if (o->free_waiter) {
        w = o->free_waiter - 1;
        o->free_waiter = o->waiters[w].next;
    } else if (KIT_GROW(o->waiters, o->cap_waiters, o->n_waiters + 1)) {
        return -1;
    } else {
        w = (uint32_t)o->n_waiters++;
    }
    uint32_t *head = mon_key_table_get(&o->waiting, v);
    if (!head)
        return -1;
    o->waiters[w] = (on_waiter){batch, *head};
    *head = w + 1;
    return 0;
}

/* Vertex v is final: the batches waiting for it wait for one less. */
static int release(wfb_online *o, uint32_t v)
{
    uint32_t *head = mon_key_table_find(&o->waiting, v);
    if (!head)
        return 0;
    uint32_t w = *head;
    mon_key_table_remove(&o->waiting, v);
    while (w) {
        on_waiter *x = &o->waiters[w - 1];
        uint32_t next = x->next;
        if (--o->batches[x->batch].waits == 0 &&
            KIT_PUSH(o->ready, o->n_ready, o->cap_ready, x->batch))
            return -1;
        x->next = o->free_waiter;
        o->free_waiter = w;
        w = next;
    }
    return 0;
}

/* reads without repeats (the first of each kept: one edge per pair, in
 * the order the graph keeps, wfb_graph_finish) into o->scratch. */
static size_t unique_reads(wfb_online *o, const uint32_t *reads, uint32_t n)
{
    size_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
        bool seen = false;
        for (size_t j = 0; j < m && !seen; j++)
            seen = o->scratch[j] == reads[i];
        if (!seen)
            o->scratch[m++] = reads[i];
    }
    return m;
}

/* The in-edges of one write w from the final reads: its distance and
 * back-pointers, its input set. */
static int finish_write(wfb_online *o, const on_batch *b, const uint32_t *reads, size_t nr,
                        uint32_t w, uint64_t ref, uint32_t n)
{
    on_back back = {WFB_NONE, WFB_NONE, b->exec, b->label, b->cost, (uint8_t)b->kind, 0};
    double best = 0, latest = 0;
    for (size_t i = 0; i < nr; i++) {
        const on_vertex *r = vertex(o, reads[i]);
        if (!r)
            return -1;
        double cand = r->dist + b->cost;
        if (back.dp_src == WFB_NONE || clearly_greater(cand, best)) {
            best = cand;
            back.dp_src = reads[i];
        }
        if (isnan(r->time)) {
            back.untimed = 1;
        } else if (back.ae_src == WFB_NONE || r->time > latest) {
            back.ae_src = reads[i];
            latest = r->time;
        }
    }
    on_back *bp = at(o, o->back, w);
    if (!bp)
        return -1;
    *bp = back;
    on_vertex *r = vertex(o, w);
    if (!r)
        return -1;
    if (r->flags & VF_FINAL) {
        give_up(o, "a message gets in-edges twice", w);
        return 0;
    }
    r->flags |= VF_FINAL;
    r->inputs = ref;
    r->n_inputs = n;
    r->dist = best; /* + its weight, 0 for a data state */
    double t = r->time;
    path_end_candidate(o, w, best);
    if (add_descendant(o, t))
        return -1;
    return release(o, w);
}

/* A batch whose sources are all final: its edges, in the graph's order. */
static int resolve(wfb_online *o, on_batch *b)
{
    const uint32_t *reads = b->v, *writes = b->v + b->n_reads;
    if (KIT_GROW(o->scratch, o->cap_scratch, b->n_reads ? b->n_reads : 1))
        return -1;
    size_t nr = unique_reads(o, reads, b->n_reads);
    if (!nr) { /* no reads: the writes are inputs */
        for (uint32_t j = 0; j < b->n_writes; j++) {
            on_vertex *r = vertex(o, writes[j]);
            if (!r || become_input(o, writes[j], r))
                return -1;
            path_end_candidate(o, writes[j], 0);
            if (release(o, writes[j]))
                return -1;
        }
        return 0;
    }
    o->n_edges += nr * b->n_writes;
    o->n_kbuf = 0;
    uint64_t ref = 0;
    uint32_t n = 0;
    bool same = true;
    for (size_t i = 0; i < nr; i++) {
        on_vertex *r = vertex(o, o->scratch[i]);
        if (!r)
            return -1;
        r->flags |= VF_HAS_OUT;
        if (i && (r->inputs != ref || r->n_inputs != n))
            same = false;
        ref = r->inputs;
        n = r->n_inputs;
        if (load_set(o, ref, n))
            return -1;
    }
    if (!same && store_set(o, &ref, &n))
        return -1;
    if (same) /* one set: kbuf holds it nr times over */
        o->n_kbuf = n;
    /* the reads stay in scratch while the writes are done (no batch there) */
    uint32_t *r = malloc(nr * sizeof *r);
    if (!r)
        return -1;
    memcpy(r, o->scratch, nr * sizeof *r);
    int rc = 0;
    if (b->exec != WFB_NONE) {
        rc = add_cost(o, b->cost, false);
        if (rc == 0)
            rc = exec_cpu_reached(o, b->exec, ref, n);
    }
    for (uint32_t j = 0; j < b->n_writes && rc == 0; j++) {
        /* add_descendant needs kbuf: each write's set is the batch's */
        o->n_kbuf = 0;
        rc = load_set(o, ref, n);
        if (rc == 0)
            rc = finish_write(o, b, r, nr, writes[j], ref, n);
    }
    free(r);
    return rc;
}

static void free_batch(wfb_online *o, uint32_t i)
{
    free(o->batches[i].v);
    o->batches[i].v = NULL;
    o->live_batches--;
    if (KIT_PUSH(o->free_batches, o->n_free_batches, o->cap_free_batches, i))
        o->failed = true;
}

/* Resolves the batches made ready, and those they make ready. */
static int resolve_ready(wfb_online *o)
{
    while (o->n_ready) {
        uint32_t i = o->ready[--o->n_ready];
        on_batch b = o->batches[i]; /* resolving may grow the table */
        int rc = resolve(o, &b);
        free_batch(o, i);
        if (rc)
            return -1;
    }
    return 0;
}

int wfb_online_batch(wfb_online *o, const wfb_mv_batch *in)
{
    if (o->failed)
        return -1;
    on_batch b = {in->exec, in->label, in->n_reads, in->n_writes, 0, in->cost, in->kind, NULL};
    uint32_t n = in->n_reads + in->n_writes;
    if (!(b.v = malloc((n ? n : 1) * sizeof *b.v)))
        return -1;
    if (in->n_reads) /* (an empty list may be NULL) */
        memcpy(b.v, in->reads, in->n_reads * sizeof *b.v);
    if (in->n_writes)
        memcpy(b.v + in->n_reads, in->writes, in->n_writes * sizeof *b.v);
    uint32_t index;
    if (o->n_free_batches) {
        index = o->free_batches[--o->n_free_batches];
    } else if (KIT_GROW(o->batches, o->cap_batches, o->n_batches + 1)) {
        free(b.v);
        return -1;
    } else {
        index = (uint32_t)o->n_batches++;
    }
    o->batches[index] = b;
    o->live_batches++;
    /* Wait for every source not final yet (each once). */
    for (uint32_t i = 0; i < in->n_reads; i++) {
        bool again = false;
        for (uint32_t j = 0; j < i && !again; j++)
            again = in->reads[j] == in->reads[i];
        const on_vertex *r = again ? NULL : vertex(o, in->reads[i]);
        if (again)
            continue;
        if (!r)
            return -1;
        if (!(r->flags & VF_FINAL)) {
            o->batches[index].waits++;
            if (wait_for(o, in->reads[i], index))
                return -1;
        }
    }
    if (o->batches[index].waits == 0 &&
        KIT_PUSH(o->ready, o->n_ready, o->cap_ready, index))
        return -1;
    return resolve_ready(o) || o->failed ? -1 : 0;
}

/* ---- the end ---- */

int wfb_online_finish(wfb_online *o)
{
    if (o->failed)
        return -1;
    if (o->live_batches)
        give_up(o, "executions wait for each other (a cycle)", WFB_NONE);
    return 0;
}

uint32_t wfb_online_vertex_count(const wfb_online *o) { return o->n_vertices; }
uint64_t wfb_online_edge_count(const wfb_online *o) { return o->n_edges; }
uint32_t wfb_online_input_count(const wfb_online *o) { return o->n_inputs; }

/* ---- reading the results ---- */

int wfb_online_vertex(wfb_online *o, uint32_t v, wfb_mv_info *out)
{
    const on_vertex *r = v < o->n_vertices ? vertex(o, v) : NULL;
    if (!r)
        return -1;
    *out = (wfb_mv_info){(wfb_mv_kind)r->kind, r->run, r->msg, r->aux, r->time,
                         r->worker, r->origin, (wfb_mv_label)r->label,
                         (r->flags & VF_ONLY_READ) != 0, (r->flags & VF_HAS_OUT) != 0, r->dist};
    return 0;
}

int wfb_online_back(wfb_online *o, uint32_t v, wfb_mv_back *out)
{
    const on_back *b = v < o->n_vertices ? at(o, o->back, v) : NULL;
    if (!b)
        return -1;
    *out = (wfb_mv_back){b->dp_src, b->ae_src, b->exec, b->label, b->cost,
                         (wfb_edge_kind)b->kind, b->untimed != 0};
    return 0;
}

int wfb_online_input(wfb_online *o, uint32_t k, wfb_mv_input *out)
{
    const on_input *l = k < o->n_inputs ? at(o, o->lives, k) : NULL;
    if (!l)
        return -1;
    *out = (wfb_mv_input){l->vertex, l->run, l->last - l->t0, l->descendants, l->missing != 0,
                          l->only_read != 0, wfb_xsum_value(&l->latency),
                          wfb_xsum_value(&l->latency_cpu)};
    return 0;
}

uint32_t wfb_online_path_end(const wfb_online *o) { return path_end(o); }
