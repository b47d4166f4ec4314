/*
 * stream.c - bounded single-reader single-writer streams, and poll.
 *
 * The buffer is a ring indexed by two counters: head (advanced only by the
 * reader) and tail (advanced only by the writer). Each side keeps a cached
 * copy of the other's counter, so a read or write touches the other side's
 * cache line only when its cached view says empty or full.
 *
 * Blocking. A reader that finds the stream empty announces itself
 * (reader_waiting), re-checks, and blocks; a writer that publishes an item
 * looks at reader_waiting and, if set, wakes the reader. Announce-then-
 * check on one side and publish-then-check on the other need a full fence
 * on both, or each side can miss the other's store (the store-load
 * reordering of every modern CPU). The blocking side is always
 * sequentially consistent; the fast path pays for that only when the two ends live on
 * different workers. When
 * both ends are bound to tasks of the same worker, those tasks never run at
 * the same time and no fence is needed: that is the `local` flag. An end is
 * bound once and for ever, so `local` never becomes wrong.
 *
 * Exactly one wake-up per block: a blocking task sets its wake_token; a
 * waker must take the token (an exchange) before waking it. This also
 * serves poll, where several writers may see the same waiting reader.
 * A woken task re-checks its condition, so a stale waiting flag can cause
 * at most a spurious wake-up, never a lost one.
 *
 * End-of-stream is an item like any other (a private sentinel), so it
 * keeps FIFO order with the data and needs no extra synchronisation.
 *
 * Unwinding after a deadlock (lpel_config.unwind_on_deadlock): every
 * operation first looks at its worker's unwinding mark (a hot line, one
 * predictable branch) and then returns at once: reads see end-of-stream,
 * writes hand their item to config.discard_item. A task blocked when the
 * mark was set is woken and sees it after its block.
 */
#include "lpel_internal.h"

#include <stdlib.h>
#include <string.h>

struct lpel_stream {
    /* Read on every operation, written only when the ends are bound. */
    size_t capacity;
    size_t mask;
    _Atomic(lpel_task *) reader;
    _Atomic(lpel_task *) writer;
    atomic_int local;
    atomic_int reader_closed;
    atomic_int writer_closed;

    /* Cold: identity, binding, lifetime. */
    lpel_runtime *rt;
    void (*discard_item)(void *item); /* config.discard_item, kept here:
                                         a stream may outlive its runtime */
    uint64_t id;
    _Atomic uint64_t reader_id;
    _Atomic uint64_t writer_id;
    atomic_int reader_worker; /* -1 while unbound */
    atomic_int writer_worker;
    atomic_int refs;

    /* The reader's side. */
    _Alignas(LPEL_CACHE_LINE) atomic_size_t head;
    size_t tail_seen;
    atomic_int reader_waiting;
    atomic_int waking_writer; /* the reader is inside a wake of the writer */
    bool at_end;

    /* The writer's side. */
    _Alignas(LPEL_CACHE_LINE) atomic_size_t tail;
    size_t head_seen;
    atomic_int writer_waiting;
    atomic_int waking_reader; /* the writer is inside a wake of the reader */

    /* The ring itself, in the same allocation: one less pointer to chase
     * and one less cache miss per operation. */
    _Alignas(LPEL_CACHE_LINE) void *slots[];
};

/* The end-of-stream item: only its address matters. */
static const char end_of_stream_marker;
#define END_OF_STREAM ((void *)&end_of_stream_marker)

uint64_t lpel_stream_id(const lpel_stream *s) { return s->id; }
size_t lpel_stream_capacity(const lpel_stream *s) { return s->capacity; }
lpel_task *lpel_stream_reader(const lpel_stream *s) { return atomic_load(&((lpel_stream *)s)->reader); }
lpel_task *lpel_stream_writer(const lpel_stream *s) { return atomic_load(&((lpel_stream *)s)->writer); }
uint64_t lpel_stream_reader_id(const lpel_stream *s) { return atomic_load(&((lpel_stream *)s)->reader_id); }
uint64_t lpel_stream_writer_id(const lpel_stream *s) { return atomic_load(&((lpel_stream *)s)->writer_id); }

