/*
 * lpel_internal.h - the runtime's own structures, shared by its .c files.
 *
 * Ownership rules that make most of the runtime lock-free:
 *   - a task belongs to one worker for its whole life; only that worker
 *     runs it, queues it and frees it;
 *   - other threads reach a worker only through its mailbox (new tasks,
 *     wake-ups), a lock-free multi-producer single-consumer list;
 *   - a stream's reader end is touched only by its reader task, the writer
 *     end only by its writer task, and the two meet in a few atomics.
 * Only idle transitions (a worker going to sleep) take a runtime-wide lock,
 * which is also what makes deadlock detection exact.
 */
#ifndef LPEL_INTERNAL_H
#define LPEL_INTERNAL_H

#include "lpel.h"
#include "ctx.h"

#include <atomic_ops.h>
#include <hwloc.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>

#ifndef LPEL_HOOKS_ENABLED
#define LPEL_HOOKS_ENABLED 1
#endif

#if defined(__SANITIZE_ADDRESS__)
#define LPEL_ASAN 1
#else
#define LPEL_ASAN 0
#endif
#if defined(__SANITIZE_THREAD__)
#define LPEL_TSAN 1
#else
#define LPEL_TSAN 0
#endif

#define LPEL_CACHE_LINE 64
#define lpel_likely(x) __builtin_expect(!!(x), 1)
#define lpel_unlikely(x) __builtin_expect(!!(x), 0)
/* A function off the hot path (blocking, waking, misuse): kept out of line
 * so that the hot path that calls it keeps its registers, and its stack
 * frame, small. On a 1-worker pipe this took a stream operation from ~55
 * to ~45 instructions (callgrind), the raw pipe from 152 to 135 per stage. */
#define LPEL_SLOW_PATH __attribute__((noinline))

/* Call hook `name` of worker w if one is installed. With hooks compiled
 * out the call and its argument evaluation disappear. */
#if LPEL_HOOKS_ENABLED
#define LPEL_HOOK(w, name, ...)                                                \
    do {                                                                       \
        if (lpel_unlikely((w)->hooks.name != NULL))                            \
            (w)->hooks.name((w)->hook_ctx, __VA_ARGS__);                       \
    } while (0)
#define LPEL_HOOK0(w, name)                                                    \
    do {                                                                       \
        if (lpel_unlikely((w)->hooks.name != NULL))                            \
            (w)->hooks.name((w)->hook_ctx);                                    \
    } while (0)
#else
#define LPEL_HOOK(w, name, ...) ((void)0)
#define LPEL_HOOK0(w, name) ((void)0)
#endif

/* Politeness inside a spin loop. */
#if defined(__x86_64__) || defined(__i386__)
#define lpel_cpu_relax() __builtin_ia32_pause()
#else
#define lpel_cpu_relax() ((void)0)
#endif

typedef struct lpel_worker lpel_worker;

/* ---- stacks (stack.c) --------------------------------------------------- */

/*
 * Task stacks are slots carved from large per-worker mappings ("slabs"),
 * one slab per size class (powers of two), so a million started tasks cost
 * a few thousand memory mappings, not two million (vm.max_map_count is
 * 65,530 by default). Below each stack lies one page: its own PROT_NONE
 * guard page while that is cheap (each costs two mappings; a quarter of
 * vm.max_map_count is spent on them), otherwise slack. Beyond that page
 * lie the top of the stack below and its "fence", a zero cache line at the
 * very top of every slot that no task uses. An overflow past the page
 * (which would corrupt the stack below) is caught:
 *   - at once by the guard page, if the stack has one;
 *   - when the task next switches away (blocks, yields, ends): its stack
 *     pointer must be above the fence, and the fence must still be zero;
 *   - if it keeps going, by the guard region at the bottom of every slab,
 *     whose fault the SIGSEGV handler attributes to the task.
 * The stacks below belong to the same worker, so none of them runs before
 * the overflowing task switches away. Each check ends the process with a
 * message naming the task.
 */
