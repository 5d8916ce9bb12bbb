/* jni_in_critical: every JNI function checks whether its caller holds a
 * critical region (one TLS load and a compare on the way through). */
#ifndef PW_JNI_GUARD_H
#define PW_JNI_GUARD_H

#include "pinwatch.h"

/* Puts a guard thunk in front of every slot of table not yet replaced by a
 * pin hook; call it before the hooks are stored. */
PW_HIDDEN void pw_jni_guard_install(struct JNINativeInterface_ *table);

/* "GetObjectClass" for a slot of the JNI function table. */
PW_HIDDEN const char *pw_jni_slot_name(uint32_t slot);

#endif
