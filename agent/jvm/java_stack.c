/* SPDX-License-Identifier: Apache-2.0 */
#include "jvm/java_stack.h"
#include "jvm/jni_names.h"
#include "jvm/jni_table.h"

#include <stdlib.h>
#include <string.h>

#define JAVA_STACK_MAX 64

static char *
class_name(jvmtiEnv *jvmti, JNIEnv *env, jmethodID method, const char *name)
{
    jclass klass = NULL;
    char *sig = NULL, *out = NULL;
    if ((*jvmti)->GetMethodDeclaringClass(jvmti, method, &klass) != JVMTI_ERROR_NONE)
        return NULL;
    jvmtiError err = (*jvmti)->GetClassSignature(jvmti, klass, &sig, NULL);
    /* The reference lives in the native method's own local frame: give it
     * back rather than grow that frame on the application's behalf, which
     * -Xcheck:jni would report as the application's ("WARNING: JNI local
     * refs: N, exceeds capacity: M", src/hotspot/share/prims/jniCheck.cpp
     * functionExit). */
    if (env != NULL)
        pw_jni.DeleteLocalRef(env, klass);
    if (err != JVMTI_ERROR_NONE)
        return NULL;
    out = pw_java_method_name(sig, name);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
    return out;
}

static int
line_of(jvmtiEnv *jvmti, jmethodID method, jlocation location)
{
    jint count = 0;
    jvmtiLineNumberEntry *table = NULL;
    if (location < 0 || (*jvmti)->GetLineNumberTable(jvmti, method, &count, &table) != JVMTI_ERROR_NONE)
        return -1;
    int line = -1;
    for (jint i = 0; i < count; i++)
        if (table[i].start_location <= location)
            line = table[i].line_number;
    (*jvmti)->Deallocate(jvmti, (unsigned char *)table);
    return line;
}

struct pw_java_stack *
pw_java_stack_capture(jvmtiEnv *jvmti, JNIEnv *env, int max)
{
    if (jvmti == NULL || max <= 0)
        return NULL;
    if (max > JAVA_STACK_MAX)
        max = JAVA_STACK_MAX;
    jvmtiFrameInfo frames[JAVA_STACK_MAX + 1];
    jint count = 0;
    /* Frame 0 is the native method itself. */
    if ((*jvmti)->GetStackTrace(jvmti, NULL, 0, max + 1, frames, &count) != JVMTI_ERROR_NONE || count <= 1)
        return NULL;
    struct pw_java_stack *s = calloc(1, sizeof(*s) + (size_t)(count - 1) * sizeof(s->frames[0]));
    if (s == NULL)
        return NULL;
    for (jint i = 1; i < count; i++) {
        char *name = NULL, *sig = NULL;
        if ((*jvmti)->GetMethodName(jvmti, frames[i].method, &name, &sig, NULL) != JVMTI_ERROR_NONE)
            continue;
        struct pw_java_frame *f = &s->frames[s->n];
        f->method = class_name(jvmti, env, frames[i].method, name);
        f->signature = strdup(sig);
        f->line = line_of(jvmti, frames[i].method, frames[i].location);
        (*jvmti)->Deallocate(jvmti, (unsigned char *)name);
        (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
        if (f->method == NULL || f->signature == NULL) {
            free(f->method);
            free(f->signature);
            continue;
        }
        s->n++;
    }
    if (s->n == 0) {
        free(s);
        return NULL;
    }
    return s;
}

void
pw_java_stack_free(struct pw_java_stack *s)
{
    if (s == NULL)
        return;
    for (int i = 0; i < s->n; i++) {
        free(s->frames[i].method);
        free(s->frames[i].signature);
    }
    free(s);
}
