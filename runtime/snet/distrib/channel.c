/*
 * channel.c - the two ends of a stream between ranks, and the task at
 * each end. A channel carries the records of one S-Net stream, in order,
 * in frames (docs/WIRE.md): the sender task ("...to.r<peer>") reads its
 * local stream and packs what is there into a frame, as many records as it
 * has credits for and that fit SNET_FRAME_BYTES, so a busy stream travels
 * in few messages and a quiet one without delay. The receiver task
 * ("...from.r<peer>") writes the records of each frame into its local
 * stream, then returns the credits to the sender when the frame asks for
 * them (the sender is down to half its window).
 *
 * Both tasks wait for the communication thread through the end's event;
 * the event's text names the rank and task at the other end, so that a
 * deadlock report shows who waits for whom across ranks.
 *
 * Monitored, the two tasks record both ends of every record that crosses
 * (message_sent when it goes into a frame, message_received when it comes
 * out of one: the pair the trace reader checks the ranks' clocks with and
 * the bridge makes a TRANSFER of), and their channel and its waits
 * (channel_open, channel_block), so that the waiting relation crosses
 * ranks too (docs/LOGFORMAT.md section 8).
 */
#include "distrib_internal.h"

#include <stdlib.h>
#include <string.h>

/* DATA frame header: creator, index, record count, flags. */
#define FRAME_HEADER 13

