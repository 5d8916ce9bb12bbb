/* SPDX-License-Identifier: Apache-2.0 */
/* The JNI function table in order, slot by slot: JDK 17's
 * JNINativeInterface_ (the oldest JDK pinwatch supports) and the slots later
 * JDKs appended, each JDK's table being a prefix of this list.  Defined
 * once, in jni_table.c, generated from jni.h; the unit test
 * jni-function-names (tests/checks/check_jni_names.py) checks the order and the
 * table sizes there against the jni.h of every JDK the suite runs on.
 * Other layers ask pw_jni_slot_name (jni_table.h). */
#ifndef PW_JNI_FUNCTION_NAMES_H
#define PW_JNI_FUNCTION_NAMES_H

#include "jvm/jni_table.h"

PW_HIDDEN extern const char *const pw_jni_function_names[PW_JNI_SLOTS];

#endif
