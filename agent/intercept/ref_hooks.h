/* SPDX-License-Identifier: Apache-2.0 */
/* The JNI reference functions' wrappers (refs=on): global and weak global
 * references, local frames, and every function that returns a new local
 * reference.  With refs=off none is installed: those slots keep the JVM's
 * functions (behind the critical-region guard) and cost nothing more. */
#ifndef PW_REF_HOOKS_H
#define PW_REF_HOOKS_H

#include "base/options.h"
#include "base/pinwatch.h"

/* refs= from o.  Before the JNI table swap. */
PW_HIDDEN void pw_ref_hooks_start(const struct pw_options *o);

/* Puts the wrappers in table (called by pw_jni_hooks_install after the
 * guards, before the table is set) and returns true; nothing, and false,
 * with refs=off. */
PW_HIDDEN bool pw_ref_hooks_install(struct JNINativeInterface_ *table);

/* Wraps DetachCurrentThread in the JavaVM's invoke interface, where a
 * natively attached thread's locals die; once, when enabled. */
PW_HIDDEN void pw_ref_hooks_install_vm(JavaVM *vm);

#endif
