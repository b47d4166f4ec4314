/*
 * stream.c - bounded single-reader single-writer streams, and poll.
 *
 * The buffer is a ring indexed by two counters: head (advanced only by the
 * reader) and tail (advanced only by the writer). Each end has a cache line
 * of its own (stream_end) with everything an operation at that end touches
 * but the slot: its counter, its cached copy of the other end's counter
 * (so it reads the other end's line only when that view says empty or
 * full), and copies of what both ends read (the task to wake at the other
 * end, the slot mask, `local`), written when the ends are bound. A read or
 * write so touches two lines, and a hop from task to task through a stream
 * three (the writer's line and the slot, then the reader's line): with
 * 10^4-10^5 tasks on a worker every line of a hop comes from far away
 * (docs/BENCHMARKS.md, issue 28).
 *
 * Blocking. A reader that finds the stream empty announces itself (the
 * `peer_waiting` flag in the writer's line, which every write looks at
 * anyway and which the reader writes only when it blocks), re-checks, and
 * blocks; a writer that publishes an item looks at the flag and, if set,
 * wakes the reader. A writer that finds the stream full does the mirror
 * image in the reader's line. Announce-then-
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

/* One end's cache line (see the top of the file). "Peer" is the other end. */
typedef struct stream_end {
    _Atomic(lpel_task *) self; /* the task bound to this end */
    _Atomic(lpel_task *) peer; /* the task bound to the other end: whom we wake */
    atomic_size_t count;       /* head (reader) or tail (writer) */
    size_t seen;               /* our last view of the other end's counter */
    uint32_t capacity;         /* items (the writer's room check) */
    uint32_t mask;             /* slots - 1 */
    atomic_int local;          /* both ends on one worker (see above) */
    atomic_int peer_waiting;   /* the peer announced it blocks on us (set by it) */
    atomic_int waking;         /* we are inside a wake of the peer */
    atomic_int closed;         /* this end is closed */
    atomic_int peer_closed;    /* the other end is closed (set by it) */
    bool at_end;               /* reader: end-of-stream read */
} stream_end;

struct lpel_stream {
    _Alignas(LPEL_CACHE_LINE) stream_end w; /* the writer's line */
    _Alignas(LPEL_CACHE_LINE) stream_end r; /* the reader's line */

    /* Cold: identity, binding, lifetime. */
    _Alignas(LPEL_CACHE_LINE) lpel_runtime *rt;
    void (*discard_item)(void *item); /* config.discard_item, kept here:
                                         a stream may outlive its runtime */
    uint64_t id;
    _Atomic uint64_t reader_id;
    _Atomic uint64_t writer_id;
    atomic_int reader_worker; /* -1 while unbound */
    atomic_int writer_worker;
    atomic_int refs;

    /* The ring itself, in the same allocation: one less pointer to chase
     * and one less cache miss per operation. */
    _Alignas(LPEL_CACHE_LINE) void *slots[];
};

_Static_assert(sizeof(stream_end) <= LPEL_CACHE_LINE, "an end's fields fit its cache line");

/* Capacities and slot counts fit the ends' 32-bit fields. */
#define STREAM_MAX_SLOTS ((size_t)1 << 31)

static inline stream_end *end_of(lpel_stream *s, lpel_stream_mode mode)
{
    return mode == LPEL_STREAM_READ ? &s->r : &s->w;
}

static inline stream_end *other_end(lpel_stream *s, lpel_stream_mode mode)
{
    return mode == LPEL_STREAM_READ ? &s->w : &s->r;
}

/* The end-of-stream item: only its address matters. */
static const char end_of_stream_marker;
#define END_OF_STREAM ((void *)&end_of_stream_marker)

