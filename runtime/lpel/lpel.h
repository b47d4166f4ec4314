/*
 * lpel.h - the public interface of LPEL, the user-level threading runtime.
 *
 * LPEL runs many user-level threads ("tasks") on a few kernel threads
 * ("workers", one per core, pinned). Tasks communicate only through bounded
 * single-reader single-writer streams: a read on an empty stream or a write
 * on a full one blocks the task, never the worker. A mapper places each task
 * on one worker when it is created; the task stays there, and each worker
 * schedules its own ready tasks.
 *
 * The runtime reports everything it does through one table of hook
 * functions (lpel_hooks), installed at creation. The monitoring framework
 * (monitor/) attaches there; with no table installed the runtime pays one
 * predictable branch per hook point (the hook's arguments are only computed
 * when it is installed), and building with LPEL_HOOKS_ENABLED=0 removes the
 * calls altogether.
 *
 * There is no global state: everything hangs off an lpel_runtime, and the
 * task or worker currently running is found through thread-local state.
 *
 * Errors are return codes (LPEL_OK, LPEL_E...) plus a message that
 * lpel_runtime_error() returns. Misuse that cannot be reported to a caller
 * (a stack overflow, a write to a stream its reader has closed) ends the
 * process with a one-line message naming the task.
 */
#ifndef LPEL_H
#define LPEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* LPEL_API marks the functions liblpel exports: the libraries are built with
 * hidden visibility (cmake/Library.cmake), so what this header marks is the
 * library's whole binary interface. */
#ifndef LPEL_API
#define LPEL_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lpel_runtime lpel_runtime;
typedef struct lpel_task lpel_task;
typedef struct lpel_stream lpel_stream;

/* Return codes. */
enum {
    LPEL_OK = 0,
    LPEL_EINVAL = -1,    /* a bad argument or configuration */
    LPEL_ENOMEM = -2,    /* an allocation or mmap failed */
    LPEL_ESYSTEM = -3,   /* a system call (pthread, hwloc) failed */
    LPEL_EDEADLOCK = -4, /* every live task blocked: the run was stopped */
    LPEL_ESTATE = -5     /* the call is not allowed now (e.g. run twice) */
};

/* Worker index meaning "let the mapper choose". */
#define LPEL_ANY_WORKER (-1)

/* ---------------------------------------------------------------------------
 * Policies
 * ------------------------------------------------------------------------- */

/* What the mapper knows about a task when it places it. */
typedef struct lpel_task_info {
    uint64_t id;
    const char *name;
    int hint;           /* the placement hint given at creation, or LPEL_ANY_WORKER */
    int creator_worker; /* worker of the creating task, -1 if not created by a task */
} lpel_task_info;

/* Placement policy: returns the worker (0..num_workers-1) for a new task.
 * Called on the creating thread, possibly from several workers at once, so
 * an implementation keeps its state thread-safe. The default is round-robin
 * over all workers; a hint >= 0 always wins over the policy. */
typedef struct lpel_placement_policy {
    int (*place)(void *state, const lpel_task_info *task, unsigned num_workers);
    void *state;
} lpel_placement_policy;

/* Scheduling policy: a worker-local ready queue. Each worker gets its own
 * queue from create(); push and pop are only ever called by that worker,
 * so no locking is needed. The default is FIFO. The queue links tasks
 * through the task itself (lpel_task_queue_link), so push never allocates. */
typedef struct lpel_sched_policy {
    void *(*create)(void *config, unsigned worker_id);
    void (*destroy)(void *queue);
    void (*push)(void *queue, lpel_task *task);
    lpel_task *(*pop)(void *queue); /* NULL if empty */
    void *config;
} lpel_sched_policy;

/* A pointer-sized slot inside each task reserved for the ready queue. */
LPEL_API void **lpel_task_queue_link(lpel_task *task);

/* ---------------------------------------------------------------------------
 * Hooks: the monitoring interface
 * ------------------------------------------------------------------------- */

typedef enum lpel_block_cause {
    LPEL_BLOCK_INPUT = 0,  /* read on an empty stream */
    LPEL_BLOCK_OUTPUT = 1, /* write on a full stream */
    LPEL_BLOCK_ANY = 2     /* poll on a set of streams, all empty */
} lpel_block_cause;

