/*
 * ctx.h - saving and resuming a task's execution context (internal).
 *
 * A context switch is the hottest path of the runtime: every block, wake
 * and yield goes through it twice. On x86-64 we use our own few
 * instructions (ctx_x86_64.S) that save only what the SysV ABI says a
 * callee must preserve; elsewhere, or when configured so, ucontext does the
 * same job portably but much more slowly (it saves the signal mask with a
 * system call). The choice is made at configure time (LPEL_CONTEXT).
 */
#ifndef LPEL_CTX_H
#define LPEL_CTX_H

#include <stddef.h>

#if LPEL_CONTEXT_UCONTEXT
#include <ucontext.h>
typedef struct lpel_ctx {
    ucontext_t uc;
} lpel_ctx;
#else
typedef struct lpel_ctx {
    void *sp; /* the saved stack pointer; the registers are on that stack */
} lpel_ctx;
#endif

/* Prepare ctx to run entry(arg) on the stack [stack_lo, stack_lo+size)
 * when it is first switched to. entry must never return. */
void lpel_ctx_init(lpel_ctx *ctx, void *stack_lo, size_t size,
                   void (*entry)(void *), void *arg);

/* Save the current context in from and resume to. Returns when something
 * switches back to from. */
void lpel_ctx_switch(lpel_ctx *from, lpel_ctx *to);

#endif