size_t lpel_stream_count(const lpel_stream *s)
{
    lpel_stream *m = (lpel_stream *)s;
    return atomic_load(&m->tail) - atomic_load(&m->head);
}

bool lpel_stream_is_empty_now(const lpel_stream *s) { return lpel_stream_count(s) == 0; }

lpel_stream *lpel_stream_create(lpel_runtime *rt, size_t capacity)
{
    if (!rt) {
        lpel_worker *w = lpel_worker_self();
        rt = w ? w->rt : NULL;
    }
    if (!rt)
        return NULL;
    if (capacity == 0)
        capacity = rt->config.default_stream_capacity;
    size_t slots = 1;
    while (slots < capacity)
        slots <<= 1;

    size_t bytes = sizeof(lpel_stream) + slots * sizeof(void *);
    bytes = (bytes + LPEL_CACHE_LINE - 1) & ~(size_t)(LPEL_CACHE_LINE - 1);
    lpel_stream *s = aligned_alloc(LPEL_CACHE_LINE, bytes);
    if (!s)
        return NULL;
    memset(s, 0, bytes);
    s->rt = rt;
    s->discard_item = rt->config.discard_item;
    s->id = atomic_fetch_add_explicit(&rt->next_stream_id, 1, memory_order_relaxed) + 1;
    s->capacity = capacity;
    s->mask = slots - 1;
    atomic_init(&s->refs, 2); /* one per end */
    atomic_init(&s->reader_worker, -1);
    atomic_init(&s->writer_worker, -1);
    return s;
}

static void discard(lpel_stream *s, void *item)
{
    if (s->discard_item && item != END_OF_STREAM)
        s->discard_item(item);
}

/* Free s with whatever is still queued in it. */
static void stream_free(lpel_stream *s)
{
    size_t tail = atomic_load(&s->tail);
    for (size_t head = atomic_load(&s->head); head != tail; head++)
        discard(s, s->slots[head & s->mask]);
    free(s);
}

static void stream_release(lpel_stream *s)
{
    if (atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) == 1)
        stream_free(s);
}

void lpel_stream_destroy(lpel_stream *s)
{
    if (!s)
        return;
    stream_free(s);
}

/* ---- binding ends to tasks ---------------------------------------------- */

static lpel_task *self_or_die(const char *what)
{
    lpel_task *t = lpel_current_task();
    if (!t)
        lpel_fatal("%s called outside a task", what);
    return t;
}

static const char *mode_name(lpel_stream_mode mode)
{
    return mode == LPEL_STREAM_READ ? "reader" : "writer";
}

static LPEL_SLOW_PATH lpel_task *bind_slow(lpel_stream *s, lpel_stream_mode mode, lpel_task *t)
{
    bool reading = mode == LPEL_STREAM_READ;
    _Atomic(lpel_task *) *end = reading ? &s->reader : &s->writer;
    _Atomic(uint64_t) *end_id = reading ? &s->reader_id : &s->writer_id;
    atomic_int *closed = reading ? &s->reader_closed : &s->writer_closed;
    if (atomic_load(closed))
        lpel_fatal("stream %llu: task '%s' (id %llu) uses the %s end after it was closed",
                   (unsigned long long)s->id, t->name, (unsigned long long)t->id,
                   mode_name(mode));
    if (atomic_load(end_id) != 0)
        lpel_fatal("stream %llu: the %s end belongs to task %llu; task '%s' (id %llu) may "
                   "not use it (one reader and one writer per stream)",
                   (unsigned long long)s->id, mode_name(mode),
                   (unsigned long long)atomic_load(end_id), t->name,
                   (unsigned long long)t->id);
    atomic_store(end_id, t->id);
    atomic_store(reading ? &s->reader_worker : &s->writer_worker, (int)t->worker->id);
    atomic_store(end, t);
    /* If the other end is bound to a task of this worker, the two never
     * run at once. A task of another worker binding concurrently leaves
     * the flag clear, which is always safe. */
    int other_worker = atomic_load(reading ? &s->writer_worker : &s->reader_worker);
    if (other_worker == (int)t->worker->id)
        atomic_store(&s->local, 1);
    LPEL_HOOK(t->worker, stream_open, &t->hook_data, t->id, s->id, mode);
    return t;
}

