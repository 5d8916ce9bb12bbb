// SPDX-License-Identifier: Apache-2.0
package io.pinwatch.agent;

/**
 * The agent could not be loaded: this jar has no agent for the platform, the
 * extraction directory cannot be used (someone else's, writable by others,
 * mounted {@code noexec}), or the agent refused to start (a bad option).  The
 * message is one line that says which and what to do.
 */
public final class AgentLoadException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * An exception with its one line.
     *
     * @param message the one line that says why
     */
    public AgentLoadException(String message) {
        super(message);
    }

    /**
     * An exception with its one line and the failure beneath it.
     *
     * @param message the one line that says why
     * @param cause what failed underneath
     */
    public AgentLoadException(String message, Throwable cause) {
        super(message, cause);
    }
}