typedef enum lpel_stream_mode {
    LPEL_STREAM_READ = 'r',
    LPEL_STREAM_WRITE = 'w'
} lpel_stream_mode;

/*
 * The hook table. Every member may be NULL. All hooks run on a worker
 * thread; wctx is the per-worker context that worker_start returned for
 * that worker, so a hook needs neither locks nor thread-local lookups.
 *
 * Everything a hook needs comes in its arguments, so that no hook has to
 * call back into the runtime on the hot path: the task's id, its hook slot
 * (`slot` points at the task's one pointer for the hooks' own use: *slot is
 * what lpel_task_hook_data returns, and a hook may store into it), and
 * stream ids. Ids are the values lpel_task_id / lpel_stream_id return.
 *
 * Which worker runs which hook:
 *   - task_map, task_create, task_dispatch, task_block, task_yield,
 *     task_destroy: the task's own worker, always.
 *   - stream_*: the worker of the task that does the operation; for
 *     stream_wake, the worker of the waking task (the woken task may live
 *     on another worker, so only its id is given).
 * Hooks must not block and must not call back into LPEL.
 */
typedef struct lpel_hooks {
    void *ctx; /* given to worker_start */

    /* Worker events (WMO). worker_start returns the per-worker context;
     * num_workers is the runtime's worker count (each runtime starts each
     * of its workers once, so a monitor can tell runtimes apart). */
    void *(*worker_start)(void *ctx, unsigned worker_id, unsigned num_workers);
    void (*worker_wait)(void *wctx);   /* nothing ready: the worker sleeps */
    void (*worker_resume)(void *wctx); /* woken with work */
    void (*worker_end)(void *wctx);
    /* The worker takes the tasks posted to it from other threads (new
     * tasks, wake-ups by another worker) into its ready queue: they are
     * ready from now on, which may be after the last task's period ended
     * (an idle worker polls its mailbox before it sleeps), so a task
     * dispatched after this did not necessarily wait at that end. Also
     * when an idle poll (lpel_runtime_set_idle_poll) found work: a task
     * it woke is ready from then on. */
    void (*worker_mail)(void *wctx);

    /* Mapping (MMO): task `task`, named `name` (valid during the call), has
     * been placed on this worker. The first hook of every task. */
    void (*task_map)(void *wctx, void **slot, uint64_t task, const char *name,
                     unsigned worker_id);

    /* Scheduling events (SCMO). */
    void (*task_create)(void *wctx, void **slot, uint64_t task);
    void (*task_dispatch)(void *wctx, void **slot, uint64_t task);
    void (*task_block)(void *wctx, void **slot, uint64_t task, lpel_block_cause cause);
    void (*task_yield)(void *wctx, void **slot, uint64_t task);
    void (*task_destroy)(void *wctx, void **slot, uint64_t task);

    /* Stream events (SMO), reported by the task `task` that operates on
     * stream `stream`. stream_block fires once for each stream a task
     * blocks on (several for a poll), before task_block; empty is true
     * when the stream was empty, false when it was full. stream_wake fires
     * when task `task` makes task `woken` ready again by moving data
     * through the stream; `local`: `woken` lives on this worker too, so it
     * cannot run before `task`'s period ends (else another worker may run
     * it at once). */
    void (*stream_open)(void *wctx, void **slot, uint64_t task, uint64_t stream,
                        lpel_stream_mode mode);
    void (*stream_close)(void *wctx, void **slot, uint64_t task, uint64_t stream,
                         lpel_stream_mode mode);
    void (*stream_read)(void *wctx, void **slot, uint64_t task, uint64_t stream);
    void (*stream_write)(void *wctx, void **slot, uint64_t task, uint64_t stream);
    void (*stream_block)(void *wctx, void **slot, uint64_t task, uint64_t stream, bool empty);
    void (*stream_wake)(void *wctx, void **slot, uint64_t task, uint64_t stream, uint64_t woken,
                        bool local);

    /* The runtime has just reported a deadlock (every live task blocked):
     * called once, with ctx, on the thread that found it, with the
     * runtime's idle lock held, so it must only note it (a monitor asks
     * for its flight recorder's window). */
    void (*deadlock)(void *ctx);
} lpel_hooks;

/* ---------------------------------------------------------------------------
 * Runtime
 * ------------------------------------------------------------------------- */

