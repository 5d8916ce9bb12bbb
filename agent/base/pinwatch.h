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
    PW_FN_COUNT
};

PW_HIDDEN const char *pw_function_name(enum pw_function fn);

#endif
