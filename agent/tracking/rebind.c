/* SPDX-License-Identifier: Apache-2.0 */
#include "tracking/rebind.h"
#include "jvm/jni_table.h"
#include "jvm/jni_names.h"
#include "base/log.h"
#include "state/methods.h"

#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

struct libraries {
    void **handles;
    size_t n, cap;
};

static int
collect(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct libraries *libs = arg;
    if (info->dlpi_name == NULL || info->dlpi_name[0] == '\0')
        return 0;
    /* NOLOAD: a handle to what is mapped already, never a new load. */
    void *h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
    if (h == NULL)
        return 0;
    if (libs->n == libs->cap) {
        size_t cap = libs->cap ? libs->cap * 2 : 64;
        void **grown = realloc(libs->handles, cap * sizeof(*grown));
        if (grown == NULL) {
            dlclose(h);
            return 1;
        }
        libs->handles = grown;
        libs->cap = cap;
    }
    libs->handles[libs->n++] = h;
    return 0;
}

/* The function exported under the method's JNI names, when exactly one
 * address carries them: with two (two class loaders, two libraries) the
 * JVM's choice cannot be known, so the method is left as it is. */
static void *
jni_function(const struct libraries *libs, const char *java_name, const char *signature)
{
    char short_name[1024], long_name[2048];
    if (!pw_jni_symbol(java_name, NULL, short_name, sizeof(short_name)) ||
        !pw_jni_symbol(java_name, signature, long_name, sizeof(long_name)))
        return NULL;
    void *found = NULL;
    for (size_t i = 0; i < libs->n; i++) {
        void *f = dlsym(libs->handles[i], short_name);
        if (f == NULL)
            f = dlsym(libs->handles[i], long_name);
        if (f == NULL)
            continue;
        if (found != NULL && found != f)
            return NULL;
        found = f;
    }
    return found;
}

static unsigned
rebind_class(jvmtiEnv *jvmti, JNIEnv *env, const struct libraries *libs, jclass klass)
{
    jint nmethods = 0;
    jmethodID *methods = NULL;
    unsigned bound = 0;
    if ((*jvmti)->GetClassMethods(jvmti, klass, &nmethods, &methods) != JVMTI_ERROR_NONE)
        return 0;
    for (jint i = 0; i < nmethods; i++) {
        jboolean native = JNI_FALSE;
        if ((*jvmti)->IsMethodNative(jvmti, methods[i], &native) != JVMTI_ERROR_NONE || !native)
            continue;
        struct pw_method *known = pw_method_unbound(jvmti, methods[i]);
        const char *name = known != NULL ? atomic_load(&known->name) : NULL;
        const char *sig = known != NULL ? atomic_load(&known->signature) : NULL;
        void *f = name != NULL && sig != NULL ? jni_function(libs, name, sig) : NULL;
        if (f != NULL && pw_method_bind_to_thunk(jvmti, env, known, klass, f))
            bound++;
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)methods);
    return bound;
}

unsigned
pw_rebind_loaded(jvmtiEnv *jvmti, JNIEnv *env)
{
    jint nclasses = 0;
    jclass *classes = NULL;
    if (env == NULL || (*jvmti)->GetLoadedClasses(jvmti, &nclasses, &classes) != JVMTI_ERROR_NONE)
        return 0;
    struct libraries libs = {0};
    dl_iterate_phdr(collect, &libs);
    unsigned bound = 0;
    for (jint i = 0; i < nclasses; i++) {
        jint status = 0;
        if ((*jvmti)->GetClassStatus(jvmti, classes[i], &status) == JVMTI_ERROR_NONE &&
            (status & (JVMTI_CLASS_STATUS_ARRAY | JVMTI_CLASS_STATUS_PRIMITIVE)) == 0 &&
            (status & JVMTI_CLASS_STATUS_PREPARED) != 0)
            bound += rebind_class(jvmti, env, &libs, classes[i]);
        pw_jni.DeleteLocalRef(env, classes[i]);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)classes);
    for (size_t i = 0; i < libs.n; i++)
        dlclose(libs.handles[i]);
    free(libs.handles);
    return bound;
}
