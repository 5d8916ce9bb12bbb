/* SPDX-License-Identifier: Apache-2.0 */
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

/* Hash multipliers, one spelling each.  PW_HASH_GOLDEN is 2^64 over the
 * golden ratio, made odd (Knuth's multiplicative hashing, TAOCP vol. 3,
 * 6.4): the top bits of key * PW_HASH_GOLDEN spread aligned addresses
 * evenly.  PW_HASH_MIX2 and PW_HASH_MIX3 are xxHash64's PRIME64_2 and
 * PRIME64_3, odd multipliers for folding in a second and third word. */
#define PW_HASH_GOLDEN 0x9E3779B97F4A7C15ull
#define PW_HASH_MIX2 0xC2B2AE3D27D4EB4Full
#define PW_HASH_MIX3 0x165667B19E3779F9ull
/* The top bits of a 64-bit product hash, the best mixed: an index into a
 * table of 2^bits entries. */
#define PW_HASH_TOP(h, bits) ((uint64_t)(h) >> (64 - (bits)))
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

/* The two functions that open a critical region rather than hand out a
 * copy or a pin the JVM keeps no count of. */
static inline bool
pw_fn_is_critical(uint32_t fn)
{
    return fn == PW_FN_ARRAY_CRITICAL || fn == PW_FN_STRING_CRITICAL;
}

#define PW_FN_IS_REF(fn) ((uint32_t)(fn) >= PW_FN_REF_GLOBAL)
#define PW_FN_IS_LOCAL_REF(fn) ((uint32_t)(fn) >= PW_FN_REF_LOCAL)

PW_HIDDEN const char *pw_function_name(enum pw_function fn);

#endif
