/*
 * stack.c - task stacks: mmap'd with a guard page, cached for reuse, and a
 * SIGSEGV handler that turns a hit on a guard page into a message naming
 * the task instead of silent memory corruption.
 *
 * Each stack is one private anonymous mapping whose lowest page is
 * PROT_NONE. Stacks grow down, so an overflow touches the guard page first
 * and faults. The handler runs on a per-worker alternate signal stack
 * because the task's own stack is the one that just ran out.
 */
#include "lpel_internal.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Memory below the guard page that still counts as "this task's overflow":
 * a function with a large frame can step over the guard page entirely. */
#define LPEL_GUARD_SLACK ((uintptr_t)64 * 1024)

size_t lpel_page_size(void)
{
    long page = sysconf(_SC_PAGESIZE);
    return page > 0 ? (size_t)page : 4096;
}

static int stack_map(lpel_stack *st, size_t size)
{
    size_t page = lpel_page_size();
    size = (size + page - 1) & ~(page - 1);
    size_t map_size = size + page;
    void *map = mmap(NULL, map_size, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (map == MAP_FAILED)
        return LPEL_ENOMEM;
    if (mprotect(map, page, PROT_NONE) != 0) {
        munmap(map, map_size);
        return LPEL_ENOMEM;
    }
    st->map = map;
    st->map_size = map_size;
    st->lo = (char *)map + page;
    st->size = size;
    return LPEL_OK;
}

int lpel_stack_alloc(lpel_stack *st, size_t size, lpel_stack_cache *cache,
                     size_t cache_size)
{
    if (cache && size == cache_size && cache->count > 0) {
        *st = cache->slots[--cache->count];
        return LPEL_OK;
    }
    return stack_map(st, size);
}

void lpel_stack_free(lpel_stack *st, lpel_stack_cache *cache, size_t cache_size)
{
    if (cache && st->size >= cache_size && st->size - cache_size < lpel_page_size() &&
        cache->count < cache->capacity) {
        cache->slots[cache->count++] = *st;
        return;
    }
    munmap(st->map, st->map_size);
}

void lpel_stack_cache_clear(lpel_stack_cache *cache)
{
    for (unsigned i = 0; i < cache->count; i++)
        munmap(cache->slots[i].map, cache->slots[i].map_size);
    cache->count = 0;
}

/* ---- overflow detection ------------------------------------------------- */

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

static void guard_page_handler(int sig, siginfo_t *info, void *uctx)
{
    lpel_worker *w = guard_worker;
    lpel_task *t = w ? w->current : NULL;
    if (t) {
        uintptr_t addr = (uintptr_t)info->si_addr;
        uintptr_t guard_lo = (uintptr_t)t->stack.map;
        uintptr_t guard_hi = (uintptr_t)t->stack.lo;
        if (addr < guard_hi && addr + LPEL_GUARD_SLACK >= guard_lo) {
            write_str("lpel: stack overflow in task '");
            write_str(t->name);
            write_str("' (id ");
            write_u64(t->id);
            write_str(", stack ");
            write_u64(t->stack.size);
            write_str(" bytes, worker ");
            write_u64(w->id);
            write_str("): give it a larger stack_size\n");
            signal(sig, SIG_DFL);
            return;
        }
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
