/* SPDX-License-Identifier: Apache-2.0 */
/* The assembler entries every bound native method goes through
 * (native_entry_<arch>.S) and the JNI guard thunks (jni_guard_<arch>.S).
 * Their frame layout is state/frame_layout.h. */
#ifndef PW_NATIVE_ENTRY_H
#define PW_NATIVE_ENTRY_H

/* jni_guard.S stamps one thunk per slot of the JNI function table, for
 * the newest JNI version pinwatch knows: PW_JNI_SLOTS. */
#include "jvm/jni_table.h"
#include "state/frame_layout.h"

#ifndef __ASSEMBLER__
#include <stdbool.h>
#include <stdint.h>
/* Where each guard thunk jumps: the function the table had before. */
extern void *pw_jni_guard_next[PW_JNI_SLOTS] __attribute__((visibility("hidden")));
/* The thunks' addresses, by slot. */
extern void *const pw_jni_guard_thunks[PW_JNI_SLOTS] __attribute__((visibility("hidden")));
/* Called by a thunk for a JNI call made inside a critical region. */
void pw_jni_guard_hit(uint32_t slot, void *call) __attribute__((visibility("hidden")));
/* The thunk of every bound native method jumps to pw_native_entry; the
 * entry makes pw_native_exit the method's return address. */
void pw_native_entry(void) __attribute__((visibility("hidden")));
void pw_native_exit(void) __attribute__((visibility("hidden")));
/* Call mode, for a method whose signature was known at its binding: the
 * native function is called, not jumped to, and returns to
 * pw_native_return, which keeps the processor's return prediction intact.
 * pw_native_entry_call_stack is the entry of a method with arguments on
 * the stack (struct pw_method's stack_words): on x86-64 it copies them
 * below the return address its call pushes; on aarch64, where a call
 * leaves the stack alone, it is pw_native_entry_call itself. */
void pw_native_entry_call(void) __attribute__((visibility("hidden")));
void pw_native_entry_call_stack(void) __attribute__((visibility("hidden")));
void pw_native_return(void) __attribute__((visibility("hidden")));

/* Hands the entries and exit stubs to the layers below, which must not
 * name them: the method thunks jump to the entries, unwinders and
 * reports recognise the exits.  Call before any method is bound. */
void pw_native_entry_init(void) __attribute__((visibility("hidden")));
#endif

#endif
