/* SPDX-License-Identifier: Apache-2.0 */
/* Where a primitive array keeps its length and its elements, learned once
 * from the running JVM, so that a GetPrimitiveArrayCritical can be sized
 * from the array itself once the JVM has handed out its elements: inside a
 * critical region the array cannot move (HotSpot's GCLocker; G1's pinned
 * regions on JDK 22+), no JNI call is allowed there, and HotSpot hands out
 * the array's own element storage. */
#ifndef PW_ARRAY_LAYOUT_H
#define PW_ARRAY_LAYOUT_H

#include "base/pinwatch.h"

#include <stdatomic.h>
#include <stdint.h>

/* By element size (1, 2, 4, 8): the offset of the elements from the
 * array's start in the low byte, that of its length (a 32-bit int) above
 * it; 0 while not known (never learned, learned wrong, or a JVM whose
 * handles or Gets do not allow it).  One word each, so that a reader sees
 * both offsets of one learning or none. */
PW_HIDDEN extern _Atomic uint32_t pw_array_layout[9];

/* Where the header keeps its class word, when it has one of its own: the
 * offset in the low byte, its width (4 or 8) above it; 0 while not known.
 * Published after pw_array_classes. */
PW_HIDDEN extern _Atomic uint32_t pw_array_class_at;
/* The class words of boolean[], byte[], char[], short[], int[], long[],
 * float[] and double[], and their element sizes. */
PW_HIDDEN extern uint64_t pw_array_classes[8];
PW_HIDDEN extern const uint8_t pw_array_class_elem[8];

/* Learns the layout on a thread of the JVM with env, outside any critical
 * region and with no exception pending, through the JVM's own functions
 * (pw_jni, saved before: does nothing without it); logs what it learned, or
 * why nothing, at debug level.  Once per process: later calls return. */
PW_HIDDEN void pw_array_layout_learn(JNIEnv *env);

/* Forgets the layout: a critical Get whose array did not match it.  Makes
 * no JNI call (it runs inside the region). */
PW_HIDDEN void pw_array_layout_forget(void);

/* The low bits of a jobject that are a tag, not part of the address of its
 * oop slot: JDK 17 tags weak globals with bit 0, JDK 21+ weak globals with
 * 0b01 and globals with 0b10 (runtime/jniHandles.hpp, TypeTag).  A slot is
 * an aligned oop*, so clearing both is right for every kind of handle. */
#define PW_JNI_HANDLE_TAGS ((uintptr_t)3)

/* The length of array, whose elements the JVM has just handed out at p
 * (not a copy: a critical Get's), read from its header with the layout
 * word lw (not 0); -1 when the object the handle names does not have its
 * elements at p, which says that the layout does not hold (or the Get made
 * a copy).  No JNI call; the handle is the one the Get was made with, so
 * its slot is readable, and the header is read only once it is known to
 * be p's own. */
static inline int32_t
pw_array_length_at(jarray array, const void *p, uint32_t lw)
{
    uintptr_t slot = (uintptr_t)array & ~PW_JNI_HANDLE_TAGS;
    if (PW_UNLIKELY(slot == 0))
        return -1;
    uintptr_t oop = *(const volatile uintptr_t *)slot;
    if (PW_UNLIKELY(oop + (lw & 0xff) != (uintptr_t)p))
        return -1;
    return *(const volatile int32_t *)(oop + (lw >> 8));
}

/* The element size and length of the array whose elements the JVM has
 * just handed out at p (a critical Get's, not a copy), from its header
 * alone: its class word tells its type; 0 when it cannot be told.  For a
 * Get made inside another critical region, whose site's element size could
 * not be asked.  Nothing is read through the handle's object before it is
 * known to lie just below p. */
static inline unsigned
pw_array_elem_at(jarray array, const void *p, int32_t *len)
{
    uint32_t ca = atomic_load_explicit(&pw_array_class_at, memory_order_acquire);
    uintptr_t slot = (uintptr_t)array & ~PW_JNI_HANDLE_TAGS;
    if (ca == 0 || slot == 0)
        return 0;
    uintptr_t oop = *(const volatile uintptr_t *)slot;
    uintptr_t d = (uintptr_t)p - oop;
    if (d < 8 || d > 32)
        return 0;
    uintptr_t at = oop + (ca & 0xff);
    uint64_t word = (ca >> 8) == 4 ? *(const volatile uint32_t *)at : *(const volatile uint64_t *)at;
    for (int type = 0; type < 8; type++) {
        if (word != pw_array_classes[type])
            continue;
        unsigned elem = pw_array_class_elem[type];
        uint32_t lw = atomic_load_explicit(&pw_array_layout[elem], memory_order_relaxed);
        if (lw == 0 || (lw & 0xff) != d)
            return 0;
        *len = *(const volatile int32_t *)(oop + (lw >> 8));
        return elem;
    }
    return 0;
}

#endif
