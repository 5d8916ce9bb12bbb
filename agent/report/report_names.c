/* SPDX-License-Identifier: Apache-2.0 */
/* What reports call a row's function and a reference row's kind. */
#include "jvm/jni_function_names.h"
#include "report/snapshot.h"

const char *
pw_snap_ref_kind(uint32_t fn)
{
    return fn == PW_FN_REF_GLOBAL ? "global" : fn == PW_FN_REF_WEAK ? "weak" : "local";
}

const char *
pw_snap_function_name(uint32_t fn)
{
    if (PW_FN_IS_LOCAL_REF(fn))
        return fn - PW_FN_REF_LOCAL < PW_JNI_SLOTS ? pw_jni_function_names[fn - PW_FN_REF_LOCAL] : "?";
    return pw_function_name(fn);
}
