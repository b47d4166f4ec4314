/*
 * mon_ranks.c - a multi-rank trace (DIR/rank-R/, one trace per MPI process,
 * docs/LOGFORMAT.md section 8) read as one trace: the ranks' own readers
 * (mon_trace of one process each) merged into one time order on rank 0's
 * clock, with worker, task and stream numbers made unique across ranks.
 *
 * Clock alignment, in two steps (docs/METRICS.md section 10):
 *  1. linear: each rank's run.json holds offset measurements against rank
 *     0 (Cristian: the reference's clock read between a request and its
 *     answer, so offset = reference - midpoint, uncertain by half the
 *     round trip), taken before and after the run. The sample with the
 *     smallest round trip of each phase gives an offset; two offsets give
 *     a drift: L_r(t) = t + offset + drift * (t - t_start).
 *  2. causal fix-up (what Scalasca's controlled logical clock does): a
 *     record sent by rank p (message_sent) and received by rank q
 *     (message_received) must be received at least `latency` (half the
 *     smallest round trip measured) after it was sent. Where the linear
 *     correction leaves a receive earlier, the receive and everything
 *     after it on its rank is moved later by what it lacks (one clock per
 *     rank, so the rank's own order and the gaps after the receive are
 *     kept). Moving a rank's sends moves the receives that depend on them,
 *     so the shifts are computed in causal order over the send/receive
 *     events of all ranks: a longest-path pass over the DAG of per-rank
 *     order plus message edges.
 * The check and the fix-up need every send and receive before the first
 * event can be delivered, so the ranks' traces are read twice: once for
 * the send/receive events only (kept in memory: 40 bytes each), once to
 * deliver. What was found is reported (mon_trace_clock_alignment).
 *
 * A run in progress (mon_trace_options.follow) cannot give pass 1 or the
 * end samples: each rank is merged live on step 1's offset at the start
 * samples alone (no drift, no fix-up: the alignment is "provisional"),
 * read once, by the same merge. A rank joins once its trace and its start samples are
 * there (in rank order: its workers are numbered after the ones before
 * it); until then, and while a rank's reader holds back what it may still
 * precede (MON_TRACE_AGAIN), the merge holds back every later event. The
 * figures with the full alignment come from reading the finished trace
 * again (snetmon top does so at the end).
 */
#include "mon_ranks_internal.h"

#include "mon_ends_internal.h"
#include "mon_format_internal.h"
#include "kit.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* One send or receive of a rank, in the rank's own event order. */
typedef struct sync_ev {
    uint64_t t;   /* ns on the rank's own clock */
    uint64_t msg;
    uint32_t run;
    uint32_t peer;       /* the other rank */
    bool recv;
    int32_t from_rank;   /* receives: the rank of the matching send, -1 none */
    uint32_t from_index; /* its index in that rank's list */
} sync_ev;

/* A worker of a rank numbered outside the rank's span (following only). */
typedef struct worker_alias {
    unsigned local, global;
} worker_alias;

typedef struct rank_state {
    unsigned rank;
    char dir[4096];
    mon_trace *trace;   /* NULL: the rank's trace is missing or unreadable (or,
                           following, not merged yet) */
    mon_log_state pseudo_state; /* such a rank's one status line */
    char *pseudo_msg;
    unsigned base;      /* its first global worker number */
    unsigned span;      /* worker numbers it takes */
    uint64_t freq;
    /* The linear correction L(t) = t + offset + drift * (t - a0). */
    double offset, drift, a0;
    mon_rank_clock clock;
    /* The sends and receives (pass 1) and the fix-up after each. */
    sync_ev *sync;
    size_t nsync, capsync;
    int64_t *shift;
    /* The merge (pass 2). */
    bool has_head;
    mon_event head;
    int64_t head_time;
    size_t delivered_sync;
    bool ended;         /* its trace has nothing more (or it is a status line) */
    /* Following. */
    bool joined;        /* merged (numbered); always, unless following */
    bool reserved;      /* span fixed: all but the last rank to join */
    bool waiting;       /* its trace said MON_TRACE_AGAIN: */
    int64_t floor;      /*   no later event of it is earlier (rank 0's clock) */
    unsigned logs_seen; /* logs of its trace numbered so far */
    worker_alias *alias; /* workers that appeared after its span was fixed */
    size_t nalias, capalias;
} rank_state;

struct mon_ranks {
    unsigned n;
    rank_state *r;
    mon_rank_clock *clocks;
    mon_clock_alignment align;
    bool truncated, failed, error_pending;
    /* Following (mon_trace_options.follow, a run in progress). */
    bool live;
    mon_trace_options opt;
    unsigned joined;    /* ranks 0 .. joined-1 are merged */
    unsigned next_free; /* the first worker number no merged rank has */
    mon_ends_table chans; /* both ends of each channel, from channel_open (global task ids) */
    char name[MON_NAME_MAX + 1];
    char msg[4608];
};

/* ---------------------------------------------------------------------------
 * Finding the ranks
 * ------------------------------------------------------------------------- */

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