static inline lpel_task *bind_end(lpel_stream *s, lpel_stream_mode mode)
{
    lpel_task *t = lpel_current_task();
    if (lpel_unlikely(!t))
        lpel_fatal("stream %llu used outside a task", (unsigned long long)s->id);
    lpel_task *bound = atomic_load_explicit(mode == LPEL_STREAM_READ ? &s->reader : &s->writer,
                                            memory_order_relaxed);
    if (lpel_likely(bound == t))
        return t;
    return bind_slow(s, mode, t);
}

void lpel_stream_open(lpel_stream *s, lpel_stream_mode mode)
{
    bind_end(s, mode);
}

/* ---- waking the other side ---------------------------------------------- */

/* A stale waiting flag can lead here after the peer has closed its end
 * and ended. `waking` (set before the peer pointer is read) makes the
 * peer's close wait until we are done with its task (see close_end). */
static LPEL_SLOW_PATH void wake_peer(lpel_stream *s, lpel_task *self, _Atomic(lpel_task *) *peer_end,
                      atomic_int *waiting, atomic_int *waking, bool local)
{
    /* A peer on our own worker cannot be closing while we run. */
    if (!local)
        atomic_store(waking, 1);
    lpel_task *peer = atomic_load_explicit(peer_end, local ? memory_order_relaxed
                                                           : memory_order_seq_cst);
    /* The token is always taken with an exchange: a waker on another
     * worker that saw a stale flag of another stream may try too. */
    if (peer && atomic_load_explicit(&peer->wake_token, memory_order_relaxed) &&
        atomic_exchange(&peer->wake_token, 0) == 1) {
        LPEL_HOOK(self->worker, stream_wake, &self->hook_data, self->id, s->id, peer->id,
                  peer->worker == self->worker);
        lpel_task_wake(peer);
    }
    if (local) {
        /* The peer does not run while we do: it is ready now (woken by us
         * or by another waker), and it announces itself again before it
         * next blocks. Clearing the flag spares every further item of this
         * burst a call here: the flag used to stay set until the peer ran,
         * so a writer filling a stream of 16 called this ~16 times per
         * wake-up (~22 instructions per item and stage on a one-worker
         * pipe, measured with callgrind). */
        atomic_store_explicit(waiting, 0, memory_order_relaxed);
    } else {
        atomic_store_explicit(waking, 0, memory_order_release);
    }
    (void)self, (void)s;
}

/* Publish a new value of our counter (tail for the writer, head for the
 * reader), then look whether the peer waits. Across workers both are
 * sequentially consistent, pairing with the seq_cst announce-and-recheck
 * of the blocking side: one of the two always sees the other. Within one
 * worker, plain release/relaxed suffices. */
static inline void publish_and_wake(lpel_stream *s, lpel_task *self, atomic_size_t *counter,
                                    size_t value, atomic_int *waiting,
                                    _Atomic(lpel_task *) *peer_end, atomic_int *waking)
{
    int peer_waits;
    bool local = atomic_load_explicit(&s->local, memory_order_relaxed);
    if (local) {
        atomic_store_explicit(counter, value, memory_order_release);
        peer_waits = atomic_load_explicit(waiting, memory_order_relaxed);
    } else {
        atomic_store(counter, value);
        peer_waits = atomic_load(waiting);
    }
    if (lpel_unlikely(peer_waits))
        wake_peer(s, self, peer_end, waiting, waking, local);
}

/* Unbind a closed end; then wait until the other side is no longer in the
 * middle of waking this task, so the task may be freed after we return. */
static void close_end(_Atomic(lpel_task *) *end, atomic_int *peer_waking)
{
    atomic_store(end, NULL); /* seq_cst: ordered before the check below */
    while (atomic_load(peer_waking))
        lpel_cpu_relax();
}

/* ---- blocking ----------------------------------------------------------- */

