/* SPDX-License-Identifier: Apache-2.0 */
/* The variadic wrappers of va_forward.h for x86-64 (SysV).  The caller's
 * return address leaves the stack for the thread's state, so that the
 * JVM's variadic function, called in its place, finds its stack arguments
 * where the caller put them; rdi..r9, xmm0-7 and al (the vector count) go
 * through untouched.  Only r10, r11 and the flags are used on the way in. */

#include "intercept/va_forward.h"

    .text

    .macro FORWARD name, slot
    .globl  pw_va_\name
    .hidden pw_va_\name
    .type   pw_va_\name, @function
    .p2align 4
pw_va_\name:
    .cfi_startproc
    movq    pw_tls_self@gottpoff(%rip), %r11
    movq    %fs:(%r11), %r11
    testq   %r11, %r11
    jz      1f
    movl    PW_T_DEPTH(%r11), %r10d
    testl   %r10d, %r10d
    jz      1f
    /* The slot of the innermost shadow frame: free unless a native method
     * without a frame of its own (bound before a late attach) is already
     * in a call made the same way. */
    cmpq    $0, (PW_T_VA_RET - 8)(%r11,%r10,8)
    jne     1f
    .cfi_remember_state
    popq    (PW_T_VA_RET - 8)(%r11,%r10,8)
    .cfi_adjust_cfa_offset -8
    /* The return address is in the thread's state, where no CFI can
     * point: unwinders are told the stack ends here. */
    .cfi_undefined rip
    movq    %rdi, PW_T_VA_ENV(%r11)
    callq   *(pw_jni + 8 * \slot)(%rip)
    /* rsp = 0 mod 16 again, as after the pop. */
    movq    %rax, %rdi
    movl    $\slot, %esi
    callq   pw_va_returned
    pushq   %rdx
    .cfi_adjust_cfa_offset 8
    ret
1:  .cfi_restore_state
    jmp     pw_va_fallback_\name
    .cfi_endproc
    .size   pw_va_\name, . - pw_va_\name
    .endm

    FORWARD NewObject, PW_SLOT_NEW_OBJECT
    FORWARD CallObjectMethod, PW_SLOT_CALL_OBJECT_METHOD
    FORWARD CallNonvirtualObjectMethod, PW_SLOT_CALL_NONVIRTUAL_OBJECT_METHOD
    FORWARD CallStaticObjectMethod, PW_SLOT_CALL_STATIC_OBJECT_METHOD

    .section .note.GNU-stack, "", @progbits
