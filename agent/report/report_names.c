/* SPDX-License-Identifier: Apache-2.0 */
/* What reports call a site's kind and function: the one place that reads
 * them off a site. */
#include "jvm/jni_table.h"
#include "report/snapshot.h"

uint8_t
pw_snap_site_kind(const struct pw_site *site)
{
    if (!PW_FN_IS_REF(site->fn))
        return PW_KIND_PIN;
    return site->fn == PW_FN_REF_GLOBAL ? PW_KIND_GLOBAL_REF
           : site->fn == PW_FN_REF_WEAK ? PW_KIND_WEAK_REF
                                        : PW_KIND_LOCAL_REF;
}

const char *
pw_snap_ref_kind(uint8_t kind)
{
    return kind == PW_KIND_GLOBAL_REF ? "global" : kind == PW_KIND_WEAK_REF ? "weak" : "local";
}

const char *
pw_snap_ref_function_name(uint32_t fn)
{
    if (PW_FN_IS_LOCAL_REF(fn))
        return pw_jni_slot_name(fn - PW_FN_REF_LOCAL);
    return pw_function_name(fn);
}

const char *
pw_snap_site_function(const struct pw_site *site)
{
    return pw_snap_site_kind(site) == PW_KIND_PIN ? pw_function_name(site->fn)
                                                  : pw_snap_ref_function_name(site->fn);
}
