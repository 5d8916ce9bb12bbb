/* SPDX-License-Identifier: Apache-2.0 */
/* The names the JVM looks up when it links a native method lazily: the JNI
 * specification's "Java_" + mangled class + "_" + mangled method (short
 * form), followed by "__" + mangled argument types (long form). */
#ifndef PW_JNI_NAMES_H
#define PW_JNI_NAMES_H

#include "base/pinwatch.h"

/* java_name is "pkg.Outer$Inner.method" as reports print it; signature the
 * JNI signature "(J[J)[J" (only needed for the long form, else NULL).
 * False when out is too small or the input is malformed. */
PW_HIDDEN bool pw_jni_symbol(const char *java_name, const char *signature, char *out, size_t len);

/* "pkg.Outer$Inner.name", as reports print a method, from the class
 * signature the JVM gives ("Lpkg/Outer$Inner;") and the method's name (the
 * one conversion for native methods and Java stack frames); malloc'ed, NULL
 * when no memory is left. */
PW_HIDDEN char *pw_java_method_name(const char *class_sig, const char *name);

/* The reverse: "Java_pkg_Cls_name" or "Java_pkg_Cls_name__J_3J" gives
 * "pkg.Cls.name" (and "(J[J)" into args when the long form carries them,
 * else args is empty).  False for a symbol that is not a JNI name. */
PW_HIDDEN bool pw_jni_demangle(const char *symbol, char *out, size_t len, char *args, size_t args_len);

#endif