unsigned mon_ranks_detect(const char *dir)
{
    char path[4200], err[4400];
    mon_run_json *run;
    int rc = mon_run_json_read(dir, &run, err, sizeof err);
    if (rc <= 0) {
        /* A run.json that cannot be read is the trace reader's to report
         * (it reads the same file): not a multi-rank trace here. */
        bool ours = rc == 0 && run->format && !strcmp(run->format, MON_RANKS_FORMAT);
        int64_t ranks = rc == 0 ? run->ranks : 0;
        mon_run_json_free(run);
        return ours && ranks >= 1 && ranks <= 1000000 ? (unsigned)ranks : 0;
    }
    /* No run.json (rank 0 was killed before writing it): a directory with
     * no trace of its own but rank subdirectories. */
    snprintf(path, sizeof path, "%s/%s/metadata", dir, MON_CTF_SUBDIR);
    if (exists(path))
        return 0;
    snprintf(path, sizeof path, "%s/metadata", dir);
    if (exists(path))
        return 0;
    unsigned n = 0;
    for (;; n++) {
        snprintf(path, sizeof path, "%s/%s%u", dir, MON_RANK_DIR_PREFIX, n);
        if (!exists(path) || n >= 1000000)
            break;
    }
    return n;
}

/* ---------------------------------------------------------------------------
 * The linear correction from the offset samples
 * ------------------------------------------------------------------------- */

typedef struct best_sample {
    bool have;
    double rtt, mid, offset; /* ns */
} best_sample;

static void consider(best_sample *b, double send, double ref, double recv)
{
    double rtt = recv - send;
    if (rtt < 0)
        return;
    if (!b->have || rtt < b->rtt) {
        b->have = true;
        b->rtt = rtt;
        b->mid = send + rtt / 2;
        b->offset = ref - b->mid;
    }
}

/* The samples in rank r's run.json, against rank 0's clock (freq0). A
 * run.json that cannot be read has none (the rank's trace, which reads the
 * same file, reports why). */
static void read_samples(rank_state *r, uint64_t freq0)
{
    char err[4400];
    mon_run_json *run;
    if (mon_run_json_read(r->dir, &run, err, sizeof err) != 0)
        return;
    best_sample start = {0}, end = {0};
    for (size_t i = 0; i < run->n_samples; i++) {
        const mon_clock_sample *x = &run->samples[i];
        r->clock.samples++;
        double s = (double)mon_ticks_to_ns(x->local_send, r->freq);
        double e = (double)mon_ticks_to_ns(x->local_receive, r->freq);
        double q = (double)mon_ticks_to_ns(x->reference, freq0);
        consider(x->end ? &end : &start, s, q, e);
    }
    mon_run_json_free(run);
    r->clock.has_start = start.have;
    r->clock.has_end = end.have && start.have && end.mid > start.mid;
    if (!start.have && end.have)
        start = end; /* only the end: a constant offset still helps */
    if (!start.have)
        return;
    r->offset = start.offset;
    r->a0 = start.mid;
    r->clock.rtt_ns = start.rtt;
    if (r->clock.has_end)
        r->drift = (end.offset - start.offset) / (end.mid - start.mid);
    r->clock.offset_ns = r->offset;
    r->clock.drift_ppm = r->drift * 1e6;
}

/* Rank r's time t (ns of its clock) on rank 0's clock, linear part. */
static int64_t linear(const rank_state *r, uint64_t t)
{
    double v = (double)t + r->offset + r->drift * ((double)t - r->a0);
    return (int64_t)llround(v);
}

/* ---------------------------------------------------------------------------
 * Pass 1: the sends and receives of every rank, paired
 * ------------------------------------------------------------------------- */

static int add_sync(rank_state *r, const mon_event *ev)
{
    if (r->nsync == r->capsync) {
        size_t cap = r->capsync ? r->capsync * 2 : 256;
        sync_ev *grown = realloc(r->sync, cap * sizeof *grown);
        if (!grown)
            return -1;
        r->sync = grown;
        r->capsync = cap;
    }
    r->sync[r->nsync++] = (sync_ev){ev->time, ev->msg, ev->run, ev->peer_rank,
                                    ev->kind == MON_EV_MESSAGE_RECEIVED, -1, 0};
    return 0;
}

/* Read rank r's trace once for its sends and receives (whatever can be
 * read: damage is reported by the second pass). */
static int collect_sync(rank_state *r, char *err, size_t errlen)
{
    mon_trace *t;
    mon_trace_options opt = {.keep_going = true};
    char msg[512];
    if (mon_trace_open_with(&t, r->dir, &opt, msg, sizeof msg) != 0)
        return 0; /* the second pass opens it again and says why not */
    mon_event ev;
    int rc = 0;
    while (rc == 0 && mon_trace_next(t, &ev) == MON_TRACE_EVENT)
        if (ev.kind == MON_EV_MESSAGE_SENT || ev.kind == MON_EV_MESSAGE_RECEIVED)
            rc = add_sync(r, &ev);
    mon_trace_close(t);
    if (rc)
        snprintf(err, errlen, "out of memory reading the sends and receives of %s", r->dir);
    return rc;
}

/* A send or a receive by its pairing key. */
typedef struct end_ref {
    uint32_t run;
    uint64_t msg;
    uint32_t from, to;
    uint64_t t;
    uint32_t rank, index;
} end_ref;

static int by_key(const void *a, const void *b)
{
    const end_ref *x = a, *y = b;
#define CMP(f)                                                                                 \
    if (x->f != y->f)                                                                          \
        return x->f < y->f ? -1 : 1;
    CMP(run) CMP(msg) CMP(from) CMP(to) CMP(t) CMP(rank) CMP(index)
#undef CMP
    return 0;
}

