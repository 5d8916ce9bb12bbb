/* SPDX-License-Identifier: Apache-2.0 */
/* Register saving shared by the assembler entries (native_entry.S,
 * jni_guard.S): they run between a caller and a function whose arguments
 * or results must reach the other side untouched. */
#ifndef PW_ASM_MACROS_H
#define PW_ASM_MACROS_H

#ifdef __ASSEMBLER__

/* The six integer and eight vector argument registers of the x86-64 SysV
 * ABI: 176 bytes of stack. */
    .macro PUSH_ARGUMENTS
    pushq   %rdi
    .cfi_adjust_cfa_offset 8
    pushq   %rsi
    .cfi_adjust_cfa_offset 8
    pushq   %rdx
    .cfi_adjust_cfa_offset 8
    pushq   %rcx
    .cfi_adjust_cfa_offset 8
    pushq   %r8
    .cfi_adjust_cfa_offset 8
    pushq   %r9
    .cfi_adjust_cfa_offset 8
    subq    $128, %rsp
    .cfi_adjust_cfa_offset 128
    movdqu  %xmm0, 0(%rsp)
    movdqu  %xmm1, 16(%rsp)
    movdqu  %xmm2, 32(%rsp)
    movdqu  %xmm3, 48(%rsp)
    movdqu  %xmm4, 64(%rsp)
    movdqu  %xmm5, 80(%rsp)
    movdqu  %xmm6, 96(%rsp)
    movdqu  %xmm7, 112(%rsp)
    .endm

    .macro POP_ARGUMENTS
    movdqu  0(%rsp), %xmm0
    movdqu  16(%rsp), %xmm1
    movdqu  32(%rsp), %xmm2
    movdqu  48(%rsp), %xmm3
    movdqu  64(%rsp), %xmm4
    movdqu  80(%rsp), %xmm5
    movdqu  96(%rsp), %xmm6
    movdqu  112(%rsp), %xmm7
    addq    $128, %rsp
    .cfi_adjust_cfa_offset -128
    popq    %r9
    .cfi_adjust_cfa_offset -8
    popq    %r8
    .cfi_adjust_cfa_offset -8
    popq    %rcx
    .cfi_adjust_cfa_offset -8
    popq    %rdx
    .cfi_adjust_cfa_offset -8
    popq    %rsi
    .cfi_adjust_cfa_offset -8
    popq    %rdi
    .cfi_adjust_cfa_offset -8
    .endm

/* A native method's result (rax:rdx, xmm0:xmm1) around a call into C
 * after it returned: 56 bytes of stack, which turn rsp = 8 mod 16 into 0. */
    .macro PUSH_RESULT
    pushq   %rax
    .cfi_adjust_cfa_offset 8
    pushq   %rdx
    .cfi_adjust_cfa_offset 8
    subq    $40, %rsp
    .cfi_adjust_cfa_offset 40
    movdqu  %xmm0, 0(%rsp)
    movdqu  %xmm1, 16(%rsp)
    .endm

    .macro POP_RESULT
    movdqu  0(%rsp), %xmm0
    movdqu  16(%rsp), %xmm1
    addq    $40, %rsp
    .cfi_adjust_cfa_offset -40
    popq    %rdx
    .cfi_adjust_cfa_offset -8
    popq    %rax
    .cfi_adjust_cfa_offset -8
    .endm

#endif
#endif
