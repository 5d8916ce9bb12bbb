/* SPDX-License-Identifier: Apache-2.0 */
/* pinwatch: a JVMTI agent that counts JNI pins (Get/Release pairs of array
 * elements, criticals and string characters) per Java native method.
 *
 * This header is what other programs may rely on: the version and the codes
 * Agent_OnLoad / Agent_OnAttach return.  The report formats are described in
 * README.md ("JSON contract"). */
#ifndef PINWATCH_PINWATCH_H
#define PINWATCH_PINWATCH_H

/* PINWATCH_VERSION, generated from the build's project version. */
#include "pinwatch/version.h"

/* Agent_OnLoad / Agent_OnAttach results.  A JVM launched with a failing
 * -agentpath does not start; jcmd JVMTI.agent_load prints the code. */
enum pinwatch_status {
    PINWATCH_OK = 0,
    PINWATCH_BAD_OPTIONS = 1,   /* unknown option or bad value; nothing changed */
    PINWATCH_JVMTI_FAILED = 2,  /* the JVM refused an environment or a capability */
    PINWATCH_HELP_SHOWN = 3     /* "help" printed the options; nothing started */
};

#endif