typedef struct lpel_stack_slab lpel_stack_slab;

/* The fence is zero: it costs nothing to set up, its page is in use anyway
 * (it is the top of the stack below), and an overflow almost never writes
 * only zeros over a whole line. */
#define LPEL_STACK_FENCE_BYTES ((size_t)LPEL_CACHE_LINE)
/* Stack tops are staggered by up to this many cache lines (task.c), which
 * with the fence leaves half of the smallest page for a blocked task's
 * frames. */
#define LPEL_STACK_COLOURS 32
/* Smallest and largest stack sizes (size classes are powers of two). */
#define LPEL_STACK_MIN_SIZE ((size_t)16 * 1024)
#define LPEL_STACK_MAX_SIZE ((size_t)1 << 30)
#define LPEL_STACK_CLASSES 17 /* 16 KiB .. 1 GiB */

typedef struct lpel_stack {
    const void *fence;     /* the fence the overflow of this stack hits first */
    void *lo;              /* lowest byte of the stack */
    size_t size;           /* bytes from lo, this slot's own fence included */
    lpel_stack_slab *slab; /* NULL while the task has no stack */
    uint32_t slot;
} lpel_stack;

/* One worker's slabs, by size class. Only that worker touches it. */
typedef struct lpel_stack_pool {
    lpel_stack_slab *available[LPEL_STACK_CLASSES]; /* slabs with a free slot */
    lpel_runtime *rt;
} lpel_stack_pool;

void lpel_stack_pool_init(lpel_stack_pool *pool, lpel_runtime *rt);
/* Unmaps every slab: call when every task has given its stack back. */
void lpel_stack_pool_destroy(lpel_stack_pool *pool);
/* A stack of at least size bytes (<= LPEL_STACK_MAX_SIZE) for a task. */
int lpel_stack_take(lpel_stack_pool *pool, lpel_stack *st, size_t size);
void lpel_stack_give_back(lpel_stack_pool *pool, lpel_stack *st);
/* How many stacks may get their own guard page, from vm.max_map_count. */
long lpel_stack_guard_budget(void);
size_t lpel_page_size(void);
/* Install the SIGSEGV handler (once per process) and give the calling
 * worker thread an alternate signal stack to run it on. */
int lpel_stack_overflow_guard_start(lpel_worker *w);
void lpel_stack_overflow_guard_stop(lpel_worker *w);
/* Print "lpel: stack overflow in task ..." and end the process. */
_Noreturn void lpel_stack_overflow(lpel_worker *w, lpel_task *t);

/* ---- tasks (task.c) ----------------------------------------------------- */

typedef enum lpel_task_state {
    LPEL_TASK_NEW,     /* created, not yet adopted by its worker */
    LPEL_TASK_READY,   /* in its worker's ready queue (or about to be) */
    LPEL_TASK_RUNNING,
    LPEL_TASK_BLOCKED, /* waiting for a stream; a wake-up makes it ready */
    LPEL_TASK_ZOMBIE   /* finished; its worker frees it */
} lpel_task_state;

/* Why a task sits in a mailbox. */
typedef enum lpel_mail_kind { LPEL_MAIL_NEW, LPEL_MAIL_WAKE } lpel_mail_kind;

struct lpel_task {
    /* First cache line (tasks are cache-line aligned): what every switch,
     * block and wake touches. */
    void *queue_link;        /* owned by the scheduling policy */
    lpel_ctx ctx;
    lpel_worker *worker;
    lpel_task_state state;
    /* 1 while the task is blocked and nobody has claimed the right to wake
     * it; a waker takes it with an exchange, so exactly one wake-up is sent
     * per block however many streams the task waits on. */
    atomic_int wake_token;
    lpel_block_cause block_cause;
    lpel_stream *blocked_on;           /* for one-stream blocks */
    void *hook_data;
    lpel_stack stack;        /* fence is checked on every switch; slab is
                                NULL until the task first runs */