typedef struct lpel_config {
    unsigned num_workers;       /* 0: one per core (from hwloc); more than the
                                   cores is allowed, with a warning on stderr
                                   unless LPEL_OVERSUBSCRIBE=1 is set */
    bool pin_workers;           /* pin worker i to core i mod cores (hwloc) */
    size_t default_stack_size;  /* bytes, 0: LPEL_DEFAULT_STACK_SIZE */
    /* Give task stacks their own guard page while that is cheap (each
     * costs two of the process's vm.max_map_count mappings; up to a
     * quarter of them are spent). false: overflows are caught only by the
     * checks on switching and the slab guards (see lpel_task_create). */
    bool stack_guard_pages;
    size_t default_stream_capacity; /* slots for lpel_stream_create(0) */
    unsigned idle_spin;         /* mailbox polls before an idle worker sleeps */
    const lpel_hooks *hooks;    /* NULL: no monitoring */
    const lpel_placement_policy *placement; /* NULL: round-robin */
    const lpel_sched_policy *scheduling;    /* NULL: FIFO */
    FILE *report;               /* where the deadlock report goes; NULL: stderr */
    /* After a deadlock has been reported. false: the run stops, and the
     * blocked tasks are freed by lpel_runtime_destroy without running
     * again (what they hold is the caller's to free). true: the run
     * unwinds: every blocked and every later stream operation returns at
     * once (reads and polls see end-of-stream, writes drop their item), so
     * each task runs its own clean-up and ends; then lpel_run returns
     * LPEL_EDEADLOCK. A task that makes items from outside (a file, a
     * generator) should stop when lpel_unwinding() says so. */
    bool unwind_on_deadlock;
    /* Frees an item that unwinding dropped, or that is still in a stream
     * when the stream is freed. Called on a task. NULL: such items are
     * left alone. */
    void (*discard_item)(void *item);
} lpel_config;

#define LPEL_DEFAULT_STACK_SIZE ((size_t)256 * 1024)
#define LPEL_DEFAULT_STREAM_CAPACITY 16

/* A configuration with every field at its default. */
LPEL_API lpel_config lpel_config_default(void);

/* Create a runtime; workers start only in lpel_run. On failure *out is
 * NULL and a message is written into errbuf (if not NULL). */
LPEL_API int lpel_runtime_create(lpel_runtime **out, const lpel_config *config,
                                 char *errbuf, size_t errlen);

/* Start the workers, run until every task has ended (LPEL_OK) or every live
 * task is blocked (LPEL_EDEADLOCK, after the waiting relation has been
 * printed to config.report), then stop the workers. Called once, from the
 * thread that created the runtime. */
LPEL_API int lpel_run(lpel_runtime *rt);

/* Free the runtime. Tasks still alive after a deadlock are freed with it;
 * streams belong to their users. */
LPEL_API void lpel_runtime_destroy(lpel_runtime *rt);

LPEL_API unsigned lpel_runtime_num_workers(const lpel_runtime *rt);

/* The last error message for this runtime ("" if none). */
LPEL_API const char *lpel_runtime_error(const lpel_runtime *rt);

/* True on a task of a run that is unwinding after a deadlock (see
 * lpel_config.unwind_on_deadlock). */
LPEL_API bool lpel_unwinding(void);

/* The runtime of the calling task, NULL outside tasks. */
LPEL_API lpel_runtime *lpel_runtime_self(void);

/* Human-readable text for a return code. */
LPEL_API const char *lpel_strerror(int code);

/* Number of cores hwloc sees (what num_workers = 0 means). */
LPEL_API unsigned lpel_core_count(void);

/* ---------------------------------------------------------------------------
 * Tasks
 * ------------------------------------------------------------------------- */

typedef void (*lpel_task_fn)(void *arg);

typedef struct lpel_task_attr {
    const char *name;  /* copied; NULL: "task<id>" */
    size_t stack_size; /* 0: the runtime default; rounded up to a power of
                          two, at least 16 KiB, at most 1 GiB */
    int worker;        /* placement hint, LPEL_ANY_WORKER for the mapper */
} lpel_task_attr;

