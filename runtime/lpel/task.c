/*
 * task.c - tasks: creation, placement, the switch in and out, block, wake,
 * yield and exit.
 *
 * A task is created on any thread but adopted by the worker it is placed
 * on: that worker records it, fires its hooks and queues it. From then on
 * only that worker touches the task, except for the one wake-up message a
 * peer may post to the worker's mailbox while the task is blocked.
 *
 * Every switch passes through the worker's scheduler context. Sanitizers
 * must be told about each switch between stacks (AddressSanitizer keeps
 * per-stack bookkeeping, ThreadSanitizer a per-fiber clock), hence the
 * annotations around lpel_ctx_switch.
 */
#include "lpel_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if LPEL_ASAN
#include <sanitizer/asan_interface.h>
#endif
#if LPEL_TSAN
#include <sanitizer/tsan_interface.h>
#endif

void **lpel_task_queue_link(lpel_task *task) { return &task->queue_link; }
uint64_t lpel_task_id(const lpel_task *t) { return t->id; }
const char *lpel_task_name(const lpel_task *t) { return t->name; }
unsigned lpel_task_worker(const lpel_task *t) { return t->worker->id; }
void *lpel_task_hook_data(const lpel_task *t) { return t->hook_data; }

lpel_task *lpel_task_self(void) { return lpel_current_task(); }

/* ---- switching ---------------------------------------------------------- */

static void task_entry(void *arg);

/* Where t's stack starts, in bytes above stack.lo. Slots are page-aligned,
 * so every task's first frames would sit at the same offset in their page
 * and compete for the same L1 sets; the top is staggered by a cache
 * "colour" from the task id. Only colours inside the top page: the caches
 * beyond L1 are indexed by physical address, which the page already
 * scatters, and a stagger that stays in the top page keeps a blocked
 * task's frames on the page that also holds the fence of the stack above
 * (lpel_internal.h). Tasks created together get adjacent slots and often
 * run one after the other, so the fence check of the next one then finds
 * that page in the TLB: at 10^4 tasks every hop otherwise walked the page
 * tables for a second page. */
static size_t task_stack_top(const lpel_task *t)
{
    size_t usable = t->stack.size - LPEL_STACK_FENCE_BYTES;
    size_t colours = LPEL_STACK_COLOURS;
    if (colours * LPEL_CACHE_LINE > usable / 8)
        colours = usable / 8 / LPEL_CACHE_LINE;
    size_t colour = colours ? (size_t)(t->id * 7) % colours : 0;
    return usable - colour * LPEL_CACHE_LINE;
}

/* Give the task a stack from w's pool (w is the worker that runs it and
 * will also give the stack back). */
static int task_take_stack(lpel_worker *w, lpel_task *t)
{
    int rc = lpel_stack_take(&w->stacks, &t->stack, t->stack_request);
    if (rc != LPEL_OK) {
        lpel_runtime_set_error(w->rt, "cannot map a %zu-byte stack for task '%s': %s",
                               t->stack_request, t->name, strerror(errno));
        return rc;
    }
    lpel_ctx_init(&t->ctx, t->stack.lo, task_stack_top(t), task_entry, t);
#if LPEL_TSAN
    /* ThreadSanitizer counts fibers like threads (and limits them), so a
     * task gets its fiber together with its stack, when it first runs. */
    t->tsan_fiber = __tsan_create_fiber(0);
#endif
    return LPEL_OK;
}

/* Bookkeeping for a task about to run on w: it is current and running. */
static inline __attribute__((always_inline)) void prepare_dispatch(lpel_worker *w, lpel_task *t)
{
    /* A task gets its stack when it first runs, from the cache of the
     * worker that will also free it: tasks waiting to start cost only
     * their descriptor, so millions of them can be queued. Nobody is left
     * to return an error to here, so running out of mappings is fatal. */
    if (lpel_unlikely(!t->stack.fence) && task_take_stack(w, t) != LPEL_OK)
        lpel_fatal("%s", w->rt->error);
    w->current = t;
    t->state = LPEL_TASK_RUNNING;
    LPEL_HOOK(w, task_dispatch, &t->hook_data, t->id);
}

/* From the scheduler of w into task t. Returns when some task of w
 * switches back to the scheduler; that task is then w->current. */
void lpel_task_run(lpel_worker *w, lpel_task *t)
{
    prepare_dispatch(w, t);
#if LPEL_ASAN
    void *fake_stack = NULL;
    __sanitizer_start_switch_fiber(&fake_stack, t->stack.lo, t->stack.size);
#endif
#if LPEL_TSAN
    __tsan_switch_to_fiber(t->tsan_fiber, 0);
#endif
    lpel_ctx_switch(&w->sched_ctx, &t->ctx);
#if LPEL_ASAN
    __sanitizer_finish_switch_fiber(fake_stack, NULL, NULL);
#endif
}