    /* Colder: creation, polls, the end of the task's life. */
    size_t stack_request;
    lpel_runtime *rt;
    uint64_t id;
    char *name;
    lpel_task_fn fn;
    void *arg;
    lpel_stream *const *poll_set;      /* for blocked-by-any */
    size_t poll_count;
    lpel_event *blocked_event;         /* set while waiting for an event */
    struct lpel_task *mail_next;       /* mailbox link */
    lpel_mail_kind mail_kind;
    struct lpel_task *live_prev, *live_next; /* the worker's live tasks */
#if LPEL_ASAN
    void *asan_fake_stack;
#endif
#if LPEL_TSAN
    void *tsan_fiber;
#endif
};

#if !LPEL_CONTEXT_UCONTEXT
_Static_assert(offsetof(struct lpel_task, stack.fence) + sizeof(void *) <= LPEL_CACHE_LINE,
               "the fields a switch touches fit in the task's first cache line");
#endif

/* True if a fence line is no longer zero. Not instrumented: after an
 * overflow, AddressSanitizer may see the line as some frame's redzone, and
 * reporting the overflow is our job. */
__attribute__((no_sanitize_address)) static inline bool
lpel_stack_fence_damaged(const void *fence)
{
    const uint64_t *line = fence;
    uint64_t any = 0;
    for (size_t i = 0; i < LPEL_STACK_FENCE_BYTES / sizeof *line; i++)
        any |= line[i];
    return any != 0;
}

/* The overflow check made whenever task t gives up its worker w (see the
 * stacks section above): the stack pointer is above the fence below the
 * stack, and the fence is intact. */
static inline void lpel_stack_check(lpel_worker *w, lpel_task *t)
{
    const char *fence = t->stack.fence;
    const char *sp = __builtin_frame_address(0);
    if (lpel_unlikely(sp < fence + LPEL_STACK_FENCE_BYTES || lpel_stack_fence_damaged(fence)))
        lpel_stack_overflow(w, t);
}

/* Adopt a task that was placed on the calling worker (mailbox or direct). */
void lpel_task_adopt(lpel_worker *w, lpel_task *t);
/* Free a finished task (on its worker). */
void lpel_task_destroy(lpel_worker *w, lpel_task *t);
/* Free a task that never finished (after a deadlock), no hooks. */
void lpel_task_discard(lpel_worker *w, lpel_task *t);
/* Make a blocked task ready again; callable from any worker. */
void lpel_task_wake(lpel_task *t);
/* Block the calling task (state BLOCKED) and run the scheduler until a
 * wake-up makes it ready again. */
void lpel_task_block_current(lpel_task *t);
/* Switch from the scheduler into task t; returns when a task of this
 * worker (w->current) switches back to the scheduler. */
void lpel_task_run(lpel_worker *w, lpel_task *t);

/* ---- mailbox (mailbox.c) ------------------------------------------------ */

typedef struct lpel_mailbox {
    volatile AO_t head; /* lpel_task*, newest first */
} lpel_mailbox;

/* Returns true if the mailbox was empty before the push. */
bool lpel_mailbox_push(lpel_mailbox *mb, lpel_task *t);
/* Take everything, oldest first; NULL if empty. */
lpel_task *lpel_mailbox_take_all(lpel_mailbox *mb);
/* Inline: every switch between tasks looks (see task_switch_away). */
static inline bool lpel_mailbox_is_empty(const lpel_mailbox *mb)
{
    return AO_load_acquire((volatile AO_t *)&mb->head) == 0;
}

/* ---- workers (worker.c) ------------------------------------------------- */