/* Sort the sends and the receives by (run, message, from, to, time); the
 * k-th receive of a key is the k-th send's (a record may cross between the
 * same two ranks more than once). */
static int pair(mon_ranks *m)
{
    size_t nsend = 0, nrecv = 0;
    for (unsigned i = 0; i < m->n; i++)
        for (size_t k = 0; k < m->r[i].nsync; k++)
            *(m->r[i].sync[k].recv ? &nrecv : &nsend) += 1;
    end_ref *sends = malloc((nsend ? nsend : 1) * sizeof *sends);
    end_ref *recvs = malloc((nrecv ? nrecv : 1) * sizeof *recvs);
    if (!sends || !recvs) {
        free(sends);
        free(recvs);
        return -1;
    }
    size_t ns = 0, nr = 0;
    for (unsigned i = 0; i < m->n; i++)
        for (size_t k = 0; k < m->r[i].nsync; k++) {
            const sync_ev *e = &m->r[i].sync[k];
            if (e->recv)
                recvs[nr++] = (end_ref){e->run, e->msg, e->peer, i, e->t, i, (uint32_t)k};
            else
                sends[ns++] = (end_ref){e->run, e->msg, i, e->peer, e->t, i, (uint32_t)k};
        }
    qsort(sends, ns, sizeof *sends, by_key);
    qsort(recvs, nr, sizeof *recvs, by_key);
    size_t a = 0;
    for (size_t b = 0; b < nr; b++) {
        const end_ref *q = &recvs[b];
        while (a < ns && (sends[a].run < q->run ||
                          (sends[a].run == q->run &&
                           (sends[a].msg < q->msg ||
                            (sends[a].msg == q->msg &&
                             (sends[a].from < q->from ||
                              (sends[a].from == q->from && sends[a].to < q->to)))))))
            a++;
        bool same = a < ns && sends[a].run == q->run && sends[a].msg == q->msg &&
                    sends[a].from == q->from && sends[a].to == q->to;
        if (!same || q->from >= m->n) {
            m->align.unmatched++;
            continue;
        }
        sync_ev *e = &m->r[q->rank].sync[q->index];
        e->from_rank = (int32_t)sends[a].rank;
        e->from_index = sends[a].index;
        m->align.messages++;
        a++;
    }
    free(sends);
    free(recvs);
    return 0;
}

/* ---------------------------------------------------------------------------
 * The check and the fix-up
 * ------------------------------------------------------------------------- */

/* Rank r's k-th send/receive on rank 0's clock, its fix-up included. */
static int64_t final_time(const rank_state *r, size_t k)
{
    return linear(r, r->sync[k].t) + r->shift[k];
}

static void count_violations(mon_ranks *m)
{
    for (unsigned i = 0; i < m->n; i++) {
        rank_state *q = &m->r[i];
        for (size_t k = 0; k < q->nsync; k++) {
            const sync_ev *e = &q->sync[k];
            if (!e->recv || e->from_rank < 0)
                continue;
            const rank_state *p = &m->r[e->from_rank];
            const sync_ev *s = &p->sync[e->from_index];
            m->align.raw_violations += e->t < s->t;
            double lack = (double)(linear(p, s->t) - linear(q, e->t));
            if (lack > 0) {
                m->align.violations++;
                if (lack > m->align.worst_ns)
                    m->align.worst_ns = lack;
            }
        }
    }
}

/* Shifts in causal order: a receive is handled once its send has its final
 * time. Returns -1 when out of memory. */
static int fix_up(mon_ranks *m)
{
    size_t *at = calloc(m->n, sizeof *at);
    int64_t *cur = calloc(m->n, sizeof *cur);
    if (!at || !cur) {
        free(at);
        free(cur);
        return -1;
    }
    /* At least 1 ns: with no round trip measured (latency 0) a receive
     * moved to the very time of its send could come first in the merged
     * order, which breaks ties by rank. */
    int64_t latency = (int64_t)llround(m->align.latency_ns);
    if (latency < 1)
        latency = 1;
    for (;;) {
        bool progress = false, left = false;
        for (unsigned i = 0; i < m->n; i++) {
            rank_state *q = &m->r[i];
            while (at[i] < q->nsync) {
                const sync_ev *e = &q->sync[at[i]];
                if (e->recv && e->from_rank >= 0) {
                    const rank_state *p = &m->r[e->from_rank];
                    if (at[e->from_rank] <= e->from_index)
                        break; /* its send is not final yet */
                    int64_t need =
                        final_time(p, e->from_index) + latency - linear(q, e->t);
                    if (need > cur[i]) {
                        cur[i] = need;
                        m->align.fixed++;
                    }
                }
                q->shift[at[i]++] = cur[i];
                progress = true;
            }
            left |= at[i] < q->nsync;
        }
        if (!left)
            break;
        if (!progress) {
            /* Every rank waits for another: the trace contradicts itself
             * (a cycle of messages). Take the earliest waiting receive as
             * it is; the final check counts what is left. */
            unsigned pick = m->n;
            int64_t best = INT64_MAX;
            for (unsigned i = 0; i < m->n; i++)
                if (at[i] < m->r[i].nsync) {
                    int64_t t = linear(&m->r[i], m->r[i].sync[at[i]].t) + cur[i];
                    if (t < best) {
                        best = t;
                        pick = i;
                    }
                }
            m->r[pick].shift[at[pick]++] = cur[pick];
        }
    }
    for (unsigned i = 0; i < m->n; i++) {
        m->r[i].clock.shift_max_ns = (double)cur[i];
        for (size_t k = 0; k < m->r[i].nsync; k++) {
            const sync_ev *e = &m->r[i].sync[k];
            if (e->recv && e->from_rank >= 0 &&
                final_time(&m->r[i], k) < final_time(&m->r[e->from_rank], e->from_index))
                m->align.after++;
        }
    }
    free(at);
    free(cur);
    return 0;
}

