/* SPDX-License-Identifier: Apache-2.0 */
/* Suppressions: pins a library keeps on purpose (held across calls with a
 * global reference) would otherwise read as leaks.  Rules in the spirit of
 * LeakSanitizer's suppression files, one a line:
 *     method:GLOB     the Java native method, "pkg.Cls.name"
 *     library:GLOB    the library of the call site (full path or file name)
 *     function:NAME   the JNI acquire function, e.g. GetStringUTFChars
 * Suppressed pins are still counted; they are shown apart and never trigger
 * a threshold report or the exit status. */
#ifndef PW_SUPPRESS_H
#define PW_SUPPRESS_H

#include "base/pinwatch.h"

/* Reads the rules; false with one line naming the file and line in err. */
PW_HIDDEN bool pw_suppress_load(const char *path, char *err, size_t errlen);

/* Whether a site matches any rule.  library may be NULL. */
PW_HIDDEN bool pw_suppress_match(const char *method, const char *library, uint32_t fn);

PW_HIDDEN bool pw_suppress_any(void);

#endif
