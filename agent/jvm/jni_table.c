/* SPDX-License-Identifier: Apache-2.0 */
#include "jvm/jni_table.h"
#include "jvm/jni_function_names.h"

#include <string.h>

/* How many slots a JVM's table has, by the JNI version its GetVersion
 * reports, oldest first: the largest version not above the JVM's wins.
 * JNI_VERSION_9 (JDK 9 to 20; 19 and 20 report their own versions but add
 * no function) ends with GetModule, JNI_VERSION_21 adds IsVirtualThread and
 * JNI_VERSION_24 GetStringUTFLengthAsLong. */
static const struct {
    int32_t version;
    uint32_t slots;
} table_sizes[] = {
    {0x00010006, 233},
    {0x00090000, 234},
    {0x00150000, 235},
    {0x00180000, 236},
};

/* Generated from jni.h: one name per slot, JDK 17's table and the slots
 * later JDKs appended. */
const char *const pw_jni_function_names[PW_JNI_SLOTS] = {
    "reserved0",
    "reserved1",
    "reserved2",
    "reserved3",
    "GetVersion",
    "DefineClass",
    "FindClass",
    "FromReflectedMethod",
    "FromReflectedField",
    "ToReflectedMethod",
    "GetSuperclass",
    "IsAssignableFrom",
    "ToReflectedField",
    "Throw",
    "ThrowNew",
    "ExceptionOccurred",
    "ExceptionDescribe",
    "ExceptionClear",
    "FatalError",
    "PushLocalFrame",
    "PopLocalFrame",
    "NewGlobalRef",
    "DeleteGlobalRef",
    "DeleteLocalRef",
    "IsSameObject",
    "NewLocalRef",
    "EnsureLocalCapacity",
    "AllocObject",
    "NewObject",
    "NewObjectV",
    "NewObjectA",
    "GetObjectClass",
    "IsInstanceOf",
    "GetMethodID",
    "CallObjectMethod",
    "CallObjectMethodV",
    "CallObjectMethodA",
    "CallBooleanMethod",
    "CallBooleanMethodV",
    "CallBooleanMethodA",
    "CallByteMethod",
    "CallByteMethodV",
    "CallByteMethodA",
    "CallCharMethod",
    "CallCharMethodV",
    "CallCharMethodA",
    "CallShortMethod",
    "CallShortMethodV",
    "CallShortMethodA",
    "CallIntMethod",
    "CallIntMethodV",
    "CallIntMethodA",
    "CallLongMethod",
    "CallLongMethodV",
    "CallLongMethodA",
    "CallFloatMethod",
    "CallFloatMethodV",
    "CallFloatMethodA",
    "CallDoubleMethod",
    "CallDoubleMethodV",
    "CallDoubleMethodA",
    "CallVoidMethod",
    "CallVoidMethodV",
    "CallVoidMethodA",
    "CallNonvirtualObjectMethod",
    "CallNonvirtualObjectMethodV",
    "CallNonvirtualObjectMethodA",
    "CallNonvirtualBooleanMethod",
    "CallNonvirtualBooleanMethodV",
    "CallNonvirtualBooleanMethodA",
    "CallNonvirtualByteMethod",
    "CallNonvirtualByteMethodV",
    "CallNonvirtualByteMethodA",
    "CallNonvirtualCharMethod",
    "CallNonvirtualCharMethodV",
    "CallNonvirtualCharMethodA",
    "CallNonvirtualShortMethod",
    "CallNonvirtualShortMethodV",
    "CallNonvirtualShortMethodA",
    "CallNonvirtualIntMethod",
    "CallNonvirtualIntMethodV",
    "CallNonvirtualIntMethodA",
    "CallNonvirtualLongMethod",
    "CallNonvirtualLongMethodV",
    "CallNonvirtualLongMethodA",
    "CallNonvirtualFloatMethod",
    "CallNonvirtualFloatMethodV",
    "CallNonvirtualFloatMethodA",
    "CallNonvirtualDoubleMethod",
    "CallNonvirtualDoubleMethodV",
    "CallNonvirtualDoubleMethodA",
    "CallNonvirtualVoidMethod",
    "CallNonvirtualVoidMethodV",
    "CallNonvirtualVoidMethodA",
    "GetFieldID",
    "GetObjectField",
    "GetBooleanField",
    "GetByteField",
    "GetCharField",
    "GetShortField",
    "GetIntField",
    "GetLongField",
    "GetFloatField",
    "GetDoubleField",
    "SetObjectField",
    "SetBooleanField",
    "SetByteField",
    "SetCharField",
    "SetShortField",
    "SetIntField",
    "SetLongField",
    "SetFloatField",
    "SetDoubleField",
    "GetStaticMethodID",
    "CallStaticObjectMethod",
    "CallStaticObjectMethodV",
    "CallStaticObjectMethodA",
    "CallStaticBooleanMethod",
    "CallStaticBooleanMethodV",
    "CallStaticBooleanMethodA",
    "CallStaticByteMethod",
    "CallStaticByteMethodV",
    "CallStaticByteMethodA",
    "CallStaticCharMethod",
    "CallStaticCharMethodV",
    "CallStaticCharMethodA",
    "CallStaticShortMethod",
    "CallStaticShortMethodV",
    "CallStaticShortMethodA",
    "CallStaticIntMethod",
    "CallStaticIntMethodV",
    "CallStaticIntMethodA",
    "CallStaticLongMethod",
    "CallStaticLongMethodV",
    "CallStaticLongMethodA",
    "CallStaticFloatMethod",
    "CallStaticFloatMethodV",
    "CallStaticFloatMethodA",
    "CallStaticDoubleMethod",
    "CallStaticDoubleMethodV",
    "CallStaticDoubleMethodA",
    "CallStaticVoidMethod",
    "CallStaticVoidMethodV",
    "CallStaticVoidMethodA",
    "GetStaticFieldID",
    "GetStaticObjectField",
    "GetStaticBooleanField",
    "GetStaticByteField",
    "GetStaticCharField",
    "GetStaticShortField",
    "GetStaticIntField",
    "GetStaticLongField",
    "GetStaticFloatField",
    "GetStaticDoubleField",
    "SetStaticObjectField",
    "SetStaticBooleanField",
    "SetStaticByteField",
    "SetStaticCharField",
    "SetStaticShortField",
    "SetStaticIntField",
    "SetStaticLongField",
    "SetStaticFloatField",
    "SetStaticDoubleField",
    "NewString",
    "GetStringLength",
    "GetStringChars",
    "ReleaseStringChars",
    "NewStringUTF",
    "GetStringUTFLength",
    "GetStringUTFChars",
    "ReleaseStringUTFChars",
    "GetArrayLength",
    "NewObjectArray",
    "GetObjectArrayElement",
    "SetObjectArrayElement",
    "NewBooleanArray",
    "NewByteArray",
    "NewCharArray",
    "NewShortArray",
    "NewIntArray",
    "NewLongArray",
    "NewFloatArray",
    "NewDoubleArray",
    "GetBooleanArrayElements",
    "GetByteArrayElements",
    "GetCharArrayElements",
    "GetShortArrayElements",
    "GetIntArrayElements",
    "GetLongArrayElements",
    "GetFloatArrayElements",
    "GetDoubleArrayElements",
    "ReleaseBooleanArrayElements",
    "ReleaseByteArrayElements",
    "ReleaseCharArrayElements",
    "ReleaseShortArrayElements",
    "ReleaseIntArrayElements",
    "ReleaseLongArrayElements",
    "ReleaseFloatArrayElements",
    "ReleaseDoubleArrayElements",
    "GetBooleanArrayRegion",
    "GetByteArrayRegion",
    "GetCharArrayRegion",
    "GetShortArrayRegion",
    "GetIntArrayRegion",
    "GetLongArrayRegion",
    "GetFloatArrayRegion",
    "GetDoubleArrayRegion",
    "SetBooleanArrayRegion",
    "SetByteArrayRegion",
    "SetCharArrayRegion",
    "SetShortArrayRegion",
    "SetIntArrayRegion",
    "SetLongArrayRegion",
    "SetFloatArrayRegion",
    "SetDoubleArrayRegion",
    "RegisterNatives",
    "UnregisterNatives",
    "MonitorEnter",
    "MonitorExit",
    "GetJavaVM",
    "GetStringRegion",
    "GetStringUTFRegion",
    "GetPrimitiveArrayCritical",
    "ReleasePrimitiveArrayCritical",
    "GetStringCritical",
    "ReleaseStringCritical",
    "NewWeakGlobalRef",
    "DeleteWeakGlobalRef",
    "ExceptionCheck",
    "NewDirectByteBuffer",
    "GetDirectBufferAddress",
    "GetDirectBufferCapacity",
    "GetObjectRefType",
    "GetModule",
    "IsVirtualThread",
    "GetStringUTFLengthAsLong",
};

