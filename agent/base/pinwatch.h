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

/* What pinwatch tracks.  A site (state/site_table.h) belongs to one kind;
 * each kind has its own table, its own part of the thread state and its
 * own tracking file (agent/README.md, "A tracked resource kind"). */
enum pw_kind {
    PW_KIND_PIN,        /* a Get<...> pin, until its Release */
    PW_KIND_GLOBAL_REF, /* NewGlobalRef, until DeleteGlobalRef */
    PW_KIND_WEAK_REF,   /* NewWeakGlobalRef, until DeleteWeakGlobalRef */
    PW_KIND_LOCAL_REF,  /* any local reference a JNI function returned */
    PW_KIND_COUNT
};

/* The twelve acquire functions.  A pin's row is (native method, acquire
 * function); the release function is only checked against the family.
 * A reference site's fn is no pw_function but the JNI table slot of the
 * function that made it (its kind says which). */
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

/* The two functions that open a critical region rather than hand out a
 * copy or a pin the JVM keeps no count of. */
static inline bool
pw_fn_is_critical(uint32_t fn)
{
    return fn == PW_FN_ARRAY_CRITICAL || fn == PW_FN_STRING_CRITICAL;
}

PW_HIDDEN const char *pw_function_name(enum pw_function fn);

#endif