/* From task t back to the scheduler of w. A dying task's stack is about to
 * be freed, which AddressSanitizer must know (no fake-stack save). */
void lpel_worker_switch_to_scheduler(lpel_worker *w, lpel_task *t, bool dying)
{
#if LPEL_ASAN
    __sanitizer_start_switch_fiber(dying ? NULL : &t->asan_fake_stack,
                                   w->sched_stack_bottom, w->sched_stack_size);
#endif
#if LPEL_TSAN
    __tsan_switch_to_fiber(w->tsan_sched_fiber, 0);
#endif
    (void)dying;
    lpel_ctx_switch(&t->ctx, &w->sched_ctx);
#if LPEL_ASAN
    __sanitizer_finish_switch_fiber(t->asan_fake_stack, NULL, NULL);
#endif
}

/* From task t straight into task next, both of worker w. */
static void switch_task_to_task(lpel_worker *w, lpel_task *t, lpel_task *next)
{
    prepare_dispatch(w, next);
#if LPEL_ASAN
    __sanitizer_start_switch_fiber(&t->asan_fake_stack, next->stack.lo, next->stack.size);
#endif
#if LPEL_TSAN
    __tsan_switch_to_fiber(next->tsan_fiber, 0);
#endif
    lpel_ctx_switch(&t->ctx, &next->ctx);
#if LPEL_ASAN
    __sanitizer_finish_switch_fiber(t->asan_fake_stack, NULL, NULL);
#endif
}

/* Task t stops running (it has queued itself if it is ready). Going
 * through the scheduler costs a second switch, so we go straight to the
 * next ready task when nothing else needs the scheduler: no mail to take
 * in (new tasks, wake-ups from other workers). */
static void task_switch_away(lpel_worker *w, lpel_task *t)
{
    lpel_stack_check(w, t);
    if (lpel_likely(lpel_mailbox_is_empty(&w->mailbox))) {
        lpel_task *next = lpel_worker_ready_pop(w);
        if (next == t) {
            prepare_dispatch(w, t);
            return;
        }
        if (next) {
            switch_task_to_task(w, t, next);
            return;
        }
    }
    lpel_worker_switch_to_scheduler(w, t, false);
}

static void task_entry(void *arg)
{
    lpel_task *t = arg;
#if LPEL_ASAN
    __sanitizer_finish_switch_fiber(NULL, NULL, NULL);
#endif
    t->fn(t->arg);
    lpel_task_exit();
}

/* ---- creation ----------------------------------------------------------- */

static unsigned place_task(lpel_runtime *rt, const lpel_task_info *info)
{
    if (info->hint >= 0)
        return (unsigned)info->hint % rt->num_workers;
    if (rt->config.placement) {
        int w = rt->config.placement->place(rt->config.placement->state, info,
                                            rt->num_workers);
        if (w >= 0)
            return (unsigned)w % rt->num_workers;
    }
    return atomic_fetch_add_explicit(&rt->round_robin_next, 1, memory_order_relaxed) %
           rt->num_workers;
}

int64_t lpel_task_create(lpel_runtime *rt, const lpel_task_attr *attr,
                         lpel_task_fn fn, void *arg)
{
    lpel_worker *self = lpel_worker_self();
    if (!rt)
        rt = self ? self->rt : NULL;
    if (!rt || !fn)
        return LPEL_EINVAL;
    if (rt->run_state != 0 && (!self || self->rt != rt)) {
        lpel_runtime_set_error(rt, "lpel_task_create: once the run has started, "
                                   "only tasks may create tasks");
        return LPEL_ESTATE;
    }
    lpel_task_attr defaults = {.name = NULL, .stack_size = 0, .worker = LPEL_ANY_WORKER};
    if (!attr)
        attr = &defaults;

    size_t stack_request = attr->stack_size ? attr->stack_size : rt->config.default_stack_size;
    if (stack_request > LPEL_STACK_MAX_SIZE) {
        lpel_runtime_set_error(rt, "lpel_task_create: stack_size %zu is above the largest "
                                   "stack, %zu bytes", stack_request, LPEL_STACK_MAX_SIZE);
        return LPEL_EINVAL;
    }
    /* Cache-line aligned, so the fields a switch touches share one line. */
    size_t bytes = (sizeof(lpel_task) + LPEL_CACHE_LINE - 1) & ~(size_t)(LPEL_CACHE_LINE - 1);
    lpel_task *t = aligned_alloc(LPEL_CACHE_LINE, bytes);
    if (!t)
        return LPEL_ENOMEM;
    memset(t, 0, sizeof *t);
    t->rt = rt;
    t->fn = fn;
    t->arg = arg;
    t->id = atomic_fetch_add_explicit(&rt->next_task_id, 1, memory_order_relaxed) + 1;
    if (attr->name) {
        t->name = strdup(attr->name);
    } else {
        t->name = malloc(32);
        if (t->name)
            snprintf(t->name, 32, "task%llu", (unsigned long long)t->id);
    }
    if (!t->name) {
        free(t);
        return LPEL_ENOMEM;
    }

    t->stack_request = stack_request;
    lpel_task_info info = {.id = t->id, .name = t->name, .hint = attr->worker,
                           .creator_worker = self ? (int)self->id : -1};
    lpel_worker *target = &rt->workers[place_task(rt, &info)];
    t->worker = target;
    t->state = LPEL_TASK_NEW;
    atomic_fetch_add_explicit(&rt->live_tasks, 1, memory_order_relaxed);

    int64_t id = (int64_t)t->id;
    if (self == target)
        lpel_task_adopt(target, t);
    else
        lpel_worker_post(target, t, LPEL_MAIL_NEW);
    return id;
}

