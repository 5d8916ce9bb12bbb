/* SPDX-License-Identifier: Apache-2.0 */
/* jni_in_critical: every JNI function checks whether its caller holds a
 * critical region (one TLS load and a compare on the way through). */
#ifndef PW_JNI_GUARD_H
#define PW_JNI_GUARD_H

#include "base/pinwatch.h"

/* Puts a guard thunk in front of each of the first nslots slots of the
 * JVM's table (see pw_jni_table_slots: never more than the JVM's own table
 * has) not yet replaced by a pin hook; call it before the hooks are
 * stored. */
PW_HIDDEN void pw_jni_guard_install(void **slots, uint32_t nslots);

#endif
