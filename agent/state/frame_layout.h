/* SPDX-License-Identifier: Apache-2.0 */
/* The layout of the per-thread shadow stack, shared between the C
 * structures (thread_state.h, methods.h, which check every offset with
 * static_assert) and the assembler entries of the intercept layer that
 * push and pop its frames. */
#ifndef PW_FRAME_LAYOUT_H
#define PW_FRAME_LAYOUT_H

/* Deeper Java->native->Java->native nesting is not tracked frame by frame:
 * pins taken there are charged to the deepest tracked method. */
#define PW_MAX_DEPTH 127

#define PW_T_DEPTH 0
#define PW_T_SERIAL 4
#define PW_T_TOO_DEEP 8
#define PW_T_CRITICAL 12
#define PW_T_VA_ENV 24
#define PW_T_FRAMES 128
#define PW_T_VA_RET (PW_T_FRAMES + PW_MAX_DEPTH * 32)
#define PW_F_METHOD 0
#define PW_F_RET 8
#define PW_F_SERIAL 16
#define PW_F_LIVE 20
#define PW_F_LOCALS 24
/* A frame is 1 << PW_FRAME_SHIFT bytes: the entry indexes frames by shift. */
#define PW_FRAME_SHIFT 5
#define PW_M_ORIG 32
/* struct pw_method's stack_words: the 8-byte words of stack its arguments
 * take, which the x86-64 call-mode entry copies below its own return
 * address (native_entry_x86_64.S). */
#define PW_M_STACK_WORDS 40
/* The most stack words that entry copies.  It always reserves this many
 * words (an odd count: the call then finds rsp 16-byte aligned), so that
 * its frame has one size and the CFI stays static; a method whose
 * arguments take more keeps the swap-mode entry.  31 words are 37 integer
 * or 39 floating arguments, more than JNI libraries pass in practice;
 * the 248 bytes are stack the JVM's shadow zone has to spare. */
#define PW_CALL_STACK_WORDS 31

#ifndef __ASSEMBLER__
#include <stdbool.h>
#include <stdint.h>

/* Where a tracked native method's own frame returns to: the exit stubs of
 * the intercept layer, which registers them at start
 * (pw_native_entry_init).  An unwinder stops there, and a call whose return
 * address is one of them was the native method's tail call.  [0] is the
 * exit a swapped return address leads to (pw_native_exit): it pops the top
 * shadow frame and returns to the frame's saved address. */
extern uintptr_t pw_native_returns[2] __attribute__((visibility("hidden")));

static inline bool
pw_is_native_return(uintptr_t ip)
{
    return ip != 0 && (ip == pw_native_returns[0] || ip == pw_native_returns[1]);
}
#endif

#endif