/* Announce that t waits (flag), then re-check with cond. Returns true if
 * the condition already holds and t may go on without blocking. */
static bool announce_and_recheck(lpel_task *t, atomic_int *waiting, bool (*cond)(lpel_stream *),
                                 lpel_stream *s)
{
    /* Release: whoever takes the token also sees everything this
     * worker did to the task before (e.g. its last mailbox hand-off). */
    atomic_store_explicit(&t->wake_token, 1, memory_order_release);
    if (atomic_load_explicit(&s->local, memory_order_relaxed)) {
        /* The peer runs on this worker, so not now: nothing can change. */
        atomic_store_explicit(waiting, 1, memory_order_relaxed);
        return false;
    }
    atomic_store(waiting, 1); /* seq_cst: ordered before the re-check */
    if (!cond(s))
        return false;
    atomic_store_explicit(waiting, 0, memory_order_relaxed);
    /* If a waker took the token first, its wake-up is on the way and must
     * be absorbed by blocking once. */
    return atomic_exchange(&t->wake_token, 0) == 1;
}

static void block_on(lpel_task *t, lpel_stream *s, lpel_block_cause cause)
{
    LPEL_HOOK(t->worker, stream_block, &t->hook_data, t->id, s->id, cause == LPEL_BLOCK_INPUT);
    t->block_cause = cause;
    t->blocked_on = s;
    lpel_task_block_current(t);
    t->blocked_on = NULL;
}

static bool has_data(lpel_stream *s)
{
    return atomic_load(&s->tail) != atomic_load_explicit(&s->head, memory_order_relaxed);
}

static bool has_room(lpel_stream *s)
{
    return atomic_load_explicit(&s->tail, memory_order_relaxed) - atomic_load(&s->head) <
           s->capacity;
}

/* Block until the stream has data; false if the run started unwinding. */
static LPEL_SLOW_PATH bool wait_for_data(lpel_stream *s, lpel_task *t)
{
    for (;;) {
        if (!announce_and_recheck(t, &s->reader_waiting, has_data, s)) {
            block_on(t, s, LPEL_BLOCK_INPUT);
            atomic_store_explicit(&s->reader_waiting, 0, memory_order_relaxed);
            if (lpel_unlikely(lpel_worker_unwinding()))
                return false;
        }
        s->tail_seen = atomic_load_explicit(&s->tail, memory_order_acquire);
        if (s->tail_seen != atomic_load_explicit(&s->head, memory_order_relaxed))
            return true;
    }
}

/* Block until the stream has room; false if the run started unwinding. */
static LPEL_SLOW_PATH bool wait_for_room(lpel_stream *s, lpel_task *t)
{
    for (;;) {
        if (!announce_and_recheck(t, &s->writer_waiting, has_room, s)) {
            block_on(t, s, LPEL_BLOCK_OUTPUT);
            atomic_store_explicit(&s->writer_waiting, 0, memory_order_relaxed);
            if (lpel_unlikely(lpel_worker_unwinding()))
                return false;
        }
        s->head_seen = atomic_load_explicit(&s->head, memory_order_acquire);
        if (atomic_load_explicit(&s->tail, memory_order_relaxed) - s->head_seen < s->capacity)
            return true;
    }
}

/* ---- writing ------------------------------------------------------------ */

static inline bool room_known(lpel_stream *s, size_t tail)
{
    if (tail - s->head_seen < s->capacity)
        return true;
    s->head_seen = atomic_load_explicit(&s->head, memory_order_acquire);
    return tail - s->head_seen < s->capacity;
}

static inline void publish(lpel_stream *s, lpel_task *t, size_t tail, void *item)
{
    s->slots[tail & s->mask] = item;
    publish_and_wake(s, t, &s->tail, tail + 1, &s->reader_waiting, &s->reader,
                     &s->waking_reader);
}

static _Noreturn LPEL_SLOW_PATH void write_misuse(lpel_stream *s, lpel_task *t, void *item)
{
    if (!item)
        lpel_fatal("stream %llu: task '%s' wrote NULL (items must not be NULL)",
                   (unsigned long long)s->id, t->name);
    lpel_fatal("stream %llu: task '%s' writes after the %s end was closed",
               (unsigned long long)s->id, t->name,
               atomic_load(&s->writer_closed) ? "writer" : "reader");
}

