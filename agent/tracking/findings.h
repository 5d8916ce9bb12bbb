/* SPDX-License-Identifier: Apache-2.0 */
/* JNI misuse pinwatch sees on its way: each kind counted per (kind, pin
 * site, offending call), for the findings section of every report.
 *   double_release   a pointer released again without being handed out in
 *                    between; NOT passed on (that would free it twice)
 *   wrong_object     released against another array or string than the one
 *                    it came from
 *   wrong_function   released through another family (ReleaseIntArrayElements
 *                    for a long[] pin, an elements pointer as a critical, ...)
 *   jni_in_critical  any other JNI call from a thread holding a critical region
 *   long_critical    a critical region held longer than critical_ms
 *   double_delete    a global or weak reference (or a native thread's local)
 *                    deleted again without being made in between; NOT
 *                    passed on (a global's would corrupt the JVM's handle
 *                    storage; -Xcheck:jni aborts on either)
 *   local_limit      one native method invocation held more than
 *                    local_limit local references */
#ifndef PW_FINDINGS_H
#define PW_FINDINGS_H

#include "base/options.h"
#include "base/pinwatch.h"

enum pw_finding_kind {
    PW_FINDING_DOUBLE_RELEASE,
    PW_FINDING_WRONG_OBJECT,
    PW_FINDING_WRONG_FUNCTION,
    PW_FINDING_JNI_IN_CRITICAL,
    PW_FINDING_LONG_CRITICAL,
    PW_FINDING_DOUBLE_DELETE,
    PW_FINDING_LOCAL_LIMIT,
    PW_FINDING_KINDS
};

PW_HIDDEN const char *pw_finding_kind_name(enum pw_finding_kind kind);

/* One occurrence, recorded on the thread that made the call.  site: the
 * pin's site (0 when unknown); call: the return address of the offending
 * call; detail: the release function (an enum pw_function of the family
 * used) or the JNI slot of the offending call (jni_in_critical, and the
 * reference kinds: the delete, or the function that went past the limit). */
PW_HIDDEN void pw_finding(enum pw_finding_kind kind, uint32_t site, void *call, uint32_t detail);

/* A critical region released after held_ms (long_critical bookkeeping: all
 * holds of at least 1 ms are kept in a histogram per site). */
PW_HIDDEN void pw_finding_critical_held(uint32_t site, void *call, uint64_t held_ms);

/* critical_ms= from o.  Before the JNI table swap. */
PW_HIDDEN void pw_findings_start(const struct pw_options *o);

/* In a row's detail: the call was the native method's tail call, and call
 * is that function's start + 1 (so that looking up call - 1 names it). */
#define PW_FINDING_TAIL 0x80000000u

struct pw_finding_row {
    enum pw_finding_kind kind;
    uint32_t site;
    uintptr_t call;
    uint32_t detail;
    uint64_t count;
};

/* A copy of every finding; *n set to their number.  Caller frees. */
PW_HIDDEN struct pw_finding_row *pw_findings_copy(size_t *n);
PW_HIDDEN uint64_t pw_findings_double_releases(void);

/* long_critical per site: holds over critical_ms, the longest, and the
 * 99th percentile of all holds (from the histogram and the site's
 * release count).  False when the site never held one that long. */
struct pw_long_critical {
    uint64_t over, max_ms, p99_ms;
};
PW_HIDDEN bool pw_findings_long_critical(uint32_t site, uint64_t releases, struct pw_long_critical *out);

#endif
