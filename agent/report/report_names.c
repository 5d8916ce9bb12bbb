/* SPDX-License-Identifier: Apache-2.0 */
/* What reports call a row's function and a reference row's kind. */
#include "jvm/jni_table.h"
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
        return pw_jni_slot_name(fn - PW_FN_REF_LOCAL);
    return pw_function_name(fn);
}
