/*
 * ctx_ucontext.c - the portable context switch, on makecontext/swapcontext.
 *
 * makecontext passes only int arguments, so the entry and its argument go
 * through the context itself (a pointer pair split over four ints would be
 * the other way; this one needs no casts of pointer halves).
 */
#include "ctx.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct ctx_start {
    void (*entry)(void *);
    void *arg;
} ctx_start;

static void ctx_ucontext_entry(unsigned hi, unsigned lo)
{
    ctx_start *start = (ctx_start *)(((uintptr_t)hi << 32) | (uintptr_t)lo);
    start->entry(start->arg);
    abort(); /* entry never returns */
}

void lpel_ctx_init(lpel_ctx *ctx, void *stack_lo, size_t size,
                   void (*entry)(void *), void *arg)
{
    /* The start record lives at the top of the new stack, where the
     * context will not overwrite it before reading it. */
    uintptr_t top = ((uintptr_t)stack_lo + size - sizeof(ctx_start)) & ~(uintptr_t)15;
    ctx_start *start = (ctx_start *)top;
    start->entry = entry;
    start->arg = arg;
    if (getcontext(&ctx->uc) != 0) {
        perror("lpel: getcontext");
        abort();
    }
    ctx->uc.uc_stack.ss_sp = stack_lo;
    ctx->uc.uc_stack.ss_size = top - (uintptr_t)stack_lo;
    ctx->uc.uc_link = NULL;
    uintptr_t p = (uintptr_t)start;
    makecontext(&ctx->uc, (void (*)(void))ctx_ucontext_entry, 2,
                (unsigned)(p >> 32), (unsigned)(p & 0xffffffffu));
}

void lpel_ctx_switch(lpel_ctx *from, lpel_ctx *to)
{
    if (swapcontext(&from->uc, &to->uc) != 0) {
        perror("lpel: swapcontext");
        abort();
    }
}