static int align(mon_ranks *m, char *err, size_t errlen)
{
    const rank_state *ref = m->r[0].trace ? &m->r[0] : NULL;
    double min_rtt = -1;
    for (unsigned i = 1; ref && i < m->n; i++) {
        rank_state *r = &m->r[i];
        if (!r->trace)
            continue;
        read_samples(r, ref->freq);
        if (r->clock.has_start && (min_rtt < 0 || r->clock.rtt_ns < min_rtt))
            min_rtt = r->clock.rtt_ns;
    }
    m->align.latency_ns = min_rtt > 0 ? min_rtt / 2 : 0;
    for (unsigned i = 0; i < m->n; i++)
        if (m->r[i].trace && collect_sync(&m->r[i], err, errlen) != 0)
            return -1;
    for (unsigned i = 0; i < m->n; i++) {
        m->r[i].shift = calloc(m->r[i].nsync ? m->r[i].nsync : 1, sizeof *m->r[i].shift);
        if (!m->r[i].shift) {
            snprintf(err, errlen, "out of memory aligning the ranks' clocks");
            return -1;
        }
    }
    if (pair(m) != 0 || fix_up(m) != 0) {
        snprintf(err, errlen, "out of memory aligning the ranks' clocks");
        return -1;
    }
    count_violations(m);
    return 0;
}

/* ---------------------------------------------------------------------------
 * Opening
 * ------------------------------------------------------------------------- */

/* Rank r's status line in place of its logs: the reader's own line (which
 * names the file) for a damaged trace, else DIR/rank-R: STATE: what. */
static int set_status_line(rank_state *r, mon_log_state st, const char *what)
{
    r->pseudo_state = st;
    free(r->pseudo_msg);
    const char *state = mon_log_state_name(st);
    bool own = st == MON_LOG_DAMAGED;
    int n = own ? snprintf(NULL, 0, "%s", what)
                : snprintf(NULL, 0, "%s: %s: %s", r->dir, state, what);
    r->pseudo_msg = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (!r->pseudo_msg)
        return -1;
    if (own)
        snprintf(r->pseudo_msg, (size_t)n + 1, "%s", what);
    else
        snprintf(r->pseudo_msg, (size_t)n + 1, "%s: %s: %s", r->dir, state, what);
    return 0;
}

/* A rank without a readable trace: one status line, and the trace is
 * incomplete. */
static int pseudo_log(mon_ranks *m, rank_state *r, mon_log_state st, const char *what)
{
    r->span = 1;
    r->ended = true;
    if (set_status_line(r, st, what) != 0)
        return -1;
    if (!m->truncated) {
        m->truncated = true;
        snprintf(m->msg, sizeof m->msg, "%s", r->pseudo_msg);
    }
    return 0;
}

/* A rank the top-level run.json promises that wrote nothing. */
static int missing_rank(mon_ranks *m, rank_state *r)
{
    char what[96];
    snprintf(what, sizeof what, "the trace says it has %u ranks, but rank %u wrote nothing", m->n,
             r->rank);
    return pseudo_log(m, r, MON_LOG_MISSING, what);
}

/* One more than the highest worker number of rank r's logs. */
static unsigned log_span(const rank_state *r)
{
    unsigned top = 0;
    for (unsigned i = 0; i < mon_trace_num_workers(r->trace); i++)
        if (mon_trace_worker_id(r->trace, i) + 1 > top)
            top = mon_trace_worker_id(r->trace, i) + 1;
    return top;
}

static int open_rank(mon_ranks *m, rank_state *r, const mon_trace_options *opt, char *err,
                     size_t errlen)
{
    if (!exists(r->dir))
        return missing_rank(m, r);
    char msg[4608];
    if (mon_trace_open_with(&r->trace, r->dir, opt, msg, sizeof msg) != 0) {
        r->trace = NULL;
        if (!(opt && opt->keep_going)) {
            snprintf(err, errlen, "%s", msg);
            return -1;
        }
        return pseudo_log(m, r, MON_LOG_DAMAGED, msg);
    }
    r->freq = mon_trace_clock_freq(r->trace);
    r->span = log_span(r);
    return 0;
}

/* ---------------------------------------------------------------------------
 * Worker numbers: each rank's from its base, in rank order
 * ------------------------------------------------------------------------- */

/* Following: the span of the last rank to join is fixed now (its logs so
 * far), so that the numbers after it can be given out. */
static void reserve_last(mon_ranks *m)
{
    if (m->joined == 0)
        return;
    rank_state *r = &m->r[m->joined - 1];
    if (r->reserved)
        return;
    unsigned span = r->trace ? log_span(r) : 1;
    if (span > r->span)
        r->span = span;
    r->reserved = true;
    m->next_free = r->base + r->span;
}