static char *format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *format(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s) {
        va_start(ap, fmt);
        vsnprintf(s, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    return s;
}

snet_endpoint *snet_endpoint_new(snet_dist *d, uint32_t creator, uint32_t index, int peer,
                                 bool sends, const char *prefix)
{
    snet_endpoint *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    *e = (snet_endpoint){.dist = d, .creator = creator, .index = index, .peer = peer,
                         .sends = sends, .credits = sends ? (long)d->window : 0,
                         .budget = sends ? SNET_WINDOW_BYTES : 0};
    pthread_mutex_init(&e->lock, NULL);
    e->task = format("%s%s.r%d", prefix, sends ? "to" : "from", peer);
    char *peer_task = format("%s%s.r%d", prefix, sends ? "from" : "to", d->rank);
    char *what = sends ? format("room on rank %d: its task '%s' has not taken the records in "
                                "flight on channel %u.%u",
                                peer, peer_task ? peer_task : "?", creator, index)
                       : format("records from rank %d on channel %u.%u (sent by its task '%s')",
                                peer, creator, index, peer_task ? peer_task : "?");
    e->event = lpel_event_create(what);
    free(peer_task);
    free(what);
    if (!e->task || !e->event) {
        snet_endpoint_free(e);
        return NULL;
    }
    pthread_mutex_lock(&d->ends_lock);
    if (KIT_GROW(d->ends, d->capends, d->nends + 1) != 0) {
        pthread_mutex_unlock(&d->ends_lock);
        snet_endpoint_free(e);
        return NULL;
    }
    d->ends[d->nends++] = e;
    pthread_mutex_unlock(&d->ends_lock);
    return e;
}

void snet_endpoint_free(snet_endpoint *e)
{
    if (!e)
        return;
    for (snet_frame *f = e->head, *next; f; f = next) {
        next = f->next;
        free(f->data);
        free(f);
    }
    lpel_event_destroy(e->event);
    pthread_mutex_destroy(&e->lock);
    free(e->task);
    free(e);
}

/* ---- what the communication thread hands over ----------------------------------------- */

void snet_endpoint_frame(snet_endpoint *e, snet_frame *f)
{
    f->next = NULL;
    pthread_mutex_lock(&e->lock);
    if (e->tail)
        e->tail->next = f;
    else
        e->head = f;
    e->tail = f;
    pthread_mutex_unlock(&e->lock);
    lpel_event_raise(e->event);
}

void snet_endpoint_credit(snet_endpoint *e, long credits, long bytes)
{
    pthread_mutex_lock(&e->lock);
    e->credits += credits;
    e->budget += bytes;
    pthread_mutex_unlock(&e->lock);
    lpel_event_raise(e->event);
}

/* ---- the sender ------------------------------------------------------------------------- */

/* The channel's id in the trace: unique in the job. */
static uint64_t channel_id(const snet_endpoint *e)
{
    return (uint64_t)e->creator << 32 | e->index;
}

/* What the frame being built may still use: credits and byte budget taken
 * from the end at once, so a frame costs two turns of the end's lock, not
 * two a record (each turn ~25 ns against ~130 ns a record). The view is
 * safe: meanwhile the receiver's credits only ever add to the end's. */
typedef struct allowance {
    long credits; /* taken, not yet spent */
    long budget;  /* the end's bytes when last taken, less `bytes` */
    long bytes;   /* spent by the records in the frame */
} allowance;

/* Take up to want credits (and the budget's view) into a. With block, wait
 * for one credit and budget left first; else take none if there is none. */
static void take_allowance(snet_endpoint *e, long want, bool block, allowance *a)
{
    pthread_mutex_lock(&e->lock);
    while ((e->credits == 0 || e->budget - a->bytes <= 0) && block) {
        pthread_mutex_unlock(&e->lock);
        if (e->dist->run->traced)
            snet_mon_channel_block(channel_id(e), false);
        lpel_event_wait(e->event, LPEL_BLOCK_OUTPUT);
        pthread_mutex_lock(&e->lock);
    }
    long n = e->budget - a->bytes > 0 ? (e->credits < want ? e->credits : want) : 0;
    e->credits -= n;
    a->credits += n;
    a->budget = e->budget - a->bytes;
    pthread_mutex_unlock(&e->lock);
}

/* May the frame take one more record? */
static bool allowed(const allowance *a) { return a->credits > 0 && a->budget > 0; }

/* The frame is complete: give back the credits it did not spend, take its
 * bytes from the budget. True if the sender is now down to half its window
 * or budget (the frame asks for its credits back: SNET_FRAME_ASK). */
static bool settle(snet_endpoint *e, const allowance *a)
{
    pthread_mutex_lock(&e->lock);
    e->credits += a->credits;
    e->budget -= a->bytes;
    bool low = e->credits <= (long)e->dist->window / 2 || e->budget <= SNET_WINDOW_BYTES / 2;
    pthread_mutex_unlock(&e->lock);
    return low;
}

static snet_msg *frame_start(snet_endpoint *e)
{
    snet_msg *m = snet_msg_new(e->peer, SNET_TAG_DATA);
    if (!m)
        snet_fatal_oom("a channel sender");
    snet_bytes_u32(&m->body, e->creator);
    snet_bytes_u32(&m->body, e->index);
    snet_bytes_u32(&m->body, 0); /* record count, patched */
    snet_bytes_u8(&m->body, 0);  /* flags, patched */
    return m;
}

/* Append r to the frame (consumes r), spending a credit and its bytes of
 * a; false if it cannot cross (reported and dropped: nothing spent). */
static bool frame_add(snet_endpoint *e, snet_msg *m, snet_record *r, allowance *a)
{
    snet_run *run = e->dist->run;
    size_t before = m->body.len;
    char err[512];
    uint64_t id = r->kind == SNET_REC_DATA ? r->id : 0;
    int rc = snet_wire_put_record(&m->body, r, run, err, sizeof err);
    if (rc == SNET_OK && id && run->traced)
        snet_mon_sent(id, e->peer);
    if (rc == SNET_ENOMEM || m->body.failed)
        snet_fatal_oom("a channel sender");
    if (rc == SNET_OK) {
        long bytes = (long)(m->body.len - before);
        a->credits--;
        a->bytes += bytes;
        a->budget -= bytes;
    } else {
        char labels[256];
        snet_record_labels_text(r, labels, sizeof labels);
        snet_run_fail(run, "task '%s': record %s cannot go to rank %d: %s; record dropped",
                      e->task, labels, e->peer, err);
        m->body.len = before;
    }
    snet_record_free(r);
    return rc == SNET_OK;
}

static void frame_send(snet_endpoint *e, snet_msg *m, uint32_t count, uint8_t flags)
{
    snet_bytes_patch_u32(&m->body, 8, count);
    m->body.data[12] = flags;
    snet_comm_post(e->dist, m);
}

/* Records that are already in the stream go into the frame while the frame,
 * its allowance and `most` allow; how many were read (sent or dropped). */
static size_t frame_fill(snet_endpoint *e, snet_msg *m, uint32_t *count, size_t most,
                         allowance *a)
{
    size_t taken = 0;
    while (m->body.len < SNET_FRAME_BYTES && *count < most && lpel_stream_peek(e->stream)) {
        if (!allowed(a)) {
            take_allowance(e, (long)(most - *count), false, a);
            if (!allowed(a))
                break;
        }
        *count += frame_add(e, m, lpel_stream_read(e->stream), a);
        taken++;
    }
    return taken;
}

static void sender_task(void *arg)
{
    snet_endpoint *e = arg;
    lpel_stream_open(e->stream, LPEL_STREAM_READ);
    if (e->dist->run->traced)
        snet_mon_channel_open(channel_id(e), e->peer, true);
    /* At most half the window a frame: the sender asks for credits back at
     * half its window (SNET_FRAME_ASK), so with smaller frames the next one
     * travels while the receiver delivers this one. A frame of the whole
     * window was a stop-and-wait: 1000 records, then a round trip. */
    size_t most = e->dist->window / 2 ? e->dist->window / 2 : 1;
    size_t capacity = e->dist->run->stream_capacity;
    for (;;) {
        snet_record *r = lpel_stream_read(e->stream);
        snet_msg *m = frame_start(e);
        if (!r) {
            frame_send(e, m, 0, SNET_FRAME_EOS);
            break;
        }
        allowance a = {0, 0, 0};
        take_allowance(e, (long)most, true, &a);
        uint32_t count = frame_add(e, m, r, &a);
        size_t taken = 1 + frame_fill(e, m, &count, most, &a);
        /* A stream found full had its writer waiting for room, which it has
         * now: let it refill before sending, so that a fast stream travels
         * in large frames (per-frame costs are tens of microseconds). A
         * stream that was not full goes at once. */
        while (taken >= capacity && m->body.len < SNET_FRAME_BYTES && count < most &&
               !lpel_unwinding()) {
            lpel_task_yield();
            taken = frame_fill(e, m, &count, most, &a);
            if (taken == 0)
                break;
        }
        bool ask = settle(e, &a);
        if (count)
            frame_send(e, m, count, ask ? SNET_FRAME_ASK : 0);
        else
            snet_msg_free(m);
    }
    lpel_stream_close(e->stream, LPEL_STREAM_READ);
}

/* ---- the receiver ----------------------------------------------------------------------- */

static snet_frame *take_frame(snet_endpoint *e)
{
    pthread_mutex_lock(&e->lock);
    while (!e->head) {
        pthread_mutex_unlock(&e->lock);
        if (e->dist->run->traced)
            snet_mon_channel_block(channel_id(e), true);
        lpel_event_wait(e->event, LPEL_BLOCK_INPUT);
        pthread_mutex_lock(&e->lock);
    }
    snet_frame *f = e->head;
    e->head = f->next;
    if (!e->head)
        e->tail = NULL;
    pthread_mutex_unlock(&e->lock);
    return f;
}

static void return_credits(snet_endpoint *e, uint32_t n, uint32_t bytes)
{
    snet_msg *m = snet_msg_new(e->peer, SNET_TAG_CREDIT);
    if (!m)
        snet_fatal_oom("a channel receiver");
    snet_bytes_u32(&m->body, e->creator);
    snet_bytes_u32(&m->body, e->index);
    snet_bytes_u32(&m->body, n);
    snet_bytes_u32(&m->body, bytes);
    snet_comm_post(e->dist, m);
}

/* Write the frame's records into the stream; true at end-of-stream. */
static bool deliver_frame(snet_endpoint *e, snet_frame *f, snet_wire_cache *cache)
{
    snet_run *run = e->dist->run;
    snet_wire_in in = {f->data + 8, f->data + f->len, false};
    uint32_t count = snet_wire_u32(&in);
    uint8_t flags = snet_wire_u8(&in);
    char err[512];
    for (uint32_t i = 0; i < count; i++) {
        snet_record *r;
        if (snet_wire_get_record(&in, &r, cache, run, err, sizeof err) != SNET_OK) {
            snet_run_fail(run, "task '%s': record %u of a frame from rank %d (channel %u.%u) "
                          "is unreadable: %s; the rest of the frame is dropped",
                          e->task, i + 1, e->peer, e->creator, e->index, err);
            break;
        }
        if (run->traced && r->kind == SNET_REC_DATA && r->id)
            snet_mon_received(r->id, e->peer);
        lpel_stream_write(e->stream, r);
    }
    if (!(flags & SNET_FRAME_EOS)) {
        e->held += count;
        e->held_bytes += (uint32_t)(f->len - FRAME_HEADER); /* the records' bytes */
    }
    if (e->held && (flags & SNET_FRAME_ASK)) {
        return_credits(e, e->held, e->held_bytes);
        e->held = e->held_bytes = 0;
    }
    return flags & SNET_FRAME_EOS;
}

static void receiver_task(void *arg)
{
    snet_endpoint *e = arg;
    snet_wire_cache cache = {0};
    lpel_stream_open(e->stream, LPEL_STREAM_WRITE);
    if (e->dist->run->traced)
        snet_mon_channel_open(channel_id(e), e->peer, false);
    for (bool end = false; !end;) {
        snet_frame *f = take_frame(e);
        end = deliver_frame(e, f, &cache);
        free(f->data);
        free(f);
    }
    lpel_stream_close(e->stream, LPEL_STREAM_WRITE);
    snet_wire_cache_free(&cache);
}

int snet_endpoint_start(snet_endpoint *e, int worker)
{
    snet_place at = {e->dist->run, "", worker};
    return snet_spawn(&at, e->task, e->sends ? sender_task : receiver_task, e) ? SNET_OK
                                                                               : SNET_ESYSTEM;
}

/* The frame header's length, for the communication thread's checks. */
size_t snet_frame_header_bytes(void) { return FRAME_HEADER; }
