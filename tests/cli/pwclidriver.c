/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * libpwclidriver: one deliberate leak for the cli tests, a second native
 * method next to the training example's evalStep.
 */
#include <jni.h>

JNIEXPORT void JNICALL Java_pinwatch_cli_Driver_keep(JNIEnv *env, jclass cls, jintArray values);

JNIEXPORT void JNICALL
Java_pinwatch_cli_Driver_keep(JNIEnv *env, jclass cls, jintArray values)
{
    jint *p = (*env)->GetIntArrayElements(env, values, NULL);
    (void)cls;
    if (p != NULL)
        p[0] = 1; /* and never released */
}
