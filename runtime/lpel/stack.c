/*
 * stack.c - task stacks: slots carved from large per-worker mappings, and
 * the overflow checks (guard pages, fences, slab guards, the SIGSEGV
 * handler that names the task). lpel_internal.h explains the checks.
 *
 * Why slabs: Linux limits a process to vm.max_map_count mappings (65,530
 * by default) and a stack mapped on its own with a guard page costs two,
 * which capped LPEL at ~30,000 live started tasks. A slab is one mapping
 * of many equal slots (one size class, a power of two):
 *
 *   [slab guard, PROT_NONE][floor page][slot 0][slot 1] ... [slot n-1]
 *   slot: [page 0: guard page, or slack][stack ..................|fence]
 *
 * The fence of slot k-1 (or the floor page's top line, for slot 0) lies
 * right below page 0 of slot k: it is what an overflow of slot k reaches
 * first beyond its page 0. Page 0 becomes a PROT_NONE guard page when the
 * slot is first carved, as long as the runtime's guard budget lasts; small
 * programs so keep exact, immediate overflow detection.
 *
 * A started task costs one resident page (the top of its stack, with its
 * first frames): page 0 and the rest of the stack are address space only
 * until used, and the fence check reads a line that is resident anyway.
 *
 * Slots are reused LIFO (warm memory first); a slab that empties while
 * another of its class has room is unmapped, so memory follows the number
 * of live tasks. Only the owning worker touches its pool: no locks.
 *
 * The handler runs on a per-worker alternate signal stack because the
 * task's own stack is the one that just ran out.
 */
#include "lpel_internal.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#if LPEL_ASAN
#include <sanitizer/asan_interface.h>
#endif

/* The slab's own guard below the floor page: wide, so that a function
 * with a large frame does not step over it. Address space only. */
#define SLAB_GUARD_BYTES ((size_t)64 * 1024)
/* A slab holds this many bytes of slots (at least one slot). */
#define SLAB_TARGET_BYTES ((size_t)32 * 1024 * 1024)

struct lpel_stack_slab {
    char *map;          /* the whole mapping, slab guard first */
    char *slots;        /* slot 0, above the slab guard and the floor page */
    size_t map_size;
    size_t slot_size;   /* one page + the class size */
    size_t stack_size;  /* the class size */
    uint32_t nslots;
    uint32_t carved;    /* slots 0..carved-1 have been handed out at least once */
    uint32_t used;
    uint32_t nfree;     /* free[0..nfree) are carved slots given back */
    uint32_t guarded;   /* slots with their own guard page */
    unsigned cls;
    lpel_stack_slab *prev, *next; /* in the pool's available list, if listed */
    bool listed;
    uint32_t free[];
};

size_t lpel_page_size(void)
{
    long page = sysconf(_SC_PAGESIZE);
    return page > 0 ? (size_t)page : 4096;
}

long lpel_stack_guard_budget(void)
{
    long limit = 65530;
    FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
    if (f) {
        if (fscanf(f, "%ld", &limit) != 1 || limit <= 0)
            limit = 65530;
        fclose(f);
    }
    /* Each guard page splits its slab's mapping: two more mappings. */
    return limit / 4 / 2;
}

/* ---- size classes -------------------------------------------------------- */

static unsigned class_of(size_t size)
{
    unsigned cls = 0;
    while ((LPEL_STACK_MIN_SIZE << cls) < size)
        cls++;
    return cls;
}

static size_t class_size(unsigned cls) { return LPEL_STACK_MIN_SIZE << cls; }

/* ---- the available lists ------------------------------------------------- */

static void list_add(lpel_stack_pool *pool, lpel_stack_slab *s)
{
    s->prev = NULL;
    s->next = pool->available[s->cls];
    if (s->next)
        s->next->prev = s;
    pool->available[s->cls] = s;
    s->listed = true;
}

static void list_remove(lpel_stack_pool *pool, lpel_stack_slab *s)
{
    if (s->prev)
        s->prev->next = s->next;
    else
        pool->available[s->cls] = s->next;
    if (s->next)
        s->next->prev = s->prev;
    s->listed = false;
}

static bool slab_has_room(const lpel_stack_slab *s)
{
    return s->nfree > 0 || s->carved < s->nslots;
}

/* ---- slabs ---------------------------------------------------------------- */