/* Create a task running fn(arg). From the main thread this is allowed
 * before lpel_run; from a task at any time (rt may then be NULL, meaning
 * the runtime of the calling task). The task is placed immediately and
 * starts when its worker schedules it; it gets its stack only then, so a
 * task waiting to start costs only its descriptor (~200 bytes).
 *
 * Stacks are slots of large shared mappings, so the number of live tasks
 * is bounded by memory (a started task holds one 4 KiB page of stack plus
 * what it uses), not by the system's limit on mappings. Below each stack
 * lies one page of slack or, while cheap, a guard page. An overflow beyond
 * it ends the process with a message naming the task: at once where the
 * page is a guard page (config.stack_guard_pages), otherwise when the task
 * next blocks, yields or ends (before any task it could have harmed runs),
 * or when it reaches the guard below its worker's stacks. If no stack can
 * be had when the task first runs, the process ends with a message naming
 * the task. Returns the task id (>= 1), or a negative LPEL_E code. */
LPEL_API int64_t lpel_task_create(lpel_runtime *rt, const lpel_task_attr *attr,
                                  lpel_task_fn fn, void *arg);

/* End the calling task (returning from its function does the same). */
LPEL_API _Noreturn void lpel_task_exit(void);

/* Let the other ready tasks of this worker run. */
LPEL_API void lpel_task_yield(void);

/* The calling task, NULL outside tasks. */
LPEL_API lpel_task *lpel_task_self(void);

LPEL_API uint64_t lpel_task_id(const lpel_task *t);
/* The name given at creation; valid while the task lives. */
LPEL_API const char *lpel_task_name(const lpel_task *t);
LPEL_API unsigned lpel_task_worker(const lpel_task *t);

/* One pointer per task for the hooks' own use (e.g. a monitoring record);
 * the task hooks get its address (their `slot` argument) and set it
 * through that. */
LPEL_API void *lpel_task_hook_data(const lpel_task *t);

/* ---------------------------------------------------------------------------
 * Streams
 * ------------------------------------------------------------------------- */

/* A bounded FIFO of non-NULL pointers with exactly one reader task and one
 * writer task. Each end is bound to the first task that uses it (or opens
 * it) and stays bound to it: a second task using the same end is a fatal
 * error. Each end is closed exactly once with lpel_stream_close; the
 * writer's close marks end-of-stream, and the stream is freed when both
 * ends are closed. capacity 0 means the runtime default. */
LPEL_API lpel_stream *lpel_stream_create(lpel_runtime *rt, size_t capacity);

/* Bind an end to the calling task now (reads and writes do it implicitly). */
LPEL_API void lpel_stream_open(lpel_stream *s, lpel_stream_mode mode);

/* Append item (not NULL); blocks the task while the stream is full. */
LPEL_API void lpel_stream_write(lpel_stream *s, void *item);

/* Append item if there is room; false if the stream is full. */
LPEL_API bool lpel_stream_try_write(lpel_stream *s, void *item);

/* Remove the oldest item; blocks the task while the stream is empty.
 * Returns NULL at end-of-stream (and on every later call). */
LPEL_API void *lpel_stream_read(lpel_stream *s);

/* The oldest item without removing it; NULL if empty or at end-of-stream. */
LPEL_API void *lpel_stream_peek(lpel_stream *s);

/* A hint for the reader, after a read: if the next item is already known
 * to be there and the writer runs on another worker, start loading the
 * memory the item points to (for writing), so that it has crossed from the
 * writer's core by the time the reader gets to it. Changes nothing in the
 * stream; costs a few instructions, fewer when both ends share a worker. */
LPEL_API void lpel_stream_prefetch_next(lpel_stream *s);

/* True once the writer has closed and every item has been read. */
LPEL_API bool lpel_stream_at_end(lpel_stream *s);

/* Close the calling task's end. For the writer: end-of-stream (may block
 * while the stream is full, like a write). */
LPEL_API void lpel_stream_close(lpel_stream *s, lpel_stream_mode mode);

/* Free a stream whatever the state of its ends. Only for streams no task
 * uses any more, e.g. after lpel_run returned LPEL_EDEADLOCK. */
LPEL_API void lpel_stream_destroy(lpel_stream *s);

/* Block until at least one of streams[0..n) has an item or is at its end;
 * returns the index of such a stream, searching from start (mod n) so a
 * caller that passes last+1 gets round-robin fairness. The calling task
 * becomes the reader of every stream in the set. */
LPEL_API size_t lpel_stream_poll(lpel_stream *const *streams, size_t n, size_t start);

