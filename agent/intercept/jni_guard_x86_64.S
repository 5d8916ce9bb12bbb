/* SPDX-License-Identifier: Apache-2.0 */
/* A guard for every JNI function: a thread that holds a critical region
 * (GetPrimitiveArrayCritical or GetStringCritical not yet released) must
 * call no other JNI function.  Each slot of the JNI function table gets a
 * thunk that looks at the thread's critical count and, when it is not
 * zero, reports the call (pw_jni_guard_hit) before passing it on.  Thunks
 * are stamped out by the assembler, one per slot, so all 230 signatures,
 * variadic ones included, are handled without writing one by hand: nothing
 * but r10, r11 and the flags is touched on the way through. */

#include "intercept/asm_macros_x86_64.h"
#include "intercept/native_entry.h"

    .text

    .macro GUARD slot
    .p2align 4
pw_jni_guard_\slot:
    movq    pw_tls_self@gottpoff(%rip), %r11
    movq    %fs:(%r11), %r11
    testq   %r11, %r11
    jz      1f
    cmpl    $0, PW_T_CRITICAL(%r11)
    jne     2f
1:  jmpq    *(pw_jni_guard_next + 8 * \slot)(%rip)
2:  movl    $\slot, %r10d
    jmp     pw_jni_guard_slow
    .endm

    .altmacro
    .set    slot, 0
    .rept   PW_JNI_SLOTS
    GUARD   %slot
    .set    slot, slot + 1
    .endr

    /* r10 = slot, [rsp] = the caller's return address.  Every register a
     * JNI function may take an argument in is kept, rax too (the vector
     * count of a variadic call).  At entry rsp = 8 mod 16: rax, r10, 8
     * bytes of padding and 176 of arguments align the call. */
    .p2align 4
    .type   pw_jni_guard_slow, @function
pw_jni_guard_slow:
    .cfi_startproc
    pushq   %rax
    .cfi_adjust_cfa_offset 8
    pushq   %r10
    .cfi_adjust_cfa_offset 8
    subq    $8, %rsp
    .cfi_adjust_cfa_offset 8
    PUSH_ARGUMENTS
    movl    %r10d, %edi
    movq    (176 + 24)(%rsp), %rsi
    call    pw_jni_guard_hit
    POP_ARGUMENTS
    addq    $8, %rsp
    .cfi_adjust_cfa_offset -8
    popq    %r10
    .cfi_adjust_cfa_offset -8
    popq    %rax
    .cfi_adjust_cfa_offset -8
    leaq    pw_jni_guard_next(%rip), %r11
    jmpq    *(%r11,%r10,8)
    .cfi_endproc
    .size   pw_jni_guard_slow, . - pw_jni_guard_slow

    .macro GUARD_ADDRESS slot
    .quad   pw_jni_guard_\slot
    .endm

    .section .data.rel.ro, "aw"
    .p2align 3
    .globl  pw_jni_guard_thunks
    .hidden pw_jni_guard_thunks
pw_jni_guard_thunks:
    .set    slot, 0
    .rept   PW_JNI_SLOTS
    GUARD_ADDRESS %slot
    .set    slot, slot + 1
    .endr

    .bss
    .p2align 3
    .globl  pw_jni_guard_next
    .hidden pw_jni_guard_next
pw_jni_guard_next:
    .zero   8 * PW_JNI_SLOTS

    .section .note.GNU-stack, "", @progbits