/* The merged trace's number of rank r's worker `local`: base + local. While
 * following, the last rank to join has no fixed span yet (its numbers go on
 * from its base), and a worker of another rank that appears beyond its
 * rank's span gets the next free number (once: numbers never change while
 * the trace is read; the finished trace numbers it base + local). */
static unsigned global_worker(mon_ranks *m, rank_state *r, unsigned local)
{
    if (!m->live || !r->reserved || local < r->span) {
        if (!r->reserved && local >= r->span)
            r->span = local + 1;
        return r->base + local;
    }
    for (size_t i = 0; i < r->nalias; i++)
        if (r->alias[i].local == local)
            return r->alias[i].global;
    reserve_last(m);
    worker_alias a = {local, m->next_free};
    if (KIT_PUSH(r->alias, r->nalias, r->capalias, a) != 0) {
        if (!m->error_pending) {
            m->error_pending = true;
            snprintf(m->msg, sizeof m->msg, "out of memory numbering the workers of %s", r->dir);
        }
        return r->base + local;
    }
    m->next_free++;
    return a.global;
}

/* global_worker for a worker already numbered. */
static unsigned worker_number(const rank_state *r, unsigned local)
{
    for (size_t i = 0; i < r->nalias; i++)
        if (r->alias[i].local == local)
            return r->alias[i].global;
    return r->base + local;
}

/* Following: number the logs rank r's trace has found since the last look
 * (a worker's log appears with its first events). */
static void number_new_logs(mon_ranks *m, rank_state *r)
{
    unsigned n = mon_trace_num_workers(r->trace);
    if (n == r->logs_seen)
        return;
    r->logs_seen = n;
    for (unsigned i = 0; i < n; i++)
        (void)global_worker(m, r, mon_trace_worker_id(r->trace, i));
}

/* ---------------------------------------------------------------------------
 * A rank's next event
 * ------------------------------------------------------------------------- */

/* The next event of rank r, with its time on rank 0's clock; following, it
 * may have none yet (waiting, with the earliest time it can still have). */
static void fetch(mon_ranks *m, rank_state *r)
{
    r->has_head = r->waiting = false;
    if (!r->trace) {
        r->ended = true;
        return;
    }
    int rc = mon_trace_next(r->trace, &r->head);
    if (m->live)
        number_new_logs(m, r);
    if (rc == MON_TRACE_EVENT) {
        r->has_head = true;
        int64_t shift = 0;
        bool is_sync = r->head.kind == MON_EV_MESSAGE_SENT ||
                       r->head.kind == MON_EV_MESSAGE_RECEIVED;
        size_t k = r->delivered_sync;
        if (is_sync && k < r->nsync)
            shift = r->shift[k];
        else if (k > 0 && r->nsync > 0)
            shift = r->shift[(k <= r->nsync ? k : r->nsync) - 1];
        r->head_time = linear(r, r->head.time) + shift;
        return;
    }
    if (rc == MON_TRACE_AGAIN) {
        r->waiting = true;
        r->floor = linear(r, mon_trace_follow_floor_ns(r->trace));
        return;
    }
    r->ended = true;
    if (rc == MON_TRACE_END)
        return;
    if (rc == MON_TRACE_ERROR && !m->error_pending) {
        m->error_pending = true;
        snprintf(m->msg, sizeof m->msg, "%s", mon_trace_error(r->trace));
    } else if (rc == MON_TRACE_TRUNCATED && !m->truncated && !m->error_pending) {
        m->truncated = true;
        snprintf(m->msg, sizeof m->msg, "%s", mon_trace_error(r->trace));
    }
}

/* ---------------------------------------------------------------------------
 * Following a run in progress
 * ------------------------------------------------------------------------- */

/* What rank r's run.json says now: the run has finished; it is recorded
 * with times (then the rank measures its clock at the start). Both false
 * when there is none or it cannot be read (yet). */
static void run_facts(const rank_state *r, bool *complete, bool *timed)
{
    char err[4400];
    mon_run_json *run;
    *complete = *timed = false;
    if (mon_run_json_read(r->dir, &run, err, sizeof err) != 0)
        return;
    *complete = run->complete;
    *timed = run->flags && strchr(run->flags, 't');
    mon_run_json_free(run);
}

/* Is the run still going on: some rank's run.json not complete, or no
 * rank's directory there yet? (The ranks start together: a rank without a
 * directory when the others have finished wrote nothing and never will.) */
static bool still_running(const mon_ranks *m)
{
    bool any = false;
    for (unsigned i = 0; i < m->n; i++) {
        bool complete, timed;
        if (!exists(m->r[i].dir))
            continue;
        any = true;
        run_facts(&m->r[i], &complete, &timed);
        if (!complete)
            return true;
    }
    return !any;
}

/* Rank r is merged from now on: it gets its worker numbers and its clock. */
static void join(mon_ranks *m, rank_state *r)
{
    reserve_last(m);
    r->base = m->next_free;
    r->joined = true;
    r->reserved = !r->trace; /* a status line takes one number */
    if (r->reserved)
        m->next_free = r->base + r->span;
    m->joined++;
    m->align.joined = m->joined;
    m->clocks[r->rank] = r->clock;
    double half = r->clock.rtt_ns / 2;
    if (r->clock.has_start && half > 0 && (m->align.latency_ns == 0 || half < m->align.latency_ns))
        m->align.latency_ns = half;
    if (r->trace) {
        free(r->pseudo_msg);
        r->pseudo_msg = NULL;
        number_new_logs(m, r);
    }
}

