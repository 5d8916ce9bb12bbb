/* SPDX-License-Identifier: Apache-2.0 */
/* The few processor-specific instructions the C code needs, for each
 * architecture pinwatch runs on (x86-64, aarch64). */
#ifndef PW_CPU_H
#define PW_CPU_H

/* In a spin loop: tells the core (and a hyperthread or SMT sibling) that
 * this thread is waiting. */
static inline void
pw_cpu_relax(void)
{
#if defined(__x86_64__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield" ::: "memory");
#endif
}

/* A return address as the agent compares, caches and symbolises it:
 * without the pointer-authentication code that aarch64 code built with
 * -mbranch-protection may leave in the bits above the virtual address
 * (xpaclri, a HINT-space instruction: a no-op on a CPU without PAuth, so
 * the address comes back as it was).  Identity elsewhere. */
static inline void *
pw_strip_pac(void *address)
{
#if defined(__aarch64__)
    register void *lr __asm__("x30") = address;
    __asm__("hint #7" : "+r"(lr));
    return lr;
#else
    return address;
#endif
}

/* The calling function's return address, stripped.  A macro: it must
 * name the return address of the function it is written in. */
#define PW_RETURN_ADDRESS() pw_strip_pac(__builtin_return_address(0))

#endif
