/* SPDX-License-Identifier: Apache-2.0 */
/* Java native methods: one struct pw_method per binding, made when the JVM
 * binds the method (NativeMethodBind) and given an entry thunk of its own,
 * so that the method's invocations can be told apart on the shadow stack. */
#ifndef PW_METHODS_H
#define PW_METHODS_H

#include "base/pinwatch.h"
#include "state/frame_layout.h"

#include <stdatomic.h>

struct pw_method {
    uint8_t code[32]; /* the thunk: r11 (x17 on aarch64) = this; jump to the entry */
    void *orig;       /* PW_M_ORIG: the function the JVM wanted to call */
    /* PW_M_STACK_WORDS: 8-byte stack words of its arguments that the
     * entry copies for the call (x86-64 call mode); set before the thunk
     * is handed to the JVM, never changed. */
    uint32_t stack_words;
    jmethodID id;
    /* "pkg.Outer$Inner.name" and "(J[J)[J": set once, when the JVM can
     * name the method (start or live phase); read by reports. */
    _Atomic(char *) name;
    _Atomic(char *) signature;
    atomic_bool rebind_tried;
    struct pw_method *next;
};

/* Charged with pins taken on threads that are in no Java native method. */
PW_HIDDEN extern struct pw_method pw_method_native_thread;

/* Where thunks jump (intercept/native_entry.h): the general entry (swap
 * mode), the one for methods whose arguments all travel in registers, and
 * the one for methods with stack_words of arguments on the stack (both
 * call mode). */
PW_HIDDEN void pw_methods_set_entries(void *jump, void *call, void *call_stack);

/* The address to symbolise for a call whose return address is ret, made
 * inside m: ret itself (looking up ret - 1 names the caller), or, when the
 * call was m's tail call and so returns straight to the exit stub, m's own
 * function + 1; *tail then says so.  0 when the caller cannot be known. */
static inline uintptr_t
pw_method_caller(const struct pw_method *m, uintptr_t ret, bool *tail)
{
    bool is_tail = pw_is_native_return(ret);
    if (tail != NULL)
        *tail = is_tail;
    if (!is_tail)
        return ret;
    return m != NULL && m->orig != NULL ? (uintptr_t)m->orig + 1 : 0;
}

PW_HIDDEN void JNICALL pw_on_native_method_bind(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jmethodID method,
                                                void *address, void **new_address);

/* Names every method bound before the JVM could name it (primordial phase). */
PW_HIDDEN void pw_methods_name_all(jvmtiEnv *jvmti);

/* The method record for a jmethodID met without a bind event (a method
 * bound before a late attach): named, not thunked. */
PW_HIDDEN struct pw_method *pw_method_unbound(jvmtiEnv *jvmti, jmethodID id);

/* After a late attach: a method bound before it (m from pw_method_unbound)
 * whose Get was made from ret is bound again, to the same function, so that
 * NativeMethodBind gives it a thunk.  Only when ret lies in the function
 * the JVM links by name (Java_..., exported), so the binding is unchanged. */
PW_HIDDEN void pw_method_rebind(jvmtiEnv *jvmti, JNIEnv *env, struct pw_method *m, void *ret);

/* Binds method m (named) of klass to a thunk for function f, through
 * RegisterNatives; true when the JVM took it. */
PW_HIDDEN bool pw_method_bind_to_thunk(jvmtiEnv *jvmti, JNIEnv *env, struct pw_method *m, jclass klass, void *f);

/* Display name for reports; never NULL. */
PW_HIDDEN const char *pw_method_name(const struct pw_method *m);
PW_HIDDEN const char *pw_method_signature(const struct pw_method *m);

#endif
