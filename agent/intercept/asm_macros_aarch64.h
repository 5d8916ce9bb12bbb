/* SPDX-License-Identifier: Apache-2.0 */
/* Register saving, thread-local access and landing pads shared by the
 * aarch64 assembler entries (native_entry_aarch64.S, jni_guard_aarch64.S):
 * they run between a caller and a function whose arguments or results must
 * reach the other side untouched. */
#ifndef PW_ASM_MACROS_AARCH64_H
#define PW_ASM_MACROS_AARCH64_H

#ifdef __ASSEMBLER__

/* A landing pad for an indirect call or a branch through x16/x17: every
 * entry the JVM or native code reaches by blr/br starts with one.  HINT
 * space, so a no-op where BTI is absent or not enforced. */
    .macro BTI_C
    hint    #34
    .endm

/* \reg = pw_tls_self (initial-exec: the offset from the thread pointer
 * is in the GOT), \tmp clobbered. */
    .macro TLS_SELF reg, tmp
    mrs     \reg, tpidr_el0
    adrp    \tmp, :gottprel:pw_tls_self
    ldr     \tmp, [\tmp, #:gottprel_lo12:pw_tls_self]
    ldr     \reg, [\reg, \tmp]
    .endm

/* Everything a function may take an argument in under AAPCS64: x0-x7,
 * x8 (the indirect result pointer) and the full q0-q7 (variadic calls
 * pass vectors there too), plus x17 (the entries' method or slot), the
 * frame pointer and the link register.  224 bytes: sp stays 16-aligned.
 * x29 is made to point at the saved pair, so frame-pointer walkers see
 * a proper frame. */
    .macro SAVE_ARGUMENTS
    sub     sp, sp, #224
    .cfi_adjust_cfa_offset 224
    stp     x29, x30, [sp, #0]
    .cfi_rel_offset x29, 0
    .cfi_rel_offset x30, 8
    mov     x29, sp
    stp     x0, x1, [sp, #16]
    stp     x2, x3, [sp, #32]
    stp     x4, x5, [sp, #48]
    stp     x6, x7, [sp, #64]
    stp     x8, x17, [sp, #80]
    stp     q0, q1, [sp, #96]
    stp     q2, q3, [sp, #128]
    stp     q4, q5, [sp, #160]
    stp     q6, q7, [sp, #192]
    .endm

    .macro RESTORE_ARGUMENTS
    ldp     q6, q7, [sp, #192]
    ldp     q4, q5, [sp, #160]
    ldp     q2, q3, [sp, #128]
    ldp     q0, q1, [sp, #96]
    ldp     x8, x17, [sp, #80]
    ldp     x6, x7, [sp, #64]
    ldp     x4, x5, [sp, #48]
    ldp     x2, x3, [sp, #32]
    ldp     x0, x1, [sp, #16]
    ldp     x29, x30, [sp, #0]
    .cfi_restore x29
    .cfi_restore x30
    add     sp, sp, #224
    .cfi_adjust_cfa_offset -224
    .endm

/* A native method's result (x0:x1, q0:q1) and the link register, which
 * holds the JVM's return address, around a call into C after the method
 * returned: 64 bytes.  No CFI for x30: the exit stubs declare the stack
 * ends there, as on x86-64. */
    .macro SAVE_RESULT
    sub     sp, sp, #64
    .cfi_adjust_cfa_offset 64
    stp     x29, x30, [sp, #0]
    mov     x29, sp
    stp     x0, x1, [sp, #16]
    stp     q0, q1, [sp, #32]
    .endm

    .macro RESTORE_RESULT
    ldp     q0, q1, [sp, #32]
    ldp     x0, x1, [sp, #16]
    ldp     x29, x30, [sp, #0]
    add     sp, sp, #64
    .cfi_adjust_cfa_offset -64
    .endm

/* The GNU property note says which branch protection this object keeps.
 * Only when the compiler was asked for it (-mbranch-protection), so that
 * the .S objects agree with the C objects they are linked with: the
 * linker marks the module BTI only when every object says so.  Every
 * indirect branch target here has its BTI_C; nothing signs x30. */
    .macro GNU_PROPERTY_NOTE
#if defined(__ARM_FEATURE_BTI_DEFAULT) || defined(__ARM_FEATURE_PAC_DEFAULT)
    .pushsection .note.gnu.property, "a"
    .p2align 3
    .word   4
    .word   16
    .word   5               /* NT_GNU_PROPERTY_TYPE_0 */
    .asciz  "GNU"
    .word   0xc0000000      /* GNU_PROPERTY_AARCH64_FEATURE_1_AND */
    .word   4
#if defined(__ARM_FEATURE_BTI_DEFAULT) && defined(__ARM_FEATURE_PAC_DEFAULT)
    .word   3               /* BTI | PAC */
#elif defined(__ARM_FEATURE_BTI_DEFAULT)
    .word   1               /* BTI */
#else
    .word   2               /* PAC */
#endif
    .word   0
    .popsection
#endif
    .endm

#endif
#endif
