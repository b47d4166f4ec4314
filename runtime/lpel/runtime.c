/*
 * runtime.c - the runtime object: configuration, starting and stopping the
 * workers, errors.
 */
#include "lpel_internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

lpel_config lpel_config_default(void)
{
    lpel_config c;
    memset(&c, 0, sizeof c);
    c.num_workers = 0;
    c.pin_workers = true;
    c.default_stack_size = LPEL_DEFAULT_STACK_SIZE;
    c.default_stream_capacity = LPEL_DEFAULT_STREAM_CAPACITY;
    c.idle_spin = 200;
    c.stack_guard_pages = true;
    return c;
}

const char *lpel_strerror(int code)
{
    switch (code) {
    case LPEL_OK: return "success";
    case LPEL_EINVAL: return "invalid argument";
    case LPEL_ENOMEM: return "out of memory";
    case LPEL_ESYSTEM: return "system call failed";
    case LPEL_EDEADLOCK: return "deadlock: every live task is blocked";
    case LPEL_ESTATE: return "not allowed in the runtime's current state";
    default: return "unknown error";
    }
}

void lpel_runtime_set_error(lpel_runtime *rt, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rt->error, sizeof rt->error, fmt, ap);
    va_end(ap);
}

const char *lpel_runtime_error(const lpel_runtime *rt) { return rt->error; }
unsigned lpel_runtime_num_workers(const lpel_runtime *rt) { return rt->num_workers; }

bool lpel_unwinding(void) { return lpel_worker_unwinding(); }

lpel_runtime *lpel_runtime_self(void)
{
    lpel_worker *w = lpel_worker_self();
    return w ? w->rt : NULL;
}

_Noreturn void lpel_fatal(const char *fmt, ...)
{
    /* One write, so the line is never interleaved or cut in half. */
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    if ((size_t)n > sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n] = '\n';
    fprintf(stderr, "lpel: %.*s", n + 1, line);
    fflush(stderr);
    abort();
}

static unsigned count_cores(hwloc_topology_t topo)
{
    int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    if (n <= 0)
        n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    return n > 0 ? (unsigned)n : 1;
}

unsigned lpel_core_count(void)
{
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0)
        return 1;
    unsigned n = hwloc_topology_load(topo) == 0 ? count_cores(topo) : 1;
    hwloc_topology_destroy(topo);
    return n;
}

static void report_error(char *errbuf, size_t errlen, const char *msg)
{
    if (errbuf && errlen)
        snprintf(errbuf, errlen, "%s", msg);
}

static int validate_config(const lpel_config *c, char *errbuf, size_t errlen)
{
    if (c->scheduling && (!c->scheduling->create || !c->scheduling->push ||
                          !c->scheduling->pop || !c->scheduling->destroy)) {
        report_error(errbuf, errlen, "scheduling policy needs create, destroy, push and pop");
        return LPEL_EINVAL;
    }
    if (c->placement && !c->placement->place) {
        report_error(errbuf, errlen, "placement policy needs a place function");
        return LPEL_EINVAL;
    }
    if (c->default_stack_size && c->default_stack_size < 16 * 1024) {
        report_error(errbuf, errlen, "default stack size must be at least 16 KiB");
        return LPEL_EINVAL;
    }
    return LPEL_OK;
}

/* More workers than cores is allowed (e.g. to study a mapping for a
 * bigger machine), but it is rarely what a user meant: the workers then
 * time-share the cores. */
static void warn_oversubscription(const lpel_runtime *rt)
{
    if (rt->num_workers <= rt->num_cores)
        return;
    const char *quiet = getenv("LPEL_OVERSUBSCRIBE");
    if (quiet && strcmp(quiet, "1") == 0)
        return;
    fprintf(stderr, "lpel: warning: %u workers on %u cores: the workers will time-share the "
                    "cores (set LPEL_OVERSUBSCRIBE=1 to silence this warning)\n",
            rt->num_workers, rt->num_cores);
}

static int init_workers(lpel_runtime *rt)
{
    rt->workers = aligned_alloc(LPEL_CACHE_LINE, sizeof(lpel_worker) * rt->num_workers);
    if (!rt->workers)
        return LPEL_ENOMEM;
    memset(rt->workers, 0, sizeof(lpel_worker) * rt->num_workers);
    for (unsigned i = 0; i < rt->num_workers; i++) {
        lpel_worker *w = &rt->workers[i];
        w->rt = rt;
        w->id = i;
        w->hooks = rt->hooks;
        lpel_stack_pool_init(&w->stacks, rt);
        atomic_init(&w->sleeping, 0);
        if (sem_init(&w->wakeup, 0, 0) != 0)
            return LPEL_ENOMEM;
        if (rt->config.scheduling) {
            w->policy_queue = rt->config.scheduling->create(rt->config.scheduling->config, i);
            if (!w->policy_queue)
                return LPEL_ENOMEM;
        }
    }
    return LPEL_OK;
}

