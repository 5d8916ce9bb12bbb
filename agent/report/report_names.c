/* SPDX-License-Identifier: Apache-2.0 */
/* What reports call a reference row's kind and a site's function. */
#include "jvm/jni_table.h"
#include "report/snapshot.h"

const char *
pw_snap_ref_kind(uint8_t kind)
{
    return kind == PW_KIND_GLOBAL_REF ? "global" : kind == PW_KIND_WEAK_REF ? "weak" : "local";
}

const char *
pw_snap_ref_function_name(uint32_t fn)
{
    return pw_jni_slot_name(fn);
}

const char *
pw_snap_site_function(const struct pw_site *site)
{
    return site->kind == PW_KIND_PIN ? pw_function_name(site->fn) : pw_snap_ref_function_name(site->fn);
}