uint64_t lpel_stream_id(const lpel_stream *s) { return s->id; }
size_t lpel_stream_capacity(const lpel_stream *s) { return s->w.capacity; }
lpel_task *lpel_stream_reader(const lpel_stream *s) { return atomic_load(&((lpel_stream *)s)->r.self); }
lpel_task *lpel_stream_writer(const lpel_stream *s) { return atomic_load(&((lpel_stream *)s)->w.self); }
uint64_t lpel_stream_reader_id(const lpel_stream *s) { return atomic_load(&((lpel_stream *)s)->reader_id); }
uint64_t lpel_stream_writer_id(const lpel_stream *s) { return atomic_load(&((lpel_stream *)s)->writer_id); }

size_t lpel_stream_count(const lpel_stream *s)
{
    lpel_stream *m = (lpel_stream *)s;
    return atomic_load(&m->w.count) - atomic_load(&m->r.count);
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
    if (capacity > STREAM_MAX_SLOTS)
        return NULL;
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
    s->w.capacity = s->r.capacity = (uint32_t)capacity;
    s->w.mask = s->r.mask = (uint32_t)(slots - 1);
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
    size_t tail = atomic_load(&s->w.count);
    for (size_t head = atomic_load(&s->r.count); head != tail; head++)
        discard(s, s->slots[head & s->r.mask]);
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
    stream_end *mine = end_of(s, mode), *other = other_end(s, mode);
    _Atomic(uint64_t) *end_id = reading ? &s->reader_id : &s->writer_id;
    if (atomic_load(&mine->closed))
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
    atomic_store(&other->peer, t);
    atomic_store(&mine->self, t);
    /* If the other end is bound to a task of this worker, the two never
     * run at once. A task of another worker binding concurrently leaves
     * the flag clear, which is always safe. */
    int other_worker = atomic_load(reading ? &s->writer_worker : &s->reader_worker);
    if (other_worker == (int)t->worker->id) {
        atomic_store(&s->w.local, 1);
        atomic_store(&s->r.local, 1);
    }
    LPEL_HOOK(t->worker, stream_open, &t->hook_data, t->id, s->id, mode);
    return t;
}