int lpel_runtime_create(lpel_runtime **out, const lpel_config *config,
                        char *errbuf, size_t errlen)
{
    *out = NULL;
    lpel_config defaults = lpel_config_default();
    if (!config)
        config = &defaults;
    int rc = validate_config(config, errbuf, errlen);
    if (rc != LPEL_OK)
        return rc;

    lpel_runtime *rt = aligned_alloc(LPEL_CACHE_LINE, sizeof *rt);
    if (!rt) {
        report_error(errbuf, errlen, "out of memory");
        return LPEL_ENOMEM;
    }
    memset(rt, 0, sizeof *rt);
    rt->config = *config;
    if (!rt->config.default_stack_size)
        rt->config.default_stack_size = LPEL_DEFAULT_STACK_SIZE;
    if (!rt->config.default_stream_capacity)
        rt->config.default_stream_capacity = LPEL_DEFAULT_STREAM_CAPACITY;
    if (config->hooks)
        rt->hooks = *config->hooks;
    pthread_mutex_init(&rt->idle_lock, NULL);
    atomic_init(&rt->stack_guards_left,
                rt->config.stack_guard_pages ? lpel_stack_guard_budget() : 0);

    if (hwloc_topology_init(&rt->topology) != 0 || hwloc_topology_load(rt->topology) != 0) {
        report_error(errbuf, errlen, "hwloc could not read the machine topology");
        free(rt);
        return LPEL_ESYSTEM;
    }
    rt->num_cores = count_cores(rt->topology);
    rt->num_workers = config->num_workers ? config->num_workers : rt->num_cores;
    warn_oversubscription(rt);

    rc = init_workers(rt);
    if (rc != LPEL_OK) {
        report_error(errbuf, errlen, "out of memory creating workers");
        lpel_runtime_destroy(rt);
        return rc;
    }
    *out = rt;
    return LPEL_OK;
}

int lpel_runtime_set_idle_poll(lpel_runtime *rt, lpel_idle_poll_fn poll, void *arg,
                               long window_ns)
{
    if (rt->run_state != 0) {
        lpel_runtime_set_error(rt, "lpel_runtime_set_idle_poll: the run has started");
        return LPEL_ESTATE;
    }
    if (poll && window_ns <= 0) {
        lpel_runtime_set_error(rt, "lpel_runtime_set_idle_poll: window_ns must be positive");
        return LPEL_EINVAL;
    }
    rt->idle_poll = poll;
    rt->idle_poll_arg = arg;
    rt->idle_poll_ns = window_ns;
    return LPEL_OK;
}

void lpel_runtime_terminate(lpel_runtime *rt)
{
    atomic_store(&rt->terminate, 1);
    for (unsigned i = 0; i < rt->num_workers; i++)
        lpel_worker_wake(&rt->workers[i]);
}

int lpel_run(lpel_runtime *rt)
{
    if (rt->run_state != 0) {
        lpel_runtime_set_error(rt, "lpel_run: a runtime runs only once");
        return LPEL_ESTATE;
    }
    rt->run_state = 1;
    if (atomic_load(&rt->live_tasks) == 0)
        atomic_store(&rt->terminate, 1);

    int rc = LPEL_OK;
    unsigned started = 0;
    for (; started < rt->num_workers; started++) {
        lpel_worker *w = &rt->workers[started];
        if (pthread_create(&w->thread, NULL, lpel_worker_main, w) != 0) {
            lpel_runtime_set_error(rt, "could not start worker %u", started);
            rc = LPEL_ESYSTEM;
            lpel_runtime_terminate(rt);
            break;
        }
        w->thread_started = true;
    }
    for (unsigned i = 0; i < started; i++)
        pthread_join(rt->workers[i].thread, NULL);
    rt->run_state = 2;
    if (rc == LPEL_OK && rt->deadlocked) {
        lpel_runtime_set_error(rt, "deadlock: %ld live tasks are all blocked",
                               rt->deadlocked_tasks);
        rc = LPEL_EDEADLOCK;
    }
    return rc;
}

static void free_worker(lpel_worker *w)
{
    /* Tasks still here were blocked when a deadlock stopped the run, or
     * never ran because the run failed to start. */
    while (w->live_tasks)
        lpel_task_discard(w, w->live_tasks);
    for (lpel_task *t = lpel_mailbox_take_all(&w->mailbox); t;) {
        lpel_task *next = t->mail_next;
        if (t->mail_kind == LPEL_MAIL_NEW) { /* never ran: no stack */
            free(t->name);
            free(t);
        }
        t = next;
    }
    lpel_stack_pool_destroy(&w->stacks);
    if (w->policy_queue)
        w->rt->config.scheduling->destroy(w->policy_queue);
    sem_destroy(&w->wakeup);
}

void lpel_runtime_destroy(lpel_runtime *rt)
{
    if (!rt)
        return;
    if (rt->workers) {
        for (unsigned i = 0; i < rt->num_workers; i++)
            free_worker(&rt->workers[i]);
        free(rt->workers);
    }
    hwloc_topology_destroy(rt->topology);
    pthread_mutex_destroy(&rt->idle_lock);
    free(rt);
}