void lpel_task_adopt(lpel_worker *w, lpel_task *t)
{
    t->live_prev = NULL;
    t->live_next = w->live_tasks;
    if (w->live_tasks)
        w->live_tasks->live_prev = t;
    w->live_tasks = t;
    w->live_count++;
    LPEL_HOOK(w, task_map, &t->hook_data, t->id, t->name, w->id);
    LPEL_HOOK(w, task_create, &t->hook_data, t->id);
    lpel_worker_ready_push(w, t);
}

static void task_unlink(lpel_worker *w, lpel_task *t)
{
    if (t->live_prev)
        t->live_prev->live_next = t->live_next;
    else
        w->live_tasks = t->live_next;
    if (t->live_next)
        t->live_next->live_prev = t->live_prev;
    w->live_count--;
}

static void task_free(lpel_worker *w, lpel_task *t)
{
#if LPEL_TSAN
    if (t->tsan_fiber)
        __tsan_destroy_fiber(t->tsan_fiber);
#endif
    if (t->stack.slab)
        lpel_stack_give_back(&w->stacks, &t->stack);
    free(t->name);
    free(t);
}

void lpel_task_destroy(lpel_worker *w, lpel_task *t)
{
    LPEL_HOOK(w, task_destroy, &t->hook_data, t->id);
    task_unlink(w, t);
    task_free(w, t);
    if (atomic_fetch_sub_explicit(&w->rt->live_tasks, 1, memory_order_acq_rel) == 1)
        lpel_runtime_terminate(w->rt);
}

void lpel_task_discard(lpel_worker *w, lpel_task *t)
{
    task_unlink(w, t);
    task_free(w, t);
}

/* ---- running tasks ------------------------------------------------------ */

static lpel_task *current_task_or_die(const char *what)
{
    lpel_task *t = lpel_current_task();
    if (!t)
        lpel_fatal("%s called outside a task", what);
    return t;
}

_Noreturn void lpel_task_exit(void)
{
    lpel_task *t = current_task_or_die("lpel_task_exit");
    lpel_stack_check(t->worker, t);
    t->state = LPEL_TASK_ZOMBIE;
    lpel_worker_switch_to_scheduler(t->worker, t, true);
    lpel_fatal("task '%s' resumed after exit", t->name);
}

void lpel_task_yield(void)
{
    lpel_task *t = current_task_or_die("lpel_task_yield");
    lpel_worker *w = t->worker;
    LPEL_HOOK(w, task_yield, &t->hook_data, t->id);
    t->state = LPEL_TASK_READY;
    lpel_worker_ready_push(w, t);
    task_switch_away(w, t);
}

void lpel_task_block_current(lpel_task *t)
{
    lpel_worker *w = t->worker;
    LPEL_HOOK(w, task_block, &t->hook_data, t->id, t->block_cause);
    t->state = LPEL_TASK_BLOCKED;
    task_switch_away(w, t);
}

void lpel_task_wake(lpel_task *t)
{
    lpel_worker *self = lpel_worker_self();
    if (self == t->worker) {
        /* Same worker: t has switched out already (we are running). */
        t->state = LPEL_TASK_READY;
        lpel_worker_ready_push(self, t);
        lpel_task_prefetch_frame(t);
    } else {
        /* The owner handles the wake-up in its scheduler, after t has
         * finished switching out, even if t is still on its way to block. */
        lpel_worker_post(t->worker, t, LPEL_MAIL_WAKE);
    }
}