struct JNINativeInterface_ pw_jni;

const struct JNINativeInterface_ *pw_jni_whole;
/* As long as the longest table pinwatch knows, whatever jni.h it was built
 * with. */
static union {
    struct JNINativeInterface_ functions;
    void *slots[PW_JNI_SLOTS];
} whole_table;

void
pw_jni_table_save(const void *table, uint32_t slots, bool whole)
{
    size_t known = (size_t)slots * sizeof(void *);
    memcpy(&pw_jni, table, known < sizeof(pw_jni) ? known : sizeof(pw_jni));
    if (whole && slots <= PW_JNI_SLOTS) {
        memcpy(whole_table.slots, table, known);
        pw_jni_whole = &whole_table.functions;
    }
}

/* The compiled-against jni.h (JDK 17's, or a later one) is a prefix of the
 * list: every slot it names is named. */
_Static_assert(sizeof(struct JNINativeInterface_) <= PW_JNI_SLOTS * sizeof(void *),
               "jni.h has slots pw_jni_function_names does not name");
_Static_assert(offsetof(struct JNINativeInterface_, GetModule) / sizeof(void *) == 233,
               "pw_jni_function_names does not match this jni.h");

const char *
pw_jni_slot_name(uint32_t slot)
{
    return slot < PW_JNI_SLOTS ? pw_jni_function_names[slot] : "?";
}