/* Rank r, the next in rank order, joins if it can: its trace is there, with
 * the clock samples it takes at the start (a run recorded without times
 * takes none), and the rank before it has a log (so its workers, which start
 * together, are numbered before r's). 1 joined, 0 not yet, -1 with the
 * reader's message in err. */
static int try_join(mon_ranks *m, rank_state *r, char *err, size_t errlen)
{
    const rank_state *prev = r->rank ? &m->r[r->rank - 1] : NULL;
    if (prev && prev->trace && mon_trace_live(prev->trace) &&
        mon_trace_num_workers(prev->trace) == 0)
        return 0;
    if (!exists(r->dir)) {
        if (still_running(m))
            return 0;
        if (missing_rank(m, r) != 0) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        join(m, r);
        return 1;
    }
    bool complete, timed;
    run_facts(r, &complete, &timed);
    char msg[4608];
    if (mon_trace_open_with(&r->trace, r->dir, &m->opt, msg, sizeof msg) != 0) {
        r->trace = NULL;
        if (!complete)
            return 0; /* being created */
        if (!m->opt.keep_going) {
            snprintf(err, errlen, "%s", msg);
            return -1;
        }
        if (pseudo_log(m, r, MON_LOG_DAMAGED, msg) != 0) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        join(m, r);
        return 1;
    }
    r->freq = mon_trace_clock_freq(r->trace);
    r->clock = (mon_rank_clock){.rank = r->rank};
    r->offset = r->drift = r->a0 = 0;
    if (prev && m->r[0].trace) {
        read_samples(r, m->r[0].freq);
        if (timed && !complete && !r->clock.has_start) {
            mon_trace_close(r->trace); /* try again when they are there */
            r->trace = NULL;
            return 0;
        }
    }
    /* The offset at the start alone: a drift needs the samples at the end. */
    r->drift = 0;
    r->clock.drift_ppm = 0;
    r->clock.has_end = false;
    join(m, r);
    fetch(m, r);
    return 1;
}

/* The ranks that can join now, in order. -1 with err as try_join. */
static int join_ranks(mon_ranks *m, char *err, size_t errlen)
{
    int rc = 1;
    while (m->joined < m->n && (rc = try_join(m, &m->r[m->joined], err, errlen)) > 0)
        ;
    return rc < 0 ? -1 : 0;
}

/* The merge cannot go on: what the waiting ranks have published since, and
 * the ranks that can join now. */
static void poll_ranks(mon_ranks *m)
{
    for (unsigned i = 0; i < m->joined; i++)
        if (m->r[i].waiting)
            fetch(m, &m->r[i]);
    char err[4608];
    if (join_ranks(m, err, sizeof err) != 0 && !m->error_pending) {
        m->error_pending = true;
        snprintf(m->msg, sizeof m->msg, "%s", err);
    }
}

/* Can best's event go out? Not while a rank not merged yet, or one waiting
 * for its writer, may still have an earlier one. */
static bool may_deliver(const mon_ranks *m, const rank_state *best)
{
    for (unsigned i = 0; i < m->n; i++) {
        const rank_state *r = &m->r[i];
        if (r == best || r->has_head || r->ended)
            continue;
        if (!r->joined || best->head_time > r->floor)
            return false;
    }
    return true;
}

bool mon_ranks_live(const mon_ranks *m)
{
    if (!m->live)
        return false;
    if (m->joined < m->n)
        return true;
    for (unsigned i = 0; i < m->n; i++)
        if (m->r[i].trace && mon_trace_live(m->r[i].trace))
            return true;
    return false;
}

/* ---------------------------------------------------------------------------
 * Opening
 * ------------------------------------------------------------------------- */

/* Every rank's trace, aligned in full (pass 1 included). */
static int open_finished(mon_ranks *m, const mon_trace_options *opt, char *err, size_t errlen)
{
    unsigned base = 0;
    for (unsigned i = 0; i < m->n; i++) {
        rank_state *r = &m->r[i];
        if (open_rank(m, r, opt, err, errlen) != 0)
            return -1;
        r->base = base;
        base += r->span;
        r->joined = r->reserved = true;
    }
    m->joined = m->align.joined = m->n;
    m->next_free = base;
    if (align(m, err, errlen) != 0)
        return -1;
    for (unsigned i = 0; i < m->n; i++) {
        m->clocks[i] = m->r[i].clock;
        fetch(m, &m->r[i]);
    }
    return 0;
}

/* A run in progress: the ranks that are there join now, the others later. */
static int open_following(mon_ranks *m, const mon_trace_options *opt, char *err, size_t errlen)
{
    m->live = true;
    m->opt = *opt;
    m->align.provisional = true;
    for (unsigned i = 0; i < m->n; i++) {
        m->clocks[i].rank = i;
        if (set_status_line(&m->r[i], MON_LOG_IN_PROGRESS,
                            "not merged yet: waiting for its trace and the clock samples it "
                            "takes at the start") != 0) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
    }
    return join_ranks(m, err, errlen);
}

