/* SPDX-License-Identifier: Apache-2.0 */
/* Entry and exit of every Java native method bound while pinwatch runs.
 *
 * NativeMethodBind gives each native method a thunk (methods.c) that loads
 * its struct pw_method into r11 and jumps here.  The entry pushes a frame on
 * the thread's shadow stack and calls the real function (call mode, the
 * entries at the end of this file), or, for a method whose signature was
 * not known at its binding or whose stack arguments are too many to copy,
 * puts pw_native_exit in place of the return address and jumps to the real
 * function with every argument register and the stack untouched (swap
 * mode, pw_native_entry).  A JNI Get then finds the Java method it works for in
 * one load from thread-local memory, however deep in C helpers it is made.
 *
 * Only rax, r10 and r11 are used: none of them carries an argument of a
 * (non-variadic) JNI function, and r11 is the thunk's own scratch register. */

#include "intercept/asm_macros_x86_64.h"
#include "intercept/native_entry.h"

    .text

/* The native method has returned: pop its shadow frame.  Leaves r11 = the
 * thread's state, r10 = the popped frame, and the flags of comparing the
 * frame's live pins with zero (the caller jumps to hand leaks over). */
    .macro POP_FRAME
    movq    pw_tls_self@gottpoff(%rip), %r11
    movq    %fs:(%r11), %r11
    movl    PW_T_DEPTH(%r11), %r10d
    subl    $1, %r10d
    movl    %r10d, PW_T_DEPTH(%r11)
    shlq    $PW_FRAME_SHIFT, %r10
    leaq    PW_T_FRAMES(%r11,%r10), %r10
    cmpl    $0, PW_F_LIVE(%r10)
    .endm

    .globl  pw_native_entry
    .hidden pw_native_entry
    .type   pw_native_entry, @function
    .p2align 4
pw_native_entry:
    .cfi_startproc
    movq    pw_tls_self@gottpoff(%rip), %rax
    movq    %fs:(%rax), %rax
    testq   %rax, %rax
    jz      .Lcreate
.Lhave_state:
    movl    PW_T_DEPTH(%rax), %r10d
    cmpl    $PW_MAX_DEPTH, %r10d
    jae     .Ltoo_deep
    addl    $1, PW_T_DEPTH(%rax)
    shlq    $PW_FRAME_SHIFT, %r10
    leaq    PW_T_FRAMES(%rax,%r10), %r10
    movq    %r11, PW_F_METHOD(%r10)
    movq    (%rsp), %r11
    movq    %r11, PW_F_RET(%r10)
    movl    PW_T_SERIAL(%rax), %r11d
    addl    $1, %r11d
    movl    %r11d, PW_T_SERIAL(%rax)
    /* serial and live = 0 in one store (a 32-bit add zeroed r11's upper
     * half); the invocation's locals start at 0 (tracking/refs.h). */
    movq    %r11, PW_F_SERIAL(%r10)
    movq    $0, PW_F_LOCALS(%r10)
    leaq    pw_native_exit(%rip), %r11
    movq    %r11, (%rsp)
    movq    PW_F_METHOD(%r10), %r11
    jmpq    *PW_M_ORIG(%r11)

.Ltoo_deep:
    addl    $1, PW_T_TOO_DEEP(%rax)
    jmpq    *PW_M_ORIG(%r11)

.Lcreate:
    /* First native call on this thread: make its state in C.  Every
     * argument register is saved; at entry rsp = 8 mod 16, r11 and the
     * 176 bytes of arguments leave it 16-aligned for the call. */
    pushq   %r11
    .cfi_adjust_cfa_offset 8
    PUSH_ARGUMENTS
    call    pw_thread_create
    POP_ARGUMENTS
    popq    %r11
    .cfi_adjust_cfa_offset -8
    testq   %rax, %rax
    jnz     .Lhave_state
    /* Out of memory: the call goes on untracked. */
    jmpq    *PW_M_ORIG(%r11)
    .cfi_endproc
    .size   pw_native_entry, . - pw_native_entry

    /* A return address minus one is looked up by unwinders: keep the byte
     * before pw_native_exit inside a symbol of its own. */
    .globl  pw_native_exit_guard
    .hidden pw_native_exit_guard
    .type   pw_native_exit_guard, @function
pw_native_exit_guard:
    nop
    .size   pw_native_exit_guard, . - pw_native_exit_guard

    .globl  pw_native_exit
    .hidden pw_native_exit
    .type   pw_native_exit, @function
pw_native_exit:
    /* The native method returned here: rax/rdx/xmm0/xmm1 hold its result.
     * Its caller's return address is in the shadow frame, where no CFI can
     * point: unwinders are told the stack ends here. */
    .cfi_startproc
    .cfi_undefined rip
    POP_FRAME
    jne     .Lleaked
    jmpq    *PW_F_RET(%r10)

.Lleaked:
    /* Pins taken by this invocation are still live.  Hand them over in C,
     * then return to the JVM through a real ret: after the native's ret
     * rsp = 0 mod 16; the return address and the result keep the call
     * aligned. */
    pushq   PW_F_RET(%r10)
    PUSH_RESULT
    movq    %r11, %rdi
    movq    %r10, %rsi
    call    pw_invocation_returned
    POP_RESULT
    ret
    .cfi_endproc
    .size   pw_native_exit, . - pw_native_exit

