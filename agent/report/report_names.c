/* SPDX-License-Identifier: Apache-2.0 */
/* What reports call a row's function and a reference row's kind. */
#include "jvm/jni_table.h"
#include "report/snapshot.h"

const char *
pw_snap_ref_kind(uint8_t kind)
{
    return kind == PW_KIND_GLOBAL_REF ? "global" : kind == PW_KIND_WEAK_REF ? "weak" : "local";
}

const char *
pw_snap_function_name(uint8_t kind, uint32_t fn)
{
    if (kind != PW_KIND_PIN)
        return pw_jni_slot_name(fn);
    return pw_function_name(fn);
}
