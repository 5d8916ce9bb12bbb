/* SPDX-License-Identifier: Apache-2.0 */
/* The natives of the Java API (agent/java/api, class io.pinwatch.Pinwatch):
 * the agent binds them itself when that class is prepared, so the jar
 * carries no native library.  They read the tables as a report's snapshot
 * does (pw_snapshot_take_sites) and hand a dump to the report thread; none
 * of them touches the hot path. */
#ifndef PW_JAVA_API_H
#define PW_JAVA_API_H

#include "base/pinwatch.h"

/* The class whose natives are the API, as JVMTI's GetClassSignature spells it. */
#define PW_JAVA_API_CLASS "Lio/pinwatch/Pinwatch;"

/* The protocol between the agent and io.pinwatch.Pinwatch (Pinwatch.PROTOCOL):
 * what the natives take and answer, sites0's layout above all.  Raised by one
 * whenever either side changes it, so that a pinwatch-api jar of another
 * version says so (isLoaded() false, one line naming both numbers) instead
 * of misreading positional figures. */
#define PW_JAVA_PROTOCOL 1

/* Registers the natives on cls (a class named PW_JAVA_API_CLASS); jvmti
 * names methods that were bound before they had names.  False, with an
 * error line, when the JVM refused them. */
PW_HIDDEN bool pw_java_api_bind(jvmtiEnv *jvmti, JNIEnv *jni, jclass cls);

#endif
