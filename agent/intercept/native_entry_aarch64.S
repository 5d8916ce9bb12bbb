/* SPDX-License-Identifier: Apache-2.0 */
/* Entry and exit of every Java native method bound while pinwatch runs,
 * aarch64 (AAPCS64).  The x86-64 twin, native_entry_x86_64.S, says what
 * they are for; this file does the same with the same shadow frames.
 *
 * The thunk of each method (methods.c) loads its struct pw_method into x17
 * and branches here through x16.  Only x9-x11, x16 and x17 are used on
 * the way in: none of them carries an argument, and x8 (the indirect
 * result pointer) and x18 (the platform register) are left alone.
 *
 * A call does not move sp on aarch64 (the return address goes to x30),
 * so the call-mode entry works for every signature, stack arguments
 * included, with nothing to copy: methods.c uses it for every method whose
 * signature it knows, and the swap-mode entry for the others (bound in the
 * primordial phase), as on x86-64.  pw_native_entry_call_stack, which on
 * x86-64 copies stack arguments, is the same entry here.  In call mode the JVM's return address is kept in the
 * shadow frame (PW_F_RET) across the call. */

#include "intercept/asm_macros_aarch64.h"
#include "intercept/native_entry.h"

    .text

/* x9 = the thread's state, made on first use (every argument register
 * kept); to \untracked with x9 = 0 when memory ran out. */
    .macro ENSURE_STATE untracked
    TLS_SELF x9, x10
    cbnz    x9, 1f
    SAVE_ARGUMENTS
    bl      pw_thread_create
    mov     x9, x0
    RESTORE_ARGUMENTS
    cbz     x9, \untracked
1:
    .endm

/* Pushes a shadow frame for method x17 returning to x30 on thread x9;
 * leaves x10 = the frame.  To \too_deep when the shadow stack is full.
 * The frames are the thread's own: no other thread reads them, so plain
 * stores are enough, as on x86-64. */
    .macro PUSH_FRAME too_deep
    ldr     w10, [x9, #PW_T_DEPTH]
    cmp     w10, #PW_MAX_DEPTH
    b.hs    \too_deep
    add     w11, w10, #1
    str     w11, [x9, #PW_T_DEPTH]
    add     x10, x9, x10, lsl #PW_FRAME_SHIFT
    add     x10, x10, #PW_T_FRAMES
    str     x17, [x10, #PW_F_METHOD]
    str     x30, [x10, #PW_F_RET]
    ldr     w11, [x9, #PW_T_SERIAL]
    add     w11, w11, #1
    str     w11, [x9, #PW_T_SERIAL]
    /* serial and live = 0 in one store pair; the invocation's locals
     * start at 0 (tracking/refs.h). */
    stp     w11, wzr, [x10, #PW_F_SERIAL]
    str     xzr, [x10, #PW_F_LOCALS]
    .endm

/* The native method has returned: pop its shadow frame.  Leaves x9 = the
 * thread's state, x10 = the popped frame, w11 = its live pins and x30 =
 * the JVM's return address.  x0, x1 and q0-q7 (the result) are kept. */
    .macro POP_FRAME
    TLS_SELF x9, x10
    ldr     w10, [x9, #PW_T_DEPTH]
    sub     w10, w10, #1
    str     w10, [x9, #PW_T_DEPTH]
    add     x10, x9, x10, lsl #PW_FRAME_SHIFT
    add     x10, x10, #PW_T_FRAMES
    ldr     w11, [x10, #PW_F_LIVE]
    ldr     x30, [x10, #PW_F_RET]
    .endm

/* Pins taken by the invocation are still live: hand them over in C, then
 * return to the JVM with the result intact. */
    .macro HAND_OVER
    SAVE_RESULT
    mov     x0, x9
    mov     x1, x10
    bl      pw_invocation_returned
    RESTORE_RESULT
    ret
    .endm

    .macro COUNT_TOO_DEEP
    ldr     w10, [x9, #PW_T_TOO_DEEP]
    add     w10, w10, #1
    str     w10, [x9, #PW_T_TOO_DEEP]
    .endm

    .globl  pw_native_entry
    .hidden pw_native_entry
    .type   pw_native_entry, %function
    .p2align 4
pw_native_entry:
    .cfi_startproc
    BTI_C
    ENSURE_STATE .Luntracked
    PUSH_FRAME .Ltoo_deep
    adr     x30, pw_native_exit
    ldr     x16, [x17, #PW_M_ORIG]
    br      x16

.Ltoo_deep:
    COUNT_TOO_DEEP
.Luntracked:
    ldr     x16, [x17, #PW_M_ORIG]
    br      x16
    .cfi_endproc
    .size   pw_native_entry, . - pw_native_entry

    /* Unwinders look up a return address minus one (or minus four): keep
     * the instruction before pw_native_exit inside a symbol of its own. */
    .globl  pw_native_exit_guard
    .hidden pw_native_exit_guard
    .type   pw_native_exit_guard, %function
pw_native_exit_guard:
    nop
    .size   pw_native_exit_guard, . - pw_native_exit_guard

    .globl  pw_native_exit
    .hidden pw_native_exit
    .type   pw_native_exit, %function
pw_native_exit:
    /* The native method returned here: x0/x1/q0 hold its result.  Its
     * caller's return address is in the shadow frame, where no CFI can
     * point: unwinders are told the stack ends here. */
    .cfi_startproc
    .cfi_undefined x30
    POP_FRAME
    cbnz    w11, .Lleaked
    ret
.Lleaked:
    HAND_OVER
    .cfi_endproc
    .size   pw_native_exit, . - pw_native_exit

    /* Call mode: the native function is called, so its ret comes back here
     * as the processor's return stack predicted, and our ret goes to the
     * JVM as predicted too. */
    .globl  pw_native_entry_call
    .hidden pw_native_entry_call
    .type   pw_native_entry_call, %function
    .p2align 4
pw_native_entry_call:
    .cfi_startproc
    BTI_C
    ENSURE_STATE .Lc_untracked
    PUSH_FRAME .Lc_too_deep
    ldr     x16, [x17, #PW_M_ORIG]
    /* From the call on, the JVM's return address lives only in the
     * shadow frame: the stack ends here for unwinders, as in the exit. */
    .cfi_remember_state
    .cfi_undefined x30
    blr     x16
    .globl  pw_native_return
    .hidden pw_native_return
pw_native_return:
    POP_FRAME
    cbnz    w11, .Lc_leaked
    ret
.Lc_leaked:
    HAND_OVER

    .cfi_restore_state
.Lc_too_deep:
    COUNT_TOO_DEEP
.Lc_untracked:
    ldr     x16, [x17, #PW_M_ORIG]
    br      x16
    .cfi_endproc
    .size   pw_native_entry_call, . - pw_native_entry_call

    .globl  pw_native_entry_call_stack
    .hidden pw_native_entry_call_stack
    .set    pw_native_entry_call_stack, pw_native_entry_call

    GNU_PROPERTY_NOTE
    .section .note.GNU-stack, "", %progbits