static inline lpel_task *writer_or_die(lpel_stream *s, void *item)
{
    lpel_task *t = bind_end(s, LPEL_STREAM_WRITE);
    if (lpel_unlikely(!item || atomic_load_explicit(&s->writer_closed, memory_order_relaxed) ||
                      atomic_load_explicit(&s->reader_closed, memory_order_relaxed)))
        write_misuse(s, t, item);
    return t;
}

void lpel_stream_write(lpel_stream *s, void *item)
{
    if (lpel_unlikely(lpel_worker_unwinding())) {
        discard(s, item);
        return;
    }
    lpel_task *t = writer_or_die(s, item);
    size_t tail = atomic_load_explicit(&s->tail, memory_order_relaxed);
    if (lpel_unlikely(!room_known(s, tail)) && !wait_for_room(s, t)) {
        discard(s, item);
        return;
    }
    LPEL_HOOK(t->worker, stream_write, &t->hook_data, t->id, s->id);
    publish(s, t, tail, item);
}

bool lpel_stream_try_write(lpel_stream *s, void *item)
{
    if (lpel_unlikely(lpel_worker_unwinding())) {
        discard(s, item);
        return true;
    }
    lpel_task *t = writer_or_die(s, item);
    size_t tail = atomic_load_explicit(&s->tail, memory_order_relaxed);
    if (!room_known(s, tail))
        return false;
    LPEL_HOOK(t->worker, stream_write, &t->hook_data, t->id, s->id);
    publish(s, t, tail, item);
    return true;
}

/* ---- reading ------------------------------------------------------------ */

static inline bool data_known(lpel_stream *s, size_t head)
{
    if (head != s->tail_seen)
        return true;
    s->tail_seen = atomic_load_explicit(&s->tail, memory_order_acquire);
    return head != s->tail_seen;
}

void *lpel_stream_read(lpel_stream *s)
{
    lpel_task *t = bind_end(s, LPEL_STREAM_READ);
    if (lpel_unlikely(s->at_end || lpel_worker_unwinding()))
        return NULL;
    size_t head = atomic_load_explicit(&s->head, memory_order_relaxed);
    if (lpel_unlikely(!data_known(s, head)) && !wait_for_data(s, t))
        return NULL;
    void *item = s->slots[head & s->mask];
    if (lpel_unlikely(item == END_OF_STREAM)) {
        s->at_end = true; /* left in place: later reads see it again */
        return NULL;
    }
    LPEL_HOOK(t->worker, stream_read, &t->hook_data, t->id, s->id);
    publish_and_wake(s, t, &s->head, head + 1, &s->writer_waiting, &s->writer,
                     &s->waking_writer);
    return item;
}

void *lpel_stream_peek(lpel_stream *s)
{
    bind_end(s, LPEL_STREAM_READ);
    if (s->at_end || lpel_worker_unwinding())
        return NULL;
    size_t head = atomic_load_explicit(&s->head, memory_order_relaxed);
    if (!data_known(s, head))
        return NULL;
    void *item = s->slots[head & s->mask];
    return item == END_OF_STREAM ? NULL : item;
}

void lpel_stream_prefetch_next(lpel_stream *s)
{
    /* Both ends on one worker: the item was written by this core. */
    if (atomic_load_explicit(&s->local, memory_order_relaxed))
        return;
    /* Reader-side fields only: the item at head is there if head is below
     * the tail this reader last saw (published with release, seen with
     * acquire), so no shared line is touched here. */
    size_t head = atomic_load_explicit(&s->head, memory_order_relaxed);
    if (head == s->tail_seen)
        return;
    void *item = s->slots[head & s->mask];
    if (item != END_OF_STREAM)
        __builtin_prefetch(item, 1, 3);
}