struct lpel_worker {
    /* Hot, touched only by this worker. */
    _Alignas(LPEL_CACHE_LINE) lpel_runtime *rt;
    unsigned id;
    lpel_task *current;
    atomic_bool unwinding;            /* set once, by the deadlock finder */
    lpel_ctx sched_ctx;
    lpel_task *fifo_head, *fifo_tail; /* default ready queue */
    void *policy_queue;               /* a pluggable policy's queue */
    lpel_hooks hooks;                 /* a copy: one less indirection */
    void *hook_ctx;
    lpel_task *live_tasks;            /* tasks owned by this worker */
    size_t live_count;
    lpel_stack_pool stacks;
    void *altstack;
    size_t altstack_size;
#if LPEL_ASAN
    const void *sched_stack_bottom;
    size_t sched_stack_size;
#endif
#if LPEL_TSAN
    void *tsan_sched_fiber;
#endif
    pthread_t thread;
    bool thread_started;

    /* Touched by other threads. */
    _Alignas(LPEL_CACHE_LINE) lpel_mailbox mailbox;
    /* 1 while the worker is about to sleep or sleeps on `wakeup`; whoever
     * changes it to 0 (a poster, or the terminator) posts `wakeup` once. */
    atomic_int sleeping;
    sem_t wakeup;
};

/* The worker running on this thread (NULL on other threads): the one
 * piece of per-thread state, read on every stream operation, so inline. */
extern _Thread_local lpel_worker *lpel_this_worker;
static inline lpel_worker *lpel_worker_self(void) { return lpel_this_worker; }
static inline lpel_task *lpel_current_task(void)
{
    lpel_worker *w = lpel_this_worker;
    return w ? w->current : NULL;
}
/* Is the calling worker's run unwinding after a deadlock? (A worker's hot
 * line: cheap enough for every stream operation.) */
static inline bool lpel_worker_unwinding(void)
{
    lpel_worker *w = lpel_this_worker;
    return w && atomic_load_explicit(&w->unwinding, memory_order_relaxed);
}
/* Deliver a task to worker w's mailbox and wake w if it sleeps. */
void lpel_worker_post(lpel_worker *w, lpel_task *t, lpel_mail_kind kind);
/* Wake w if it sleeps (or is about to): for new mail or termination. */
void lpel_worker_wake(lpel_worker *w);
void *lpel_worker_main(void *arg);
/* The scheduler side of a switch: back from the running task to w. */
void lpel_worker_switch_to_scheduler(lpel_worker *w, lpel_task *t, bool dying);

/* ---- runtime (runtime.c) ------------------------------------------------ */

struct lpel_runtime {
    lpel_config config;
    lpel_hooks hooks;
    unsigned num_workers;
    lpel_worker *workers;
    hwloc_topology_t topology;
    unsigned num_cores;
    int run_state; /* 0 created, 1 running, 2 finished */

    _Alignas(LPEL_CACHE_LINE) atomic_uint_fast64_t next_task_id;
    atomic_uint_fast64_t next_stream_id;
    atomic_uint round_robin_next;
    _Alignas(LPEL_CACHE_LINE) atomic_long live_tasks;
    atomic_int terminate;
    atomic_long stack_guards_left; /* guard pages stacks may still get */

    /* Idle transitions: a worker going to sleep counts itself here, under
     * the lock; the last one to do so while tasks are alive and every
     * mailbox is empty has found a deadlock. */
    pthread_mutex_t idle_lock;
    unsigned idle_workers;
    bool deadlocked;
    long deadlocked_tasks; /* live tasks when the deadlock was found */
    /* Tasks blocked in lpel_event_wait: while there are any, every task
     * blocked is not a deadlock LPEL can see (event.c). */
    atomic_long event_waits;
    /* lpel_runtime_set_idle_poll (worker.c), fixed once the run starts. */
    lpel_idle_poll_fn idle_poll;
    void *idle_poll_arg;
    long idle_poll_ns;
    atomic_int idle_polling; /* 1 while a worker polls */

    char error[256];
};

/* ---- the ready queue (inline: each block, wake and switch on one worker
 * passes here; out of line the calls were ~20 instructions of a 360-
 * instruction ring hop, callgrind) ---------------------------------------- */

