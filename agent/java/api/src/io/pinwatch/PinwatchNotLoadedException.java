// SPDX-License-Identifier: Apache-2.0
package io.pinwatch;

/**
 * Thrown by every {@link Pinwatch} call but {@link Pinwatch#isLoaded()} when
 * the JVM runs without the pinwatch agent.
 */
public final class PinwatchNotLoadedException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /** The message names the option that loads the agent. */
    public PinwatchNotLoadedException() {
        super("pinwatch is not loaded in this JVM: start java with -agentpath:/path/to/libpinwatch.so");
    }
}
