/*
 * ctx_x86_64.c - building the first frame of a new context for the
 * assembly switch in ctx_x86_64.S (see the frame layout there).
 */
#include "ctx.h"

#include <stdint.h>
#include <string.h>

void lpel_ctx_swap(void **save_sp, void *new_sp);
void lpel_ctx_trampoline(void);

void lpel_ctx_init(lpel_ctx *ctx, void *stack_lo, size_t size,
                   void (*entry)(void *), void *arg)
{
    uintptr_t top = ((uintptr_t)stack_lo + size) & ~(uintptr_t)15;
    /* After the switch pops 8 words and returns into the trampoline, rsp
     * must be 16-byte aligned for its call: so the frame (8 words) sits
     * right below a 16-aligned top, with one padding word above. */
    uint64_t *frame = (uint64_t *)(top - 16 - 8 * sizeof(uint64_t));
    uint32_t mxcsr;
    uint16_t fpucw;
    __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
    __asm__ volatile("fnstcw %0" : "=m"(fpucw));
    memset(frame, 0, 10 * sizeof(uint64_t));
    frame[0] = (uint64_t)mxcsr | ((uint64_t)fpucw << 32);
    frame[1] = 0;                          /* r15 */
    frame[2] = 0;                          /* r14 */
    frame[3] = (uint64_t)(uintptr_t)arg;   /* r13 */
    frame[4] = (uint64_t)(uintptr_t)entry; /* r12 */
    frame[5] = 0;                          /* rbx */
    frame[6] = 0;                          /* rbp: ends frame-pointer walks */
    frame[7] = (uint64_t)(uintptr_t)lpel_ctx_trampoline;
    ctx->sp = frame;
}

void lpel_ctx_switch(lpel_ctx *from, lpel_ctx *to)
{
    lpel_ctx_swap(&from->sp, to->sp);
}
