/* SPDX-License-Identifier: Apache-2.0 */
/* The variadic wrappers of va_forward.h for aarch64 (AAPCS64).  The
 * caller's return address (x30) is kept in the thread's state while the
 * JVM's variadic function, called in its place, runs with x0-x8 and q0-q7
 * untouched; the stack is not moved at all.  Only x9, x16, x17 and the
 * flags are used on the way in. */

#include "intercept/asm_macros_aarch64.h"
#include "intercept/va_forward.h"

    .text

    .macro FORWARD name, slot
    .globl  pw_va_\name
    .hidden pw_va_\name
    .type   pw_va_\name, %function
    .p2align 3
pw_va_\name:
    .cfi_startproc
    BTI_C
    TLS_SELF x16, x17
    cbz     x16, 1f
    ldr     w17, [x16, #PW_T_DEPTH]
    cbz     w17, 1f
    /* The slot of the innermost shadow frame: free unless a native method
     * without a frame of its own (bound before a late attach) is already
     * in a call made the same way. */
    add     x17, x16, x17, lsl #3
    ldr     x9, [x17, #(PW_T_VA_RET - 8)]
    cbnz    x9, 1f
    .cfi_remember_state
    str     x30, [x17, #(PW_T_VA_RET - 8)]
    /* The return address is in the thread's state, where no CFI can
     * point: unwinders are told the stack ends here. */
    .cfi_undefined x30
    str     x0, [x16, #PW_T_VA_ENV]
    adrp    x16, pw_jni + 8 * \slot
    ldr     x16, [x16, #:lo12:pw_jni + 8 * \slot]
    blr     x16
    mov     w1, #\slot
    bl      pw_va_returned
    mov     x30, x1
    ret
1:  .cfi_restore_state
    b       pw_va_fallback_\name
    .cfi_endproc
    .size   pw_va_\name, . - pw_va_\name
    .endm

    FORWARD NewObject, PW_SLOT_NEW_OBJECT
    FORWARD CallObjectMethod, PW_SLOT_CALL_OBJECT_METHOD
    FORWARD CallNonvirtualObjectMethod, PW_SLOT_CALL_NONVIRTUAL_OBJECT_METHOD
    FORWARD CallStaticObjectMethod, PW_SLOT_CALL_STATIC_OBJECT_METHOD

    GNU_PROPERTY_NOTE
    .section .note.GNU-stack, "", %progbits
