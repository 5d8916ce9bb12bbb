/* SPDX-License-Identifier: Apache-2.0 */
#include "jvm/jni_table.h"
#include "jvm/jni_function_names.h"

#include <string.h>

struct JNINativeInterface_ pw_jni;

const struct JNINativeInterface_ *pw_jni_whole;
/* As long as the longest table pinwatch knows, whatever jni.h it was built
 * with. */
static union {
    struct JNINativeInterface_ functions;
    void *slots[PW_JNI_MAX_SLOTS];
} whole_table;

void
pw_jni_table_save(const void *table, uint32_t slots, bool whole)
{
    size_t known = (size_t)slots * sizeof(void *);
    memcpy(&pw_jni, table, known < sizeof(pw_jni) ? known : sizeof(pw_jni));
    if (whole && slots <= PW_JNI_MAX_SLOTS) {
        memcpy(whole_table.slots, table, known);
        pw_jni_whole = &whole_table.functions;
    }
}

_Static_assert(PW_JNI_MAX_SLOTS == PW_JNI_SLOTS, "jni_table.h and jni_function_names.h disagree");
/* The compiled-against jni.h (JDK 17's, or a later one) is a prefix of the
 * list: every slot it names is named. */
_Static_assert(sizeof(struct JNINativeInterface_) <= PW_JNI_SLOTS * sizeof(void *),
               "jni.h has slots jni_function_names.h does not name");
_Static_assert(offsetof(struct JNINativeInterface_, GetModule) / sizeof(void *) == 233,
               "jni_function_names.h does not match this jni.h");

const char *
pw_jni_slot_name(uint32_t slot)
{
    return slot < PW_JNI_SLOTS ? pw_jni_function_names[slot] : "?";
}

uint32_t
pw_jni_table_slots(jint version, bool *newest_known)
{
    size_t n = sizeof(pw_jni_table_sizes) / sizeof(pw_jni_table_sizes[0]);
    uint32_t slots = 0;
    for (size_t i = 0; i < n && version >= pw_jni_table_sizes[i].version; i++)
        slots = pw_jni_table_sizes[i].slots;
    if (newest_known != NULL)
        *newest_known = version <= pw_jni_table_sizes[n - 1].version;
    return slots;
}

/* JNI versions are the JDK's feature release in the upper half since JDK 9
 * (JNI_VERSION_21 = 0x00150000); before that, 1.x.  Probing releases well
 * past the newest known lets a newer JVM be noticed. */
#define NEWEST_PROBED 0x00400000
#define FEATURE_STEP 0x00010000

jint
pw_jni_version(JavaVM *vm)
{
    static const jint before_9[] = {JNI_VERSION_1_8, JNI_VERSION_1_6};
    void *env = NULL;
    for (jint v = NEWEST_PROBED; v >= JNI_VERSION_9; v -= FEATURE_STEP)
        if ((*vm)->GetEnv(vm, &env, v) == JNI_OK)
            return v;
    for (size_t i = 0; i < sizeof(before_9) / sizeof(before_9[0]); i++)
        if ((*vm)->GetEnv(vm, &env, before_9[i]) == JNI_OK)
            return before_9[i];
    return 0;
}
