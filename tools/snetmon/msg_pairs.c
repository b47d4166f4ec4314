/*
 * msg_pairs.c - pairing each message's write with its read (see
 * msg_pairs.h). The records live in a binary tree of libc's tsearch: one
 * lookup per message event, no table of our own to grow and rehash.
 */
#include "msg_pairs.h"

#include <search.h>
#include <stdio.h>
#include <stdlib.h>

struct msg_pairs {
    void *root; /* tsearch tree of msg_pair */
    msg_pair_counts counts;
    uint64_t flows;
};

static int compare_pairs(const void *a, const void *b)
{
    const msg_pair *x = a, *y = b;
    if (x->run != y->run)
        return x->run < y->run ? -1 : 1;
    return x->msg < y->msg ? -1 : x->msg > y->msg;
}

/* The record of ev's message; created when create is set. NULL when
 * absent (or out of memory with create: *oom set). */
static msg_pair *lookup(msg_pairs *p, const mon_event *ev, bool create, bool *oom)
{
    msg_pair key = {.run = ev->run, .msg = ev->msg};
    void *node = tfind(&key, &p->root, compare_pairs);
    if (node || !create)
        return node ? *(msg_pair **)node : NULL;
    msg_pair *n = malloc(sizeof *n);
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
static void note(msg_pairs *p, msg_pair *m, const mon_event *ev)
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
    const msg_pair *m = *(const msg_pair *const *)node;
    msg_pair_counts *c = closure;
    c->paired += m->flow != 0;
    c->written_unread += m->writes && !m->reads;
    c->read_unwritten += m->reads && !m->writes;
}

msg_pairs *msg_pairs_scan(trace_input *in, const char *cmd)
{
    msg_pairs *p = calloc(1, sizeof *p);
    if (!p) {
        fprintf(stderr, "snetmon %s: out of memory\n", cmd);
        return NULL;
    }
    mon_event ev;
    int rc;
    bool oom = false;
    while (!oom && (rc = trace_input_next(in, &ev)) == 1) {
        if (ev.kind != MON_EV_MESSAGE_WRITTEN && ev.kind != MON_EV_MESSAGE_READ)
            continue;
        msg_pair *m = lookup(p, &ev, true, &oom);
        if (m)
            note(p, m, &ev);
    }
    if (oom)
        fprintf(stderr, "snetmon %s: out of memory\n", cmd);
    if (oom || rc != 0) {
        msg_pairs_free(p);
        return NULL;
    }
    twalk_r(p->root, count_unpaired, &p->counts);
    return p;
}

msg_pair *msg_pairs_first(msg_pairs *p, const mon_event *ev)
{
    msg_pair *m = lookup(p, ev, false, NULL);
    if (!m || !m->flow)
        return NULL;
    bool *done = ev->kind == MON_EV_MESSAGE_WRITTEN ? &m->write_done : &m->read_done;
    if (*done)
        return NULL;
    *done = true;
    return m;
}

const msg_pair_counts *msg_pairs_counts(const msg_pairs *p) { return &p->counts; }

void msg_pairs_free(msg_pairs *p)
{
    if (!p)
        return;
    tdestroy(p->root, free);
    free(p);
}