int mon_ranks_open(mon_ranks **out, const char *dir, unsigned ranks,
                   const mon_trace_options *opt, char *err, size_t errlen)
{
    *out = NULL;
    mon_ranks *m = calloc(1, sizeof *m);
    if (m) {
        m->r = calloc(ranks, sizeof *m->r);
        m->clocks = calloc(ranks, sizeof *m->clocks);
    }
    if (!m || !m->r || !m->clocks) {
        snprintf(err, errlen, "out of memory");
        mon_ranks_close(m);
        return -1;
    }
    m->n = ranks;
    for (unsigned i = 0; i < ranks; i++) {
        rank_state *r = &m->r[i];
        r->rank = i;
        r->clock.rank = i;
        if (snprintf(r->dir, sizeof r->dir, "%s/%s%u", dir, MON_RANK_DIR_PREFIX, i) >=
            (int)sizeof r->dir) {
            snprintf(err, errlen, "%s: path too long", dir);
            mon_ranks_close(m);
            return -1;
        }
    }
    int rc = opt && opt->follow && still_running(m) ? open_following(m, opt, err, errlen)
                                                    : open_finished(m, opt, err, errlen);
    if (rc != 0) {
        mon_ranks_close(m);
        return -1;
    }
    m->align.ranks = ranks;
    m->align.rank = m->clocks;
    *out = m;
    return 0;
}

/* ---------------------------------------------------------------------------
 * Pass 2: the merge
 * ------------------------------------------------------------------------- */

static uint64_t global_id(const rank_state *r, uint64_t id)
{
    return r->rank && id ? id | (uint64_t)r->rank << 32 : id;
}

/* The event of rank r as an event of the whole trace. */
static void make_global(mon_ranks *m, rank_state *r, mon_event *ev)
{
    *ev = r->head;
    ev->time = r->head_time > 0 ? (uint64_t)r->head_time : 0;
    ev->ranked = true;
    ev->rank = r->rank;
    ev->rank_worker = ev->worker;
    ev->worker = global_worker(m, r, ev->worker);
    ev->task = global_id(r, ev->task);
    ev->stream = global_id(r, ev->stream);
    ev->peer = global_id(r, ev->peer);
    uint32_t run = ev->run ? ev->run : 1;
    switch (ev->kind) {
    case MON_EV_TASK_MAP:
        ev->worker_mapped = global_worker(m, r, ev->worker_mapped);
        snprintf(m->name, sizeof m->name, "%s", ev->name ? ev->name : "");
        ev->name = m->name;
        break;
    case MON_EV_MONITOR_CONTROL:
        snprintf(m->name, sizeof m->name, "%s", ev->name ? ev->name : "");
        ev->name = m->name;
        break;
    case MON_EV_CHANNEL_OPEN: {
        mon_ends *c = mon_ends_of(&m->chans, run, ev->channel);
        if (c)
            *(ev->write_end ? &c->writer : &c->reader) = ev->task;
        break;
    }
    case MON_EV_CHANNEL_BLOCK: {
        mon_ends *c = mon_ends_of(&m->chans, run, ev->channel);
        /* Waiting for records: for the sender; for room: for the receiver. */
        ev->peer = c ? (ev->empty ? c->writer : c->reader) : 0;
        break;
    }
    default:
        break;
    }
}

/* The rank with the earliest next event (ties: the lower rank). */
static rank_state *earliest(mon_ranks *m)
{
    rank_state *best = NULL;
    for (unsigned i = 0; i < m->n; i++) {
        rank_state *r = &m->r[i];
        if (r->has_head && (!best || r->head_time < best->head_time))
            best = r;
    }
    return best;
}

static bool all_ended(const mon_ranks *m)
{
    for (unsigned i = 0; i < m->n; i++)
        if (!m->r[i].ended)
            return false;
    return true;
}

int mon_ranks_next(mon_ranks *m, mon_event *ev)
{
    if (m->failed)
        return MON_TRACE_ERROR;
    if (m->error_pending) {
        m->failed = true;
        return MON_TRACE_ERROR;
    }
    rank_state *best = earliest(m);
    if (m->live && !(best && may_deliver(m, best))) {
        poll_ranks(m);
        if (m->error_pending) {
            m->failed = true;
            return MON_TRACE_ERROR;
        }
        best = earliest(m);
        if (best ? !may_deliver(m, best) : !all_ended(m))
            return MON_TRACE_AGAIN;
    }
    if (!best)
        return m->truncated ? MON_TRACE_TRUNCATED : MON_TRACE_END;
    make_global(m, best, ev);
    if (best->head.kind == MON_EV_MESSAGE_SENT || best->head.kind == MON_EV_MESSAGE_RECEIVED)
        best->delivered_sync++;
    fetch(m, best);
    return MON_TRACE_EVENT;
}

/* ---------------------------------------------------------------------------
 * The logs and the clocks
 * ------------------------------------------------------------------------- */

/* Log i as (rank, index in its trace; -1 for a rank's pseudo status). */
static const rank_state *log_at(const mon_ranks *m, unsigned i, long *sub)
{
    for (unsigned k = 0; k < m->n; k++) {
        const rank_state *r = &m->r[k];
        unsigned n = r->trace ? mon_trace_num_workers(r->trace) : 1;
        if (i < n) {
            *sub = r->trace ? (long)i : -1;
            return r;
        }
        i -= n;
    }
    return NULL;
}

/* The worker number of rank r's status line: its base; following, before
 * it joins, the number it will start from (as things stand). */