/* Start loading what running t touches first: the top of its stack, from
 * the frame its switch pops (saved registers, 64 bytes from its saved
 * stack pointer) up through the frames it returns through (5 lines: a
 * block in a stream operation returns through ~280 bytes of frames), and
 * the fence its next switch away checks. A task made ready now runs after
 * the tasks queued before it; with thousands of tasks these lines have left
 * the caches by then, and a switch into it waited for each miss in turn
 * (and the page walk: every stack is on its own pages). Ring of 10,000
 * tasks on one worker, CPU time per hop: -7 % with the first 2 lines
 * (median of 8 per-run ratios, interleaved with the build without it);
 * 5 lines with the stack check on the task's first line (prepare_dispatch):
 * -13 %, 10^5 tasks -10 %; 1,000 tasks: no change. Prefetching also the
 * stream line the task blocked on, and the stream and reader task of its
 * last write (hints kept in the task), made 10^5 tasks 6-9 % slower: the
 * core overlaps those misses itself. Always inlined: GCC 12 takes a
 * function of prefetches alone for a pure one and drops the calls it has
 * not inlined early (all of them, once the function had 9 prefetches). */
static inline __attribute__((always_inline)) void lpel_task_prefetch_frame(const lpel_task *t)
{
#if !LPEL_CONTEXT_UCONTEXT
    const char *sp = t->ctx.sp;
    for (int i = 0; i < 5; i++)
        __builtin_prefetch(sp + 64 * i, 1, 3);
    /* and the fence its next switch away checks */
    __builtin_prefetch(t->stack.fence, 0, 3);
#else
    (void)t;
#endif
}

/* Queue t on w (FIFO, unless a scheduling policy is installed). */
static inline void lpel_worker_ready_push(lpel_worker *w, lpel_task *t)
{
    if (lpel_unlikely(w->policy_queue != NULL)) {
        w->rt->config.scheduling->push(w->policy_queue, t);
        return;
    }
    t->queue_link = NULL;
    if (w->fifo_tail)
        ((lpel_task *)w->fifo_tail)->queue_link = t;
    else
        w->fifo_head = t;
    w->fifo_tail = t;
}

/* The next ready task of w, or NULL. */
static inline lpel_task *lpel_worker_ready_pop(lpel_worker *w)
{
    if (lpel_unlikely(w->policy_queue != NULL))
        return w->rt->config.scheduling->pop(w->policy_queue);
    lpel_task *t = w->fifo_head;
    if (t) {
        w->fifo_head = t->queue_link;
        if (!w->fifo_head)
            w->fifo_tail = NULL;
    }
    return t;
}

void lpel_runtime_set_error(lpel_runtime *rt, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Print the waiting relation of every live task (all workers are idle). */
void lpel_deadlock_report(lpel_runtime *rt, FILE *out);
/* Mark every worker unwinding and wake every blocked task (all workers
 * are idle; called under the idle lock). */
void lpel_deadlock_unwind(lpel_runtime *rt);
/* True if every worker is idle and every mailbox empty (idle_lock held). */
bool lpel_runtime_all_idle(lpel_runtime *rt);
/* What a task blocked in lpel_event_wait waits for (event.c). */
const char *lpel_event_what(const lpel_event *e);
/* Stop the run: every worker leaves its loop. */
void lpel_runtime_terminate(lpel_runtime *rt);

/* Fatal misuse: print "lpel: ..." and abort. */
_Noreturn void lpel_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- streams (stream.c) ------------------------------------------------- */

/* Hand an item to config.discard_item, if there is one. */
void lpel_discard_item(lpel_runtime *rt, void *item);
/* Used by the deadlock report. */
bool lpel_stream_is_empty_now(const lpel_stream *s);
uint64_t lpel_stream_reader_id(const lpel_stream *s);
uint64_t lpel_stream_writer_id(const lpel_stream *s);

#endif
