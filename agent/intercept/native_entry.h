/* Layout shared between native_entry_<arch>.S, jni_guard_<arch>.S and the
 * C structures they touch.  thread_state.c and methods.c check every offset
 * with static_assert. */
#ifndef PW_NATIVE_ENTRY_H
#define PW_NATIVE_ENTRY_H

/* Deeper Java->native->Java->native nesting is not tracked frame by frame:
 * pins taken there are charged to the deepest tracked method. */
#define PW_MAX_DEPTH 127

#define PW_T_DEPTH 0
#define PW_T_SERIAL 4
#define PW_T_TOO_DEEP 8
#define PW_T_FRAMES 64
#define PW_F_METHOD 0
#define PW_F_RET 8
#define PW_F_SERIAL 16
#define PW_F_LIVE 20
#define PW_FRAME_SHIFT 5
#define PW_M_ORIG 32
#define PW_T_CRITICAL 12

/* jni_guard_<arch>.S: one thunk per slot of the JNI function table. */
#define PW_GUARD_SLOTS 234

#ifndef __ASSEMBLER__
#include <stdbool.h>
#include <stdint.h>
/* Where each guard thunk jumps: the function the table had before. */
extern void *pw_jni_guard_next[PW_GUARD_SLOTS] __attribute__((visibility("hidden")));
/* The thunks' addresses, by slot. */
extern void *const pw_jni_guard_thunks[PW_GUARD_SLOTS] __attribute__((visibility("hidden")));
/* Called by a thunk for a JNI call made inside a critical region. */
void pw_jni_guard_hit(uint32_t slot, void *call) __attribute__((visibility("hidden")));
/* The thunk of every bound native method jumps to pw_native_entry; the
 * entry makes pw_native_exit the method's return address. */
void pw_native_entry(void) __attribute__((visibility("hidden")));
void pw_native_exit(void) __attribute__((visibility("hidden")));
/* The same for a method whose arguments all travel in registers: the
 * native function is called, not jumped to, and returns to
 * pw_native_return, which keeps the processor's return prediction intact. */
void pw_native_entry_call(void) __attribute__((visibility("hidden")));
void pw_native_return(void) __attribute__((visibility("hidden")));

/* Where a native method's own frame returns to: an unwinder stops there,
 * and a Get whose return address it is was the method's tail call. */
static inline bool
pw_is_native_return(uintptr_t ip)
{
    return ip == (uintptr_t)pw_native_exit || ip == (uintptr_t)pw_native_return;
}
#endif

#endif
