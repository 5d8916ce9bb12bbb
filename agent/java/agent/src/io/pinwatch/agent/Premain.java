// SPDX-License-Identifier: Apache-2.0
package io.pinwatch.agent;

import java.lang.instrument.Instrumentation;

/**
 * The jar as a Java agent: {@code java -javaagent:pinwatch-agent-VERSION.jar=OPTIONS}
 * loads the native agent before {@code main} with the options
 * {@code -agentpath:libpinwatch.so=OPTIONS} takes, for launchers that take a jar
 * more easily than a native path.  Nothing of {@code java.lang.instrument} is used
 * beyond the entry points.
 */
public final class Premain {
    private Premain() {
    }

    /**
     * Loads the agent at the JVM's start.  When it cannot be loaded the JVM
     * exits with status 1 after one line on stderr, as it does when
     * {@code -agentpath} fails: a run that was meant to be watched does not
     * go on unwatched.
     *
     * @param options pinwatch's options, as after {@code -agentpath:...=}; null for the defaults
     * @param instrumentation unused
     */
    public static void premain(String options, Instrumentation instrumentation) {
        try {
            AgentLibrary.load(options);
        } catch (AgentLoadException e) {
            System.err.println("[pinwatch] ERROR " + e.getMessage());
            System.exit(1);
        }
    }

    /**
     * Loads the agent into a running JVM (a dynamic attach of this jar).  A
     * failure is said on the JVM's stderr and thrown to the attaching tool;
     * the JVM goes on.
     *
     * @param options pinwatch's options, as after {@code -agentpath:...=}; null for the defaults
     * @param instrumentation unused
     */
    public static void agentmain(String options, Instrumentation instrumentation) {
        try {
            AgentLibrary.load(options);
        } catch (AgentLoadException e) {
            System.err.println("[pinwatch] ERROR " + e.getMessage());
            throw e;
        }
    }
}