const char *
pw_release_name(uint32_t fn)
{
    static const uint16_t release_slots[PW_FN_COUNT] = {
        [PW_FN_BOOLEAN_ELEMENTS] = PW_JNI_SLOT(ReleaseBooleanArrayElements),
        [PW_FN_BYTE_ELEMENTS] = PW_JNI_SLOT(ReleaseByteArrayElements),
        [PW_FN_CHAR_ELEMENTS] = PW_JNI_SLOT(ReleaseCharArrayElements),
        [PW_FN_SHORT_ELEMENTS] = PW_JNI_SLOT(ReleaseShortArrayElements),
        [PW_FN_INT_ELEMENTS] = PW_JNI_SLOT(ReleaseIntArrayElements),
        [PW_FN_LONG_ELEMENTS] = PW_JNI_SLOT(ReleaseLongArrayElements),
        [PW_FN_FLOAT_ELEMENTS] = PW_JNI_SLOT(ReleaseFloatArrayElements),
        [PW_FN_DOUBLE_ELEMENTS] = PW_JNI_SLOT(ReleaseDoubleArrayElements),
        [PW_FN_ARRAY_CRITICAL] = PW_JNI_SLOT(ReleasePrimitiveArrayCritical),
        [PW_FN_STRING_CHARS] = PW_JNI_SLOT(ReleaseStringChars),
        [PW_FN_STRING_UTF_CHARS] = PW_JNI_SLOT(ReleaseStringUTFChars),
        [PW_FN_STRING_CRITICAL] = PW_JNI_SLOT(ReleaseStringCritical),
    };
    return fn < PW_FN_COUNT ? pw_jni_slot_name(release_slots[fn]) : "?";
}

uint32_t
pw_jni_table_slots(jint version, bool *newest_known)
{
    size_t n = sizeof(table_sizes) / sizeof(table_sizes[0]);
    uint32_t slots = 0;
    for (size_t i = 0; i < n && version >= table_sizes[i].version; i++)
        slots = table_sizes[i].slots;
    if (newest_known != NULL)
        *newest_known = version <= table_sizes[n - 1].version;
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
