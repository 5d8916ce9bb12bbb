/* SPDX-License-Identifier: Apache-2.0 */
/* After a late attach: native methods the JVM bound before pinwatch came
 * get no NativeMethodBind event, so no thunk.  Each one whose function can
 * be found by the JNI name the JVM itself links by is bound again, to a
 * thunk for that same function, so its invocations are told apart (leaked
 * at return) like any other. */
#ifndef PW_REBIND_H
#define PW_REBIND_H

#include "base/pinwatch.h"

/* Returns how many methods were bound again. */
PW_HIDDEN unsigned pw_rebind_loaded(jvmtiEnv *jvmti, JNIEnv *env);

#endif