LPEL_API uint64_t lpel_stream_id(const lpel_stream *s);
LPEL_API size_t lpel_stream_capacity(const lpel_stream *s);
/* Items currently queued (exact when called by the reader or writer). */
LPEL_API size_t lpel_stream_count(const lpel_stream *s);
/* The bound tasks, NULL while an end is unbound. Safe to call from hooks
 * and from the deadlock report; tasks may be gone after their close. */
LPEL_API lpel_task *lpel_stream_reader(const lpel_stream *s);
LPEL_API lpel_task *lpel_stream_writer(const lpel_stream *s);

/* ---------------------------------------------------------------------------
 * Events: threads outside LPEL waking tasks
 * ------------------------------------------------------------------------- */

/*
 * Streams connect tasks; an event connects a task to anything else, e.g. a
 * thread that talks to the network (runtime/snet/distrib). An event is a
 * flag: lpel_event_raise sets it (from any thread, a task or not) and
 * wakes the task waiting for it; lpel_event_wait, in a task, returns at
 * once if the flag is set and clears it, else blocks the task (never the
 * worker) until a raise. One task waits for an event at a time. Raises
 * between two waits count once.
 *
 * Deadlocks: a task waiting for an event may be woken by the outside, so
 * while some task waits for an event the run does not end with
 * LPEL_EDEADLOCK when every task is blocked. The thread that raises the
 * events knows whether it still will; it can ask whether the runtime is
 * quiescent and, if nothing will ever come, stop it as deadlocked.
 */
typedef struct lpel_event lpel_event;

/* what describes what a waiting task waits for, in the deadlock report
 * ("records from rank 1 on channel 3"); copied. NULL if out of memory. */
LPEL_API lpel_event *lpel_event_create(const char *what);
/* Free an event no task waits for any more (e.g. after the run). */
LPEL_API void lpel_event_destroy(lpel_event *e);
/* In a task: wait for the event. cause is what the monitor records for the
 * block: LPEL_BLOCK_INPUT (waiting for data) or LPEL_BLOCK_OUTPUT (waiting
 * for room). */
LPEL_API void lpel_event_wait(lpel_event *e, lpel_block_cause cause);
/* From any thread: set the flag and wake the waiting task, if any. */
LPEL_API void lpel_event_raise(lpel_event *e);

/* Idle polling: how the outside party gets a worker's attention without a
 * thread of its own waking one. A worker that has nothing to run calls
 * poll(arg, false) over and over, in bursts of ~1 us between which it
 * yields its core, until window_ns have passed since it last ran a task or
 * a poll last returned true, or until it finds that it lost its core (the
 * machine has none to spare). Whenever it stops polling, to run what it
 * found, to yield its core (which may be gone for a time slice) or to
 * sleep, it calls poll(arg, true) once, so that a poll can tell others
 * that nobody on this worker looks now and take a last look itself. poll
 * returns true when it did something (the worker then looks for work
 * instead of yielding or sleeping). One worker of the runtime polls at a
 * time; the others sleep as they do without a poll. It runs on the worker's thread outside any task:
 * it may raise events (a task of this worker that it wakes runs next, with
 * no other thread involved), must not block, and must not call task or
 * stream functions. A worker that polls is not idle, so the run is not
 * quiescent meanwhile. Set before lpel_run (LPEL_ESTATE otherwise); NULL
 * removes the poll. */
typedef bool (*lpel_idle_poll_fn)(void *arg, bool last);
LPEL_API int lpel_runtime_set_idle_poll(lpel_runtime *rt, lpel_idle_poll_fn poll, void *arg,
                                        long window_ns);

/* True if the run has started, every live task is blocked (on streams or
 * events) and no wake-up is under way: nothing moves until an event is
 * raised. *live_tasks gets the number of live tasks. Any thread. */
LPEL_API bool lpel_runtime_quiescent(lpel_runtime *rt, long *live_tasks);

/* Stop a quiescent run as deadlocked: print who waits for whom to report
 * (NULL: config.report, as lpel_run does for a deadlock it finds itself),
 * end the workers, and
 * make lpel_run return LPEL_EDEADLOCK. LPEL_ESTATE if the run is not
 * quiescent (any more). Any thread. */
LPEL_API int lpel_runtime_stop_deadlocked(lpel_runtime *rt, FILE *report);

#ifdef __cplusplus
}
#endif

#endif /* LPEL_H */
