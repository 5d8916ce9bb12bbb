#include "jni_table.h"

#include <string.h>

struct JNINativeInterface_ pw_jni;

void
pw_jni_table_save(const struct JNINativeInterface_ *table)
{
    memcpy(&pw_jni, table, sizeof(pw_jni));
}
