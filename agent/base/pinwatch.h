/* Internal declarations shared by the agent's files.  Everything here is
 * hidden: the module exports only the three Agent_* entry points. */
#ifndef PW_PINWATCH_H
#define PW_PINWATCH_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pinwatch/pinwatch.h"

#define PW_HIDDEN __attribute__((visibility("hidden")))
#define PW_LIKELY(x) __builtin_expect(!!(x), 1)
#define PW_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* The twelve acquire functions.  A pin's row is (native method, acquire
 * function); the release function is only checked against the family. */
enum pw_function {
    PW_FN_BOOLEAN_ELEMENTS,
    PW_FN_BYTE_ELEMENTS,
    PW_FN_CHAR_ELEMENTS,
    PW_FN_SHORT_ELEMENTS,
    PW_FN_INT_ELEMENTS,
    PW_FN_LONG_ELEMENTS,
    PW_FN_FLOAT_ELEMENTS,
    PW_FN_DOUBLE_ELEMENTS,
    PW_FN_ARRAY_CRITICAL,
    PW_FN_STRING_CHARS,
    PW_FN_STRING_UTF_CHARS,
    PW_FN_STRING_CRITICAL,
    PW_FN_COUNT,
    /* Reference rows (JNI references, not pins) share the site table with
     * an fn past the pin functions, so that no array sized PW_FN_COUNT is
     * ever indexed with one.  A local reference's fn is PW_FN_REF_LOCAL
     * plus the JNI table slot of the function that made it. */
    PW_FN_REF_GLOBAL = 16,
    PW_FN_REF_WEAK = 17,
    PW_FN_REF_LOCAL = 32,
    PW_FN_REF_END = PW_FN_REF_LOCAL + 256
};

#define PW_FN_IS_REF(fn) ((uint32_t)(fn) >= PW_FN_REF_GLOBAL)
#define PW_FN_IS_LOCAL_REF(fn) ((uint32_t)(fn) >= PW_FN_REF_LOCAL)

PW_HIDDEN const char *pw_function_name(enum pw_function fn);

#endif
