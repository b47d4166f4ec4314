/*
 * detect.c - when is a run across ranks over, and is it over because it
 * finished or because it deadlocked?
 *
 * A rank is passive when every one of its tasks is blocked (LPEL is
 * quiescent) and its communication thread has nothing queued. A passive
 * rank becomes active again only by receiving a counted message (a frame,
 * credit or spawn request), and it counts the counted messages it sends
 * and receives. Rank 0 asks every rank for a snapshot (passive, sent,
 * received, live tasks) in waves. When two consecutive waves find every
 * rank passive with the same counters, and the sums of sent and received
 * are equal, then at the moment between the waves every rank was passive
 * and no message was in flight, and nothing can ever change again (the
 * four-counter method of termination detection). With no live task left
 * the run finished (FINISH); with some, those tasks wait for each other
 * for ever (DEADLOCK), and every rank stops its LPEL run and reports who
 * waits for whom.
 *
 * Waves cost a message per rank, so while some rank is busy they back off
 * (up to SNET_WAVE_MAX_GAP); once everything looks passive the confirming
 * wave follows at once, so the end of a run is noticed in two round trips.
 */
#include "distrib_internal.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SNET_WAVE_MIN_GAP 50e-6
#define SNET_WAVE_MAX_GAP 10e-3
/* How often rank 0 looks at itself while it is busy. */
#define SNET_SELF_CHECK_GAP 20e-6

static snet_snapshot snapshot(snet_dist *d)
{
    snet_snapshot s = {.passive = true, .sent = d->sent, .received = d->received, .live = 0};
    if (atomic_load(&d->local_over))
        return s; /* this rank's run has ended: nothing here will move */
    long live = 0;
    s.passive = snet_comm_queue_empty(d) && lpel_runtime_quiescent(d->run->lpel, &live);
    s.live = live > 0 ? live - 1 : 0; /* the spawner lives until FINISH */
    return s;
}

/* ---- what every rank does with a verdict ---------------------------------------------- */

static void stop_deadlocked(snet_dist *d)
{
    d->deadlocked = true;
    FILE *f = open_memstream(&d->report, &d->report_len);
    if (!f)
        snet_fatal_oom("the deadlock report");
    /* The state is stable, so LPEL is quiescent; a refusal can only be a
     * wake-up still on its way, so try again shortly. */
    while (!atomic_load(&d->local_over) &&
           lpel_runtime_stop_deadlocked(d->run->lpel, f) != LPEL_OK) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    fclose(f);
}

static void verdict(snet_dist *d, int tag)
{
    d->done = true;
    if (tag == SNET_TAG_FINISH)
        snet_dist_finish(d);
    else
        stop_deadlocked(d);
}

/* ---- rank 0: waves ------------------------------------------------------------------------ */

static void conclude(snet_dist *d, int tag)
{
    for (int r = 1; r < d->size; r++)
        snet_comm_send_now(d, r, tag, NULL, 0);
    verdict(d, tag);
}

static void evaluate(snet_dist *d)
{
    d->wave_open = false;
    bool all_passive = true, same = d->prev_valid;
    uint64_t sent = 0, received = 0;
    long live = 0;
    for (int r = 0; r < d->size; r++) {
        const snet_snapshot *c = &d->cur[r], *p = &d->prev[r];
        all_passive = all_passive && c->passive;
        same = same && c->sent == p->sent && c->received == p->received;
        sent += c->sent;
        received += c->received;
        live += c->live;
    }
    if (all_passive && same && sent == received) {
        conclude(d, live == 0 ? SNET_TAG_FINISH : SNET_TAG_DEADLOCK);
        return;
    }
    memcpy(d->prev, d->cur, (size_t)d->size * sizeof *d->cur);
    d->prev_valid = all_passive;
    double now = snet_dist_now();
    if (all_passive && sent == received) {
        d->next_wave_at = now; /* looks over: confirm at once */
    } else {
        bool moving = !same || d->active_since_wave;
        d->wave_backoff = moving ? SNET_WAVE_MIN_GAP : d->wave_backoff * 2;
        if (d->wave_backoff > SNET_WAVE_MAX_GAP)
            d->wave_backoff = SNET_WAVE_MAX_GAP;
        d->next_wave_at = now + d->wave_backoff;
    }
    d->active_since_wave = false;
}

void snet_detect_step(snet_dist *d)
{
    if (d->rank != 0 || d->wave_open)
        return;
    double now = snet_dist_now();
    if (now < d->next_wave_at)
        return;
    snet_snapshot me = snapshot(d);
    if (!me.passive) {
        d->active_since_wave = true;
        d->next_wave_at = now + SNET_SELF_CHECK_GAP;
        return;
    }
    d->wave++;
    d->cur[0] = me;
    d->replies_missing = d->size - 1;
    d->wave_open = true;
    snet_bytes b;
    snet_bytes_init(&b);
    snet_bytes_u32(&b, d->wave);
    for (int r = 1; r < d->size; r++)
        snet_comm_send_now(d, r, SNET_TAG_PROBE, b.data, b.len);
    snet_bytes_free(&b);
    if (d->replies_missing == 0)
        evaluate(d);
}

static void on_reply(snet_dist *d, int src, const unsigned char *buf, size_t len)
{
    snet_wire_in in = {buf, buf + len, false};
    uint32_t wave = snet_wire_u32(&in);
    snet_snapshot s;
    s.passive = snet_wire_u8(&in) != 0;
    s.sent = snet_wire_u64(&in);
    s.received = snet_wire_u64(&in);
    s.live = (long)snet_wire_u64(&in);
    if (in.bad || !d->wave_open || wave != d->wave || src <= 0 || src >= d->size)
        return; /* not the wave we wait for */
    d->cur[src] = s;
    if (--d->replies_missing == 0)
        evaluate(d);
}

/* ---- every rank: messages -------------------------------------------------------------------- */

static void on_probe(snet_dist *d, int src, const unsigned char *buf, size_t len)
{
    snet_wire_in in = {buf, buf + len, false};
    uint32_t wave = snet_wire_u32(&in);
    snet_snapshot s = snapshot(d);
    snet_bytes b;
    snet_bytes_init(&b);
    snet_bytes_u32(&b, wave);
    snet_bytes_u8(&b, s.passive);
    snet_bytes_u64(&b, s.sent);
    snet_bytes_u64(&b, s.received);
    snet_bytes_u64(&b, (uint64_t)s.live);
    if (b.failed)
        snet_fatal_oom("the communication thread");
    snet_comm_send_now(d, src, SNET_TAG_REPLY, b.data, b.len);
    snet_bytes_free(&b);
}

void snet_detect_message(snet_dist *d, int src, int tag, const unsigned char *data, size_t len)
{
    switch (tag) {
    case SNET_TAG_PROBE:
        on_probe(d, src, data, len);
        break;
    case SNET_TAG_REPLY:
        on_reply(d, src, data, len);
        break;
    case SNET_TAG_FINISH:
    case SNET_TAG_DEADLOCK:
        if (src == 0 && !d->done)
            verdict(d, tag);
        break;
    default:
        snet_run_fail(d->run, "a message from rank %d with unknown tag %d (ignored)", src, tag);
        break;
    }
}
