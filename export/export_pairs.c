/*
 * export_pairs.c - which message_written goes with which message_read, for
 * the exporters (Chrome flows, OTF2 send/receive; export_internal.h).
 *
 * Why a first pass: a viewer wants a message as a pair (an arrow, or an
 * MPI-style send and receive that name each other's location), and the
 * write comes long before anyone knows whether, and on which worker, the
 * message will be read. So the exporters read the trace once to pair the
 * events here, rewind it, and write while reading it again. Memory: one
 * small record per message id, not per event, in a binary tree of libc's
 * tsearch: one lookup per message event, no table of our own to grow and
 * rehash.
 */
#include "export_internal.h"

#include <search.h>
#include <stdio.h>
#include <stdlib.h>

struct export_pairs {
    void *root; /* tsearch tree of export_pair */
    export_message_counts counts;
    uint64_t flows;
};

static int compare_pairs(const void *a, const void *b)
{
    const export_pair *x = a, *y = b;
    if (x->run != y->run)
        return x->run < y->run ? -1 : 1;
    return x->msg < y->msg ? -1 : x->msg > y->msg;
}

/* The record of ev's message; created when create is set. NULL when
 * absent (or out of memory with create: *oom set). */
static export_pair *lookup(export_pairs *p, const mon_event *ev, bool create, bool *oom)
{
    export_pair key = {.run = ev->run, .msg = ev->msg};
    void *node = tfind(&key, &p->root, compare_pairs);
    if (node || !create)
        return node ? *(export_pair **)node : NULL;
    export_pair *n = malloc(sizeof *n);
    if (n)
        *n = key;
    if (!n || !(node = tsearch(n, &p->root, compare_pairs))) {
        free(n);
        *oom = true;
        return NULL;
    }
    return n;
}

/* Pass 1: one message event. */
static void note(export_pairs *p, export_pair *m, const mon_event *ev)
{
    bool written = ev->kind == MON_EV_MESSAGE_WRITTEN;
    uint32_t *seen = written ? &m->writes : &m->reads;
    if ((*seen)++ > 0) {
        p->counts.repeated++;
        return;
    }
    if (written) {
        m->writer = ev->worker;
        m->write_time = ev->time;
    } else {
        m->reader = ev->worker;
        m->read_time = ev->time;
    }
    if (m->writes && m->reads)
        m->flow = ++p->flows;
}

static void count_unpaired(const void *node, VISIT which, void *closure)
{
    if (which != postorder && which != leaf)
        return;
    const export_pair *m = *(const export_pair *const *)node;
    export_message_counts *c = closure;
    c->paired += m->flow != 0;
    c->written_unread += m->writes && !m->reads;
    c->read_unwritten += m->reads && !m->writes;
}

export_pairs *export_pairs_scan(const export_source *src, char *err, size_t errlen)
{
    export_pairs *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    mon_event ev;
    int rc;
    bool oom = false;
    err[0] = '\0';
    while (!oom && (rc = src->next(src->ctx, &ev)) == 1) {
        if (ev.kind != MON_EV_MESSAGE_WRITTEN && ev.kind != MON_EV_MESSAGE_READ)
            continue;
        export_pair *m = lookup(p, &ev, true, &oom);
        if (m)
            note(p, m, &ev);
    }
    if (oom)
        snprintf(err, errlen, "out of memory");
    if (oom || rc != 0 || src->rewind(src->ctx) != 0) {
        export_pairs_free(p);
        return NULL;
    }
    twalk_r(p->root, count_unpaired, &p->counts);
    return p;
}

export_pair *export_pairs_first(export_pairs *p, const mon_event *ev)
{
    export_pair *m = lookup(p, ev, false, NULL);
    if (!m || !m->flow)
        return NULL;
    bool *done = ev->kind == MON_EV_MESSAGE_WRITTEN ? &m->write_done : &m->read_done;
    if (*done)
        return NULL;
    *done = true;
    return m;
}

const export_message_counts *export_pairs_counts(const export_pairs *p) { return &p->counts; }

void export_pairs_free(export_pairs *p)
{
    if (!p)
        return;
    tdestroy(p->root, free);
    free(p);
}
