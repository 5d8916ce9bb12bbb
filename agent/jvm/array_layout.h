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

#endif