static inline lpel_task *bind_end(lpel_stream *s, lpel_stream_mode mode)
{
    lpel_task *t = lpel_current_task();
    if (lpel_unlikely(!t))
        lpel_fatal("stream %llu used outside a task", (unsigned long long)s->id);
    lpel_task *bound = atomic_load_explicit(&end_of(s, mode)->self, memory_order_relaxed);
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
static inline void publish_and_wake(lpel_stream *s, lpel_task *self, stream_end *mine,
                                    size_t value)
{
    int peer_waits;
    bool local = atomic_load_explicit(&mine->local, memory_order_relaxed);
    if (local) {
        atomic_store_explicit(&mine->count, value, memory_order_release);
        peer_waits = atomic_load_explicit(&mine->peer_waiting, memory_order_relaxed);
    } else {
        atomic_store(&mine->count, value);
        peer_waits = atomic_load(&mine->peer_waiting);
    }
    if (lpel_unlikely(peer_waits))
        wake_peer(s, self, &mine->peer, &mine->peer_waiting, &mine->waking, local);
}

/* Close our end: unbind it (in our line and in the other end's copy);
 * then wait until the other end is no longer in the middle of waking our
 * task, so the task may be freed after we return. */
static void close_end(stream_end *mine, stream_end *other)
{
    atomic_store(&mine->closed, 1);
    atomic_store(&other->peer_closed, 1);
    atomic_store(&mine->self, NULL);
    atomic_store(&other->peer, NULL); /* seq_cst: ordered before the check below */
    while (atomic_load(&other->waking))
        lpel_cpu_relax();
}

/* ---- blocking ----------------------------------------------------------- */

/* Announce that t waits (flag), then re-check with cond. Returns true if
 * the condition already holds and t may go on without blocking. */
static bool announce_and_recheck(lpel_task *t, stream_end *mine, atomic_int *waiting,
                                 bool (*cond)(lpel_stream *), lpel_stream *s)
{
    /* Release: whoever takes the token also sees everything this
     * worker did to the task before (e.g. its last mailbox hand-off). */
    atomic_store_explicit(&t->wake_token, 1, memory_order_release);
    if (atomic_load_explicit(&mine->local, memory_order_relaxed)) {
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
    return atomic_load(&s->w.count) != atomic_load_explicit(&s->r.count, memory_order_relaxed);
}

static bool has_room(lpel_stream *s)
{
    return atomic_load_explicit(&s->w.count, memory_order_relaxed) - atomic_load(&s->r.count) <
           s->w.capacity;
}

/* Block until the stream has data; false if the run started unwinding. */
static LPEL_SLOW_PATH bool wait_for_data(lpel_stream *s, lpel_task *t)
{
    for (;;) {
        if (!announce_and_recheck(t, &s->r, &s->w.peer_waiting, has_data, s)) {
            block_on(t, s, LPEL_BLOCK_INPUT);
            atomic_store_explicit(&s->w.peer_waiting, 0, memory_order_relaxed);
            if (lpel_unlikely(lpel_worker_unwinding()))
                return false;
        }
        s->r.seen = atomic_load_explicit(&s->w.count, memory_order_acquire);
        if (s->r.seen != atomic_load_explicit(&s->r.count, memory_order_relaxed))
            return true;
    }
}

/* Block until the stream has room; false if the run started unwinding. */
static LPEL_SLOW_PATH bool wait_for_room(lpel_stream *s, lpel_task *t)
{
    for (;;) {
        if (!announce_and_recheck(t, &s->w, &s->r.peer_waiting, has_room, s)) {
            block_on(t, s, LPEL_BLOCK_OUTPUT);
            atomic_store_explicit(&s->r.peer_waiting, 0, memory_order_relaxed);
            if (lpel_unlikely(lpel_worker_unwinding()))
                return false;
        }
        s->w.seen = atomic_load_explicit(&s->r.count, memory_order_acquire);
        if (atomic_load_explicit(&s->w.count, memory_order_relaxed) - s->w.seen < s->w.capacity)
            return true;
    }
}

/* ---- writing ------------------------------------------------------------ */

static inline bool room_known(lpel_stream *s, size_t tail)
{
    if (tail - s->w.seen < s->w.capacity)
        return true;
    s->w.seen = atomic_load_explicit(&s->r.count, memory_order_acquire);
    return tail - s->w.seen < s->w.capacity;
}

static inline void publish(lpel_stream *s, lpel_task *t, size_t tail, void *item)
{
    s->slots[tail & s->w.mask] = item;
    publish_and_wake(s, t, &s->w, tail + 1);
}

static _Noreturn LPEL_SLOW_PATH void write_misuse(lpel_stream *s, lpel_task *t, void *item)
{
    if (!item)
        lpel_fatal("stream %llu: task '%s' wrote NULL (items must not be NULL)",
                   (unsigned long long)s->id, t->name);
    lpel_fatal("stream %llu: task '%s' writes after the %s end was closed",
               (unsigned long long)s->id, t->name,
               atomic_load(&s->w.closed) ? "writer" : "reader");
}

static inline lpel_task *writer_or_die(lpel_stream *s, void *item)
{
    lpel_task *t = bind_end(s, LPEL_STREAM_WRITE);
    if (lpel_unlikely(!item || atomic_load_explicit(&s->w.closed, memory_order_relaxed) ||
                      atomic_load_explicit(&s->w.peer_closed, memory_order_relaxed)))
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
    size_t tail = atomic_load_explicit(&s->w.count, memory_order_relaxed);
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
    size_t tail = atomic_load_explicit(&s->w.count, memory_order_relaxed);
    if (!room_known(s, tail))
        return false;
    LPEL_HOOK(t->worker, stream_write, &t->hook_data, t->id, s->id);
    publish(s, t, tail, item);
    return true;
}

/* ---- reading ------------------------------------------------------------ */

static inline bool data_known(lpel_stream *s, size_t head)
{
    if (head != s->r.seen)
        return true;
    s->r.seen = atomic_load_explicit(&s->w.count, memory_order_acquire);
    return head != s->r.seen;
}

void *lpel_stream_read(lpel_stream *s)
{
    lpel_task *t = bind_end(s, LPEL_STREAM_READ);
    if (lpel_unlikely(s->r.at_end || lpel_worker_unwinding()))
        return NULL;
    size_t head = atomic_load_explicit(&s->r.count, memory_order_relaxed);
    if (lpel_unlikely(!data_known(s, head)) && !wait_for_data(s, t))
        return NULL;
    void *item = s->slots[head & s->r.mask];
    if (lpel_unlikely(item == END_OF_STREAM)) {
        s->r.at_end = true; /* left in place: later reads see it again */
        return NULL;
    }
    LPEL_HOOK(t->worker, stream_read, &t->hook_data, t->id, s->id);
    publish_and_wake(s, t, &s->r, head + 1);
    return item;
}

void *lpel_stream_peek(lpel_stream *s)
{
    bind_end(s, LPEL_STREAM_READ);
    if (s->r.at_end || lpel_worker_unwinding())
        return NULL;
    size_t head = atomic_load_explicit(&s->r.count, memory_order_relaxed);
    if (!data_known(s, head))
        return NULL;
    void *item = s->slots[head & s->r.mask];
    return item == END_OF_STREAM ? NULL : item;
}

void lpel_stream_prefetch_next(lpel_stream *s)
{
    /* Both ends on one worker: the item was written by this core. */
    if (atomic_load_explicit(&s->r.local, memory_order_relaxed))
        return;
    /* Reader-side fields only: the item at head is there if head is below
     * the tail this reader last saw (published with release, seen with
     * acquire), so no shared line is touched here. */
    size_t head = atomic_load_explicit(&s->r.count, memory_order_relaxed);
    if (head == s->r.seen)
        return;
    void *item = s->slots[head & s->r.mask];
    if (item != END_OF_STREAM)
        __builtin_prefetch(item, 1, 3);
}

bool lpel_stream_at_end(lpel_stream *s)
{
    bind_end(s, LPEL_STREAM_READ);
    if (s->r.at_end || lpel_worker_unwinding())
        return true;
    size_t head = atomic_load_explicit(&s->r.count, memory_order_relaxed);
    if (!data_known(s, head))
        return false;
    if (s->slots[head & s->r.mask] == END_OF_STREAM)
        s->r.at_end = true;
    return s->r.at_end;
}

/* ---- closing ------------------------------------------------------------ */

void lpel_stream_close(lpel_stream *s, lpel_stream_mode mode)
{
    lpel_task *t = bind_end(s, mode);
    if (mode == LPEL_STREAM_WRITE) {
        if (atomic_load(&s->w.closed))
            lpel_fatal("stream %llu: task '%s' closed the writer end twice",
                       (unsigned long long)s->id, t->name);
        /* Ends may close in any order; with the reader gone, nobody needs
         * the end-of-stream item. */
        bool reader_gone = atomic_load(&s->w.peer_closed);
        size_t tail = atomic_load_explicit(&s->w.count, memory_order_relaxed);
        /* Unwinding: no waiting, and a reader sees the end anyway. */
        bool room = !reader_gone && !lpel_worker_unwinding() &&
                    (room_known(s, tail) || wait_for_room(s, t));
        LPEL_HOOK(t->worker, stream_close, &t->hook_data, t->id, s->id, mode);
        /* Publishing wakes the reader through s->w.peer, which the close
         * leaves alone: safe after closing. */
        close_end(&s->w, &s->r);
        if (room)
            publish(s, t, tail, END_OF_STREAM);
    } else {
        LPEL_HOOK(t->worker, stream_close, &t->hook_data, t->id, s->id, mode);
        close_end(&s->r, &s->w);
    }
    stream_release(s);
}

/* ---- poll --------------------------------------------------------------- */

static bool ready_for_reader(lpel_stream *s)
{
    return s->r.at_end || has_data(s);
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
            atomic_store(&streams[i]->w.peer_waiting, value);
        else
            atomic_store_explicit(&streams[i]->w.peer_waiting, value, memory_order_relaxed);
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