/* Pushes the shadow frame of a call-mode entry for method r11 on thread
 * rax: serial, live and locals 0, and no return address (it stays on the
 * stack, where CFI finds it).  To \too_deep, rax and r11 kept, when the
 * shadow stack is full; otherwise leaves r11 and uses rax and r10, which
 * carry nothing into a non-variadic function. */
    .macro PUSH_CALL_FRAME too_deep
    movl    PW_T_DEPTH(%rax), %r10d
    cmpl    $PW_MAX_DEPTH, %r10d
    jae     \too_deep
    addl    $1, PW_T_DEPTH(%rax)
    addl    $1, PW_T_SERIAL(%rax)
    shlq    $PW_FRAME_SHIFT, %r10
    leaq    PW_T_FRAMES(%rax,%r10), %r10
    movl    PW_T_SERIAL(%rax), %eax
    /* serial and live = 0 in one store; locals 0, as in pw_native_entry. */
    movq    %rax, PW_F_SERIAL(%r10)
    movq    %r11, PW_F_METHOD(%r10)
    movq    $0, PW_F_RET(%r10)
    movq    $0, PW_F_LOCALS(%r10)
    .endm

/* Bytes the call-mode entries reserve below their return address: at
 * entry rsp = 8 mod 16, and an odd count of words makes it 0 for the call.
 * One size for every method keeps the CFI static, and one call
 * instruction (so one return address, pw_native_return) serves both
 * entries. */
#define CALL_RESERVE (PW_CALL_STACK_WORDS * 8)
#if PW_CALL_STACK_WORDS % 2 != 1
#error "PW_CALL_STACK_WORDS must be odd for the call to be 16-byte aligned"
#endif

    /* Call mode: the native function is called, so its ret comes back here
     * as the processor predicted, and our ret goes to the JVM as predicted
     * too (a swapped return address costs a misprediction on every native
     * call).  This entry is for methods whose arguments all travel in
     * registers; pw_native_entry_call_stack, below, for the others. */
    .globl  pw_native_entry_call
    .hidden pw_native_entry_call
    .type   pw_native_entry_call, @function
    .p2align 4
pw_native_entry_call:
    .cfi_startproc
    movq    pw_tls_self@gottpoff(%rip), %rax
    movq    %fs:(%rax), %rax
    testq   %rax, %rax
    /* First native call on this thread: the swap-mode entry makes the
     * thread's state, once. */
    jz      pw_native_entry
    PUSH_CALL_FRAME .Lc_too_deep
    subq    $CALL_RESERVE, %rsp
    .cfi_adjust_cfa_offset CALL_RESERVE
.Lc_call:
    callq   *PW_M_ORIG(%r11)
    .globl  pw_native_return
    .hidden pw_native_return
pw_native_return:
    addq    $CALL_RESERVE, %rsp
    .cfi_adjust_cfa_offset -CALL_RESERVE
    POP_FRAME
    jne     .Lc_leaked
    ret

.Lc_leaked:
    /* rsp = 8 mod 16 here, as at entry: the result's 56 bytes align the
     * call. */
    PUSH_RESULT
    movq    %r11, %rdi
    movq    %r10, %rsi
    call    pw_invocation_returned
    POP_RESULT
    ret

.Lc_too_deep:
    addl    $1, PW_T_TOO_DEEP(%rax)
    jmpq    *PW_M_ORIG(%r11)
    .size   pw_native_entry_call, . - pw_native_entry_call

    /* Call mode for a method whose arguments take PW_M_STACK_WORDS words
     * of stack (1 to PW_CALL_STACK_WORDS; methods.c chooses).  The native
     * function must find them just above the return address the call
     * pushes, so they are copied from above the JVM's return address into
     * the reserve, first word lowest, and the call is the one above: the
     * native returns to pw_native_return, and the frame is the same for
     * unwinders.  The copies are the native's own (it may write to its
     * stack arguments); the JVM's stay as they were. */
    .globl  pw_native_entry_call_stack
    .hidden pw_native_entry_call_stack
    .type   pw_native_entry_call_stack, @function
    .p2align 4
pw_native_entry_call_stack:
    movq    pw_tls_self@gottpoff(%rip), %rax
    movq    %fs:(%rax), %rax
    testq   %rax, %rax
    jz      pw_native_entry
    PUSH_CALL_FRAME .Ls_too_deep
    movl    PW_M_STACK_WORDS(%r11), %r10d
    subq    $CALL_RESERVE, %rsp
    .cfi_adjust_cfa_offset CALL_RESERVE
    /* r10 counts down from the number of words: word r10 - 1 goes from
     * the caller's rsp + 8 * r10 (above our return address) to the
     * call's rsp + 8 * (r10 - 1). */
1:  movq    CALL_RESERVE(%rsp,%r10,8), %rax
    movq    %rax, -8(%rsp,%r10,8)
    subl    $1, %r10d
    jnz     1b
    jmp     .Lc_call
    .cfi_adjust_cfa_offset -CALL_RESERVE

.Ls_too_deep:
    /* Untracked, with the stack as the JVM left it: jumped to. */
    addl    $1, PW_T_TOO_DEEP(%rax)
    jmpq    *PW_M_ORIG(%r11)
    .cfi_endproc
    .size   pw_native_entry_call_stack, . - pw_native_entry_call_stack

    .section .note.GNU-stack, "", @progbits
