/* SPDX-License-Identifier: Apache-2.0 */
/* The JNI guards of jni_guard_x86_64.S for aarch64 (AAPCS64): one thunk
 * per slot of the JNI function table that looks at the thread's critical
 * count and, when it is not zero, reports the call (pw_jni_guard_hit)
 * before passing it on.  Only x16, x17 and the flags are touched on the
 * way through; the onward branch goes through x16, which a BTI landing
 * pad ("bti c") of the function behind accepts. */

#include "intercept/asm_macros_aarch64.h"
#include "intercept/native_entry.h"

    .text

    .macro GUARD slot
    .p2align 3
pw_jni_guard_\slot:
    BTI_C
    TLS_SELF x16, x17
    cbz     x16, 1f
    ldr     w16, [x16, #PW_T_CRITICAL]
    cbnz    w16, 2f
1:  adrp    x16, pw_jni_guard_next + 8 * \slot
    ldr     x16, [x16, #:lo12:pw_jni_guard_next + 8 * \slot]
    br      x16
2:  mov     w17, #\slot
    b       pw_jni_guard_slow
    .endm

    .altmacro
    .set    slot, 0
    .rept   PW_JNI_SLOTS
    GUARD   %slot
    .set    slot, slot + 1
    .endr
    .noaltmacro

    /* w17 = slot, x30 = the caller's return address.  Every register a
     * JNI function may take an argument in is kept, the vector registers
     * of a variadic call included. */
    .p2align 4
    .type   pw_jni_guard_slow, %function
pw_jni_guard_slow:
    .cfi_startproc
    SAVE_ARGUMENTS
    mov     w0, w17
    mov     x1, x30
    bl      pw_jni_guard_hit
    RESTORE_ARGUMENTS
    adrp    x16, pw_jni_guard_next
    add     x16, x16, #:lo12:pw_jni_guard_next
    ldr     x16, [x16, x17, lsl #3]
    br      x16
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
    .altmacro
    .set    slot, 0
    .rept   PW_JNI_SLOTS
    GUARD_ADDRESS %slot
    .set    slot, slot + 1
    .endr
    .noaltmacro

    .bss
    .p2align 3
    .globl  pw_jni_guard_next
    .hidden pw_jni_guard_next
pw_jni_guard_next:
    .zero   8 * PW_JNI_SLOTS

    GNU_PROPERTY_NOTE
    .section .note.GNU-stack, "", %progbits