static lpel_stack_slab *slab_create(unsigned cls)
{
    size_t page = lpel_page_size();
    size_t stack_size = class_size(cls);
    size_t slot_size = page + stack_size;
    size_t nslots = SLAB_TARGET_BYTES / slot_size;
    if (nslots == 0)
        nslots = 1;
    lpel_stack_slab *s = malloc(sizeof *s + nslots * sizeof s->free[0]);
    if (!s)
        return NULL;
    size_t map_size = SLAB_GUARD_BYTES + page + nslots * slot_size;
    char *map = mmap(NULL, map_size, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (map == MAP_FAILED) {
        free(s);
        return NULL;
    }
    if (mprotect(map, SLAB_GUARD_BYTES, PROT_NONE) != 0) {
        munmap(map, map_size);
        free(s);
        return NULL;
    }
    *s = (lpel_stack_slab){.map = map, .slots = map + SLAB_GUARD_BYTES + page,
                           .map_size = map_size, .slot_size = slot_size,
                           .stack_size = stack_size, .nslots = (uint32_t)nslots, .cls = cls};
    return s;
}

static void slab_destroy(lpel_stack_pool *pool, lpel_stack_slab *s)
{
    if (s->listed)
        list_remove(pool, s);
    atomic_fetch_add_explicit(&pool->rt->stack_guards_left, s->guarded, memory_order_relaxed);
    munmap(s->map, s->map_size);
    free(s);
}

static char *slot_base(const lpel_stack_slab *s, uint32_t slot)
{
    return s->slots + (size_t)slot * s->slot_size;
}

/* First use of a slot: give it a guard page if the budget allows. A
 * failing mprotect (the mapping limit reached after all) only means no
 * guard page. */
static void carve_guard(lpel_stack_pool *pool, lpel_stack_slab *s, uint32_t slot)
{
    atomic_long *left = &pool->rt->stack_guards_left;
    if (atomic_load_explicit(left, memory_order_relaxed) <= 0 ||
        atomic_fetch_sub_explicit(left, 1, memory_order_relaxed) <= 0)
        return;
    if (mprotect(slot_base(s, slot), lpel_page_size(), PROT_NONE) == 0)
        s->guarded++;
    else
        atomic_fetch_add_explicit(left, 1, memory_order_relaxed);
}

/* ---- the pool --------------------------------------------------------------- */

void lpel_stack_pool_init(lpel_stack_pool *pool, lpel_runtime *rt)
{
    memset(pool, 0, sizeof *pool);
    pool->rt = rt;
}

int lpel_stack_take(lpel_stack_pool *pool, lpel_stack *st, size_t size)
{
    if (size > LPEL_STACK_MAX_SIZE)
        return LPEL_EINVAL;
    unsigned cls = class_of(size);
    lpel_stack_slab *s = pool->available[cls];
    if (!s) {
        s = slab_create(cls);
        if (!s)
            return LPEL_ENOMEM;
        list_add(pool, s);
    }
    uint32_t slot;
    if (s->nfree > 0) {
        slot = s->free[--s->nfree];
    } else {
        slot = s->carved++;
        carve_guard(pool, s, slot);
    }
    s->used++;
    if (!slab_has_room(s))
        list_remove(pool, s);
    char *base = slot_base(s, slot);
    st->fence = base - LPEL_STACK_FENCE_BYTES;
    st->lo = base + lpel_page_size();
    st->size = s->stack_size;
    st->slab = s;
    st->slot = slot;
    return LPEL_OK;
}

void lpel_stack_give_back(lpel_stack_pool *pool, lpel_stack *st)
{
    lpel_stack_slab *s = st->slab;
#if LPEL_ASAN
    /* Frames that never returned (the task ended inside them) leave their
     * redzones poisoned; the next task starts from a clean stack. */
    __asan_unpoison_memory_region(st->lo, st->size);
#endif
    s->free[s->nfree++] = st->slot;
    s->used--;
    st->slab = NULL;
    st->lo = NULL;
    st->fence = NULL;
    if (!s->listed) {
        list_add(pool, s);
    } else if (s->used == 0 && (s->prev || s->next)) {
        /* Empty, and another slab of the class has room. */
        slab_destroy(pool, s);
    }
}

/* Every slab is on the available list unless it is full; full slabs are
 * found through the tasks still holding their slots, so the pool is torn
 * down only after every task has given its stack back. */
void lpel_stack_pool_destroy(lpel_stack_pool *pool)
{
    for (unsigned c = 0; c < LPEL_STACK_CLASSES; c++)
        while (pool->available[c])
            slab_destroy(pool, pool->available[c]);
}

/* ---- overflow reports ------------------------------------------------------- */

/* The handler that was installed before ours, to chain non-overflow faults
 * to. Signal dispositions are per process, so this is the one piece of
 * process-wide state the runtime keeps; it is written once, under
 * pthread_once, before any handler can run. */
static struct sigaction previous_segv_action;
static pthread_once_t guard_handler_once = PTHREAD_ONCE_INIT;
static _Thread_local lpel_worker *guard_worker;

/* Async-signal-safe formatting: write(2) only. */
static void write_str(const char *s)
{
    size_t n = strlen(s);
    while (n > 0) {
        ssize_t k = write(STDERR_FILENO, s, n);
        if (k <= 0)
            return;
        s += k;
        n -= (size_t)k;
    }
}

static void write_u64(uint64_t v)
{
    char buf[24];
    int i = (int)sizeof buf - 1;
    buf[i] = '\0';
    do {
        buf[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v && i > 0);
    write_str(buf + i);
}

/* Async-signal-safe, so the fault handler and the switch-time check share
 * it. */
static void write_overflow_message(const lpel_worker *w, const lpel_task *t)
{
    write_str("lpel: stack overflow in task '");
    write_str(t->name);
    write_str("' (id ");
    write_u64(t->id);
    write_str(", stack ");
    write_u64(t->stack.size);
    write_str(" bytes, worker ");
    write_u64(w->id);
    write_str("): give it a larger stack_size\n");
}

_Noreturn void lpel_stack_overflow(lpel_worker *w, lpel_task *t)
{
    write_overflow_message(w, t);
    abort();
}

static void chain_to_previous(int sig, siginfo_t *info, void *uctx)
{
    if (previous_segv_action.sa_flags & SA_SIGINFO) {
        if (previous_segv_action.sa_sigaction) {
            previous_segv_action.sa_sigaction(sig, info, uctx);
            return;
        }
    } else if (previous_segv_action.sa_handler != SIG_DFL &&
               previous_segv_action.sa_handler != SIG_IGN) {
        previous_segv_action.sa_handler(sig);
        return;
    }
    /* Default action: reinstate it; returning re-executes the faulting
     * instruction, which then kills the process with SIGSEGV. */
    signal(sig, SIG_DFL);
}

/* Did task t run off the bottom of its stack? The fault is below the
 * stack and in its slab (a guard page, the floor page's guard, or the
 * slab guard: slots below are writable), or the stack pointer itself is
 * below the stack and not absurdly far. */
static bool is_overflow_of(const lpel_task *t, const siginfo_t *info, const void *uctx)
{
    if (!t->stack.slab)
        return false;
    uintptr_t addr = (uintptr_t)info->si_addr;
    uintptr_t lo = (uintptr_t)t->stack.lo;
    if (addr < lo && addr >= (uintptr_t)t->stack.slab->map)
        return true;
#if defined(__x86_64__)
    uintptr_t sp = (uintptr_t)((const ucontext_t *)uctx)->uc_mcontext.gregs[REG_RSP];
    if (sp < lo && sp + LPEL_STACK_MAX_SIZE >= lo)
        return true;
#else
    (void)uctx;
#endif
    return false;
}

static void guard_page_handler(int sig, siginfo_t *info, void *uctx)
{
    lpel_worker *w = guard_worker;
    lpel_task *t = w ? w->current : NULL;
    if (t && is_overflow_of(t, info, uctx)) {
        write_overflow_message(w, t);
        signal(sig, SIG_DFL);
        return;
    }
    chain_to_previous(sig, info, uctx);
}

static void install_guard_handler(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = guard_page_handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &previous_segv_action);
}

int lpel_stack_overflow_guard_start(lpel_worker *w)
{
    guard_worker = w;
    pthread_once(&guard_handler_once, install_guard_handler);
    /* Sanitizers need more than MINSIGSTKSZ for their own reporting. */
    w->altstack_size = 256 * 1024;
    w->altstack = mmap(NULL, w->altstack_size, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (w->altstack == MAP_FAILED) {
        w->altstack = NULL;
        return LPEL_ENOMEM;
    }
    stack_t ss = {.ss_sp = w->altstack, .ss_size = w->altstack_size, .ss_flags = 0};
    if (sigaltstack(&ss, NULL) != 0)
        return LPEL_ESYSTEM;
    return LPEL_OK;
}

void lpel_stack_overflow_guard_stop(lpel_worker *w)
{
    stack_t ss = {.ss_sp = NULL, .ss_size = 0, .ss_flags = SS_DISABLE};
    sigaltstack(&ss, NULL);
    if (w->altstack)
        munmap(w->altstack, w->altstack_size);
    w->altstack = NULL;
    guard_worker = NULL;
}
