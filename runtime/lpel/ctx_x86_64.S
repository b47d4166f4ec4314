/*
 * ctx_x86_64.S - the x86-64 SysV context switch.
 *
 * A switch is a function call, so the caller has already saved every
 * caller-saved register; we save only the callee-saved ones (rbx, rbp,
 * r12-r15), the SSE control/status word and the x87 control word (both
 * callee-saved by the ABI), then swap stack pointers. rax and rcx are
 * caller-saved, so the switch may use them as scratch.
 *
 * Saved frame, from the saved sp upwards:
 *   [sp+0]  mxcsr (4 bytes), x87 control word (2 bytes), padding
 *   [sp+8]  r15  [sp+16] r14  [sp+24] r13  [sp+32] r12
 *   [sp+40] rbx  [sp+48] rbp  [sp+56] return address
 */
    .text
    .globl  lpel_ctx_swap
    .hidden lpel_ctx_swap
    .type   lpel_ctx_swap, @function
/* void lpel_ctx_swap(void **save_sp (rdi), void *new_sp (rsi)) */
lpel_ctx_swap:
    .cfi_startproc
    pushq   %rbp
    pushq   %rbx
    pushq   %r12
    pushq   %r13
    pushq   %r14
    pushq   %r15
    subq    $8, %rsp
    stmxcsr (%rsp)
    fnstcw  4(%rsp)
    movl    (%rsp), %eax      /* the control words now in force */
    movzwl  4(%rsp), %ecx
    movq    %rsp, (%rdi)
    movq    %rsi, %rsp
    /* Loading a control word is slow (microcoded on some cores) and they
     * almost never differ between tasks: load only what differs. */
    cmpl    (%rsp), %eax
    je      1f
    ldmxcsr (%rsp)
1:  cmpw    4(%rsp), %cx
    je      2f
    fldcw   4(%rsp)
2:  addq    $8, %rsp
    popq    %r15
    popq    %r14
    popq    %r13
    popq    %r12
    popq    %rbx
    popq    %rbp
    ret
    .cfi_endproc
    .size   lpel_ctx_swap, .-lpel_ctx_swap

    .globl  lpel_ctx_trampoline
    .hidden lpel_ctx_trampoline
    .type   lpel_ctx_trampoline, @function
/* First code a new context runs: r12 = entry, r13 = arg (set up by
 * lpel_ctx_init). The stack is 16-byte aligned here, as a call needs. */
lpel_ctx_trampoline:
    .cfi_startproc
    .cfi_undefined rip
    movq    %r13, %rdi
    callq   *%r12
    ud2     /* entry never returns */
    .cfi_endproc
    .size   lpel_ctx_trampoline, .-lpel_ctx_trampoline

    .section .note.GNU-stack,"",@progbits