bool lpel_stream_at_end(lpel_stream *s)
{
    bind_end(s, LPEL_STREAM_READ);
    if (s->at_end || lpel_worker_unwinding())
        return true;
    size_t head = atomic_load_explicit(&s->head, memory_order_relaxed);
    if (!data_known(s, head))
        return false;
    if (s->slots[head & s->mask] == END_OF_STREAM)
        s->at_end = true;
    return s->at_end;
}

/* ---- closing ------------------------------------------------------------ */

void lpel_stream_close(lpel_stream *s, lpel_stream_mode mode)
{
    lpel_task *t = bind_end(s, mode);
    if (mode == LPEL_STREAM_WRITE) {
        if (atomic_load(&s->writer_closed))
            lpel_fatal("stream %llu: task '%s' closed the writer end twice",
                       (unsigned long long)s->id, t->name);
        /* Ends may close in any order; with the reader gone, nobody needs
         * the end-of-stream item. */
        bool reader_gone = atomic_load(&s->reader_closed);
        size_t tail = atomic_load_explicit(&s->tail, memory_order_relaxed);
        /* Unwinding: no waiting, and a reader sees the end anyway. */
        bool room = !reader_gone && !lpel_worker_unwinding() &&
                    (room_known(s, tail) || wait_for_room(s, t));
        atomic_store(&s->writer_closed, 1);
        LPEL_HOOK(t->worker, stream_close, &t->hook_data, t->id, s->id, mode);
        /* Publishing reads s->reader, not s->writer: safe after clearing. */
        close_end(&s->writer, &s->waking_writer);
        if (room)
            publish(s, t, tail, END_OF_STREAM);
    } else {
        atomic_store(&s->reader_closed, 1);
        LPEL_HOOK(t->worker, stream_close, &t->hook_data, t->id, s->id, mode);
        close_end(&s->reader, &s->waking_reader);
    }
    stream_release(s);
}

/* ---- poll --------------------------------------------------------------- */

static bool ready_for_reader(lpel_stream *s)
{
    return s->at_end || has_data(s);
}

static size_t find_ready(lpel_stream *const *streams, size_t n, size_t start)
{
    for (size_t k = 0; k < n; k++) {
        size_t i = (start + k) % n;
        if (ready_for_reader(streams[i]))
            return i;
    }
    return n;
}

/* Announcing (value 1) is sequentially consistent, like a one-stream
 * block: each flag is ordered before the re-check of all streams. */
static void set_waiting(lpel_stream *const *streams, size_t n, int value)
{
    for (size_t i = 0; i < n; i++) {
        if (value)
            atomic_store(&streams[i]->reader_waiting, value);
        else
            atomic_store_explicit(&streams[i]->reader_waiting, value, memory_order_relaxed);
    }
}

size_t lpel_stream_poll(lpel_stream *const *streams, size_t n, size_t start)
{
    lpel_task *t = self_or_die("lpel_stream_poll");
    if (n == 0)
        lpel_fatal("task '%s' polled an empty set of streams", t->name);
    for (size_t i = 0; i < n; i++)
        bind_end(streams[i], LPEL_STREAM_READ);
    start %= n;
    for (;;) {
        if (lpel_unlikely(lpel_worker_unwinding()))
            return start; /* its read sees end-of-stream */
        size_t i = find_ready(streams, n, start);
        if (i < n)
            return i;
        /* Release: whoever takes the token also sees everything this
     * worker did to the task before (e.g. its last mailbox hand-off). */
    atomic_store_explicit(&t->wake_token, 1, memory_order_release);
        set_waiting(streams, n, 1);
        i = find_ready(streams, n, start);
        if (i < n) {
            set_waiting(streams, n, 0);
            if (atomic_exchange(&t->wake_token, 0) == 1)
                return i;
            /* else a wake-up is on its way: absorb it below */
        }
        for (size_t k = 0; k < n; k++)
            LPEL_HOOK(t->worker, stream_block, &t->hook_data, t->id, streams[k]->id, true);
        t->block_cause = LPEL_BLOCK_ANY;
        t->poll_set = streams;
        t->poll_count = n;
        lpel_task_block_current(t);
        t->poll_set = NULL;
        t->poll_count = 0;
        set_waiting(streams, n, 0);
    }
}
