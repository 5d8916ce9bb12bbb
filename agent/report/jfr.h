/* Flight Recorder events (agent/java/api, package io.pinwatch.jfr): the
 * agent puts the API jar on the system class path and has the JFR side
 * register its events when the recorder starts.  Runs at VMInit or at a
 * late attach, never on the hot path. */
#ifndef PW_JFR_H
#define PW_JFR_H

#include "pinwatch.h"

/* Appends pinwatch-api.jar (found next to this library, in the build tree
 * or the installed tree) to the system class path and calls
 * io.pinwatch.jfr.Recorder.start().  A warning line, not a failure, when
 * the jar or the JDK's jdk.jfr is missing: pins are counted regardless. */
PW_HIDDEN void pw_jfr_start(jvmtiEnv *jvmti, JNIEnv *jni);

#endif