static unsigned status_worker(const mon_ranks *m, const rank_state *r)
{
    if (r->joined)
        return r->base;
    const rank_state *last = m->joined ? &m->r[m->joined - 1] : NULL;
    return last && !last->reserved ? last->base + last->span : m->next_free;
}

const char *mon_ranks_error(const mon_ranks *m) { return m->msg; }

unsigned mon_ranks_num_workers(const mon_ranks *m)
{
    unsigned n = 0;
    for (unsigned k = 0; k < m->n; k++)
        n += m->r[k].trace ? mon_trace_num_workers(m->r[k].trace) : 1;
    return n;
}

unsigned mon_ranks_worker_id(const mon_ranks *m, unsigned i)
{
    long sub;
    const rank_state *r = log_at(m, i, &sub);
    if (!r)
        return 0;
    return sub < 0 ? status_worker(m, r)
                   : worker_number(r, mon_trace_worker_id(r->trace, (unsigned)sub));
}

void mon_ranks_worker_place(const mon_ranks *m, unsigned i, unsigned *rank, unsigned *rank_worker)
{
    long sub;
    const rank_state *r = log_at(m, i, &sub);
    *rank = r ? r->rank : 0;
    *rank_worker = r && sub >= 0 ? mon_trace_worker_id(r->trace, (unsigned)sub) : 0;
}

bool mon_ranks_worker_of(const mon_ranks *m, unsigned w, unsigned *rank, unsigned *rank_worker)
{
    for (unsigned k = 0; k < m->n; k++) {
        const rank_state *r = &m->r[k];
        if (!r->joined)
            continue;
        *rank = k;
        for (size_t i = 0; i < r->nalias; i++)
            if (r->alias[i].global == w) {
                *rank_worker = r->alias[i].local;
                return true;
            }
        if (w >= r->base && (w < r->base + r->span || !r->reserved)) {
            *rank_worker = w - r->base;
            return true;
        }
    }
    return false;
}

void mon_ranks_log_status(const mon_ranks *m, unsigned i, mon_log_status *out)
{
    memset(out, 0, sizeof *out);
    long sub;
    const rank_state *r = log_at(m, i, &sub);
    if (!r)
        return;
    if (sub < 0) {
        out->worker = status_worker(m, r);
        out->path = r->dir;
        out->state = r->pseudo_state;
        out->events_expected = out->bytes_expected = -1;
        out->events_lost = -1;
        out->message = r->pseudo_msg;
        return;
    }
    mon_trace_log_status(r->trace, (unsigned)sub, out);
    out->worker = worker_number(r, out->worker);
}

uint64_t mon_ranks_events_discarded(const mon_ranks *m)
{
    uint64_t n = 0;
    for (unsigned k = 0; k < m->n; k++)
        if (m->r[k].trace)
            n += mon_trace_events_discarded(m->r[k].trace);
    return n;
}

mon_run_state mon_ranks_run_state(const mon_ranks *m, const char **why)
{
    for (unsigned k = 0; k < m->n; k++) {
        const rank_state *r = &m->r[k];
        const char *line = NULL;
        mon_run_state st = r->trace ? mon_trace_run_state(r->trace, &line) : MON_RUN_UNKNOWN;
        if (st != MON_RUN_COMPLETE) {
            if (why)
                *why = r->trace ? line : r->pseudo_msg;
            return st;
        }
    }
    if (why)
        *why = NULL;
    return MON_RUN_COMPLETE;
}

unsigned mon_ranks_dir_problems(const mon_ranks *m, const char **first)
{
    unsigned n = 0;
    if (first)
        *first = NULL;
    for (unsigned k = 0; k < m->n; k++) {
        const char *line = NULL;
        unsigned here = m->r[k].trace ? mon_trace_dir_problems(m->r[k].trace, &line) : 0;
        if (here && first && !*first)
            *first = line;
        n += here;
    }
    return n;
}

/* The reference clock: rank 0's, or the first readable rank's. */
static const mon_trace *reference(const mon_ranks *m)
{
    for (unsigned k = 0; k < m->n; k++)
        if (m->r[k].trace)
            return m->r[k].trace;
    return NULL;
}

uint64_t mon_ranks_clock_offset_ns(const mon_ranks *m)
{
    const mon_trace *t = reference(m);
    return t ? mon_trace_clock_offset_ns(t) : 0;
}

uint64_t mon_ranks_clock_freq(const mon_ranks *m)
{
    const mon_trace *t = reference(m);
    return t ? mon_trace_clock_freq(t) : MON_NS_PER_S;
}

uint64_t mon_ranks_now_ns(const mon_ranks *m)
{
    const mon_trace *t = reference(m);
    return t ? mon_trace_now_ns(t) : 0;
}

unsigned mon_ranks_num_ranks(const mon_ranks *m) { return m->n; }

const mon_clock_alignment *mon_ranks_clock_alignment(const mon_ranks *m) { return &m->align; }

void mon_ranks_close(mon_ranks *m)
{
    if (!m)
        return;
    for (unsigned k = 0; m->r && k < m->n; k++) {
        mon_trace_close(m->r[k].trace);
        free(m->r[k].pseudo_msg);
        free(m->r[k].sync);
        free(m->r[k].shift);
        free(m->r[k].alias);
    }
    free(m->r);
    free(m->clocks);
    mon_ends_table_free(&m->chans);
    free(m);
}
